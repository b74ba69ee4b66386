/*
 * Verdict routing (DESIGN section 6, the awaiting_review row): a dev
 * session waiting in PHASE:awaiting_review is told the verdict of the
 * review posted for its PR's head, once per head SHA; with no review
 * three hours after it started waiting, it is told to escalate, once.
 *
 * review-injected-P-R holds the key of the last delivered injection: the
 * SHA for a verdict, "no-review SHA" for the escalation notice.  It is
 * written only after the agent received the text; the text is typed as
 * the message "review KEY" (agent_deliver()), so that a tick that dies
 * between the two types nothing again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "agent.h"
#include "buf.h"
#include "cap.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "pulls.h"
#include "review-poll.h"
#include "runfiles.h"
#include "template.h"
#include "utf8.h"
#include "valid.h"
#include "xmalloc.h"

/* A review comment quoted to the agent is cut here. */
#define REVIEW_TEXT_MAX (30 * 1024)

static int route_one(struct rp *, long long);
static int route_review_pending(struct rp *, long long);
static int route_injected_key(const char *, char *, size_t);
static int route_deliver(struct rp *, const char *, const char *, int,
    const char *, const char *, const char *);
static int route_tell_verdict(struct rp *, long long, const cJSON *,
    const char *, const char *, const char *);
static int route_tell_no_review(struct rp *, long long, const struct pull *,
    const char *, const char *, const char *);

/* 1 while a finished review of pr is still being posted. */
static int
route_review_pending(struct rp *rp, long long pr)
{
	char *path = runfiles_review_phase(rp->cfg->project_name, pr);
	char *session = runfiles_review_session(rp->cfg->project_name, pr);
	struct phase_info pi;
	int pending;

	pending = agent_read_signal(session, path, &pi) == 0 &&
	    pi.phase == PHASE_DONE;
	free(session);
	free(path);
	return pending;
}

/* The first line of the injection record ("" when there is none). */
static int
route_injected_key(const char *path, char *out, size_t outsz)
{
	struct buf b;
	size_t n;

	out[0] = '\0';
	buf_init(&b, 0);
	if (file_read(path, 256, &b) == -1) {
		buf_free(&b);
		return file_exists(path) ? -1 : 0;
	}
	n = strcspn(buf_str(&b), "\r\n");
	if (n < outsz) {
		memcpy(out, buf_str(&b), n);
		out[n] = '\0';
	}
	buf_free(&b);
	return 0;
}

/*
 * Inject text (an approval: nothing for the agent to do, so the session
 * stays in awaiting_review, told so through act_advance()); once
 * delivered, remember key in the record at path.
 */
static int
route_deliver(struct rp *rp, const char *session, const char *phase_path,
    int approved, const char *text, const char *record, const char *key)
{
	enum act_inject got;
	char *line;
	int r;

	line = xasprintf("review %s", key);
	got = approved ? act_advance(&rp->act, session, line, phase_path,
			     PHASE_AWAITING_REVIEW, text) :
			 act_inject(&rp->act, session, line, text);
	free(line);
	/* Not typed and not queued: a later tick tries again, no failure. */
	if (got == ACT_INJECT_LATER)
		return 0;
	if (got != ACT_INJECTED && got != ACT_INJECT_DRY)
		return -1;
	line = xasprintf("%s\n", key);
	r = act_write(&rp->act, record, line, 0);
	free(line);
	return r;
}

static int
route_tell_verdict(struct rp *rp, long long pr, const cJSON *comment,
    const char *session, const char *phase_path, const char *record)
{
	const struct pull *pull = rp_open_pull(rp, pr);
	const char *body = rp_comment_body(comment);
	const char *sha = pull != NULL ? pull->sha : NULL;
	char verdict[40], num[32], round[32], err[256], *text = NULL;
	char *review = NULL;
	struct template_var vars[] = {{"PR_NUMBER", num}, {"VERDICT", verdict},
	    {"REVIEW", NULL}, {"BRANCH", pull != NULL ? pull->branch : NULL},
	    {"REMOTE", "origin"}, {"PHASE_FILE", phase_path},
	    {"SHORT_SHA", sha}, {"ROUND", round}};
	const cJSON *comments;
	const char *name;
	int r = -1;

	if (body == NULL ||
	    rp_comment_verdict(body, verdict, sizeof(verdict)) == -1) {
		log_msg("pr #%lld: review comment states no verdict", pr);
		return 0;
	}
	snprintf(num, sizeof(num), "%lld", pr);
	/* The round: the reviews posted for the PR, this one the last. */
	if (forge_comments_list(rp->review, pr, &comments) == -1) {
		log_warn("pr #%lld: cannot read the comments: %s", pr,
		    forge_error(rp->review));
		return -1;
	}
	snprintf(round, sizeof(round), "%d",
	    rp_review_round(comments, comment) > 0 ?
		rp_review_round(comments, comment) :
		rp_count_reviews(comments));
	vars[2].value = review = cap_head(body, REVIEW_TEXT_MAX);
	name = strcmp(verdict, "APPROVE") == 0 ? "review-verdict-approve.md" :
						 "review-verdict-changes.md";
	if (template_render(rp->cfg->formulas_dir, name, vars,
		sizeof(vars) / sizeof(vars[0]), &text, err, sizeof(err)) == -1)
		log_err("cannot build the verdict message: %s", err);
	else if ((r = route_deliver(rp, session, phase_path,
		      strcmp(verdict, "APPROVE") == 0, text, record, sha)) == 0)
		log_notice("pr #%lld: verdict %s injected into %s", pr, verdict,
		    session);
	free(review);
	free(text);
	return r;
}

