/*
 * The open PRs of a tick as the scheduler sees them: the forge model
 * (common/world/pulls.h) reads them once, with their CI states in one
 * pipeline list, and answers each one's CI and verdict at most once; the
 * scheduler keeps only what it worked out of them (struct dp_pr), so
 * that every step decides on the same facts and no endpoint is asked
 * twice.  The closed PRs are read for the merged ones only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ci.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "log.h"
#include "pulls.h"
#include "reviewed.h"
#include "runfiles.h"
#include "xmalloc.h"

static struct dp_pr *prs_wrap(struct dev_ctx *, const struct pull *);
static int prs_files(struct dev_ctx *, struct dp_pr *);
static int prs_keep_merged(void *, const cJSON *);
static int prs_closed_load(struct dev_ctx *);

struct pulls *
dp_pulls(struct dev_ctx *c)
{
	if (c->pulls == NULL) {
		c->pulls =
		    pulls_new(c->cfg, c->forge, c->wp, c->reviewers, c->now);
		/* The scans decide on the PRs with an issue, in order. */
		pulls_set_ahead(c->pulls);
	}
	return c->pulls;
}

void
dp_prs_free(struct dev_ctx *c)
{
	pulls_free(c->pulls);
	c->pulls = NULL;
	free(c->prs);
	c->prs = NULL;
	c->nprs = 0;
	free(c->merged_prs);
	c->merged_prs = NULL;
	c->nmerged_prs = 0;
}

int
dp_prs_load(struct dev_ctx *c)
{
	struct pulls *m = dp_pulls(c);
	char *path;
	size_t i;

	/* A failed read is said once and not tried again this tick. */
	if (c->prs_read != 0)
		return c->prs_read == 1 ? 0 : -1;
	path = runfiles_dev_quiet(c->cfg->project_name);
	pulls_memo_use(m, PULLS_MEMO_REVIEWS, path);
	free(path);
	pulls_ci_memo_project(m);
	if (pulls_load(m) == -1) {
		log_warn("cannot read the open PRs: %s", pulls_error(m));
		c->prs_read = -1;
		return -1;
	}
	c->nprs = pulls_count(m);
	c->prs = xcalloc(c->nprs + 1, sizeof(*c->prs));
	for (i = 0; i < c->nprs; i++)
		c->prs[i].pull = pulls_at(m, i);
	c->prs_read = 1;
	return 0;
}

void
dp_quiet_save(struct dev_ctx *c)
{
	if (c->pulls != NULL)
		pulls_memo_save(c->pulls, &c->act);
}

int
dp_ci_state(struct dev_ctx *c, const char *sha, enum ci_state *st,
    long long *pipeline)
{
	return pulls_commit_ci(dp_pulls(c), sha, st, pipeline);
}

/* The scheduler's view of the model's PR p (one of the list's). */
static struct dp_pr *
prs_wrap(struct dev_ctx *c, const struct pull *p)
{
	size_t i;

	for (i = 0; p != NULL && i < c->nprs; i++)
		if (c->prs[i].pull == p)
			return &c->prs[i];
	return NULL;
}

enum dp_pr_action
dp_pr_decide(const struct dp_pr *p)
{
	if (p->passed && p->approved)
		return DP_PR_MERGE;
	if (p->failed)
		return DP_PR_FIX_CI;
	if (p->changes)
		return DP_PR_FIX_REVIEW;
	return DP_PR_WAIT;
}

/*
 * The changed files matter only where they change a decision: an
 * approval waiting for CI, or a CI failure (the model's non-code rule,
 * pulls_ci_rule()).  0, or -1 (logged).
 */
static int
prs_files(struct dev_ctx *c, struct dp_pr *p)
{
	const struct pull *pl = p->pull;

	if (p->passed || !(p->approved || p->failed))
		return 0;
	switch (pulls_ci_says(c->pulls, pl)) {
	case PULLS_CI_UNKNOWN:
		log_msg("cannot read the files of PR #%lld: %s", pl->number,
		    pulls_error(c->pulls));
		return -1;
	case PULLS_CI_PASSED:
		p->noncode = p->passed = 1;
		p->failed = 0;
		log_msg("PR #%lld has no code files — treating CI as passed",
		    pl->number);
		break;
	default:
		break;
	}
	return 0;
}

