/*
 * A project paused by an API error (apipause.h), as the ticks of
 * dev-poll and review-poll keep it: a session stopped by an error of the
 * project's (its record, runfiles_api_error()) starts or lengthens the
 * pause and is kept, conversation and all; while the pause holds nothing
 * starts; once it is over each stopped session is told, once
 * (agent_deliver()), to continue where it stopped, and its record goes;
 * an error after that is a recurrence (a longer pause); a turn that
 * completes after the resume ends the pause.
 */
#ifndef APISTOP_H
#define APISTOP_H

#include <time.h>

struct act;
struct apierr;
struct apipause;

/* What a stopped session is told when the pause is over. */
#define APISTOP_RESUME_TEXT                                                 \
	"The API error that stopped your last turn (%s) is over. Continue " \
	"where you stopped.\n"

/*
 * The session (a live one: alive 1, or gone: 0) of project, named who in
 * the log ("#12", "PR #3"), at now: when an API error of the project's
 * stopped it, fold it into the pause and, the pause being over, resume a
 * live session (a gone one's record just goes: its recovery follows,
 * when the pause allows).  1 when the session is the pause's (no other
 * reaction this tick), 0 when it has no such error or is gone, -1 when
 * something failed (logged; the next tick again).
 */
int apistop_session(struct act *, const char *project, const char *session,
    int alive, const char *who, time_t now);
/*
 * Record for session an API error read on its screen, as its hook would
 * have.  0 or -1.
 */
int apistop_record(struct act *, const char *session, const struct apierr *);
/*
 * The project's pause as of now into *p (may be NULL): 1 while it holds
 * launches back (logged once: "paused: REASON since ... until ..."), 0
 * when there is none or it is over (marked so; ended when a turn
 * completed since the resume or a day passed without a recurrence), -1
 * when it cannot be read (logged: nothing is launched on it).
 */
int apistop_paused(struct act *, const char *project, time_t now,
    struct apipause *p);

#endif
