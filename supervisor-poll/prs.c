/*
 * Open PRs that went off the rails: a merge conflict with green CI, a CI
 * failure nobody touched for 30 minutes, green CI (or a PR that changes
 * only non-code files, which needs none) without a review for an hour
 * (then review-poll is started for the project).  The PRs, their CI and
 * whether their heads are reviewed are the forge model's
 * (common/world/pulls.h).
 *
 * The forge's "mergeable" is false for a conflict, but also while the PR
 * is being checked (every open PR on a base after a merge to it) and for
 * a work in progress (models/issues/pull.go Mergeable; services/pull/
 * merge.go Merge, AddTestPullRequestTask): a draft is no conflict, and
 * another PR only once it stayed not mergeable at one head for
 * CONFLICT_WAIT_S, noted between runs in the run file
 * runfiles_supervisor_unmergeable().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "ci.h"
#include "file.h"
#include "config.h"
#include "log.h"
#include "pulls.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define FAILED_STALE_S (30 * 60)
#define UNREVIEWED_S (60 * 60)
#define CONFLICT_WAIT_S (10 * 60)
#define NOTES_MAX (1024 * 1024)

static long long prs_idle_min(const struct sup *, const struct pull *);
static void prs_pr_one(struct sup *, const struct pull *, struct buf *,
    struct buf *);
static void prs_unreviewed(struct sup *, const struct pull *, long long,
    const char *);
static int prs_review_poll(struct sup *);
static int prs_wip(const struct pull *);
static int prs_conflict(struct sup *, const struct pull *, struct buf *,
    struct buf *);

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
 * A work in progress (models/issues/pull.go IsWorkInProgress): a draft,
 * or a title that starts with one of the default WORK_IN_PROGRESS_PREFIXES
 * (modules/setting/repository.go: "WIP:", "[WIP]"), any case.
 */
static int
prs_wip(const struct pull *pr)
{
	const char *t = pr->title != NULL ? pr->title : "";

	t += strspn(t, " \t");
	return pr->draft || strncasecmp(t, "WIP:", 4) == 0 ||
	    strncasecmp(t, "[WIP]", 5) == 0;
}

/*
 * A PR the forge does not call mergeable: 1 when that is a conflict (it
 * stayed so at this head since the note of an earlier run, old enough),
 * else 0.  The note (this run's in *next) keeps the first time seen.
 */
static int
prs_conflict(struct sup *s, const struct pull *pr, struct buf *notes,
    struct buf *next)
{
	const char *line;
	char head[32];
	long long since = (long long)s->now, t;
	int len;

	len = snprintf(head, sizeof(head), "%lld ", pr->number);
	for (line = buf_str(notes); *line != '\0'; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, head, (size_t)len) == 0 &&
		    strncmp(line + len, pr->sha, strlen(pr->sha)) == 0 &&
		    sscanf(line + len + strlen(pr->sha), " %lld", &t) == 1 &&
		    t <= since)
			since = t;
		if (strchr(line, '\n') == NULL)
			break;
	}
	buf_printf(next, "%lld %s %lld\n", pr->number, pr->sha, since);
	return (long long)s->now - since >= CONFLICT_WAIT_S;
}

/*
 * One open PR.  CI as the model says it (the non-code rule applied), the
 * changed files read only for a PR idle long enough for an alert.
 */
static void
prs_pr_one(struct sup *s, const struct pull *pr, struct buf *notes,
    struct buf *next)
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
	if (pr->mergeable == 0 && !prs_wip(pr) && ci_passed(st, ci)) {
		if (prs_conflict(s, pr, notes, next))
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
	char *path;
	struct buf notes, next;
	size_t i;

	if (!s->cfg->check_prs)
		return;
	sup_status(s, "P3: %s: checking PRs", s->cfg->project_name);
	if (lists_prs(s) == -1)
		return;
	path = runfiles_supervisor_unmergeable(s->cfg->project_name);
	buf_init(&notes, 0);
	buf_init(&next, 0);
	if (file_read(path, NOTES_MAX, &notes) == -1)
		buf_reset(&notes);
	for (i = 0; i < pulls_count(s->pulls); i++)
		prs_pr_one(s, pulls_at(s->pulls, i), &notes, &next);
	if (strcmp(buf_str(&notes), buf_str(&next)) != 0 &&
	    (next.len > 0 ? act_write(&s->act, path, buf_str(&next), 0) :
			    act_remove(&s->act, path)) == -1)
		sup_fail(s, "%s: cannot note the PRs not mergeable in '%s'",
		    s->cfg->project_name, path);
	buf_free(&next);
	buf_free(&notes);
	free(path);
}
