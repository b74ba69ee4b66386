/*
 * The backlog (common/world/backlog.h) as a dependency graph: cycles that
 * deadlock it, issues waiting on dependencies open for more than 30
 * days, and the "dev" metric (backlog, blocked, open PRs).
 */
#include <stdlib.h>

#include "backlog.h"
#include "config.h"
#include "cycles.h"
#include "forge.h"
#include "log.h"
#include "pulls.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

struct graph {
	struct cycles_node *nodes;
	size_t n;
};

static void depgraph_build(const struct sup *, struct graph *);
static void depgraph_report_cycles(struct sup *, const struct graph *);
static void depgraph_stale_dep(struct sup *, long long, long long);
static void depgraph_stale_deps(struct sup *, const struct graph *);
static void depgraph_dev_metric(struct sup *);

/* The backlog's issues, in its order (the deps are borrowed). */
static void
depgraph_build(const struct sup *s, struct graph *g)
{
	const struct backlog_issue *is;
	size_t i;

	g->nodes = xcalloc(s->backlog.n + 1, sizeof(*g->nodes));
	g->n = 0;
	for (i = 0; i < s->backlog.n; i++) {
		is = &s->backlog.v[i];
		g->nodes[g->n].id = is->number;
		g->nodes[g->n].deps = is->deps;
		g->nodes[g->n].ndeps = is->ndeps;
		g->n++;
	}
}

static void
depgraph_report_cycles(struct sup *s, const struct graph *g)
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

/*
 * Issue number waits on dep: alert when dep is open for over 30 days.
 * A dep among the backlog's issues is read from there; any other one is
 * asked for (once a tick: the client's cache).  The alert names no
 * title: forge text stays out of the fix command's prompt.
 */
static void
depgraph_stale_dep(struct sup *s, long long number, long long dep)
{
	const struct backlog_issue *listed;
	const cJSON *issue;
	long long days;
	int stale;

	if ((listed = backlog_find(&s->backlog, dep)) != NULL) {
		days = backlog_age_days(listed->key.created, s->now);
		stale = days > SUP_DEP_STALE_DAYS;
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
		stale = lists_stale(s, issue, &days);
	if (stale)
		sup_alert(s, P3,
		    "%s: stale dependency: #%lld waits on #%lld (open %lld "
		    "days)",
		    s->cfg->project_name, number, dep, days);
}

/*
 * Newest issue first, as the alerts came when they followed Gitea's
 * listing (routers/api/v1/repo/issue.go, ListIssues: newest first): the
 * backlog's order reversed.
 */
static void
depgraph_stale_deps(struct sup *s, const struct graph *g)
{
	size_t i, j;

	sup_status(s, "P3: %s: checking for stale dependencies",
	    s->cfg->project_name);
	for (i = g->n; i-- > 0;)
		for (j = 0; j < g->nodes[i].ndeps; j++)
			depgraph_stale_dep(s, g->nodes[i].id,
			    g->nodes[i].deps[j]);
}

/* Counts over every page; no metric at all when a list did not arrive. */
static void
depgraph_dev_metric(struct sup *s)
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
	cJSON_AddNumberToObject(m, "pr_open", (double)pulls_count(s->pulls));
	metrics_emit(s, m);
}

void
depgraph_check(struct sup *s)
{
	struct graph g;

	sup_status(s, "P3: %s: checking for circular dependencies",
	    s->cfg->project_name);
	if (lists_backlog(s) == -1)
		return;
	depgraph_build(s, &g);
	depgraph_report_cycles(s, &g);
	depgraph_stale_deps(s, &g);
	free(g.nodes);
	depgraph_dev_metric(s);
}
