/*
 * Ticks started by the events that end a wait (DESIGN section 1, "Who
 * starts a tick"): `EXE --wake [--run-dir DIR] [PROJECT_TOML] [REASON]`
 * (its command line: wakecmd.h) starts a tick in the background and
 * returns at once, or, while a tick of that tool and project holds its
 * tick lock, leaves a wake that makes that tick run its steps once more
 * when it ends.  The wake and the tick it starts run with the settings
 * the scheduled ticks recorded in the run directory (tickenv.h), not
 * with the waker's environment.
 *
 * The protocol, through the wake file (runfiles_wake()) and the tick
 * lock:
 *   the waker writes the wake file, then tries the lock without waiting:
 *     taken, it lets it go and starts a detached tick; held, it is done;
 *   a tick consumes the wake file when it starts a pass (so the schedule's
 *     next tick consumes a wake whose tick never ran), and after its
 *     steps runs another pass while one is there; after it lets go of the
 *     lock it looks once more, and takes the lock again for a wake that
 *     arrived meanwhile.
 * Either the waker's try comes after the release (it starts a tick) or
 * before it (the wake was written before the tick's last look): no wake
 * is lost, and any number of wakes during one pass cost one more pass.
 * A tick runs at most WAKE_MAX_PASSES passes; a wake left then is the
 * next tick's.
 */
#ifndef WAKE_H
#define WAKE_H

#include <stddef.h>

struct tick;

/* The most passes one tick runs. */
#define WAKE_MAX_PASSES 10
/* A reason is kept to this many bytes (printable ASCII). */
#define WAKE_REASON_MAX 120

/* Record a wake (reason may be NULL) in the wake file path.  0 or -1. */
int wake_note(const char *path, const char *reason);
/*
 * Consume the wake at path: 1 with its reason in reason (reasonsz
 * bytes), 0 when there is none, -1 when it cannot be taken.
 */
int wake_take(const char *path, char *reason, size_t reasonsz);
/* Whether a wake waits at path. */
int wake_pending(const char *path);

/*
 * The --wake command of tool t, configured: its exit status.  Without
 * the tool's guard flag the wake only logs.
 */
int wake_run(struct tick *t);

/*
 * For tests only: with DISINTO_TEST_WAKE_HOLD=POINT:PATH in the
 * environment, a tick at point ("pass": a pass ended, before it looks
 * for a wake; "release": about to let go of its lock) creates PATH.at and
 * waits until PATH exists (at most two minutes), once per process.
 * Unset, nothing.
 */
void wake_hold(const char *point);

#endif
