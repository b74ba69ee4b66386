/*
 * CI state of a commit, the passed/failed rules, the non-code path rule
 * and the infrastructure-failure heuristics.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "ci.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "json.h"
#include "runfiles.h"
#include "xmalloc.h"
#include "woodpecker.h"

#define CI_LOG_LINES 200
#define CI_LOG_BYTES 16384

static int ci_woodpecker_state(struct woodpecker *, const char *,
    enum ci_state *, long long *);
static int ci_rule_matters(const cJSON *);
static int ci_forge_state(struct forge *, const char *, enum ci_state *,
    long long *, int *);
static long long ci_target_pipeline(const cJSON *);
static int ci_worst_rank(const char *);
static long long ci_num(const cJSON *, const char *);
static enum ci_rule ci_server_rule(struct forge *);
static const char *ci_icase_find(const char *, const char *, const char *);
static int ci_line_is_infra(const char *, const char *);
static int ci_log_is_infra(const char *);
static int ci_step_failed(const cJSON *);
static int ci_check_step(struct woodpecker *, long long, const cJSON *,
    struct ci_failure *);

const char *
ci_state_name(enum ci_state s)
{
	switch (s) {
	case CI_NONE:
		return "none";
	case CI_PENDING:
		return "pending";
	case CI_SUCCESS:
		return "success";
	case CI_FAILURE:
		return "failure";
	case CI_CANCELED:
		return "canceled";
	default:
		return "unknown";
	}
}

int
ci_state_parse(const char *name, enum ci_state *out)
{
	static const enum ci_state all[] = {CI_NONE, CI_PENDING, CI_SUCCESS,
	    CI_FAILURE, CI_CANCELED};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcmp(name, ci_state_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	}
	return -1;
}

int
ci_state_from_woodpecker(const char *status, enum ci_state *out)
{
	static const struct {
		const char *status;
		enum ci_state state;
	} map[] = {
	    {"success", CI_SUCCESS},
	    {"failure", CI_FAILURE},
	    {"error", CI_FAILURE},
	    {"running", CI_PENDING},
	    {"pending", CI_PENDING},
	    {"blocked", CI_PENDING},
	    {"created", CI_PENDING},
	    {"killed", CI_CANCELED},
	    {"canceled", CI_CANCELED},
	    {"declined", CI_CANCELED},
	    {"skipped", CI_CANCELED},
	};
	size_t i;

	if (status == NULL)
		return -1;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(status, map[i].status) == 0) {
			*out = map[i].state;
			return 0;
		}
	}
	return -1;
}

enum ci_state
ci_state_from_forge(const char *state)
{
	if (state == NULL || *state == '\0')
		return CI_NONE;
	if (strcmp(state, "success") == 0)
		return CI_SUCCESS;
	if (strcmp(state, "pending") == 0)
		return CI_PENDING;
	return CI_FAILURE;
}

int
ci_commit_state(struct forge *f, struct woodpecker *w, const char *sha,
    enum ci_state *out, long long *pipeline)
{
	return ci_commit_read(f, w, sha, out, pipeline, NULL);
}

int
ci_commit_read(struct forge *f, struct woodpecker *w, const char *sha,
    enum ci_state *out, long long *pipeline, int *wp_failed)
{
	long long num = 0;
	int r;

	*out = CI_UNKNOWN;
	if (pipeline != NULL)
		*pipeline = 0;
	if (wp_failed != NULL)
		*wp_failed = 0;
	/* Woodpecker's trouble is not the forge's: its status stands in. */
	if (w != NULL && (r = ci_woodpecker_state(w, sha, out, &num)) != 1) {
		if (r == 0)
			goto out;
		if (wp_failed != NULL)
			*wp_failed = 1;
		num = 0;
	}
	if (ci_forge_state(f, sha, out, num == 0 ? &num : NULL, NULL) == -1) {
		*out = CI_UNKNOWN;
		return -1;
	}
out:
	if (pipeline != NULL)
		*pipeline = num;
	return 0;
}

int
ci_read_fresh(const struct config *cfg, const char *sha, enum ci_state *out,
    char *why, size_t whysz)
{
	struct woodpecker *w = NULL;
	struct forge *f;
	int r;

	f = forge_open(cfg->forge_api, cfg->forge_token);
	if (config_woodpecker_configured(cfg))
		w = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	r = ci_commit_read(f, w, sha, out, NULL, NULL);
	snprintf(why, whysz, "%s", r == -1 ? forge_error(f) : "");
	woodpecker_close(w);
	forge_close(f);
	return r;
}

