/*
 * dev-poll's metrics: the tick's file $FACTORY_ROOT/metrics/dev-poll-P.prom
 * (common/tick/promtick.h) with the project's dev sessions by phase, the
 * escalations waiting for a person, the sessions started (CI fixes
 * among them), the merges and the backlog.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "apipause.h"
#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "prom.h"
#include "promtick.h"
#include "runfiles.h"

const struct promtick_family dp_prom_families[] = {
    {"disinto_dev_sessions", PROM_GAUGE, 0,
	"Dev sessions of the project by the phase of their phase file."},
    {"disinto_escalations_pending", PROM_GAUGE, 0,
	"Dev sessions waiting for a person (PHASE:escalate)."},
    {"disinto_escalation_oldest_age_seconds", PROM_GAUGE, 0,
	"Time the oldest pending escalation has waited (0 when none)."},
    {"disinto_dev_sessions_started_total", PROM_COUNTER, 0,
	"Dev sessions started by the ticks (CI fixes and crash recoveries "
	"included)."},
    {"disinto_dev_ci_fix_attempts_total", PROM_COUNTER, 0,
	"Dev sessions started to fix a PR's failed CI."},
    {"disinto_dev_merges_total", PROM_COUNTER, 0,
	"PRs merged (or whose merge was asked) by the ticks."},
    {"disinto_dev_backlog_issues", PROM_GAUGE, 0,
	"Open backlog issues the last tick read."},
    {"disinto_api_paused", PROM_GAUGE, 0,
	"1 while an API error of the agent CLI's pauses the project's "
	"sessions, by the error (reason \"none\": 0, not paused)."},
    {"disinto_api_pause_age_seconds", PROM_GAUGE, 0,
	"Time since the API pause began, resumes included (0 when none)."},
    {NULL, PROM_GAUGE, 0, NULL}};

static int dp_prom_counts(struct prom *, const struct dev_ctx *);
static int dp_prom_pause(struct prom *, const struct dev_ctx *);

/* What the tick did, onto the counters; the backlog when it was read. */
static int
dp_prom_counts(struct prom *p, const struct dev_ctx *c)
{
	if (prom_add(p, "disinto_dev_sessions_started_total", NULL,
		c->launched) == -1 ||
	    prom_add(p, "disinto_dev_ci_fix_attempts_total", NULL,
		c->ci_fixes) == -1 ||
	    prom_add(p, "disinto_dev_merges_total", NULL, c->merged) == -1)
		return -1;
	if (c->backlog.read == 1 &&
	    prom_set(p, "disinto_dev_backlog_issues", NULL,
		(double)c->backlog.n) == -1)
		return -1;
	return 0;
}

/* The API pause (apipause.h) as the tick ends. */
static int
dp_prom_pause(struct prom *p, const struct dev_ctx *c)
{
	char *path = runfiles_api_pause(c->cfg->project_name);
	const char *labels[3] = {"reason", "none", NULL};
	struct apipause ap;
	int active;

	if (apipause_read(path, &ap) == -1)
		memset(&ap, 0, sizeof(ap));
	free(path);
	if ((active = apipause_active(&ap, c->now)))
		labels[1] = ap.reason;
	return prom_set(p, "disinto_api_paused", labels, active) == -1 ||
		prom_set(p, "disinto_api_pause_age_seconds", NULL,
		    ap.since > 0 && c->now > ap.since ?
			(double)(c->now - ap.since) :
			0) == -1 ?
	    -1 :
	    0;
}

void
dp_prom_tick(struct promtick *pt, const struct dev_ctx *c)
{
	const char *project = c->cfg->project_name;
	struct prom *p;

	if (pt == NULL || (p = promtick_prom(pt)) == NULL)
		return;
	if (dp_prom_counts(p, c) == -1 || dp_prom_pause(p, c) == -1)
		log_warn("metrics: %s", prom_error(p));
	if (promtick_sessions(pt, "disinto_dev_sessions", project, 0) == -1 ||
	    promtick_escalations(pt, project, c->now) == -1)
		log_warn("metrics: %s", promtick_error(pt));
}
