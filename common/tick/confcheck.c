/*
 * `--check`: the configuration as the tools would read it, then with
 * `--forge` the forge's answers about each token (confcheck.h).  Nothing is
 * written, no log is opened: the report is the text returned.
 */
#include <sys/stat.h>

#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "confcheck.h"
#include "cli.h"
#include "config.h"
#include "forge.h"
#include "json.h"
#include "sandbox.h"
#include "termsafe.h"
#include "xmalloc.h"

/* One token of the configuration and what the forge said of it. */
struct confcheck_token {
	const char *name;  /* its setting: "FORGE_TOKEN" */
	const char *value; /* "" when unset */
	char *login;	   /* its user (sanitised), or NULL */
	int admin, push, pull;
};

/* What a run found: its lines, and the worst exit status so far. */
struct confcheck_out {
	struct buf text;
	int rc;
	size_t problems, warnings;
};

static void confcheck_problem(struct confcheck_out *, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static void confcheck_warn(struct confcheck_out *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int confcheck_is_dir(const char *);
static void confcheck_offline(const struct cli *, const struct config *,
    const char *, struct confcheck_out *);
static void confcheck_token(const struct config *, struct confcheck_token *,
    struct confcheck_out *);
static int confcheck_protection(const struct config *,
    const struct confcheck_token *, size_t, const cJSON **, struct forge **,
    struct confcheck_out *);
static const cJSON *confcheck_rule(const cJSON *, const char *);
static int confcheck_listed(const cJSON *, const char *, const char *);
static char *confcheck_merge_why(const struct config *,
    const struct confcheck_token *, int, const cJSON *);
static void confcheck_agent(const struct config *, struct confcheck_token *,
    size_t, struct confcheck_out *);
static void confcheck_forge(const struct config *, struct confcheck_out *);
static void confcheck_sandbox(const struct cli *, const struct config *,
    struct confcheck_out *);
static void confcheck_forges(const struct cli *, const struct config *,
    const char *, struct confcheck_out *);

/* A problem with exit status rc (CLI_EXIT_USAGE or CLI_EXIT_FAIL). */
static void
confcheck_problem(struct confcheck_out *o, int rc, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	buf_printf(&o->text, "%s\n", line);
	/* A configuration's problem (2) outweighs an unanswered call (1). */
	if (rc > o->rc)
		o->rc = rc;
	o->problems++;
}

static void
confcheck_warn(struct confcheck_out *o, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	buf_printf(&o->text, "warning: %s\n", line);
	o->warnings++;
}

static int
confcheck_is_dir(const char *path)
{
	struct stat st;

	return path != NULL && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What the forge is not asked about. */
static void
confcheck_offline(const struct cli *cli, const struct config *cfg,
    const char *exe, struct confcheck_out *o)
{
	struct config *all = NULL;
	size_t i, n = 0;
	char err[1024];

	for (i = 0; i < cfg->nwarnings; i++)
		confcheck_warn(o, "%s", cfg->warnings[i]);
	if (!confcheck_is_dir(cfg->factory_root))
		confcheck_problem(o, CLI_EXIT_USAGE,
		    "FACTORY_ROOT: not a directory: '%s'", cfg->factory_root);
	if (cfg->project_toml != NULL &&
	    !confcheck_is_dir(cfg->project_repo_root))
		confcheck_problem(o, CLI_EXIT_USAGE,
		    "%s: repo_root: not a directory (the project's checkout): "
		    "'%s'",
		    cfg->project_toml, cfg->project_repo_root);
	if (cfg->project_toml != NULL)
		return;
	/* Without a project file, the ones supervisor-poll reads. */
	if (cli_projects_load(cfg, exe, cli->project, &all, &n, err,
		sizeof(err)) == -1)
		confcheck_problem(o, CLI_EXIT_USAGE, "%s", err);
	for (i = 0; i < n; i++) {
		if (!confcheck_is_dir(all[i].project_repo_root))
			confcheck_problem(o, CLI_EXIT_USAGE,
			    "%s: repo_root: not a directory (the project's "
			    "checkout): '%s'",
			    all[i].project_toml, all[i].project_repo_root);
		config_free(&all[i]);
	}
	free(all);
}

/*
 * Which confinement the agents get, proved by one confined `true` (it
 * writes nothing); why none can run is a problem: no agent would start.
 */
static void
confcheck_sandbox(const struct cli *cli, const struct config *cfg,
    struct confcheck_out *o)
{
	struct sandbox_conf sc;
	enum sandbox_kind kind;
	char exe[PATH_MAX], why[1024];

	cli_sandbox_conf(cfg, &sc, exe, sizeof(exe));
	sandbox_set(&sc);
	if (sandbox_choose(&kind, why, sizeof(why)) == -1)
		confcheck_problem(o, CLI_EXIT_FAIL, "%s", why);
	else if (kind == SANDBOX_KIND_NONE)
		confcheck_warn(o, "AGENT_SANDBOX=%s: agents run unconfined",
		    SANDBOX_TRUST);
	else if (cli->verbose)
		buf_printf(&o->text,
		    "agents confined by %s (a confined `true` ran)\n",
		    sandbox_kind_name(kind));
	sandbox_set(NULL);
}

/* Who t's user is and its access to the repository. */
static void
confcheck_token(const struct config *cfg, struct confcheck_token *t,
    struct confcheck_out *o)
{
	struct forge *f = forge_open(cfg->forge_api, t->value);
	const cJSON *repo, *perm;
	const char *login;
	long status;

	if (forge_user_login(f, &login) == -1 ||
	    forge_get(f, "", cJSON_Object, &repo) == -1) {
		status = forge_last_status(f);
		if (status == 401 || status == 403 || status == 404)
			confcheck_problem(o, CLI_EXIT_USAGE,
			    "%s: the forge refuses it for %s (HTTP %ld)",
			    t->name, cfg->forge_repo, status);
		else
			confcheck_problem(o, CLI_EXIT_FAIL,
			    "%s: the forge did not answer: %s", t->name,
			    forge_error(f));
		goto out;
	}
	t->login = termsafe_dup(login);
	perm = json_obj(repo, "permissions");
	if (perm == NULL || json_bool(perm, "admin", &t->admin) == -1 ||
	    json_bool(perm, "push", &t->push) == -1 ||
	    json_bool(perm, "pull", &t->pull) == -1) {
		confcheck_problem(o, CLI_EXIT_FAIL,
		    "%s: the forge's answer for %s has no permissions", t->name,
		    cfg->forge_repo);
		goto out;
	}
	buf_printf(&o->text, "%s: user %s: %s on %s\n", t->name, t->login,
	    t->admin	? "admin, push, pull" :
		t->push ? "push, pull" :
		t->pull ? "pull" :
			  "no access",
	    cfg->forge_repo);
out:
	forge_close(f);
}

/* The rule of list protecting branch (its name or its glob), or NULL. */
static const cJSON *
confcheck_rule(const cJSON *list, const char *branch)
{
	const cJSON *rule, *glob = NULL;
	const char *name;

	cJSON_ArrayForEach (rule, list) {
		name = json_str(rule, "rule_name");
		if (name == NULL || *name == '\0')
			name = json_str(rule, "branch_name");
		if (name == NULL)
			continue;
		if (strcmp(name, branch) == 0)
			return rule;
		if (glob == NULL && fnmatch(name, branch, 0) == 0)
			glob = rule;
	}
	return glob;
}

/* 1 when login is one of rule's key (an array of logins). */
static int
confcheck_listed(const cJSON *rule, const char *key, const char *login)
{
	const cJSON *item;

	cJSON_ArrayForEach (item, json_arr(rule, key)) {
		if (cJSON_IsString(item) &&
		    strcmp(item->valuestring, login) == 0)
			return 1;
	}
	return 0;
}

/*
 * The protections of the repository, read with the first token of an
 * admin (Gitea answers them to admins only): 1 with *list (borrowed from
 * *f, which the caller closes), 0 when no token may read them.
 */
static int
confcheck_protection(const struct config *cfg, const struct confcheck_token *t,
    size_t n, const cJSON **list, struct forge **f, struct confcheck_out *o)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].login != NULL && t[i].admin)
			break;
	if (i == n)
		return 0;
	*f = forge_open(cfg->forge_api, t[i].value);
	if (forge_get(*f, "/branch_protections", cJSON_Array, list) == 0)
		return 1;
	confcheck_problem(o, CLI_EXIT_FAIL,
	    "%s: the branch protections of %s could not be read: %s", t[i].name,
	    cfg->forge_repo, forge_error(*f));
	return 0;
}

