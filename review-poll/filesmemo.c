/*
 * Whether an open PR changes only non-code files, remembered between
 * ticks (review-poll-files-P, common/world/prmemo.h), so that a PR waiting for
 * CI does not cost a changed-files read every tick.  The changed files
 * are those between the head and where it left the base branch: they
 * stay while the head does, and a retargeted base moves the PR's
 * updated_at.  A fact is trusted PRMEMO_MAX_AGE at most.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "prmemo.h"
#include "review-poll.h"
#include "runfiles.h"

#define FACT_NONCODE "non-code"
#define FACT_CODE "code"

static struct rp_pull *memo_pull(struct rp *, long long);

/* The tick's PR numbered pr, or NULL. */
static struct rp_pull *
memo_pull(struct rp *rp, long long pr)
{
	size_t i;

	for (i = 0; i < rp->pulls.n; i++)
		if (rp->pulls.v[i].number == pr)
			return &rp->pulls.v[i];
	return NULL;
}

void
rp_files_memo_load(struct rp *rp)
{
	char *path = runfiles_review_files(rp->cfg->project_name);
	const struct prmemo *m;
	struct rp_pull *p;
	size_t i;

	prmemo_load(&rp->files_memo, path);
	for (i = 0; i < rp->pulls.n; i++) {
		p = &rp->pulls.v[i];
		m = prmemo_find(&rp->files_memo, p->number, p->sha, p->updated,
		    rp->now);
		if (m == NULL)
			continue;
		if (strcmp(m->fact, FACT_NONCODE) == 0)
			p->noncode = 1;
		else if (strcmp(m->fact, FACT_CODE) == 0)
			p->noncode = 0;
		p->noncode_at = (time_t)m->at;
	}
	free(path);
}

int
rp_noncode_known(struct rp *rp, long long pr, int *noncode)
{
	const struct rp_pull *p = memo_pull(rp, pr);

	if (p == NULL || p->noncode == -1)
		return 0;
	*noncode = p->noncode;
	return 1;
}

void
rp_noncode_note(struct rp *rp, long long pr, int noncode)
{
	struct rp_pull *p = memo_pull(rp, pr);

	if (p == NULL)
		return;
	p->noncode = noncode;
	p->noncode_at = rp->now;
}

void
rp_files_memo_save(struct rp *rp)
{
	const struct rp_pull *p;
	char *path;
	struct buf b;
	size_t i;

	if (rp->act.dry_run)
		return;
	buf_init(&b, 0);
	for (i = 0; i < rp->pulls.n; i++) {
		p = &rp->pulls.v[i];
		if (p->noncode != -1)
			(void)prmemo_put(&b, p->number, p->sha, p->updated,
			    p->noncode ? FACT_NONCODE : FACT_CODE,
			    p->noncode_at, rp->now);
	}
	path = runfiles_review_files(rp->cfg->project_name);
	prmemo_save(&rp->files_memo, &rp->act, path, buf_str(&b));
	free(path);
	buf_free(&b);
}
