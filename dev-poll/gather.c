/*
 * What a launch reads before it changes anything: the issue, its
 * comments, dependencies, an open PR to adopt (recovery mode) or a closed
 * one to learn from, the other backlog issues.  Missing data stops the
 * launch before anything changed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cap.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "issueref.h"
#include "log.h"
#include "runfiles.h"
#include "template.h"
#include "utf8.h"
#include "valid.h"
#include "xmalloc.h"

/* Prior art: the newest closed PRs looked at, and the diff kept. */
#define PRIOR_PRS 50 /* closed PRs looked at, newest first */
#define PRIOR_BYTES (64 * 1024)
#define PRIOR_LINES 500
/* Recovery context: the PR's latest comments, each cut short. */
#define PR_COMMENTS 3
#define PR_COMMENT_MAX 500

static int gather_safe_ref(const char *);
static long long gather_body_pr(const char *);
static int gather_adopt(struct dp_gather *, long long, const char *,
    const char *);
static int gather_find_pr(struct dev_ctx *, struct dp_gather *);
static int gather_prior_art(struct dev_ctx *, struct dp_gather *);
static int gather_pr_notes(struct dev_ctx *, struct dp_gather *);
static int gather_rest(struct dev_ctx *, struct dp_gather *);
static enum dp_gathered gather_failed(struct dev_ctx *, struct dp_gather *,
    const char *);

/*
 * A read of the issue's own data failed: the issue's fault (DP_GATHER_BAD,
 * why in l->bad) when the forge's answer was over the body cap, which no
 * later tick changes (any forge user can comment an issue past it); else
 * a failure of the tick's.
 */
static enum dp_gathered
gather_failed(struct dev_ctx *c, struct dp_gather *l, const char *what)
{
	if (!forge_too_large(c->forge))
		return DP_GATHER_FAILED;
	snprintf(l->bad, sizeof(l->bad), "%s: %s", what, forge_error(c->forge));
	return DP_GATHER_BAD;
}

/* A branch name safe to hand to git as an argument. */
static int
gather_safe_ref(const char *ref)
{
	const char *p;

	if (ref == NULL || *ref == '\0' || *ref == '-' || strstr(ref, ".."))
		return 0;
	for (p = ref; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("._/-", *p) == NULL)
			return 0;
	return 1;
}

/* The N of "Existing PR: #N" in an issue body, or 0. */
static long long
gather_body_pr(const char *body)
{
	const char *p;
	long long n;

	if (body == NULL || (p = strstr(body, "Existing PR:")) == NULL)
		return 0;
	for (p += 12; *p == ' ' || *p == '\t'; p++)
		;
	if (*p != '#' || valid_number_at(p + 1, NULL, &n) != NULL)
		return 0;
	return n;
}

/* Take PR number on branch as the one to continue. */
static int
gather_adopt(struct dp_gather *l, long long number, const char *branch,
    const char *how)
{
	if (!gather_safe_ref(branch)) {
		log_msg("PR #%lld has an unusable branch name", number);
		return -1;
	}
	l->pr = number;
	free(l->branch);
	l->branch = xstrdup(branch);
	log_msg("found existing PR #%lld on branch %s (from %s)", number,
	    branch, how);
	return 0;
}

/*
 * The open PR of the issue: named in its body ("Existing PR: #N"), on
 * branch fix/issue-N, fixing it ("Fixes #N" in the PR body), or naming it
 * in the title.  0 (l->pr stays 0 when there is none) or -1.
 */
static int
gather_find_pr(struct dev_ctx *c, struct dp_gather *l)
{
	struct forge_issue fi;
	struct forge_pull fp;
	const cJSON *pr;
	struct dp_pr *p;
	long long n;

	forge_issue_view(l->it, &fi);
	if ((n = gather_body_pr(fi.body)) > 0) {
		if (forge_pull_get(c->forge, n, &pr) == 0) {
			forge_pull_view(pr, &fp);
			if (fp.state != NULL && strcmp(fp.state, "open") == 0)
				return gather_adopt(l, n, fp.branch,
				    "issue body");
		} else if (forge_last_status(c->forge) != 404) {
			log_warn("cannot read PR #%lld: %s", n,
			    forge_error(c->forge));
			return -1;
		}
	}
	if (dp_prs_load(c) == -1)
		return -1;
	if ((p = dp_pr_for_branch(c, l->branch)) != NULL)
		return gather_adopt(l, p->pull->number, p->pull->branch,
		    "branch match");
	if ((p = dp_pr_fixing(c, l->issue)) != NULL)
		return gather_adopt(l, p->pull->number, p->pull->branch,
		    "body match");
	if ((p = dp_pr_for_issue(c, l->issue, 1)) != NULL)
		return gather_adopt(l, p->pull->number, p->pull->branch,
		    "title match");
	return 0;
}

