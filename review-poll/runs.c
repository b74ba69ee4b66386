/*
 * The reviews in flight, known by their run files: the phase file (empty
 * at launch, PHASE:done from the agent, PHASE:awaiting_changes + SHA:
 * after a review asking for changes), the launch record (SHA:, PREV:,
 * RETRIED:, FORCED:), the agent's output JSON and the worktree.  The phase file
 * is written first and removed first, so a phase file that says done always has
 * its launch record and output.  Every step of a tick works from this list;
 * nothing else reads the run files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "agent.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "record.h"
#include "review-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

static void runs_record(const char *, struct rp_run *);

int
rp_runs_list(struct rp *rp, struct rp_run **runs, size_t *n)
{
	const char *p = rp->cfg->project_name;
	struct rp_run *v, *run;
	long long *prs;
	size_t i, nprs;

	*runs = NULL;
	*n = 0;
	if (runfiles_review_phase_prs(p, &prs, &nprs) == -1) {
		log_msg("cannot list the review phase files");
		return -1;
	}
	v = xcalloc(nprs + 1, sizeof(*v));
	for (i = 0; i < nprs; i++) {
		run = &v[*n];
		run->pr = prs[i];
		run->session = runfiles_review_session(p, run->pr);
		run->phase_path = runfiles_review_phase(p, run->pr);
		if (agent_read_signal(run->session, run->phase_path,
			&run->phase) == -1) {
			free(run->session);
			free(run->phase_path);
			continue;
		}
		runs_record(p, run);
		(*n)++;
	}
	free(prs);
	*runs = v;
	return 0;
}

/*
 * What the review is about, from its launch record (SHA:, PREV:,
 * RETRIED:, FORCED:) and, once it asked for changes, its phase file (SHA:).
 */
static void
runs_record(const char *p, struct rp_run *run)
{
	char *req = runfiles_review_request(p, run->pr), retried[8];
	long long forced;
	struct buf b;

	run->forced = -1;
	buf_init(&b, 0);
	if (record_load(req, &b) == 0) {
		(void)record_get(buf_str(&b), "SHA:", run->sha,
		    sizeof(run->sha));
		(void)record_get(buf_str(&b), "PREV:", run->prev,
		    sizeof(run->prev));
		run->retried = record_get(buf_str(&b), "RETRIED:", retried,
				   sizeof(retried)) == 0 &&
		    strcmp(retried, "1") == 0;
		if (record_get_ll(buf_str(&b), "FORCED:", &forced) == 0 &&
		    forced >= 0 && forced < 1000000)
			run->forced = (int)forced;
	}
	if (run->phase.phase == PHASE_AWAITING_CHANGES)
		(void)record_read(run->phase_path, "SHA:", run->sha,
		    sizeof(run->sha));
	buf_free(&b);
	free(req);
}

char *
rp_run_record(const char *sha, const char *prev, int retried, int forced)
{
	char f[32] = "";

	if (forced >= 0)
		snprintf(f, sizeof(f), "FORCED:%d\n", forced);
	return xasprintf("SHA:%s\nPREV:%s\n%s%s", sha, prev,
	    retried ? "RETRIED:1\n" : "", f);
}

int
rp_runs_each(struct rp *rp, int (*fn)(struct rp *, const struct rp_run *))
{
	struct rp_run *runs;
	size_t i, n;
	int r = 0;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (fn(rp, &runs[i]) == -1)
			r = -1;
	rp_runs_free(runs, n);
	return r;
}

void
rp_runs_free(struct rp_run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(runs[i].session);
		free(runs[i].phase_path);
	}
	free(runs);
}

int
rp_review_busy(struct rp *rp, long long pr)
{
	char *phase = runfiles_review_phase(rp->cfg->project_name, pr);
	char *session = runfiles_review_session(rp->cfg->project_name, pr);
	int busy = file_exists(phase) || agent_alive(session) != 0;

	free(phase);
	free(session);
	return busy;
}

void
rp_run_cleanup(struct rp *rp, long long pr, int forget_injection)
{
	const char *p = rp->cfg->project_name;
	char *session = runfiles_review_session(p, pr);
	char *wt = runfiles_review_worktree(p, pr);
	char *phase = runfiles_review_phase(p, pr);
	char *output = runfiles_review_output(p, pr);
	char *req = runfiles_review_request(p, pr);
	char *inj = runfiles_review_injected(p, pr);

	(void)act_kill(&rp->act, session);
	(void)rp_worktree_remove(rp, wt);
	(void)act_remove(&rp->act, phase);
	(void)act_remove(&rp->act, output);
	(void)act_remove(&rp->act, req);
	if (forget_injection)
		(void)act_remove(&rp->act, inj);
	free(session);
	free(wt);
	free(phase);
	free(output);
	free(req);
	free(inj);
}

/* The agent is through: it said so, or its session is gone. */
int
rp_run_collectable(const struct rp_run *run)
{
	switch (run->phase.phase) {
	case PHASE_DONE:
	case PHASE_FAILED:
	case PHASE_ESCALATE:
		return 1;
	case PHASE_NONE:
		return agent_alive(run->session) == 0;
	default:
		return 0;
	}
}
