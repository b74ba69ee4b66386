/*
 * Run file, state file and session names, and the small operations every
 * executable performs on them.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

static const char *run_dir = "/tmp";
static const char *factory = ".";

/* The characters of a session name (tmux's rule, checked here too). */
#define RUNFILES_NAME_CHARS                                              \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" \
	"._-"

static const char *runfiles_logs(void);
static int runfiles_list(const char *,
    long long (*)(const char *, const char *),
    char *(*)(const char *, long long), const char *, long long **, size_t *);
static int runfiles_list_named(char *(*)(const char *, long long), const char *,
    long long, const char *);
static long long runfiles_number_between(const char *, const char *,
    const char *);
static long long runfiles_project_number(const char *, const char *,
    const char *, const char *);

/*
 * Where the logs and the CI-fix counts are: DISINTO_LOG_DIR when set
 * (log.h), else the factory.
 */
static const char *
runfiles_logs(void)
{
	return log_dir() != NULL ? log_dir() : factory;
}

void
runfiles_init(const char *rd, const char *fr)
{
	run_dir = rd;
	factory = fr;
	/* Only this user's own files in it are ever trusted. */
	file_private_dir(rd);
}

char *
runfiles_phase(const char *p, long long n)
{
	return xasprintf(
	    "%s/sessions/active/dev-%s-%lld/dev-session-%s-%lld.phase", run_dir,
	    p, n, p, n);
}

char *
runfiles_summary(const char *p, long long n)
{
	return xasprintf(
	    "%s/sessions/active/dev-%s-%lld/dev-impl-summary-%s-%lld.txt",
	    run_dir, p, n, p, n);
}

char *
runfiles_ci_result(const char *p, long long n)
{
	return xasprintf("%s/ci-result-%s-%lld.txt", run_dir, p, n);
}

char *
runfiles_renotify(const char *p, long long n)
{
	return xasprintf("%s/dev-renotify-%s-%lld", run_dir, p, n);
}

char *
runfiles_escalation_reply(void)
{
	return xasprintf("%s/dev-escalation-reply", run_dir);
}

char *
runfiles_dev_poll_lock(const char *p)
{
	return xasprintf("%s/dev-poll-%s.lock", run_dir, p);
}

char *
runfiles_dev_agent_lock(const char *p)
{
	return xasprintf("%s/dev-agent-%s.lock", run_dir, p);
}

char *
runfiles_dev_status(const char *p)
{
	return xasprintf("%s/dev-agent-status-%s", run_dir, p);
}

char *
runfiles_dev_ticks(const char *p)
{
	return xasprintf("%s/dev-poll-ticks-%s", run_dir, p);
}

char *
runfiles_dev_quiet(const char *p)
{
	return xasprintf("%s/dev-poll-reviews-%s", run_dir, p);
}

char *
runfiles_dev_priority_label(const char *p)
{
	return xasprintf("%s/dev-poll-priority-label-%s", run_dir, p);
}

char *
runfiles_idle_marker(const char *s)
{
	return xasprintf("%s/sessions/active/%s/claude-idle-%s.ts", run_dir, s,
	    s);
}

char *
runfiles_exited_marker(const char *s)
{
	return xasprintf("%s/sessions/active/%s/claude-exited-%s.ts", run_dir,
	    s, s);
}

char *
runfiles_phase_marker(const char *s)
{
	return xasprintf("%s/sessions/active/%s/phase-changed-%s.marker",
	    run_dir, s, s);
}

char *
runfiles_ready_marker(const char *s)
{
	return xasprintf("%s/sessions/active/%s/ready-%s.marker", run_dir, s,
	    s);
}

char *
runfiles_api_error(const char *s)
{
	return xasprintf("%s/sessions/active/%s/api-error-%s", run_dir, s, s);
}

char *
runfiles_api_resumed(const char *s)
{
	return xasprintf("%s/api-resumed-%s", run_dir, s);
}

char *
runfiles_api_pause(const char *p)
{
	return xasprintf("%s/api-pause-%s", run_dir, p);
}

char *
runfiles_api_pause_lock(const char *p)
{
	return xasprintf("%s/api-pause-%s.lock", run_dir, p);
}

char *
runfiles_sessions_dir(void)
{
	return xasprintf("%s/sessions/active", run_dir);
}

char *
runfiles_session_dir(const char *s)
{
	return xasprintf("%s/sessions/active/%s", run_dir, s);
}

