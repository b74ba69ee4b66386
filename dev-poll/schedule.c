/*
 * What to work on next, in dev-poll.sh's order: the first orphaned
 * in-progress issue (priority 1), PRs stuck on review changes or a CI
 * failure (priority 1.5), then the backlog (priority 2: the priority tier
 * first, oldest first, dependencies closed, and no new work while other
 * PRs wait for CI or review).  Every branch ends the tick once it acted.
 * A PR or an issue whose data did not arrive is passed over (counted in
 * c->skipped), the others are still looked at; an orphan whose branch
 * was merged is finished as a merge, never started again.  An issue that
 * cannot be launched for a reason of its own is backed off (backoff.c)
 * and the scan goes on with the next one, in the same tick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backlog.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "log.h"
#include "parked.h"
#include "xmalloc.h"

/* What one backlog issue means for the scan. */
enum schedule_pick {
	SCHEDULE_NEXT, /* go on with the next issue */
	SCHEDULE_PICK, /* the one to start */
	SCHEDULE_OVER, /* the tick is over (a merge, a fallback launch) */
	SCHEDULE_FAIL  /* a read failed */
};

static enum dp_step schedule_after(struct dev_ctx *, enum dp_launch);
static enum dp_launch schedule_launch(struct dev_ctx *, long long,
    const cJSON *, const char *, long long);
static enum dp_step schedule_merge(struct dev_ctx *, struct dp_pr *, long long,
    const cJSON *);
static int schedule_free(struct dev_ctx *, long long, enum dp_step,
    enum dp_step *);
static int schedule_may_fix(struct dev_ctx *, long long, struct dp_pr *,
    enum dp_step, enum dp_step *);
static enum dp_step schedule_ci_fix(struct dev_ctx *, long long, const cJSON *,
    struct dp_pr *);
static enum dp_step schedule_orphan_pr(struct dev_ctx *, const cJSON *,
    long long, struct dp_pr *);
static enum dp_step schedule_orphan(struct dev_ctx *, const cJSON *, long long);
static const cJSON *schedule_first_unparked(struct dev_ctx *, const cJSON **,
    size_t);
static enum dp_step schedule_stuck_one(struct dev_ctx *, struct dp_pr *);
static enum schedule_pick schedule_backlog_pr(struct dev_ctx *, long long,
    struct dp_pr *, struct buf *, long long *);
static enum schedule_pick schedule_backlog_one(struct dev_ctx *,
    const struct backlog_issue *, struct buf *, long long *);
static enum dp_step schedule_backlog_decide(struct dev_ctx *, long long,
    const struct buf *, long long);

/*
 * The tick ends after any launch attempt but one that failed for the
 * issue's own reason or was backed off (DP_NEXT: the next issue); only a
 * failure is an error.
 */
static enum dp_step
schedule_after(struct dev_ctx *c, enum dp_launch r)
{
	if (r == DP_LAUNCHED)
		c->acted++;
	if (r == DP_LAUNCH_BAD || r == DP_BACKED_OFF || r == DP_REFUSED)
		return DP_NEXT;
	if (r != DP_LAUNCH_FAILED)
		return DP_DONE;
	c->failed++;
	return DP_FAIL;
}

static enum dp_launch
schedule_launch(struct dev_ctx *c, long long issue, const cJSON *it,
    const char *why, long long ci_fix_pr)
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
schedule_merge(struct dev_ctx *c, struct dp_pr *p, long long issue,
    const cJSON *it)
{
	switch (dp_merge(c, p)) {
	case DP_MERGED:
	case DP_MERGE_FAILED: /* unanswered: a later tick finds out */
		return DP_DONE;
	case DP_MERGE_UNKNOWN:
	case DP_MERGE_LATER: /* a later tick asks again */
		return DP_NEXT;
	case DP_MERGE_REFUSED:
		break;
	}
	if (issue <= 0) {
		log_warn("PR #%lld direct merge failed — no issue ref for "
			 "dev-agent, skipping",
		    p->pull->number);
		return DP_NEXT;
	}
	log_msg("falling back to dev-agent for PR #%lld merge",
	    p->pull->number);
	return schedule_after(c,
	    schedule_launch(c, issue, it, "agent-merge", 0));
}

/*
 * Whether the session of issue is free (1).  0: the step returns *stop,
 * busy when the session lives, DP_FAIL when that cannot be told.
 */
static int
schedule_free(struct dev_ctx *c, long long issue, enum dp_step busy,
    enum dp_step *stop)
{
	switch (dp_session_busy(c, issue)) {
	case DP_FREE:
		return 1;
	case DP_BUSY:
		*stop = busy;
		return 0;
	case DP_BUSY_UNKNOWN:
		break;
	}
	*stop = DP_FAIL;
	return 0;
}

