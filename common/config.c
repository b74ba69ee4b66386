/*
 * Configuration: layered variables (.env < environment < project file,
 * as the bash scripts' `source .env` then load-project.sh gave), then
 * defaults, derived values and validation.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "envfile.h"
#include "file.h"
#include "spawn.h"
#include "strv.h"
#include "toml.h"
#include "xmalloc.h"

#define ENV_MAX (1024 * 1024)

/* One variable of the merged view; later layers replace earlier ones. */
struct var {
	char *key;
	char *value;
};

struct vars {
	struct var *v;
	size_t n;
};

struct load {
	struct config *cfg;
	struct vars vars;
};

/* Variables the process environment may carry into the merged view. */
static const char *const env_keys[] = {"FACTORY_ROOT", "DISINTO_RUN_DIR",
    "DISINTO_CONTAINER", "FORGE_TOKEN", "CODEBERG_TOKEN", "FORGE_REVIEW_TOKEN",
    "REVIEW_BOT_TOKEN", "FORGE_BOT_USERNAMES", "CODEBERG_BOT_USERNAMES",
    "FORGE_REPO", "CODEBERG_REPO", "FORGE_URL", "FORGE_API", "FORGE_WEB",
    "PROJECT_NAME", "PROJECT_REPO_ROOT", "PRIMARY_BRANCH", "WOODPECKER_SERVER",
    "WOODPECKER_TOKEN", "WOODPECKER_REPO_ID", "CI_STALE_MINUTES",
    "CLAUDE_TIMEOUT", "CLAUDE_MODEL", "AGENT_CMD", "AGENT_READY_PATTERN",
    "DEV_AGENT_CMD", "SUPERVISOR_FIX_CMD", "DISINTO_TMUX_SOCKET",
    "DISINTO_MEMINFO", "DISINTO_FORMULAS_DIR", "DISINTO_HTTP_TIMEOUT",
    "DISINTO_HTTP_CONNECT_TIMEOUT", "DISINTO_HTTP_RETRIES",
    "DISINTO_HTTP_BACKOFF_MS", "DISINTO_PROC_DIR", "DISINTO_DISK_PATH",
    "DISINTO_REVIEW_POLL", "PROJECT_CONTAINERS", "CHECK_PRS", "CHECK_DEV_AGENT",
    "CHECK_PIPELINE_STALL", "CHECK_INFRA_RETRY", "USER", "HOME", NULL};

static void vars_set(struct vars *, const char *, const char *);
static const char *vars_get(const struct vars *, const char *);
static void vars_free(struct vars *);
static const char *first_of(const struct vars *, const char *, const char *);
static void warn(struct config *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int env_cb(void *, const char *, const char *);
static int load_env_file(struct load *, char *, size_t);
static int load_env_enc(struct load *, const char *, char *, size_t);
static int find_in_path(const char *);
static char *factory_root(const char *);
static int toml_cb_fn(void *, const char *, const char *,
    const struct toml_value *, int, char *, size_t);
static int toml_top(struct load *, const char *, const struct toml_value *,
    char *, size_t);
static int toml_section(struct load *, const char *, const char *,
    const struct toml_value *, char *, size_t);
static int want(const struct toml_value *, enum toml_type, char *, size_t);
static char *join_items(const struct toml_value *);
static void add_mirror(struct config *, const char *, const char *);
static int get_num(const struct vars *, const char *, long long, long long,
    long long *, char *, size_t);
static int get_bool(const struct vars *, const char *, int *, char *, size_t);
static char *dup_or(const char *, const char *);
static char *review_poll_default(const char *);
static int fill(struct load *, char *, size_t);
static int fill_numbers(struct load *, char *, size_t);
static int validate(const struct config *, char *, size_t);
static int valid_name(const char *);

static void
vars_set(struct vars *vs, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < vs->n; i++) {
		if (strcmp(vs->v[i].key, key) == 0) {
			free(vs->v[i].value);
			vs->v[i].value = xstrdup(value);
			return;
		}
	}
	vs->v = xreallocarray(vs->v, vs->n + 1, sizeof(*vs->v));
	vs->v[vs->n].key = xstrdup(key);
	vs->v[vs->n].value = xstrdup(value);
	vs->n++;
}

