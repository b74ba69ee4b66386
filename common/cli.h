/*
 * What the three executables share at start-up: the command line
 * `[--dry-run] [-v] [PROJECT_TOML]`, loading the configuration, and
 * pointing the run files, HTTP and tmux modules at it.  Printing and
 * exiting stay with each main().
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

struct config;

struct cli {
	int dry_run;
	int verbose;
	const char *project_toml; /* argv element, or NULL */
};

/* Exit statuses shared by every executable (DESIGN section 9). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/*
 * Parse argv.  takes_project says whether a PROJECT_TOML operand is
 * allowed.  Returns 0, 1 when -h was given (print the usage, exit 0), or
 * -1 with err set (print it and the usage, exit 2).
 */
int cli_parse(int argc, char *argv[], int takes_project, struct cli *out,
    char *err, size_t errsz);
/* The usage line for the named program.  Caller frees. */
char *cli_usage(const char *prog, int takes_project);
/*
 * Load the configuration for cli (and project_toml, overriding cli's own
 * when not NULL) and apply it: run files, HTTP timeouts, tmux socket and
 * temp directory.  Returns 0, or -1 with err set (a configuration error:
 * exit 2).  Free cfg with config_free() either way.
 */
int cli_configure(struct config *cfg, const struct cli *cli,
    const char *project_toml, const char *exe, char *err, size_t errsz);
/*
 * All of the above in one step for main(): parse, configure, open the
 * log (log_path_fn names it from the configuration; rotated past
 * rotate_bytes, messages prefixed with log_prefix) and log the warnings.
 * A tool taking a project operand refuses to run without a project
 * (exit 2).  Returns -1 when the tick should go on, else the exit status,
 * with the text to print in msg (to stderr when the status is not 0).
 */
int cli_start(int argc, char *argv[], const char *prog, int takes_project,
    char *(*log_path_fn)(const struct config *), const char *log_prefix,
    size_t rotate_bytes, struct cli *cli, struct config *cfg, char *msg,
    size_t msgsz);
/* Log the configuration warnings (unknown keys and the like). */
void cli_log_warnings(const struct config *);
/*
 * The guard of the bash scripts: 1 when $FACTORY_ROOT/state/.<agent>-active
 * exists, else 0 (after logging the skip).
 */
int cli_agent_active(const char *agent);

#endif
