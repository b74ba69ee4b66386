/*
 * prom-sample DIR: write, through common/tick/prom.c, one tick's metrics of
 * each tool (dev-poll-demo.prom, review-poll-demo.prom,
 * supervisor-poll.prom in DIR) with the series the tools are to write,
 * some label values made of the characters that need escaping.  Each run
 * reads the files back first, as a tick does, so counters go on from the
 * previous run.  Exit 0, or 1 with the reason on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

struct sample_family {
	const char *name;
	enum prom_type type;
	int keep;
	const char *help;
};

/* Every tool: the tick and its API traffic. */
static const struct sample_family sample_tick[] = {
    {"disinto_tick_duration_seconds", PROM_GAUGE, 0,
	"Wall time of the last tick."},
    {"disinto_tick_exit_code", PROM_GAUGE, 0,
	"Exit status of the last tick (0 ok, 1 run-time failure, 2 "
	"configuration)."},
    {"disinto_tick_last_success_timestamp_seconds", PROM_GAUGE, 1,
	"Unix time of the end of the last tick that exited 0."},
    {"disinto_ticks_total", PROM_COUNTER, 0,
	"Ticks run, by result (ok, failed, config_error, locked, "
	"inactive)."},
    {"disinto_api_requests_total", PROM_COUNTER, 0,
	"HTTP requests sent, by API (forge, woodpecker)."},
    {"disinto_api_errors_total", PROM_COUNTER, 0,
	"HTTP requests that failed (transport error, timeout, 5xx after "
	"retries, bad JSON), by API."},
    {NULL, PROM_GAUGE, 0, NULL}};

static const struct sample_family sample_dev[] = {
    {"disinto_dev_sessions", PROM_GAUGE, 0,
	"Dev sessions by phase of their phase file."},
    {"disinto_dev_sessions_started_total", PROM_COUNTER, 0,
	"Dev sessions started, by kind (fresh, recovery, crash_recovery)."},
    {"disinto_dev_sessions_ended_total", PROM_COUNTER, 0,
	"Dev sessions ended, by outcome (merged, failed, refused, "
	"crashed, idle_prompt)."},
    {"disinto_dev_merges_total", PROM_COUNTER, 0, "PRs merged."},
    {"disinto_dev_ci_results_total", PROM_COUNTER, 0,
	"CI outcomes injected into sessions, by state (success, failure, "
	"infra_retrigger, timeout)."},
    {"disinto_dev_ci_fix_attempts_total", PROM_COUNTER, 0,
	"Sessions started to fix a failed CI."},
    {"disinto_dev_backlog_issues", PROM_GAUGE, 0,
	"Backlog issues seen by the last tick, by readiness (ready, "
	"blocked_by_deps)."},
    {"disinto_dev_memory_available_bytes", PROM_GAUGE, 0,
	"MemAvailable at the memory guard."},
    {NULL, PROM_GAUGE, 0, NULL}};

static const struct sample_family sample_review[] = {
    {"disinto_review_sessions", PROM_GAUGE, 0, "Review sessions by phase."},
    {"disinto_reviews_started_total", PROM_COUNTER, 0,
	"Review sessions started, by kind (review, re_review)."},
    {"disinto_reviews_posted_total", PROM_COUNTER, 0,
	"Reviews posted, by verdict (approve, request_changes, discuss, "
	"error)."},
    {"disinto_review_verdicts_injected_total", PROM_COUNTER, 0,
	"Verdicts typed into dev sessions, by verdict."},
    {NULL, PROM_GAUGE, 0, NULL}};

static const struct sample_family sample_supervisor[] = {
    {"disinto_supervisor_alerts", PROM_GAUGE, 0,
	"Alerts raised by the last tick, by priority (P0 to P4)."},
    {"disinto_supervisor_fixes_total", PROM_COUNTER, 0,
	"Automatic fixes applied, by kind."},
    {"disinto_supervisor_fixer_runs_total", PROM_COUNTER, 0,
	"SUPERVISOR_FIX_CMD runs, by result (ok, failed, timeout)."},
    {"disinto_supervisor_checks_skipped", PROM_GAUGE, 0,
	"Checks the last tick could not complete."},
    {"disinto_escalations_pending", PROM_GAUGE, 0,
	"Sessions in PHASE:escalate, by project."},
    {"disinto_escalation_oldest_age_seconds", PROM_GAUGE, 0,
	"Age of the oldest pending escalation, by project."},
    {"disinto_ci_pipelines_stuck", PROM_GAUGE, 0,
	"Pipelines running over 20 min or pending over 30 min, by project "
	"and state."},
    {"disinto_host_memory_available_bytes", PROM_GAUGE, 0,
	"MemAvailable of the host."},
    {"disinto_host_swap_used_bytes", PROM_GAUGE, 0, "Swap in use."},
    {"disinto_host_disk_used_ratio", PROM_GAUGE, 0,
	"Used fraction of DISINTO_DISK_PATH's filesystem."},
    {NULL, PROM_GAUGE, 0, NULL}};

static int sample_declare(struct prom *, const struct sample_family *);
static int sample_tick_values(struct prom *);
static int sample_dev_values(struct prom *);
static int sample_review_values(struct prom *);
static int sample_supervisor_values(struct prom *);
static int sample_one(const char *, const char *, const char *,
    const struct sample_family *, int (*)(struct prom *));

static int
sample_declare(struct prom *p, const struct sample_family *f)
{
	for (; f->name != NULL; f++)
		if (prom_declare(p, f->name, f->type, f->help) == -1 ||
		    (f->keep && prom_keep(p, f->name) == -1))
			return -1;
	return 0;
}

