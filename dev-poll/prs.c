/*
 * The open PRs of a tick: read once (every page), each one's issue found
 * from its branch, title or body, and its CI state and reviews worked out
 * at most once, so that every step decides on the same facts and no
 * endpoint is asked twice.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "ci.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "http.h"
#include "issueref.h"
#include "json.h"
#include "log.h"
#include "reviewers.h"
#include "runfiles.h"
#include "valid.h"
#include "woodpecker.h"
#include "xmalloc.h"

static int prs_ci(struct dev_ctx *, struct dp_pr *);
static int prs_reviews(struct dev_ctx *, struct dp_pr *);
static void prs_reviews_ahead(struct dev_ctx *, const struct dp_pr *);
static int prs_noncode(struct dev_ctx *, struct dp_pr *);
static int prs_number_at(const char *, long long);
static void prs_wp_down(struct dev_ctx *);
static void prs_ci_scan(struct dev_ctx *);
static void prs_fixes_parse(const char *, long long **, size_t *);
static int prs_keep(void *, const cJSON *);
static char *prs_strdup(const char *);
static void prs_free(struct dp_pr *, size_t);
static int prs_keep_merged(void *, const cJSON *);
static int prs_closed_load(struct dev_ctx *);

/* The open PRs as read so far, while the list's pages are visited. */
struct prs_read {
	struct dp_pr *list;
	size_t n, cap;
};

/* Each N of "fixes #N" in text, in order, into *out (caller frees). */
static void
prs_fixes_parse(const char *text, long long **out, size_t *n)
{
	const char *b, *end;
	long long v;

	*out = NULL;
	*n = 0;
	for (b = text; b != NULL && *b != '\0'; b++) {
		if (strncasecmp(b, "ixes #", 6) != 0 ||
		    valid_number_at(b + 6, &end, &v) != NULL)
			continue;
		if (isalnum((unsigned char)*end) || *end == '_')
			continue;
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		(*out)[(*n)++] = v;
	}
}

/* Keep what the scheduler needs of one open PR of a page. */
static int
prs_keep(void *arg, const cJSON *pr)
{
	struct prs_read *r = arg;
	const char *body;
	struct dp_pr *p;
	long long n;

	if (json_int(pr, "number", &n) == -1)
		return 0;
	r->list = xgrow(r->list, r->n, &r->cap, sizeof(*r->list));
	p = &r->list[r->n++];
	p->number = n;
	p->branch = prs_strdup(json_str_at(pr, "head.ref"));
	p->sha = prs_strdup(json_str_at(pr, "head.sha"));
	p->title = prs_strdup(json_str(pr, "title"));
	if (json_time(pr, "updated_at", &p->updated) == -1)
		p->updated = 0;
	body = json_str(pr, "body");
	prs_fixes_parse(body, &p->fixes, &p->nfixes);
	p->issue = issueref_from_pr(p->branch, p->title, body);
	return 0;
}

/* A copy of s, or NULL for NULL. */
static char *
prs_strdup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
prs_free(struct dp_pr *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(list[i].branch);
		free(list[i].sha);
		free(list[i].title);
		free(list[i].fixes);
	}
	free(list);
}

void
dp_prs_free(struct dev_ctx *c)
{
	prs_free(c->prs, c->nprs);
	c->prs = NULL;
	c->nprs = 0;
	free(c->merged_prs);
	c->merged_prs = NULL;
	prmemo_free(&c->quiet);
	c->nmerged_prs = 0;
}

int
dp_prs_load(struct dev_ctx *c)
{
	struct prs_read r = {NULL, 0, 0};

	/* A failed read is said once and not tried again this tick. */
	if (c->prs_read != 0)
		return c->prs_read == 1 ? 0 : -1;
	if (forge_pulls_each(c->forge, "open", prs_keep, &r) == -1) {
		log_msg("cannot read the open PRs: %s", forge_error(c->forge));
		prs_free(r.list, r.n);
		c->prs_read = -1;
		return -1;
	}
	c->prs = r.list;
	c->nprs = r.n;
	c->prs_read = 1;
	dp_quiet_load(c);
	prs_ci_scan(c);
	return 0;
}

/* Say once that Woodpecker failed; the forge's status stands in. */
static void
prs_wp_down(struct dev_ctx *c)
{
	log_msg("Woodpecker: %s — the forge's commit status stands in "
		"for the rest of this tick",
	    woodpecker_error(c->wp));
	c->wp_down = 1;
}

/*
 * One pipeline list for the CI states of every open PR's head, read
 * before any of them is asked for (the forge's status is read later
 * only for the heads the list does not cover).
 */
static void
prs_ci_scan(struct dev_ctx *c)
{
	const char **shas;
	size_t i;

	if (c->wp == NULL || c->wp_down || c->nprs == 0)
		return;
	shas = xcalloc(c->nprs, sizeof(*shas));
	for (i = 0; i < c->nprs; i++)
		shas[i] = c->prs[i].sha;
	if (woodpecker_scan(c->wp, shas, c->nprs) == -1)
		prs_wp_down(c);
	free(shas);
}

