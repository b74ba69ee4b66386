/*
 * Unit tests for dev-poll's pure decisions, linked with its archive
 * (dev-poll/libdevpoll.a): what a PR needs next (merge, fix the review,
 * fix CI, wait; the rule for its verdict is test_reviewed.c's), the
 * backlog's launch order and dependency readiness, the CI-fix budget's
 * rule, what a phase file calls for (and the crash clock, by the table
 * of phases), the labels that keep an issue out, the memory guard, the
 * launch back-off and the agent slot.
 * Until now these were reached only through the simulator and tmux.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "check.h"
#include "config.h"
#include "dev-poll.h"
#include "phase.h"
#include "react.h"
#include "reviewers.h"
#include "runfiles.h"

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

/*
 * The crash clock runs in the phases the table gives it, and in no
 * other: past CLAUDE_TIMEOUT, a live session in such a phase is
 * recovered, one in another phase is left to its own clock.
 */
static void
test_phase_crash_clock(void)
{
	const char *cause;
	enum rx_reaction r;
	size_t p;

	for (p = 0; p < PHASE_COUNT; p++) {
		if (phase_is_terminal((enum phase)p) || p == PHASE_UNKNOWN)
			continue;
		r = rx_reaction((enum phase)p, 1, 0, 100, 99, &cause);
		CHECK_INT(r == RX_RECOVER,
		    phase_def((enum phase)p)->crash_clock);
		r = rx_reaction((enum phase)p, 1, 0, 99, 99, &cause);
		CHECK(r != RX_RECOVER);
	}
}

/* The labels that keep an issue out of the launches. */
static void
test_skip_label(void)
{
	static const char *const skipped[] = {"formula", "action",
	    "prediction/dismissed", "prediction/unreviewed", NULL};
	char text[256];
	cJSON *it;
	size_t i;

	for (i = 0; skipped[i] != NULL; i++) {
		snprintf(text, sizeof(text),
		    "{\"number\": 3, \"labels\": [{\"name\": \"backlog\"}, "
		    "{\"name\": \"%s\"}]}",
		    skipped[i]);
		it = parse(text);
		CHECK_STR(backlog_skip(it), skipped[i]);
		cJSON_Delete(it);
	}
	it = parse("{\"number\": 3, \"labels\": [{\"name\": \"backlog\"}, "
		   "{\"name\": \"priority\"}, {\"name\": \"formulas\"}]}");
	CHECK(backlog_skip(it) == NULL);
	cJSON_Delete(it);
	it = parse("{\"number\": 3}");
	CHECK(backlog_skip(it) == NULL);
	cJSON_Delete(it);
}

/* A scratch run directory and a context of project "p" over it. */
static char dp_dir[] = "/tmp/test_dev_decide.XXXXXX";

static void
dp_ctx(struct dev_ctx *c, struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->project_name = "p";
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->now = 1714557600;
}

/* dp_dir/name with text (NULL: removed). */
static void
dp_put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dp_dir, name);
	if (text == NULL) {
		unlink(path);
		return;
	}
	CHECK_INT(runfiles_session_mkdir_for(path), 0);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

/* The memory guard: 2000 MB available, or no launch. */
static void
test_memory_guard(void)
{
	struct config cfg;
	struct dev_ctx c;
	char path[512];

	dp_ctx(&c, &cfg);
	snprintf(path, sizeof(path), "%s/meminfo", dp_dir);
	cfg.meminfo_path = path;
	dp_put("meminfo", "MemTotal: 8000000 kB\nMemAvailable: 2047999 kB\n");
	CHECK_INT(dp_memory(&c), DP_DONE);
	dp_put("meminfo", "MemTotal: 8000000 kB\nMemAvailable: 2048000 kB\n");
	CHECK_INT(dp_memory(&c), DP_NEXT);
	/* Not known: the tick cannot decide, and fails. */
	dp_put("meminfo", "MemTotal: 8000000 kB\n");
	CHECK_INT(dp_memory(&c), DP_FAIL);
	dp_put("meminfo", NULL);
	CHECK_INT(dp_memory(&c), DP_FAIL);
}

/*
 * An issue that failed to launch for a reason of its own waits, longer
 * after each failure; a launch forgets it; an unreadable record passes
 * the issue over this tick.
 */
