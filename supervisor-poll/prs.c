/*
 * Open PRs that went off the rails: a merge conflict with green CI, a CI
 * failure nobody touched for 30 minutes, green CI without a review for an
 * hour (then review-poll is started for the project).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"
#include "config.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "reviewers.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "woodpecker.h"
#include "xmalloc.h"

#define FAILED_STALE_S (30 * 60)
#define UNREVIEWED_S (60 * 60)

static int prs_reviewed(struct sup *, long long, const char *);
static long long prs_idle_min(const struct sup *, const struct sup_pr *);
static void prs_pr_one(struct sup *, const struct sup_pr *);
static int prs_review_poll(struct sup *);
static void prs_ci_scan(struct sup *);

/*
 * 1 when the head sha has a review by someone whose verdicts count
 * (reviewers.h): the review comment's marker, or a formal approval or
 * change request on that commit.  0 if not, -1 when it cannot be told.
 */
static int
prs_reviewed(struct sup *s, long long pr, const char *sha)
{
	const cJSON *list, *it;
	char *marker = xasprintf("<!-- reviewed: %s", sha);
	const char *body, *state, *commit;
	int r = -1, dismissed, counts;

	if (forge_comments_list(s->forge, pr, &list) == -1)
		goto out;
	r = 0;
	cJSON_ArrayForEach (it, list) {
		if ((body = json_str(it, "body")) == NULL ||
		    strstr(body, marker) == NULL)
			continue;
		counts = reviewers_count(s->reviewers,
		    json_str_at(it, "user.login"), pr, "a review comment");
		if (counts != 0) {
			r = counts;
			goto out;
		}
	}
	if (forge_reviews_list(s->forge, pr, &list) == -1) {
		r = -1;
		goto out;
	}
	cJSON_ArrayForEach (it, list) {
		state = json_str(it, "state");
		commit = json_str(it, "commit_id");
		if (json_bool(it, "dismissed", &dismissed) == -1)
			dismissed = 0;
		if (state == NULL || commit == NULL || dismissed ||
		    strcmp(commit, sha) != 0 ||
		    (strcmp(state, "APPROVED") != 0 &&
			strcmp(state, "REQUEST_CHANGES") != 0))
			continue;
		counts = reviewers_count(s->reviewers,
		    json_str_at(it, "user.login"), pr, state);
		if (counts != 0) {
			r = counts;
			goto out;
		}
	}
out:
	free(marker);
	return r;
}

/* Minutes since the PR was last updated; -1 when it does not say. */
static long long
prs_idle_min(const struct sup *s, const struct sup_pr *pr)
{
	if (!pr->has_updated)
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

static void
prs_pr_one(struct sup *s, const struct sup_pr *pr)
{
	const char *proj = s->cfg->project_name;
	const char *sha = pr->sha;
	int ci = config_ci_configured(s->cfg), r;
	long long number = pr->number, idle;
	enum ci_state st;

	if (sha == NULL)
		return;
	if (ci_commit_state(s->forge, s->wp, sha, &st, NULL) == -1) {
		sup_fail(s, "%s: PR #%lld: cannot read the CI state", proj,
		    number);
		return;
	}
	idle = prs_idle_min(s, pr);
	if (pr->mergeable == 0 && ci_passed(st, ci)) {
		sup_alert(s, P3,
		    "%s: PR #%lld: CI green but a merge conflict — "
		    "needs a rebase",
		    proj, number);
	} else if (ci_failed(st, ci)) {
		if (idle * 60 > FAILED_STALE_S)
			sup_alert(s, P3,
			    "%s: PR #%lld: CI %s, untouched for "
			    "%lld min",
			    proj, number, ci_state_name(st), idle);
	} else if (ci_passed(st, ci) && idle * 60 > UNREVIEWED_S) {
		if ((r = prs_reviewed(s, number, sha)) == -1) {
			sup_fail(s, "%s: PR #%lld: cannot read its reviews: %s",
			    proj, number, forge_error(s->forge));
			return;
		}
		if (r == 1)
			return;
		sup_alert(s, P3,
		    "%s: PR #%lld: CI green, no review for %lld min", proj,
		    number, idle);
		if (!s->review_started && prs_review_poll(s) == 0)
			sup_fixed(s, "%s: started review-poll (PR #%lld waits)",
			    proj, number);
		s->review_started = 1;
	}
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
	prs_ci_scan(s);
	s->reviewers = reviewers_open(s->cfg, s->forge, NULL, s->act.dry_run);
	for (i = 0; i < s->nprs; i++)
		prs_pr_one(s, &s->prs[i]);
	reviewers_close(s->reviewers);
	s->reviewers = NULL;
}

/*
 * One pipeline list for the CI states of every open PR's head, read
 * before any is asked for.  A failure is left to the per-PR reads,
 * which fall back on the forge's status.
 */
static void
prs_ci_scan(struct sup *s)
{
	const char **shas;
	size_t i;

	if (s->wp == NULL || s->nprs == 0)
		return;
	shas = xcalloc(s->nprs, sizeof(*shas));
	for (i = 0; i < s->nprs; i++)
		shas[i] = s->prs[i].sha;
	(void)woodpecker_scan(s->wp, shas, s->nprs);
	free(shas);
}
