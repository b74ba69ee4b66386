/*
 * Step 2: reviews whose agent is through (it wrote its phase, it is back
 * at its prompt without one, it wrote none within the agent timeout, or
 * it is gone) are posted: the comment, unless an earlier tick posted it,
 * then the formal review; an approval dismisses this bot's older requests
 * for changes.  Output that is not the review JSON gives one error
 * comment per head, and the review is tried again on a later tick (at
 * most RP_MAX_TRIES tries per head, tries.c); an agent that went away
 * without a word is started once more first.  Output that is there but
 * cannot be read is unknown: it is read again on the next tick, with
 * nothing posted and no try used.  A fault between two writes
 * is completed on the next tick, never duplicated: each write is looked
 * for on the forge before it is made (for a forced review of a head
 * reviewed before, a review comment newer than the ones there when it
 * started).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "apistop.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "marks.h"
#include "review-poll.h"
#include "runfiles.h"
#include "tools.h"
#include "valid.h"
#include "xmalloc.h"

/* Largest output file read. */
#define OUTPUT_MAX (1024 * 1024)

static void collect_key(char *, size_t, const char *, const struct rp_run *);
static char *collect_unread_note(char *, long long);
static int collect_launched(const struct rp_run *);
static int collect_fresh(const struct rp_run *, const char *);
static int collect_one(struct rp *, const struct rp_run *);
static int collect_paused(struct rp *, const struct rp_run *);
static int collect_post_review(struct rp *, const struct rp_run *,
    const struct rp_verdict *);
static int collect_post_formal(struct rp *, const struct rp_run *,
    const struct rp_verdict *, int);
static int collect_already_formal(const cJSON *, const char *, const char *,
    const char *);
static int collect_dismiss_own(struct rp *, long long, const cJSON *,
    const char *);
static int collect_post_error(struct rp *, const struct rp_run *, const char *);
static void collect_wake_dev(struct rp *, long long);
static int collect_finish(struct rp *, const struct rp_run *, int, int);
static int collect_retry_later(struct rp *, const struct rp_run *);
static int collect_unread(struct rp *, const struct rp_run *, const char *);
static void collect_why(const struct rp *, const struct rp_run *, char *,
    size_t);

int
rp_collect(struct rp *rp)
{
	return rp_runs_each(rp, collect_one);
}

int
rp_collect_pr(struct rp *rp, long long pr)
{
	struct rp_run *runs;
	size_t i, n;
	int r = 0;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (runs[i].pr == pr && collect_one(rp, &runs[i]) == -1)
			r = -1;
	rp_runs_free(runs, n);
	return r;
}

int
rp_posted(const cJSON *comments, const char *mark, const char *sha, int forced)
{
	if (rp_last_comment_with(comments, mark) == NULL)
		return 0;
	return forced < 0 || rp_count_comments_with(comments, sha) > forced;
}

/*
 * A review an API error of the project's stopped: the project's pause
 * (apistop.h), never a failed review: nothing posted, no try used; the
 * agent is told to go on when the pause is over.  An error the evidence
 * shows to be the review's own fails it (its phase: the next tick's).
 */
static int
collect_paused(struct rp *rp, const struct rp_run *run)
{
	char who[32];

	snprintf(who, sizeof(who), "PR #%lld", run->pr);
	apistop_use(rp->cfg);
	return apistop_session(&rp->act, rp->cfg->project_name, run->session,
		   run->phase_path, 1, who, rp->now) == -1 ?
	    -1 :
	    0;
}

