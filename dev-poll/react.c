/*
 * Phase reactions (DESIGN section 6, the rows dev-poll owns), one cron
 * tick at a time: for every phase file of the project, what it calls for
 * is decided from the facts (rx_reaction(): a dead or stuck session is
 * recovered first and gets no injection, as is one whose agent's own
 * progress report went stale; a session without a phase gets the idle
 * check), then the reaction runs (rx*.c, recover.c).
 * PHASE:awaiting_review and PHASE:escalate belong to review-poll and
 * the escalation pass (resume.c); their PR is still remembered, so that a
 * merge or a close behind the session's back is found (reactpr.c).  A parked
 * escalation (resume.c) has no session on purpose: no crash; one whose
 * session lives again has its resume finished.  A phase this
 * tool does not know is logged once per value and counts as no phase
 * yet, so the crash and idle clocks end it.  Every reaction is keyed so
 * that a repeated tick repeats nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "parked.h"
#include "react.h"
#include "runfiles.h"
#include "xmalloc.h"

static int react_exited(const struct rx *);
static int react_stalled(const struct dev_ctx *, const struct rx *);
static void react_unknown(struct dev_ctx *, const struct rx *);
static int react_run(struct dev_ctx *, struct rx *, enum rx_reaction,
    const char *);
static int react_parked(struct dev_ctx *, struct rx *, int *);
static int react_one(struct dev_ctx *, long long);

enum rx_reaction
rx_reaction(enum phase ph, int alive, int exited, long long age,
    long long timeout, const char **cause)
{
	*cause = NULL;
	switch (ph) {
	case PHASE_DONE:
		return RX_DONE;
	case PHASE_FAILED:
		return RX_FAILED;
	case PHASE_UNKNOWN:
		ph = PHASE_NONE; /* no phase yet, for the clocks */
		break;
	default:
		break;
	}
	if (alive == -1)
		return RX_UNSURE;
	if (exited)
		*cause = "the session ended";
	else if (alive == 0)
		*cause = "the session is gone";
	else if (phase_def(ph)->crash_clock && age > timeout)
		*cause = "the phase did not change within CLAUDE_TIMEOUT";
	if (*cause != NULL)
		return RX_RECOVER;
	if (ph == PHASE_NONE)
		return RX_IDLE;
	return ph == PHASE_AWAITING_CI ? RX_CI : RX_IGNORE;
}

/* Whether the SessionEnd hook said the session ended. */
static int
react_exited(const struct rx *x)
{
	char *exited = runfiles_exited_marker(x->session);
	int gone = file_exists(exited);

	free(exited);
	return gone;
}

/*
 * Whether a live session's agent says it is at work but has not updated
 * its progress report (agent_progress()) within CLAUDE_TIMEOUT: stuck,
 * like a phase that does not change.  Backends without such a report
 * never stall here.
 */
static int
react_stalled(const struct dev_ctx *c, const struct rx *x)
{
	struct agent_progress p;

	if (x->alive != 1 || phase_is_terminal(x->sig.phase) ||
	    agent_progress(x->session, &p) != 0)
		return 0;
	return agent_progress_stale(&p, c->now, c->cfg->claude_timeout);
}

/*
 * An unknown phase: logged once per value (the last one logged is kept
 * in the issue's state), with no other effect.
 */
static void
react_unknown(struct dev_ctx *c, const struct rx *x)
{
	struct dp_state st;
	int known;

	if ((known = dp_state_read(c, x->issue, &st) == 0) &&
	    strcmp(st.unknown, x->sig.raw) == 0)
		return;
	log_msg("#%lld: unknown phase '%s' — no phase yet for the crash and "
		"idle clocks",
	    x->issue, x->sig.raw);
	snprintf(st.unknown, sizeof(st.unknown), "%s", x->sig.raw);
	/* A state that could not be read is not written over. */
	if (known)
		(void)dp_state_write(c, x->issue, &st);
}

