/*
 * Start-up shared by the executables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "agent_exec.h"
#include "agent_hooks.h"
#include "buf.h"
#include "cli.h"
#include "config.h"
#include "file.h"
#include "http.h"
#include "log.h"
#include "runfiles.h"
#include "version.h"
#include "xmalloc.h"

/* The marker of a status line written by cli_fail(). */
#define FAILING "failing: "

static const char *operand(int, char *[], int);
static int status_failing(const char *);
static void status_recover(const struct cli_tool *, const struct config *,
    const struct cli *);
static int configure(const struct cli_tool *, const char *, const struct cli *,
    struct config *, char *, size_t);
static int cli_mode(const struct cli_tool *, int, char *[], char *, size_t);
static int usage_error(const struct cli_tool *, int, char *[], const char *,
    struct config *, char *, size_t);

enum cli_parsed
cli_parse(int argc, char *argv[], int takes_project, struct cli *out, char *err,
    size_t errsz)
{
	int i, operands = 0;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--dry-run") == 0 || strcmp(a, "-n") == 0)
			out->dry_run = 1;
		else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
			out->verbose = 1;
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return CLI_HELP;
		else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0)
			return CLI_VERSION;
		else if (strcmp(a, "--") == 0 && i + 1 < argc && !operands++ &&
		    takes_project)
			out->project_toml = argv[++i];
		else if (a[0] == '-') {
			snprintf(err, errsz, "unknown option '%s'", a);
			return CLI_BAD;
		} else if (!takes_project || operands++) {
			snprintf(err, errsz, "unexpected argument '%s'", a);
			return CLI_BAD;
		} else
			out->project_toml = a;
	}
	return CLI_RUN;
}

char *
cli_usage(const char *prog, int takes_project)
{
	return xasprintf("usage: %s [--dry-run] [-v] [--version]%s", prog,
	    takes_project ? " [PROJECT_TOML]" : "");
}

int
cli_configure(struct config *cfg, const struct cli *cli,
    const char *project_toml, const char *exe, char *err, size_t errsz)
{
	struct http_opts ho;

	if (config_load(cfg, project_toml ? project_toml : cli->project_toml,
		exe, err, errsz) == -1)
		return -1;
	runfiles_init(cfg->run_dir, cfg->factory_root);
	http_get_opts(&ho);
	ho.connect_timeout_ms = cfg->http_connect_timeout_ms;
	ho.timeout_ms = cfg->http_timeout_ms;
	ho.retries = cfg->http_retries;
	ho.backoff_ms = cfg->http_backoff_ms;
	http_set_opts(&ho);
	(void)agent_use(&(struct agent_conf) {.state_dir = cfg->run_dir,
	    .tmux_socket = cfg->tmux_socket,
	    .session_lock = cfg->session_lock,
	    .session_lock_wait_s = cfg->session_lock_wait_s});
	return 0;
}

void
cli_log_warnings(const struct config *cfg, int verbose)
{
	size_t i;

	for (i = 0; i < cfg->nwarnings; i++)
		log_msg("warning: %s", cfg->warnings[i]);
	for (i = 0; verbose && i < cfg->nnotes; i++)
		log_msg("%s", cfg->notes[i]);
}

int
cli_agent_active(const char *agent)
{
	char *flag = runfiles_active_flag(agent);
	int active = file_exists(flag);

	if (!active)
		log_msg("%s not active — skipping", agent);
	free(flag);
	return active;
}

int
cli_fail(const struct cli_tool *t, const struct config *cfg, const char *why)
{
	char *path = NULL, *status = NULL;

	if (cfg->factory_root != NULL && cfg->run_dir != NULL &&
	    cfg->project_name != NULL) {
		runfiles_init(cfg->run_dir, cfg->factory_root);
		path = t->log_path(cfg);
		if (t->status_path != NULL)
			status = t->status_path(cfg);
	}
	/* stderr has the message already: the log is not mirrored. */
	if (path != NULL)
		(void)log_open(path, t->log_prefix, t->rotate_bytes, 0);
	if (status == NULL ||
	    log_status(status, t->prog, FAILING "%s", why) == -1)
		log_msg(FAILING "%s", why);
	free(status);
	free(path);
	return CLI_EXIT_USAGE;
}

/* The PROJECT_TOML operand argv seems to give, for logging, or NULL. */
static const char *
operand(int argc, char *argv[], int takes_project)
{
	int i;

	for (i = 1; takes_project && i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (argv[i][0] != '-')
			return argv[i];
	}
	return NULL;
}