static int
collect_one(struct rp *rp, const struct rp_run *run)
{
	struct rp_verdict v;
	struct buf out;
	char why[200], *path;
	int valid = 0, r, rd;

	if (run->state == RP_RUN_PAUSED)
		return collect_paused(rp, run);
	if (!rp_run_collectable(run))
		return 0;
	path = runfiles_review_output(rp->cfg->project_name, run->pr);
	memset(&v, 0, sizeof(v));
	buf_init(&out, 0);
	if (!collect_launched(run)) {
		log_msg("pr #%lld: review without a launch record of this "
			"tool's, dropped",
		    run->pr);
		rp_run_cleanup(rp, run->pr, 0);
		r = 0;
		goto out;
	}
	if (run->state == RP_RUN_GONE && !file_exists(path) && !run->retried) {
		r = collect_retry_later(rp, run);
		goto out;
	}
	/* An output older than the launch is none of this review's. */
	if (!collect_fresh(run, path))
		rd = -1;
	else if ((rd = file_read(path, OUTPUT_MAX, &out)) == -1 &&
	    errno != ENOENT) {
		r = collect_unread(rp, run, path);
		goto out;
	}
	if (run->state == RP_RUN_IDLE || run->state == RP_RUN_TIMEOUT) {
		log_msg("pr #%lld: the review agent is %s: stopped", run->pr,
		    rp_run_state_name(run->state));
		rp_run_kill(rp, run->pr);
	}
	if (rd == -1)
		collect_why(rp, run, why, sizeof(why));
	else if (rp_verdict_parse(buf_str(&out), out.len, &v, why,
		     sizeof(why)) == 0)
		valid = 1;
	if (valid)
		log_msg("pr #%lld: review of %.7s: %s", run->pr, run->sha,
		    v.verdict);
	else
		log_warn("pr #%lld: review of %.7s failed: %s", run->pr,
		    run->sha, why);
	rp_status(rp, run->pr, "posting review");
	r = valid ? collect_post_review(rp, run, &v) :
		    collect_post_error(rp, run, why);
	if (r == 0)
		r = collect_finish(rp, run, valid,
		    valid && rp_verdict_wants_changes(v.verdict));
out:
	rp_verdict_free(&v);
	buf_free(&out);
	free(path);
	return r;
}

/*
 * Whether review-poll launched this review: its launch record (a file of
 * this user alone, file.h) names the head and the launch time, and the
 * phase file was written since.  Anything else (files planted, or left
 * by another version) posts nothing.
 */
static int
collect_launched(const struct rp_run *run)
{
	return valid_sha(run->sha) == NULL && run->at > 0 &&
	    run->phase.mtime >= run->at;
}

/* Whether the output file at path, if any, was written since the launch. */
static int
collect_fresh(const struct rp_run *run, const char *path)
{
	time_t t;

	if (file_mtime(path, &t) == -1 || t >= run->at)
		return 1;
	log_warn("pr #%lld: '%s' is older than the review's launch: ignored",
	    run->pr, path);
	return 0;
}

/*
 * The review's output is there but could not be read: what it says is
 * unknown, not "no review".  Nothing is posted and no try is used (the
 * agent is left as it is); the next tick reads it again.  -1 (logged).
 */
static int
collect_unread(struct rp *rp, const struct rp_run *run, const char *path)
{
	log_warn("pr #%lld: cannot read the review of %.7s in '%s': %s — "
		 "read again next tick",
	    run->pr, run->sha, path, strerror(errno));
	(void)rp;
	return -1;
}

/* Why a review left no output file, as review-pr.sh's monitor ended. */
static void
collect_why(const struct rp *rp, const struct rp_run *run, char *why,
    size_t whysz)
{
	switch (run->state) {
	case RP_RUN_IDLE:
		snprintf(why, whysz,
		    "no output file; the agent stopped at its prompt without "
		    "writing %s (idle_prompt)",
		    phase_name(PHASE_DONE));
		break;
	case RP_RUN_TIMEOUT:
		snprintf(why, whysz,
		    "no output file; no %s within %lld s (idle_timeout)",
		    phase_name(PHASE_DONE), rp->set.agent_timeout_s);
		break;
	default:
		snprintf(why, whysz, "no output file; the agent %s",
		    run->phase.phase == PHASE_NONE ? "exited" : run->phase.raw);
	}
}

/*
 * The agent went away without a word (a crash, a reboot): mark the
 * launch record as retried and drop the phase file, so that the review
 * is started once more (this tick, when a review may start, else a later
 * one) without counting a new try, as review-pr.sh restarted a crashed
 * session once; a second such end is reported as an error.
 */