/*
 * Whether a CI fix of p may start for issue: its session is free and
 * the budget has attempts left (1).  0: the step returns *stop (busy
 * when the session lives, DP_NEXT when the budget is spent, DP_FAIL).
 */
static int
schedule_may_fix(struct dev_ctx *c, long long issue, struct dp_pr *p,
    enum dp_step busy, enum dp_step *stop)
{
	long long attempts;

	if (!schedule_free(c, issue, busy, stop))
		return 0;
	*stop = DP_FAIL;
	switch (dp_cifix(c, p->pull->number, issue, 1, &attempts)) {
	case DP_CIFIX_EXHAUSTED:
		*stop = DP_NEXT;
		return 0;
	case DP_CIFIX_ERROR:
		return 0;
	case DP_CIFIX_OK:
		break;
	}
	return 1;
}

/* Priority 1, CI failed: a session to fix it, within the budget. */
static enum dp_step
schedule_ci_fix(struct dev_ctx *c, long long num, const cJSON *it,
    struct dp_pr *p)
{
	enum dp_step stop;

	if (!schedule_may_fix(c, num, p, DP_DONE, &stop))
		return stop;
	log_msg("issue #%lld PR #%lld CI failed — spawning agent to fix", num,
	    p->pull->number);
	return schedule_after(c,
	    schedule_launch(c, num, it, "CI fix", p->pull->number));
}

/* Priority 1 with an open PR on fix/issue-N. */
static enum dp_step
schedule_orphan_pr(struct dev_ctx *c, const cJSON *it, long long num,
    struct dp_pr *p)
{
	(void)dp_state_note_pr(c, num, p->pull->number);
	if (dp_pr_evaluate(c, p) == -1) {
		log_msg("issue #%lld PR #%lld: its state is unknown — passed "
			"over this tick",
		    num, p->pull->number);
		c->skipped++;
		return DP_NEXT;
	}
	switch (dp_pr_decide(p)) {
	case DP_PR_MERGE:
		return schedule_merge(c, p, num, it);
	case DP_PR_FIX_REVIEW:
		log_msg("issue #%lld PR #%lld has REQUEST_CHANGES — spawning "
			"agent",
		    num, p->pull->number);
		return schedule_after(c,
		    schedule_launch(c, num, it, "review fix", 0));
	case DP_PR_FIX_CI:
		return schedule_ci_fix(c, num, it, p);
	case DP_PR_WAIT:
		break;
	}
	log_msg("issue #%lld has open PR #%lld (CI: %s, waiting)", num,
	    p->pull->number, dp_pr_ci_name(p));
	return DP_NEXT;
}

/*
 * The first in-progress issue but parked escalations (theirs is the
 * resume's, resume.c), or NULL.  One whose record cannot be read is
 * passed over too.
 */
static const cJSON *
schedule_first_unparked(struct dev_ctx *c, const cJSON **list, size_t n)
{
	struct forge_issue fi;
	struct parked p;
	size_t i;

	for (i = 0; i < n; i++) {
		forge_issue_view(list[i], &fi);
		switch (dp_parked(c, fi.number, &p)) {
		case 0:
			return list[i];
		case 1:
			log_msg("issue #%lld is a parked escalation, waiting "
				"for a human reply — not an orphan",
			    fi.number);
			break;
		default:
			c->skipped++;
			break;
		}
	}
	return NULL;
}

enum dp_step
dp_orphans(struct dev_ctx *c)
{
	const cJSON **list, *it;
	struct forge_issue fi;
	const char *skip;
	struct dp_pr *p;
	long long num;
	size_t n;

	log_msg("checking for in-progress issues");
	if (dp_issues_labelled(c, "in-progress", &list, &n) == -1)
		return DP_FAIL;
	c->inprog = list;
	c->ninprog = n;
	if ((it = schedule_first_unparked(c, list, n)) == NULL)
		return DP_NEXT;
	forge_issue_view(it, &fi);
	if ((num = fi.number) <= 0)
		return DP_NEXT;
	if ((skip = backlog_skip(it)) != NULL) {
		log_msg("issue #%lld has '%s' label — removing in-progress, "
			"skipping",
		    num, skip);
		if (act_label_remove(&c->act, num, "in-progress") == -1)
			return DP_FAIL;
		c->acted++;
		return DP_DONE;
	}
	if (dp_prs_load(c) == -1)
		return DP_FAIL;
	if ((p = dp_pr_for_issue(c, num, 0)) != NULL)
		return schedule_orphan_pr(c, it, num, p);
	return schedule_orphan(c, it, num);
}

/*
 * Priority 1 without an open PR: a merged one means the work is done
 * (its after-merge steps are finished), else a recovery session.
 */
