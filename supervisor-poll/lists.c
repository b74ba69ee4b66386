/*
 * The forge's lists a project's checks share, each read once a tick page
 * by page (forge_*_each()) and kept as the few fields the checks read:
 * the open PRs (prs.c, backlog.c, sweep.c) and the open "backlog" issues
 * (devhealth.c, backlog.c).  A list read only to be counted is counted
 * as it goes by.  A read that fails keeps nothing: the next check that
 * needs the list asks again.  A kept list is not read again after the
 * tick's own writes (escalate.c's comments and labels change neither).
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "deps.h"
#include "forge.h"
#include "json.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "utf8.h"
#include "xmalloc.h"

/* A stale dependency's title is cut to this many bytes in the alert. */
#define TITLE_MAX 50

/* An array of n elements of size bytes being filled (room for cap). */
struct lists_grow {
	void *v;
	size_t n;
	size_t cap;
	size_t size;
};

/* What a count of labelled issues counts. */
struct lists_count {
	const char *label;
	long long n;
};

/* The backlog list as it is read: s for the clock, g for the array. */
struct lists_backlog_read {
	const struct sup *s;
	struct lists_grow g;
};

static void *lists_next(struct lists_grow *);
static void lists_prs_drop(struct sup_pr *, size_t);
static int lists_pr_keep(void *, const cJSON *);
static void lists_issues_drop(struct sup_issue *, size_t);
static int lists_issue_keep(void *, const cJSON *);
static int lists_count_one(void *, const cJSON *);

/* Room for one more element at the end of g's array: the new one, zeroed. */
static void *
lists_next(struct lists_grow *g)
{
	g->v = xgrow(g->v, g->n, &g->cap, g->size);
	return (char *)g->v + g->n++ * g->size;
}

static void
lists_prs_drop(struct sup_pr *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].sha);
	free(v);
}

/* Keep what the checks read of one open PR. */
static int
lists_pr_keep(void *arg, const cJSON *el)
{
	struct sup_pr *pr;
	const char *ref, *sha;
	long long number;
	int b;

	if (json_int(el, "number", &number) == -1)
		return 0;
	pr = lists_next(arg);
	pr->number = number;
	ref = json_str_at(el, "head.ref");
	pr->issue = ref != NULL ? runfiles_branch_issue(ref) : -1;
	if ((sha = json_str_at(el, "head.sha")) != NULL)
		pr->sha = xstrdup(sha);
	pr->has_updated = json_time(el, "updated_at", &pr->updated) == 0;
	pr->mergeable = json_bool(el, "mergeable", &b) == 0 ? b : -1;
	return 0;
}

int
lists_prs(struct sup *s)
{
	struct lists_grow g = {NULL, 0, 0, sizeof(struct sup_pr)};

	if (s->have_prs)
		return 0;
	if (forge_pulls_each(s->forge, "open", lists_pr_keep, &g) == -1) {
		lists_prs_drop(g.v, g.n);
		sup_fail(s, "%s: cannot list open PRs: %s",
		    s->cfg->project_name, forge_error(s->forge));
		return -1;
	}
	s->prs = g.v;
	s->nprs = g.n;
	s->have_prs = 1;
	return 0;
}

static void
lists_issues_drop(struct sup_issue *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].deps);
		free(v[i].title);
	}
	free(v);
}

char *
lists_stale(const struct sup *s, const cJSON *issue, long long *days)
{
	const char *state = json_str(issue, "state");
	time_t created;
	long long d;

	*days = -1;
	if (state == NULL || strcmp(state, "open") != 0 ||
	    json_time(issue, "created_at", &created) == -1)
		return NULL;
	if ((d = (long long)(s->now - created) / 86400) <= SUP_DEP_STALE_DAYS)
		return NULL;
	*days = d;
	return utf8_cut(json_str(issue, "title"), TITLE_MAX, " […]");
}

/*
 * Keep what the dependency checks read of one backlog issue: its
 * dependencies when it carries the label, and its age and cut title when
 * it is a stale dependency (the body is not kept).
 */
static int
lists_issue_keep(void *arg, const cJSON *el)
{
	struct lists_backlog_read *rd = arg;
	struct sup_issue *is;
	long long number;

	if (json_int(el, "number", &number) == -1)
		return 0;
	is = lists_next(&rd->g);
	is->number = number;
	if ((is->backlog = json_has_label(el, "backlog")))
		(void)deps_parse(json_str(el, "body"), number, &is->deps,
		    &is->ndeps);
	is->title = lists_stale(rd->s, el, &is->stale_days);
	return 0;
}

int
lists_backlog(struct sup *s)
{
	struct lists_backlog_read rd = {s,
	    {NULL, 0, 0, sizeof(struct sup_issue)}};

	if (s->have_backlog)
		return 0;
	if (forge_issues_each(s->forge, "open", "backlog", "issues",
		lists_issue_keep, &rd) == -1) {
		lists_issues_drop(rd.g.v, rd.g.n);
		sup_fail(s, "%s: cannot list '%s' issues: %s",
		    s->cfg->project_name, "backlog", forge_error(s->forge));
		return -1;
	}
	s->backlog = rd.g.v;
	s->nbacklog = rd.g.n;
	s->have_backlog = 1;
	return 0;
}

static int
lists_count_one(void *arg, const cJSON *el)
{
	struct lists_count *c = arg;

	c->n += json_has_label(el, c->label);
	return 0;
}

int
lists_count_labelled(struct sup *s, const char *label, long long *n)
{
	struct lists_count c = {label, 0};

	*n = 0;
	if (forge_issues_each(s->forge, "open", label, "issues",
		lists_count_one, &c) == -1) {
		sup_fail(s, "%s: cannot list '%s' issues: %s",
		    s->cfg->project_name, label, forge_error(s->forge));
		return -1;
	}
	*n = c.n;
	return 0;
}

long long
lists_backlog_labelled(const struct sup *s)
{
	long long n = 0;
	size_t i;

	for (i = 0; i < s->nbacklog; i++)
		n += s->backlog[i].backlog;
	return n;
}

void
lists_free(struct sup *s)
{
	lists_prs_drop(s->prs, s->nprs);
	lists_issues_drop(s->backlog, s->nbacklog);
	s->prs = NULL;
	s->nprs = 0;
	s->have_prs = 0;
	s->backlog = NULL;
	s->nbacklog = 0;
	s->have_backlog = 0;
}
