/*
 * Issues whose launch failed for a reason of their own (backoff.h): the
 * failure is recorded with a growing wait, the tick goes on with the
 * next ready issue, and the issue is passed over until its wait is
 * over.  A launch that succeeds forgets the record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "backoff.h"
#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "runfiles.h"

int
dp_backoff_holds(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_launch_backoff(c->cfg->project_name, issue);
	char until[32];
	struct backoff b;
	int r = 0;

	if (backoff_read(path, &b) == -1) {
		log_warn("#%lld: cannot read '%s': %s — passed over this tick",
		    issue, path, strerror(errno));
		r = -1;
	} else if (b.failures > 0 && b.next > c->now) {
		log_iso8601(b.next, until, sizeof(until));
		log_msg("#%lld: launch backed off until %s (%lld failure%s: "
			"%s)",
		    issue, until, b.failures, b.failures == 1 ? "" : "s",
		    b.reason);
		r = 1;
	}
	free(path);
	return r;
}

void
dp_backoff_failed(struct dev_ctx *c, long long issue, const char *reason)
{
	char *path = runfiles_launch_backoff(c->cfg->project_name, issue);
	char until[32], *text;
	struct backoff b;

	/* An unreadable record counts as none: the count starts again. */
	if (backoff_read(path, &b) == -1)
		memset(&b, 0, sizeof(b));
	backoff_fail(&b, c->now, reason);
	log_iso8601(b.next, until, sizeof(until));
	log_warn("#%lld: cannot be launched: %s — backed off until %s "
		 "(%lld failure%s in a row); going on with the next issue",
	    issue, b.reason, until, b.failures, b.failures == 1 ? "" : "s");
	text = backoff_text(&b);
	(void)act_write(&c->act, path, text, 1);
	free(text);
	free(path);
}

void
dp_backoff_clear(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_launch_backoff(c->cfg->project_name, issue);

	(void)act_remove(&c->act, path);
	free(path);
}
