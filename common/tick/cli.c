/*
 * Start-up shared by the executables.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "agent_exec.h"
#include "agent_hooks.h"
#include "buf.h"
#include "confcheck.h"
#include "cli.h"
#include "config.h"
#include "crashpoint.h"
#include "file.h"
#include "http.h"
#include "log.h"
#include "runfiles.h"
#include "sandbox.h"
#include "spawn.h"
#include "status.h"
#include "strv.h"
#include "valid.h"
#include "version.h"
#include "xmalloc.h"

/* The marker of a status line written by cli_fail(). */
#define FAILING "failing: "

/* What an option sets. */
enum cli_opt_id {
	CLI_O_DRY_RUN,
	CLI_O_VERBOSE,
	CLI_O_ISSUE,
	CLI_O_PR,
	CLI_O_FORCE,
	CLI_O_PROJECT,
	CLI_O_STATUS,
	CLI_O_JSON,
	CLI_O_LOG,
	CLI_O_CHECK,
	CLI_O_FORGE,
	CLI_O_WAKE,
	CLI_O_HELP,
	CLI_O_VERSION
};

/* One row per option (and per tool family when the meaning differs). */
struct cli_option {
	enum cli_opt_id id;
	const char *name;  /* "--dry-run" */
	const char *alias; /* "-n", or NULL */
	const char *arg;   /* the value's name ("N"), or NULL: none */
	unsigned tools;	   /* CLI_OPT_* of the tools taking it; 0: all */
	const char *help;
};

/* The run's --dry-run, for the agent backends cli_agent_use() selects. */
static int cli_dry_run;
/* The default run directory was refused: nothing is written into it. */
static int cli_run_dir_bad;

/* Each help fits one line of --help (the man pages say the rest). */
static const struct cli_option cli_options[] = {
    {CLI_O_DRY_RUN, "--dry-run", "-n", NULL, 0,
	"log what it would do, do nothing, write no file"},
    {CLI_O_VERBOSE, "--verbose", "-v", NULL, 0,
	"mirror the log to stderr, with notes and tick costs"},
    {CLI_O_ISSUE, "--issue", NULL, "N", CLI_OPT_ISSUE,
	"launch (or recover) the session of issue N now"},
    {CLI_O_PR, "--pr", NULL, "N", CLI_OPT_PR,
	"review PR N now and print the verdict"},
    {CLI_O_FORCE, "--force", NULL, NULL, CLI_OPT_ISSUE,
	"with --issue: ignore the slot, memory and dependencies"},
    {CLI_O_FORCE, "--force", NULL, NULL, CLI_OPT_PR,
	"with --pr: review a head reviewed already"},
    {CLI_O_PROJECT, "--project", NULL, "NAME", CLI_OPT_PROJECT,
	"check only the project called NAME"},
    {CLI_O_STATUS, "--status", NULL, NULL, 0,
	"sessions, PRs, CI, what holds the backlog; last ticks"},
    {CLI_O_JSON, "--json", NULL, NULL, 0, "with --status: as JSON"},
    {CLI_O_LOG, "--log", NULL, "DEST", 0,
	"log to `file` (default, for cron) or `stderr` (journald)"},
    {CLI_O_CHECK, "--check", NULL, NULL, 0,
	"check the configuration offline; exit 2 if it is wrong"},
    {CLI_O_FORGE, "--forge", NULL, NULL, 0,
	"with --check or --status: ask the forge too"},
    {CLI_O_WAKE, "--wake", NULL, NULL, 0,
	"start a tick in the background and return at once"},
    {CLI_O_HELP, "--help", "-h", NULL, 0, "print this"},
    {CLI_O_VERSION, "--version", "-V", NULL, 0,
	"print the version and the commit built from"},
};

#define CLI_NOPTIONS (sizeof(cli_options) / sizeof(cli_options[0]))

static int cli_takes(const struct cli_tool *, const struct cli_option *);
static const struct cli_option *cli_find(const struct cli_tool *, const char *,
    const char **);
static int cli_number(const char *, long long *);
static int cli_set(const struct cli_option *, const char *, struct cli *,
    char *, size_t);
static int cli_option(int, char *[], int *, const struct cli_tool *,
    struct cli *, char *, size_t);