int
dp_pr_evaluate(struct dev_ctx *c, struct dp_pr *p)
{
	int configured = config_ci_configured(c->cfg);
	const struct pull *pl = p->pull;
	struct reviewed_verdict v;

	if (p->evaluated != 0)
		return p->evaluated == 1 ? 0 : -1;
	p->evaluated = -1;
	if (pl->sha == NULL || *pl->sha == '\0') {
		log_msg("PR #%lld has no head SHA", pl->number);
		return -1;
	}
	if (pulls_ci(c->pulls, pl, &p->ci) == -1) {
		log_msg("cannot read the CI state of PR #%lld: %s", pl->number,
		    pulls_error(c->pulls));
		return -1;
	}
	if (pulls_verdict(c->pulls, pl, &v) == -1) {
		log_msg("cannot read the reviews of PR #%lld: %s", pl->number,
		    pulls_error(c->pulls));
		return -1;
	}
	p->approved = v.state == REVIEWED_APPROVED;
	p->changes = v.state == REVIEWED_CHANGES;
	p->passed = ci_passed(p->ci, configured);
	p->failed = ci_failed(p->ci, configured);
	if (prs_files(c, p) == -1)
		return -1;
	p->evaluated = 1;
	return 0;
}

struct dp_pr *
dp_pr_open(struct dev_ctx *c, long long number)
{
	return c->prs_read == 1 ? prs_wrap(c, pulls_number(c->pulls, number)) :
				  NULL;
}

struct dp_pr *
dp_pr_for_branch(struct dev_ctx *c, const char *branch)
{
	return c->prs_read == 1 ? prs_wrap(c, pulls_branch(c->pulls, branch)) :
				  NULL;
}

struct dp_pr *
dp_pr_for_issue(struct dev_ctx *c, long long issue, int by_title)
{
	const struct pull *p;

	if (c->prs_read != 1)
		return NULL;
	if ((p = pulls_issue_branch(c->pulls, issue)) == NULL && by_title)
		p = pulls_titled(c->pulls, issue);
	return prs_wrap(c, p);
}

struct dp_pr *
dp_pr_fixing(struct dev_ctx *c, long long issue)
{
	return c->prs_read == 1 ? prs_wrap(c, pulls_fixing(c->pulls, issue)) :
				  NULL;
}

/* Keep a merged PR of the closed list whose branch names its issue. */
static int
prs_keep_merged(void *arg, const cJSON *it)
{
	struct dev_ctx *c = arg;
	struct forge_pull fp;
	long long issue;

	forge_pull_view(it, &fp);
	if (fp.branch == NULL ||
	    (issue = runfiles_branch_issue(fp.branch)) <= 0 || !fp.merged ||
	    fp.number <= 0)
		return 0;
	c->merged_prs = xreallocarray(c->merged_prs, c->nmerged_prs + 1,
	    sizeof(*c->merged_prs));
	c->merged_prs[c->nmerged_prs].issue = issue;
	c->merged_prs[c->nmerged_prs++].pr = fp.number;
	return 0;
}

/*
 * Read the closed PRs once, again only after a write (as the client's
 * cache would); a failure is said each time they are asked for.
 */
static int
prs_closed_load(struct dev_ctx *c)
{
	if (c->closed_read == 1 && c->closed_writes == forge_writes(c->forge))
		return 0;
	c->closed_read = 0;
	c->nmerged_prs = 0;
	if (forge_pulls_each(c->forge, "closed", prs_keep_merged, c) == -1) {
		log_msg("cannot read the closed PRs: %s",
		    forge_error(c->forge));
		c->nmerged_prs = 0;
		return -1;
	}
	c->closed_read = 1;
	c->closed_writes = forge_writes(c->forge);
	return 0;
}

int
dp_pr_merged(struct dev_ctx *c, long long issue, long long *pr)
{
	size_t i;

	*pr = 0;
	if (prs_closed_load(c) == -1)
		return -1;
	/* The newest one, should the branch have been merged twice. */
	for (i = 0; i < c->nmerged_prs; i++)
		if (c->merged_prs[i].issue == issue &&
		    c->merged_prs[i].pr > *pr)
			*pr = c->merged_prs[i].pr;
	return *pr > 0;
}

const char *
dp_pr_ci_name(const struct dp_pr *p)
{
	return p->noncode ? "success" : ci_state_name(p->ci);
}
