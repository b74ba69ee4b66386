/*
 * A project paused by an API error (apipause.h), as the ticks of
 * dev-poll and review-poll keep it: a session stopped by an error of the
 * project's (its record, runfiles_api_error()) starts or lengthens the
 * pause and is kept, conversation and all; while the pause holds nothing
 * starts; once it is over each stopped session is told, once
 * (agent_deliver()), to continue where it stopped, and its record goes;
 * an error after that is a recurrence (a longer pause); a turn that
 * completes after the resume ends the pause.
 *
 * An error that may be either's (api_error.h: "unknown", a name the
 * table does not have) is judged by evidence first: another session of
 * the factory completed a turn (its Stop hook's idle mark) after the
 * error, or the session meets the same error again after it was resumed
 * from it: the API serves the others, so the error is the issue's own,
 * and the session fails (PHASE:failed) instead of pausing the project
 * (a pause it began, not yet resumed, ends).  Without such evidence it
 * is the project's.
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

struct config;
/*
 * The configuration whose settings the API probe of apistop_session()
 * uses (AGENT_API_PROBE, the agent's ANTHROPIC_API_KEY and
 * ANTHROPIC_BASE_URL, CLAUDE_MODEL); NULL, or never set: no probe.
 */
void apistop_use(const struct config *cfg);
/*
 * The session (a live one: alive 1, or gone: 0) of project, named who in
 * the log ("#12", "PR #3"), whose phase file is phase_path, at now: when
 * an API error stopped it, judge whose it is; the project's is folded
 * into the pause and, the pause being over, a live session resumed (a
 * gone one's record just goes: its recovery follows, when the pause
 * allows).  1 when the session is the pause's (no other reaction this
 * tick), 2 when the error was the (its phase now says failed:
 * read it again), 0 when it has no such error or is gone, -1 when
 * something failed (logged; the next tick again).  A rate limit, an
 * overload or an error of either's is probed once (one request to the
 * model API, its status and retry-after kept in the pause): a success
 * makes an error of either's the and ends the project's pause;
 * a retry-after holds the pause at least that long.
 */
int apistop_session(struct act *, const char *project, const char *session,
    const char *phase_path, int alive, const char *who, time_t now);
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
