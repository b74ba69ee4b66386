/*
 * The backlog as a dependency graph: cycles that deadlock it, issues
 * waiting on dependencies open for more than 30 days, and the "dev"
 * metric (backlog, blocked, open PRs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cycles.h"
#include "deps.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "supervisor-poll.h"
#include "utf8.h"
#include "xmalloc.h"

#define DEP_STALE_DAYS 30
#define TITLE_MAX 50

struct graph {
	struct cycles_node *nodes;
	long long **deps;
	size_t n;
};

static int backlog_list(struct sup *, const char *, const cJSON **);
static void backlog_graph_build(const cJSON *, struct graph *);
static void backlog_graph_free(struct graph *);
static void backlog_report_cycles(struct sup *, const struct graph *);
static const cJSON *backlog_listed(const cJSON *const *, size_t, long long);
static int backlog_cmp(const void *, const void *);
static const cJSON **backlog_index(const cJSON *, size_t *);
static void backlog_stale_dep(struct sup *, const cJSON *const *, size_t,
    long long, long long);
static void backlog_stale_deps(struct sup *, const cJSON *,
    const struct graph *);
static int backlog_count_labelled(struct sup *, const char *, long long *);
static void backlog_dev_metric(struct sup *, const cJSON *);

/* The open issues labelled label (the forge filter is not trusted). */
static int
backlog_list(struct sup *s, const char *label, const cJSON **out)
{
	if (forge_issues_list(s->forge, "open", label, "issues", NULL, out) ==
	    -1) {
		sup_fail(s, "%s: cannot list '%s' issues: %s",
		    s->cfg->project_name, label, forge_error(s->forge));
		return -1;
	}
	return 0;
}

static void
backlog_graph_build(const cJSON *list, struct graph *g)
{
	const cJSON *it;
	long long number;
	size_t n;

	memset(g, 0, sizeof(*g));
	cJSON_ArrayForEach (it, list) {
		if (json_int(it, "number", &number) == -1 ||
		    !json_has_label(it, "backlog"))
			continue;
		g->nodes = xreallocarray(g->nodes, g->n + 1, sizeof(*g->nodes));
		g->deps = xreallocarray(g->deps, g->n + 1, sizeof(*g->deps));
		(void)deps_parse(json_str(it, "body"), number, &g->deps[g->n],
		    &n);
		g->nodes[g->n].id = number;
		g->nodes[g->n].deps = g->deps[g->n];
		g->nodes[g->n].ndeps = n;
		g->n++;
	}
}

static void
backlog_graph_free(struct graph *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->deps[i]);
	free(g->deps);
	free(g->nodes);
	memset(g, 0, sizeof(*g));
}

static void
backlog_report_cycles(struct sup *s, const struct graph *g)
{
	struct cycle *c;
	size_t nc, i;
	char *text;

	cycles_find(g->nodes, g->n, &c, &nc);
	for (i = 0; i < nc; i++) {
		text = cycles_format(&c[i]);
		sup_alert(s, P3, "%s: dependency cycle, none can start: %s",
		    s->cfg->project_name, text);
		free(text);
	}
	cycles_free(c, nc);
}

/* qsort() order of issues by number (items without one first). */
static int
backlog_cmp(const void *a, const void *b)
{
	long long x = 0, y = 0;

	(void)json_int(*(const cJSON *const *)a, "number", &x);
	(void)json_int(*(const cJSON *const *)b, "number", &y);
	return x < y ? -1 : x > y;
}

/* The issues of list sorted by number, for backlog_listed().  Caller frees. */
static const cJSON **
backlog_index(const cJSON *list, size_t *n)
{
	const cJSON **idx, *it;

	*n = 0;
	idx = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*idx));
	cJSON_ArrayForEach (it, list)
		idx[(*n)++] = it;
	qsort(idx, *n, sizeof(*idx), backlog_cmp);
	return idx;
}

/* The issue numbered number among the n of idx, or NULL. */
static const cJSON *
backlog_listed(const cJSON *const *idx, size_t n, long long number)
{
	size_t lo = 0, hi = n, mid;
	long long v;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (json_int(idx[mid], "number", &v) == -1 || v < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && json_int(idx[lo], "number", &v) == 0 && v == number)
		return idx[lo];
	return NULL;
}

