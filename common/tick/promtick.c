/*
 * A tick's metrics file: the families every tool shares, the gauges read
 * from the run files, and the write on the way out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "http.h"
#include "log.h"
#include "phase.h"
#include "prom.h"
#include "promtick.h"
#include "runfiles.h"
#include "xmalloc.h"

struct promtick {
	char *tool;
	struct prom *prom; /* NULL until promtick_open() */
	char *dir;	   /* $FACTORY_ROOT/metrics */
	struct timespec start;
	char error[512];
};

/* The families of every tick. */
static const struct promtick_family promtick_tick_families[] = {
    {"disinto_tick_duration_seconds", PROM_GAUGE, 0,
	"Wall time of the last tick."},
    {"disinto_tick_exit_code", PROM_GAUGE, 0,
	"Exit status of the last tick (0 ok, 1 run-time failure, 2 usage or "
	"configuration error)."},
    {"disinto_tick_last_success_timestamp_seconds", PROM_GAUGE, 1,
	"Unix time of the end of the last tick that exited 0."},
    {"disinto_tick_passes", PROM_GAUGE, 0,
	"Passes of its steps the last tick ran (1, and one more for each "
	"time it was woken while it ran)."},
    {"disinto_ticks_total", PROM_COUNTER, 0,
	"Ticks run, by result (ok, degraded, failed, config_error, locked, "
	"inactive)."},
    {"disinto_api_requests_total", PROM_COUNTER, 0,
	"HTTP requests sent (each attempt), by API (forge, woodpecker)."},
    {"disinto_api_errors_total", PROM_COUNTER, 0,
	"HTTP requests that failed (no answer: code transport; a 4xx; a 5xx "
	"after the retries), by API (forge, woodpecker) and code."},
    {NULL, PROM_GAUGE, 0, NULL}};

static int promtick_fail(struct promtick *, const char *);
static int promtick_declare(struct promtick *, const struct promtick_family *);
static char *promtick_prefix(const char *, const char *);
static double promtick_elapsed(const struct promtick *);
static int promtick_api(struct promtick *, const char *);
static int promtick_tick(struct promtick *, int, const char *);

struct promtick *
promtick_new(const char *tool)
{
	struct promtick *t = xcalloc(1, sizeof(*t));

	t->tool = xstrdup(tool);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	return t;
}

void
promtick_free(struct promtick *t)
{
	if (t == NULL)
		return;
	prom_free(t->prom);
	free(t->dir);
	free(t->tool);
	free(t);
}

const char *
promtick_error(const struct promtick *t)
{
	return t->error;
}

/* Say why; always -1. */
static int
promtick_fail(struct promtick *t, const char *why)
{
	snprintf(t->error, sizeof(t->error), "%s", why);
	return -1;
}

static int
promtick_declare(struct promtick *t, const struct promtick_family *f)
{
	for (; f != NULL && f->name != NULL; f++)
		if (prom_declare(t->prom, f->name, f->type, f->help) == -1 ||
		    (f->keep && prom_keep(t->prom, f->name) == -1))
			return promtick_fail(t, prom_error(t->prom));
	return 0;
}

int
promtick_open(struct promtick *t, const struct config *cfg, const char *project,
    const struct promtick_family *fams)
{
	char why[256];

	if (t->prom != NULL)
		return promtick_fail(t, "opened twice");
	if (cfg->factory_root == NULL || cfg->run_dir == NULL)
		return promtick_fail(t, "no factory");
	/* Also after a configuration that failed to load. */
	runfiles_init(cfg->run_dir, cfg->factory_root);
	if ((t->prom = prom_new(t->tool, project)) == NULL) {
		snprintf(why, sizeof(why), "'%s' cannot name a metrics file",
		    project != NULL ? project : t->tool);
		return promtick_fail(t, why);
	}
	t->dir = runfiles_metrics_dir();
	if (promtick_declare(t, promtick_tick_families) == -1 ||
	    promtick_declare(t, fams) == -1)
		return -1;
	(void)promtick_watch(t, cfg);
	if (prom_load(t->prom, t->dir) == -1)
		return promtick_fail(t, prom_error(t->prom));
	return 0;
}

