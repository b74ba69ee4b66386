/*
 * The tick's open PRs: read once, page by page, into a compact list of
 * the fields review-poll reads (struct rp_pull), then looked up by number
 * or by the issue they work on.  No page is kept: at a thousand open PRs
 * the list as cJSON trees was most of a tick's heap.
 *
 * The descriptions are read for two things only: the issue a PR names
 * (extracted while the list is visited) and the prompt of a review
 * started this tick (a few at most, read again then, as review-pr.sh
 * read each PR's metadata at its start).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "forge.h"
#include "issueref.h"
#include "json.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "woodpecker.h"
#include "xmalloc.h"

static int pulls_visit(void *, const cJSON *);
static void pulls_text(struct rp_pull *, const cJSON *);
static void pulls_ci_scan(struct rp *);

int
rp_pulls_read(struct rp *rp)
{
	struct rp_pulls pl;

	memset(&pl, 0, sizeof(pl));
	if (forge_pulls_each(rp->forge, "open", pulls_visit, &pl) == -1) {
		log_warn("cannot list the open prs: %s",
		    forge_error(rp->forge));
		rp_pulls_free(&pl);
		return -1;
	}
	rp_pulls_free(&rp->pulls);
	rp->pulls = pl;
	log_msg("found %zu open prs", rp->pulls.n);
	pulls_ci_scan(rp);
	return 0;
}

void
rp_pulls_free(struct rp_pulls *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++) {
		free(pl->v[i].text);
	}
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

/* One PR of the list into arg's rp_pulls: 0. */
static int
pulls_visit(void *arg, const cJSON *el)
{
	struct rp_pulls *pl = arg;
	struct rp_pull *p;
	const char *body = json_str(el, "body");

	pl->v = xgrow(pl->v, pl->n, &pl->cap, sizeof(*pl->v));
	p = &pl->v[pl->n++];
	if (json_int(el, "number", &p->number) == -1)
		p->number = -1;
	(void)json_bool(el, "draft", &p->draft);
	if (json_time(el, "updated_at", &p->updated) == -1)
		p->updated = 0;
	p->noncode = -1;
	pulls_text(p, el);
	p->branch_issue = p->head != NULL ? runfiles_branch_issue(p->head) : -1;
	p->ref_issue = issueref_from_pr(p->head, p->title, body);
	return 0;
}

/* Copy p's strings (NULL when missing) into one allocation, p->text. */
static void
pulls_text(struct rp_pull *p, const cJSON *el)
{
	const char *s[4] = {json_str(el, "title"), json_str_at(el, "head.ref"),
	    json_str_at(el, "base.ref"), json_str_at(el, "head.sha")};
	const char **to[4] = {&p->title, &p->head, &p->base, &p->sha};
	size_t i, len = 0, off = 0;

	for (i = 0; i < 4; i++)
		len += s[i] != NULL ? strlen(s[i]) + 1 : 0;
	p->text = xmalloc(len + 1);
	for (i = 0; i < 4; i++) {
		if (s[i] == NULL)
			continue;
		memcpy(p->text + off, s[i], strlen(s[i]) + 1);
		*to[i] = p->text + off;
		off += strlen(s[i]) + 1;
	}
}

char *
rp_pull_body(const struct rp *rp, const struct rp_pull *p)
{
	const cJSON *pr;
	const char *body;

	/* The list kept no descriptions: the one reviewed is read whole. */
	if (forge_pull_get(rp->forge, p->number, &pr) == -1) {
		log_warn("pr #%lld: cannot read its description: %s", p->number,
		    forge_error(rp->forge));
		return NULL;
	}
	body = json_str(pr, "body");
	return xstrdup(body != NULL ? body : "");
}

/*
 * One pipeline list for the CI states of every open PR's head, read
 * before any is asked for.  A failure is left to the per-PR reads,
 * which fall back on the forge's status.
 */
static void
pulls_ci_scan(struct rp *rp)
{
	const char **shas;
	size_t i;

	if (rp->wp == NULL || rp->pulls.n == 0)
		return;
	shas = xcalloc(rp->pulls.n, sizeof(*shas));
	for (i = 0; i < rp->pulls.n; i++)
		shas[i] = rp->pulls.v[i].sha;
	(void)woodpecker_scan(rp->wp, shas, rp->pulls.n);
	free(shas);
}

const struct rp_pull *
rp_open_pull(const struct rp *rp, long long pr)
{
	size_t i;

	for (i = 0; i < rp->pulls.n; i++) {
		if (rp->pulls.v[i].number == pr)
			return &rp->pulls.v[i];
	}
	return NULL;
}

const struct rp_pull *
rp_issue_pull(const struct rp *rp, long long n)
{
	const struct rp_pull *p, *found = NULL;
	size_t i;

	for (i = 0; i < rp->pulls.n; i++) {
		p = &rp->pulls.v[i];
		if (p->head != NULL && p->branch_issue == n)
			return p;
		if (found == NULL && p->ref_issue == n)
			found = p;
	}
	return found;
}
