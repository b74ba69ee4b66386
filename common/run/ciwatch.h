/*
 * The run files of a CI watcher (DESIGN section 13): the process that
 * waits for the CI of a session's PR head to end where no forge webhook
 * says so (common/tick/ciwake.h).  One per issue, made single by a lock
 * (runfiles_ci_watch_lock(), held while it runs: liveness is the lock,
 * lock.h) and described by a record beside it (runfiles_ci_watch()),
 * "KEY: value" lines (record.h) written once the lock is held and
 * removed before it is let go of:
 *
 *   PID: 4242          the watcher
 *   PR: 12             the PR and the head it watches
 *   SHA: 0123abcd...
 *   SINCE: 1700000000  when it started (epoch)
 *
 * The tick that starts a watcher asks here whether one runs already, for
 * which head, and whom to stop; --status shows it.
 */
#ifndef CIWATCH_H
#define CIWATCH_H

#include <time.h>

/* The longest SHA kept (a SHA-256 object name). */
#define CIWATCH_SHA_MAX 64

/* A running watcher as its record says. */
struct ciwatch {
	long long pid; /* 0: no record of the lock's holder (starting) */
	long long pr;
	char sha[CIWATCH_SHA_MAX + 1];
	time_t since;
};

/*
 * Whether a watcher holds the lock of issue's, asked without writing
 * anything: 1 with its record in *w (w->pid 0 when the holder has not
 * written it yet), 0 none runs, -1 unknown (errno set).
 */
int ciwatch_find(const char *project, long long issue, struct ciwatch *w);
/* 1 when w is the record of a watcher of head sha of PR pr, else 0. */
int ciwatch_is(const struct ciwatch *w, long long pr, const char *sha);
/*
 * Take the watcher lock of issue, waiting at most wait_s seconds for its
 * holder to let go (0: not at all): 0 taken (*fd holds it), 1 still
 * held, -1 on error (errno set).
 */
int ciwatch_take(const char *project, long long issue, int wait_s, int *fd);
/*
 * The record of this process watching head sha of PR pr since now,
 * written atomically (the lock held).  0, or -1 with errno set.
 */
int ciwatch_note(const char *project, long long issue, long long pr,
    const char *sha, time_t now);
/* The record removed, then the lock on fd let go of and removed. */
void ciwatch_release(const char *project, long long issue, int fd);

#endif
