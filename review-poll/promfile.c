/*
 * review-poll's metrics: the tick's file
 * $FACTORY_ROOT/metrics/review-poll-P.prom (common/tick/promtick.h) with the
 * project's review sessions by phase and the reviews started and posted.
 */
#include <stddef.h>

#include "config.h"
#include "log.h"
#include "prom.h"
#include "promtick.h"
#include "review-poll.h"

const struct promtick_family rp_prom_families[] = {
    {"disinto_review_sessions", PROM_GAUGE, 0,
	"Review sessions of the project by the phase of their phase file."},
    {"disinto_reviews_started_total", PROM_COUNTER, 0,
	"Review sessions started by the ticks."},
    {"disinto_reviews_posted_total", PROM_COUNTER, 0,
	"Reviews posted by the ticks."},
    {NULL, PROM_GAUGE, 0, NULL}};

void
rp_prom_tick(struct promtick *pt, const struct rp *rp)
{
	struct prom *p;

	if (pt == NULL || (p = promtick_prom(pt)) == NULL)
		return;
	if (prom_add(p, "disinto_reviews_started_total", NULL, rp->launched) ==
		-1 ||
	    prom_add(p, "disinto_reviews_posted_total", NULL, rp->posted) == -1)
		log_warn("metrics: %s", prom_error(p));
	if (promtick_sessions(pt, "disinto_review_sessions",
		rp->cfg->project_name, 1) == -1)
		log_warn("metrics: %s", promtick_error(pt));
}