static int
sample_tick_values(struct prom *p)
{
	const char *ok[] = {"result", "ok", NULL};
	const char *forge[] = {"api", "forge", NULL};
	const char *wp[] = {"api", "woodpecker", NULL};

	if (prom_set(p, "disinto_tick_duration_seconds", NULL, 0.731) == -1 ||
	    prom_set(p, "disinto_tick_exit_code", NULL, 0) == -1 ||
	    prom_set(p, "disinto_tick_last_success_timestamp_seconds", NULL,
		1700000000) == -1 ||
	    prom_add(p, "disinto_ticks_total", ok, 1) == -1 ||
	    prom_add(p, "disinto_api_requests_total", forge, 14) == -1 ||
	    prom_add(p, "disinto_api_requests_total", wp, 3) == -1 ||
	    prom_add(p, "disinto_api_errors_total", forge, 1) == -1)
		return -1;
	return 0;
}

static int
sample_dev_values(struct prom *p)
{
	const char *ci[] = {"phase", "awaiting_ci", NULL};
	const char *odd[] = {"phase", "unknown \"x\\y\"\nz", NULL};
	const char *fresh[] = {"kind", "fresh", NULL};
	const char *merged[] = {"outcome", "merged", NULL};
	const char *fail[] = {"state", "failure", NULL};
	const char *ready[] = {"readiness", "ready", NULL};

	if (prom_set(p, "disinto_dev_sessions", ci, 1) == -1 ||
	    prom_set(p, "disinto_dev_sessions", odd, 0) == -1 ||
	    prom_add(p, "disinto_dev_sessions_started_total", fresh, 1) == -1 ||
	    prom_add(p, "disinto_dev_sessions_ended_total", merged, 1) == -1 ||
	    prom_add(p, "disinto_dev_merges_total", NULL, 1) == -1 ||
	    prom_add(p, "disinto_dev_ci_results_total", fail, 1) == -1 ||
	    prom_add(p, "disinto_dev_ci_fix_attempts_total", NULL, 1) == -1 ||
	    prom_set(p, "disinto_dev_backlog_issues", ready, 4) == -1 ||
	    prom_set(p, "disinto_dev_memory_available_bytes", NULL, 6.2e9) ==
		-1)
		return -1;
	return 0;
}

static int
sample_review_values(struct prom *p)
{
	const char *done[] = {"phase", "done", NULL};
	const char *review[] = {"kind", "review", NULL};
	const char *approve[] = {"verdict", "approve", NULL};

	if (prom_set(p, "disinto_review_sessions", done, 1) == -1 ||
	    prom_add(p, "disinto_reviews_started_total", review, 1) == -1 ||
	    prom_add(p, "disinto_reviews_posted_total", approve, 1) == -1 ||
	    prom_add(p, "disinto_review_verdicts_injected_total", approve, 1) ==
		-1)
		return -1;
	return 0;
}

static int
sample_supervisor_values(struct prom *p)
{
	const char *pri[] = {"priority", "P2", NULL};
	const char *fix[] = {"kind", "log_rotate", NULL};
	const char *run[] = {"result", "ok", NULL};
	const char *proj[] = {"project", "demo", NULL};
	const char *stuck[] = {"project", "demo", "state", "pending", NULL};

	if (prom_set(p, "disinto_supervisor_alerts", pri, 1) == -1 ||
	    prom_add(p, "disinto_supervisor_fixes_total", fix, 1) == -1 ||
	    prom_add(p, "disinto_supervisor_fixer_runs_total", run, 1) == -1 ||
	    prom_set(p, "disinto_supervisor_checks_skipped", NULL, 0) == -1 ||
	    prom_set(p, "disinto_escalations_pending", proj, 1) == -1 ||
	    prom_set(p, "disinto_escalation_oldest_age_seconds", proj, 5400) ==
		-1 ||
	    prom_set(p, "disinto_ci_pipelines_stuck", stuck, 0) == -1 ||
	    prom_set(p, "disinto_host_memory_available_bytes", NULL, 3.1e9) ==
		-1 ||
	    prom_set(p, "disinto_host_swap_used_bytes", NULL, 0) == -1 ||
	    prom_set(p, "disinto_host_disk_used_ratio", NULL, 0.42) == -1)
		return -1;
	return 0;
}

/* One tool's tick: declare, read back, set, write. */
static int
sample_one(const char *dir, const char *tool, const char *project,
    const struct sample_family *fams, int (*values)(struct prom *))
{
	struct prom *p = prom_new(tool, project);
	int r = -1;

	if (p == NULL) {
		fprintf(stderr, "prom-sample: bad name '%s'\n", tool);
		return -1;
	}
	if (sample_declare(p, sample_tick) == -1 ||
	    sample_declare(p, fams) == -1 || prom_load(p, dir) == -1 ||
	    sample_tick_values(p) == -1 || values(p) == -1 ||
	    prom_write(p, dir) == -1)
		fprintf(stderr, "prom-sample: %s: %s\n", tool, prom_error(p));
	else
		r = 0;
	prom_free(p);
	return r;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: prom-sample DIR\n");
		return 2;
	}
	if (sample_one(argv[1], "dev-poll", "demo", sample_dev,
		sample_dev_values) == -1 ||
	    sample_one(argv[1], "review-poll", "demo", sample_review,
		sample_review_values) == -1 ||
	    sample_one(argv[1], "supervisor-poll", NULL, sample_supervisor,
		sample_supervisor_values) == -1)
		return 1;
	return 0;
}