int
dp_ci_state(struct dev_ctx *c, const char *sha, enum ci_state *st,
    long long *pipeline)
{
	int wp_failed, r;

	r = ci_commit_read(c->forge, c->wp_down ? NULL : c->wp, sha, st,
	    pipeline, &wp_failed);
	if (wp_failed)
		prs_wp_down(c);
	return r;
}

/* The CI state of the PR's head. */
static int
prs_ci(struct dev_ctx *c, struct dp_pr *p)
{
	if (p->sha == NULL || *p->sha == '\0') {
		log_msg("PR #%lld has no head SHA", p->number);
		return -1;
	}
	if (dp_ci_state(c, p->sha, &p->ci, NULL) == 0)
		return 0;
	log_msg("cannot read the CI state of PR #%lld: %s", p->number,
	    forge_error(c->forge));
	return -1;
}

/*
 * Read the reviews of p and of the next PRs not evaluated yet, up to
 * HTTP_PARALLEL of them, at once: the scans evaluate the PRs with an
 * issue in the list's order, so these are the ones asked for next.
 */
static void
prs_reviews_ahead(struct dev_ctx *c, const struct dp_pr *p)
{
	long long nums[HTTP_PARALLEL];
	struct dp_pr *q;
	size_t i, n = 0;

	if (p->ahead)
		return;
	for (i = (size_t)(p - c->prs); i < c->nprs && n < HTTP_PARALLEL; i++) {
		q = &c->prs[i];
		if (q == p ||
		    (q->evaluated == 0 && q->issue >= 0 && !q->ahead &&
			!q->quiet)) {
			q->ahead = 1;
			nums[n++] = q->number;
		}
	}
	if (n > 1)
		forge_reviews_prefetch(c->forge, nums, n);
}

/* Read the PR's formal reviews into it. */
static int
prs_reviews(struct dev_ctx *c, struct dp_pr *p)
{
	const cJSON *list;
	int r;

	/* Known to hold no verdict, and unchanged since: not read again. */
	if (dp_quiet(p))
		return 0;
	prs_reviews_ahead(c, p);
	if (forge_reviews_list(c->forge, p->number, &list) == -1) {
		log_msg("cannot read the reviews of PR #%lld: %s", p->number,
		    forge_error(c->forge));
		return -1;
	}
	r = dp_pr_reviews(p, list, c->reviewers);
	/* Only the verdicts are needed: review texts are not held. */
	forge_reviews_forget(c->forge, p->number);
	if (r == -1)
		return -1;
	p->reviews_read = 1;
	return 0;
}

int
dp_pr_reviews(struct dp_pr *p, const cJSON *reviews, struct reviewers *rv)
{
	const cJSON *r;
	const char *state;
	int stale, dismissed, approved = 0, changes = 0, ignored = 0, counts;

	cJSON_ArrayForEach (r, reviews) {
		if ((state = json_str(r, "state")) == NULL ||
		    json_bool(r, "stale", &stale) == -1 || stale)
			continue;
		if (json_bool(r, "dismissed", &dismissed) == 0 && dismissed)
			continue;
		if (strcmp(state, "APPROVED") != 0 &&
		    strcmp(state, "REQUEST_CHANGES") != 0)
			continue;
		counts = reviewers_count(rv, json_str_at(r, "user.login"),
		    p->number, state);
		if (counts == -1)
			return -1;
		if (!counts)
			ignored = 1;
		else if (state[0] == 'A')
			approved = 1;
		else
			changes = 1;
	}
	p->approved |= approved;
	p->changes |= changes;
	p->ignored |= ignored;
	return 0;
}

enum dp_pr_action
dp_pr_decide(const struct dp_pr *p)
{
	if (p->passed && p->approved)
		return DP_PR_MERGE;
	if (p->failed)
		return DP_PR_FIX_CI;
	if (p->changes)
		return DP_PR_FIX_REVIEW;
	return DP_PR_WAIT;
}

/* Whether only non-code files changed: 1, 0, or -1 (unknown). */
static int
prs_noncode(struct dev_ctx *c, struct dp_pr *p)
{
	const cJSON *files;

	if (forge_pull_files(c->forge, p->number, &files) == -1) {
		log_msg("cannot read the files of PR #%lld: %s", p->number,
		    forge_error(c->forge));
		return -1;
	}
	return ci_files_need_ci(files) ? 0 : 1;
}