/*
 * The newest Woodpecker pipeline of sha: 0 with *out set, 1 when there is
 * none or its status means nothing here (*num is set when one exists),
 * -1 when the list could not be read.
 */
static int
ci_woodpecker_state(struct woodpecker *w, const char *sha, enum ci_state *out,
    long long *num)
{
	const char *status;
	int r;

	if ((r = woodpecker_latest_for_commit(w, sha, num, &status)) != 0)
		return r == WOODPECKER_NONE ? 1 : -1;
	return ci_state_from_woodpecker(status, out) == 0 ? 0 : 1;
}

int
ci_forge_read(struct forge *f, const char *sha, enum ci_state *out, int *final)
{
	*out = CI_UNKNOWN;
	*final = 0;
	if (ci_forge_state(f, sha, out, NULL, final) == -1) {
		*out = CI_UNKNOWN;
		return -1;
	}
	return 0;
}

enum ci_rule
ci_rule_of_version(const char *version)
{
	long major, minor;
	char *end;

	/* Forgejo says "7.0.5+gitea-1.21.11": its own rule is the worst. */
	if (version == NULL || strstr(version, "+gitea") != NULL)
		return CI_RULE_WORST;
	if (*version == 'v')
		version++;
	errno = 0;
	major = strtol(version, &end, 10);
	if (errno != 0 || end == version || *end != '.')
		return CI_RULE_WORST;
	minor = strtol(end + 1, &end, 10);
	if (major > 1 || (major == 1 && minor >= 23))
		return CI_RULE_ALL;
	return CI_RULE_WORST;
}

/*
 * A state's rank in modules/structs/commit_status.go's priorities (Gitea
 * 1.22, Forgejo): lower is worse; -1 for a word it does not rank.
 */
static int
ci_worst_rank(const char *state)
{
	static const char *const order[] = {"error", "failure", "warning",
	    "pending", "success"};
	size_t i;

	for (i = 0; state != NULL && i < sizeof(order) / sizeof(order[0]); i++)
		if (strcmp(state, order[i]) == 0)
			return (int)i;
	return -1;
}

/* obj[key] as an integer, 0 when missing or none. */
static long long
ci_num(const cJSON *obj, const char *key)
{
	long long n;

	return json_int(obj, key, &n) == 0 ? n : 0;
}

enum ci_state
ci_combine(const cJSON *statuses, enum ci_rule rule, int *final)
{
	const cJSON *s, *t;
	const char *st, *ctx;
	int n = 0, ok = 0, failed = 0, worst = 5, rank, latest;
	enum ci_state out;

	cJSON_ArrayForEach (s, statuses) {
		ctx = json_str(s, "context");
		/* The latest of each context alone (the highest index). */
		latest = 1;
		cJSON_ArrayForEach (t, statuses) {
			const char *c = json_str(t, "context");

			if (t != s && c != NULL && ctx != NULL &&
			    strcmp(c, ctx) == 0 &&
			    ci_num(t, "id") > ci_num(s, "id"))
				latest = 0;
		}
		if (!latest)
			continue;
		st = json_str(s, "status");
		n++;
		if (st != NULL &&
		    (strcmp(st, "error") == 0 || strcmp(st, "failure") == 0))
			failed = 1;
		else if (st != NULL &&
		    (strcmp(st, "success") == 0 || strcmp(st, "warning") == 0 ||
			strcmp(st, "skipped") == 0))
			ok++;
		if ((rank = ci_worst_rank(st)) != -1 && rank < worst)
			worst = rank;
	}
	if (n == 0)
		out = CI_NONE;
	else if (rule == CI_RULE_ALL)
		out = failed ? CI_FAILURE : ok == n ? CI_SUCCESS : CI_PENDING;
	else if (worst <= 2) /* error, failure, warning */
		out = CI_FAILURE;
	else if (worst == 4) /* success */
		out = CI_SUCCESS;
	else
		out = CI_PENDING;
	if (final != NULL)
		*final = out == CI_SUCCESS || out == CI_FAILURE;
	return out;
}

/*
 * The rule of f's server: its version kept in the run file for a day, or
 * read (once per handle) and kept.  Unreadable: the worst state's rule.
 */
