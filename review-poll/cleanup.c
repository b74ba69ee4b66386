/*
 * Step 1: reviews that no longer matter go with their session, worktree
 * and run files: their PR closed, their phase unknown, idle too long; and
 * review sessions without run files whose PR closed or that sat idle;
 * and the try counts of PRs no longer open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

static int cleanup_pr_closed(struct rp *, long long);
static int cleanup_one(struct rp *, const struct rp_run *);
static int cleanup_orphan(struct rp *, const char *, long long);
static int cleanup_orphans(struct rp *);

/* 1 closed or gone, 0 open, -1 unknown. */
static int
cleanup_pr_closed(struct rp *rp, long long pr)
{
	struct forge_pull fp;
	const cJSON *obj;

	if (rp_open_pull(rp, pr) != NULL)
		return 0;
	if (forge_pull_get(rp->forge, pr, &obj) == -1) {
		if (forge_last_status(rp->forge) == 404)
			return 1;
		log_warn("pr #%lld: cannot read it: %s", pr,
		    forge_error(rp->forge));
		return -1;
	}
	forge_pull_view(obj, &fp);
	return fp.state != NULL && strcmp(fp.state, "open") != 0;
}

/* Step 1 for one review: 0 (cleaned up or kept), or -1 (unknown). */
static int
cleanup_one(struct rp *rp, const struct rp_run *run)
{
	int closed = cleanup_pr_closed(rp, run->pr);

	if (closed == -1)
		return -1;
	if (closed) {
		log_msg("cleanup: review of pr #%lld (pr no longer open)",
		    run->pr);
		rp_run_cleanup(rp, run->pr, 1);
		return 0;
	}
	if (run->phase.phase == PHASE_UNKNOWN) {
		log_msg("cleanup: review of pr #%lld (phase '%s')", run->pr,
		    run->phase.raw);
		rp_run_cleanup(rp, run->pr, 0);
		return 0;
	}
	/* One the API pause keeps waits for its end, however long. */
	if (!rp_run_collectable(run) && run->state != RP_RUN_PAUSED &&
	    rp->now - run->phase.mtime > rp->set.idle_timeout_s) {
		log_msg("cleanup: review of pr #%lld (idle for %lld min)",
		    run->pr, (long long)(rp->now - run->phase.mtime) / 60);
		rp_run_cleanup(rp, run->pr, 0);
		return 0;
	}
	return 0;
}

int
rp_cleanup(struct rp *rp)
{
	int r = rp_runs_each(rp, cleanup_one);

	if (cleanup_orphans(rp) == -1 || rp_tries_sweep(rp) == -1)
		r = -1;
	return r;
}

/*
 * A review session without run files (they were removed, or another
 * tool started it) goes when its PR closed or it sat idle too long.
 */
static int
cleanup_orphan(struct rp *rp, const char *session, long long pr)
{
	time_t when;
	int closed;

	if ((closed = cleanup_pr_closed(rp, pr)) == -1)
		return -1;
	if (!closed &&
	    (agent_activity(session, &when) == -1 ||
		rp->now - when <= rp->set.idle_timeout_s))
		return 0;
	log_msg("cleanup: session %s without run files (%s)", session,
	    closed ? "pr no longer open" : "idle");
	rp_run_cleanup(rp, pr, closed);
	return 0;
}

static int
cleanup_orphans(struct rp *rp)
{
	const char *p = rp->cfg->project_name;
	char **names = NULL, *prefix, *phase;
	size_t i, n = 0;
	long long pr;
	int r = 0;

	prefix = runfiles_review_session_prefix(p);
	if (agent_list(prefix, &names, &n) == -1) {
		log_warn("cannot list the review sessions");
		free(prefix);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((pr = runfiles_review_session_pr(p, names[i])) < 0)
			continue;
		phase = runfiles_review_phase(p, pr);
		if (!file_exists(phase) &&
		    cleanup_orphan(rp, names[i], pr) == -1)
			r = -1;
		free(phase);
	}
	agent_list_free(names, n);
	free(prefix);
	return r;
}