static const char *
vars_get(const struct vars *vs, const char *key)
{
	size_t i;

	for (i = 0; i < vs->n; i++)
		if (strcmp(vs->v[i].key, key) == 0)
			return vs->v[i].value;
	return NULL;
}

static void
vars_free(struct vars *vs)
{
	size_t i;

	for (i = 0; i < vs->n; i++) {
		free(vs->v[i].key);
		free(vs->v[i].value);
	}
	free(vs->v);
	vs->v = NULL;
	vs->n = 0;
}

/* The first non-empty of two variables (new name, then legacy name). */
static const char *
first_of(const struct vars *vs, const char *key, const char *legacy)
{
	const char *v = vars_get(vs, key);

	if ((v == NULL || *v == '\0') && legacy != NULL)
		v = vars_get(vs, legacy);
	return v != NULL && *v != '\0' ? v : NULL;
}

static void
warn(struct config *cfg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg->warnings = xreallocarray(cfg->warnings, cfg->nwarnings + 1,
	    sizeof(*cfg->warnings));
	cfg->warnings[cfg->nwarnings++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static int
env_cb(void *arg, const char *key, const char *value)
{
	struct load *l = arg;

	vars_set(&l->vars, key, value);
	return 0;
}

/* 1 when an executable named prog is found on PATH. */
static int
find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	if (path == NULL)
		return 0;
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", dir, prog);

		found = access(full, X_OK) == 0;
		free(full);
	}
	free(copy);
	return found;
}

/*
 * Decrypt .env.enc with sops.  A failure to decrypt is a warning, as in
 * the bash scripts: the run goes on without those secrets.
 */
static int
load_env_enc(struct load *l, const char *path, char *err, size_t errsz)
{
	char *argv[] = {"sops", "-d", "--output-type", "dotenv", NULL, NULL};
	struct spawn_opts opts;
	struct buf out;
	int status = 0, r = 0;

	argv[4] = (char *)path;
	memset(&opts, 0, sizeof(opts));
	opts.timeout_s = 60;
	buf_init(&out, ENV_MAX);
	if (spawn_run(argv, &opts, &out, &status) == -1 || status != 0)
		warn(l->cfg, "cannot decrypt '%s': secrets not loaded", path);
	else
		r = envfile_parse(path, buf_str(&out), env_cb, l, err, errsz);
	explicit_bzero(out.data ? out.data : "", out.data ? out.len : 0);
	buf_free(&out);
	return r;
}

static int
load_env_file(struct load *l, char *err, size_t errsz)
{
	const char *root = l->cfg->factory_root;
	char *enc = xasprintf("%s/.env.enc", root);
	char *plain = xasprintf("%s/.env", root);
	struct buf text;
	int r = 0, rr;

	buf_init(&text, 0);
	if (file_exists(enc) && find_in_path("sops")) {
		r = load_env_enc(l, enc, err, errsz);
		goto out;
	}
	rr = file_read(plain, ENV_MAX, &text);
	if (rr == -1 && errno == ENOENT)
		goto out;
	if (rr != 0) {
		snprintf(err, errsz, "%s: %s", plain,
		    rr == 1 ? "file too large" : strerror(errno));
		r = -1;
		goto out;
	}
	r = envfile_parse(plain, buf_str(&text), env_cb, l, err, errsz);
out:
	buf_free(&text);
	free(enc);
	free(plain);
	return r;
}

/* The parent of the directory holding the executable.  Caller frees. */
static char *
factory_root(const char *exe)
{
	char path[PATH_MAX], *d1, *copy;
	ssize_t n;

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0)
		path[n] = '\0';
	else if (exe == NULL || realpath(exe, path) == NULL)
		return xstrdup(".");
	copy = xstrdup(path);
	d1 = dirname(copy);
	d1 = xstrdup(dirname(d1));
	free(copy);
	return d1;
}

static int
want(const struct toml_value *v, enum toml_type t, char *err, size_t errsz)
{
	static const char *const names[] = {"a quoted string", "an integer",
	    "true or false", "an array of strings"};

	if (v->type == t)
		return 0;
	snprintf(err, errsz, "expected %s", names[t]);
	return -1;
}

static char *
join_items(const struct toml_value *v)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; i < v->nitems; i++)
		buf_printf(&b, "%s%s", i ? " " : "", v->items[i]);
	return buf_steal(&b);
}