char *
runfiles_session_file(const char *s, const char *name)
{
	return xasprintf("%s/sessions/active/%s/%s", run_dir, s, name);
}

char *
runfiles_session_delivery(const char *s)
{
	return xasprintf("%s/agent-%s.delivery", run_dir, s);
}

char *
runfiles_session_inject_lock(const char *s)
{
	return xasprintf("%s/agent-%s.inject-lock", run_dir, s);
}

int
runfiles_session_mkdir(const char *s)
{
	char *dir = runfiles_session_dir(s);
	int r = file_mkdirs(dir, 0700);

	free(dir);
	return r;
}

int
runfiles_session_mkdir_for(const char *path)
{
	char *top = runfiles_sessions_dir(), *dir = NULL;
	size_t n = strlen(top);
	const char *slash;
	int r = 0;

	/* Only a path right inside a session's directory. */
	if (strncmp(path, top, n) != 0 || path[n] != '/' ||
	    (slash = strchr(path + n + 1, '/')) == NULL ||
	    strchr(slash + 1, '/') != NULL)
		goto out;
	dir = xasprintf("%.*s", (int)(slash - path), path);
	r = file_mkdirs(dir, 0700);
out:
	free(dir);
	free(top);
	return r;
}

char *
runfiles_agent_state(const char *s)
{
	return xasprintf("%s/agent-%s.state", run_dir, s);
}

char *
runfiles_lock_request(const char *s)
{
	return xasprintf("%s/agent-%s.lock-request", run_dir, s);
}

char *
runfiles_agent_env(const char *s)
{
	return xasprintf("%s/agent-env-%s.XXXXXX", run_dir, s);
}

char *
runfiles_review_phase(const char *p, long long r)
{
	return xasprintf(
	    "%s/sessions/active/review-%s-%lld/review-session-%s-%lld.phase",
	    run_dir, p, r, p, r);
}

char *
runfiles_review_injected(const char *p, long long r)
{
	return xasprintf("%s/review-injected-%s-%lld", run_dir, p, r);
}

char *
runfiles_worktree(const char *p, long long n)
{
	return xasprintf("%s/%s-worktree-%lld", run_dir, p, n);
}

char *
runfiles_review_worktree(const char *p, long long r)
{
	return xasprintf("%s/%s-review-%lld", run_dir, p, r);
}

char *
runfiles_review_output(const char *p, long long r)
{
	return xasprintf(
	    "%s/sessions/active/review-%s-%lld/%s-review-output-%lld.json",
	    run_dir, p, r, p, r);
}

char *
runfiles_review_request(const char *p, long long r)
{
	return xasprintf("%s/%s-review-request-%lld", run_dir, p, r);
}

char *
runfiles_review_tries(const char *p, long long r)
{
	return xasprintf("%s/%s-review-tries-%lld", run_dir, p, r);
}

char *
runfiles_review_lock(const char *p)
{
	return xasprintf("%s/%s-review.lock", run_dir, p);
}

char *
runfiles_review_files(const char *p)
{
	return xasprintf("%s/review-poll-files-%s", run_dir, p);
}

char *
runfiles_ci_memo(const char *p)
{
	return xasprintf("%s/ci-status-%s", run_dir, p);
}

char *
runfiles_forge_version(const char *root)
{
	char *name, *q;

	name = xstrdup(root);
	for (q = name; *q != '\0'; q++)
		if (strchr(RUNFILES_NAME_CHARS, *q) == NULL)
			*q = '_';
	q = xasprintf("%s/forge-version-%s", run_dir, name);
	free(name);
	return q;
}

char *
runfiles_supervisor_unmergeable(const char *p)
{
	return xasprintf("%s/supervisor-unmergeable-%s", run_dir, p);
}

char *
runfiles_ci_changed(const char *p)
{
	return xasprintf("%s/ci-changed-%s", run_dir, p);
}

char *
runfiles_ci_changed_lock(const char *p)
{
	return xasprintf("%s/ci-changed-%s.lock", run_dir, p);
}

char *
runfiles_ci_watch(const char *p, long long n)
{
	return xasprintf("%s/ci-watch-%s-%lld", run_dir, p, n);
}

char *
runfiles_ci_watch_lock(const char *p, long long n)
{
	return xasprintf("%s/ci-watch-%s-%lld.lock", run_dir, p, n);
}

char *
runfiles_webhook_seen(const char *p)
{
	return xasprintf("%s/webhook-seen-%s", run_dir, p);
}

