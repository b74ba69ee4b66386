/*
 * Standing back from a live bash review-pr.sh: run by hand (upstream's
 * best-practices files tell a fix command to), it keeps its PID in
 * P-review.lock, the file review-poll's tick lock is (so that it skips
 * while a tick runs, "SKIP: locked"), and reviews its PR in the session
 * and phase file review-poll watches.  It holds no flock: a tick that
 * took the lock would overwrite its PID.  So the lock file is read before
 * it is taken, and while such a run lives no review-poll tick or --pr
 * runs for the project, as review-pr.sh let one review run at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bashlock.h"
#include "cli.h"
#include "config.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "tick.h"
#include "xmalloc.h"

#define STANDBACK_SCRIPT "review-pr.sh"

int
rp_standback(struct tick *t)
{
	char *path = runfiles_review_lock(t->cfg.project_name), pr[32];
	struct bashlock b;
	int rc = -1;

	/* Its close() may run next: nothing of it is set yet. */
	memset(t->ctx, 0, sizeof(struct rp));
	if (bashlock_read(path, STANDBACK_SCRIPT, t->cfg.proc_dir, &b) == -1) {
		/* lock_take() says what is wrong with it. */
		goto out;
	}
	if (b.state == BASHLOCK_DEAD)
		log_msg("%s names pid %ld, which is gone: ignored", path,
		    (long)b.pid);
	if (b.state != BASHLOCK_HELD)
		goto out;
	if (b.number > 0)
		snprintf(pr, sizeof(pr), "#%lld", b.number);
	else
		snprintf(pr, sizeof(pr), "a PR it does not name");
	log_msg("standing back from %s: bash %s (pid %ld) holds %s", pr,
	    STANDBACK_SCRIPT, (long)b.pid, path);
	if (t->cli.pr > 0)
		t->msg = xasprintf("PR #%lld: not reviewed now: bash %s (pid "
				   "%ld) reviews %s\n",
		    t->cli.pr, STANDBACK_SCRIPT, (long)b.pid, pr);
	rc = CLI_EXIT_OK;
out:
	free(path);
	return rc;
}