/* The prior-art section from a closed, unmerged PR of the issue. */
static int
gather_prior_art(struct dev_ctx *c, struct dp_gather *l)
{
	const cJSON *list, *pr;
	struct forge_pull fp;
	const char *diff;
	char num[32], *cut;
	long long n = 0;
	int trunc;

	l->prior = xstrdup("");
	if (forge_pulls_recent(c->forge, "closed", PRIOR_PRS, &list) == -1) {
		log_warn("cannot read the closed PRs: %s",
		    forge_error(c->forge));
		return -1;
	}
	cJSON_ArrayForEach (pr, list) {
		forge_pull_view(pr, &fp);
		if (fp.merged)
			continue;
		if ((issueref_title_names(fp.title, l->issue) ||
			issueref_text_fixes(fp.body, l->issue)) &&
		    fp.number > 0) {
			n = fp.number;
			break;
		}
	}
	if (n == 0)
		return 0;
	log_msg("found closed (unmerged) PR #%lld as prior art", n);
	if (forge_pull_diff(c->forge, n, PRIOR_BYTES, &diff, &trunc) == -1) {
		log_warn("cannot read the diff of PR #%lld: %s", n,
		    forge_error(c->forge));
		return -1;
	}
	if (*diff == '\0')
		return 0;
	cut = dp_cut_lines(diff, PRIOR_LINES);
	while (*cut != '\0' && cut[strlen(cut) - 1] == '\n')
		cut[strlen(cut) - 1] = '\0';
	snprintf(num, sizeof(num), "%lld", n);
	free(l->prior);
	l->prior = dp_render(c, "dev-prior-art.md",
	    (struct template_var[]) {{"PR", num}, {"DIFF", cut}}, 2);
	free(cut);
	return l->prior != NULL ? 0 : -1;
}

/* Recovery: the PR's latest comments, each cut short. */
static int
gather_pr_notes(struct dev_ctx *c, struct dp_gather *l)
{
	struct forge_comment cm;
	const cJSON *list;
	struct buf b;
	char *body;
	int n, i;

	if (forge_comments_list(c->forge, l->pr, &list) == -1) {
		log_warn("cannot read the comments of PR #%lld: %s", l->pr,
		    forge_error(c->forge));
		return -1;
	}
	buf_init(&b, 0);
	n = cJSON_GetArraySize(list);
	for (i = n > PR_COMMENTS ? n - PR_COMMENTS : 0; i < n; i++) {
		forge_comment_view(cJSON_GetArrayItem(list, i), &cm);
		body = cap_head(cm.body, PR_COMMENT_MAX);
		buf_printf(&b, "[%s] %s\n", cm.author != NULL ? cm.author : "?",
		    body);
		free(body);
	}
	if (b.len == 0)
		buf_puts(&b, "(none)\n");
	l->pr_notes = buf_steal(&b);
	return 0;
}

enum dp_gathered
dp_gather(struct dev_ctx *c, const struct dp_launch_req *req,
    struct dp_gather *l)
{
	struct forge_issue fi;

	l->issue = req->issue;
	l->branch = runfiles_branch(req->issue);
	if ((l->it = req->issue_json) == NULL &&
	    dp_issue(c, req->issue, &l->it) == -1)
		return gather_failed(c, l, "the issue cannot be read");
	forge_issue_view(l->it, &fi);
	if (fi.state == NULL || strcmp(fi.state, "open") != 0) {
		log_msg("SKIP: issue #%lld is %s", l->issue,
		    fi.state != NULL ? fi.state : "in an unknown state");
		return DP_GATHER_BLOCKED;
	}
	if (dp_launch_refused(l->issue, l->it))
		return DP_GATHER_REFUSED;
	if (forge_comments_list(c->forge, l->issue, &l->comments) == -1) {
		log_warn("cannot read the comments of #%lld: %s", l->issue,
		    forge_error(c->forge));
		return gather_failed(c, l, "its comments cannot be read");
	}
	l->crash = req->crash;
	if (req->force)
		log_msg("#%lld: dependencies not checked (--force)", l->issue);
	else if (!l->crash) {
		switch (dp_preflight(c, l->issue, fi.body, l->comments)) {
		case DP_DEPS_OPEN:
			return DP_GATHER_BLOCKED;
		case DP_DEPS_UNKNOWN:
			return DP_GATHER_FAILED;
		case DP_DEPS_MET:
			break;
		}
	}
	if (gather_rest(c, l) == -1)
		return gather_failed(c, l, "its PRs cannot be read");
	l->text = dp_issue_text(c, l->it, l->comments, l->login);
	l->title = dp_title(l->it);
	l->backlog = dp_backlog_text(c, l->issue);
	return DP_GATHERED;
}

/* The token's user, the PR to adopt or prior art, the backlog: 0 or -1. */
static int
gather_rest(struct dev_ctx *c, struct dp_gather *l)
{
	if (forge_user_login(c->forge, &l->login) == -1) {
		log_warn("cannot read the token's user: %s",
		    forge_error(c->forge));
		return -1;
	}
	if (gather_find_pr(c, l) == -1 || dp_backlog_load(c) == -1)
		return -1;
	return l->pr > 0 ? gather_pr_notes(c, l) : gather_prior_art(c, l);
}

void
dp_gather_free(struct dp_gather *l)
{
	free(l->branch);
	free(l->prior);
	free(l->pr_notes);
	free(l->text);
	free(l->title);
	free(l->backlog);
	free(l->remote);
	free(l->worktree);
}
