/*
 * The operators' status line, dev-agent-status-P: what the tick is
 * doing, one line, replaced at each step.  And the record of the ticks,
 * dev-poll-ticks-P: what each tick came to, for supervisor-poll, whose
 * health checks need a signal that moves only when work moves (this
 * tool's log is written on every tick).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "record.h"
#include "runfiles.h"
#include "xmalloc.h"

static const char *status_outcome(const struct dev_ctx *, enum dp_step,
    const char *);

int
dp_status(struct dev_ctx *c, const char *fmt, ...)
{
	char *msg, *path;
	va_list ap;
	int r;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	path = runfiles_dev_status(c->cfg->project_name);
	c->status_steps++;
	r = act_status(&c->act, path, "dev-poll", "%s", msg);
	free(path);
	free(msg);
	return r;
}

/* What the tick came to, from where it ended (ended) and what it did. */
static const char *
status_outcome(const struct dev_ctx *c, enum dp_step s, const char *ended)
{
	if (s == DP_FAIL)
		return RUNFILES_TICK_FAILED;
	if (c->merged > 0)
		return RUNFILES_TICK_MERGED;
	if (c->status_steps > 0)
		return RUNFILES_TICK_LAUNCHED;
	if (strcmp(ended, RUNFILES_TICK_NOTHING_READY) == 0 &&
	    c->backlog.read && c->backlog.n == 0)
		return RUNFILES_TICK_NO_BACKLOG;
	return ended;
}

void
dp_tick_record(struct dev_ctx *c, enum dp_step s, const char *ended)
{
	const char *outcome = status_outcome(c, s, ended);
	char *path = runfiles_dev_ticks(c->cfg->project_name), *text;
	long long streak = 0, since = c->now, worked = c->now;
	char last[32] = "";
	struct buf b;

	buf_init(&b, 0);
	if (record_load(path, &b) == 0) {
		if (record_get_ll(buf_str(&b), "WORKED:", &worked) == -1)
			worked = c->now;
		if (record_get(buf_str(&b), "OUTCOME:", last, sizeof(last)) ==
			-1 ||
		    strcmp(last, outcome) != 0 ||
		    record_get_ll(buf_str(&b), "STREAK:", &streak) == -1 ||
		    record_get_ll(buf_str(&b), "SINCE:", &since) == -1 ||
		    streak < 1) {
			streak = 0;
			since = c->now;
		}
	}
	if (strcmp(outcome, RUNFILES_TICK_MERGED) == 0 ||
	    strcmp(outcome, RUNFILES_TICK_LAUNCHED) == 0 ||
	    strcmp(outcome, RUNFILES_TICK_BUSY) == 0)
		worked = c->now;
	text = xasprintf("TICK: %lld\nOUTCOME: %s\nSTREAK: %lld\n"
			 "SINCE: %lld\nWORKED: %lld\n",
	    (long long)c->now, outcome, streak + 1, since, worked);
	(void)act_write(&c->act, path, text, 0);
	free(text);
	buf_free(&b);
	free(path);
}