static int cli_operand_bad(const char *, char *, size_t);
static int cli_check(const struct cli_tool *, const struct cli *, char *,
    size_t);
static int cli_status_failing(const char *);
static void cli_status_recover(const struct cli_tool *, const struct config *,
    const struct cli *);
static int configure(const struct cli_tool *, const char *, const struct cli *,
    struct config *, char *, size_t);
static int cli_mode(const struct cli_tool *, int, char *[], char **);
static int usage_error(const struct cli_tool *, const char *, char **);
static char *cli_help(const struct cli_tool *, const char *);
static int cli_status_add(struct status *, const char *, const char *,
    const char *);
static int cli_status_reply(const struct cli_tool *, const struct cli *,
    const struct config *, const char *, char **);
static void cli_log_dest(const struct cli *, const struct config *);
static void cli_umask(void);
static void cli_child_env(const struct config *);

/* Whether tool t takes option o. */
static int
cli_takes(const struct cli_tool *t, const struct cli_option *o)
{
	return o->tools == 0 || (o->tools & t->opts) != 0;
}

/*
 * The option of t that arg names ("--pr", "--pr=5", "-n"), with the
 * value given after '=' in *inline_value (else NULL), or NULL.
 */
static const struct cli_option *
cli_find(const struct cli_tool *t, const char *arg, const char **inline_value)
{
	const struct cli_option *o;
	size_t i, len = strcspn(arg, "=");

	*inline_value = arg[len] == '=' ? arg + len + 1 : NULL;
	for (i = 0; i < CLI_NOPTIONS; i++) {
		o = &cli_options[i];
		if (!cli_takes(t, o))
			continue;
		if (strlen(o->name) == len && strncmp(arg, o->name, len) == 0)
			return o;
		if (o->alias != NULL && *inline_value == NULL &&
		    strcmp(arg, o->alias) == 0)
			return o;
	}
	return NULL;
}

/* An issue or PR number (valid_number_text()): 0, or -1. */
static int
cli_number(const char *s, long long *out)
{
	return valid_number_text(s, out) == NULL ? 0 : -1;
}

/* Apply option o (value: its value, or NULL): 0, or -1 with err set. */
static int
cli_set(const struct cli_option *o, const char *value, struct cli *out,
    char *err, size_t errsz)
{
	switch (o->id) {
	case CLI_O_DRY_RUN:
		out->dry_run = 1;
		break;
	case CLI_O_VERBOSE:
		out->verbose = 1;
		break;
	case CLI_O_ISSUE:
	case CLI_O_PR:
		if (cli_number(value,
			o->id == CLI_O_PR ? &out->pr : &out->issue) == -1) {
			snprintf(err, errsz,
			    "%s: expected a number from 1 to 2^53-1, got '%s'",
			    o->name, value);
			return -1;
		}
		break;
	case CLI_O_FORCE:
		out->force = 1;
		break;
	case CLI_O_PROJECT:
		out->project = value;
		break;
	case CLI_O_STATUS:
		out->status = 1;
		break;
	case CLI_O_JSON:
		out->json = 1;
		break;
	case CLI_O_LOG:
		if (strcmp(value, "file") != 0 &&
		    strcmp(value, "stderr") != 0) {
			snprintf(err, errsz,
			    "--log: expected 'file' or 'stderr', got '%s'",
			    value);
			return -1;
		}
		out->log = value;
		break;
	case CLI_O_CHECK:
		out->check = 1;
		break;
	case CLI_O_FORGE:
		out->forge = 1;
		break;
	case CLI_O_WAKE:
		out->wake = 1;
		break;
	case CLI_O_HELP:
	case CLI_O_VERSION:
		break;
	}
	return 0;
}

/*
 * The option at argv[*i] (and its value, which may be the next element):
 * CLI_RUN, CLI_HELP, CLI_VERSION, or CLI_BAD with err set.
 */
static int
cli_option(int argc, char *argv[], int *i, const struct cli_tool *t,
    struct cli *out, char *err, size_t errsz)
{
	const struct cli_option *o;
	const char *value;

