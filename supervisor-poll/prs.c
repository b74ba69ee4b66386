/*
 * Open PRs that went off the rails: a merge conflict with green CI, a CI
 * failure nobody touched for 30 minutes, green CI (or a PR that changes
 * only non-code files, which needs none) without a review for an hour
 * (then review-poll is started for the project).  The PRs, their CI and
 * whether their heads are reviewed are the forge model's
 * (common/world/pulls.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "config.h"
#include "log.h"
#include "pulls.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define FAILED_STALE_S (30 * 60)
#define UNREVIEWED_S (60 * 60)

static long long prs_idle_min(const struct sup *, const struct pull *);
static void prs_pr_one(struct sup *, const struct pull *);
static void prs_unreviewed(struct sup *, const struct pull *, long long,
    const char *);
static int prs_review_poll(struct sup *);

/* Minutes since the PR was last updated; -1 when it does not say. */
static long long
prs_idle_min(const struct sup *s, const struct pull *pr)
{
	if (pr->updated == 0)
		return -1;
	if (s->now <= pr->updated)
		return 0;
	return (long long)(s->now - pr->updated) / 60;
}

/* Start review-poll for the project, detached, logging to its log. */
static int
prs_review_poll(struct sup *s)
{
	char *argv[] = {s->cfg->review_poll_path, s->cfg->project_toml, NULL};
	char *log = runfiles_review_log(), *what;
	int r;

	what = xasprintf("%s %s", argv[0], argv[1] != NULL ? argv[1] : "");
	r = act_spawn(&s->act, argv, log, what, NULL);
	free(what);
	free(log);
	return r;
}

/*
 * CI let the PR through (why: "CI green", or that it needs none) an hour
 * ago or more: alert, and start review-poll, unless its head is reviewed
 * (the one rule of common/world/reviewed.h).
 */
static void
prs_unreviewed(struct sup *s, const struct pull *pr, long long idle,
    const char *why)
{
	const char *proj = s->cfg->project_name;
	int r;

	if ((r = pulls_reviewed(s->pulls, pr)) == -1) {
		sup_fail(s, "%s: PR #%lld: cannot read its reviews: %s", proj,
		    pr->number, pulls_error(s->pulls));
		return;
	}
	if (r == 1)
		return;
	sup_alert(s, P3, "%s: PR #%lld: %s, no review for %lld min", proj,
	    pr->number, why, idle);
	if (!s->review_started && prs_review_poll(s) == 0)
		sup_fixed(s, "%s: started review-poll (PR #%lld waits)", proj,
		    pr->number);
	s->review_started = 1;
}

/*
 * One open PR.  CI as the model says it (the non-code rule applied), the
 * changed files read only for a PR idle long enough for an alert.
 */
static void
prs_pr_one(struct sup *s, const struct pull *pr)
{
	const char *proj = s->cfg->project_name;
	int ci = config_ci_configured(s->cfg);
	long long idle;
	enum pulls_ci says;
	enum ci_state st;

	if (pr->sha == NULL)
		return;
	if (pulls_ci(s->pulls, pr, &st) == -1) {
		sup_fail(s, "%s: PR #%lld: cannot read the CI state", proj,
		    pr->number);
		return;
	}
	idle = prs_idle_min(s, pr);
	if (pr->mergeable == 0 && ci_passed(st, ci)) {
		sup_alert(s, P3,
		    "%s: PR #%lld: CI green but a merge conflict — "
		    "needs a rebase",
		    proj, pr->number);
		return;
	}
	/* Not passed, and not idle long enough for any alert: no files. */
	if (!ci_passed(st, ci) &&
	    idle * 60 <= (ci_failed(st, ci) ? FAILED_STALE_S : UNREVIEWED_S))
		return;
	if ((says = pulls_ci_says(s->pulls, pr)) == PULLS_CI_UNKNOWN) {
		sup_fail(s, "%s: PR #%lld: cannot read its changed files: %s",
		    proj, pr->number, pulls_error(s->pulls));
		return;
	}
	if (says == PULLS_CI_FAILED)
		sup_alert(s, P3, "%s: PR #%lld: CI %s, untouched for %lld min",
		    proj, pr->number, ci_state_name(st), idle);
	else if (says == PULLS_CI_PASSED && idle * 60 > UNREVIEWED_S)
		prs_unreviewed(s, pr, idle,
		    ci_passed(st, ci) ? "CI green" :
					"only non-code files (no CI needed)");
}

void
prs_check(struct sup *s)
{
	size_t i;

	if (!s->cfg->check_prs)
		return;
	sup_status(s, "P3: %s: checking PRs", s->cfg->project_name);
	if (lists_prs(s) == -1)
		return;
	for (i = 0; i < pulls_count(s->pulls); i++)
		prs_pr_one(s, pulls_at(s->pulls, i));
}
