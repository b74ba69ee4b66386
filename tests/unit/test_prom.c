/*
 * Tests for the Prometheus textfile writer.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "buf.h"
#include "file.h"
#include "prom.h"
#include "xmalloc.h"

#define G PROM_GAUGE
#define C PROM_COUNTER

/* Render p and compare with want; the text is freed. */
static int
rendered(const struct prom *p, const char *want)
{
	char *got = prom_render(p);
	int same = strcmp(got, want) == 0;

	if (!same)
		printf("#   rendered:\n%s#   wanted:\n%s", got, want);
	free(got);
	return same;
}

/* The text of one sample line "NAME{...} VALUE" for a one-series gauge. */
static char *
one_value(double v)
{
	struct prom *p = prom_new("t", NULL);
	char *text, *sp, *out;

	prom_declare(p, "x", G, "x");
	prom_set(p, "x", NULL, v);
	text = prom_render(p);
	sp = strrchr(text, ' ');
	out = xstrdup(sp != NULL ? sp + 1 : "");
	out[strcspn(out, "\n")] = '\0';
	free(text);
	prom_free(p);
	return out;
}

static void
test_prom_new(void)
{
	struct prom *p;
	char *path;

	CHECK(prom_new("dev-poll", "../x") == NULL);
	CHECK(prom_new("dev-poll", ".hidden") == NULL);
	CHECK(prom_new("dev-poll", "") == NULL);
	CHECK(prom_new("dev/poll", NULL) == NULL);
	CHECK(prom_new("dev poll", NULL) == NULL);
	CHECK(prom_new(NULL, "x") == NULL);
	p = prom_new("dev-poll", "harb_2.x");
	CHECK(p != NULL);
	path = prom_path(p, "/f/metrics");
	CHECK_STR(path, "/f/metrics/dev-poll-harb_2.x.prom");
	free(path);
	prom_free(p);
	p = prom_new("supervisor-poll", NULL);
	path = prom_path(p, "m");
	CHECK_STR(path, "m/supervisor-poll.prom");
	free(path);
	CHECK(rendered(p, ""));
	prom_free(p);
	prom_free(NULL);
}

