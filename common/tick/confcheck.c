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
#include <strings.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "confcheck.h"
#include "cli.h"
#include "config.h"
#include "forge.h"
#include "json.h"
#include "sandbox.h"
#include "termsafe.h"
#include "valid.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* One token of the configuration and what the forge said of it. */
struct confcheck_token {
	const char *name;  /* its setting: "FORGE_TOKEN" */
	const char *value; /* "" when unset */
	char *login;	   /* its user (sanitised), or NULL */
	int admin, push, pull;
};

/* What the agents' check knows of their user and the branch's rule. */
struct confcheck_agent {
	const struct confcheck_token *t; /* the agents' token */
	char *owner;	    /* the repository's owner (its organisation) */
	int read;	    /* the protections were read */
	const cJSON *rule;  /* the primary branch's rule, or NULL */
	int teams_read;	    /* teams (below) read, or not needed */
	const cJSON *teams; /* the user's teams (borrowed from f) */
	struct forge *f;    /* the agents' token's handle, or NULL */
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
static int confcheck_set(const char *);
static void confcheck_env(const struct config *, struct confcheck_out *);
static void confcheck_offline(const struct cli *, const struct config *,
    const char *, struct confcheck_out *);
static void confcheck_token(const struct config *, struct confcheck_token *,
    struct confcheck_out *);
static int confcheck_protection(const struct config *,
    const struct confcheck_token *, size_t, const cJSON **, struct forge **,
    struct confcheck_out *);
static const cJSON *confcheck_rule(const cJSON *, const char *);
static int confcheck_listed(const cJSON *, const char *, const char *);
static const char *confcheck_team(const struct confcheck_agent *, const cJSON *,
    const char *);
static int confcheck_teams(const struct config *, struct confcheck_agent *,
    const cJSON *);
static int confcheck_team_list(const cJSON *, const char *, const char *);
static const char *confcheck_admin_override(const cJSON *);
static char *confcheck_merge_why(const struct config *,
    const struct confcheck_agent *);
static char *confcheck_approve_why(const struct config *,
    const struct confcheck_agent *);
static void confcheck_agent_warn(const struct confcheck_agent *, char *,
    struct confcheck_out *);
static void confcheck_agent(const struct config *, struct confcheck_token *,
    size_t, struct confcheck_out *);
static void confcheck_woodpecker(const struct config *, struct confcheck_out *);
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

/* Whether a token is set (not NULL, not empty). */
static int
confcheck_set(const char *v)
{
	return v != NULL && v[0] != '\0';
}

/*
 * A missing $FACTORY_ROOT/.env: a warning when the tokens come from
 * elsewhere (the environment), a problem when none is set at all (every
 * call to the forge would be refused).
 */
static void
confcheck_env(const struct config *cfg, struct confcheck_out *o)
{
	if (!confcheck_set(cfg->forge_token) &&
	    !confcheck_set(cfg->forge_review_token) &&
	    !confcheck_set(cfg->forge_agent_token))
		confcheck_problem(o, CLI_EXIT_USAGE,
		    "'%s' not found, and no FORGE_TOKEN is set anywhere: the "
		    "forge refuses every call",
		    cfg->env_missing);
	else
		confcheck_warn(o,
		    "'%s' not found: the settings come from the environment "
		    "and the project file",
		    cfg->env_missing);
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
	if (cfg->webhook_secret != NULL && *cfg->webhook_secret != '\0' &&
	    valid_blank(cfg->webhook_secret))
		confcheck_warn(o,
		    "WEBHOOK_SECRET: only blanks: every webhook delivery is "
		    "refused, as with no secret");
	if (cfg->env_missing != NULL)
		confcheck_env(cfg, o);
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

/*
 * dev-poll's dev agents need a forge token of their own: without
 * FORGE_AGENT_TOKEN no dev agent starts, unless the operator trusts them
 * with the dev bot's (a warning then).
 */
static void
confcheck_agent_token(unsigned opts, const struct config *cfg,
    struct confcheck_out *o)
{
	if (!(opts & CLI_OPT_DEV_AGENTS) ||
	    confcheck_set(cfg->forge_agent_token))
		return;
	if (cfg->agent_trust_dev_token)
		confcheck_warn(o,
		    "FORGE_AGENT_TOKEN: unset: the dev agents get FORGE_TOKEN, "
		    "the dev bot's, which merges (AGENT_TRUST_DEV_BOT_TOKEN="
		    "true)");
	else
		confcheck_problem(o, CLI_EXIT_USAGE,
		    "FORGE_AGENT_TOKEN: unset, and the dev bot's FORGE_TOKEN "
		    "merges: no dev agent starts (give the agents a forge user "
		    "of their own: docs/SECURITY.md, \"Least privilege\"; or set "
		    "AGENT_TRUST_DEV_BOT_TOKEN=true to trust them with it)");
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
 * The first of rule's key (an array of team names of the repository's
 * organisation) that the agents' user is in, or NULL (borrowed).
 */
static const char *
confcheck_team(const struct confcheck_agent *ag, const cJSON *rule,
    const char *key)
{
	const cJSON *item, *team;
	const char *name, *org;

	cJSON_ArrayForEach (item, json_arr(rule, key)) {
		if (!cJSON_IsString(item))
			continue;
		cJSON_ArrayForEach (team, ag->teams) {
			name = json_str(team, "name");
			org = json_str_at(team, "organization.username");
			if (name != NULL && org != NULL &&
			    strcmp(name, item->valuestring) == 0 &&
			    strcmp(org, ag->owner) == 0)
				return item->valuestring;
		}
	}
	return NULL;
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
 * The agents' user's teams, when rule names teams in a whitelist in
 * force (merge or approvals): 1 read (or not needed), 0 not readable.
 */
static int
confcheck_teams(const struct config *cfg, struct confcheck_agent *ag,
    const cJSON *rule)
{
	if (!confcheck_team_list(rule, "enable_merge_whitelist",
		"merge_whitelist_teams") &&
	    !confcheck_team_list(rule, "enable_approvals_whitelist",
		"approvals_whitelist_teams"))
		return 1;
	ag->f = forge_open(cfg->forge_api, ag->t->value);
	return forge_user_teams(ag->f, &ag->teams) == 0;
}

/* 1 when rule's whitelist (its switch on) names teams in key. */
static int
confcheck_team_list(const cJSON *rule, const char *on_key, const char *key)
{
	int on = 0;

	(void)json_bool(rule, on_key, &on);
	return on && cJSON_GetArraySize(json_arr(rule, key)) > 0;
}

/*
 * How an admin of the repository stands to rule: Forgejo's
 * apply_to_admins or Gitea's block_admin_merge_override (1.23+) set
 * binds a repository admin to the rule when it merges; else it may
 * merge past it (services/pull/check.go of each).
 */
static const char *
confcheck_admin_override(const cJSON *rule)
{
	int on = 0;

	if (rule == NULL)
		return "";
	if (json_bool(rule, "apply_to_admins", &on) == 0)
		return on ? " (apply_to_admins binds it to the rule, which "
			    "it can edit)" :
			    " and merge past the rule (apply_to_admins off)";
	if (json_bool(rule, "block_admin_merge_override", &on) == 0)
		return on ? " (block_admin_merge_override binds it to the "
			    "rule, which it can edit)" :
			    " and merge past the rule "
			    "(block_admin_merge_override off)";
	return "";
}

/*
 * Why the agents' user can merge into the primary branch, from its
 * access and the branch's protection rule, or NULL: Gitea's
 * IsUserMergeWhitelisted (models/git/protected_branch.go): without a
 * merge whitelist any writer may, with one the users and the members of
 * the teams it lists.  Caller frees.
 */
static char *
confcheck_merge_why(const struct config *cfg, const struct confcheck_agent *ag)
{
	const char *br = cfg->primary_branch, *team;
	const cJSON *rule = ag->rule;
	int on;

	if (ag->t->admin)
		return xasprintf("an admin of %s: it can edit the protection "
				 "of %s%s, close issues and PRs",
		    cfg->forge_repo, br, confcheck_admin_override(rule));
	if (!ag->t->push)
		return NULL;
	if (!ag->read)
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
	if (confcheck_listed(rule, "merge_whitelist_usernames", ag->t->login))
		return xasprintf("it is in the merge whitelist of %s", br);
	if (!ag->teams_read)
		return xasprintf("the merge whitelist of %s names teams and "
				 "its teams could not be read (%s): it may be "
				 "in one",
		    br, ag->f != NULL ? forge_error(ag->f) : "");
	if ((team = confcheck_team(ag, rule, "merge_whitelist_teams")) != NULL)
		return xasprintf(
		    "it is in team %s of the merge whitelist of %s", team, br);
	return NULL;
}

/*
 * Why a review of the agents' user counts as an approval for the
 * primary branch's protection, or NULL: Gitea's IsUserOfficialReviewer
 * (models/git/protected_branch.go): without an approvals whitelist any
 * user with write access to the code, with one the users and the
 * members of the teams it lists.  Without a rule the forge requires no
 * approval (the merge warning says so).  Caller frees.
 */
static char *
confcheck_approve_why(const struct config *cfg,
    const struct confcheck_agent *ag)
{
	const char *br = cfg->primary_branch, *team;
	const cJSON *rule = ag->rule;
	int on;

	if (!ag->read || rule == NULL)
		return NULL;
	if (json_bool(rule, "enable_approvals_whitelist", &on) == -1 || !on)
		return ag->t->push || ag->t->admin ?
		    xasprintf("the protection of %s has no approvals "
			      "whitelist, so any writer's approval counts, "
			      "its own too",
			br) :
		    NULL;
	if (confcheck_listed(rule, "approvals_whitelist_username",
		ag->t->login))
		return xasprintf("it is in the approvals whitelist of %s: its "
				 "approval counts",
		    br);
	if (!ag->teams_read)
		return xasprintf("the approvals whitelist of %s names teams "
				 "and its teams could not be read: its "
				 "approval may count",
		    br);
	if ((team = confcheck_team(ag, rule, "approvals_whitelist_teams")) !=
	    NULL)
		return xasprintf("it is in team %s of the approvals whitelist "
				 "of %s: its approval counts",
		    team, br);
	return NULL;
}

/* A warning about the agents' user for each of why (freed). */
static void
confcheck_agent_warn(const struct confcheck_agent *ag, char *why,
    struct confcheck_out *o)
{
	if (why == NULL)
		return;
	confcheck_warn(o, "%s: the agents' user %s: %s", ag->t->name,
	    ag->t->login, why);
	free(why);
}

/*
 * Whether the agents' token (FORGE_AGENT_TOKEN, else FORGE_TOKEN when
 * AGENT_TRUST_DEV_BOT_TOKEN gives it to the dev agents) can merge into the
 * primary branch or approve for it: the agents' user should do neither
 * (docs/SECURITY.md, "Least privilege").
 */
static void
confcheck_agent(const struct config *cfg, struct confcheck_token *t, size_t n,
    struct confcheck_out *o)
{
	struct confcheck_agent ag;
	const cJSON *list = NULL;
	struct forge *f = NULL;
	size_t i;

	memset(&ag, 0, sizeof(ag));
	ag.t = t[n - 1].value[0] != '\0' ? &t[n - 1] : &t[0];
	/* No agent token, not trusted with the dev bot's: no dev agent. */
	if (ag.t == &t[0] && !cfg->agent_trust_dev_token)
		return;
	if (ag.t->login == NULL)
		return;
	for (i = 0; i < n - 1 && ag.t != &t[0]; i++)
		if (t[i].login != NULL && strcmp(ag.t->login, t[i].login) == 0)
			confcheck_warn(o,
			    "FORGE_AGENT_TOKEN: the same user as %s (%s): the "
			    "agents act as the %s",
			    t[i].name, ag.t->login,
			    i == 0 ? "bot that merges" : "review bot");
	ag.owner = xstrndup(cfg->forge_repo, strcspn(cfg->forge_repo, "/"));
	ag.read = confcheck_protection(cfg, t, n, &list, &f, o);
	if (ag.read)
		ag.rule = confcheck_rule(list, cfg->primary_branch);
	ag.teams_read = ag.rule == NULL || confcheck_teams(cfg, &ag, ag.rule);
	confcheck_agent_warn(&ag, confcheck_merge_why(cfg, &ag), o);
	confcheck_agent_warn(&ag, confcheck_approve_why(cfg, &ag), o);
	forge_close(ag.f);
	forge_close(f);
	free(ag.owner);
}

/*
 * What Woodpecker says of WOODPECKER_TOKEN (its user) and of
 * WOODPECKER_REPO_ID (the repository the token reads), when the tools
 * ask it (config_woodpecker_configured()).
 */
static void
confcheck_woodpecker(const struct config *cfg, struct confcheck_out *o)
{
	struct woodpecker *w;
	const cJSON *user, *repo;
	const char *name;
	char *login = NULL, *full = NULL;
	long status;

	if (!config_woodpecker_configured(cfg))
		return;
	w = woodpecker_open(cfg->woodpecker_server, cfg->woodpecker_token,
	    cfg->woodpecker_repo_id);
	if (woodpecker_user(w, &user) == -1) {
		status = woodpecker_last_status(w);
		if (status == 401 || status == 403)
			confcheck_problem(o, CLI_EXIT_USAGE,
			    "WOODPECKER_TOKEN: Woodpecker at %s refuses it "
			    "(HTTP %ld)",
			    cfg->woodpecker_server, status);
		else
			confcheck_problem(o, CLI_EXIT_FAIL,
			    "WOODPECKER_SERVER: Woodpecker did not answer: %s",
			    woodpecker_error(w));
		goto out;
	}
	name = json_str(user, "login");
	login = termsafe_dup(name != NULL ? name : "?");
	if (woodpecker_repo(w, &repo) == -1) {
		status = woodpecker_last_status(w);
		confcheck_problem(o,
		    status >= 400 && status < 500 ? CLI_EXIT_USAGE :
						    CLI_EXIT_FAIL,
		    "WOODPECKER_REPO_ID: Woodpecker user %s cannot read "
		    "repository %lld: %s",
		    login, cfg->woodpecker_repo_id, woodpecker_error(w));
		goto out;
	}
	name = json_str(repo, "full_name");
	full = termsafe_dup(name != NULL ? name : "?");
	buf_printf(&o->text,
	    "WOODPECKER_TOKEN: user %s: repository %lld (%s)\n", login,
	    cfg->woodpecker_repo_id, full);
	if (name != NULL && strcasecmp(name, cfg->forge_repo) != 0)
		confcheck_warn(o,
		    "WOODPECKER_REPO_ID: repository %lld is %s on "
		    "Woodpecker, not %s: CI is read from another repository",
		    cfg->woodpecker_repo_id, full, cfg->forge_repo);
out:
	free(full);
	free(login);
	woodpecker_close(w);
}

static void
confcheck_forge(const struct config *cfg, struct confcheck_out *o)
{
	struct confcheck_token t[] = {
	    {.name = "FORGE_TOKEN", .value = cfg->forge_token},
	    {.name = "FORGE_REVIEW_TOKEN", .value = cfg->forge_review_token},
	    {.name = "FORGE_AGENT_TOKEN", .value = cfg->forge_agent_token}};
	size_t i, n = sizeof(t) / sizeof(t[0]);

	size_t asked = 0;

	for (i = 0; i < n; i++)
		if (t[i].value != NULL && t[i].value[0] != '\0') {
			confcheck_token(cfg, &t[i], o);
			asked++;
		}
	/* Never silent: no token, nothing the forge could be asked. */
	if (asked == 0)
		confcheck_problem(o, CLI_EXIT_USAGE,
		    "FORGE_TOKEN: not set (nor FORGE_REVIEW_TOKEN, "
		    "FORGE_AGENT_TOKEN): the forge of %s was not asked",
		    cfg->forge_repo);
	confcheck_agent(cfg, t, n, o);
	confcheck_woodpecker(cfg, o);
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
confcheck_run(const char *prog, unsigned opts, const struct cli *cli,
    const struct config *cfg, const char *exe, char **msg)
{
	struct confcheck_out o;

	memset(&o, 0, sizeof(o));
	buf_init(&o.text, 0);
	confcheck_offline(cli, cfg, exe, &o);
	confcheck_sandbox(cli, cfg, &o);
	confcheck_agent_token(opts, cfg, &o);
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
