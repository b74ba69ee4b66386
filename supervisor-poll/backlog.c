/*
 * The backlog as a dependency graph: cycles that deadlock it, issues
 * waiting on dependencies open for more than 30 days, and the "dev"
 * metric (backlog, blocked, open PRs).
 */
#include <stdlib.h>

#include "config.h"
#include "cycles.h"
#include "forge.h"
#include "log.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

struct graph {
	struct cycles_node *nodes;
	size_t n;
};

static void backlog_graph_build(const struct sup *, struct graph *);
static void backlog_report_cycles(struct sup *, const struct graph *);
static const struct sup_issue *backlog_listed(const struct sup_issue *const *,
    size_t, long long);
static int backlog_cmp(const void *, const void *);
static const struct sup_issue **backlog_index(const struct sup *);
static void backlog_stale_dep(struct sup *, const struct sup_issue *const *,
    long long, long long);
static void backlog_stale_deps(struct sup *, const struct graph *);
static void backlog_dev_metric(struct sup *);

/* The labelled issues of the list, in its order (the deps are borrowed). */
static void
backlog_graph_build(const struct sup *s, struct graph *g)
{
	const struct sup_issue *is;
	size_t i;

	g->nodes = xcalloc(s->nbacklog + 1, sizeof(*g->nodes));
	g->n = 0;
	for (i = 0; i < s->nbacklog; i++) {
		is = &s->backlog[i];
		if (!is->backlog)
			continue;
		g->nodes[g->n].id = is->number;
		g->nodes[g->n].deps = is->deps;
		g->nodes[g->n].ndeps = is->ndeps;
		g->n++;
	}
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

/* qsort() order of issues by number. */
static int
backlog_cmp(const void *a, const void *b)
{
	long long x = (*(const struct sup_issue *const *)a)->number;
	long long y = (*(const struct sup_issue *const *)b)->number;

	return x < y ? -1 : x > y;
}

/*
 * The issues of s->backlog sorted by number, for backlog_listed().
 * Caller frees (the issues stay s's).
 */
static const struct sup_issue **
backlog_index(const struct sup *s)
{
	const struct sup_issue **idx;
	size_t i;

	idx = xcalloc(s->nbacklog + 1, sizeof(*idx));
	for (i = 0; i < s->nbacklog; i++)
		idx[i] = &s->backlog[i];
	qsort(idx, s->nbacklog, sizeof(*idx), backlog_cmp);
	return idx;
}

/* The issue numbered number among the n of idx, or NULL. */
static const struct sup_issue *
backlog_listed(const struct sup_issue *const *idx, size_t n, long long number)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (idx[mid]->number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && idx[lo]->number == number ? idx[lo] : NULL;
}

/*
 * Issue number waits on dep: alert when dep is open for over 30 days.
 * A dep among the open backlog issues listed (idx) is read from there;
 * any other one is asked for (once a tick: the client's cache).
 */
static void
backlog_stale_dep(struct sup *s, const struct sup_issue *const *idx,
    long long number, long long dep)
{
	const struct sup_issue *listed;
	const cJSON *issue;
	const char *title;
	char *asked = NULL;
	long long days;

	if ((listed = backlog_listed(idx, s->nbacklog, dep)) != NULL) {
		title = listed->title;
		days = listed->stale_days;
	} else if (forge_issue_get(s->forge, dep, &issue) == -1) {
		if (forge_last_status(s->forge) == 404)
			log_msg("%s: #%lld depends on #%lld, which does not "
				"exist",
			    s->cfg->project_name, number, dep);
		else
			sup_fail(s, "%s: cannot read dependency #%lld: %s",
			    s->cfg->project_name, dep, forge_error(s->forge));
		return;
	} else
		title = asked = lists_stale(s, issue, &days);
	/* No title: forge text stays out of the fix command's prompt. */
	if (title != NULL)
		sup_alert(s, P3,
		    "%s: stale dependency: #%lld waits on #%lld (open %lld "
		    "days)",
		    s->cfg->project_name, number, dep, days);
	free(asked);
}

static void
backlog_stale_deps(struct sup *s, const struct graph *g)
{
	const struct sup_issue **idx;
	size_t i, j;

	sup_status(s, "P3: %s: checking for stale dependencies",
	    s->cfg->project_name);
	idx = backlog_index(s);
	for (i = 0; i < g->n; i++)
		for (j = 0; j < g->nodes[i].ndeps; j++)
			backlog_stale_dep(s, idx, g->nodes[i].id,
			    g->nodes[i].deps[j]);
	free(idx);
}

/* Counts over every page; no metric at all when a list did not arrive. */
static void
backlog_dev_metric(struct sup *s)
{
	long long nblocked;
	cJSON *m;

	if (lists_count_labelled(s, "blocked", &nblocked) == -1 ||
	    lists_prs(s) == -1)
		return;
	m = metrics_new(s, "dev");
	cJSON_AddStringToObject(m, "project", s->cfg->project_name);
	cJSON_AddNumberToObject(m, "issues_in_backlog",
	    (double)lists_backlog_labelled(s));
	cJSON_AddNumberToObject(m, "issues_blocked", (double)nblocked);
	cJSON_AddNumberToObject(m, "pr_open", (double)s->nprs);
	metrics_emit(s, m);
}

void
backlog_check(struct sup *s)
{
	struct graph g;

	sup_status(s, "P3: %s: checking for circular dependencies",
	    s->cfg->project_name);
	if (lists_backlog(s) == -1)
		return;
	backlog_graph_build(s, &g);
	backlog_report_cycles(s, &g);
	backlog_stale_deps(s, &g);
	free(g.nodes);
	backlog_dev_metric(s);
}