/*
 * Why the user of token a can merge into the primary branch, from its
 * access and the branch's protection rule (read: whether the rules could
 * be read; rule NULL: none protects the branch), or NULL.  Caller frees.
 */
static char *
confcheck_merge_why(const struct config *cfg, const struct confcheck_token *a,
    int read, const cJSON *rule)
{
	const char *br = cfg->primary_branch;
	int on;

	if (a->admin)
		return xasprintf("an admin of %s, it can merge into %s, close "
				 "issues and PRs and edit the protection",
		    cfg->forge_repo, br);
	if (!a->push)
		return NULL;
	if (!read)
		return xasprintf("it can push to %s and the protection of %s "
				 "could not be read (no token is an admin): "
				 "it may merge into it",
		    cfg->forge_repo, br);
	if (rule == NULL)
		return xasprintf("it can push to %s and %s has no branch "
				 "protection: it can merge into it",
		    cfg->forge_repo, br);
	if (json_bool(rule, "enable_merge_whitelist", &on) == -1 || !on)
		return xasprintf("it can push to %s and the protection of %s "
				 "has no merge whitelist: it can merge into it",
		    cfg->forge_repo, br);
	if (confcheck_listed(rule, "merge_whitelist_usernames", a->login))
		return xasprintf("it is in the merge whitelist of %s", br);
	return NULL;
}

