/*
 * What the three executables share at start-up: the command line (one
 * table of options, cli.c, drives parsing, the usage lines and --help),
 * the PATH of lib/env.sh, loading the configuration, pointing the run
 * files, HTTP and tmux modules at it, the log, and `--status`: every
 * configuration, usage or start-up error is written to the tool's log
 * file and status file too, because cron throws stderr away.  Printing
 * and exiting stay with each main().
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

struct config;
struct sandbox_conf;
struct status_file;

/* The options a tool takes beyond the common ones (cli_tool.opts). */
#define CLI_OPT_ISSUE 0x1   /* dev-poll --issue N [--force] */
#define CLI_OPT_PR 0x2	    /* review-poll --pr N [--force] */
#define CLI_OPT_PROJECT 0x4 /* supervisor-poll --project NAME */
#define CLI_OPT_DEV_AGENTS                                 \
	0x8 /* it starts dev agents (--check: their token) \
	     */

struct cli {
	int dry_run;
	int verbose;
	const char *project_toml; /* argv element, or NULL */
	int status;		  /* --status: print the report, no tick */
	int json;		  /* --json: the report as JSON */
	long long issue;	  /* --issue N: that issue now, else 0 */
	long long pr;		  /* --pr N: that PR now, else 0 */
	int force;		  /* --force (with --issue or --pr) */
	const char *project;	  /* --project NAME (argv element), or NULL */
	const char *log;	  /* --log DEST: "file", "stderr", or NULL */
	int check;		  /* --check: the configuration, no tick */
	int forge;		  /* --forge (with --check): ask the forge */
	int wake;		  /* --wake: start a tick, or leave a wake */
	const char *reason;	  /* --wake's REASON operand, or NULL */
};

/* What an executable tells cli_start() about itself. */
struct cli_tool {
	const char *prog;  /* "dev-poll" */
	int takes_project; /* a PROJECT_TOML operand, and a project needed */
	/* The log file, or NULL when there is none (no project). */
	char *(*log_path)(const struct config *);
	/* The one-line status file, or NULL (no such file). */
	char *(*status_path)(const struct config *);
	const char *log_prefix; /* "poll: " or "" */
	size_t rotate_bytes;	/* the log is rotated past this size */
	unsigned opts;		/* CLI_OPT_* */
	/* What --status shows of the tools' own files (status.h). */
	const struct status_file *report;
};

/* Exit statuses shared by every executable (DESIGN section 9). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* What the command line asks for. */
enum cli_parsed {
	CLI_BAD = -1,	/* an error: print it and the usage, exit 2 */
	CLI_RUN = 0,	/* run a tick (or a one-shot, or --status) */
	CLI_HELP = 1,	/* print the usage and the settings, exit 0 */
	CLI_VERSION = 2 /* print the version, exit 0 */
};

/*
 * Parse argv for tool t (its PROJECT_TOML operand and opts).  err is set
 * for CLI_BAD.
 */
enum cli_parsed cli_parse(int argc, char *argv[], const struct cli_tool *t,
    struct cli *out, char *err, size_t errsz);
/* The usage lines of tool t.  Caller frees. */
char *cli_usage(const struct cli_tool *t);
/* The usage lines and the options of tool t, for --help.  Caller frees. */
char *cli_options_help(const struct cli_tool *t);
/*
 * Load the configuration for cli (and project_toml, overriding cli's own
 * when not NULL) and apply it: run files, HTTP timeouts, tmux socket and
 * temp directory.  Returns 0, or -1 with err set (a configuration error:
 * exit 2).  Free cfg with config_free() either way.
 */
int cli_configure(struct config *cfg, const struct cli *cli,
    const char *project_toml, const char *exe, char *err, size_t errsz);
/*
 * Choose and configure the agent backend of cfg's [agent] protocol
 * (agent_use()).  0, or -1 with err set (a configuration error).
 */
int cli_agent_use(const struct config *cfg, char *err, size_t errsz);
/*
 * The confinement of agents from cfg into sc (sandbox.h); exe (exesz
 * bytes) holds the running executable's path sc points to.
 */
void cli_sandbox_conf(const struct config *cfg, struct sandbox_conf *sc,
    char *exe, size_t exesz);
/*
 * All of the above in one step for main(): put lib/env.sh's PATH into
 * the environment, parse, configure, open the log and log the
 * configuration's warnings (and with -v its notes).  A tool taking a
 * project refuses to run without one (exit 2), except for --status,
 * which is answered here: the report of cli_status().  Returns -1 when
 * the tick (or one-shot) should go on, else the exit status, with the
 * text to print in *msg (to stdout when the status is 0, else to
 * stderr; caller frees; NULL when there is none); a failure is also
 * logged and put in the status file (see cli_fail()).  Before anything
 * else, a first argument naming a mode of agent sessions
 * (AGENT_EXEC_MODE, the wrapper of an agent; AGENT_HOOKS_MODE, its
 * hooks) or the tmux server's (CLI_TMUX_SERVER_MODE) runs that mode,
 * whose exit status is returned.
 */
int cli_start(int argc, char *argv[], const struct cli_tool *tool,
    struct cli *cli, struct config *cfg, char **msg);

/* The mode that starts the agents' tmux server (common/tick/tmuxserver.c). */
#define CLI_TMUX_SERVER_MODE "--tmux-server"
/*
 * Run as `PROG --tmux-server`: start the tmux server (DISINTO_TMUX_SOCKET's,
 * "disinto" by default) with the non-secret part of the factory's .env as
 * its environment (config_server_env()), "exit-empty off", and return: 0,
 * 1 when tmux
 * failed, 2 on a configuration error, the reason in *msg (caller frees).
 */
int cli_tmux_server(const struct cli_tool *t, int argc, char *argv[],
    char **msg);
/*
 * The `--status` report (common/tick/status.h) of the project cfg was loaded
 * for when a project file was given, else of every project file (with
 * cli->project, only the one of that name; without project files, the
 * environment's project), as text or, with cli->json, JSON, with the
 * lines of the tools' files of report.  Returns 0 with *out set, or
 * CLI_EXIT_USAGE with err set (no project of that name).  Caller frees
 * *out.
 */
int cli_status(const struct cli *cli, const struct config *cfg, const char *exe,
    const struct status_file *report, char **out, char *err, size_t errsz);
/*
 * Load the project files of $FACTORY_ROOT/projects (.toml, sorted) for
 * exe, or with only set the one whose project is called only (a broken
 * file of another name is then passed over), into *out (*n of them; free
 * each with config_free(), then the array).  Without project files *n is
 * 0, and only must then name base's own project.  Returns 0, or -1 with
 * err set: a file that cannot be loaded (file:line), or no project of
 * that name.
 */
int cli_projects_load(const struct config *base, const char *exe,
    const char *only, struct config **out, size_t *n, char *err, size_t errsz);
/*
 * Report a failure to start where the operator looks: the tool's log
 * (opened for it when no log is open yet) and its status file ("failing:
 * why"), for cfg as far as it was loaded.  Returns CLI_EXIT_USAGE.
 */
int cli_fail(const struct cli_tool *tool, const struct config *cfg,
    const char *why);
/* Log the configuration's warnings, and its notes when verbose. */
void cli_log_warnings(const struct config *, int verbose);

#endif
