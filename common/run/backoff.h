/*
 * The back-off of an issue whose launch failed for a reason of its own
 * (its comments over the body cap, its worktree path taken by another
 * user, its worktree or prompt that cannot be made): a record per issue
 * in the run directory (runfiles_launch_backoff()), "KEY: value" lines
 * (record.h):
 *
 *   FAILURES: 2            launches that failed so, in a row
 *   NEXT: 1700001200       not tried again before this time (epoch)
 *   REASON: ...            the last one's reason, one line
 *
 * The wait after the n-th failure is BACKOFF_FIRST_S doubled n - 1
 * times, at most BACKOFF_MAX_S.  dev-poll writes and removes the
 * record; --status reads it.
 */
#ifndef BACKOFF_H
#define BACKOFF_H

#include <stddef.h>
#include <time.h>

/* The first wait, and the longest. */
#define BACKOFF_FIRST_S (10 * 60)
#define BACKOFF_MAX_S (6 * 60 * 60)

/* An issue's back-off.  All zero (and "") when it has none. */
struct backoff {
	long long failures;
	time_t next;
	char reason[256];
};

/* The wait, in seconds, after failures launches failed in a row. */
long long backoff_delay(long long failures);
/*
 * Read the record at path into *b.  0 (all zero when there is none), or
 * -1 with errno set when it is there but cannot be read.
 */
int backoff_read(const char *path, struct backoff *b);
/*
 * One more failure, at now, for reason (made one printable line, cut to
 * fit): failures counted, the next try set.
 */
void backoff_fail(struct backoff *b, time_t now, const char *reason);
/* The record's text.  Caller frees. */
char *backoff_text(const struct backoff *b);

#endif