static void
add_mirror(struct config *cfg, const char *name, const char *url)
{
	cfg->mirrors = xreallocarray(cfg->mirrors, cfg->nmirrors + 1,
	    sizeof(*cfg->mirrors));
	cfg->mirrors[cfg->nmirrors].name = xstrdup(name);
	cfg->mirrors[cfg->nmirrors].url = xstrdup(url);
	cfg->nmirrors++;
}

static int
toml_top(struct load *l, const char *key, const struct toml_value *v, char *err,
    size_t errsz)
{
	static const char *const map[][2] = {{"name", "PROJECT_NAME"},
	    {"repo", "FORGE_REPO"}, {"forge_url", "FORGE_URL"},
	    {"repo_root", "PROJECT_REPO_ROOT"},
	    {"primary_branch", "PRIMARY_BRANCH"}, {NULL, NULL}};
	size_t i;

	for (i = 0; map[i][0] != NULL; i++) {
		if (strcmp(key, map[i][0]) != 0)
			continue;
		if (want(v, TOML_STRING, err, errsz) == -1)
			return -1;
		vars_set(&l->vars, map[i][1], v->str);
		return 0;
	}
	return 1;
}

static int
toml_section(struct load *l, const char *section, const char *key,
    const struct toml_value *v, char *err, size_t errsz)
{
	char num[32], *upper, *p;

	if (strcmp(section, "ci") == 0 &&
	    (strcmp(key, "woodpecker_repo_id") == 0 ||
		strcmp(key, "stale_minutes") == 0)) {
		if (want(v, TOML_INT, err, errsz) == -1)
			return -1;
		snprintf(num, sizeof(num), "%lld", v->num);
		vars_set(&l->vars,
		    key[0] == 'w' ? "WOODPECKER_REPO_ID" : "CI_STALE_MINUTES",
		    num);
		return 0;
	}
	if (strcmp(section, "services") == 0 &&
	    strcmp(key, "containers") == 0) {
		if (want(v, TOML_ARRAY, err, errsz) == -1)
			return -1;
		p = join_items(v);
		vars_set(&l->vars, "PROJECT_CONTAINERS", p);
		free(p);
		return 0;
	}
	if (strcmp(section, "monitoring") == 0 &&
	    (strcmp(key, "check_prs") == 0 ||
		strcmp(key, "check_dev_agent") == 0 ||
		strcmp(key, "check_pipeline_stall") == 0 ||
		strcmp(key, "check_infra_retry") == 0)) {
		if (want(v, TOML_BOOL, err, errsz) == -1)
			return -1;
		upper = xstrdup(key);
		for (p = upper; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		vars_set(&l->vars, upper, v->num ? "true" : "false");
		free(upper);
		return 0;
	}
	if (strcmp(section, "mirrors") == 0) {
		if (want(v, TOML_STRING, err, errsz) == -1)
			return -1;
		add_mirror(l->cfg, key, v->str);
		return 0;
	}
	return 1;
}

static int
toml_cb_fn(void *arg, const char *section, const char *key,
    const struct toml_value *v, int lineno, char *err, size_t errsz)
{
	struct load *l = arg;
	static const char *const known[] = {"", "ci", "services", "monitoring",
	    "mirrors", NULL};
	size_t i;
	int r;

	for (i = 0; known[i] != NULL; i++)
		if (strcmp(section, known[i]) == 0)
			break;
	if (known[i] == NULL) {
		snprintf(err, errsz, "unknown section [%s]", section);
		return -1;
	}
	r = section[0] == '\0' ? toml_top(l, key, v, err, errsz) :
				 toml_section(l, section, key, v, err, errsz);
	if (r == 1)
		warn(l->cfg, "%s:%d: unknown key '%s'%s%s%s",
		    l->cfg->project_toml, lineno, key,
		    section[0] ? " in [" : "", section, section[0] ? "]" : "");
	return r == -1 ? -1 : 0;
}

static int
get_num(const struct vars *vs, const char *key, long long def, long long min,
    long long *out, char *err, size_t errsz)
{
	const char *s = vars_get(vs, key);
	char *end;

	*out = def;
	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || *out < min) {
		snprintf(err, errsz,
		    "%s: expected a whole number >= %lld, "
		    "got '%.40s'",
		    key, min, s);
		return -1;
	}
	return 0;
}

