/*
 * Unit tests for common/tick/cli.c: the options table as each tool reads
 * it (which options a tool takes, values inline or after, numbers,
 * options that do not go together, operands), the usage lines and
 * --help, and what cli_start() answers without running a tick: --help
 * and --version exit 0, a bad command line exits 2 with the message and
 * the usage, and a tool that needs a project refuses to run without one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "buf.h"
#include "cli.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

static char *test_log_path(const struct config *);
static char *test_status_path(const struct config *);

/* Three tools as the executables describe themselves. */
static const struct cli_tool dev = {"dev-x", 1, test_log_path, test_status_path,
    "poll: ", 0, CLI_OPT_ISSUE, NULL};
static const struct cli_tool review = {"review-x", 1, test_log_path,
    test_status_path, "", 0, CLI_OPT_PR, NULL};
static const struct cli_tool sup = {"sup-x", 0, test_log_path, test_status_path,
    "", 0, CLI_OPT_PROJECT, NULL};

static char dir[] = "/tmp/test_cli.XXXXXX";

static char *
test_log_path(const struct config *cfg)
{
	(void)cfg;
	return xasprintf("%s/tool.log", dir);
}

static char *
test_status_path(const struct config *cfg)
{
	(void)cfg;
	return xasprintf("%s/tool-status", dir);
}

/* Parse the NULL-ended words (argv[0] added) for t. */
static enum cli_parsed
parse(const struct cli_tool *t, struct cli *c, char *err, const char *w0, ...)
{
	char *argv[16];
	const char *w;
	va_list ap;
	int argc = 0;

	argv[argc++] = (char *)"tool";
	va_start(ap, w0);
	for (w = w0; w != NULL && argc < 15; w = va_arg(ap, const char *))
		argv[argc++] = (char *)w;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return cli_parse(argc, argv, t, c, err, 256);
}

/* The options every tool takes, in both spellings. */
static void
test_cli_common(void)
{
	struct cli c;
	char err[256];

	CHECK_INT(parse(&dev, &c, err, NULL), CLI_RUN);
	CHECK_INT(c.dry_run + c.verbose + c.status + c.json, 0);
	CHECK(c.project_toml == NULL);
	CHECK_INT(parse(&dev, &c, err, "-n", "-v", "p.toml", NULL), CLI_RUN);
	CHECK_INT(c.dry_run, 1);
	CHECK_INT(c.verbose, 1);
	CHECK_STR(c.project_toml, "p.toml");
	CHECK_INT(parse(&dev, &c, err, "--dry-run", "--verbose", "--",
		      "-p.toml", NULL),
	    CLI_RUN);
	CHECK_STR(c.project_toml, "-p.toml");
	CHECK_INT(parse(&sup, &c, err, "--status", "--json", NULL), CLI_RUN);
	CHECK_INT(c.status, 1);
	CHECK_INT(c.json, 1);
	CHECK_INT(parse(&review, &c, err, "--log", "stderr", NULL), CLI_RUN);
	CHECK_STR(c.log, "stderr");
	CHECK_INT(parse(&review, &c, err, "--log=file", NULL), CLI_RUN);
	CHECK_STR(c.log, "file");
	CHECK_INT(parse(&dev, &c, err, "-h", NULL), CLI_HELP);
	CHECK_INT(parse(&sup, &c, err, "--help", NULL), CLI_HELP);
	CHECK_INT(parse(&dev, &c, err, "-V", NULL), CLI_VERSION);
	CHECK_INT(parse(&review, &c, err, "--version", NULL), CLI_VERSION);
}

