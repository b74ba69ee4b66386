/*
 * Sessions that stopped working: gone (tmux has no session, or the
 * SessionEnd hook's exited marker is there) in any phase but done or
 * failed, stuck before a phase or in PHASE:awaiting_ci for longer than
 * CLAUDE_TIMEOUT, or idle at the prompt with no phase for RX_IDLE_TICKS
 * ticks.  Git is the checkpoint: a crashed session is started again in
 * its worktree, at most RX_MAX_RECOVERIES times, then given up as failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "react.h"
#include "runfiles.h"
#include "xmalloc.h"

static long long recover_count_read(const char *);
static int recover_count_write(struct dev_ctx *, const char *, long long);
static int recover_relaunch(struct dev_ctx *, struct rx *, const char *,
    long long);

/* The number in a counter file, 0 when missing or garbage. */
static long long
recover_count_read(const char *path)
{
	struct buf b;
	long long n;

	buf_init(&b, 0);
	n = file_read(path, 64, &b) == 0 ? strtoll(buf_str(&b), NULL, 10) : 0;
	buf_free(&b);
	return n > 0 ? n : 0;
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

int
rx_recover(struct dev_ctx *c, struct rx *x, const char *cause)
{
	char *path;
	long long n;
	int r = 0;

	path = runfiles_recoveries(c->cfg->project_name, x->issue);
	n = recover_count_read(path);
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

int
rx_idle(struct dev_ctx *c, struct rx *x)
{
	char *marker = runfiles_idle_marker(x->session);
	char *path = runfiles_idle_ticks(c->cfg->project_name, x->issue);
	long long n;
	int r = 0;

	if (x->alive != 1 || !file_exists(marker)) {
		(void)act_remove(&c->act, path);
		goto out;
	}
	n = recover_count_read(path) + 1;
	log_msg("#%lld: idle at the prompt with no phase (%lld/%d)", x->issue,
	    n, RX_IDLE_TICKS);
	if (n < RX_IDLE_TICKS)
		r = recover_count_write(c, path, n);
	else
		r = rx_failed(c, x, "idle_prompt");
out:
	free(path);
	free(marker);
	return r;
}