static int
get_bool(const struct vars *vs, const char *key, int *out, char *err,
    size_t errsz)
{
	const char *s = vars_get(vs, key);

	*out = 1;
	if (s == NULL || *s == '\0' || strcmp(s, "true") == 0 ||
	    strcmp(s, "1") == 0)
		return 0;
	if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	snprintf(err, errsz, "%s: expected true or false, got '%.40s'", key, s);
	return -1;
}

static char *
dup_or(const char *v, const char *def)
{
	return v != NULL ? xstrdup(v) : def != NULL ? xstrdup(def) : NULL;
}

/*
 * The review-poll that supervisor-poll starts: the drop-in name inside a
 * factory checkout (review/review-poll.sh) when it is there, else the
 * executable of this source tree's layout.  Caller frees.
 */
static char *
review_poll_default(const char *root)
{
	char *p = xasprintf("%s/review/review-poll.sh", root);

	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xasprintf("%s/review-poll/review-poll", root);
}

static int
fill_numbers(struct load *l, char *err, size_t errsz)
{
	struct config *c = l->cfg;
	const struct vars *vs = &l->vars;
	long long t, ct, retries, backoff;

	if (get_num(vs, "WOODPECKER_REPO_ID", 0, 0, &c->woodpecker_repo_id, err,
		errsz) == -1 ||
	    get_num(vs, "CI_STALE_MINUTES", 60, 1, &c->ci_stale_minutes, err,
		errsz) == -1 ||
	    get_num(vs, "CLAUDE_TIMEOUT", 7200, 1, &c->claude_timeout, err,
		errsz) == -1 ||
	    get_num(vs, "DISINTO_HTTP_TIMEOUT", 30, 1, &t, err, errsz) == -1 ||
	    get_num(vs, "DISINTO_HTTP_CONNECT_TIMEOUT", 10, 1, &ct, err,
		errsz) == -1 ||
	    get_num(vs, "DISINTO_HTTP_RETRIES", 3, 1, &retries, err, errsz) ==
		-1 ||
	    get_num(vs, "DISINTO_HTTP_BACKOFF_MS", 1000, 0, &backoff, err,
		errsz) == -1 ||
	    get_bool(vs, "CHECK_PRS", &c->check_prs, err, errsz) == -1 ||
	    get_bool(vs, "CHECK_DEV_AGENT", &c->check_dev_agent, err, errsz) ==
		-1 ||
	    get_bool(vs, "CHECK_PIPELINE_STALL", &c->check_pipeline_stall, err,
		errsz) == -1 ||
	    get_bool(vs, "CHECK_INFRA_RETRY", &c->check_infra_retry, err,
		errsz) == -1)
		return -1;
	c->http_timeout_ms = (long)(t > 3600 ? 3600 : t) * 1000;
	c->http_connect_timeout_ms = (long)(ct > 600 ? 600 : ct) * 1000;
	c->http_retries = (int)(retries > 10 ? 10 : retries);
	c->http_backoff_ms = (long)(backoff > 60000 ? 60000 : backoff);
	return 0;
}

