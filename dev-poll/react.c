/*
 * Phase reactions (DESIGN section 6, the rows dev-poll owns), one cron
 * tick at a time: for every phase file of the project, what it calls for
 * is decided from the facts (rx_reaction(): a dead or stuck session is
 * recovered first and gets no injection, a session without a phase gets
 * the idle check), then the reaction runs (rx*.c, recover.c).
 * PHASE:awaiting_review and PHASE:escalate belong to review-poll and
 * supervisor-poll.  Every reaction is keyed so that a repeated tick
 * repeats nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "react.h"
#include "runfiles.h"
#include "xmalloc.h"

static void react_init(struct dev_ctx *, struct rx *, long long);
static void react_free(struct rx *);
static int react_exited(const struct rx *);
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
		return RX_IGNORE;
	default:
		break;
	}
	if (alive == -1)
		return RX_UNSURE;
	if (exited)
		*cause = "the session ended";
	else if (alive == 0)
		*cause = "the session is gone";
	else if ((ph == PHASE_NONE || ph == PHASE_AWAITING_CI) && age > timeout)
		*cause = "the phase did not change within CLAUDE_TIMEOUT";
	if (*cause != NULL)
		return RX_RECOVER;
	if (ph == PHASE_NONE)
		return RX_IDLE;
	return ph == PHASE_AWAITING_CI ? RX_CI : RX_IGNORE;
}

static void
react_init(struct dev_ctx *c, struct rx *x, long long issue)
{
	memset(x, 0, sizeof(*x));
	x->issue = issue;
	x->session = runfiles_dev_session(c->cfg->project_name, issue);
	x->phase_path = runfiles_phase(c->cfg->project_name, issue);
}

static void
react_free(struct rx *x)
{
	free(x->session);
	free(x->phase_path);
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

/* React to one issue's phase file.  0, or -1 when something failed. */
static int
react_one(struct dev_ctx *c, long long issue)
{
	const char *cause;
	struct rx x;
	int r = 0;

	react_init(c, &x, issue);
	if (agent_read_signal(x.session, x.phase_path, &x.sig) == -1) {
		log_msg("cannot read '%s'", x.phase_path);
		r = -1;
		goto out;
	}
	if (x.sig.mtime == 0)
		goto out; /* removed since the listing */
	x.age = c->now > x.sig.mtime ? (long long)(c->now - x.sig.mtime) : 0;
	x.alive = x.sig.phase != PHASE_UNKNOWN ? agent_alive(x.session) : 0;
	switch (rx_reaction(x.sig.phase, x.alive,
	    !phase_is_terminal(x.sig.phase) && react_exited(&x), x.age,
	    c->cfg->claude_timeout, &cause)) {
	case RX_IGNORE:
		if (x.sig.phase == PHASE_UNKNOWN)
			log_msg("#%lld: unknown phase '%s' — ignored", issue,
			    x.sig.raw);
		break; /* or review-poll's and supervisor-poll's phases */
	case RX_UNSURE:
		log_msg("#%lld: cannot tell whether %s lives — skipped",
		    x.issue, x.session);
		break;
	case RX_RECOVER:
		r = rx_recover(c, &x, cause);
		break;
	case RX_IDLE:
		r = rx_idle(c, &x);
		break;
	case RX_CI:
		r = rx_awaiting_ci(c, &x);
		break;
	case RX_DONE:
		r = rx_done(c, &x);
		break;
	case RX_FAILED:
		r = rx_failed(c, &x, NULL);
		break;
	}
out:
	react_free(&x);
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
	if (failed > 0)
		log_msg("phase reactions: %d of %zu issue(s) left for the next "
			"tick",
		    failed, n);
	free(issues);
	return DP_NEXT;
}