/* url without its trailing slashes, then tail.  Caller frees. */
static char *
promtick_prefix(const char *url, const char *tail)
{
	size_t n = strlen(url);

	while (n > 0 && url[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, url, tail);
}

int
promtick_watch(struct promtick *t, const struct config *cfg)
{
	return promtick_watch_apis(cfg) == -1 ?
	    promtick_fail(t, "too many APIs to count apart") :
	    0;
}

int
promtick_watch_apis(const struct config *cfg)
{
	char *forge, *wp;
	int r = 0;

	/* A configuration that failed to load may have neither. */
	if (cfg->forge_url == NULL || cfg->woodpecker_server == NULL)
		return 0;
	forge = promtick_prefix(cfg->forge_url, "/api/v1/");
	wp = promtick_prefix(cfg->woodpecker_server, "/api/");
	/* On one host the forge's longer prefix takes its own requests. */
	if (http_stats_watch(PROMTICK_FORGE, forge) == -1 ||
	    http_stats_watch(PROMTICK_WOODPECKER, wp) == -1)
		r = -1;
	free(forge);
	free(wp);
	return r;
}

struct promtick *
promtick_begin(struct promtick *t, const struct config *cfg,
    const char *project, const struct promtick_family *fams)
{
	if (promtick_open(t, cfg, project, fams) == 0)
		return t;
	log_warn("metrics: %s", t->error);
	promtick_free(t);
	return NULL;
}

struct prom *
promtick_prom(struct promtick *t)
{
	return t->prom;
}

int
promtick_sessions(struct promtick *t, const char *family, const char *project,
    int review)
{
	struct phase_info pi;
	double count[PHASE_COUNT] = {0};
	long long *nums = NULL;
	size_t i, n = 0;
	char *path;
	int r;

	r = review ? runfiles_review_phase_prs(project, &nums, &n) :
		     runfiles_phase_issues(project, &nums, &n);
	if (r == -1)
		return promtick_fail(t, "cannot list the run directory");
	for (i = 0; i < n; i++) {
		path = review ? runfiles_review_phase(project, nums[i]) :
				runfiles_phase(project, nums[i]);
		/* A file gone since the listing is no session any more. */
		if (phase_read(path, &pi) == 0 && pi.mtime != 0)
			count[pi.phase]++;
		free(path);
	}
	free(nums);
	/* Every phase, in the table's order, by its label. */
	for (i = 0; i < PHASE_COUNT; i++) {
		const char *labels[] = {"phase",
		    phase_def((enum phase)i)->label, NULL};

		if (prom_set(t->prom, family, labels, count[i]) == -1)
			return promtick_fail(t, prom_error(t->prom));
	}
	return 0;
}

int
promtick_escalations(struct promtick *t, const char *project, time_t now)
{
	struct phase_info pi;
	long long *nums = NULL, oldest = 0;
	size_t i, n = 0, pending = 0;
	char *path;

	if (runfiles_phase_issues(project, &nums, &n) == -1)
		return promtick_fail(t, "cannot list the run directory");
	for (i = 0; i < n; i++) {
		path = runfiles_phase(project, nums[i]);
		if (phase_read(path, &pi) == 0 && pi.phase == PHASE_ESCALATE) {
			pending++;
			if (now - pi.mtime > oldest)
				oldest = now - pi.mtime;
		}
		free(path);
	}
	free(nums);
	if (prom_set(t->prom, "disinto_escalations_pending", NULL,
		(double)pending) == -1 ||
	    prom_set(t->prom, "disinto_escalation_oldest_age_seconds", NULL,
		(double)oldest) == -1)
		return promtick_fail(t, prom_error(t->prom));
	return 0;
}

/* Seconds since the start, to the microsecond (a short sample value). */
static double
promtick_elapsed(const struct promtick *t)
{
	struct timespec now;
	long long us;

	clock_gettime(CLOCK_MONOTONIC, &now);
	us = (long long)(now.tv_sec - t->start.tv_sec) * 1000000 +
	    (now.tv_nsec - t->start.tv_nsec) / 1000;
	return (double)us / 1e6;
}

/* The requests of api this tick onto the counters, errors by code. */
static int
promtick_api(struct promtick *t, const char *api)
{
	const char *labels[] = {"api", api, NULL};
	unsigned long requests, errors, counts[16];
	long codes[16];
	size_t i, n;

	http_stats_get(api, &requests, &errors);
	if (prom_add(t->prom, "disinto_api_requests_total", labels,
		(double)requests) == -1)
		return promtick_fail(t, prom_error(t->prom));
	n = http_stats_codes(api, codes, counts, 16);
	for (i = 0; i < n; i++) {
		char code[24];
		const char *el[] = {"api", api, "code", code, NULL};

		if (codes[i] == 0)
			snprintf(code, sizeof(code), "transport");
		else
			snprintf(code, sizeof(code), "%ld", codes[i]);
		if (prom_add(t->prom, "disinto_api_errors_total", el,
			(double)counts[i]) == -1)
			return promtick_fail(t, prom_error(t->prom));
	}
	return 0;
}

/* The tick families' values. */
static int
promtick_tick(struct promtick *t, int exit_code, const char *result)
{
	const char *labels[] = {"result", result, NULL};

	if (prom_set(t->prom, "disinto_tick_duration_seconds", NULL,
		promtick_elapsed(t)) == -1 ||
	    prom_set(t->prom, "disinto_tick_exit_code", NULL, exit_code) ==
		-1 ||
	    prom_add(t->prom, "disinto_ticks_total", labels, 1) == -1 ||
	    (exit_code == 0 &&
		prom_set(t->prom, "disinto_tick_last_success_timestamp_seconds",
		    NULL, (double)time(NULL)) == -1))
		return promtick_fail(t, prom_error(t->prom));
	return promtick_api(t, PROMTICK_FORGE) == -1 ||
		promtick_api(t, PROMTICK_WOODPECKER) == -1 ?
	    -1 :
	    0;
}

int
promtick_close(struct promtick *t, int exit_code, const char *result, char *err,
    size_t errsz)
{
	int r = -1;

	if (t == NULL)
		return 0;
	if (t->prom == NULL)
		snprintf(err, errsz, "metrics: not set up");
	else if (promtick_tick(t, exit_code, result) == -1)
		snprintf(err, errsz, "metrics: %s", t->error);
	else if (prom_write(t->prom, t->dir) == -1)
		snprintf(err, errsz, "metrics: %s", prom_error(t->prom));
	else
		r = 0;
	promtick_free(t);
	return r;
}

void
promtick_end(struct promtick *t, int exit_code, const char *result)
{
	char err[600];

	if (promtick_close(t, exit_code, result, err, sizeof(err)) == -1)
		log_warn("%s", err);
}

const char *
promtick_result(int rc, const char *result)
{
	if (result != NULL)
		return result;
	return rc == 0 ? PROMTICK_OK :
	    rc == 2    ? PROMTICK_CONFIG_ERROR :
			 PROMTICK_FAILED;
}
