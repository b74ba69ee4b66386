/*
 * A project paused by an API error of the agent CLI's (api_error.h: the
 * account's or the service's, not an issue's), and each session's record
 * of the error that stopped it.  Both are "KEY: value" records
 * (record.h) in the run directory (runfiles.h):
 *
 * The session's record (runfiles_api_error(): api-error-S), written by
 * its StopFailure hook, or by a tick that read the error on its screen:
 *
 *   ERROR: rate_limit     the error's name (api_error.h)
 *   AT: 1700000000        when it stopped the session
 *   RESET: 1700003600     when the limit resets, when it said (else 0)
 *   SOURCE: hook          "hook" or "screen"
 *
 * The project's pause (runfiles_api_pause(): api-pause-P), written by the
 * ticks of dev-poll and review-poll:
 *
 *   SINCE: 1700000000     when the pause began
 *   UNTIL: 1700000300     no session starts, none is resumed, before
 *   REASON: rate_limit    the last error's name
 *   COUNT: 1              pauses in a row: the back-off's step
 *   RESUMED: 0            when the stopped sessions were told to go on
 *                         (0: not yet)
 *   PROBED: 1700000001    when one request probed the API (0: not)
 *   PROBE: 429            its status (0: none)
 *   RETRY_AFTER: 3600     its retry-after in seconds (-1: none)
 *
 * The wait is APIPAUSE_FIRST_S doubled COUNT - 1 times, at most
 * APIPAUSE_MAX_S, and never before the limit's own reset.  Once UNTIL is
 * past the sessions are resumed; an error after that (a record AT or
 * after RESUMED) is a recurrence: COUNT + 1.  A turn that completes
 * after RESUMED (its Stop hook's idle mark) ends the pause: the record
 * goes.
 */
#ifndef APIPAUSE_H
#define APIPAUSE_H

#include <stddef.h>
#include <time.h>

/* The first wait, and the longest. */
#define APIPAUSE_FIRST_S (5 * 60)
#define APIPAUSE_MAX_S (2 * 60 * 60)

/* A session's API error.  All zero ("") when it has none. */
struct apierr {
	char error[64];
	time_t at;
	time_t reset;
	char source[16];
};

/* A project's pause.  All zero ("") when it has none. */
struct apipause {
	time_t since;
	time_t until;
	char reason[64];
	long long count;
	time_t resumed;
	time_t probed;	       /* when the API was probed for it (0: not) */
	long probe;	       /* the probe's status (0: none, no answer) */
	long long retry_after; /* its retry-after in seconds (-1: none) */
};

/* What apipause_note() made of an error. */
enum apipause_change {
	APIPAUSE_SAME,	     /* the pause holds it already */
	APIPAUSE_NEW,	     /* a new pause */
	APIPAUSE_RECURRENCE, /* after a resume: a longer one */
	APIPAUSE_RESUME	     /* the pause is over: resume the session */
};

/* The wait after count pauses in a row. */
long long apipause_delay(long long count);
/*
 * Read a record at path into *e.  1 read, 0 none (all zero), -1 (errno
 * set) when it is there but cannot be read.
 */
int apierr_read(const char *path, struct apierr *e);
/* A record's text.  Caller frees. */
char *apierr_text(const struct apierr *e);
/* The same for a pause. */
int apipause_read(const char *path, struct apipause *p);
char *apipause_text(const struct apipause *p);
/* 1 when p holds launches back at now (a pause whose UNTIL is ahead). */
int apipause_active(const struct apipause *p, time_t now);
/*
 * Fold a session's error e into the pause p at now: a new pause, a
 * recurrence (e after the resume), the same pause, or, the pause being
 * over and e from before its resume, the session's turn to go on.
 */
enum apipause_change apipause_note(struct apipause *p, const struct apierr *e,
    time_t now);
/*
 * "rate_limit since 2024-01-01 10:00:00 UTC until 10:05:00 UTC (pause 2)"
 * into out.
 */
void apipause_describe(const struct apipause *p, char *out, size_t outsz);

#endif