static int
collect_retry_later(struct rp *rp, const struct rp_run *run)
{
	char *req = runfiles_review_request(rp->cfg->project_name, run->pr);
	char *text = rp_run_record(run->sha, run->prev, run->at, 1, run->forced,
	    run->unread);
	int r = -1;

	log_msg("pr #%lld: the review agent exited without a review, "
		"starting it once more",
	    run->pr);
	rp_run_kill(rp, run->pr);
	if (act_write(&rp->act, req, text, 0) == 0 &&
	    act_remove(&rp->act, run->phase_path) == 0)
		r = 0;
	free(req);
	free(text);
	return r;
}

/*
 * A verdict is on the forge: dev-poll, who merges an approval and hands
 * a request for changes to its session, reacts now (DESIGN section 13).
 */
static void
collect_wake_dev(struct rp *rp, long long pr)
{
	char *why = xasprintf("verdict on PR #%lld", pr);

	(void)tools_wake_other(&rp->act, rp->cfg, "dev-poll", why);
	free(why);
}

/*
 * The review is posted: keep waiting for the developer's changes, or
 * remove everything.  The new phase is written before anything else goes.
 * A review (valid) settles the head's tries; an error comment leaves
 * them for the next try.
 */
static int
collect_finish(struct rp *rp, const struct rp_run *run, int valid,
    int wants_changes)
{
	const char *p = rp->cfg->project_name;
	char *wt, *out, *req;

	if (valid) {
		rp->posted++;
		rp_tries_forget(rp, run->pr);
		collect_wake_dev(rp, run->pr);
	}
	if (!wants_changes) {
		rp_run_cleanup(rp, run->pr, 0);
		return 0;
	}
	if (act_phase(&rp->act, run->phase_path, PHASE_AWAITING_CHANGES, NULL,
		run->sha) == -1)
		return -1;
	wt = runfiles_review_worktree(p, run->pr);
	out = runfiles_review_output(p, run->pr);
	req = runfiles_review_request(p, run->pr);
	rp_run_kill(rp, run->pr);
	(void)rp_worktree_remove(rp, wt);
	(void)act_remove(&rp->act, out);
	(void)act_remove(&rp->act, req);
	free(wt);
	free(out);
	free(req);
	return 0;
}

/*
 * The review comment body, with what the review could not read said at
 * its end.  Frees body; caller frees the result.
 */
static char *
collect_unread_note(char *body, long long unread)
{
	char *out = xasprintf("%s\n*%lld files not read: the PR changes more "
			      "files than a review reads; this review saw "
			      "only the first of them.*\n",
	    body, unread);

	free(body);
	return out;
}

/*
 * The marker key of a comment of kind about run's head: a forced review
 * (review-poll --pr N --force) is a new comment, with a key of its own.
 */
static void
collect_key(char *key, size_t keysz, const char *kind, const struct rp_run *run)
{
	if (run->forced >= 0)
		snprintf(key, keysz, "%s #%lld %s forced %d", kind, run->pr,
		    run->sha, run->forced + 1);
	else
		snprintf(key, keysz, "%s #%lld %s", kind, run->pr, run->sha);
}

/*
 * The comment, unless an earlier tick posted it already, then the formal
 * review.  0 when both are on the forge, -1 to try again next tick.
 */
static int
collect_post_review(struct rp *rp, const struct rp_run *run,
    const struct rp_verdict *v)
{
	const cJSON *comments;
	char *mark = marks_reviewed(run->sha), *body, key[96];
	int round = 0, r = -1;

	if (forge_comments_list(rp->review, run->pr, &comments) == -1) {
		log_warn("pr #%lld: cannot read the comments: %s", run->pr,
		    forge_error(rp->review));
		goto out;
	}
	if (run->prev[0] != '\0')
		round = rp_count_reviews(comments) -
		    rp_count_comments_with(comments, mark) + 1;
	if (!rp_posted(comments, mark, run->sha, run->forced)) {
		body = rp_review_comment(v, run->sha, run->prev, round);
		if (run->unread > 0)
			body = collect_unread_note(body, run->unread);
		collect_key(key, sizeof(key), "review", run);
		r = act_comment(&rp->act, run->pr, key, body, NULL);
		free(body);
		if (r == -1)
			goto out;
		log_notice("pr #%lld: review comment for %.7s posted", run->pr,
		    run->sha);
	} else
		log_msg("pr #%lld: review comment for %.7s already posted",
		    run->pr, run->sha);
	r = collect_post_formal(rp, run, v, round);
out:
	free(mark);
	return r;
}

