/*
 * Sessions that stopped working: gone (tmux has no session, or the
 * SessionEnd hook's exited marker is there) in any phase but done or
 * failed, stuck before a phase or in PHASE:awaiting_ci for longer than
 * CLAUDE_TIMEOUT, or idle at the prompt with no phase for longer than
 * AGENT_IDLE_SECONDS since its last turn ended (the Stop hook's marker,
 * whose hook also starts the tick that looks).  Git is the checkpoint: a
 * crashed session is started again in its worktree, at most RX_MAX_RECOVERIES
 * times, then given up as failed; never when the issue's branch was merged
 * meanwhile (then the merge is finished instead).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "react.h"
#include "runfiles.h"
#include "xmalloc.h"

static int recover_count_read(const char *, long long *);
static int recover_count_write(struct dev_ctx *, const char *, long long);
static int recover_relaunch(struct dev_ctx *, struct rx *, const char *,
    long long);
static int recover_merged(struct dev_ctx *, struct rx *);
static int recover_idle_since(const char *, time_t *);

/*
 * The number in a counter file into *n, 0 when missing or garbage.  -1
 * (logged) when it is there but cannot be read: unknown.
 */
static int
recover_count_read(const char *path, long long *n)
{
	struct buf b;
	int r = 0;

	*n = 0;
	buf_init(&b, 0);
	if (file_read(path, 64, &b) != -1)
		*n = strtoll(buf_str(&b), NULL, 10);
	else if (errno != ENOENT) {
		log_warn("cannot read '%s' — the check waits", path);
		r = -1;
	}
	buf_free(&b);
	if (*n < 0)
		*n = 0;
	return r;
}

/* Counters are synced before the action they count. */
static int
recover_count_write(struct dev_ctx *c, const char *path, long long n)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld\n", n);
	return act_write(&c->act, path, text, 1);
}

/*
 * Charge recovery n + 1 and start it, with the Claude session lock taken
 * (so that no recovery is charged while another agent works).
 */
static int
recover_relaunch(struct dev_ctx *c, struct rx *x, const char *path, long long n)
{
	int r = 0;

	if (recover_count_write(c, path, n + 1) == -1)
		r = -1;
	else if (dp_relaunch(c, x->issue) == -1)
		log_msg("#%lld: recovery did not start — next tick", x->issue);
	agent_unreserve();
	return r;
}

/*
 * No open PR, and the branch merged: the work is done, a new session
 * would start on merged work.  1 (finished as a merge), 0, -1 unknown.
 */
static int
recover_merged(struct dev_ctx *c, struct rx *x)
{
	long long pr;
	int r;

	if (rx_find_pr(c, x) == -1)
		return -1;
	if (x->pr > 0 || (r = dp_pr_merged(c, x->issue, &pr)) == 0)
		return 0;
	if (r == -1)
		return -1;
	log_msg("#%lld: PR #%lld was merged — no new session, finishing the "
		"merge",
	    x->issue, pr);
	x->pr = pr;
	if (x->alive == 1)
		(void)act_kill(&c->act, x->session);
	x->alive = 0;
	if (dp_merged(c, x->issue, pr, NULL) == -1 ||
	    rx_end_session(c, x, 0) == -1)
		return -1;
	return 1;
}

int
rx_recover(struct dev_ctx *c, struct rx *x, const char *cause)
{
	char *path;
	long long n;
	int r = 0;

	if ((r = recover_merged(c, x)) != 0)
		return r == 1 ? 0 : -1;
	/* No session starts while an API error pauses the project. */
	if ((r = dp_pause_holds(c)) != 0) {
		if (r == 1)
			log_msg("#%lld: %s — its recovery waits for the end of "
				"the API pause",
			    x->issue, cause);
		return r == 1 ? 0 : -1;
	}
	path = runfiles_recoveries(c->cfg->project_name, x->issue);
	if (recover_count_read(path, &n) == -1) {
		free(path);
		return -1;
	}
	log_msg("#%lld: %s (%s, recovery %lld/%d)", x->issue, cause,
	    *x->sig.raw ? x->sig.raw : "no phase yet", n + 1,
	    RX_MAX_RECOVERIES);
	if (x->alive == 1)
		(void)act_kill(&c->act, x->session);
	x->alive = 0;
	if (n >= RX_MAX_RECOVERIES)
		r = rx_failed(c, x, "crashed");
	else if (dp_launch_reserve(c, x->issue) == 0)
		r = recover_relaunch(c, x, path, n);
	free(path);
	return r;
}

/*
 * When the agent's last turn ended, from the Stop hook's marker ("TIME";
 * a marker without one: its modification time) into *at.  0, or -1 when
 * there is no marker (or it cannot be read).
 */
static int
recover_idle_since(const char *marker, time_t *at)
{
	struct buf b;
	long long t = 0;
	int r = -1;

	buf_init(&b, 0);
	if (file_read(marker, 64, &b) != -1) {
		t = strtoll(buf_str(&b), NULL, 10);
		r = 0;
	}
	buf_free(&b);
	if (r == 0 && t > 0)
		*at = (time_t)t;
	else if (r == 0 && file_mtime(marker, at) == -1)
		r = -1;
	return r;
}

int
rx_idle(struct dev_ctx *c, struct rx *x)
{
	char *marker, *path;
	time_t at;
	long long age;
	int r = 0;

	/* A launch cut off before its prompt is finished first. */
	if (x->alive == 1 && (r = dp_session_finish(c, x->issue)) != 0)
		return r == 1 ? 0 : -1;
	marker = runfiles_idle_marker(x->session);
	/* The tick counter of earlier versions goes. */
	path = runfiles_idle_ticks(c->cfg->project_name, x->issue);
	(void)act_remove(&c->act, path);
	if (x->alive != 1 || recover_idle_since(marker, &at) == -1)
		goto out;
	age = (long long)(c->now - at);
	if (age < 0)
		age = 0;
	if (age < c->cfg->idle_grace_s) {
		log_msg("#%lld: at the prompt with no phase for %llds — idle "
			"after %ds",
		    x->issue, age, c->cfg->idle_grace_s);
		goto out;
	}
	log_msg("#%lld: idle at the prompt with no phase for %llds (%ds "
		"allowed)",
	    x->issue, age, c->cfg->idle_grace_s);
	r = rx_failed(c, x, "idle_prompt");
out:
	free(path);
	free(marker);
	return r;
}