static int
route_tell_no_review(struct rp *rp, long long pr, const struct pull *pull,
    const char *session, const char *phase_path, const char *record)
{
	const char *sha = pull->sha;
	char num[32], hours[32], err[256], *text = NULL, *key;
	const struct template_var vars[] = {{"PR_NUMBER", num},
	    {"HOURS", hours}, {"PHASE_FILE", phase_path}, {"SHORT_SHA", sha}};
	int r;

	snprintf(num, sizeof(num), "%lld", pr);
	snprintf(hours, sizeof(hours), "%lld", rp->set.no_review_s / 3600);
	if (template_render(rp->cfg->formulas_dir, "review-no-review.md", vars,
		sizeof(vars) / sizeof(vars[0]), &text, err,
		sizeof(err)) == -1) {
		log_err("cannot build the no-review message: %s", err);
		return -1;
	}
	key = xasprintf("no-review %s", sha);
	if ((r = route_deliver(rp, session, phase_path, 0, text, record,
		 key)) == 0)
		log_msg("pr #%lld: no review after %s h, escalation asked of "
			"%s",
		    pr, hours, session);
	free(key);
	free(text);
	return r;
}

/*
 * The dev session of issue n, when it waits in awaiting_review.  0, or
 * -1 (failed).
 */
static int
route_one(struct rp *rp, long long n)
{
	const char *p = rp->cfg->project_name, *sha;
	char *session = runfiles_dev_session(p, n), *record = NULL;
	char *phase_path = runfiles_phase(p, n), key[128];
	const struct pull *pull;
	const cJSON *c;
	struct phase_info pi;
	long long pr = 0;
	int r = 0;

	if (agent_read_signal(session, phase_path, &pi) == -1 ||
	    pi.phase != PHASE_AWAITING_REVIEW || agent_alive(session) != 1)
		goto out;
	if ((pull = rp_issue_pull(rp, n)) == NULL ||
	    (pr = pull->number) == -1 || (sha = pull->sha) == NULL ||
	    valid_sha(sha) != NULL) {
		log_msg("issue #%lld waits for a review but has no open pr", n);
		goto out;
	}
	record = runfiles_review_injected(p, pr);
	if (route_review_pending(rp, pr) ||
	    route_injected_key(record, key, sizeof(key)) == -1 ||
	    strcmp(key, sha) == 0)
		goto out;
	/* Only a review comment whose author's verdicts count is told. */
	if (pulls_review_comment(rp->pulls, pull, &c) == -1) {
		log_warn("pr #%lld: cannot read the comments: %s", pr,
		    pulls_error(rp->pulls));
		r = -1;
	} else if (c != NULL)
		r = route_tell_verdict(rp, pr, c, session, phase_path, record);
	else if (rp->now - pi.mtime >= rp->set.no_review_s &&
	    !(strncmp(key, "no-review ", 10) == 0 &&
		strcmp(key + 10, sha) == 0))
		r = route_tell_no_review(rp, pr, pull, session, phase_path,
		    record);
out:
	free(session);
	free(record);
	free(phase_path);
	return r;
}

int
rp_route(struct rp *rp)
{
	long long *issues;
	size_t i, n;
	int r = 0;

	if (runfiles_phase_issues(rp->cfg->project_name, &issues, &n) == -1) {
		log_warn("cannot list the dev phase files");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (route_one(rp, issues[i]) == -1)
			r = -1;
	free(issues);
	return r;
}
