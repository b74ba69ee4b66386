/*
 * The backlog projection: the open issues labelled "backlog" (the forge's
 * label and type filters are not trusted: each issue is checked to carry
 * the label and not to be a PR), read page by page and kept as the few
 * fields the tools decide on, in the tools' order (forge_issue_key_cmp():
 * created, then number, oldest first) whatever order the forge used.
 */
#ifndef BACKLOG_H
#define BACKLOG_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "forge.h"

/* One backlog issue. */
struct backlog_issue {
	long long number;
	struct forge_issue_key key; /* the tools' order; key.created 0
				       when the forge did not say */
	long long *deps;	    /* deps_parse() of its body; owned */
	size_t ndeps;
	char *title;	  /* owned; kept for the first few only (see
			     backlog_load()), else NULL */
	const char *skip; /* backlog_skip() (static), or NULL */
	int priority;	  /* labelled "priority" */
};

/* The projection; all zero before it is read. */
struct backlog {
	struct backlog_issue *v; /* in the tools' order */
	size_t n;
	int read; /* 1 once read (a failed read keeps nothing) */
	const struct backlog_issue **by_number; /* v sorted by number */
};

/*
 * Read the backlog with f, once (again after a failure), keeping the
 * titles of the first titles issues in order: 0, or -1 (forge_error()
 * says why).  Free with backlog_free().
 */
int backlog_load(struct backlog *, struct forge *f, size_t titles);
void backlog_free(struct backlog *);
/* The backlog issue numbered number, or NULL. */
const struct backlog_issue *backlog_find(const struct backlog *,
    long long number);
/*
 * The label that keeps an issue (or PR) from the dev agent ("formula",
 * "action", "prediction/dismissed", "prediction/unreviewed"), or NULL.
 */
const char *backlog_skip(const cJSON *issue);
/* How many whole days an issue created at created is open at now, or -1
 * when created is not known. */
long long backlog_age_days(time_t created, time_t now);

#endif
