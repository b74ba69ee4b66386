/*
 * The CI watcher (DESIGN section 13, "CI final"): where no forge webhook
 * says that a commit's CI ended (Forgejo, Gitea before 1.23, Woodpecker
 * itself: README, "CI's end without a webhook"), the tick that finds a
 * session waiting on CI at its PR's head makes sure one watcher runs for
 * that head: `EXE --ci-watch PROJECT_TOML ISSUE PR SHA`, this executable
 * started detached (PROJECT_TOML "" for the environment's project).
 *
 * The watcher holds the issue's watcher lock (common/run/ciwatch.h:
 * one per issue; a watcher of another head is stopped by the tick that
 * starts the new one, which waits for the lock a few seconds), and reads
 * the head's CI as a tick reads it (ci_read_fresh(), the rule of
 * ci_final()) at most once every CIWAKE_INTERVAL_S seconds: its first
 * look that long after it starts, the next that long after the last,
 * times the requests that look took (a look is one request while the
 * head has its Woodpecker pipeline), doubled for each unreadable look in
 * a row up to CIWAKE_BACKOFF_MAX times.  When CI is final it wakes the
 * tool (`EXE --wake PROJECT_TOML "ci final PR#N SHA"`, wake.h), marks
 * the head in the CI memo's marks as a webhook would (cimemo.h), and
 * exits.  It also exits, reading nothing more:
 *
 *   - when the session stops waiting on this head: its phase file gone
 *     (the session cleaned) or no longer PHASE:awaiting_ci, or the CI
 *     result already told for the head (ci-result-P-N: a webhook's wake
 *     came first); the phase file is the agent's claim, and all it can
 *     do with it here is end its own watcher early (the schedule's ticks
 *     remain);
 *   - after CI_TIMEOUT_S, waking the tool for its CI timeout notice;
 *   - after CIWAKE_UNKNOWN_MAX unreadable looks in a row (the forge or
 *     the head gone: a failed read is never taken for an answer);
 *   - on SIGTERM (the tick stopping it: the session ended, or another
 *     head is watched).
 *
 * A wake when a webhook woke the tool already costs a tick that finds
 * nothing to do.  No HTTP request is retried inside a look: the next
 * look is the retry.
 */
#ifndef CIWAKE_H
#define CIWAKE_H

struct act;
struct cli_tool;
struct config;

/* The first argument that runs the watcher. */
#define CIWAKE_MODE "--ci-watch"
/*
 * The budget: at most one look (one request, as a rule) per head every
 * this many seconds.  DISINTO_TEST_CI_WATCH_S shortens it in tests.
 */
#define CIWAKE_INTERVAL_S 15
/* The longest wait is the interval times this, after unreadable looks. */
#define CIWAKE_BACKOFF_MAX 8
/* Unreadable looks in a row after which the watcher gives up. */
#define CIWAKE_UNKNOWN_MAX 8
/* How long a new watcher waits for the one it replaces to let go. */
#define CIWAKE_HANDOVER_S 5

/* A session waiting on CI, as the tick that found it knows it. */
struct ciwake_head {
	long long issue;
	long long pr;
	const char *sha;
};

/*
 * Make sure one watcher runs for h (cfg: the tick's configuration, its
 * project file the watcher's): nothing when one runs for this head or
 * is starting, or when cfg turns wakes off (DISINTO_WAKE=false); else a
 * watcher of another head is stopped and one started, through act (a
 * dry run starts nothing).  0, or -1 (logged; a start that failed counts
 * as act's failure).
 */
int ciwake_ensure(struct act *, const struct config *cfg,
    const struct ciwake_head *h);
/* Stop the watcher of issue's session, if one runs (through act). */
void ciwake_stop(struct act *, const struct config *cfg, long long issue);
/*
 * The seconds to the next look after one that took requests requests,
 * the unknown-th unreadable look in a row (0: it was read), at interval.
 */
long long ciwake_delay(int interval, unsigned long requests, int unknown);
/*
 * Run tool t as `EXE --ci-watch PROJECT_TOML ISSUE PR SHA` (argv[0] the
 * executable, argv[1] CIWAKE_MODE), logging to t's log: the exit status
 * (0 done, also when another watcher has the head; 1 a run-time
 * failure; 2 a usage or configuration error, said in *msg, which the
 * caller prints to stderr and frees; else NULL).
 */
int ciwake_main(const struct cli_tool *t, int argc, char *argv[], char **msg);

#endif