static enum ci_rule
ci_server_rule(struct forge *f)
{
	struct buf b;
	struct stat sb;
	const char *v = NULL;
	char *path;
	enum ci_rule rule;
	size_t n;

	buf_init(&b, 0);
	path = runfiles_forge_version(forge_api_root(f));
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    time(NULL) - sb.st_mtime < 86400 && file_read(path, 256, &b) == 0 &&
	    (n = strcspn(buf_str(&b), "\n")) > 0) {
		b.data[n] = '\0';
		forge_server_version_set(f, buf_str(&b));
	} else if (forge_server_version(f, &v) == 0) {
		buf_reset(&b);
		buf_printf(&b, "%s\n", v);
		(void)file_write_atomic(path, buf_str(&b), b.len, 0600, 0);
	}
	if (v == NULL)
		(void)forge_server_version(f, &v);
	rule = ci_rule_of_version(v);
	buf_free(&b);
	free(path);
	return rule;
}

/*
 * The forge's status of sha, combined here; *num (may be NULL) from its
 * URLs, *final (may be NULL) whether that state is final
 * (ci_forge_read()).  The server's own combined state covers the first
 * page of contexts only (routers/api/v1/repo/status.go
 * GetCombinedCommitStatusByRef lists them with the request's page size,
 * services/convert/status.go ToCombinedStatus combines that page and its
 * total_count is the page's): when the X-Total-Count header says there
 * are more, every status is read from /statuses, all pages.
 */
static int
ci_forge_state(struct forge *f, const char *sha, enum ci_state *out,
    long long *num, int *final)
{
	const cJSON *st, *list;
	long long total;

	if (forge_commit_status(f, sha, &st) == -1)
		return -1;
	list = json_arr(st, "statuses");
	total = forge_commit_status_total(f, sha);
	if (num != NULL)
		*num = ci_target_pipeline(list);
	if (list == NULL || cJSON_GetArraySize(list) == 0) {
		*out = CI_NONE;
		if (final != NULL)
			*final = 0;
		return 0;
	}
	if (total > cJSON_GetArraySize(list) &&
	    forge_commit_statuses(f, sha, &list) == -1)
		return -1;
	*out = ci_combine(list,
	    ci_rule_matters(list) ? ci_server_rule(f) : CI_RULE_ALL, final);
	return 0;
}

/*
 * 1 when the two rules can combine statuses differently: only a
 * `warning` or a `skipped` one tells them apart (ci_combine()), so the
 * server's version is read only then.
 */
static int
ci_rule_matters(const cJSON *statuses)
{
	const cJSON *s;
	const char *st;

	cJSON_ArrayForEach (s, statuses)
		if ((st = json_str(s, "status")) != NULL &&
		    (strcmp(st, "warning") == 0 || strcmp(st, "skipped") == 0))
			return 1;
	return 0;
}

/* The N of the first ".../pipeline/N" target_url among the statuses. */
static long long
ci_target_pipeline(const cJSON *statuses)
{
	const cJSON *s;
	const char *url, *p;
	long long n;

	cJSON_ArrayForEach (s, statuses) {
		if ((url = json_str(s, "target_url")) == NULL)
			continue;
		for (p = strstr(url, "pipeline/"); p != NULL;
		     p = strstr(p + 1, "pipeline/")) {
			p += strlen("pipeline/");
			if (!isdigit((unsigned char)*p))
				continue;
			for (n = 0;
			     isdigit((unsigned char)*p) && n < 100000000000LL;
			     p++)
				n = n * 10 + (*p - '0');
			return n;
		}
	}
	return 0;
}

int
ci_passed(enum ci_state s, int ci_configured)
{
	if (s == CI_SUCCESS)
		return 1;
	return !ci_configured && (s == CI_NONE || s == CI_PENDING);
}

int
ci_final(enum ci_state s)
{
	return s == CI_SUCCESS || s == CI_FAILURE;
}

int
ci_failed(enum ci_state s, int ci_configured)
{
	return s == CI_FAILURE && !ci_passed(s, ci_configured);
}

int
ci_path_is_code(const char *path)
{
	size_t n;

	if (path == NULL || *path == '\0')
		return 0;
	if (strncmp(path, "docs/", 5) == 0 ||
	    strncmp(path, "formulas/", 9) == 0 ||
	    strncmp(path, "evidence/", 9) == 0)
		return 0;
	n = strlen(path);
	return !(n >= 3 && strcmp(path + n - 3, ".md") == 0);
}

int
ci_files_need_ci(const cJSON *files)
{
	const cJSON *f;
	const char *name;

	if (!cJSON_IsArray(files) || cJSON_GetArraySize(files) == 0)
		return 1;
	cJSON_ArrayForEach (f, files) {
		name = json_str(f, "filename");
		if (name == NULL || ci_path_is_code(name))
			return 1;
	}
	return 0;
}

