/*
 * Reviews in flight, known by their phase files: cleaning up the ones
 * that no longer matter, and collecting the finished ones (posting the
 * comment and the formal review, resumably).
 *
 * A review's run files: the phase file (empty at launch, PHASE:done from
 * the agent, PHASE:awaiting_changes + SHA: after a review asking for
 * changes), the launch record (SHA:, PREV:), the agent's output JSON and
 * the worktree.  The phase file is written first and removed first, so a
 * phase file that says done always has its launch record and output.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

/* Largest output file read. */
#define OUTPUT_MAX (1024 * 1024)

static int cleanup_orphans(struct rp *);
static int orphan_one(struct rp *, const char *, long long);
static int pr_closed(struct rp *, long long);
static int cleanup_one(struct rp *, const struct rp_run *);
static int collectable(const struct rp_run *);
static int collect_one(struct rp *, const struct rp_run *);
static int post_review(struct rp *, const struct rp_run *,
    const struct rp_verdict *);
static int post_formal(struct rp *, const struct rp_run *,
    const struct rp_verdict *, int);
static int already_formal(const cJSON *, const char *, const char *,
    const char *);
static void dismiss_own(struct rp *, long long, const cJSON *, const char *);
static int post_error(struct rp *, const struct rp_run *, const char *);
static int finish(struct rp *, const struct rp_run *, int);
static int retry_later(struct rp *, const struct rp_run *);

int
rp_read_key(const char *path, const char *key, char *out, size_t outsz)
{
	struct buf b;
	const char *line;
	size_t n, klen = strlen(key);
	int r = -1;

	buf_init(&b, 0);
	if (file_read(path, 4096, &b) == -1)
		goto out;
	for (line = buf_str(&b); line != NULL && *line != '\0';) {
		if (strncmp(line, key, klen) == 0) {
			line += klen;
			line += strspn(line, " \t");
			n = strcspn(line, " \t\r\n");
			if (n < outsz) {
				memcpy(out, line, n);
				out[n] = '\0';
				r = 0;
			}
			break;
		}
		if ((line = strchr(line, '\n')) != NULL)
			line++;
	}
out:
	buf_free(&b);
	return r;
}

int
rp_runs_list(struct rp *rp, struct rp_run **runs, size_t *n)
{
	const char *p = rp->cfg->project_name;
	char *pattern = runfiles_review_phase_glob(p), *req, retried[8];
	struct rp_run *v = NULL, *run;
	glob_t g;
	size_t i;
	int gr;

	*runs = NULL;
	*n = 0;
	gr = glob(pattern, 0, NULL, &g);
	free(pattern);
	if (gr == GLOB_NOMATCH)
		return 0;
	if (gr != 0) {
		log_msg("cannot list the review phase files");
		return -1;
	}
	v = xcalloc(g.gl_pathc + 1, sizeof(*v));
	for (i = 0; i < g.gl_pathc; i++) {
		run = &v[*n];
		if ((run->pr = runfiles_review_phase_pr(p, g.gl_pathv[i])) < 0)
			continue;
		if (phase_read(g.gl_pathv[i], &run->phase) == -1)
			continue;
		run->phase_path = xstrdup(g.gl_pathv[i]);
		run->session = runfiles_review_session(p, run->pr);
		req = runfiles_review_request(p, run->pr);
		(void)rp_read_key(req, "SHA:", run->sha, sizeof(run->sha));
		(void)rp_read_key(req, "PREV:", run->prev, sizeof(run->prev));
		run->retried = rp_read_key(req, "RETRIED:", retried,
				   sizeof(retried)) == 0 &&
		    strcmp(retried, "1") == 0;
		free(req);
		if (run->phase.phase == PHASE_AWAITING_CHANGES)
			(void)rp_read_key(run->phase_path, "SHA:", run->sha,
			    sizeof(run->sha));
		(*n)++;
	}
	globfree(&g);
	*runs = v;
	return 0;
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

	(void)rp_kill(rp, session);
	(void)rp_worktree_remove(rp, wt);
	(void)rp_remove(rp, phase);
	(void)rp_remove(rp, output);
	(void)rp_remove(rp, req);
	if (forget_injection)
		(void)rp_remove(rp, inj);
	free(session);
	free(wt);
	free(phase);
	free(output);
	free(req);
	free(inj);
}

/* 1 closed or gone, 0 open, -1 unknown. */
static int
pr_closed(struct rp *rp, long long pr)
{
	const cJSON *obj;
	const char *state;

	if (rp_open_pull(rp, pr) != NULL)
		return 0;
	if (forge_pull_get(rp->forge, pr, &obj) == -1) {
		if (forge_last_status(rp->forge) == 404)
			return 1;
		log_msg("pr #%lld: cannot read it: %s", pr,
		    forge_error(rp->forge));
		return -1;
	}
	state = json_str(obj, "state");
	return state != NULL && strcmp(state, "open") != 0;
}