static enum dp_step
schedule_orphan(struct dev_ctx *c, const cJSON *it, long long num)
{
	long long pr;

	switch (dp_pr_merged(c, num, &pr)) {
	case 1:
		log_msg("issue #%lld: PR #%lld was merged — finishing its "
			"after-merge steps, no new session",
		    num, pr);
		return dp_merged(c, num, pr, NULL) == 0 ? DP_DONE : DP_FAIL;
	case -1:
		return DP_FAIL;
	default:
		break;
	}
	log_msg("recovering orphaned issue #%lld (no PR found)", num);
	return schedule_after(c, schedule_launch(c, num, it, "recovery", 0));
}

/* Priority 1.5 for one PR: DP_NEXT to look at the next one. */
static enum dp_step
schedule_stuck_one(struct dev_ctx *c, struct dp_pr *p)
{
	enum dp_pr_action act;
	enum dp_step stop;
	enum dp_launch l;

	if (dp_pr_evaluate(c, p) == -1) {
		c->skipped++;
		return DP_NEXT;
	}
	if ((act = dp_pr_decide(p)) == DP_PR_MERGE)
		return schedule_merge(c, p, p->pull->issue, NULL);
	if (p->pull->issue == 0 || act == DP_PR_WAIT)
		return DP_NEXT;
	if (act == DP_PR_FIX_REVIEW) {
		if (!schedule_free(c, p->pull->issue, DP_NEXT, &stop))
			return stop;
		log_msg("PR #%lld (issue #%lld) has REQUEST_CHANGES — fixing "
			"first",
		    p->pull->number, p->pull->issue);
		l = schedule_launch(c, p->pull->issue, NULL, "stuck PR", 0);
	} else {
		if (!schedule_may_fix(c, p->pull->issue, p, DP_NEXT, &stop))
			return stop;
		log_msg("PR #%lld (issue #%lld) CI failed — fixing",
		    p->pull->number, p->pull->issue);
		l = schedule_launch(c, p->pull->issue, NULL, "stuck PR",
		    p->pull->number);
	}
	if (l == DP_SKIPPED || l == DP_EXHAUSTED)
		return DP_NEXT;
	return schedule_after(c, l);
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
		if (c->prs[i].pull->issue < 0) {
			log_msg("PR #%lld has no issue ref — cannot spawn "
				"dev-agent, skipping",
			    c->prs[i].pull->number);
			continue;
		}
		if ((s = schedule_stuck_one(c, &c->prs[i])) != DP_NEXT)
			return s;
	}
	return DP_NEXT;
}

const struct backlog_issue **
dp_backlog_order(const struct backlog_issue *backlog, size_t n, size_t *nout)
{
	const struct backlog_issue **out;
	size_t i;

	out = xcalloc(n + 1, sizeof(*out));
	*nout = 0;
	for (i = 0; i < n; i++)
		if (backlog[i].priority)
			out[(*nout)++] = &backlog[i];
	for (i = 0; i < n; i++)
		if (!backlog[i].priority)
			out[(*nout)++] = &backlog[i];
	return out;
}

/*
 * A ready backlog issue with an open PR: pick the issue (*fix_pr set when
 * the launch pays for a CI fix), or go on with the next one (a waiting
 * PR is added to waiting).
 */
static enum schedule_pick
schedule_backlog_pr(struct dev_ctx *c, long long num, struct dp_pr *p,
    struct buf *waiting, long long *fix_pr)
{
	enum dp_pr_action act;
	long long attempts;

	/* Unknown: it may be waiting, so it holds new work like one. */
	if (dp_pr_evaluate(c, p) == -1) {
		c->skipped++;
		buf_printf(waiting, "%s#%lld (unknown)",
		    waiting->len ? ", " : "", p->pull->number);
		return SCHEDULE_NEXT;
	}
	/* As upstream, the backlog scan takes requested changes first. */
	if ((act = dp_pr_decide(p)) == DP_PR_FIX_CI && p->changes)
		act = DP_PR_FIX_REVIEW;
	switch (act) {
	case DP_PR_MERGE:
		switch (schedule_merge(c, p, num, NULL)) {
		case DP_FAIL:
			return SCHEDULE_FAIL;
		case DP_NEXT: /* not tried: it still holds new work */
			buf_printf(waiting, "%s#%lld", waiting->len ? ", " : "",
			    p->pull->number);
			return SCHEDULE_NEXT;
		default:
			return SCHEDULE_OVER;
		}
	case DP_PR_FIX_REVIEW:
		log_msg("#%lld PR #%lld has REQUEST_CHANGES — picking up", num,
		    p->pull->number);
		return SCHEDULE_PICK;
	case DP_PR_FIX_CI:
		/* An exhausted PR is no longer waiting: it holds nothing. */
		switch (dp_cifix(c, p->pull->number, num, 1, &attempts)) {
		case DP_CIFIX_EXHAUSTED:
			return SCHEDULE_NEXT;
		case DP_CIFIX_ERROR:
			return SCHEDULE_FAIL;
		case DP_CIFIX_OK:
			break;
		}
		log_msg("#%lld PR #%lld CI failed — picking up (attempt "
			"%lld/%d)",
		    num, p->pull->number, attempts + 1, DP_CI_FIX_BUDGET);
		*fix_pr = p->pull->number;
		return SCHEDULE_PICK;
	case DP_PR_WAIT:
		break;
	}
	log_msg("#%lld PR #%lld exists (CI: %s, waiting)", num, p->pull->number,
	    dp_pr_ci_name(p));
	buf_printf(waiting, "%s#%lld", waiting->len ? ", " : "",
	    p->pull->number);
	return SCHEDULE_NEXT;
}