char *
runfiles_review_status(const char *p)
{
	return xasprintf("%s/%s-review-status", run_dir, p);
}

char *
runfiles_idle_ticks(const char *p, long long n)
{
	return xasprintf("%s/dev-idle-ticks-%s-%lld", run_dir, p, n);
}

char *
runfiles_recoveries(const char *p, long long n)
{
	return xasprintf("%s/dev-recoveries-%s-%lld", run_dir, p, n);
}

char *
runfiles_phase_notice(const char *p, long long n)
{
	return xasprintf("%s/dev-notice-%s-%lld", run_dir, p, n);
}

char *
runfiles_escalation_notified(const char *p, long long n)
{
	return xasprintf("%s/dev-escalation-notified-%s-%lld", run_dir, p, n);
}

char *
runfiles_escalation_injected(const char *p, long long n)
{
	return xasprintf("%s/dev-escalation-injected-%s-%lld", run_dir, p, n);
}

char *
runfiles_escalation_parked(const char *p, long long n)
{
	return xasprintf("%s/dev-escalation-parked-%s-%lld", run_dir, p, n);
}

char *
runfiles_escalation_resume(const char *p, long long n)
{
	return xasprintf("%s/dev-escalation-resume-%s-%lld", run_dir, p, n);
}

char *
runfiles_escalation_lock(const char *p)
{
	return xasprintf("%s/dev-escalations-%s.lock", run_dir, p);
}

char *
runfiles_claude_id(const char *s)
{
	return xasprintf("%s/sessions/active/%s/claude-id-%s", run_dir, s, s);
}

char *
runfiles_claude_id_beside(const char *marker)
{
	static const char *const kinds[] = {"claude-idle-", "claude-exited-",
	    NULL};
	const char *base = strrchr(marker, '/'), *const * k;
	size_t len;

	base = base != NULL ? base + 1 : marker;
	len = strlen(base);
	for (k = kinds; *k != NULL; k++)
		if (strncmp(base, *k, strlen(*k)) == 0 &&
		    len > strlen(*k) + 3 && strcmp(base + len - 3, ".ts") == 0)
			return xasprintf("%.*sclaude-id-%.*s",
			    (int)(base - marker), marker,
			    (int)(len - strlen(*k) - 3), base + strlen(*k));
	return NULL;
}

char *
runfiles_supervisor_status(void)
{
	return xasprintf("%s/supervisor-status", run_dir);
}

char *
runfiles_supervisor_fix_prompt(void)
{
	return xasprintf("%s/supervisor-fix-prompt", run_dir);
}

char *
runfiles_supervisor_lock(void)
{
	return xasprintf("%s/supervisor-poll.lock", run_dir);
}

char *
runfiles_wake(const char *prog, const char *p)
{
	if (p == NULL || *p == '\0')
		return xasprintf("%s/%s.wake", run_dir, prog);
	return xasprintf("%s/%s-%s.wake", run_dir, prog, p);
}

char *
runfiles_tick_settings(const char *prog, const char *p)
{
	if (p == NULL || *p == '\0')
		return xasprintf("%s/%s.settings", run_dir, prog);
	return xasprintf("%s/%s-%s.settings", run_dir, prog, p);
}

int
runfiles_agent_area(const char *dir)
{
	const char *c = dir, *s = "/sessions/active/";
	char part[NAME_MAX + 1];
	size_t n;

	if (strstr(dir, s) != NULL && strstr(dir, s)[strlen(s)] != '\0')
		return 1;
	while (*c != '\0') {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (n > 0 && n <= NAME_MAX) {
			memcpy(part, c, n);
			part[n] = '\0';
			if (fnmatch("?*-worktree-[0-9]*", part, 0) == 0)
				return 1;
		}
		c += n;
	}
	return 0;
}

char *
runfiles_infra_retries_dir(void)
{
	return xasprintf("%s/supervisor-infra-retries", run_dir);
}

char *
runfiles_infra_retry(long long repo_id, long long pipeline)
{
	return xasprintf("%s/supervisor-infra-retries/%lld-%lld", run_dir,
	    repo_id, pipeline);
}

int
runfiles_phase_issues(const char *p, long long **nums, size_t *n)
{
	char *pattern =
	    xasprintf("%s/sessions/active/dev-%s-*/dev-session-%s-*.phase",
		run_dir, p, p);
	int r = runfiles_list(pattern, runfiles_phase_issue, runfiles_phase, p,
	    nums, n);

	free(pattern);
	return r;
}