	if ((o = cli_find(t, argv[*i], &value)) == NULL) {
		snprintf(err, errsz, "unknown option '%s'", argv[*i]);
		return CLI_BAD;
	}
	if (o->arg == NULL && value != NULL) {
		snprintf(err, errsz, "%s takes no value", o->name);
		return CLI_BAD;
	}
	if (o->arg != NULL && value == NULL) {
		if (*i + 1 >= argc) {
			snprintf(err, errsz, "%s needs %s", o->name, o->arg);
			return CLI_BAD;
		}
		value = argv[++*i];
	}
	if (o->id == CLI_O_HELP)
		return CLI_HELP;
	if (o->id == CLI_O_VERSION)
		return CLI_VERSION;
	return cli_set(o, value, out, err, errsz) == -1 ? CLI_BAD : CLI_RUN;
}

/* Options of t that do not go together: 0, or -1 with err set. */
static int
cli_check(const struct cli_tool *t, const struct cli *c, char *err,
    size_t errsz)
{
	if (c->json && !c->status)
		snprintf(err, errsz, "--json goes with --status");
	else if (c->forge && !c->check && !c->status)
		snprintf(err, errsz, "--forge goes with --check or --status");
	else if (c->force && c->issue == 0 && c->pr == 0)
		snprintf(err, errsz, "--force goes with %s",
		    t->opts & CLI_OPT_PR ? "--pr" : "--issue");
	else if (c->status && (c->issue != 0 || c->pr != 0))
		snprintf(err, errsz, "--status runs nothing: not with %s",
		    c->issue != 0 ? "--issue" : "--pr");
	else if (c->reason != NULL && !c->wake)
		snprintf(err, errsz, "unexpected argument '%s'", c->reason);
	else if (c->wake &&
	    (c->status || c->check || c->dry_run || c->issue != 0 ||
		c->pr != 0))
		snprintf(err, errsz, "--wake starts a tick: not with %s",
		    c->status	      ? "--status" :
			c->check      ? "--check" :
			c->dry_run    ? "--dry-run" :
			c->issue != 0 ? "--issue" :
					"--pr");
	else
		return 0;
	return -1;
}

enum cli_parsed
cli_parse(int argc, char *argv[], const struct cli_tool *t, struct cli *out,
    char *err, size_t errsz)
{
	int i, r, operands = 0, first = t->takes_project ? 0 : 1;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0 && i + 1 < argc && !operands++ &&
		    t->takes_project)
			out->project_toml = argv[++i];
		else if (a[0] == '-') {
			if ((r = cli_option(argc, argv, &i, t, out, err,
				 errsz)) != CLI_RUN)
				return r;
		} else if (operands + first == 0) {
			operands++;
			out->project_toml = a;
		} else if (operands++ + first == 1)
			/* The second operand: --wake's reason (checked). */
			out->reason = a;
		else {
			snprintf(err, errsz, "unexpected argument '%s'", a);
			return CLI_BAD;
		}
	}
	return cli_check(t, out, err, errsz) == -1 ? CLI_BAD : CLI_RUN;
}

char *
cli_usage(const struct cli_tool *t)
{
	const char *p = t->prog,
		   *toml = t->takes_project ? " [PROJECT_TOML]" : "";
	const char *proj = t->opts & CLI_OPT_PROJECT ? " [--project NAME]" : "";
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "usage: %s [--dry-run] [-v]%s%s\n", p, proj, toml);
	if (t->opts & CLI_OPT_ISSUE)
		buf_printf(&b,
		    "       %s [--dry-run] [-v] --issue N [--force]%s\n", p,
		    toml);
	if (t->opts & CLI_OPT_PR)
		buf_printf(&b,
		    "       %s [--dry-run] [-v] --pr N [--force]%s\n", p, toml);
	buf_printf(&b, "       %s --wake%s%s [REASON]\n", p, proj, toml);
	buf_printf(&b, "       %s --status [--json] [--forge]%s%s\n", p, proj,
	    toml);
	buf_printf(&b, "       %s --help | --version", p);
	return buf_steal(&b);
}

