/*
 * The operators' status file, P-review-status ("Peek while running" in
 * review-poll.sh): one line, replaced at each step of a review, in
 * review-pr.sh's words ("[time] PR #N: fetching metadata", "waiting for
 * review", "posting review" ...); at the end of a tick, what is in
 * flight.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "act.h"
#include "buf.h"
#include "config.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

void
rp_status(struct rp *rp, long long pr, const char *fmt, ...)
{
	char *path = runfiles_review_status(rp->cfg->project_name), *msg;
	char ts[32], *line;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_msg("pr #%lld: %s", pr, msg);
	log_timestamp(ts, sizeof(ts));
	line = xasprintf("[%s] PR #%lld: %s\n", ts, pr, msg);
	(void)act_write(&rp->act, path, line, 0);
	free(line);
	free(msg);
	free(path);
}

void
rp_status_tick(struct rp *rp)
{
	char *path = runfiles_review_status(rp->cfg->project_name);
	struct rp_run *runs;
	struct buf b;
	size_t i, n, working = 0;
	long long last = 0;

	if (rp_runs_list(rp, &runs, &n) == -1) {
		free(path);
		return;
	}
	buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		if (runs[i].state == RP_RUN_WAITING)
			continue;
		buf_printf(&b, "%s#%lld", working++ ? ", " : "", runs[i].pr);
		last = runs[i].pr;
	}
	if (working == 1)
		rp_status(rp, last, "waiting for review");
	else if (working > 1)
		(void)act_status(&rp->act, path, "review-poll",
		    "waiting for review of PR %s", buf_str(&b));
	else
		(void)act_status(&rp->act, path, "review-poll",
		    "no review running (%d posted this tick)", rp->posted);
	buf_free(&b);
	rp_runs_free(runs, n);
	free(path);
}