/*
 * Issue number waits on dep: alert when dep is open for over 30 days.
 * A dep among the open backlog issues listed (idx) is read from there;
 * any other one is asked for (once a tick: the client's cache).
 */
static void
backlog_stale_dep(struct sup *s, const cJSON *const *idx, size_t nidx,
    long long number, long long dep)
{
	const cJSON *issue;
	const char *state;
	char *title;
	time_t created;
	long long days;

	if ((issue = backlog_listed(idx, nidx, dep)) == NULL &&
	    forge_issue_get(s->forge, dep, &issue) == -1) {
		if (forge_last_status(s->forge) == 404)
			log_msg("%s: #%lld depends on #%lld, which does not "
				"exist",
			    s->cfg->project_name, number, dep);
		else
			sup_fail(s, "%s: cannot read dependency #%lld: %s",
			    s->cfg->project_name, dep, forge_error(s->forge));
		return;
	}
	state = json_str(issue, "state");
	if (state == NULL || strcmp(state, "open") != 0 ||
	    json_time(issue, "created_at", &created) == -1)
		return;
	days = (long long)(s->now - created) / 86400;
	if (days <= DEP_STALE_DAYS)
		return;
	title = utf8_cut(json_str(issue, "title"), TITLE_MAX, " […]");
	sup_alert(s, P3,
	    "%s: stale dependency: #%lld waits on #%lld \"%s\" "
	    "(open %lld days)",
	    s->cfg->project_name, number, dep, title, days);
	free(title);
}

static void
backlog_stale_deps(struct sup *s, const cJSON *list, const struct graph *g)
{
	const cJSON **idx;
	size_t i, j, nidx;

	sup_status(s, "P3: %s: checking for stale dependencies",
	    s->cfg->project_name);
	idx = backlog_index(list, &nidx);
	for (i = 0; i < g->n; i++)
		for (j = 0; j < g->nodes[i].ndeps; j++)
			backlog_stale_dep(s, idx, nidx, g->nodes[i].id,
			    g->nodes[i].deps[j]);
	free(idx);
}

static int
backlog_count_labelled(struct sup *s, const char *label, long long *n)
{
	const cJSON *list, *it;

	*n = 0;
	if (backlog_list(s, label, &list) == -1)
		return -1;
	cJSON_ArrayForEach (it, list)
		*n += json_has_label(it, label);
	return 0;
}

/* Counts over every page; no metric at all when a list did not arrive. */
static void
backlog_dev_metric(struct sup *s, const cJSON *backlog)
{
	const cJSON *it, *prs;
	long long nbacklog = 0, nblocked, nprs;
	cJSON *m;

	cJSON_ArrayForEach (it, backlog)
		nbacklog += json_has_label(it, "backlog");
	if (backlog_count_labelled(s, "blocked", &nblocked) == -1)
		return;
	if (forge_pulls_list(s->forge, "open", &prs) == -1) {
		sup_fail(s, "%s: cannot list open PRs: %s",
		    s->cfg->project_name, forge_error(s->forge));
		return;
	}
	nprs = cJSON_GetArraySize(prs);
	m = metrics_new(s, "dev");
	cJSON_AddStringToObject(m, "project", s->cfg->project_name);
	cJSON_AddNumberToObject(m, "issues_in_backlog", (double)nbacklog);
	cJSON_AddNumberToObject(m, "issues_blocked", (double)nblocked);
	cJSON_AddNumberToObject(m, "pr_open", (double)nprs);
	metrics_emit(s, m);
}

void
backlog_check(struct sup *s)
{
	const cJSON *list;
	struct graph g;

	sup_status(s, "P3: %s: checking for circular dependencies",
	    s->cfg->project_name);
	if (backlog_list(s, "backlog", &list) == -1)
		return;
	backlog_graph_build(list, &g);
	backlog_report_cycles(s, &g);
	backlog_stale_deps(s, list, &g);
	backlog_graph_free(&g);
	backlog_dev_metric(s, list);
}
