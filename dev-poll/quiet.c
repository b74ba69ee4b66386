/*
 * Open PRs whose reviews hold no verdict, remembered between ticks in
 * dev-poll-reviews-P (common/world/prmemo.h; the fact is the PR's CI state when
 * its reviews were read), so that a PR waiting for CI does not cost a
 * review read every tick.  Every submitted or dismissed review moves the
 * PR's updated_at (each adds to its timeline) and a push its head, so a
 * PR listed with both as they were, its CI state unchanged, still has no
 * verdict: deleting a review can only take one away.  What moves neither
 * (an undismissal through the API) is seen when CI changes state, where a
 * verdict starts to matter, and at the latest PRMEMO_MAX_AGE after the
 * read.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ci.h"
#include "config.h"
#include "dev-poll.h"
#include "prmemo.h"
#include "runfiles.h"

static int quiet_ci_parse(const char *, enum ci_state *);

/* A CI state by its ci_state_name() (never "unknown"): 0, or -1. */
static int
quiet_ci_parse(const char *name, enum ci_state *out)
{
	static const enum ci_state all[] = {CI_NONE, CI_PENDING, CI_SUCCESS,
	    CI_FAILURE, CI_CANCELED};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcmp(name, ci_state_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	}
	return -1;
}

void
dp_quiet_load(struct dev_ctx *c)
{
	char *path = runfiles_dev_quiet(c->cfg->project_name);
	const struct prmemo *m;
	struct dp_pr *p;
	size_t i;

	prmemo_load(&c->quiet, path);
	for (i = 0; i < c->nprs; i++) {
		p = &c->prs[i];
		m = prmemo_find(&c->quiet, p->number, p->sha, p->updated,
		    c->now);
		if (m != NULL && quiet_ci_parse(m->fact, &p->quiet_ci) == 0) {
			p->quiet = 1;
			p->quiet_at = (time_t)m->at;
		}
	}
	free(path);
}

int
dp_quiet(const struct dp_pr *p)
{
	return p->quiet && p->quiet_ci == p->ci;
}

void
dp_quiet_save(struct dev_ctx *c)
{
	const struct dp_pr *p;
	char *path;
	struct buf b;
	size_t i;

	/* No list this tick, or a dry run: the file stays as it is. */
	if (c->prs_read != 1 || c->act.dry_run)
		return;
	buf_init(&b, 0);
	for (i = 0; i < c->nprs; i++) {
		p = &c->prs[i];
		/*
		 * Read this tick and found without a verdict (one that did
		 * not count may count under other settings: not kept).
		 */
		if (p->reviews_read && !p->approved && !p->changes &&
		    !p->ignored)
			(void)prmemo_put(&b, p->number, p->sha, p->updated,
			    ci_state_name(p->ci), c->now, c->now);
		/* Remembered, and not read again. */
		else if (!p->reviews_read && p->quiet)
			(void)prmemo_put(&b, p->number, p->sha, p->updated,
			    ci_state_name(p->quiet_ci), p->quiet_at, c->now);
	}
	path = runfiles_dev_quiet(c->cfg->project_name);
	prmemo_save(&c->quiet, &c->act, path, buf_str(&b));
	free(path);
	buf_free(&b);
}