char *
cli_options_help(const struct cli_tool *t)
{
	const struct cli_option *o;
	char *usage = cli_usage(t), name[48];
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	buf_printf(&b, "%s\n\noptions:\n", usage);
	for (i = 0; i < CLI_NOPTIONS; i++) {
		o = &cli_options[i];
		if (!cli_takes(t, o))
			continue;
		snprintf(name, sizeof(name), "%s%s%s%s%s",
		    o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
		    o->arg ? " " : "", o->arg ? o->arg : "");
		buf_printf(&b, "  %-18s %s\n", name, o->help);
	}
	/* The modes, each alone as the first argument (cli_mode()). */
	buf_printf(&b, "  %-18s %s\n", "--webhook",
	    "alone: answer one forge webhook on stdin, wake the tools");
	buf_printf(&b, "  %-18s %s\n", CLI_TMUX_SERVER_MODE,
	    "alone: start the agents' tmux server with the .env");
	free(usage);
	return buf_steal(&b);
}

int
cli_configure(struct config *cfg, const struct cli *cli,
    const char *project_toml, const char *exe, char *err, size_t errsz)
{
	struct http_opts ho;

	if (config_load(cfg, project_toml ? project_toml : cli->project_toml,
		exe, err, errsz) == -1)
		return -1;
	/* The default run directory: this user's alone, or none at all. */
	if (cfg->run_dir_default &&
	    file_mkdir_private(cfg->run_dir, err, errsz) == -1) {
		cli_run_dir_bad = 1;
		return -1;
	}
	runfiles_init(cfg->run_dir, cfg->factory_root);
	cli_child_env(cfg);
	http_get_opts(&ho);
	ho.connect_timeout_ms = cfg->http_connect_timeout_ms;
	ho.timeout_ms = cfg->http_timeout_ms;
	ho.retries = cfg->http_retries;
	ho.backoff_ms = cfg->http_backoff_ms;
	http_set_opts(&ho);
	cli_dry_run = cli->dry_run;
	crashpoint_set(cfg->test_crash);
	return cli_agent_use(cfg, err, errsz);
}

/*
 * What every child of the tool (git, the fix command, a mirror push)
 * gets, as bash's children had it from lib/env.sh (config_child_env()).
 */
static void
cli_child_env(const struct config *cfg)
{
	char **env = config_child_env(cfg);

	spawn_set_child_env((const char *const *)env);
	config_env_free(env);
}

void
cli_sandbox_conf(const struct config *cfg, struct sandbox_conf *sc, char *exe,
    size_t exesz)
{
	memset(sc, 0, sizeof(*sc));
	sc->mode = cfg->agent_sandbox;
	sc->bwrap = cfg->agent_sandbox_bwrap;
	sc->user = cfg->agent_user;
	sc->factory_root = cfg->factory_root;
	sc->run_dir = cfg->run_dir;
	sc->ro = cfg->agent_sandbox_ro;
	sc->rw = cfg->agent_sandbox_rw;
	if (agent_exec_self(exe, exesz) == 0)
		sc->exe = exe;
}

int
cli_agent_use(const struct config *cfg, char *err, size_t errsz)
{
	char **server_env = config_server_env(cfg), exe[PATH_MAX];
	struct sandbox_conf sc;
	struct agent_conf ac = {.protocol = cfg->agent_protocol,
	    .state_dir = cfg->run_dir,
	    .tmux_socket = cfg->tmux_socket,
	    .server_env = server_env,
	    .session_lock = cfg->session_lock,
	    .session_lock_wait_s = cfg->session_lock_wait_s,
	    .run_timeout_s = cfg->agent_run_timeout_s,
	    .ready_pattern = cfg->agent_ready_pattern,
	    .marker_ready_s = cfg->marker_ready_s,
	    .marker_ack_s = cfg->marker_ack_s,
	    .dry_run = cli_dry_run,
	    .sandbox = &sc,
	    .wake = cfg->wake,
	    .wake_project = cfg->project_toml};
	int r;

	cli_sandbox_conf(cfg, &sc, exe, sizeof(exe));
	r = agent_use(&ac);

	config_env_free(server_env);
	if (r == 0)
		return 0;
	snprintf(err, errsz, "%s: [agent] protocol '%s': not available",
	    cfg->project_toml != NULL ? cfg->project_toml : "AGENT_PROTOCOL",
	    cfg->agent_protocol != NULL ? cfg->agent_protocol : "");
	return -1;
}

void
cli_log_warnings(const struct config *cfg, int verbose)
{
	size_t i;

	for (i = 0; i < cfg->nwarnings; i++)
		log_warn("warning: %s", cfg->warnings[i]);
	for (i = 0; verbose && i < cfg->nnotes; i++)
		log_msg("%s", cfg->notes[i]);
}

