/*
 * What to work on next, in dev-poll.sh's order: the first orphaned
 * in-progress issue (priority 1), PRs stuck on review changes or a CI
 * failure (priority 1.5), then the backlog (priority 2: the priority tier
 * first, oldest first, dependencies closed, and no new work while other
 * PRs wait for CI or review).  Every branch ends the tick once it acted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "json.h"
#include "log.h"
#include "xmalloc.h"

static enum dp_step after_launch(enum dp_launch);
static enum dp_launch launch(struct dev_ctx *, long long, const cJSON *,
    const char *, long long);
static enum dp_step merge_or_fallback(struct dev_ctx *, struct dp_pr *,
    long long, const cJSON *);
static enum dp_step orphan_with_pr(struct dev_ctx *, const cJSON *, long long,
    struct dp_pr *);
static enum dp_step stuck_one(struct dev_ctx *, struct dp_pr *);
static const cJSON **backlog_order(struct dev_ctx *, size_t *);
static int backlog_pr(struct dev_ctx *, long long, struct dp_pr *, struct buf *,
    long long *);

/* The tick ends after any launch attempt; only a failure is an error. */
static enum dp_step
after_launch(enum dp_launch r)
{
	return r == DP_LAUNCH_FAILED ? DP_FAIL : DP_DONE;
}

static enum dp_launch
launch(struct dev_ctx *c, long long issue, const cJSON *it, const char *why,
    long long ci_fix_pr)
{
	struct dp_launch_req req = {.issue = issue,
	    .issue_json = it,
	    .why = why,
	    .ci_fix_pr = ci_fix_pr};

	return dp_launch(c, &req);
}

/*
 * An approved, green PR: merge it, or when the forge refuses (conflicts)
 * give the issue to an agent.  DP_NEXT only for a chore PR that cannot be
 * merged (there is no issue to work on).
 */
static enum dp_step
merge_or_fallback(struct dev_ctx *c, struct dp_pr *p, long long issue,
    const cJSON *it)
{
	int r;

	if ((r = dp_merge(c, p)) != 0)
		return r == 1 ? DP_DONE : DP_FAIL;
	if (issue <= 0) {
		log_msg("PR #%lld direct merge failed — no issue ref for "
			"dev-agent, skipping",
		    p->number);
		return DP_NEXT;
	}
	log_msg("falling back to dev-agent for PR #%lld merge", p->number);
	return after_launch(launch(c, issue, it, "agent-merge", 0));
}

/* Priority 1 with an open PR on fix/issue-N. */
static enum dp_step
orphan_with_pr(struct dev_ctx *c, const cJSON *it, long long num,
    struct dp_pr *p)
{
	long long attempts;
	int r;

	if (dp_pr_evaluate(c, p) == -1)
		return DP_FAIL;
	if (p->passed && p->approved)
		return merge_or_fallback(c, p, num, it);
	if (p->changes && !p->failed) {
		log_msg("issue #%lld PR #%lld has REQUEST_CHANGES — spawning "
			"agent",
		    num, p->number);
		return after_launch(launch(c, num, it, "review fix", 0));
	}
	if (p->failed) {
		if ((r = dp_session_busy(c, num)) != 0)
			return r == 1 ? DP_DONE : DP_FAIL;
		if ((r = dp_cifix(c, p->number, num, 1, &attempts)) != 0)
			return r == 1 ? DP_NEXT : DP_FAIL;
		log_msg("issue #%lld PR #%lld CI failed — spawning agent to "
			"fix",
		    num, p->number);
		return after_launch(launch(c, num, it, "CI fix", p->number));
	}
	log_msg("issue #%lld has open PR #%lld (CI: %s, waiting)", num,
	    p->number, dp_pr_ci_name(p));
	return DP_NEXT;
}