/* A tool's own options, and only its own. */
static void
test_cli_tools(void)
{
	struct cli c;
	char err[256];

	CHECK_INT(parse(&dev, &c, err, "--issue", "42", "--force", NULL),
	    CLI_RUN);
	CHECK_INT(c.issue, 42);
	CHECK_INT(c.force, 1);
	CHECK_INT(parse(&dev, &c, err, "--issue=7", NULL), CLI_RUN);
	CHECK_INT(c.issue, 7);
	CHECK_INT(parse(&review, &c, err, "--pr", "9", "--force", NULL),
	    CLI_RUN);
	CHECK_INT(c.pr, 9);
	CHECK_INT(c.issue, 0);
	CHECK_INT(parse(&sup, &c, err, "--project", "harb", NULL), CLI_RUN);
	CHECK_STR(c.project, "harb");
	/* --wake: the project file, then the reason. */
	CHECK_INT(parse(&dev, &c, err, "--wake", "p.toml", "stop hook x", NULL),
	    CLI_RUN);
	CHECK_INT(c.wake, 1);
	CHECK_STR(c.project_toml, "p.toml");
	CHECK_STR(c.reason, "stop hook x");
	CHECK_INT(parse(&dev, &c, err, "p.toml", "--wake", NULL), CLI_RUN);
	CHECK_INT(c.wake, 1);
	CHECK(c.reason == NULL);
	CHECK_INT(parse(&sup, &c, err, "--wake", "why", NULL), CLI_RUN);
	CHECK_STR(c.reason, "why");
	CHECK(c.project_toml == NULL);
	CHECK_INT(parse(&dev, &c, err, "p.toml", "why", NULL), CLI_BAD);
	CHECK(strstr(err, "unexpected argument 'why'") != NULL);
	CHECK_INT(parse(&dev, &c, err, "--wake", "a", "b", "c", NULL), CLI_BAD);
	CHECK_INT(parse(&dev, &c, err, "--wake", "--status", NULL), CLI_BAD);
	CHECK(strstr(err, "--wake starts a tick: not with --status") != NULL);
	CHECK_INT(parse(&dev, &c, err, "--wake", "-n", NULL), CLI_BAD);
	CHECK_INT(parse(&dev, &c, err, "--wake", "--issue", "3", NULL),
	    CLI_BAD);
	/* After "--" a reason is a reason, whatever it starts with. */
	CHECK_INT(parse(&dev, &c, err, "--wake", "--run-dir", "/r", "--",
		      "p.toml", "-n --status", NULL),
	    CLI_RUN);
	CHECK_STR(c.run_dir, "/r");
	CHECK_STR(c.project_toml, "p.toml");
	CHECK_STR(c.reason, "-n --status");
	CHECK_INT(c.dry_run + c.status, 0);
	CHECK_INT(parse(&sup, &c, err, "--wake", "--", "-v", NULL), CLI_RUN);
	CHECK_STR(c.reason, "-v");
	CHECK_INT(c.verbose, 0);
	CHECK_INT(parse(&dev, &c, err, "--run-dir", "/r", "--", "p.toml", NULL),
	    CLI_RUN);
	CHECK_STR(c.run_dir, "/r");
	CHECK_INT(parse(&dev, &c, err, "--run-dir", "/r", "--status", NULL),
	    CLI_BAD);
	CHECK_INT(parse(&dev, &c, err, "--pr", "9", NULL), CLI_BAD);
	CHECK_STR(err, "unknown option '--pr'");
	CHECK_INT(parse(&review, &c, err, "--issue", "9", NULL), CLI_BAD);
	CHECK_STR(err, "unknown option '--issue'");
	CHECK_INT(parse(&dev, &c, err, "--project", "harb", NULL), CLI_BAD);
	CHECK_INT(parse(&sup, &c, err, "--force", NULL), CLI_BAD);
	CHECK_STR(err, "unknown option '--force'");
}

/* What the table refuses, with the words the operator reads. */
static void
test_cli_refused(void)
{
	struct cli c;
	char err[256];

	CHECK_INT(parse(&dev, &c, err, "--bogus", NULL), CLI_BAD);
	CHECK_STR(err, "unknown option '--bogus'");
	CHECK_INT(parse(&dev, &c, err, "--issue", NULL), CLI_BAD);
	CHECK_STR(err, "--issue needs N");
	CHECK_INT(parse(&dev, &c, err, "--issue", "x3", NULL), CLI_BAD);
	CHECK_STR(err, "--issue: expected a number from 1 to 2^53-1, got 'x3'");
	CHECK_INT(parse(&dev, &c, err, "--issue", "0", NULL), CLI_BAD);
	CHECK_INT(parse(&review, &c, err, "--pr=-1", NULL), CLI_BAD);
	CHECK_INT(parse(&dev, &c, err, "--dry-run=yes", NULL), CLI_BAD);
	CHECK_STR(err, "--dry-run takes no value");
	/* An alias takes no inline value: "-n=1" is no option. */
	CHECK_INT(parse(&dev, &c, err, "-n=1", NULL), CLI_BAD);
	CHECK_STR(err, "unknown option '-n=1'");
	CHECK_INT(parse(&dev, &c, err, "--log", "syslog", NULL), CLI_BAD);
	CHECK_STR(err, "--log: expected 'file' or 'stderr', got 'syslog'");
	CHECK_INT(parse(&dev, &c, err, "a.toml", "b.toml", NULL), CLI_BAD);
	CHECK_STR(err, "unexpected argument 'b.toml'");
	CHECK_INT(parse(&sup, &c, err, "a.toml", NULL), CLI_BAD);
	CHECK_STR(err, "unexpected argument 'a.toml'");
	CHECK_INT(parse(&dev, &c, err, "--force", NULL), CLI_BAD);
	CHECK_STR(err, "--force goes with --issue");
	CHECK_INT(parse(&review, &c, err, "--force", NULL), CLI_BAD);
	CHECK_STR(err, "--force goes with --pr");
	CHECK_INT(parse(&dev, &c, err, "--json", NULL), CLI_BAD);
	CHECK_STR(err, "--json goes with --status");
	CHECK_INT(parse(&dev, &c, err, "--status", "--issue", "3", NULL),
	    CLI_BAD);
	CHECK_STR(err, "--status runs nothing: not with --issue");
	CHECK_INT(parse(&review, &c, err, "--pr", "3", "--status", NULL),
	    CLI_BAD);
	CHECK_STR(err, "--status runs nothing: not with --pr");
}