/* Step 1 for one review: 1 cleaned up, 0 kept, -1 unknown. */
static int
cleanup_one(struct rp *rp, const struct rp_run *run)
{
	int closed = pr_closed(rp, run->pr);

	if (closed == -1)
		return -1;
	if (closed) {
		log_msg("cleanup: review of pr #%lld (pr no longer open)",
		    run->pr);
		rp_run_cleanup(rp, run->pr, 1);
		return 1;
	}
	if (run->phase.phase == PHASE_UNKNOWN) {
		log_msg("cleanup: review of pr #%lld (phase '%s')", run->pr,
		    run->phase.raw);
		rp_run_cleanup(rp, run->pr, 0);
		return 1;
	}
	if (!collectable(run) &&
	    rp->now - run->phase.mtime > rp->set.idle_timeout_s) {
		log_msg("cleanup: review of pr #%lld (idle for %lld min)",
		    run->pr, (long long)(rp->now - run->phase.mtime) / 60);
		rp_run_cleanup(rp, run->pr, 0);
		return 1;
	}
	return 0;
}

int
rp_cleanup(struct rp *rp)
{
	struct rp_run *runs;
	size_t i, n;
	int r = 0;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (cleanup_one(rp, &runs[i]) == -1)
			r = -1;
	rp_runs_free(runs, n);
	if (cleanup_orphans(rp) == -1)
		r = -1;
	return r;
}

/*
 * A review session without run files (they were removed, or another
 * tool started it) goes when its PR closed or it sat idle too long.
 */
static int
orphan_one(struct rp *rp, const char *session, long long pr)
{
	time_t when;
	int closed;

	if ((closed = pr_closed(rp, pr)) == -1)
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
		log_msg("cannot list the review sessions");
		free(prefix);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((pr = runfiles_review_session_pr(p, names[i])) < 0)
			continue;
		phase = runfiles_review_phase(p, pr);
		if (!file_exists(phase) && orphan_one(rp, names[i], pr) == -1)
			r = -1;
		free(phase);
	}
	agent_list_free(names, n);
	free(prefix);
	return r;
}

/* The agent is through: it said so, or its session is gone. */
static int
collectable(const struct rp_run *run)
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

int
rp_collect(struct rp *rp)
{
	struct rp_run *runs;
	size_t i, n;
	int r = 0;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (collectable(&runs[i]) && collect_one(rp, &runs[i]) == -1)
			r = -1;
	rp_runs_free(runs, n);
	return r;
}

static int
collect_one(struct rp *rp, const struct rp_run *run)
{
	char *path = runfiles_review_output(rp->cfg->project_name, run->pr);
	struct rp_verdict v;
	struct buf out;
	char why[160];
	int valid = 0, r;

	memset(&v, 0, sizeof(v));
	buf_init(&out, 0);
	if (!rp_is_sha(run->sha)) {
		log_msg("pr #%lld: review without a launch record, dropped",
		    run->pr);
		rp_run_cleanup(rp, run->pr, 0);
		r = 0;
		goto out;
	}
	if (!file_exists(path) && run->phase.phase == PHASE_NONE &&
	    !run->retried) {
		r = retry_later(rp, run);
		goto out;
	}
	if (file_read(path, OUTPUT_MAX, &out) == -1)
		snprintf(why, sizeof(why), "no output file; the agent %s",
		    run->phase.phase == PHASE_NONE ? "exited" : run->phase.raw);
	else if (rp_verdict_parse(buf_str(&out), out.len, &v, why,
		     sizeof(why)) == 0)
		valid = 1;
	if (valid)
		log_msg("pr #%lld: review of %.7s: %s", run->pr, run->sha,
		    v.verdict);
	else
		log_msg("pr #%lld: review of %.7s failed: %s", run->pr,
		    run->sha, why);
	r = valid ? post_review(rp, run, &v) : post_error(rp, run, why);
	if (r == 0)
		r = finish(rp, run,
		    valid && rp_verdict_wants_changes(v.verdict));
out:
	rp_verdict_free(&v);
	buf_free(&out);
	free(path);
	return r;
}

/*
 * The agent went away without a word (a crash, a reboot): mark the
 * launch record as retried and drop the phase file, so that the review
 * is started once more; a second such end is reported as an error.
 */
static int
retry_later(struct rp *rp, const struct rp_run *run)
{
	char *req = runfiles_review_request(rp->cfg->project_name, run->pr);
	char *text =
	    xasprintf("SHA:%s\nPREV:%s\nRETRIED:1\n", run->sha, run->prev);
	int r = -1;

	log_msg("pr #%lld: the review agent exited without a review, "
		"starting it once more",
	    run->pr);
	if (rp_write(rp, req, text) == 0 && rp_remove(rp, run->phase_path) == 0)
		r = 0;
	free(req);
	free(text);
	return r;
}

/*
 * The review is posted: keep waiting for the developer's changes, or
 * remove everything.  The new phase is written before anything else goes.
 */