/* Judge one backlog issue (*fix_pr set when its launch pays a CI fix). */
static enum schedule_pick
schedule_backlog_one(struct dev_ctx *c, const struct backlog_issue *it,
    struct buf *waiting, long long *fix_pr)
{
	long long num = it->number;
	struct dp_pr *p;

	if (it->skip != NULL) {
		log_msg("issue #%lld has '%s' label — skipping in backlog scan",
		    num, it->skip);
		return SCHEDULE_NEXT;
	}
	if (dp_backoff_holds(c, num) != 0)
		return SCHEDULE_NEXT;
	switch (dp_deps_ready(c, num, it->deps, it->ndeps)) {
	case DP_DEPS_OPEN:
		return SCHEDULE_NEXT;
	case DP_DEPS_UNKNOWN:
		log_msg("#%lld: its dependencies are unknown — passed over "
			"this tick",
		    num);
		c->skipped++;
		return SCHEDULE_NEXT;
	case DP_DEPS_MET:
		break;
	}
	if ((p = dp_pr_for_issue(c, num, 1)) != NULL)
		return schedule_backlog_pr(c, num, p, waiting, fix_pr);
	log_msg("#%lld is READY (all deps merged, no existing PR)", num);
	return SCHEDULE_PICK;
}

/*
 * What to do with the ready issue the scan found, waiting PRs aside:
 * DP_NEXT when its launch failed for a reason of its own (the scan goes
 * on).
 */
static enum dp_step
schedule_backlog_decide(struct dev_ctx *c, long long ready,
    const struct buf *waiting, long long fix_pr)
{
	if (waiting->len > 0) {
		log_msg("holding #%lld — waiting for open PR(s) to land first: "
			"%s",
		    ready, buf_str(waiting));
		return DP_DONE;
	}
	log_notice("launching dev-agent for #%lld", ready);
	/* The list kept none of its body: the launch reads it whole. */
	return schedule_after(c,
	    schedule_launch(c, ready, NULL, "backlog", fix_pr));
}

enum dp_step
dp_backlog(struct dev_ctx *c)
{
	const struct backlog_issue **order;
	enum schedule_pick pick;
	enum dp_step s = DP_NEXT;
	long long fix_pr = 0;
	struct buf waiting;
	size_t n, i, npri = 0, ready = 0;

	log_msg("scanning backlog for ready issues");
	if (dp_backlog_load(c) == -1 || dp_prs_load(c) == -1)
		return DP_FAIL;
	if (c->backlog.n == 0) {
		log_msg("no backlog issues");
		return DP_DONE;
	}
	order = dp_backlog_order(c->backlog.v, c->backlog.n, &n);
	for (i = 0; i < n; i++)
		npri += order[i]->priority;
	log_msg("found %zu backlog issues (%zu priority)", n, npri);
	dp_priority_label(c, npri);
	buf_init(&waiting, 0);
	for (i = 0; i < n && s == DP_NEXT; i++) {
		fix_pr = 0;
		pick = schedule_backlog_one(c, order[i], &waiting, &fix_pr);
		if (pick == SCHEDULE_FAIL)
			s = DP_FAIL;
		else if (pick == SCHEDULE_OVER)
			s = DP_DONE;
		else if (pick == SCHEDULE_PICK) {
			ready++;
			s = schedule_backlog_decide(c, order[i]->number,
			    &waiting, fix_pr);
		}
	}
	if (s == DP_NEXT) {
		log_msg(ready == 0 ?
			"no ready issues (all blocked by unmerged deps)" :
			"no other ready issue could be launched this tick");
		s = DP_DONE;
	}
	free(order);
	buf_free(&waiting);
	return s;
}