/* A command line that cannot be run: logged where the project's is. */
static int
usage_error(const struct cli_tool *t, int argc, char *argv[], const char *err,
    struct config *cfg, char *msg, size_t msgsz)
{
	char *usage = cli_usage(t->prog, t->takes_project), ignored[256];
	char *why = xasprintf("%s (%s)", err, usage);

	snprintf(msg, msgsz, "%s: %s\n%s\n", t->prog, err, usage);
	/* Only to find the log: this configuration is not used. */
	(void)config_load(cfg, operand(argc, argv, t->takes_project), argv[0],
	    ignored, sizeof(ignored));
	(void)cli_fail(t, cfg, why);
	free(why);
	free(usage);
	return CLI_EXIT_USAGE;
}

/* cli_configure(), and a project when the tool needs one: 0 or -1. */
static int
configure(const struct cli_tool *t, const char *exe, const struct cli *cli,
    struct config *cfg, char *err, size_t errsz)
{
	if (cli_configure(cfg, cli, NULL, exe, err, errsz) == -1)
		return -1;
	if (t->takes_project && cfg->forge_repo[0] == '\0') {
		snprintf(err, errsz,
		    "no project: give a project file or set FORGE_REPO");
		return -1;
	}
	return 0;
}

/* 1 when the status file says the tool was failing. */
static int
status_failing(const char *path)
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
status_recover(const struct cli_tool *t, const struct config *cfg,
    const struct cli *cli)
{
	char *status = t->status_path ? t->status_path(cfg) : NULL;

	if (status != NULL && !cli->dry_run && status_failing(status))
		(void)log_status(status, t->prog, "configuration loaded");
	free(status);
}

/*
 * The modes agent sessions run the executables in, chosen by the first
 * argument before anything else is done: the wrapper of an agent
 * (agent_exec.h) and its hooks (agent_hooks.h).  Their exit status, or -1
 * when argv asks for neither; what to print in msg.
 */
static int
cli_mode(const struct cli_tool *t, int argc, char *argv[], char *msg,
    size_t msgsz)
{
	char why[1024];
	int rc;

	why[0] = '\0';
	if (argc < 2)
		return -1;
	if (strcmp(argv[1], AGENT_EXEC_MODE) == 0) {
		rc = agent_exec_main(argc - 1, argv + 1, why, sizeof(why));
		if (why[0] != '\0')
			snprintf(msg, msgsz, "%s: %s\n", t->prog, why);
		return rc;
	}
	if (strcmp(argv[1], AGENT_HOOKS_MODE) == 0) {
		/* A refusal's reason goes to stderr as it is: the agent reads
		 * it. */
		rc = agent_hooks_main(argc - 1, argv + 1, stdout, why,
		    sizeof(why));
		if (why[0] != '\0')
			snprintf(msg, msgsz, "%s\n", why);
		return rc;
	}
	return -1;
}

int
cli_start(int argc, char *argv[], const struct cli_tool *t, struct cli *cli,
    struct config *cfg, char *msg, size_t msgsz)
{
	char err[1024], *usage = NULL;
	char *path = NULL, *help;
	int rc = -1;

	msg[0] = '\0';
	memset(cfg, 0, sizeof(*cfg));
	if ((rc = cli_mode(t, argc, argv, msg, msgsz)) != -1)
		return rc;
	usage = cli_usage(t->prog, t->takes_project);
	(void)config_apply_path();
	switch (
	    cli_parse(argc, argv, t->takes_project, cli, err, sizeof(err))) {
	case CLI_HELP:
		help = config_help();
		snprintf(msg, msgsz, "%s\n\n%s", usage, help);
		free(help);
		rc = CLI_EXIT_OK;
		goto out;
	case CLI_VERSION:
		snprintf(msg, msgsz, "%s %s\n", t->prog, version_string());
		rc = CLI_EXIT_OK;
		goto out;
	case CLI_BAD:
		rc = usage_error(t, argc, argv, err, cfg, msg, msgsz);
		goto out;
	case CLI_RUN:
		break;
	}
	if (configure(t, argv[0], cli, cfg, err, sizeof(err)) == -1) {
		snprintf(msg, msgsz, "%s: %s\n", t->prog, err);
		rc = cli_fail(t, cfg, err);
		goto out;
	}
	if ((path = t->log_path(cfg)) != NULL)
		(void)log_open(path, t->log_prefix, t->rotate_bytes,
		    cli->verbose);
	cli_log_warnings(cfg, cli->verbose);
	status_recover(t, cfg, cli);
out:
	free(path);
	free(usage);
	return rc;
}