int
runfiles_review_phase_prs(const char *p, long long **nums, size_t *n)
{
	char *pattern = xasprintf(
	    "%s/sessions/active/review-%s-*/review-session-%s-*.phase", run_dir,
	    p, p);
	int r = runfiles_list(pattern, runfiles_review_phase_pr,
	    runfiles_review_phase, p, nums, n);

	free(pattern);
	return r;
}

int
runfiles_review_tries_prs(const char *p, long long **nums, size_t *n)
{
	char *pattern = xasprintf("%s/%s-review-tries-*", run_dir, p);
	int r =
	    runfiles_list(pattern, runfiles_review_tries_pr, NULL, p, nums, n);

	free(pattern);
	return r;
}

/*
 * The numbers (> 0) that parse() reads from the paths matching pattern,
 * of the files there for this user (file_exists()); with name set, only
 * those at the very path name() gives the number (a file one session
 * planted in its own directory for another is not listed).  Caller frees
 * *nums.  0 or -1.
 */
static int
runfiles_list(const char *pattern,
    long long (*parse)(const char *, const char *),
    char *(*name)(const char *, long long), const char *p, long long **nums,
    size_t *n)
{
	long long num;
	glob_t g;
	size_t i;
	int r;

	*nums = NULL;
	*n = 0;
	if ((r = glob(pattern, 0, NULL, &g)) == GLOB_NOMATCH)
		return 0;
	if (r != 0)
		return -1;
	*nums = xcalloc(g.gl_pathc + 1, sizeof(**nums));
	/* What others may have written is not listed (file.h). */
	for (i = 0; i < g.gl_pathc; i++)
		if ((num = parse(p, g.gl_pathv[i])) > 0 &&
		    runfiles_list_named(name, p, num, g.gl_pathv[i]) &&
		    file_exists(g.gl_pathv[i]))
			(*nums)[(*n)++] = num;
	globfree(&g);
	return 0;
}

/* 1 when name is NULL or gives path for (p, num); else 0. */
static int
runfiles_list_named(char *(*name)(const char *, long long), const char *p,
    long long num, const char *path)
{
	char *want;
	int r;

	if (name == NULL)
		return 1;
	want = name(p, num);
	r = strcmp(want, path) == 0;
	free(want);
	return r;
}

int
runfiles_project_files(char ***paths, size_t *n)
{
	char *pattern = xasprintf("%s/projects/*.toml", factory);
	glob_t g;
	size_t i;
	int r;

	*n = 0;
	*paths = xcalloc(1, sizeof(**paths));
	r = glob(pattern, 0, NULL, &g);
	free(pattern);
	if (r != 0) {
		globfree(&g);
		return r == GLOB_NOMATCH ? 0 : -1;
	}
	*paths = xreallocarray(*paths, g.gl_pathc + 1, sizeof(**paths));
	for (i = 0; i < g.gl_pathc; i++)
		(*paths)[(*n)++] = xstrdup(g.gl_pathv[i]);
	(*paths)[*n] = NULL;
	globfree(&g);
	return 0;
}

char *
runfiles_forge_logins(void)
{
	return xasprintf("%s/forge-logins", run_dir);
}

char *
runfiles_dev_session(const char *p, long long n)
{
	return xasprintf("dev-%s-%lld", p, n);
}

char *
runfiles_review_session(const char *p, long long r)
{
	return xasprintf("review-%s-%lld", p, r);
}

char *
runfiles_dev_session_prefix(const char *p)
{
	return xasprintf("dev-%s-", p);
}

char *
runfiles_review_session_prefix(const char *p)
{
	return xasprintf("review-%s-", p);
}

int
runfiles_dev_session_like(const char *name)
{
	return strncmp(name, "dev-", 4) == 0 && name[4] != '\0' &&
	    strspn(name, RUNFILES_NAME_CHARS) == strlen(name);
}