static int
finish(struct rp *rp, const struct rp_run *run, int wants_changes)
{
	const char *p = rp->cfg->project_name;
	char *text, *wt, *out, *req;
	int r = 0;

	if (!wants_changes) {
		rp_run_cleanup(rp, run->pr, 0);
		return 0;
	}
	text = xasprintf("%s\nSHA:%s\n", phase_name(PHASE_AWAITING_CHANGES),
	    run->sha);
	if (rp_write(rp, run->phase_path, text) == -1)
		r = -1;
	free(text);
	if (r == -1)
		return -1;
	wt = runfiles_review_worktree(p, run->pr);
	out = runfiles_review_output(p, run->pr);
	req = runfiles_review_request(p, run->pr);
	(void)rp_kill(rp, run->session);
	(void)rp_worktree_remove(rp, wt);
	(void)rp_remove(rp, out);
	(void)rp_remove(rp, req);
	free(wt);
	free(out);
	free(req);
	return 0;
}

/*
 * The comment, unless an earlier tick posted it already, then the formal
 * review.  0 when both are on the forge, -1 to try again next tick.
 */
static int
post_review(struct rp *rp, const struct rp_run *run, const struct rp_verdict *v)
{
	const cJSON *comments;
	char *mark = rp_reviewed_marker(run->sha), *body;
	int round = 0, r = -1;

	if (forge_comments_list(rp->review, run->pr, &comments) == -1) {
		log_msg("pr #%lld: cannot read the comments: %s", run->pr,
		    forge_error(rp->review));
		goto out;
	}
	if (run->prev[0] != '\0')
		round = rp_count_comments_with(comments, RP_REVIEWED_MARK) -
		    rp_count_comments_with(comments, mark) + 1;
	if (rp_last_comment_with(comments, mark) == NULL) {
		body = rp_review_comment(v, run->sha, run->prev, round);
		r = rp_comment(rp, run->pr, body);
		free(body);
		if (r == -1)
			goto out;
	} else
		log_msg("pr #%lld: review comment for %.7s already posted",
		    run->pr, run->sha);
	r = post_formal(rp, run, v, round);
out:
	free(mark);
	return r;
}

/* A review by login of sha in state event exists already. */
static int
already_formal(const cJSON *reviews, const char *login, const char *sha,
    const char *event)
{
	const cJSON *rv;
	const char *user, *commit, *state;

	cJSON_ArrayForEach (rv, reviews) {
		user = json_str_at(rv, "user.login");
		commit = json_str(rv, "commit_id");
		state = json_str(rv, "state");
		if (user != NULL && commit != NULL && state != NULL &&
		    strcmp(user, login) == 0 && strcmp(commit, sha) == 0 &&
		    strcmp(state, event) == 0)
			return 1;
	}
	return 0;
}

/* Approval supersedes this bot's own standing requests for changes. */
static void
dismiss_own(struct rp *rp, long long pr, const cJSON *reviews,
    const char *login)
{
	const cJSON *rv;
	const char *user, *state;
	long long id;
	int dismissed;

	cJSON_ArrayForEach (rv, reviews) {
		user = json_str_at(rv, "user.login");
		state = json_str(rv, "state");
		if (user == NULL || state == NULL || strcmp(user, login) != 0 ||
		    strcmp(state, "REQUEST_CHANGES") != 0 ||
		    json_int(rv, "id", &id) == -1)
			continue;
		if (json_bool(rv, "dismissed", &dismissed) == 0 && dismissed)
			continue;
		(void)rp_dismiss(rp, pr, id, "Superseded by approval");
	}
}

static int
post_formal(struct rp *rp, const struct rp_run *run, const struct rp_verdict *v,
    int round)
{
	const char *event = rp_verdict_event(v->verdict), *login;
	const cJSON *reviews;
	char *body;
	int r;

	if (forge_reviews_list(rp->review, run->pr, &reviews) == -1 ||
	    forge_user_login(rp->review, &login) == -1) {
		log_msg("pr #%lld: cannot read the reviews: %s", run->pr,
		    forge_error(rp->review));
		return -1;
	}
	if (already_formal(reviews, login, run->sha, event))
		return 0;
	if (strcmp(event, "APPROVED") == 0)
		dismiss_own(rp, run->pr, reviews, login);
	if (round > 0)
		body = xasprintf("AI Re-review (round %d): **%s** — %s", round,
		    v->verdict, v->reason);
	else
		body =
		    xasprintf("AI Review: **%s** — %s", v->verdict, v->reason);
	r = rp_formal_review(rp, run->pr, event, run->sha, body);
	free(body);
	/* A refusal (own PR, no rights) will not change: go on without. */
	return r == 1 ? 0 : r;
}

static int
post_error(struct rp *rp, const struct rp_run *run, const char *why)
{
	const cJSON *comments;
	char *mark = rp_error_marker(run->sha), *body;
	int r = -1;

	if (forge_comments_list(rp->review, run->pr, &comments) == -1) {
		log_msg("pr #%lld: cannot read the comments: %s", run->pr,
		    forge_error(rp->review));
		goto out;
	}
	if (rp_last_comment_with(comments, mark) != NULL) {
		r = 0;
		goto out;
	}
	body = rp_error_comment(run->sha, why);
	r = rp_comment(rp, run->pr, body);
	free(body);
out:
	free(mark);
	return r;
}