int
cli_fail(const struct cli_tool *t, const struct config *cfg, const char *why)
{
	char *path = NULL, *status = NULL, err[512];

	/* A project file that does not exist (a typo) names no project:
	 * nothing is written (config.c leaves its name empty). */
	if (cfg->factory_root != NULL && cfg->run_dir != NULL &&
	    cfg->project_name != NULL &&
	    (cfg->project_name[0] != '\0' || cfg->project_toml == NULL)) {
		runfiles_init(cfg->run_dir, cfg->factory_root);
		path = t->log_path(cfg);
		/* Nothing is written into a run directory not ours alone. */
		if (t->status_path != NULL && !cli_run_dir_bad &&
		    (!cfg->run_dir_default ||
			file_mkdir_private(cfg->run_dir, err, sizeof(err)) ==
			    0))
			status = t->status_path(cfg);
	}
	/* stderr has the message already: the log is not mirrored. */
	if (path != NULL)
		(void)log_open(path, t->log_prefix, t->rotate_bytes, 0);
	if (status == NULL ||
	    log_status_err(status, t->prog, FAILING "%s", why) == -1)
		log_err(FAILING "%s", why);
	free(status);
	free(path);
	return CLI_EXIT_USAGE;
}

int
cli_projects_load(const struct config *base, const char *exe, const char *only,
    struct config **out, size_t *n, char *err, size_t errsz)
{
	struct config one;
	char **files, why[512];
	size_t i, nfiles;
	int r = -1, loaded;

	*out = NULL;
	*n = 0;
	if (runfiles_project_files(&files, &nfiles) == -1) {
		snprintf(err, errsz, "cannot list the project files");
		goto out;
	}
	*out = xcalloc(nfiles + 1, sizeof(**out));
	for (i = 0; i < nfiles; i++) {
		memset(&one, 0, sizeof(one));
		loaded = config_load(&one, files[i], exe, why, sizeof(why));
		if (only != NULL &&
		    (one.project_name == NULL ||
			strcmp(one.project_name, only) != 0)) {
			config_free(&one);
			continue;
		}
		if (loaded == -1) {
			snprintf(err, errsz, "%s", why);
			config_free(&one);
			goto out;
		}
		(*out)[(*n)++] = one;
	}
	r = 0;
	if (only != NULL && *n == 0 &&
	    (nfiles > 0 || strcmp(base->project_name, only) != 0)) {
		snprintf(err, errsz, "no project called '%s' in '%s/projects'",
		    only, base->factory_root);
		r = -1;
	}
out:
	strv_free(files);
	return r;
}

/*
 * One project file into the report (broken or not) when it is the one
 * asked for (only NULL: any).  1 added, 0 not.
 */
static int
cli_status_add(struct status *st, const char *file, const char *exe,
    const char *only)
{
	struct config cfg;
	char why[512];
	int r, added = 0;

	memset(&cfg, 0, sizeof(cfg));
	r = config_load(&cfg, file, exe, why, sizeof(why));
	if (only == NULL ||
	    (cfg.project_name != NULL && strcmp(cfg.project_name, only) == 0)) {
		if (r == -1)
			status_add_broken(st, cfg.project_name, file, why);
		else {
			/* Its sessions as its own protocol reads them. */
			(void)cli_agent_use(&cfg, why, sizeof(why));
			status_add_project(st, &cfg);
		}
		added = 1;
	}
	config_free(&cfg);
	return added;
}

int
cli_status(const struct cli *cli, const struct config *cfg, const char *exe,
    const struct status_file *report, char **out, char *err, size_t errsz)
{
	struct status *st = status_new(time(NULL), 1, report);
	char **files = NULL;
	size_t i, nfiles = 0, n = 0;
	int r = CLI_EXIT_OK;

	*out = NULL;
	if (cli->forge)
		status_use_forge(st);
	if (cli->project_toml != NULL)
		status_add_project(st, cfg);
	else if (runfiles_project_files(&files, &nfiles) == -1) {
		snprintf(err, errsz, "cannot list the project files");
		r = CLI_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < nfiles; i++)
		n += cli_status_add(st, files[i], exe, cli->project);
	if (cli->project_toml == NULL && nfiles == 0 &&
	    cfg->forge_repo[0] != '\0' &&
	    (cli->project == NULL ||
		strcmp(cfg->project_name, cli->project) == 0)) {
		status_add_project(st, cfg);
		n++;
	}
	if (cli->project != NULL && n == 0) {
		snprintf(err, errsz, "no project called '%s'", cli->project);
		r = CLI_EXIT_USAGE;
		goto out;
	}
	*out = cli->json ? status_json(st) : status_text(st);
out:
	strv_free(files);
	status_free(st);
	return r;
}