static int
fill(struct load *l, char *err, size_t errsz)
{
	struct config *c = l->cfg;
	const struct vars *vs = &l->vars;
	const char *repo, *name, *slash, *v;

	c->run_dir = dup_or(first_of(vs, "DISINTO_RUN_DIR", NULL), "/tmp");
	c->forge_token =
	    dup_or(first_of(vs, "FORGE_TOKEN", "CODEBERG_TOKEN"), "");
	c->forge_review_token =
	    dup_or(first_of(vs, "FORGE_REVIEW_TOKEN", "REVIEW_BOT_TOKEN"), "");
	c->forge_bot_usernames = dup_or(
	    first_of(vs, "FORGE_BOT_USERNAMES", "CODEBERG_BOT_USERNAMES"), "");
	repo = first_of(vs, "FORGE_REPO", "CODEBERG_REPO");
	c->forge_repo = dup_or(repo, "");
	c->forge_url =
	    dup_or(first_of(vs, "FORGE_URL", NULL), "http://localhost:3000");
	v = first_of(vs, "FORGE_API", NULL);
	c->forge_api = v != NULL && l->cfg->project_toml == NULL ?
	    xstrdup(v) :
	    xasprintf("%s/api/v1/repos/%s", c->forge_url, c->forge_repo);
	v = first_of(vs, "FORGE_WEB", NULL);
	c->forge_web = v != NULL && l->cfg->project_toml == NULL ?
	    xstrdup(v) :
	    xasprintf("%s/%s", c->forge_url, c->forge_repo);
	slash = strrchr(c->forge_repo, '/');
	name = first_of(vs, "PROJECT_NAME", NULL);
	c->project_name = dup_or(name, slash ? slash + 1 : c->forge_repo);
	v = first_of(vs, "PROJECT_REPO_ROOT", NULL);
	c->project_repo_root = v != NULL ?
	    xstrdup(v) :
	    xasprintf("/home/%s/%s",
		first_of(vs, "USER", NULL) ? first_of(vs, "USER", NULL) : "",
		c->project_name);
	c->primary_branch =
	    dup_or(first_of(vs, "PRIMARY_BRANCH", NULL), "master");
	c->woodpecker_server = dup_or(first_of(vs, "WOODPECKER_SERVER", NULL),
	    "http://localhost:8000");
	c->woodpecker_token =
	    dup_or(first_of(vs, "WOODPECKER_TOKEN", NULL), "");
	c->claude_model = dup_or(first_of(vs, "CLAUDE_MODEL", NULL), NULL);
	c->agent_cmd = c->claude_model && !first_of(vs, "AGENT_CMD", NULL) ?
	    xasprintf("claude --dangerously-skip-permissions --model %s",
		c->claude_model) :
	    dup_or(first_of(vs, "AGENT_CMD", NULL),
		"claude --dangerously-skip-permissions");
	c->agent_ready_pattern =
	    dup_or(first_of(vs, "AGENT_READY_PATTERN", NULL), "\xe2\x9d\xaf");
	c->dev_agent_cmd = dup_or(first_of(vs, "DEV_AGENT_CMD", NULL), NULL);
	v = vars_get(vs, "SUPERVISOR_FIX_CMD");
	c->supervisor_fix_cmd = dup_or(v, "claude -p --model sonnet");
	c->tmux_socket =
	    dup_or(first_of(vs, "DISINTO_TMUX_SOCKET", NULL), NULL);
	c->meminfo_path =
	    dup_or(first_of(vs, "DISINTO_MEMINFO", NULL), "/proc/meminfo");
	v = first_of(vs, "DISINTO_FORMULAS_DIR", NULL);
	c->formulas_dir =
	    v != NULL ? xstrdup(v) : xasprintf("%s/formulas", c->factory_root);
	c->proc_dir = dup_or(first_of(vs, "DISINTO_PROC_DIR", NULL), "/proc");
	c->disk_path = dup_or(first_of(vs, "DISINTO_DISK_PATH", NULL), "/");
	v = first_of(vs, "DISINTO_REVIEW_POLL", NULL);
	c->review_poll_path =
	    v != NULL ? xstrdup(v) : review_poll_default(c->factory_root);
	v = first_of(vs, "PROJECT_CONTAINERS", NULL);
	if (v != NULL)
		c->containers = strv_split(v, &c->ncontainers);
	return fill_numbers(l, err, errsz);
}

/* Names that become parts of file names and tmux session names. */
static int
valid_name(const char *s)
{
	if (*s == '\0' || *s == '.')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' &&
		    *s != '-')
			return 0;
	return 1;
}