/* Whether the agents' token (the last of t, else FORGE_TOKEN) can merge. */
static void
confcheck_agent(const struct config *cfg, struct confcheck_token *t, size_t n,
    struct confcheck_out *o)
{
	const struct confcheck_token *a =
	    t[n - 1].value[0] != '\0' ? &t[n - 1] : &t[0];
	const cJSON *list = NULL, *rule = NULL;
	struct forge *f = NULL;
	char *why;
	int read;

	if (a->login == NULL)
		return;
	if (a != &t[0] && t[0].login != NULL &&
	    strcmp(a->login, t[0].login) == 0)
		confcheck_warn(o,
		    "FORGE_AGENT_TOKEN: the same user as FORGE_TOKEN (%s): "
		    "the agents act as the bot that merges",
		    a->login);
	read = confcheck_protection(cfg, t, n, &list, &f, o);
	if (read)
		rule = confcheck_rule(list, cfg->primary_branch);
	if ((why = confcheck_merge_why(cfg, a, read, rule)) != NULL)
		confcheck_warn(o, "%s: the agents' user %s: %s%s", a->name,
		    a->login, why,
		    a == &t[0] ? " (the agents get FORGE_TOKEN: give them "
				 "their own user's FORGE_AGENT_TOKEN)" :
				 "");
	free(why);
	forge_close(f);
}

static void
confcheck_forge(const struct config *cfg, struct confcheck_out *o)
{
	struct confcheck_token t[] = {
	    {.name = "FORGE_TOKEN", .value = cfg->forge_token},
	    {.name = "FORGE_REVIEW_TOKEN", .value = cfg->forge_review_token},
	    {.name = "FORGE_AGENT_TOKEN", .value = cfg->forge_agent_token}};
	size_t i, n = sizeof(t) / sizeof(t[0]);

	for (i = 0; i < n; i++)
		if (t[i].value != NULL && t[i].value[0] != '\0')
			confcheck_token(cfg, &t[i], o);
	confcheck_agent(cfg, t, n, o);
	for (i = 0; i < n; i++)
		free(t[i].login);
}

/*
 * The forge of cfg's project, or without a project file of each project
 * file's (those confcheck_offline() loaded without a problem).
 */
static void
confcheck_forges(const struct cli *cli, const struct config *cfg,
    const char *exe, struct confcheck_out *o)
{
	struct config *all = NULL;
	size_t i, n = 0;
	char err[1024];

	if (cfg->project_toml != NULL || cfg->forge_repo[0] != '\0') {
		confcheck_forge(cfg, o);
		return;
	}
	if (cli_projects_load(cfg, exe, cli->project, &all, &n, err,
		sizeof(err)) == -1)
		confcheck_problem(o, CLI_EXIT_USAGE, "%s", err);
	for (i = 0; i < n; i++) {
		buf_printf(&o->text, "%s:\n", all[i].project_toml);
		confcheck_forge(&all[i], o);
		config_free(&all[i]);
	}
	free(all);
}

int
confcheck_run(const char *prog, const struct cli *cli, const struct config *cfg,
    const char *exe, char **msg)
{
	struct confcheck_out o;

	memset(&o, 0, sizeof(o));
	buf_init(&o.text, 0);
	confcheck_offline(cli, cfg, exe, &o);
	confcheck_sandbox(cli, cfg, &o);
	if (cli->forge && o.rc == 0)
		confcheck_forges(cli, cfg, exe, &o);
	if (cli->verbose)
		buf_printf(&o.text,
		    "%s: configuration %s (%zu problems, %zu "
		    "warnings)\n",
		    prog, o.rc == 0 ? "good" : "bad", o.problems, o.warnings);
	*msg = o.text.len > 0 ? buf_steal(&o.text) : NULL;
	buf_free(&o.text);
	return o.rc;
}