/* Case-insensitive search for needle in [hay, end): match start or NULL. */
static const char *
ci_icase_find(const char *hay, const char *end, const char *needle)
{
	size_t n = strlen(needle), i;
	const char *p;

	for (p = hay; (size_t)(end - p) >= n; p++) {
		for (i = 0; i < n; i++) {
			if (tolower((unsigned char)p[i]) !=
			    tolower((unsigned char)needle[i]))
				break;
		}
		if (i == n)
			return p;
	}
	return NULL;
}

/* One log line [line, end) against the infrastructure patterns. */
static int
ci_line_is_infra(const char *line, const char *end)
{
	const char *p;

	if (ci_icase_find(line, end, "failed to connect") != NULL ||
	    ci_icase_find(line, end, "connection timed out") != NULL ||
	    ci_icase_find(line, end, "tls handshake timeout") != NULL)
		return 1;
	p = ci_icase_find(line, end, "docker pull");
	return p != NULL &&
	    ci_icase_find(p + strlen("docker pull"), end, "timeout") != NULL;
}

static int
ci_log_is_infra(const char *log)
{
	const char *end;

	for (; *log != '\0'; log = *end != '\0' ? end + 1 : end) {
		end = log + strcspn(log, "\n");
		if (ci_line_is_infra(log, end))
			return 1;
	}
	return 0;
}

int
ci_step_is_infra(const char *step_name, long long exit_code,
    const char *log_text, char *reason, size_t reasonsz)
{
	const char *name = step_name != NULL ? step_name : "";

	if (exit_code == 128 &&
	    (strstr(name, "clone") != NULL || strncmp(name, "git", 3) == 0)) {
		snprintf(reason, reasonsz,
		    "step '%s' exited 128: the forge "
		    "could not be reached",
		    name);
		return 1;
	}
	if (exit_code == 137) {
		snprintf(reason, reasonsz,
		    "step '%s' exited 137: killed, "
		    "likely out of memory",
		    name);
		return 1;
	}
	if (log_text != NULL && ci_log_is_infra(log_text)) {
		snprintf(reason, reasonsz,
		    "step '%s' log shows a connection "
		    "or pull timeout",
		    name);
		return 1;
	}
	if (reasonsz > 0)
		reason[0] = '\0';
	return 0;
}

static int
ci_step_failed(const cJSON *step)
{
	const char *s = json_str(step, "state");

	return s != NULL &&
	    (strcmp(s, "failure") == 0 || strcmp(s, "error") == 0 ||
		strcmp(s, "killed") == 0);
}

/*
 * Read the log of a failed step and classify it.  The first failed step,
 * or an infra one found later, becomes the reported one.  Returns 1 when
 * it is infra, 0 when not, -1 when its log could not be read.
 */
static int
ci_check_step(struct woodpecker *w, long long number, const cJSON *step,
    struct ci_failure *out)
{
	const char *name = json_str(step, "name");
	long long id = 0, code = 0;
	char *log = NULL, reason[sizeof(out->reason)];
	int infra, r;

	json_int(step, "id", &id);
	json_int(step, "exit_code", &code);
	r = woodpecker_step_log(w, number, id, CI_LOG_BYTES, CI_LOG_LINES,
	    &log);
	if (r == -1)
		return -1;
	infra = ci_step_is_infra(name, code, log, reason, sizeof(reason));
	if (out->found && !infra) {
		free(log);
		return 0;
	}
	ci_failure_free(out);
	out->found = 1;
	snprintf(out->step, sizeof(out->step), "%s", name ? name : "");
	out->step_id = id;
	out->exit_code = code;
	out->infra = infra;
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
	out->log_tail = log;
	return infra;
}

int
ci_classify_pipeline(struct woodpecker *w, long long number,
    struct ci_failure *out)
{
	const cJSON *p, *wf, *step;
	enum ci_state st;
	int r;

	memset(out, 0, sizeof(*out));
	if (woodpecker_pipeline(w, number, &p) == -1)
		return -1;
	if (ci_state_from_woodpecker(json_str(p, "status"), &st) == 0 &&
	    st == CI_CANCELED)
		return 0;
	cJSON_ArrayForEach (wf, json_arr(p, "workflows")) {
		cJSON_ArrayForEach (step, json_arr(wf, "children")) {
			if (!ci_step_failed(step))
				continue;
			if ((r = ci_check_step(w, number, step, out)) != 0)
				return r == 1 ? 0 : -1;
		}
	}
	return 0;
}

void
ci_failure_free(struct ci_failure *c)
{
	if (c == NULL)
		return;
	free(c->log_tail);
	c->log_tail = NULL;
}
