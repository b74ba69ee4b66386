/*
 * The lifecycle of one run of an executable, the same for every tool
 * (DESIGN section 9): the command line and the configuration
 * (cli_start()), the metrics file (promtick.h), the active guard, the
 * tick lock, the tool's steps, the verdict on its writes in the status
 * file, the exit status and, at -v, what the tick cost.  A tool is a
 * struct tick_tool (its name, files, lock, one-shot and steps); its
 * main() is tick_main() and printing what that returns.
 *
 * The order, for a tick cron runs:
 *   cli_start (a mode of agent sessions, --help, --version and --status
 *     end here), the metrics file opened (not for a dry run, a one-shot
 *     or a run that could not start for want of a factory);
 *   the guard: without $FACTORY_ROOT/state/.<guard>-active the tick
 *     logs "<guard> not active — skipping" and exits 0 ("inactive");
 *   load (before the lock: what must be valid before anything runs);
 *   the tick lock: held by another tick, exit 0 ("locked");
 *   open, then run (or the one-shot), the writes' verdict
 *     (act_tick_failed()), close; a GET that brought no data back (no
 *     answer, 5xx, 401, 403, 429: a decision was "unknown") logs its
 *     cause, naming the setting to fix, and a tick that would have
 *     exited 0 exits 1 ("degraded");
 *   while a wake came (wake.h), load and the steps again, at most
 *     WAKE_MAX_PASSES times in all;
 *   the metrics file written with the exit status and the result.
 * `--wake` runs wake_run() in place of the guard and what follows.
 * A one-shot (--issue N, --pr N) is run by a person: no guard, no
 * metrics, and the lock is waited for (or taken by the one-shot itself).
 */
#ifndef TICK_H
#define TICK_H

#include "cli.h"
#include "config.h"

struct act;
struct promtick;
struct promtick_family;
struct tick;

/* What a tool is: its description and its steps. */
struct tick_tool {
	struct cli_tool cli; /* name, options, log and status files */
	/* The guard's name ("dev": state/.dev-active), or NULL: no guard. */
	const char *guard;
	/* The tick lock's file, of the project (or NULL).  Caller frees. */
	char *(*lock_path)(const char *project);
	/* Logged when another tick holds the lock ("%s": its path), or NULL. */
	const char *lock_held;
	int dry_run_unlocked; /* a dry run takes no lock (and says so) */
	/* A one-shot waits this long for the lock; 0: it takes it itself. */
	int oneshot_lock_s;
	/*
	 * Its own families of the tick's metrics (promtick.h), whose file is
	 * the project's (a tool of every project: --project's, or the
	 * host's).
	 */
	const struct promtick_family *metrics;
	/* The size of the state main() gives (zeroed between passes). */
	size_t ctx_size;

	/* The steps, in the order they run; NULL where a tool has none. */
	/* Before the lock: -1 to go on, else the exit status (msg set). */
	int (*load)(struct tick *);
	/* Set up its state in ctx, and act: its effects (or NULL). */
	void (*open)(struct tick *);
	/* The one-shot (cli.issue or cli.pr); its exit status. */
	int (*oneshot)(struct tick *);
	/* The tick: its exit status (CLI_EXIT_OK or CLI_EXIT_FAIL). */
	int (*run)(struct tick *);
	/* Free its state: after open, or after load alone (no lock). */
	void (*close)(struct tick *);
};

/* One run of a tool, as its steps see it. */
struct tick {
	const struct tick_tool *tool;
	const char *exe;       /* argv[0] */
	struct config cfg;     /* the configuration (of the environment, for
				  a tool over every project) */
	struct cli cli;	       /* the command line */
	void *ctx;	       /* the tool's own state, as main() gave it */
	struct act *act;       /* its effects (set by open), or NULL */
	struct promtick *prom; /* this tick's metrics, or NULL: none */
	char *msg;	       /* the text main() prints, or NULL */
	char *note;	       /* a line for stderr (tick_main()), or NULL */
	char *cause;	       /* why a read failed (cause.h), or NULL */
	const char *result;    /* PROMTICK_LOCKED, _INACTIVE, or NULL */
	int lockfd;	       /* the tick lock, or -1 */
	char *lockpath;	       /* its file (removed at the end), or NULL */
	long long start_ms;    /* CLOCK_MONOTONIC at the start */
	int passes;	       /* the passes of its steps run (wake.h) */
};

/*
 * Run tool once for argv with its state in ctx (zeroed by the caller).
 * Returns the exit status, with the text to print in *msg: to stdout
 * when the status is 0, else to stderr; and in *note (may be NULL: not
 * wanted) a line for stderr whatever the status (a skipped tick's
 * reason, for cron's mail).  NULL when there is none; caller frees.
 */
int tick_main(const struct tick_tool *tool, void *ctx, int argc, char *argv[],
    char **msg, char **note);
/* Whether this run is a one-shot (--issue N, --pr N). */
int tick_oneshot(const struct tick *);

#endif
