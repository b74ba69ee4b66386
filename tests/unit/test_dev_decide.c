/*
 * Unit tests for dev-poll's pure decisions, linked with its archive
 * (dev-poll/libdevpoll.a): what a PR needs next (merge, fix the review,
 * fix CI, wait; the rule for its verdict is test_reviewed.c's), the
 * backlog's launch order and dependency
 * readiness, the CI-fix budget's rule, and what a phase file calls for.
 * Until now these were reached only through the simulator and tmux.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "config.h"
#include "dev-poll.h"
#include "react.h"

static cJSON *
parse(const char *text)
{
	cJSON *j = cJSON_Parse(text);

	CHECK(j != NULL);
	return j;
}

/* The model's PR the facts below are of. */
static const struct pull the_pull = {.number = 7, .issue = 3};

/* A PR evaluated to these facts. */
static struct dp_pr
pr_facts(int passed, int failed, int approved, int changes)
{
	struct dp_pr p;

	memset(&p, 0, sizeof(p));
	p.pull = &the_pull;
	p.evaluated = 1;
	p.passed = passed;
	p.failed = failed;
	p.approved = approved;
	p.changes = changes;
	return p;
}

static void
test_pr_decide(void)
{
	struct dp_pr p;

	p = pr_facts(1, 0, 1, 0);
	CHECK_INT(dp_pr_decide(&p), DP_PR_MERGE);
	/* Approved but CI not passed yet: wait, never merge. */
	p = pr_facts(0, 0, 1, 0);
	CHECK_INT(dp_pr_decide(&p), DP_PR_WAIT);
	/* Changes requested: a session, whether CI passed or still runs. */
	p = pr_facts(1, 0, 0, 1);
	CHECK_INT(dp_pr_decide(&p), DP_PR_FIX_REVIEW);
	p = pr_facts(0, 0, 0, 1);
	CHECK_INT(dp_pr_decide(&p), DP_PR_FIX_REVIEW);
	/* CI failed: a CI fix, changes requested or not. */
	p = pr_facts(0, 1, 0, 0);
	CHECK_INT(dp_pr_decide(&p), DP_PR_FIX_CI);
	p = pr_facts(0, 1, 0, 1);
	CHECK_INT(dp_pr_decide(&p), DP_PR_FIX_CI);
	p = pr_facts(0, 1, 1, 0);
	CHECK_INT(dp_pr_decide(&p), DP_PR_FIX_CI);
	/* Nothing yet. */
	p = pr_facts(0, 0, 0, 0);
	CHECK_INT(dp_pr_decide(&p), DP_PR_WAIT);
	p = pr_facts(1, 0, 0, 0);
	CHECK_INT(dp_pr_decide(&p), DP_PR_WAIT);
}

/* Priority issues first, each tier in the order read (oldest first). */
static void
test_backlog_order(void)
{
	struct backlog_issue items[4] = {{.number = 1},
	    {.number = 2, .priority = 1}, {.number = 3},
	    {.number = 4, .priority = 1}};
	const struct backlog_issue **order;
	long long want[] = {2, 4, 1, 3};
	size_t i, count;

	order = dp_backlog_order(items, 4, &count);
	CHECK_INT(count, 4);
	for (i = 0; i < count && i < 4; i++)
		CHECK_INT(order[i]->number, want[i]);
	free(order);
	order = dp_backlog_order(items, 0, &count);
	CHECK_INT(count, 0);
	free(order);
}

/*
 * Readiness without the forge: a dependency listed among the open issues
 * read this tick is open; no dependency at all is ready.
 */
static void
test_issue_ready(void)
{
	cJSON *list = parse("[{\"number\": 5}, {\"number\": 6}]");
	struct backlog_issue backlog[1] = {{.number = 5}};
	const struct backlog_issue *by_number[1] = {&backlog[0]};
	const cJSON *inprog[1];
	long long deps[] = {5, 6};
	struct dev_ctx c;

	memset(&c, 0, sizeof(c));
	inprog[0] = cJSON_GetArrayItem(list, 1);
	c.backlog.v = backlog;
	c.backlog.n = 1;
	c.backlog.by_number = by_number;
	c.backlog.read = 1;
	c.inprog = inprog;
	c.ninprog = 1;
	CHECK_INT(dp_issue_ready(&c, 9, "No dependencies here."), DP_DEPS_MET);
	CHECK_INT(dp_issue_ready(&c, 9, NULL), DP_DEPS_MET);
	CHECK_INT(dp_issue_ready(&c, 9, "## Dependencies\n- #5\n"),
	    DP_DEPS_OPEN);
	CHECK_INT(dp_issue_ready(&c, 9, "Blocked by #6 (in progress)."),
	    DP_DEPS_OPEN);
	/* Itself, and #N outside the sections and phrases, do not count. */
	CHECK_INT(dp_issue_ready(&c, 5, "## Depends on\n- #5\n"), DP_DEPS_MET);
	CHECK_INT(dp_issue_ready(&c, 9, "See #5 for context."), DP_DEPS_MET);
	/* The backlog keeps the numbers parsed from each body. */
	CHECK_INT(dp_deps_ready(&c, 9, deps, 0), DP_DEPS_MET);
	CHECK_INT(dp_deps_ready(&c, 9, deps, 1), DP_DEPS_OPEN);
	CHECK_INT(dp_deps_ready(&c, 9, deps + 1, 1), DP_DEPS_OPEN);
	cJSON_Delete(list);
}