static void
test_backoff(void)
{
	char *rec = runfiles_launch_backoff("p", 8);
	struct config cfg;
	struct dev_ctx c;

	dp_ctx(&c, &cfg);
	CHECK_INT(dp_backoff_holds(&c, 8), 0);
	dp_backoff_failed(&c, 8, "its body is over the cap");
	CHECK_INT(c.act.failed, 0);
	CHECK_INT(dp_backoff_holds(&c, 8), 1);
	CHECK_INT(dp_backoff_holds(&c, 9), 0);
	c.now += 24 * 3600;
	CHECK_INT(dp_backoff_holds(&c, 8), 0);
	dp_backoff_failed(&c, 8, "again");
	CHECK_INT(dp_backoff_holds(&c, 8), 1);
	dp_backoff_clear(&c, 8);
	CHECK_INT(dp_backoff_holds(&c, 8), 0);
	/* Under dry-run nothing is recorded. */
	c.act.dry_run = 1;
	dp_backoff_failed(&c, 8, "dry");
	CHECK_INT(dp_backoff_holds(&c, 8), 0);
	c.act.dry_run = 0;
	CHECK_INT(mkdir(rec, 0700), 0);
	CHECK_INT(dp_backoff_holds(&c, 8), -1);
	rmdir(rec);
	free(rec);
}

/* The sessions the fake backend lists, and whether listing works. */
static const char *fake_live[4];
static int fake_list_fails;

static int
fake_list(const char *prefix, char ***names, size_t *n)
{
	size_t i;

	*names = NULL;
	*n = 0;
	if (fake_list_fails)
		return -1;
	*names = calloc(5, sizeof(**names));
	for (i = 0; fake_live[i] != NULL; i++)
		if (strncmp(fake_live[i], prefix, strlen(prefix)) == 0)
			(*names)[(*n)++] = strdup(fake_live[i]);
	return 0;
}

static void
fake_list_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int
fake_read_signal(const char *session, const char *path, struct phase_info *pi)
{
	(void)session;
	return phase_read(path, pi);
}

static const struct agent_backend fake_backend = {.protocol = "fake",
    .read_signal = fake_read_signal,
    .list = fake_list,
    .list_free = fake_list_free};

/*
 * The agent slot: one dev session of the project at a time, live in the
 * session list or with a phase file that has not ended (the one the
 * caller launches for excepted).
 */
static void
test_slot(void)
{
	struct config cfg;
	struct dev_ctx c;

	dp_ctx(&c, &cfg);
	agent_set_backend(&fake_backend);
	CHECK_INT(dp_slot(&c), DP_NEXT);
	/* A launch's empty phase file holds it, as a phase in progress. */
	dp_put("sessions/active/dev-p-4/dev-session-p-4.phase", "");
	CHECK_INT(dp_slot(&c), DP_DONE);
	CHECK_INT(dp_slot_except(&c, 4), DP_NEXT);
	dp_put("sessions/active/dev-p-4/dev-session-p-4.phase",
	    "PHASE:awaiting_review\n");
	CHECK_INT(dp_slot(&c), DP_DONE);
	dp_put("sessions/active/dev-p-4/dev-session-p-4.phase",
	    "PHASE:escalate\nReason: why\n");
	CHECK_INT(dp_slot(&c), DP_DONE);
	/* A session that ended holds nothing. */
	dp_put("sessions/active/dev-p-4/dev-session-p-4.phase", "PHASE:done\n");
	CHECK_INT(dp_slot(&c), DP_NEXT);
	dp_put("sessions/active/dev-p-4/dev-session-p-4.phase",
	    "PHASE:failed\n");
	CHECK_INT(dp_slot(&c), DP_NEXT);
	/* Another project's session does not count; this one's does. */
	fake_live[0] = "dev-q-3";
	CHECK_INT(dp_slot(&c), DP_NEXT);
	fake_live[1] = "dev-p-7";
	CHECK_INT(dp_slot(&c), DP_DONE);
	CHECK_INT(dp_slot_except(&c, 7), DP_NEXT);
	/* The list cannot be had: no decision. */
	fake_list_fails = 1;
	CHECK_INT(dp_slot(&c), DP_FAIL);
	fake_list_fails = 0;
	fake_live[0] = fake_live[1] = NULL;
	dp_put("sessions/active/dev-p-4/dev-session-p-4.phase", NULL);
	agent_set_backend(NULL);
}

int
main(void)
{
	RUN(test_pr_decide);
	RUN(test_backlog_order);
	RUN(test_issue_ready);
	RUN(test_cifix_step);
	RUN(test_phase_reaction);
	RUN(test_phase_crash_clock);
	RUN(test_skip_label);
	if (mkdtemp(dp_dir) == NULL)
		return 1;
	runfiles_init(dp_dir, dp_dir);
	RUN(test_memory_guard);
	RUN(test_backoff);
	RUN(test_slot);
	dp_put("meminfo", NULL);
	rmdir(dp_dir);
	return check_main();
}