/*
 * Send the log where --log, else DISINTO_LOG, says (cfg as far as it was
 * loaded); a dry run's to stderr alone.
 */
static void
cli_log_dest(const struct cli *cli, const struct config *cfg)
{
	const char *dest = cli->log != NULL ? cli->log : cfg->log_dest;

	log_use_stderr(dest != NULL && strcmp(dest, "stderr") == 0);
	/* A dry run writes no log or status file: stderr has its lines. */
	log_dry_run(cli->dry_run);
}

/*
 * A command line that cannot be run: said on stderr alone.  A typo
 * ("dev-poll 42") names no project, so no project's log, status or
 * metrics file is created for it (cfg stays empty).
 */
static int
usage_error(const struct cli_tool *t, const char *err, char **msg)
{
	char *usage = cli_usage(t);

	*msg = xasprintf("%s: %s\n%s\n", t->prog, err, usage);
	free(usage);
	return CLI_EXIT_USAGE;
}

/*
 * --help: one screen, the settings are listed in the man pages, which
 * `make install-factory` puts in the factory (.disinto-c/man), where man
 * finds them with -M.  Caller frees.
 */
static char *
cli_help(const struct cli_tool *t, const char *exe)
{
	char *usage = cli_options_help(t), *root = config_factory_root(exe);
	char *man = xasprintf("%s/.disinto-c/man", root), *help;
	struct stat st;

	if (stat(man, &st) == 0 && S_ISDIR(st.st_mode))
		help = xasprintf("%s\nsettings: the environment, "
				 "$FACTORY_ROOT/.env, the project file\n"
				 "more: man -M %s 8 %s (and 5 disinto-c)\n",
		    usage, man, t->prog);
	else
		help = xasprintf("%s\nsettings: the environment, "
				 "$FACTORY_ROOT/.env, the project file\n"
				 "more: man 8 %s, man 5 disinto-c\n",
		    usage, t->prog);
	free(man);
	free(root);
	free(usage);
	return help;
}

/*
 * Whether the PROJECT_TOML operand path cannot name a project file: a
 * readable regular file whose name ends in ".toml".  0, or -1 with err
 * set.
 */