int
runfiles_is_run_name(const char *name)
{
	static const char *const prefixes[] = {"dev-session-",
	    "dev-impl-summary-", "ci-result-", "dev-renotify-",
	    "dev-escalation-", "dev-poll-", "dev-agent-", "claude-idle-",
	    "claude-id-", "claude-exited-", "phase-changed-", "ready-",
	    "agent-", "review-session-", "review-injected-", "review-poll-",
	    "supervisor-", "dev-idle-ticks-", "dev-recoveries-", "dev-notice-",
	    "dev-state-", "dev-backoff-", "lock-waiter-", "ci-watch-",
	    "pause-wake-", "forge-logins", "sessions", NULL};
	static const char *const infixes[] = {"-worktree-", "-review-",
	    "-review.", NULL};
	size_t i;

	for (i = 0; prefixes[i] != NULL; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	for (i = 0; infixes[i] != NULL; i++)
		if (strstr(name, infixes[i]) != NULL)
			return 1;
	return 0;
}

char *
runfiles_branch(long long n)
{
	return xasprintf(RUNFILES_BRANCH_PREFIX "%lld", n);
}

/*
 * The number in path's last component between prefix and suffix: digits
 * only, no leading zero, at most 12 of them; else -1.
 */
static long long
runfiles_number_between(const char *path, const char *prefix,
    const char *suffix)
{
	const char *base = strrchr(path, '/'), *s;
	size_t plen = strlen(prefix);
	long long n = 0;

	base = base ? base + 1 : path;
	if (strncmp(base, prefix, plen) != 0)
		return -1;
	s = base + plen;
	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > 100000000000LL)
			return -1;
		n = n * 10 + (*s - '0');
	}
	return strcmp(s, suffix) == 0 ? n : -1;
}

/* runfiles_number_between() with a prefix made from the project name. */
static long long
runfiles_project_number(const char *path, const char *fmt, const char *project,
    const char *suffix)
{
	char *prefix = xasprintf(fmt, project);
	long long n = runfiles_number_between(path, prefix, suffix);

	free(prefix);
	return n;
}

long long
runfiles_phase_issue(const char *p, const char *path)
{
	return runfiles_project_number(path, "dev-session-%s-", p, ".phase");
}

long long
runfiles_review_phase_pr(const char *p, const char *path)
{
	return runfiles_project_number(path, "review-session-%s-", p, ".phase");
}

long long
runfiles_review_tries_pr(const char *p, const char *path)
{
	return runfiles_project_number(path, "%s-review-tries-", p, "");
}

long long
runfiles_dev_session_issue(const char *p, const char *name)
{
	return strchr(name, '/') != NULL ?
	    -1 :
	    runfiles_project_number(name, "dev-%s-", p, "");
}

long long
runfiles_review_session_pr(const char *p, const char *name)
{
	return strchr(name, '/') != NULL ?
	    -1 :
	    runfiles_project_number(name, "review-%s-", p, "");
}

long long
runfiles_worktree_issue(const char *p, const char *path)
{
	return runfiles_project_number(path, "%s-worktree-", p, "");
}

long long
runfiles_review_worktree_pr(const char *p, const char *path)
{
	return runfiles_project_number(path, "%s-review-", p, "");
}

long long
runfiles_branch_issue(const char *branch)
{
	size_t n = sizeof(RUNFILES_BRANCH_PREFIX) - 1;

	if (strncmp(branch, RUNFILES_BRANCH_PREFIX, n) != 0 ||
	    strchr(branch + n, '/') != NULL)
		return -1;
	return runfiles_number_between(branch + n, "", "");
}

char *
runfiles_active_flag(const char *agent)
{
	return xasprintf("%s/state/.%s-active", factory, agent);
}

char *
runfiles_ci_fixes(const char *p)
{
	return xasprintf("%s/dev/ci-fixes-%s.json", runfiles_logs(), p);
}

char *
runfiles_escalations(const char *p)
{
	return xasprintf("%s/supervisor/escalations-%s.jsonl", factory, p);
}

char *
runfiles_metrics(void)
{
	return xasprintf("%s/metrics/supervisor-metrics.jsonl", factory);
}

char *
runfiles_metrics_dir(void)
{
	return xasprintf("%s/metrics", factory);
}

char *
runfiles_dev_log(const char *p)
{
	return xasprintf("%s/dev/dev-agent-%s.log", runfiles_logs(), p);
}

char *
runfiles_dev_log_shared(void)
{
	return xasprintf("%s/dev/dev-agent.log", runfiles_logs());
}

char *
runfiles_review_log(void)
{
	/* Upstream's newer main names review-poll's log so there. */
	return log_dir() != NULL ?
	    xasprintf("%s/review/review-poll.log", log_dir()) :
	    xasprintf("%s/review/review.log", factory);
}

char *
runfiles_supervisor_log(void)
{
	return xasprintf("%s/supervisor/supervisor.log", runfiles_logs());
}

