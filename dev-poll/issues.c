/*
 * Issues: the labelled lists the scheduler walks, single issues (read
 * through the per-run cache, so a dependency looked at twice costs one
 * request), dependency readiness and the labels that keep an issue away
 * from the dev agent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "deps.h"
#include "dev-poll.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "xmalloc.h"

static int issues_keep(void *, const cJSON *);
static int issues_cmp(const void *, const void *);
static void issues_order(struct dp_issue *, size_t);
static void issues_free(struct dp_issue *, size_t);
static int issues_listed(const cJSON *const *, size_t, long long);
static int issues_in_backlog(const struct dev_ctx *, long long);

int
dp_issues_labelled(struct dev_ctx *c, const char *label, const cJSON ***out,
    size_t *n)
{
	const cJSON *list, *it;

	*out = NULL;
	*n = 0;
	if (forge_issues_list(c->forge, "open", label, "issues", &list) == -1) {
		log_warn("cannot read the open '%s' issues: %s", label,
		    forge_error(c->forge));
		return -1;
	}
	*out = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(**out));
	/*
	 * Gitea drops a label name it does not know from the filter (and
	 * lists every issue then), and type=issues is a filter some forges
	 * ignore: check both on every item.
	 */
	cJSON_ArrayForEach (it, list) {
		if (!json_has_label(it, label) ||
		    json_obj(it, "pull_request") != NULL)
			continue;
		(*out)[(*n)++] = it;
	}
	return 0;
}

/* The backlog as read so far, while its pages are visited. */
struct issues_read {
	struct dp_issue *list;
	size_t n, cap;
};

/* Keep what the scan needs of one backlog issue of a page. */
static int
issues_keep(void *arg, const cJSON *it)
{
	struct issues_read *r = arg;
	struct dp_issue *d;
	const char *title;
	long long num;

	/* The forge's label and type filters are not trusted. */
	if (!json_has_label(it, "backlog") ||
	    json_obj(it, "pull_request") != NULL ||
	    json_int(it, "number", &num) == -1)
		return 0;
	r->list = xgrow(r->list, r->n, &r->cap, sizeof(*r->list));
	d = &r->list[r->n];
	d->number = num;
	forge_issue_key(it, &d->key);
	(void)deps_parse(json_str(it, "body"), num, &d->deps, &d->ndeps);
	/* Which titles the prompt shows is known once the list is in order. */
	if ((title = json_str(it, "title")) != NULL)
		d->title = xstrdup(title);
	d->skip = dp_skip_label(it);
	d->priority = json_has_label(it, "priority");
	r->n++;
	return 0;
}

static int
issues_cmp(const void *a, const void *b)
{
	return forge_issue_key_cmp(&((const struct dp_issue *)a)->key,
	    &((const struct dp_issue *)b)->key);
}

/*
 * The backlog in the tools' order, oldest first, whatever order the
 * forge listed it in (Gitea: newest first, and no "sort" read); only the
 * titles the prompt shows are kept.
 */
static void
issues_order(struct dp_issue *list, size_t n)
{
	size_t i;

	if (n > 1)
		qsort(list, n, sizeof(*list), issues_cmp);
	for (i = DP_BACKLOG_LINES + 1; i < n; i++) {
		free(list[i].title);
		list[i].title = NULL;
	}
}

static void
issues_free(struct dp_issue *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(list[i].deps);
		free(list[i].title);
	}
	free(list);
}

void
dp_backlog_free(struct dev_ctx *c)
{
	issues_free(c->backlog, c->nbacklog);
	c->backlog = NULL;
	c->nbacklog = 0;
}

int
dp_backlog_load(struct dev_ctx *c)
{
	struct issues_read r = {NULL, 0, 0};

	if (c->backlog_read)
		return 0;
	if (forge_issues_each(c->forge, "open", "backlog", "issues",
		issues_keep, &r) == -1) {
		log_warn("cannot read the open 'backlog' issues: %s",
		    forge_error(c->forge));
		issues_free(r.list, r.n);
		return -1;
	}
	issues_order(r.list, r.n);
	c->backlog = r.list;
	c->nbacklog = r.n;
	c->backlog_read = 1;
	return 0;
}

int
dp_issue(struct dev_ctx *c, long long number, const cJSON **out)
{
	if (forge_issue_get(c->forge, number, out) == -1) {
		log_warn("cannot read issue #%lld: %s", number,
		    forge_error(c->forge));
		return -1;
	}
	return 0;
}

enum dp_issue_state
dp_issue_state(struct dev_ctx *c, long long number, const cJSON **out)
{
	const char *state;

	*out = NULL;
	if (forge_issue_get(c->forge, number, out) == -1) {
		if (forge_last_status(c->forge) == 404)
			return DP_ISSUE_MISSING;
		log_warn("cannot read issue #%lld: %s", number,
		    forge_error(c->forge));
		return DP_ISSUE_UNKNOWN;
	}
	state = json_str(*out, "state");
	return state != NULL && strcmp(state, "closed") == 0 ? DP_ISSUE_CLOSED :
							       DP_ISSUE_OPEN;
}

/* Whether issue num is one of the n items of list. */
static int
issues_listed(const cJSON *const *list, size_t n, long long num)
{
	long long v;
	size_t i;

	for (i = 0; i < n; i++)
		if (json_int(list[i], "number", &v) == 0 && v == num)
			return 1;
	return 0;
}

/* Whether issue num is in the backlog read this tick. */
static int
issues_in_backlog(const struct dev_ctx *c, long long num)
{
	size_t i;

	for (i = 0; i < c->nbacklog; i++)
		if (c->backlog[i].number == num)
			return 1;
	return 0;
}

int
dp_dep_closed(struct dev_ctx *c, long long dep, int *closed)
{
	const cJSON *issue;
	enum dp_issue_state st;

	*closed = 0;
	/* Listed among the open issues read this tick: open, no request. */
	if (issues_in_backlog(c, dep) ||
	    issues_listed(c->inprog, c->ninprog, dep))
		return 0;
	/* An issue that does not exist can never be closed. */
	if ((st = dp_issue_state(c, dep, &issue)) == DP_ISSUE_UNKNOWN)
		return -1;
	*closed = st == DP_ISSUE_CLOSED;
	return 0;
}

enum dp_deps
dp_deps_ready(struct dev_ctx *c, long long number, const long long *deps,
    size_t n)
{
	enum dp_deps r = DP_DEPS_MET;
	size_t i;
	int closed;

	for (i = 0; i < n && r == DP_DEPS_MET; i++) {
		if (dp_dep_closed(c, deps[i], &closed) == -1)
			r = DP_DEPS_UNKNOWN;
		else if (!closed) {
			log_msg("  #%lld blocked: dep #%lld not merged", number,
			    deps[i]);
			r = DP_DEPS_OPEN;
		}
	}
	return r;
}

enum dp_deps
dp_issue_ready(struct dev_ctx *c, long long number, const char *body)
{
	enum dp_deps r;
	long long *deps = NULL;
	size_t n = 0;

	(void)deps_parse(body, number, &deps, &n);
	r = dp_deps_ready(c, number, deps, n);
	free(deps);
	return r;
}

const char *
dp_skip_label(const cJSON *issue)
{
	static const char *const skip[] = {"formula", "action",
	    "prediction/dismissed", "prediction/unreviewed"};
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (json_has_label(issue, skip[i]))
			return skip[i];
	return NULL;
}