enum dp_step
dp_orphans(struct dev_ctx *c)
{
	const cJSON **list, *it;
	const char *skip;
	struct dp_pr *p;
	long long num;
	size_t n;

	log_msg("checking for in-progress issues");
	if (dp_issues_labelled(c, "in-progress", NULL, &list, &n) == -1)
		return DP_FAIL;
	c->inprog = list;
	c->ninprog = n;
	if (n == 0 || json_int(list[0], "number", &num) == -1)
		return DP_NEXT;
	it = list[0];
	if ((skip = dp_skip_label(it)) != NULL) {
		log_msg("issue #%lld has '%s' label — removing in-progress, "
			"skipping",
		    num, skip);
		return act_label_remove(&c->act, num, "in-progress") == 0 ?
		    DP_DONE :
		    DP_FAIL;
	}
	if (dp_prs_load(c) == -1)
		return DP_FAIL;
	if ((p = dp_pr_for_issue(c, num, 0)) != NULL)
		return orphan_with_pr(c, it, num, p);
	log_msg("recovering orphaned issue #%lld (no PR found)", num);
	return after_launch(launch(c, num, it, "recovery", 0));
}

/* Priority 1.5 for one PR: DP_NEXT to look at the next one. */
static enum dp_step
stuck_one(struct dev_ctx *c, struct dp_pr *p)
{
	long long attempts;
	enum dp_launch l;
	int r;

	if (dp_pr_evaluate(c, p) == -1)
		return DP_FAIL;
	if (p->passed && p->approved)
		return merge_or_fallback(c, p, p->issue, NULL);
	if (p->issue == 0 || (!p->changes && !p->failed))
		return DP_NEXT;
	if ((r = dp_session_busy(c, p->issue)) != 0)
		return r == 1 ? DP_NEXT : DP_FAIL;
	if (p->changes && !p->failed) {
		log_msg("PR #%lld (issue #%lld) has REQUEST_CHANGES — fixing "
			"first",
		    p->number, p->issue);
		l = launch(c, p->issue, NULL, "stuck PR", 0);
	} else {
		if ((r = dp_cifix(c, p->number, p->issue, 1, &attempts)) != 0)
			return r == 1 ? DP_NEXT : DP_FAIL;
		log_msg("PR #%lld (issue #%lld) CI failed — fixing", p->number,
		    p->issue);
		l = launch(c, p->issue, NULL, "stuck PR", p->number);
	}
	if (l == DP_SKIPPED || l == DP_EXHAUSTED)
		return DP_NEXT;
	return after_launch(l);
}

enum dp_step
dp_stuck(struct dev_ctx *c)
{
	enum dp_step s;
	size_t i;

	log_msg("checking for stuck PRs");
	if (dp_prs_load(c) == -1)
		return DP_FAIL;
	for (i = 0; i < c->nprs; i++) {
		if (c->prs[i].issue < 0) {
			log_msg("PR #%lld has no issue ref — cannot spawn "
				"dev-agent, skipping",
			    c->prs[i].number);
			continue;
		}
		if ((s = stuck_one(c, &c->prs[i])) != DP_NEXT)
			return s;
	}
	return DP_NEXT;
}

/*
 * The backlog, priority issues first, each tier oldest first (the list
 * is read with sort=oldest).  Caller frees the array, not the items.
 */
static const cJSON **
backlog_order(struct dev_ctx *c, size_t *n)
{
	const cJSON **out;
	size_t i;

	out = xcalloc(c->nbacklog + 1, sizeof(*out));
	*n = 0;
	for (i = 0; i < c->nbacklog; i++)
		if (json_has_label(c->backlog[i], "priority"))
			out[(*n)++] = c->backlog[i];
	for (i = 0; i < c->nbacklog; i++)
		if (!json_has_label(c->backlog[i], "priority"))
			out[(*n)++] = c->backlog[i];
	return out;
}

/*
 * A ready backlog issue with an open PR.  Returns 1 to pick the issue
 * (*fix_pr set when the launch pays for a CI fix), 0 to go on with the
 * next issue (a waiting PR is added to waiting), or -1 / 2 for a tick that
 * failed / is over (a merge, a fallback launch).
 */
static int
backlog_pr(struct dev_ctx *c, long long num, struct dp_pr *p,
    struct buf *waiting, long long *fix_pr)
{
	long long attempts;
	enum dp_step s;
	int r;