static void
test_prom_names(void)
{
	struct prom *p = prom_new("t", NULL);

	CHECK_INT(prom_declare(p, "disinto_tick_duration_seconds", G,
		      "Wall time of the tick."),
	    0);
	CHECK_INT(prom_declare(p, "disinto_reviews_posted_total", C,
		      "Reviews posted."),
	    0);
	CHECK_INT(prom_declare(p, "disinto_reviews_posted", C, "x"), -1);
	CHECK(strstr(prom_error(p), "_total") != NULL);
	CHECK_INT(prom_declare(p, "disinto_open_total", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_tick_ms", G, "x"), -1);
	CHECK(strstr(prom_error(p), "base units") != NULL);
	CHECK_INT(prom_declare(p, "disinto_age_minutes", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_rss_kilobytes", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_mb_total", C, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_disk_percent", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_sessions_gauge", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_counter_total", C, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_tickDuration", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto:tick", G, "x"), -1);
	CHECK_INT(prom_declare(p, "9lives", G, "x"), -1);
	CHECK_INT(prom_declare(p, "", G, "x"), -1);
	CHECK_INT(prom_declare(p, "disinto_x", G, ""), -1);
	CHECK_INT(prom_declare(p, "disinto_x", G, "bad \x01 help"), -1);
	CHECK_INT(prom_declare(p, "disinto_x", G, "bad \xff help"), -1);
	CHECK_INT(prom_declare(p, "disinto_x", (enum prom_type)7, "x"), -1);
	/* "_seconds", "_bytes" and words merely containing "s" are fine. */
	CHECK_INT(prom_declare(p, "disinto_memory_available_bytes", G, "x"), 0);
	CHECK_INT(prom_declare(p, "disinto_sessions", G, "x"), 0);
	/* Again, the same: fine; differently: refused. */
	CHECK_INT(prom_declare(p, "disinto_sessions", G, "x"), 0);
	CHECK_INT(prom_declare(p, "disinto_sessions", G, "y"), -1);
	CHECK(strstr(prom_error(p), "twice") != NULL);
	CHECK_INT(prom_set(p, "disinto_undeclared", NULL, 1), -1);
	CHECK_INT(prom_add(p, "disinto_undeclared", NULL, 1), -1);
	CHECK_INT(prom_keep(p, "disinto_undeclared"), -1);
	prom_free(p);
}

static void
test_prom_labels(void)
{
	struct prom *p = prom_new("dev-poll", "harb");
	struct prom *s = prom_new("supervisor-poll", NULL);
	const char *bs[] = {"why", "a\\b \"q\"\nnext", NULL};
	const char *odd[] = {"phase", NULL};
	const char *dup[] = {"a", "1", "b", "2", "a", "3", NULL};
	const char *res[] = {"project", "x", NULL};
	char *long_value = xmalloc(600);
	const char *lv[] = {"v", long_value, NULL};

	memset(long_value, 'x', 599);
	long_value[599] = '\0';
	prom_declare(p, "disinto_x", G, "Help with \\ and\nnewline.");
	CHECK_INT(prom_set(p, "disinto_x", bs, 1), 0);
	CHECK(rendered(p,
	    "# HELP disinto_x Help with \\\\ and\\nnewline.\n"
	    "# TYPE disinto_x gauge\n"
	    "disinto_x{tool=\"dev-poll\",project=\"harb\","
	    "why=\"a\\\\b \\\"q\\\"\\nnext\"} 1\n"));
	CHECK_INT(prom_set(p, "disinto_x", odd, 1), -1);
	CHECK_INT(prom_set(p, "disinto_x", dup, 1), -1);
	CHECK(strstr(prom_error(p), "'a' given twice") != NULL);
	CHECK_INT(prom_set(p, "disinto_x", res, 1), -1);
	CHECK_INT(
	    prom_set(p, "disinto_x", (const char *[]) {"tool", "x", NULL}, 1),
	    -1);
	CHECK_INT(
	    prom_set(p, "disinto_x", (const char *[]) {"__x", "x", NULL}, 1),
	    -1);
	CHECK_INT(
	    prom_set(p, "disinto_x", (const char *[]) {"le", "x", NULL}, 1),
	    -1);
	CHECK_INT(
	    prom_set(p, "disinto_x", (const char *[]) {"a-b", "x", NULL}, 1),
	    -1);
	CHECK_INT(prom_set(p, "disinto_x",
		      (const char *[]) {"a", "\xc0\xaf", NULL}, 1),
	    -1);
	CHECK_INT(prom_set(p, "disinto_x",
		      (const char *[]) {"a", "cr\rhere", NULL}, 1),
	    -1);
	CHECK_INT(prom_set(p, "disinto_x", lv, 1), -1);
	long_value[512] = '\0';
	CHECK_INT(prom_set(p, "disinto_x", lv, 1), 0);
	CHECK_INT(prom_set(p, "disinto_x",
		      (const char *[]) {"a", "caf\xc3\xa9 \xe2\x80\xae", NULL},
		      1),
	    0);
	/* Without a project constant, "project" is a label like another. */
	prom_declare(s, "disinto_escalations_pending", G, "Escalations.");
	CHECK_INT(prom_set(s, "disinto_escalations_pending", res, 2), 0);
	CHECK(rendered(s,
	    "# HELP disinto_escalations_pending Escalations.\n"
	    "# TYPE disinto_escalations_pending gauge\n"
	    "disinto_escalations_pending{tool=\"supervisor-poll\","
	    "project=\"x\"} 2\n"));
	free(long_value);
	prom_free(p);
	prom_free(s);
}

static void
test_prom_render(void)
{
	struct prom *p = prom_new("review-poll", "harb");
	const char *ap[] = {"verdict", "approve", NULL};
	const char *rc[] = {"verdict", "request_changes", NULL};
	const char *ab[] = {"b", "2", "a", "1", NULL};
	const char *ba[] = {"a", "1", "b", "2", NULL};

	prom_declare(p, "disinto_reviews_posted_total", C, "Reviews posted.");
	prom_declare(p, "disinto_unused", G, "Never set.");
	prom_declare(p, "disinto_tick_duration_seconds", G, "Tick time.");
	prom_declare(p, "disinto_pairs", G, "Pairs.");
	CHECK_INT(prom_add(p, "disinto_reviews_posted_total", ap, 1), 0);
	CHECK_INT(prom_add(p, "disinto_reviews_posted_total", rc, 2), 0);
	CHECK_INT(prom_add(p, "disinto_reviews_posted_total", ap, 1), 0);
	CHECK_INT(prom_set(p, "disinto_tick_duration_seconds", NULL, 0.25), 0);
	/* The label set is the identity, whatever the order given. */
	CHECK_INT(prom_set(p, "disinto_pairs", ab, 1), 0);
	CHECK_INT(prom_add(p, "disinto_pairs", ba, 1), 0);
	CHECK(rendered(p,
	    "# HELP disinto_reviews_posted_total Reviews posted.\n"
	    "# TYPE disinto_reviews_posted_total counter\n"
	    "disinto_reviews_posted_total{tool=\"review-poll\",project=\"harb\","
	    "verdict=\"approve\"} 2\n"
	    "disinto_reviews_posted_total{tool=\"review-poll\",project=\"harb\","
	    "verdict=\"request_changes\"} 2\n"
	    "# HELP disinto_tick_duration_seconds Tick time.\n"
	    "# TYPE disinto_tick_duration_seconds gauge\n"
	    "disinto_tick_duration_seconds{tool=\"review-poll\","
	    "project=\"harb\"} 0.25\n"
	    "# HELP disinto_pairs Pairs.\n"
	    "# TYPE disinto_pairs gauge\n"
	    "disinto_pairs{tool=\"review-poll\",project=\"harb\",a=\"1\","
	    "b=\"2\"} 2\n"));
	prom_free(p);
}

static void
test_prom_values(void)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0, "0"},
	    {42, "42"},
	    {-7, "-7"},
	    {1700000000, "1700000000"},
	    {0.1, "0.1"},
	    {1.5e-9, "1.5e-09"},
	    {123456.789, "123456.789"},
	    {1e20, "1e+20"},
	    {1.0 / 3, "0.3333333333333333"},
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = one_value(cases[i].v);
		CHECK_STR(s, cases[i].want);
		CHECK(strtod(s, NULL) == cases[i].v);
		free(s);
	}
	s = one_value(NAN);
	CHECK_STR(s, "NaN");
	free(s);
	s = one_value(INFINITY);
	CHECK_STR(s, "+Inf");
	free(s);
	s = one_value(-INFINITY);
	CHECK_STR(s, "-Inf");
	free(s);
}

static void
test_prom_counters(void)
{
	struct prom *p = prom_new("t", NULL);

	prom_declare(p, "disinto_merges_total", C, "Merges.");
	prom_declare(p, "disinto_level", G, "A level.");
	CHECK_INT(prom_add(p, "disinto_merges_total", NULL, -1), -1);
	CHECK(strstr(prom_error(p), "not a count") != NULL);
	CHECK_INT(prom_set(p, "disinto_merges_total", NULL, -1), -1);
	CHECK_INT(prom_set(p, "disinto_merges_total", NULL, NAN), -1);
	CHECK_INT(prom_set(p, "disinto_merges_total", NULL, INFINITY), -1);
	CHECK_INT(prom_set(p, "disinto_merges_total", NULL, 3), 0);
	CHECK_INT(prom_add(p, "disinto_merges_total", NULL, 2), 0);
	CHECK_INT(prom_add(p, "disinto_merges_total", NULL, 1e308), 0);
	CHECK_INT(prom_add(p, "disinto_merges_total", NULL, 1e308), -1);
	/* Gauges go down and may be NaN or infinite. */
	CHECK_INT(prom_add(p, "disinto_level", NULL, -4), 0);
	CHECK_INT(prom_set(p, "disinto_level", NULL, NAN), 0);
	CHECK(rendered(p,
	    "# HELP disinto_merges_total Merges.\n"
	    "# TYPE disinto_merges_total counter\n"
	    "disinto_merges_total{tool=\"t\"} 1e+308\n"
	    "# HELP disinto_level A level.\n"
	    "# TYPE disinto_level gauge\n"
	    "disinto_level{tool=\"t\"} NaN\n"));
	prom_free(p);
}

/* The tick before: what a previous run left in the file. */
static const char previous[] =
    "# HELP disinto_merges_total Merges.\n"
    "# TYPE disinto_merges_total counter\n"
    "disinto_merges_total{tool=\"dev-poll\",project=\"harb\"} 5\n"
    "disinto_ci_results_total{tool=\"dev-poll\",project=\"harb\","
    "state=\"failure\",why=\"a\\\\b \\\"q\\\"\\nx\"} 2\n"
    "disinto_ci_results_total{state=\"success\"} 7 1700000000000\n"
    "disinto_ci_results_total{state=\"bad\"} -1\n"
    "disinto_ci_results_total{state=\"junk\"} 1x\n"
    "disinto_ci_results_total{state=\"hex\"} 0x10\n"
    "disinto_ci_results_total{state=\"open} 1\n"
    "disinto_ci_results_total{state=\"esc\\t\"} 1\n"
    "disinto_ci_results_total{le=\"1\"} 1\n"
    "disinto_ci_results_total{} 3\n"
    "disinto_ci_results_total 4\n"
    "disinto_last_success_timestamp_seconds{tool=\"dev-poll\"} 1.7e9\n"
    "disinto_sessions{phase=\"done\"} 9\n"
    "disinto_other_total 1\n"
    "garbage line\n"
    "\n";

static void
test_prom_load(void)
{
	struct prom *p = prom_new("dev-poll", "harb");
	const char *fail[] = {"state", "failure", "why", "a\\b \"q\"\nx", NULL};

	prom_declare(p, "disinto_merges_total", C, "Merges.");
	prom_declare(p, "disinto_ci_results_total", C, "CI results.");
	prom_declare(p, "disinto_last_success_timestamp_seconds", G, "Last.");
	prom_declare(p, "disinto_sessions", G, "Sessions.");
	CHECK_INT(prom_keep(p, "disinto_last_success_timestamp_seconds"), 0);
	CHECK_INT(prom_load_text(p, previous, sizeof(previous) - 1), 6);
	CHECK_INT(prom_add(p, "disinto_merges_total", NULL, 1), 0);
	CHECK_INT(prom_add(p, "disinto_ci_results_total", fail, 1), 0);
	CHECK(rendered(p,
	    "# HELP disinto_merges_total Merges.\n"
	    "# TYPE disinto_merges_total counter\n"
	    "disinto_merges_total{tool=\"dev-poll\",project=\"harb\"} 6\n"
	    "# HELP disinto_ci_results_total CI results.\n"
	    "# TYPE disinto_ci_results_total counter\n"
	    "disinto_ci_results_total{tool=\"dev-poll\",project=\"harb\","
	    "state=\"failure\",why=\"a\\\\b \\\"q\\\"\\nx\"} 3\n"
	    "disinto_ci_results_total{tool=\"dev-poll\",project=\"harb\","
	    "state=\"success\"} 7\n"
	    "disinto_ci_results_total{tool=\"dev-poll\",project=\"harb\"} 4\n"
	    "# HELP disinto_last_success_timestamp_seconds Last.\n"
	    "# TYPE disinto_last_success_timestamp_seconds gauge\n"
	    "disinto_last_success_timestamp_seconds{tool=\"dev-poll\","
	    "project=\"harb\"} 1700000000\n"));
	prom_free(p);
}

static int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void
test_prom_write(void)
{
	char dir[] = "/tmp/test_prom.XXXXXX";
	char *mdir, *path, *text;
	struct prom *p, *q;
	struct stat st;
	struct buf b;

	CHECK(mkdtemp(dir) != NULL);
	mdir = xasprintf("%s/factory/metrics", dir);
	p = prom_new("dev-poll", "harb");
	prom_declare(p, "disinto_merges_total", C, "Merges.");
	prom_add(p, "disinto_merges_total", NULL, 2);
	CHECK_INT(prom_load(p, mdir), 0); /* no file yet */
	CHECK_INT(prom_write(p, mdir), 0);
	path = prom_path(p, mdir);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0644);
	CHECK_INT(count_entries(mdir), 1);
	buf_init(&b, 0);
	CHECK_INT(file_read(path, 1 << 20, &b), 0);
	text = prom_render(p);
	CHECK_STR(buf_str(&b), text);
	free(text);
	buf_free(&b);

	/* The next tick carries the counter on and replaces the file. */
	q = prom_new("dev-poll", "harb");
	prom_declare(q, "disinto_merges_total", C, "Merges.");
	CHECK_INT(prom_load(q, mdir), 0);
	prom_add(q, "disinto_merges_total", NULL, 1);
	CHECK_INT(prom_write(q, mdir), 0);
	buf_init(&b, 0);
	CHECK_INT(file_read(path, 1 << 20, &b), 0);
	CHECK(strstr(buf_str(&b), "} 3\n") != NULL);
	CHECK_INT(count_entries(mdir), 1);
	buf_free(&b);

	/* A directory where the file should be: both calls fail, say why. */
	unlink(path);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(prom_load(q, mdir), -1);
	CHECK(strstr(prom_error(q), "cannot read") != NULL);
	CHECK_INT(prom_write(q, mdir), -1);
	CHECK(strstr(prom_error(q), "cannot write") != NULL);
	CHECK_INT(rmdir(path), 0);
	/* Where the directory cannot be made. */
	CHECK_INT(prom_write(q, "/dev/null/metrics"), -1);
	CHECK(strstr(prom_error(q), "cannot make") != NULL);
	CHECK_INT(count_entries(mdir), 0);

	free(path);
	rmdir(mdir);
	free(mdir);
	mdir = xasprintf("%s/factory", dir);
	rmdir(mdir);
	rmdir(dir);
	prom_free(p);
	prom_free(q);
	free(mdir);
}

