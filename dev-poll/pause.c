/*
 * The project paused by an API error of the agent CLI's (apistop.h):
 * a session that such an error stopped is kept, not failed, and resumed
 * when the pause is over; no launch starts while it holds.  A session
 * whose hook did not fire (an error the CLI ends a turn on without
 * StopFailure) is read from its screen: at its input box, the error as
 * its last word.  An error of the issue's own work ends it as a failure,
 * as the hook's PHASE:failed does; so does one that may be either's
 * when the evidence says it was the issue's (apistop.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "api_error.h"
#include "apipause.h"
#include "apistop.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "react.h"
#include "runfiles.h"
#include "screen.h"
#include "xmalloc.h"

/* The pane lines read for an error on the screen. */
#define PAUSE_SCREEN_LINES 60

static int pause_screen(struct dev_ctx *, struct rx *);
static int pause_issue_error(struct dev_ctx *, struct rx *, const char *,
    const char *);

/*
 * The error of the issue's own read on the screen: PHASE:failed with it,
 * as its hook would have written, read back for this tick's reaction.
 * 0, or -1.
 */
static int
pause_issue_error(struct dev_ctx *c, struct rx *x, const char *type,
    const char *line)
{
	char *why = xasprintf("api_error: %s", type);
	int r;

	log_warn("#%lld: its screen shows an API error of the issue's (%s): "
		 "%s",
	    x->issue, type, line);
	r = act_phase(&c->act, x->phase_path, PHASE_FAILED, why, NULL);
	free(why);
	if (r == 0 && !c->act.dry_run &&
	    agent_read_signal(x->session, x->phase_path, &x->sig) == -1)
		r = -1;
	return r;
}

/*
 * A live session at its input box with an API error as its last word on
 * the screen, and no hook that said so: 1 when one was found (recorded
 * for the pause, or the phase failed), 0 none, -1 on failure.
 */
static int
pause_screen(struct dev_ctx *c, struct rx *x)
{
	char type[64], line[256];
	struct apierr e;
	struct buf b;
	int found = 0;

	buf_init(&b, 256 * 1024);
	if (agent_capture(x->session, PAUSE_SCREEN_LINES, &b) == 0 &&
	    screen_input_box(buf_str(&b), c->cfg->agent_ready_pattern))
		found = api_error_screen(buf_str(&b), type, sizeof(type), line,
		    sizeof(line));
	buf_free(&b);
	if (!found)
		return 0;
	if (api_error_class(type) == API_ERROR_ISSUE)
		return pause_issue_error(c, x, type, line) == 0 ? 1 : -1;
	log_msg("#%lld: its screen shows an API error, no hook said so: %s",
	    x->issue, line);
	memset(&e, 0, sizeof(e));
	snprintf(e.error, sizeof(e.error), "%s", type);
	snprintf(e.source, sizeof(e.source), "screen");
	e.at = c->now;
	e.reset = api_error_reset(line, c->now);
	return apistop_record(&c->act, x->session, &e) == 0 ? 1 : -1;
}

int
dp_pause_session(struct dev_ctx *c, struct rx *x)
{
	char who[32];
	int r;

	if (x->alive == -1 || phase_is_terminal(x->sig.phase))
		return 0;
	if (x->alive == 1 &&
	    (x->sig.phase == PHASE_NONE || x->sig.phase == PHASE_AWAITING_CI ||
		x->sig.phase == PHASE_UNKNOWN)) {
		char *rec = runfiles_api_error(x->session);
		int has = file_exists(rec);

		free(rec);
		if (!has && (r = pause_screen(c, x)) != 0 &&
		    (r == -1 || phase_is_terminal(x->sig.phase)))
			return r == -1 ? -1 : 0;
	}
	snprintf(who, sizeof(who), "#%lld", x->issue);
	apistop_use(c->cfg);
	r = apistop_session(&c->act, c->cfg->project_name, x->session,
	    x->phase_path, x->alive, who, c->now);
	/* The issue's error: its failure is this tick's reaction. */
	if (r == 2 && !c->act.dry_run &&
	    agent_read_signal(x->session, x->phase_path, &x->sig) == -1)
		return -1;
	return r == 2 ? 0 : r;
}

enum dp_step
dp_paused(struct dev_ctx *c)
{
	apistop_use(c->cfg);
	switch (apistop_paused(&c->act, c->cfg->project_name, c->now, NULL)) {
	case 0:
		return DP_NEXT;
	case 1:
		return DP_DONE;
	default:
		return DP_FAIL;
	}
}

int
dp_pause_holds(struct dev_ctx *c)
{
	char *path = runfiles_api_pause(c->cfg->project_name);
	struct apipause p;
	int r;

	r = apipause_read(path, &p) == -1 ? -1 : apipause_active(&p, c->now);
	free(path);
	return r;
}