	if (dp_pr_evaluate(c, p) == -1)
		return -1;
	if (p->passed && p->approved) {
		s = merge_or_fallback(c, p, num, NULL);
		return s == DP_FAIL ? -1 : 2;
	}
	if (p->changes) {
		log_msg("#%lld PR #%lld has REQUEST_CHANGES — picking up", num,
		    p->number);
		return 1;
	}
	if (p->failed) {
		/* An exhausted PR is no longer waiting: it holds nothing. */
		if ((r = dp_cifix(c, p->number, num, 1, &attempts)) != 0)
			return r == 1 ? 0 : -1;
		log_msg("#%lld PR #%lld CI failed — picking up (attempt "
			"%lld/%d)",
		    num, p->number, attempts + 1, DP_CI_FIX_BUDGET);
		*fix_pr = p->number;
		return 1;
	}
	log_msg("#%lld PR #%lld exists (CI: %s, waiting)", num, p->number,
	    dp_pr_ci_name(p));
	buf_printf(waiting, "%s#%lld", waiting->len ? ", " : "", p->number);
	return 0;
}

/*
 * Judge one backlog issue: 1 it is the one to start (*fix_pr set when
 * its launch pays for a CI fix), 0 go on with the next, 2 the tick is
 * over (a merge, a fallback launch), -1 a read failed.
 */
static int
backlog_one(struct dev_ctx *c, const cJSON *it, long long num,
    struct buf *waiting, long long *fix_pr)
{
	const char *skip;
	struct dp_pr *p;
	int r;

	if ((skip = dp_skip_label(it)) != NULL) {
		log_msg("issue #%lld has '%s' label — skipping in backlog scan",
		    num, skip);
		return 0;
	}
	if ((r = dp_issue_ready(c, num, json_str(it, "body"))) != 1)
		return r;
	if ((p = dp_pr_for_issue(c, num, 1)) != NULL)
		return backlog_pr(c, num, p, waiting, fix_pr);
	log_msg("#%lld is READY (all deps merged, no existing PR)", num);
	return 1;
}

/* What to do once the scan found ready (or nothing), waiting PRs aside. */
static enum dp_step
backlog_decide(struct dev_ctx *c, const cJSON *ready, long long num,
    const struct buf *waiting, long long fix_pr)
{
	if (ready == NULL) {
		log_msg("no ready issues (all blocked by unmerged deps)");
		return DP_DONE;
	}
	if (waiting->len > 0) {
		log_msg("holding #%lld — waiting for open PR(s) to land first: "
			"%s",
		    num, buf_str(waiting));
		return DP_DONE;
	}
	log_msg("launching dev-agent for #%lld", num);
	return after_launch(launch(c, num, ready, "backlog", fix_pr));
}

enum dp_step
dp_backlog(struct dev_ctx *c)
{
	const cJSON **order, *ready = NULL;
	enum dp_step s = DP_DONE;
	long long num = 0, fix_pr = 0;
	struct buf waiting;
	size_t n, i, npri = 0;
	int r = 0;

	log_msg("scanning backlog for ready issues");
	if (dp_backlog_load(c) == -1 || dp_prs_load(c) == -1)
		return DP_FAIL;
	if (c->nbacklog == 0) {
		log_msg("no backlog issues");
		return DP_DONE;
	}
	order = backlog_order(c, &n);
	for (i = 0; i < n; i++)
		npri += json_has_label(order[i], "priority");
	log_msg("found %zu backlog issues (%zu priority)", n, npri);
	buf_init(&waiting, 0);
	for (i = 0; i < n && r == 0; i++) {
		if (json_int(order[i], "number", &num) == 0 &&
		    (r = backlog_one(c, order[i], num, &waiting, &fix_pr)) == 1)
			ready = order[i];
	}
	if (r == -1)
		s = DP_FAIL;
	else if (r != 2)
		s = backlog_decide(c, ready, num, &waiting, fix_pr);
	free(order);
	buf_free(&waiting);
	return s;
}
