/*
 * The tick's forge model (common/world/pulls.h): the open PRs read once,
 * page by page, with their heads' CI states in one pipeline list, then
 * looked up by number or by the issue they work on; their reviews and
 * comments are read with the review token.  No page is kept: at a
 * thousand open PRs the list as cJSON trees was most of a tick's heap.
 *
 * The descriptions are read for two things only: the issue a PR names
 * (extracted while the list is visited) and the prompt of a review
 * started this tick (a few at most, read again then, as review-pr.sh
 * read each PR's metadata at its start).
 *
 * review-poll-files-P remembers whether a PR changes only non-code
 * files: the changed files are those between the head and where it left
 * the base branch, so they stay while the head does, and a retargeted
 * base moves the PR's updated_at.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "forge.h"
#include "log.h"
#include "pulls.h"
#include "review-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

static struct pulls *model_open(struct rp *);

/* The model, made when first asked for. */
static struct pulls *
model_open(struct rp *rp)
{
	if (rp->pulls == NULL) {
		rp->pulls = pulls_new(rp->cfg, rp->forge, rp->wp, rp->reviewers,
		    rp->now);
		pulls_set_review(rp->pulls, rp->review);
		pulls_ci_memo_project(rp->pulls);
	}
	return rp->pulls;
}

int
rp_pulls_read(struct rp *rp)
{
	struct pulls *m = model_open(rp);

	if (pulls_load(m) == -1) {
		log_warn("cannot list the open prs: %s", pulls_error(m));
		return -1;
	}
	log_msg("Found %zu open PRs", pulls_count(m));
	return 0;
}

void
rp_pulls_free(struct rp *rp)
{
	pulls_free(rp->pulls);
	rp->pulls = NULL;
}

const struct pull *
rp_open_pull(const struct rp *rp, long long pr)
{
	return rp->pulls != NULL ? pulls_number(rp->pulls, pr) : NULL;
}

const struct pull *
rp_issue_pull(const struct rp *rp, long long n)
{
	return rp->pulls != NULL ? pulls_linked(rp->pulls, n) : NULL;
}

char *
rp_pull_body(const struct rp *rp, const struct pull *p)
{
	struct forge_pull fp;
	const cJSON *pr;

	/* The list kept no descriptions: the one reviewed is read whole. */
	if (forge_pull_get(rp->forge, p->number, &pr) == -1) {
		log_warn("pr #%lld: cannot read its description: %s", p->number,
		    forge_error(rp->forge));
		return NULL;
	}
	forge_pull_view(pr, &fp);
	return xstrdup(fp.body != NULL ? fp.body : "");
}

void
rp_files_memo_load(struct rp *rp)
{
	char *path = runfiles_review_files(rp->cfg->project_name);

	pulls_memo_use(model_open(rp), PULLS_MEMO_FILES, path);
	free(path);
}

void
rp_files_memo_save(struct rp *rp)
{
	if (rp->pulls != NULL)
		pulls_memo_save(rp->pulls, &rp->act);
}