static int
validate(const struct config *c, char *err, size_t errsz)
{
	const char *slash = strchr(c->forge_repo, '/');

	if (c->forge_repo[0] != '\0' &&
	    (slash == NULL || slash == c->forge_repo || slash[1] == '\0' ||
		strchr(slash + 1, '/'))) {
		snprintf(err, errsz,
		    "FORGE_REPO: expected 'owner/name', got "
		    "'%.80s'",
		    c->forge_repo);
		return -1;
	}
	/* Neither a repository nor a name: no project, which only a tool
	 * without a project operand accepts (see cli_start()). */
	if ((c->project_name[0] != '\0' || c->forge_repo[0] != '\0') &&
	    !valid_name(c->project_name)) {
		snprintf(err, errsz,
		    "PROJECT_NAME: '%.80s' is empty or has "
		    "characters other than letters, digits, '.', '_', '-'",
		    c->project_name);
		return -1;
	}
	if (c->tmux_socket != NULL && !valid_name(c->tmux_socket)) {
		snprintf(err, errsz,
		    "DISINTO_TMUX_SOCKET: invalid name "
		    "'%.80s'",
		    c->tmux_socket);
		return -1;
	}
	if (strncmp(c->forge_url, "http://", 7) != 0 &&
	    strncmp(c->forge_url, "https://", 8) != 0) {
		snprintf(err, errsz,
		    "FORGE_URL: expected an http(s) URL, got "
		    "'%.80s'",
		    c->forge_url);
		return -1;
	}
	if (strpbrk(c->primary_branch, " \t~^:?*[\\") != NULL ||
	    c->primary_branch[0] == '-' || c->primary_branch[0] == '\0') {
		snprintf(err, errsz,
		    "PRIMARY_BRANCH: invalid branch name "
		    "'%.80s'",
		    c->primary_branch);
		return -1;
	}
	return 0;
}

int
config_load(struct config *cfg, const char *project_toml, const char *exe,
    char *err, size_t errsz)
{
	struct load l;
	const char *v;
	size_t i;
	int r = -1;

	memset(cfg, 0, sizeof(*cfg));
	memset(&l, 0, sizeof(l));
	l.cfg = cfg;
	cfg->project_toml = dup_or(project_toml, NULL);
	v = getenv("FACTORY_ROOT");
	cfg->factory_root =
	    v != NULL && *v != '\0' ? xstrdup(v) : factory_root(exe);
	v = getenv("DISINTO_CONTAINER");
	cfg->container = v != NULL && strcmp(v, "1") == 0;
	if (!cfg->container && load_env_file(&l, err, errsz) == -1)
		goto out;
	for (i = 0; env_keys[i] != NULL; i++)
		if ((v = getenv(env_keys[i])) != NULL)
			vars_set(&l.vars, env_keys[i], v);
	if (project_toml != NULL &&
	    toml_parse_file(project_toml, toml_cb_fn, &l, err, errsz) == -1)
		goto out;
	if (fill(&l, err, errsz) == -1 || validate(cfg, err, errsz) == -1)
		goto out;
	r = 0;
out:
	vars_free(&l.vars);
	return r;
}

void
config_free(struct config *c)
{
	size_t i;
	char **strs[] = {&c->factory_root, &c->run_dir, &c->project_toml,
	    &c->forge_token, &c->forge_review_token, &c->forge_bot_usernames,
	    &c->forge_repo, &c->forge_url, &c->forge_api, &c->forge_web,
	    &c->project_name, &c->project_repo_root, &c->primary_branch,
	    &c->woodpecker_server, &c->woodpecker_token, &c->claude_model,
	    &c->agent_cmd, &c->agent_ready_pattern, &c->dev_agent_cmd,
	    &c->supervisor_fix_cmd, &c->tmux_socket, &c->meminfo_path,
	    &c->formulas_dir, &c->proc_dir, &c->disk_path,
	    &c->review_poll_path};

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (*strs[i] != NULL &&
		    (strs[i] == &c->forge_token ||
			strs[i] == &c->forge_review_token ||
			strs[i] == &c->woodpecker_token))
			explicit_bzero(*strs[i], strlen(*strs[i]));
		free(*strs[i]);
		*strs[i] = NULL;
	}
	strv_free(c->containers);
	for (i = 0; i < c->nmirrors; i++) {
		free(c->mirrors[i].name);
		free(c->mirrors[i].url);
	}
	free(c->mirrors);
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	memset(c, 0, sizeof(*c));
}

int
config_is_bot(const struct config *c, const char *login)
{
	const char *p = c->forge_bot_usernames;
	size_t n = strlen(login);

	if (n == 0)
		return 0;
	while (*p != '\0') {
		size_t len;

		p += strspn(p, ", ");
		len = strcspn(p, ", ");
		if (len == n && strncmp(p, login, n) == 0)
			return 1;
		p += len;
	}
	return 0;
}

int
config_ci_configured(const struct config *c)
{
	return c->woodpecker_repo_id != 0;
}