char *
runfiles_supervisor_prompt(void)
{
	return xasprintf("%s/supervisor/PROMPT.md", factory);
}

int
runfiles_write(const char *path, const char *text)
{
	(void)runfiles_session_mkdir_for(path);
	return file_write_atomic(path, text, strlen(text), 0644, 0);
}

int
runfiles_touch(const char *path)
{
	(void)runfiles_session_mkdir_for(path);
	return file_touch(path);
}

int
runfiles_age(const char *path, time_t now, long long *age)
{
	time_t mtime;

	if (file_mtime(path, &mtime) == -1)
		return -1;
	*age = now > mtime ? (long long)(now - mtime) : 0;
	return 0;
}

int
runfiles_claim(const char *path, size_t max, struct buf *out)
{
	char *mine = xasprintf("%s.claimed.%ld", path, (long)getpid());
	int r;

	/* What is not ours alone stays where it is, unread (logged). */
	if (!file_trusted(path)) {
		r = 0;
		goto out;
	}
	if (rename(path, mine) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	/* Replaced in between by a file refused now: dropped. */
	if ((r = file_read(mine, max, out)) == -1)
		r = errno == ENOENT ? 0 : -1;
	else
		r = 1;
	unlink(mine);
out:
	free(mine);
	return r;
}

char *
runfiles_dev_state(const char *p, long long n)
{
	return xasprintf("%s/dev-state-%s-%lld", run_dir, p, n);
}

long long
runfiles_dev_state_issue(const char *p, const char *path)
{
	return runfiles_project_number(path, "dev-state-%s-", p, "");
}

int
runfiles_dev_state_issues(const char *p, long long **nums, size_t *n)
{
	char *pattern = xasprintf("%s/dev-state-%s-*", run_dir, p);
	int r =
	    runfiles_list(pattern, runfiles_dev_state_issue, NULL, p, nums, n);

	free(pattern);
	return r;
}

char *
runfiles_launch_backoff(const char *p, long long n)
{
	return xasprintf("%s/dev-backoff-%s-%lld", run_dir, p, n);
}

long long
runfiles_launch_backoff_issue(const char *p, const char *path)
{
	return runfiles_project_number(path, "dev-backoff-%s-", p, "");
}

int
runfiles_launch_backoff_issues(const char *p, long long **nums, size_t *n)
{
	char *pattern = xasprintf("%s/dev-backoff-%s-*", run_dir, p);
	int r = runfiles_list(pattern, runfiles_launch_backoff_issue, NULL, p,
	    nums, n);

	free(pattern);
	return r;
}

char *
runfiles_intent(const char *s)
{
	return xasprintf("%s/agent-%s.intent", run_dir, s);
}

char *
runfiles_intent_lock(const char *s)
{
	return xasprintf("%s/agent-%s.intent-lock", run_dir, s);
}

char *
runfiles_mailbox(const char *s)
{
	return xasprintf("%s/agent-%s.mailbox", run_dir, s);
}

char *
runfiles_mailbox_lock(const char *s)
{
	return xasprintf("%s/agent-%s.mailbox-lock", run_dir, s);
}

char *
runfiles_lock_handover(const char *s)
{
	return xasprintf("%s/agent-%s.handover", run_dir, s);
}

char *
runfiles_lock_waiter(const char *prog, const char *p)
{
	if (p == NULL || *p == '\0')
		return xasprintf("%s/lock-waiter-%s", run_dir, prog);
	return xasprintf("%s/lock-waiter-%s-%s", run_dir, prog, p);
}

char *
runfiles_pause_wake_lock(const char *prog, const char *p)
{
	return xasprintf("%s/pause-wake-%s-%s.lock", run_dir, prog, p);
}

char **
runfiles_lock_waiters(void)
{
	char *pattern = xasprintf("%s/lock-waiter-*", run_dir), **v;
	glob_t g;
	size_t i, n = 0;
	int r;

	r = glob(pattern, 0, NULL, &g);
	free(pattern);
	if (r != 0 && r != GLOB_NOMATCH)
		return NULL;
	v = xcalloc(r == 0 ? g.gl_pathc + 1 : 1, sizeof(*v));
	/* What others may have written is not listed (file.h). */
	for (i = 0; r == 0 && i < g.gl_pathc; i++)
		if (file_exists(g.gl_pathv[i]))
			v[n++] = xstrdup(g.gl_pathv[i]);
	if (r == 0)
		globfree(&g);
	return v;
}
