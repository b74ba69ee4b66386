/*
 * The backlog projection: see backlog.h.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backlog.h"
#include "deps.h"
#include "forge.h"
#include "xmalloc.h"

/* The backlog as read so far, while its pages are visited. */
struct backlog_read {
	struct backlog_issue *v;
	size_t n, cap;
};

static int backlog_keep(void *, const cJSON *);
static int backlog_cmp(const void *, const void *);
static int backlog_number_cmp(const void *, const void *);
static void backlog_drop(struct backlog_issue *, size_t);

/* Keep what the tools decide on of one issue of a page. */
static int
backlog_keep(void *arg, const cJSON *it)
{
	struct backlog_read *r = arg;
	struct backlog_issue *d;
	struct forge_issue fi;

	forge_issue_view(it, &fi);
	if (!forge_labelled(it, "backlog") || fi.pull || fi.number <= 0)
		return 0;
	r->v = xgrow(r->v, r->n, &r->cap, sizeof(*r->v));
	d = &r->v[r->n++];
	memset(d, 0, sizeof(*d));
	d->number = fi.number;
	forge_issue_key(it, &d->key);
	(void)deps_parse(fi.body, fi.number, &d->deps, &d->ndeps);
	/* Which titles are kept is known once the list is in order. */
	if (fi.title != NULL)
		d->title = xstrdup(fi.title);
	d->skip = backlog_skip(it);
	d->priority = forge_labelled(it, "priority");
	return 0;
}

static int
backlog_cmp(const void *a, const void *b)
{
	return forge_issue_key_cmp(&((const struct backlog_issue *)a)->key,
	    &((const struct backlog_issue *)b)->key);
}

/* qsort() order of issue pointers by number. */
static int
backlog_number_cmp(const void *a, const void *b)
{
	long long x = (*(const struct backlog_issue *const *)a)->number;
	long long y = (*(const struct backlog_issue *const *)b)->number;

	return x < y ? -1 : x > y;
}

static void
backlog_drop(struct backlog_issue *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].deps);
		free(v[i].title);
	}
	free(v);
}

int
backlog_load(struct backlog *b, struct forge *f, size_t titles)
{
	struct backlog_read r = {NULL, 0, 0};
	size_t i;

	if (b->read)
		return 0;
	if (forge_issues_each(f, "open", "backlog", "issues", backlog_keep,
		&r) == -1) {
		backlog_drop(r.v, r.n);
		return -1;
	}
	if (r.n > 1) /* no qsort of an empty (null) array */
		qsort(r.v, r.n, sizeof(*r.v), backlog_cmp);
	for (i = titles; i < r.n; i++) {
		free(r.v[i].title);
		r.v[i].title = NULL;
	}
	b->v = r.v;
	b->n = r.n;
	b->by_number = xcalloc(r.n + 1, sizeof(*b->by_number));
	for (i = 0; i < r.n; i++)
		b->by_number[i] = &r.v[i];
	if (r.n > 1)
		qsort(b->by_number, r.n, sizeof(*b->by_number),
		    backlog_number_cmp);
	b->read = 1;
	return 0;
}

void
backlog_free(struct backlog *b)
{
	backlog_drop(b->v, b->n);
	free(b->by_number);
	memset(b, 0, sizeof(*b));
}

const struct backlog_issue *
backlog_find(const struct backlog *b, long long number)
{
	size_t lo = 0, hi = b->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->by_number[mid]->number < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n && b->by_number[lo]->number == number ?
	    b->by_number[lo] :
	    NULL;
}

const char *
backlog_skip(const cJSON *issue)
{
	static const char *const skip[] = {"formula", "action",
	    "prediction/dismissed", "prediction/unreviewed"};
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (forge_labelled(issue, skip[i]))
			return skip[i];
	return NULL;
}

long long
backlog_age_days(time_t created, time_t now)
{
	if (created == 0)
		return -1;
	return (long long)(now - created) / 86400;
}
