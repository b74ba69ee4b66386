/*
 * The forge's lists a project's checks share, each read once a tick page
 * by page and kept as the few fields the checks read: the open PRs in
 * the forge model (common/world/pulls.h: prs.c, depgraph.c, sweep.c) and
 * the backlog (common/world/backlog.h: devhealth.c, depgraph.c).  A list
 * read only to be counted is counted as it goes by.  A read that fails
 * keeps nothing: the next check that needs the list asks again.  A kept
 * list is not read again after the tick's own writes (escalate.c's
 * comments and labels change neither).
 */
#include <stdlib.h>
#include <string.h>

#include "backlog.h"
#include "config.h"
#include "forge.h"
#include "pulls.h"
#include "reviewers.h"
#include "supervisor-poll.h"

/* What a count of labelled issues counts. */
struct lists_count {
	const char *label;
	long long n;
};

static int lists_count_one(void *, const cJSON *);

int
lists_prs(struct sup *s)
{
	if (s->pulls != NULL)
		return 0;
	if (s->reviewers == NULL)
		s->reviewers =
		    reviewers_open(s->cfg, s->forge, NULL, s->act.dry_run);
	s->pulls = pulls_new(s->cfg, s->forge, s->wp, s->reviewers, s->now);
	pulls_ci_memo_project(s->pulls);
	if (pulls_load(s->pulls) == -1) {
		sup_fail(s, "%s: cannot list open PRs: %s",
		    s->cfg->project_name, pulls_error(s->pulls));
		pulls_free(s->pulls);
		s->pulls = NULL;
		return -1;
	}
	return 0;
}

int
lists_stale(const struct sup *s, const cJSON *issue, long long *days)
{
	struct forge_issue fi;
	long long d;

	*days = -1;
	forge_issue_view(issue, &fi);
	if (fi.state == NULL || strcmp(fi.state, "open") != 0 ||
	    (d = backlog_age_days(fi.created, s->now)) <= SUP_DEP_STALE_DAYS)
		return 0;
	*days = d;
	return 1;
}

int
lists_backlog(struct sup *s)
{
	if (s->backlog.read)
		return 0;
	if (backlog_load(&s->backlog, s->forge, 0) == -1) {
		sup_fail(s, "%s: cannot list '%s' issues: %s",
		    s->cfg->project_name, "backlog", forge_error(s->forge));
		return -1;
	}
	return 0;
}

static int
lists_count_one(void *arg, const cJSON *el)
{
	struct lists_count *c = arg;

	c->n += forge_labelled(el, c->label);
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
	return (long long)s->backlog.n;
}

void
lists_free(struct sup *s)
{
	/* The heads' CI states read this tick, for the next. */
	if (s->pulls != NULL)
		pulls_memo_save(s->pulls, &s->act);
	pulls_free(s->pulls);
	s->pulls = NULL;
	reviewers_close(s->reviewers);
	s->reviewers = NULL;
	backlog_free(&s->backlog);
}
