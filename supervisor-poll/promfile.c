/*
 * supervisor-poll's metrics: the tick's file (common/tick/promtick.h),
 * $FACTORY_ROOT/metrics/supervisor-poll.prom for the host, or
 * supervisor-poll-P.prom for a tick of --project P alone (two such ticks
 * on one host must not replace each other's file).  It has the alerts the
 * tick raised by priority, the host's memory and disk, and the projects
 * checked.
 */
#include <stddef.h>

#include "config.h"
#include "log.h"
#include "prom.h"
#include "promtick.h"
#include "supervisor-poll.h"

#define MB (1024.0 * 1024.0)

const struct promtick_family sup_prom_families[] = {
    {"disinto_supervisor_alerts", PROM_GAUGE, 0,
	"Alerts the last tick raised, by priority (P0 memory, P1 disk, P2 "
	"the factory stopped, P3 degraded, P4 housekeeping)."},
    {"disinto_supervisor_projects", PROM_GAUGE, 0,
	"Projects the last tick checked."},
    {"disinto_host_memory_available_bytes", PROM_GAUGE, 0,
	"MemAvailable of the host."},
    {"disinto_host_swap_used_bytes", PROM_GAUGE, 0, "Swap in use."},
    {"disinto_host_disk_used_ratio", PROM_GAUGE, 0,
	"Used fraction of DISINTO_DISK_PATH's file system."},
    {NULL, PROM_GAUGE, 0, NULL}};

static int sup_prom_host(struct prom *, const struct sup *);

/* The host's figures, when the tick read them. */
static int
sup_prom_host(struct prom *p, const struct sup *s)
{
	if (s->have_mem &&
	    (prom_set(p, "disinto_host_memory_available_bytes", NULL,
		 (double)s->mem_avail_mb * MB) == -1 ||
		prom_set(p, "disinto_host_swap_used_bytes", NULL,
		    (double)s->swap_used_mb * MB) == -1))
		return -1;
	if (s->have_disk &&
	    prom_set(p, "disinto_host_disk_used_ratio", NULL,
		s->disk_pct / 100.0) == -1)
		return -1;
	return 0;
}

void
sup_prom_tick(struct promtick *pt, const struct sup *s, size_t nprojects)
{
	static const char *const names[NPRIO] = {"P0", "P1", "P2", "P3", "P4"};
	struct prom *p;
	size_t i;

	if (pt == NULL || (p = promtick_prom(pt)) == NULL)
		return;
	for (i = 0; i < NPRIO; i++) {
		const char *labels[] = {"priority", names[i], NULL};

		if (prom_set(p, "disinto_supervisor_alerts", labels,
			(double)s->nprio[i]) == -1)
			goto fail;
	}
	if (prom_set(p, "disinto_supervisor_projects", NULL,
		(double)nprojects) == -1 ||
	    sup_prom_host(p, s) == -1)
		goto fail;
	return;
fail:
	log_warn("metrics: %s", prom_error(p));
}
