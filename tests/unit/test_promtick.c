/*
 * Tests for a tick's metrics file: the sessions by phase and the
 * escalations read from the run files, the tick families, counters
 * carried from the previous file, and the HTTP counters by API prefix.
 */
#include <sys/stat.h>
#include <sys/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "check.h"

#include "buf.h"
#include "config.h"
#include "file.h"
#include "http.h"
#include "prom.h"
#include "promtick.h"
#include "runfiles.h"

static char dir[] = "/tmp/test-promtick-XXXXXX";
static char run[64], factory[64], prom_file[96];
static struct config cfg;

static const struct promtick_family families[] = {
    {"disinto_dev_sessions", PROM_GAUGE, 0, "Sessions."},
    {"disinto_escalations_pending", PROM_GAUGE, 0, "Escalations."},
    {"disinto_escalation_oldest_age_seconds", PROM_GAUGE, 0, "Age."},
    {"x_started_total", PROM_COUNTER, 0, "Started."},
    {NULL, PROM_GAUGE, 0, NULL}};

/* Write a phase file of issue n of project p, aged age seconds. */
static void
phase(const char *p, int n, const char *text, long age)
{
	char *path = runfiles_phase(p, n);
	struct timeval tv[2];

	CHECK_INT(runfiles_session_mkdir_for(path), 0);
	CHECK_INT(file_write_atomic(path, text, strlen(text), 0644, 0), 0);
	/*
	 * From time(), the clock the ages are computed with (it may be a
	 * tick behind gettimeofday() at a second's turn).
	 */
	tv[0].tv_sec = time(NULL) - age;
	tv[0].tv_usec = 0;
	tv[1] = tv[0];
	CHECK_INT(utimes(path, tv), 0);
	free(path);
}

/* The file's text, or "". Caller frees. */
static char *
written(void)
{
	struct buf b;

	buf_init(&b, 0);
	(void)file_read(prom_file, 1 << 20, &b);
	return buf_steal(&b);
}

/* 1 when text has the line. */
static int
has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
		p += n;
	}
	printf("#   no line '%s' in:\n%s", line, text);
	return 0;
}

static void
test_sessions(void)
{
	struct promtick *t = promtick_new("dev-poll");
	char err[256], *text;

	phase("demo", 1, "PHASE:awaiting_ci\n", 10);
	phase("demo", 2, "PHASE:escalate\nReason: which API?\n", 7200);
	phase("demo", 3, "PHASE:escalate\n", 60);
	phase("demo", 4, "PHASE:bogus\n", 0);
	phase("demo", 5, "", 0);
	phase("other", 6, "PHASE:escalate\n", 99999);
	CHECK_INT(promtick_open(t, &cfg, "demo", families), 0);
	CHECK_INT(promtick_sessions(t, "disinto_dev_sessions", "demo", 0), 0);
	CHECK_INT(promtick_escalations(t, "demo", time(NULL)), 0);
	CHECK_INT(prom_add(promtick_prom(t), "x_started_total", NULL, 2), 0);
	CHECK_INT(
	    promtick_close(t, 0, promtick_result(0, NULL), err, sizeof(err)),
	    0);
	text = written();
	CHECK(has_line(text,
	    "disinto_dev_sessions{tool=\"dev-poll\",project=\"demo\","
	    "phase=\"awaiting_ci\"} 1"));
	CHECK(has_line(text,
	    "disinto_dev_sessions{tool=\"dev-poll\",project=\"demo\","
	    "phase=\"escalate\"} 2"));
	CHECK(has_line(text,
	    "disinto_dev_sessions{tool=\"dev-poll\",project=\"demo\","
	    "phase=\"unknown\"} 1"));
	CHECK(has_line(text,
	    "disinto_dev_sessions{tool=\"dev-poll\",project=\"demo\","
	    "phase=\"none\"} 1"));
	CHECK(has_line(text,
	    "disinto_dev_sessions{tool=\"dev-poll\",project=\"demo\","
	    "phase=\"done\"} 0"));
	CHECK(has_line(text,
	    "disinto_escalations_pending{tool=\"dev-poll\",project=\"demo\"} "
	    "2"));
	/* The oldest of the project's own, not the other project's. */
	CHECK(strstr(text,
		  "disinto_escalation_oldest_age_seconds{tool=\"dev-"
		  "poll\",project=\"demo\"} 720") != NULL);
	CHECK(has_line(text,
	    "disinto_ticks_total{tool=\"dev-poll\",project=\"demo\","
	    "result=\"ok\"} 1"));
	CHECK(has_line(text,
	    "disinto_tick_exit_code{tool=\"dev-poll\",project=\"demo\"} 0"));
	free(text);
}