int
dp_pr_evaluate(struct dev_ctx *c, struct dp_pr *p)
{
	int configured = config_ci_configured(c->cfg), nc;

	if (p->evaluated != 0)
		return p->evaluated == 1 ? 0 : -1;
	p->evaluated = -1;
	if (prs_ci(c, p) == -1 || prs_reviews(c, p) == -1)
		return -1;
	p->passed = ci_passed(p->ci, configured);
	p->failed = ci_failed(p->ci, configured);
	/* The file list matters only where it changes a decision. */
	if (!p->passed && (p->approved || p->failed)) {
		if ((nc = prs_noncode(c, p)) == -1)
			return -1;
		if (nc) {
			p->noncode = p->passed = 1;
			p->failed = 0;
			log_msg("PR #%lld has no code files — treating CI as "
				"passed",
			    p->number);
		}
	}
	p->evaluated = 1;
	return 0;
}

struct dp_pr *
dp_pr_for_branch(struct dev_ctx *c, const char *branch)
{
	size_t i;

	for (i = 0; i < c->nprs; i++)
		if (c->prs[i].branch != NULL &&
		    strcmp(c->prs[i].branch, branch) == 0)
			return &c->prs[i];
	return NULL;
}

struct dp_pr *
dp_pr_for_issue(struct dev_ctx *c, long long issue, int by_title)
{
	struct dp_pr *p = NULL;
	size_t i;

	for (i = 0; i < c->nprs && p == NULL; i++)
		if (c->prs[i].branch != NULL &&
		    runfiles_branch_issue(c->prs[i].branch) == issue)
			p = &c->prs[i];
	if (p != NULL || !by_title)
		return p;
	for (i = 0; i < c->nprs; i++)
		if (dp_title_names(c->prs[i].title, issue))
			return &c->prs[i];
	return NULL;
}

/* Whether s starts with the number n, not followed by a word character. */
static int
prs_number_at(const char *s, long long n)
{
	const char *end;
	long long v;

	if (valid_number_at(s, &end, &v) != NULL)
		return 0;
	return v == n && !isalnum((unsigned char)*end) && *end != '_';
}

int
dp_text_fixes(const char *text, long long issue)
{
	const char *b;

	for (b = text; b != NULL && *b != '\0'; b++)
		if (strncasecmp(b, "ixes #", 6) == 0 &&
		    prs_number_at(b + 6, issue))
			return 1;
	return 0;
}

struct dp_pr *
dp_pr_fixing(struct dev_ctx *c, long long issue)
{
	size_t i, j;

	for (i = 0; i < c->nprs; i++)
		for (j = 0; j < c->prs[i].nfixes; j++)
			if (c->prs[i].fixes[j] == issue)
				return &c->prs[i];
	return NULL;
}

int
dp_title_names(const char *title, long long issue)
{
	const char *t;

	for (t = title; t != NULL && (t = strchr(t, '#')) != NULL; t++)
		if (prs_number_at(t + 1, issue))
			return 1;
	return 0;
}

/* Keep a merged PR of the closed list whose branch names its issue. */
static int
prs_keep_merged(void *arg, const cJSON *it)
{
	struct dev_ctx *c = arg;
	const char *ref;
	long long n, issue;
	int merged;

	ref = json_str_at(it, "head.ref");
	if (ref == NULL || (issue = runfiles_branch_issue(ref)) <= 0 ||
	    json_bool(it, "merged", &merged) == -1 || !merged ||
	    json_int(it, "number", &n) == -1)
		return 0;
	c->merged_prs = xreallocarray(c->merged_prs, c->nmerged_prs + 1,
	    sizeof(*c->merged_prs));
	c->merged_prs[c->nmerged_prs].issue = issue;
	c->merged_prs[c->nmerged_prs++].pr = n;
	return 0;
}

/*
 * Read the closed PRs once, again only after a write (as the client's
 * cache would); a failure is said each time they are asked for.
 */
static int
prs_closed_load(struct dev_ctx *c)
{
	if (c->closed_read == 1 && c->closed_writes == forge_writes(c->forge))
		return 0;
	c->closed_read = 0;
	c->nmerged_prs = 0;
	if (forge_pulls_each(c->forge, "closed", prs_keep_merged, c) == -1) {
		log_msg("cannot read the closed PRs: %s",
		    forge_error(c->forge));
		c->nmerged_prs = 0;
		return -1;
	}
	c->closed_read = 1;
	c->closed_writes = forge_writes(c->forge);
	return 0;
}

int
dp_pr_merged(struct dev_ctx *c, long long issue, long long *pr)
{
	size_t i;

	*pr = 0;
	if (prs_closed_load(c) == -1)
		return -1;
	/* The newest one, should the branch have been merged twice. */
	for (i = 0; i < c->nmerged_prs; i++)
		if (c->merged_prs[i].issue == issue &&
		    c->merged_prs[i].pr > *pr)
			*pr = c->merged_prs[i].pr;
	return *pr > 0;
}

const char *
dp_pr_ci_name(const struct dp_pr *p)
{
	return p->noncode ? "success" : ci_state_name(p->ci);
}