/* A review by login of sha in state event exists already. */
static int
collect_already_formal(const cJSON *reviews, const char *login, const char *sha,
    const char *event)
{
	struct forge_review r;
	const cJSON *rv;

	cJSON_ArrayForEach (rv, reviews) {
		forge_review_view(rv, &r);
		if (r.author != NULL && r.commit != NULL && r.state != NULL &&
		    strcmp(r.author, login) == 0 &&
		    strcmp(r.commit, sha) == 0 && strcmp(r.state, event) == 0)
			return 1;
	}
	return 0;
}

/* Approval supersedes this bot's own standing requests for changes. */
static int
collect_dismiss_own(struct rp *rp, long long pr, const cJSON *reviews,
    const char *login)
{
	struct forge_review v;
	const cJSON *rv;
	int r = 0;

	cJSON_ArrayForEach (rv, reviews) {
		forge_review_view(rv, &v);
		if (v.author == NULL || v.state == NULL ||
		    strcmp(v.author, login) != 0 ||
		    strcmp(v.state, "REQUEST_CHANGES") != 0 || v.id <= 0 ||
		    v.dismissed)
			continue;
		if (act_review_dismiss(&rp->act, pr, v.id,
			"Superseded by approval") == 0)
			log_msg("pr #%lld: dismissed review %lld", pr, v.id);
		else
			r = -1;
	}
	return r;
}

static int
collect_post_formal(struct rp *rp, const struct rp_run *run,
    const struct rp_verdict *v, int round)
{
	const char *event = rp_verdict_event(v->verdict), *login;
	const cJSON *reviews;
	char *body;
	enum act_review r;
	int undismissed = 0;

	if (forge_reviews_list(rp->review, run->pr, &reviews) == -1 ||
	    forge_user_login(rp->review, &login) == -1) {
		log_warn("pr #%lld: cannot read the reviews: %s", run->pr,
		    forge_error(rp->review));
		return -1;
	}
	/* Before the approval, and again by a later tick until done. */
	if (strcmp(event, "APPROVED") == 0 &&
	    collect_dismiss_own(rp, run->pr, reviews, login) == -1)
		undismissed = 1;
	if (collect_already_formal(reviews, login, run->sha, event))
		return undismissed ? -1 : 0;
	if (round > 0)
		body = xasprintf("AI Re-review (round %d): **%s** — %s", round,
		    v->verdict, v->reason);
	else
		body =
		    xasprintf("AI Review: **%s** — %s", v->verdict, v->reason);
	r = act_review_create(&rp->act, run->pr, event, run->sha, body);
	free(body);
	if (r == ACT_REVIEW_POSTED && !rp->act.dry_run)
		log_msg("pr #%lld: formal %s review submitted", run->pr, event);
	/* A refusal (own PR, no rights) will not change: go on without. */
	return r == ACT_REVIEW_FAILED || undismissed ? -1 : 0;
}

static int
collect_post_error(struct rp *rp, const struct rp_run *run, const char *why)
{
	const cJSON *comments;
	char *mark = marks_review_error(run->sha), *body, key[96];
	int r = -1;

	if (forge_comments_list(rp->review, run->pr, &comments) == -1) {
		log_warn("pr #%lld: cannot read the comments: %s", run->pr,
		    forge_error(rp->review));
		goto out;
	}
	if (rp_posted(comments, mark, run->sha, run->forced)) {
		r = 0;
		goto out;
	}
	body = rp_error_comment(run->sha, why);
	collect_key(key, sizeof(key), "review-error", run);
	r = act_comment(&rp->act, run->pr, key, body, NULL);
	free(body);
out:
	free(mark);
	return r;
}