/* A second tick: counters go on, the last success stays on a failure. */
static void
test_next_tick(void)
{
	struct promtick *t = promtick_new("dev-poll");
	char err[256], *before, *text, *p, last[160];

	before = written();
	p = strstr(before, "disinto_tick_last_success_timestamp_seconds{");
	CHECK(p != NULL);
	snprintf(last, sizeof(last), "%.*s", (int)strcspn(p, "\n"), p);
	CHECK_INT(promtick_open(t, &cfg, "demo", families), 0);
	CHECK_INT(prom_add(promtick_prom(t), "x_started_total", NULL, 1), 0);
	CHECK_INT(
	    promtick_close(t, 1, promtick_result(1, NULL), err, sizeof(err)),
	    0);
	text = written();
	CHECK(has_line(text,
	    "x_started_total{tool=\"dev-poll\",project=\"demo\"} 3"));
	CHECK(has_line(text,
	    "disinto_ticks_total{tool=\"dev-poll\",project=\"demo\","
	    "result=\"ok\"} 1"));
	CHECK(has_line(text,
	    "disinto_ticks_total{tool=\"dev-poll\",project=\"demo\","
	    "result=\"failed\"} 1"));
	CHECK(has_line(text, last));
	/* Not set by this tick: the gauges read from the run files. */
	CHECK(strstr(text, "disinto_dev_sessions{") == NULL);
	free(before);
	free(text);
}

static void
test_results(void)
{
	CHECK_STR(promtick_result(0, NULL), "ok");
	CHECK_STR(promtick_result(1, NULL), "failed");
	CHECK_STR(promtick_result(2, NULL), "config_error");
	CHECK_STR(promtick_result(0, PROMTICK_LOCKED), "locked");
}

static void
test_bad_name(void)
{
	struct promtick *t = promtick_new("dev-poll");
	char err[256];

	CHECK_INT(promtick_open(t, &cfg, "../x", families), -1);
	CHECK(strstr(promtick_error(t), "'../x'") != NULL);
	CHECK_INT(promtick_close(t, 0, "ok", err, sizeof(err)), -1);
	CHECK(strstr(err, "not set up") != NULL);
	CHECK_INT(promtick_close(NULL, 0, "ok", err, sizeof(err)), 0);
}

/* One GET of url (nothing listens there): it fails. */
static void
get(const char *url)
{
	struct http_response resp;
	char err[256];

	CHECK_INT(http_request("GET", url, NULL, NULL, &resp, err, sizeof(err)),
	    -1);
	http_response_free(&resp);
}

/*
 * The longest watched prefix takes a request (the forge's API and
 * Woodpecker's on one host); failures count once per request.
 */
static void
test_http_stats(void)
{
	struct http_opts o;
	unsigned long req, errs, all_req, all_errs;

	http_get_opts(&o);
	o.retries = 2;
	o.backoff_ms = 1;
	http_set_opts(&o);
	CHECK_INT(http_stats_watch("forge", "http://127.0.0.1:9/api/v1/"), 0);
	CHECK_INT(http_stats_watch("woodpecker", "http://127.0.0.1:9/api/"), 0);
	CHECK_INT(http_stats_watch("woodpecker", "http://127.0.0.1:9/api/"), 0);
	get("http://127.0.0.1:9/api/v1/repos/o/r/issues");
	get("http://127.0.0.1:9/api/repos/1/pipelines");
	get("http://127.0.0.1:9/api/repos/1/pipelines/2");
	get("http://127.0.0.1:9/other");
	http_stats_get("forge", &req, &errs);
	CHECK_INT(req, 2); /* two attempts */
	CHECK_INT(errs, 1);
	http_stats_get("woodpecker", &req, &errs);
	CHECK_INT(req, 4);
	CHECK_INT(errs, 2);
	http_stats_get(NULL, &all_req, &all_errs);
	CHECK_INT(all_req, 8);
	CHECK_INT(all_errs, 4);
	http_cleanup();
}

/* Remove what the tests wrote. */
static void
cleanup(void)
{
	char path[160];
	const char *p[] = {"demo", "demo", "demo", "demo", "demo", "other"};
	int n;

	for (n = 1; n <= 6; n++) {
		char *ph = runfiles_phase(p[n - 1], n);

		unlink(ph);
		*strrchr(ph, '/') = '\0';
		rmdir(ph);
		free(ph);
	}
	unlink(prom_file);
	snprintf(path, sizeof(path), "%s/sessions/active", run);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sessions", run);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/metrics", factory);
	rmdir(path);
	rmdir(run);
	rmdir(factory);
	rmdir(dir);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(factory, sizeof(factory), "%s/factory", dir);
	snprintf(prom_file, sizeof(prom_file), "%s/metrics/dev-poll-demo.prom",
	    factory);
	mkdir(run, 0755);
	mkdir(factory, 0755);
	cfg.run_dir = run;
	cfg.factory_root = factory;
	cfg.forge_url = "http://127.0.0.1:9";
	cfg.woodpecker_server = "http://127.0.0.1:9/";
	runfiles_init(run, factory);
	RUN(test_results);
	RUN(test_sessions);
	RUN(test_next_tick);
	RUN(test_bad_name);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	RUN(test_http_stats);
	curl_global_cleanup();
	cleanup();
	return check_main();
}
