/*
 * A tick's metrics file for Prometheus' textfile collector (prom.h):
 * $FACTORY_ROOT/metrics/TOOL-P.prom, or TOOL.prom for a tick over no
 * one project.  Every tool writes the same tick families (how long the
 * tick took, how it ended, when it last succeeded, the API requests it
 * sent and those that failed) beside its own ones, and gauges read from
 * the run files (sessions by phase, escalations waiting).
 *
 * A tick takes a promtick first thing (the clock starts), opens it once
 * the configuration is loaded, sets its own values on promtick_prom() and
 * closes it on its way out, whatever the way: the file is replaced in
 * one rename, and counters go on from the file the previous tick wrote.
 *
 * Functions returning -1 put the reason in promtick_error().
 */
#ifndef PROMTICK_H
#define PROMTICK_H

#include <stddef.h>
#include <time.h>

#include "prom.h"

struct config;
struct promtick;

/* The APIs whose requests are counted apart (http_stats_watch() names). */
#define PROMTICK_FORGE "forge"
#define PROMTICK_WOODPECKER "woodpecker"

/* One family of a tool's own (a table ends with a NULL name). */
struct promtick_family {
	const char *name;
	enum prom_type type;
	int keep; /* a gauge kept across ticks (prom_keep()) */
	const char *help;
};

/* How a tick ended: the ticks_total label and what it means. */
#define PROMTICK_OK "ok"		     /* exit 0 after a tick */
#define PROMTICK_FAILED "failed"	     /* exit 1 */
#define PROMTICK_DEGRADED "degraded"	     /* exit 1: a read failed */
#define PROMTICK_CONFIG_ERROR "config_error" /* exit 2 */
#define PROMTICK_LOCKED "locked"	     /* another tick runs */
#define PROMTICK_INACTIVE "inactive"	     /* the factory is paused */

/*
 * A tick of tool ("dev-poll") starts now.  Free with promtick_free()
 * (or promtick_close()).
 */
struct promtick *promtick_new(const char *tool);
/* Free it without writing; NULL is accepted. */
void promtick_free(struct promtick *);
/* Why the last call failed; valid until the next call. */
const char *promtick_error(const struct promtick *);

/*
 * Set the tick up for project (NULL: none) of the factory of cfg: declare
 * the tick families and fams (NULL: none), count cfg's forge and
 * Woodpecker requests apart (promtick_watch()) and read the previous
 * tick's file back.  The run files are pointed at cfg's directories
 * (runfiles_init()), as cli_configure() does.  Returns 0, or -1 (no
 * factory, a bad name, an unreadable file).
 */
int promtick_open(struct promtick *, const struct config *cfg,
    const char *project, const struct promtick_family *fams);
/*
 * promtick_open() for a tool's main(): t, or NULL after logging why it
 * failed (t is then freed): the tick goes on without metrics.
 */
struct promtick *promtick_begin(struct promtick *t, const struct config *cfg,
    const char *project, const struct promtick_family *fams);
/*
 * Count the requests to cfg's forge ("forge") and Woodpecker
 * ("woodpecker") apart, for a tick over several projects.  0 or -1.
 */
int promtick_watch(struct promtick *, const struct config *cfg);
/* The same without metrics (which API a failed read went to).  0 or -1. */
int promtick_watch_apis(const struct config *cfg);
/* The metrics, to set the tool's own values; NULL before promtick_open(). */
struct prom *promtick_prom(struct promtick *);

/*
 * Set gauge family (labelled "phase") to the number of project's dev
 * sessions (review: review sessions) in each phase, as their phase files
 * say: every known phase is set, 0 when none is in it; "none" is a file
 * without a phase yet, "unknown" one that names no phase.  0, or -1
 * when the run directory cannot be listed.
 */
int promtick_sessions(struct promtick *, const char *family,
    const char *project, int review);
/*
 * Set disinto_escalations_pending and disinto_escalation_oldest_age_seconds
 * (0 when none) from project's dev sessions in PHASE:escalate, aged from
 * their phase file's last change as of now (the families must be
 * declared).  0 or -1.
 */
int promtick_escalations(struct promtick *, const char *project, time_t now);

/*
 * The tick ended with exit_code and result (PROMTICK_*): set the tick
 * families (the last success time when exit_code is 0) and write the
 * file atomically.  The promtick is freed either way.  0 (also for a NULL
 * promtick: no metrics wanted), or -1 with the reason in err (also when
 * the promtick was never opened).
 */
int promtick_close(struct promtick *, int exit_code, const char *result,
    char *err, size_t errsz);
/*
 * The result of a tick that exited rc: result when it is set (locked,
 * inactive), else ok, failed or config_error by rc.
 */
const char *promtick_result(int rc, const char *result);
/* promtick_close() for a tool's main(), logging a failure as a warning. */
void promtick_end(struct promtick *, int exit_code, const char *result);

#endif