static void
test_prom_limits(void)
{
	struct prom *p = prom_new("t", NULL);
	const char *l[] = {"i", NULL, NULL};
	char num[32], name[64];
	int i, r = 0;

	prom_declare(p, "disinto_many", G, "Many.");
	for (i = 0; i < 4096 && r == 0; i++) {
		snprintf(num, sizeof(num), "%d", i);
		l[1] = num;
		r = prom_set(p, "disinto_many", l, i);
	}
	CHECK_INT(r, 0);
	l[1] = "one more";
	CHECK_INT(prom_set(p, "disinto_many", l, 1), -1);
	CHECK(strstr(prom_error(p), "too many series") != NULL);
	/* An existing series can still be set. */
	l[1] = "7";
	CHECK_INT(prom_set(p, "disinto_many", l, 1), 0);
	for (i = 1, r = 0; i < 256 && r == 0; i++) {
		snprintf(name, sizeof(name), "disinto_m%d", i);
		r = prom_declare(p, name, G, "x");
	}
	CHECK_INT(r, 0);
	CHECK_INT(prom_declare(p, "disinto_one_more", G, "x"), -1);
	prom_free(p);
}

int
main(void)
{
	RUN(test_prom_new);
	RUN(test_prom_names);
	RUN(test_prom_labels);
	RUN(test_prom_render);
	RUN(test_prom_values);
	RUN(test_prom_counters);
	RUN(test_prom_load);
	RUN(test_prom_write);
	RUN(test_prom_limits);
	return check_main();
}
