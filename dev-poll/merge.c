/*
 * Direct merges of approved, CI-green PRs (a single API call, no agent
 * needed) and everything a merge entails: the issue closed, its
 * in-progress label and run files gone, the primary branch fast-forwarded
 * in repo_root, mirrors pushed in the background, the CI-fix count reset.
 * The pre-lock step merges every such PR before the agent slot is looked
 * at, so approved work lands even while an agent is busy.
 */
#include <stdio.h>
#include <stdlib.h>

#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "log.h"
#include "runfiles.h"

static void merge_after(struct dev_ctx *, const struct dp_pr *);

/*
 * The follow-ups of a merge for its issue; each failure is logged and
 * passed over.  The primary branch and the mirrors are brought up to
 * date once, after all of the tick's merges (dp_merge_finish()).
 */
static void
merge_after(struct dev_ctx *c, const struct dp_pr *p)
{
	const char *proj = c->cfg->project_name;
	char *path, *session;

	if (p->issue > 0) {
		(void)act_issue_close(&c->act, p->issue);
		(void)act_label_remove(&c->act, p->issue, "in-progress");
		path = runfiles_phase(proj, p->issue);
		session = runfiles_dev_session(proj, p->issue);
		/*
		 * A session still working on the issue is ended by the next
		 * tick's phase reactions (session, worktree, run files).
		 */
		if (agent_alive(session) == 1)
			(void)act_write(&c->act, path, "PHASE:done\n", 0);
		else
			(void)act_remove(&c->act, path);
		free(session);
		free(path);
		path = runfiles_summary(proj, p->issue);
		(void)act_remove(&c->act, path);
		free(path);
	}
	(void)dp_cifix_reset(c, p->number);
	c->merged++;
}

enum dp_merge
dp_merge(struct dev_ctx *c, struct dp_pr *p)
{
	struct forge_merge m;

	if (p->merge_refused)
		return DP_MERGE_REFUSED;
	log_msg("PR #%lld (issue #%lld) approved + CI green → attempting "
		"direct merge",
	    p->number, p->issue);
	switch (act_pull_merge(&c->act, p->number, p->sha, &m)) {
	case ACT_MERGE_FAILED:
		return DP_MERGE_FAILED;
	case ACT_MERGE_REFUSED:
		log_msg("PR #%lld direct merge failed (HTTP %ld) — falling "
			"back to dev-agent",
		    p->number, m.status);
		p->merge_refused = 1;
		return DP_MERGE_REFUSED;
	case ACT_MERGED:
		log_msg("PR #%lld merged successfully", p->number);
		break;
	case ACT_MERGE_DRY:
		break;
	}
	merge_after(c, p);
	return DP_MERGED;
}

enum dp_step
dp_merge_prelock(struct dev_ctx *c)
{
	struct dp_pr *p;
	int merged = 0, failed = 0;
	size_t i;

	log_msg("pre-lock: scanning for mergeable PRs");
	if (dp_prs_load(c) == -1)
		return DP_FAIL;
	for (i = 0; i < c->nprs; i++) {
		p = &c->prs[i];
		if (p->issue < 0)
			continue;
		if (dp_pr_evaluate(c, p) == -1) {
			failed = 1;
			continue;
		}
		if (!p->passed || !p->approved)
			continue;
		switch (dp_merge(c, p)) {
		case DP_MERGED:
			merged = 1;
			break;
		case DP_MERGE_FAILED:
			failed = 1;
			break;
		case DP_MERGE_REFUSED:
			break;
		}
	}
	if (merged)
		log_msg("pre-lock: merged PR(s) successfully — exiting");
	if (merged || failed)
		return failed ? DP_FAIL : DP_DONE;
	log_msg("pre-lock: no PRs merged, checking agent lock");
	return DP_NEXT;
}

void
dp_merge_finish(struct dev_ctx *c)
{
	if (c->merged == 0)
		return;
	(void)dp_git_ff_primary(c);
	dp_mirror_push(c);
}
