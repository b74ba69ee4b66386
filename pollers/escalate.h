/*
 * Escalations to a person (DESIGN section 6, the escalate row), one pass
 * over a project's phase files that dev-poll runs every tick and
 * supervisor-poll runs too: for every dev session in PHASE:escalate the
 * notice on the issue, the conversation parked (its agent ended, the
 * project's slot free), a person's reply kept for the resume (dev-poll's
 * resume.c) or injected into a session that could not be parked, the
 * reminder after 6 hours and the timeout after 24.  Either tool alone
 * does it all; when both run, the project's escalation lock lets one
 * pass act at a time, and the run files and the comments' markers make
 * every step happen once.
 */
#ifndef ESCALATE_H
#define ESCALATE_H

#include <stddef.h>
#include <time.h>

#include "act.h"

struct config;
struct forge;

/* The clocks run from the escalation (the phase file's mtime). */
#define ESCALATE_RENOTIFY_S (6 * 3600)
#define ESCALATE_TIMEOUT_S (24 * 3600)

/*
 * The key of a kept reply's message in the session's mailbox starts so
 * (then the comment's id, the escalation's time and a hash of the reply):
 * escalate.c writes it, dev-poll's resume finds the reply by it.
 */
#define ESCALATE_REPLY_KEY_PREFIX "reply "

/* What an escalation's clock calls for. */
enum escalate_due {
	ESCALATE_WAIT,
	ESCALATE_RENOTIFY, /* remind: no answer after 6 hours */
	ESCALATE_TIMEOUT   /* give up: blocked, session stopped (24 hours) */
};

/* An escalated dev session found alive (or parked) by a pass. */
struct esc_target {
	char *project;
	long long issue;
	char *session;
	char *phase_path;
	time_t since; /* when the agent escalated */
	int parked;   /* its agent ended, its conversation kept (park.c) */
};

/* A pass's context: the caller's, for one project at a time. */
struct escalation {
	const struct config *cfg; /* the project */
	struct forge *forge;	  /* its forge */
	struct act *act;	  /* side effects, on that forge */
	time_t now;
	/* A check that could not be completed (msg: what); may be NULL. */
	void (*fail)(void *arg, const char *msg);
	/* A fix applied (msg: what); may be NULL. */
	void (*fixed)(void *arg, const char *msg);
	void *arg;
	int failed; /* some step could not be completed (logged) */
	/*
	 * What the other tool is woken for (DESIGN section 13): notices
	 * posted now (supervisor-poll), replies kept now for a parked
	 * conversation's resume (dev-poll, who resumes).
	 */
	int noticed;
	int kept;
	/*
	 * The escalated sessions found, live or parked, kept across passes
	 * (supervisor-poll's legacy reply file routes to them).
	 */
	struct esc_target *esc;
	size_t nesc;
};

/*
 * The clock of an escalation age seconds old, answered when a person's
 * reply reached the session (or no one is left to remind for).
 */
enum escalate_due escalate_due(long long age, int answered);
/*
 * One pass over s->cfg's escalations.  0; 1 when the other tool's pass
 * holds the project's escalation lock (it does the work); -1 when the
 * lock cannot be taken (logged).  A step that fails sets s->failed.
 */
int escalate_check(struct escalation *s);
/*
 * Pass a person's reply (source: as the session is told, "comment by
 * @x"; what: as the log says) to the escalated session t, and remember
 * comment id (0: none) as its answer, so that no reminder follows.
 */
enum act_inject escalate_answer(struct escalation *, const struct esc_target *t,
    long long id, const char *source, const char *what, const char *reply);
/* Forget the escalated sessions found. */
void escalate_free(struct escalation *);

/* park.c: escalated conversations parked while they wait. */
/* 1 when the escalation since of issue is parked, else 0. */
int park_is(const char *project, long long issue, long long since);
/*
 * Park t's conversation when it can be resumed (its Claude session id
 * kept after the escalation; not the checkpoint protocol): the parked
 * record written, the agent ended.  1 parked, 0 not parkable, -1 a step
 * failed (logged by the effect layer).
 */
int park_session(struct escalation *, const struct esc_target *t,
    const char *reason);
/*
 * Keep a person's reply (key, and text: the whole message) for the
 * resume of parked t: ACT_INJECTED when it is kept (now or before),
 * ACT_INJECT_LATER when another reply already waits, ACT_INJECT_DRY,
 * or ACT_INJECT_FAILED.
 */
enum act_inject park_reply(struct escalation *, const struct esc_target *t,
    const char *key, const char *text);
/* Remove the parked record and the reply waiting of issue. */
void park_forget(struct escalation *, const char *project, long long issue);

/* The pass's own report of a failed step, and of a fix (escalate.c). */
void escalate_fail(struct escalation *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void escalate_fixed(struct escalation *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

#endif