static int
cli_operand_bad(const char *path, char *err, size_t errsz)
{
	struct stat st;
	size_t n = strlen(path);

	if (stat(path, &st) == -1)
		snprintf(err, errsz, "%s: cannot read: %s", path,
		    strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(err, errsz, "%s: not a file", path);
	else if (n < 6 || strcmp(path + n - 5, ".toml") != 0)
		snprintf(err, errsz,
		    "%s: not a project file (PROJECT_TOML is a "
		    "projects/NAME.toml)",
		    path);
	else
		return 0;
	return -1;
}

/* cli_configure(), and a project when the tool needs one: 0 or -1. */
static int
configure(const struct cli_tool *t, const char *exe, const struct cli *cli,
    struct config *cfg, char *err, size_t errsz)
{
	if (cli_configure(cfg, cli, NULL, exe, err, errsz) == -1)
		return -1;
	if (t->takes_project && !cli->status && cfg->forge_repo[0] == '\0') {
		snprintf(err, errsz,
		    "no project: give a project file or set FORGE_REPO");
		return -1;
	}
	return 0;
}

/* 1 when the status file says the tool was failing. */
static int
cli_status_failing(const char *path)
{
	struct buf text;
	int r;

	buf_init(&text, 0);
	r = file_read(path, 4096, &text) != -1 &&
	    strstr(buf_str(&text), ": " FAILING) != NULL;
	buf_free(&text);
	return r;
}

/* A status left by a failed start goes once the tool starts again. */
static void
cli_status_recover(const struct cli_tool *t, const struct config *cfg,
    const struct cli *cli)
{
	char *status = t->status_path ? t->status_path(cfg) : NULL;

	if (status != NULL && !cli->dry_run && cli_status_failing(status))
		(void)log_status(status, t->prog, "configuration loaded");
	free(status);
}

/* --status: the report in *msg, and the exit status. */
static int
cli_status_reply(const struct cli_tool *t, const struct cli *cli,
    const struct config *cfg, const char *exe, char **msg)
{
	char err[512];
	int rc;

	if ((rc = cli_status(cli, cfg, exe, t->report, msg, err,
		 sizeof(err))) != 0)
		*msg = xasprintf("%s: %s\n", t->prog, err);
	return rc;
}

/*
 * Nothing the tools, their agents and the agents' hooks create is
 * writable by group or others (file.h does not trust such a run file):
 * 022 is added to the umask the process was given, before anything is
 * created or started.
 */
static void
cli_umask(void)
{
	mode_t mask = umask(022);

	(void)umask(mask | 022);
}

/*
 * The modes agent sessions run the executables in, chosen by the first
 * argument before anything else is done: the wrapper of an agent
 * (agent_exec.h) and its hooks (agent_hooks.h).  Their exit status, or -1
 * when argv asks for neither; what to print in msg.
 */
static int
cli_mode(const struct cli_tool *t, int argc, char *argv[], char **msg)
{
	char why[1024];
	int rc;

	why[0] = '\0';
	if (argc < 2)
		return -1;
	if (strcmp(argv[1], AGENT_EXEC_MODE) == 0) {
		rc = agent_exec_main(argc - 1, argv + 1, why, sizeof(why));
		if (why[0] != '\0')
			*msg = xasprintf("%s: %s\n", t->prog, why);
		return rc;
	}
	if (strcmp(argv[1], CLI_TMUX_SERVER_MODE) == 0)
		return cli_tmux_server(t, argc, argv, msg);
	if (strcmp(argv[1], AGENT_HOOKS_MODE) == 0) {
		/* A refusal's reason goes to stderr as it is: the agent reads
		 * it. */
		rc = agent_hooks_main(argc - 1, argv + 1, stdout, why,
		    sizeof(why));
		if (why[0] != '\0')
			*msg = xasprintf("%s\n", why);
		return rc;
	}
	return -1;
}

int
cli_start(int argc, char *argv[], const struct cli_tool *t, struct cli *cli,
    struct config *cfg, char **msg)
{
	char err[1024], *path = NULL;
	int rc = -1;

	*msg = NULL;
	memset(cfg, 0, sizeof(*cfg));
	cli_umask();
	if ((rc = cli_mode(t, argc, argv, msg)) != -1)
		return rc;
	(void)config_apply_path();
	switch (cli_parse(argc, argv, t, cli, err, sizeof(err))) {
	case CLI_HELP:
		*msg = cli_help(t, argv[0]);
		return CLI_EXIT_OK;
	case CLI_VERSION:
		*msg = xasprintf("%s %s\n", t->prog, version_string());
		return CLI_EXIT_OK;
	case CLI_BAD:
		return usage_error(t, err, msg);
	case CLI_RUN:
		break;
	}
	if (t->takes_project && cli->project_toml != NULL &&
	    cli_operand_bad(cli->project_toml, err, sizeof(err)) == -1)
		return usage_error(t, err, msg);
	if (configure(t, argv[0], cli, cfg, err, sizeof(err)) == -1) {
		cli_log_dest(cli, cfg);
		*msg = xasprintf("%s: %s\n", t->prog, err);
		/* --check and --status only read: stderr has it all. */
		return cli->check || cli->status ? CLI_EXIT_USAGE :
						   cli_fail(t, cfg, err);
	}
	cli_log_dest(cli, cfg);
	if (cli->status)
		return cli_status_reply(t, cli, cfg, argv[0], msg);
	if (cli->check)
		return confcheck_run(t->prog, t->opts, cli, cfg, argv[0], msg);
	if ((path = t->log_path(cfg)) != NULL)
		(void)log_open(path, t->log_prefix, t->rotate_bytes,
		    cli->verbose);
	cli_log_warnings(cfg, cli->verbose);
	cli_status_recover(t, cfg, cli);
	free(path);
	return rc;
}