/* The budget: DP_CI_FIX_BUDGET attempts, then exactly one first sight. */
static void
test_cifix_step(void)
{
	long long next;
	int changed;

	CHECK_INT(dp_cifix_step(0, DP_CIFIX_CHECK, &next, &changed),
	    DP_CIFIX_LEFT);
	CHECK_INT(changed, 0);
	CHECK_INT(dp_cifix_step(0, DP_CIFIX_INCREMENT, &next, &changed),
	    DP_CIFIX_LEFT);
	CHECK_INT(next, 1);
	CHECK_INT(changed, 1);
	CHECK_INT(dp_cifix_step(DP_CI_FIX_BUDGET - 1, DP_CIFIX_INCREMENT, &next,
		      &changed),
	    DP_CIFIX_LEFT);
	CHECK_INT(next, DP_CI_FIX_BUDGET);
	/* The budget used: the first check moves it past and says so. */
	CHECK_INT(
	    dp_cifix_step(DP_CI_FIX_BUDGET, DP_CIFIX_CHECK, &next, &changed),
	    DP_CIFIX_FIRST);
	CHECK_INT(next, DP_CI_FIX_BUDGET + 1);
	CHECK_INT(changed, 1);
	CHECK_INT(dp_cifix_step(DP_CI_FIX_BUDGET, DP_CIFIX_INCREMENT, &next,
		      &changed),
	    DP_CIFIX_FIRST);
	CHECK_INT(next, DP_CI_FIX_BUDGET + 1);
	/* Every later step: spent, nothing written. */
	CHECK_INT(dp_cifix_step(DP_CI_FIX_BUDGET + 1, DP_CIFIX_CHECK, &next,
		      &changed),
	    DP_CIFIX_SPENT);
	CHECK_INT(changed, 0);
	CHECK_INT(dp_cifix_step(DP_CI_FIX_BUDGET + 1, DP_CIFIX_INCREMENT, &next,
		      &changed),
	    DP_CIFIX_SPENT);
	CHECK_INT(next, DP_CI_FIX_BUDGET + 1);
	CHECK_INT(changed, 0);
	/* Reading changes nothing; a reset forgets. */
	CHECK_INT(
	    dp_cifix_step(DP_CI_FIX_BUDGET, DP_CIFIX_READ, &next, &changed),
	    DP_CIFIX_LEFT);
	CHECK_INT(changed, 0);
	CHECK_INT(dp_cifix_step(5, DP_CIFIX_RESET, &next, &changed),
	    DP_CIFIX_LEFT);
	CHECK_INT(next, 0);
	CHECK_INT(changed, 1);
}

static void
test_phase_reaction(void)
{
	const char *cause;
	long long t = 7200;

	/* Done and failed are handled even when the session is gone. */
	CHECK_INT(rx_reaction(PHASE_DONE, 0, 1, 99999, t, &cause), RX_DONE);
	CHECK_INT(rx_reaction(PHASE_FAILED, -1, 0, 0, t, &cause), RX_FAILED);
	/* An unknown phase is no phase yet for the clocks. */
	CHECK_INT(rx_reaction(PHASE_UNKNOWN, 1, 0, 0, t, &cause), RX_IDLE);
	CHECK_INT(rx_reaction(PHASE_UNKNOWN, 1, 0, t + 1, t, &cause),
	    RX_RECOVER);
	CHECK_INT(rx_reaction(PHASE_UNKNOWN, 0, 0, 0, t, &cause), RX_RECOVER);
	/* Cannot tell whether it lives: nothing this tick. */
	CHECK_INT(rx_reaction(PHASE_AWAITING_CI, -1, 0, 0, t, &cause),
	    RX_UNSURE);
	/* Gone, or ended by the hook: recovered before anything else. */
	CHECK_INT(rx_reaction(PHASE_AWAITING_CI, 0, 0, 0, t, &cause),
	    RX_RECOVER);
	CHECK_STR(cause, "the session is gone");
	CHECK_INT(rx_reaction(PHASE_ESCALATE, 1, 1, 0, t, &cause), RX_RECOVER);
	CHECK_STR(cause, "the session ended");
	/* Stuck past CLAUDE_TIMEOUT before a phase or waiting for CI. */
	CHECK_INT(rx_reaction(PHASE_NONE, 1, 0, t + 1, t, &cause), RX_RECOVER);
	CHECK(cause != NULL && strstr(cause, "CLAUDE_TIMEOUT") != NULL);
	CHECK_INT(rx_reaction(PHASE_AWAITING_CI, 1, 0, t + 1, t, &cause),
	    RX_RECOVER);
	/* The waiting phases have clocks of their own. */
	CHECK_INT(rx_reaction(PHASE_AWAITING_REVIEW, 1, 0, t * 10, t, &cause),
	    RX_IGNORE);
	CHECK_INT(rx_reaction(PHASE_ESCALATE, 1, 0, t * 10, t, &cause),
	    RX_IGNORE);
	CHECK(cause == NULL);
	/* Alive and within time. */
	CHECK_INT(rx_reaction(PHASE_NONE, 1, 0, t, t, &cause), RX_IDLE);
	CHECK_INT(rx_reaction(PHASE_AWAITING_CI, 1, 0, 10, t, &cause), RX_CI);
}

int
main(void)
{
	RUN(test_pr_decide);
	RUN(test_backlog_order);
	RUN(test_issue_ready);
	RUN(test_cifix_step);
	RUN(test_phase_reaction);
	return check_main();
}