/* The usage lines and --help name each tool's own forms and options. */
static void
test_cli_usage(void)
{
	char *u;

	u = cli_usage(&dev);
	CHECK_STR(u,
	    "usage: dev-x [--dry-run] [-v] [PROJECT_TOML]\n"
	    "       dev-x [--dry-run] [-v] --issue N [--force] "
	    "[PROJECT_TOML]\n"
	    "       dev-x --wake [--run-dir DIR] [PROJECT_TOML] [REASON]\n"
	    "       dev-x --status [--json] [--forge] [PROJECT_TOML]\n"
	    "       dev-x --help | --version");
	free(u);
	u = cli_usage(&sup);
	CHECK_STR(u,
	    "usage: sup-x [--dry-run] [-v] [--project NAME]\n"
	    "       sup-x --wake [--run-dir DIR] [--project NAME] [REASON]\n"
	    "       sup-x --status [--json] [--forge] [--project NAME]\n"
	    "       sup-x --help | --version");
	free(u);
	u = cli_options_help(&review);
	CHECK(strncmp(u, "usage: review-x", 15) == 0);
	CHECK(strstr(u, "\n\noptions:\n") != NULL);
	CHECK(strstr(u, "  -n, --dry-run ") != NULL);
	CHECK(strstr(u, "  --pr N ") != NULL);
	CHECK(strstr(u, "with --pr: review a head") != NULL);
	CHECK(strstr(u, "--issue") == NULL);
	CHECK(strstr(u, "--project") == NULL);
	free(u);
	u = cli_options_help(&dev);
	CHECK(strstr(u, "with --issue: ignore the slot") != NULL);
	CHECK(strstr(u, "with --pr") == NULL);
	free(u);
}

/* Whether s starts with prefix. */
static int
starts(const char *s, const char *prefix)
{
	return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Run cli_start() for the words; its exit status, *msg set. */
static int
start(const struct cli_tool *t, char **msg, const char *w0, ...)
{
	struct config cfg;
	struct cli c;
	char *argv[16];
	const char *w;
	va_list ap;
	int argc = 0, rc;

	argv[argc++] = (char *)"tool";
	va_start(ap, w0);
	for (w = w0; w != NULL && argc < 15; w = va_arg(ap, const char *))
		argv[argc++] = (char *)w;
	va_end(ap);
	argv[argc] = NULL;
	rc = cli_start(argc, argv, t, &c, &cfg, msg);
	log_close();
	config_free(&cfg);
	return rc;
}

/* What cli_start() answers itself, and the exit statuses. */
static void
test_cli_start(void)
{
	char *msg, *path = xasprintf("%s/tool.log", dir);
	struct buf b;

	CHECK_INT(start(&dev, &msg, "--help", NULL), CLI_EXIT_OK);
	CHECK(starts(msg, "usage: dev-x [--dry-run]"));
	/* One screen: the settings are in the man pages it names. */
	CHECK(msg != NULL && strstr(msg, "FORGE_TOKEN") == NULL &&
	    strstr(msg, "man 8 dev-x, man 5 disinto-c") != NULL);
	free(msg);
	CHECK_INT(start(&sup, &msg, "-V", NULL), CLI_EXIT_OK);
	CHECK(starts(msg, "sup-x 0."));
	free(msg);
	CHECK_INT(start(&review, &msg, "--bogus", NULL), CLI_EXIT_USAGE);
	CHECK(starts(msg,
	    "review-x: unknown option '--bogus'\n"
	    "usage: review-x [--dry-run]"));
	free(msg);
	/* A bad argument names no project: stderr alone, no log file. */
	buf_init(&b, 0);
	CHECK_INT(file_read(path, 1 << 16, &b), -1);
	buf_free(&b);
	/* A tool of one project refuses to run without one. */
	CHECK_INT(start(&dev, &msg, NULL), CLI_EXIT_USAGE);
	CHECK_STR(msg,
	    "dev-x: no project: give a project file or set "
	    "FORGE_REPO\n");
	free(msg);
	/* A tool of every project runs on: -1. */
	CHECK_INT(start(&sup, &msg, "-n", NULL), -1);
	CHECK(msg == NULL);
	unlink(path);
	free(path);
}

int
main(void)
{
	char *run, *status;

	if (mkdtemp(dir) == NULL)
		return 1;
	run = xasprintf("%s/run", dir);
	status = xasprintf("%s/tool-status", dir);
	setenv("FACTORY_ROOT", dir, 1);
	setenv("DISINTO_RUN_DIR", run, 1);
	unsetenv("FORGE_REPO");
	unsetenv("CODEBERG_REPO");
	unsetenv("PROJECT_NAME");
	unsetenv("DISINTO_LOG");
	RUN(test_cli_common);
	RUN(test_cli_tools);
	RUN(test_cli_refused);
	RUN(test_cli_usage);
	RUN(test_cli_start);
	unlink(status);
	rmdir(run);
	rmdir(dir);
	free(run);
	free(status);
	return check_main();
}