/* Run the reaction: 0, or -1 when something failed. */
static int
react_run(struct dev_ctx *c, struct rx *x, enum rx_reaction what,
    const char *cause)
{
	switch (what) {
	case RX_IGNORE:
		/* review-poll's and supervisor-poll's: its PR is noted. */
		(void)rx_find_pr(c, x);
		return rx_review_ready(c, x);
	case RX_UNSURE:
		log_warn("#%lld: cannot tell whether %s lives — skipped",
		    x->issue, x->session);
		return -1;
	case RX_RECOVER:
		return rx_recover(c, x, cause);
	case RX_IDLE:
		return rx_idle(c, x);
	case RX_CI:
		return rx_awaiting_ci(c, x);
	case RX_DONE:
		return rx_done(c, x);
	case RX_FAILED:
		return rx_failed(c, x, NULL);
	}
	return -1;
}

/*
 * A parked escalation: 1 (*r what was done) when the issue is parked,
 * so that nothing else is done to it, else 0.
 */
static int
react_parked(struct dev_ctx *c, struct rx *x, int *r)
{
	struct parked p;
	int pk;

	*r = 0;
	if ((pk = dp_parked(c, x->issue, &p)) == 0)
		return 0;
	if (pk == -1 || x->alive == -1)
		*r = -1;
	else if (x->alive == 1)
		*r = dp_resume_finish(c, x->issue, x->session);
	else
		(void)rx_find_pr(c, x); /* noted, as any escalation's */
	return 1;
}

/* React to one issue's phase file.  0, or -1 when something failed. */
static int
react_one(struct dev_ctx *c, long long issue)
{
	enum rx_reaction what;
	const char *cause;
	struct rx x;
	int r = 0;

	if (dp_stands_back(c, issue))
		return 0;
	rx_init(c, &x, issue);
	if (agent_read_signal(x.session, x.phase_path, &x.sig) == -1) {
		log_warn("cannot read '%s'", x.phase_path);
		r = -1;
		goto out;
	}
	if (x.sig.mtime == 0)
		goto out; /* removed since the listing */
	x.age = c->now > x.sig.mtime ? (long long)(c->now - x.sig.mtime) : 0;
	x.alive = agent_alive(x.session);
	if (react_parked(c, &x, &r))
		goto out;
	/* Stopped by an API error of the project's: the pause's. */
	if ((r = dp_pause_session(c, &x)) != 0) {
		c->acted += r == 1;
		goto out;
	}
	if (x.sig.phase == PHASE_UNKNOWN)
		react_unknown(c, &x);
	what = rx_reaction(x.sig.phase, x.alive,
	    !phase_is_terminal(x.sig.phase) && react_exited(&x), x.age,
	    c->cfg->claude_timeout, &cause);
	if (what != RX_RECOVER && what != RX_UNSURE && react_stalled(c, &x)) {
		what = RX_RECOVER;
		cause = "the agent's progress report did not change within "
			"CLAUDE_TIMEOUT";
	}
	if ((r = react_run(c, &x, what, cause)) == 0)
		c->acted++;
out:
	rx_free(&x);
	return r < 0 ? -1 : 0;
}

enum dp_step
dp_react(struct dev_ctx *c)
{
	long long *issues;
	size_t n, i;
	int failed = 0;

	/* A legacy agent watches its own phases. */
	if (c->legacy)
		return DP_NEXT;
	if (dp_phase_issues(c, &issues, &n) == -1)
		return DP_FAIL;
	/*
	 * One issue's trouble (the forge did not answer, its session did
	 * not take an injection) leaves its files as they are for the next
	 * tick and does not keep the others, or the rest of the tick, from
	 * running.
	 */
	for (i = 0; i < n; i++)
		if (react_one(c, issues[i]) == -1)
			failed++;
	c->skipped += failed;
	if (failed > 0)
		log_msg("phase reactions: %d of %zu issue(s) left for the next "
			"tick",
		    failed, n);
	free(issues);
	return DP_NEXT;
}
