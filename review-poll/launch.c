/*
 * Starting reviews: which open PRs need one (steps 4 and 5 of a tick),
 * and the launch itself: a detached worktree of the PR head, a review
 * agent session in it, and the prompt from formulas/ with the PR, its
 * diff and, on a re-review, the previous review and what changed since.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent.h"
#include "buf.h"
#include "ci.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "meminfo.h"
#include "review-poll.h"
#include "runfiles.h"
#include "template.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* The factory's review formula (upstream's), inlined into the prompt. */
#define FORMULA_FILE "review-pr.toml"
#define FORMULA_MAX (64 * 1024)

/* What a prompt is built from; strings borrowed or owned as marked. */
struct prompt_in {
	long long pr;
	const char *sha, *head, *base, *title, *body;
	char ci[96];
	char prev_sha[72];
	char *files; /* owned */
	const char *diff;
	int diff_cut;
	char *previous; /* owned: the re-review section, or "" */
};

static int is_wip(const char *);
static int wanted(const struct rp *, const cJSON *);
static int already_reviewed(struct rp *, long long, const char *);
static int ci_ready(struct rp *, long long, const char *, char *, size_t);
static int launch(struct rp *, const cJSON *, const char *, const char *);
static int gather(struct rp *, struct prompt_in *, const char *);
static char *file_list(const cJSON *);
static char *previous_section(struct rp *, struct prompt_in *, const cJSON *,
    const cJSON *);
static char *formula_section(const struct rp *);
static char *render_prompt(struct rp *, const struct prompt_in *);
static int start_session(struct rp *, const struct prompt_in *, const char *);
static void prompt_in_free(struct prompt_in *);

const cJSON *
rp_open_pull(const struct rp *rp, long long pr)
{
	const cJSON *p;
	long long n;

	cJSON_ArrayForEach (p, rp->pulls) {
		if (json_int(p, "number", &n) == 0 && n == pr)
			return p;
	}
	return NULL;
}

int
rp_may_launch(struct rp *rp)
{
	long long mb;

	if (rp->launched >= rp->set.max_reviews) {
		log_msg("hit max reviews (%d) for this tick",
		    rp->set.max_reviews);
		return 0;
	}
	if (meminfo_mb(rp->cfg->meminfo_path, "MemAvailable", &mb) == -1) {
		log_msg("skip: cannot read available memory from '%s'",
		    rp->cfg->meminfo_path);
		return 0;
	}
	if (mb < rp->set.min_available_mb) {
		log_msg("skip: %lld MB available", mb);
		return 0;
	}
	return 1;
}

/* "WIP: x", "[WIP] x", "wip: x" are works in progress. */
static int
is_wip(const char *title)
{
	if (*title == '[')
		title++;
	return strncasecmp(title, "WIP", 3) == 0 &&
	    (title[3] == ']' || title[3] == ':');
}

/* An open, ready PR against the primary branch with a usable head. */
static int
wanted(const struct rp *rp, const cJSON *pr)
{
	const char *base = json_str_at(pr, "base.ref");
	const char *sha = json_str_at(pr, "head.sha");
	const char *title = json_str(pr, "title");
	int draft = 0;

	(void)json_bool(pr, "draft", &draft);
	return base != NULL && strcmp(base, rp->cfg->primary_branch) == 0 &&
	    !draft && title != NULL && !is_wip(title) && sha != NULL &&
	    rp_is_sha(sha) && json_str_at(pr, "head.ref") != NULL;
}

/*
 * 1 when sha of pr has a review already (a formal one other than a
 * comment, a review comment, or an error comment), 0 when not, -1 when
 * that cannot be told.
 */
static int
already_reviewed(struct rp *rp, long long pr, const char *sha)
{
	const cJSON *comments, *reviews, *rv;
	const char *commit, *state;
	char *mark, *err_mark;
	int found;

	if (forge_reviews_list(rp->review, pr, &reviews) == -1 ||
	    forge_comments_list(rp->review, pr, &comments) == -1) {
		log_msg("pr #%lld: cannot read reviews and comments: %s", pr,
		    forge_error(rp->review));
		return -1;
	}
	cJSON_ArrayForEach (rv, reviews) {
		commit = json_str(rv, "commit_id");
		state = json_str(rv, "state");
		if (commit != NULL && state != NULL &&
		    strcmp(commit, sha) == 0 && strcmp(state, "COMMENT") != 0)
			return 1;
	}
	mark = rp_reviewed_marker(sha);
	err_mark = rp_error_marker(sha);
	found = rp_last_comment_with(comments, mark) != NULL ||
	    rp_last_comment_with(comments, err_mark) != NULL;
	free(mark);
	free(err_mark);
	return found;
}

/*
 * 1 when CI let sha of pr through (passed, not configured, or only
 * non-code files changed), with the state for the prompt in note; 0 when
 * it did not; -1 when it cannot be told.
 */
static int
ci_ready(struct rp *rp, long long pr, const char *sha, char *note,
    size_t notesz)
{
	int configured = config_ci_configured(rp->cfg);
	const cJSON *files;
	enum ci_state st;

	if (ci_commit_state(rp->forge, rp->wp, sha, &st, NULL) == -1) {
		log_msg("pr #%lld: cannot read the ci state of %.7s: %s", pr,
		    sha,
		    rp->wp && woodpecker_error(rp->wp)[0] ?
			woodpecker_error(rp->wp) :
			forge_error(rp->forge));
		return -1;
	}
	snprintf(note, notesz, "%s", ci_state_name(st));
	if (ci_passed(st, configured))
		return 1;
	if (forge_pull_files(rp->forge, pr, &files) == -1) {
		log_msg("pr #%lld: cannot read the changed files: %s", pr,
		    forge_error(rp->forge));
		return -1;
	}
	if (ci_files_need_ci(files)) {
		log_msg("pr #%lld: ci=%s, skip", pr, ci_state_name(st));
		return 0;
	}
	log_msg("pr #%lld: ci=%s but no code files, proceeding", pr,
	    ci_state_name(st));
	snprintf(note, notesz, "%s (not required: no code files)",
	    ci_state_name(st));
	return 1;
}

int
rp_review_new(struct rp *rp)
{
	const cJSON *pr;
	const char *sha;
	char ci[96];
	long long n;
	int r = 0, done;

	cJSON_ArrayForEach (pr, rp->pulls) {
		if (json_int(pr, "number", &n) == -1 || !wanted(rp, pr) ||
		    rp_review_busy(rp, n))
			continue;
		sha = json_str_at(pr, "head.sha");
		if ((done = already_reviewed(rp, n, sha)) != 0) {
			if (done == 1)
				log_msg("pr #%lld: %.7s reviewed, skip", n,
				    sha);
			r = done == -1 ? -1 : r;
			continue;
		}
		switch (ci_ready(rp, n, sha, ci, sizeof(ci))) {
		case -1:
			r = -1;
			/* FALLTHROUGH */
		case 0:
			continue;
		}
		if (!rp_may_launch(rp))
			break;
		log_msg("pr #%lld: needs review (ci=%s, sha=%.7s)", n, ci, sha);
		if (launch(rp, pr, NULL, ci) == -1)
			r = -1;
	}
	return r;
}

int
rp_rereview(struct rp *rp)
{
	struct rp_run *runs;
	const cJSON *pr;
	const char *sha;
	char ci[96];
	size_t i, n;
	int r = 0, done;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (runs[i].phase.phase != PHASE_AWAITING_CHANGES ||
		    (pr = rp_open_pull(rp, runs[i].pr)) == NULL ||
		    !wanted(rp, pr))
			continue;
		sha = json_str_at(pr, "head.sha");
		if (strcmp(sha, runs[i].sha) == 0)
			continue;
		if ((done = already_reviewed(rp, runs[i].pr, sha)) != 0) {
			if (done == 1)
				rp_run_cleanup(rp, runs[i].pr, 0);
			r = done == -1 ? -1 : r;
			continue;
		}
		if ((done = ci_ready(rp, runs[i].pr, sha, ci, sizeof(ci))) !=
		    1) {
			r = done == -1 ? -1 : r;
			continue;
		}
		if (!rp_may_launch(rp))
			break;
		log_msg("pr #%lld: re-review, new commits (%.7s -> %.7s)",
		    runs[i].pr, runs[i].sha, sha);
		if (launch(rp, pr, runs[i].sha, ci) == -1)
			r = -1;
	}
	rp_runs_free(runs, n);
	return r;
}

/* The changed files, one a line. */
static char *
file_list(const cJSON *files)
{
	const cJSON *f;
	const char *name;
	struct buf b;

	buf_init(&b, 0);
	cJSON_ArrayForEach (f, files) {
		if ((name = json_str(f, "filename")) != NULL)
			buf_printf(&b, "%s\n", name);
	}
	if (b.len == 0)
		buf_puts(&b, "(none listed)\n");
	return buf_steal(&b);
}

/*
 * The re-review part of the prompt: the previous review, the developer's
 * answer, and the diff since (from the clone, else a note that the full
 * diff above must do).  Caller frees.
 */
static char *
previous_section(struct rp *rp, struct prompt_in *in, const cJSON *prev,
    const cJSON *comments)
{
	const cJSON *resp = rp_last_dev_response(comments);
	struct buf b, diff;
	int cut = 0;

	buf_init(&b, 0);
	buf_init(&diff, 0);
	buf_printf(&b,
	    "## This is a re-review\n\nThe review of `%.7s` asked for "
	    "changes.\n\n### Previous review\n\n%s\n\n",
	    in->prev_sha, json_str(prev, "body"));
	if (resp != NULL)
		buf_printf(&b, "### The developer's response\n\n%s\n\n",
		    json_str(resp, "body"));
	if (rp_git_diff(rp, in->prev_sha, in->sha, rp->set.max_diff, &diff,
		&cut) == 0)
		buf_printf(&b,
		    "### Changes since the previous review (%.7s..%.7s)%s\n\n"
		    "```diff\n%s\n```\n",
		    in->prev_sha, in->sha, cut ? " (truncated)" : "",
		    buf_str(&diff));
	else
		buf_printf(&b,
		    "### Changes since the previous review\n\n`%.7s` is not "
		    "available any more (history rewritten?): judge the "
		    "whole diff above.\n",
		    in->prev_sha);
	buf_free(&diff);
	return buf_steal(&b);
}

/* Read everything the prompt needs.  0, or -1 (logged). */
static int
gather(struct rp *rp, struct prompt_in *in, const char *prev_sha)
{
	const cJSON *files, *comments, *prev;

	if (forge_pull_files(rp->forge, in->pr, &files) == -1 ||
	    forge_pull_diff(rp->forge, in->pr, rp->set.max_diff, &in->diff,
		&in->diff_cut) == -1) {
		log_msg("pr #%lld: cannot read the changes: %s", in->pr,
		    forge_error(rp->forge));
		return -1;
	}
	if (forge_comments_list(rp->review, in->pr, &comments) == -1) {
		log_msg("pr #%lld: cannot read the comments: %s", in->pr,
		    forge_error(rp->review));
		return -1;
	}
	in->files = file_list(files);
	prev = rp_previous_review(comments, in->sha);
	if (prev_sha == NULL && prev != NULL &&
	    rp_comment_reviewed_sha(json_str(prev, "body"), in->prev_sha,
		sizeof(in->prev_sha)) == -1)
		prev = NULL;
	if (prev_sha != NULL && rp_is_sha(prev_sha))
		snprintf(in->prev_sha, sizeof(in->prev_sha), "%s", prev_sha);
	in->previous = prev != NULL && in->prev_sha[0] != '\0' ?
	    previous_section(rp, in, prev, comments) :
	    xstrdup("");
	if (in->previous[0] == '\0')
		in->prev_sha[0] = '\0';
	return 0;
}

/*
 * The factory's formulas/review-pr.toml as the "## Formula" section of
 * the prompt, as review-pr.sh inlined it (never parsed: whatever it
 * holds is the agent's instruction); "" when there is none.  Caller
 * frees.
 */
static char *
formula_section(const struct rp *rp)
{
	char *path = xasprintf("%s/%s", rp->cfg->formulas_dir, FORMULA_FILE);
	struct buf text;
	char *out;
	int r;

	buf_init(&text, 0);
	r = file_read(path, FORMULA_MAX, &text);
	if (r == -1 && errno != ENOENT)
		log_msg("cannot read '%s': %s", path, strerror(errno));
	if (r == 1)
		log_msg("'%s' is longer than %d bytes: cut", path, FORMULA_MAX);
	out = r == -1 ? xstrdup("") :
			xasprintf("## Formula\n\n%s\n\n", buf_str(&text));
	buf_free(&text);
	free(path);
	return out;
}

/* The review prompt from the template.  Caller frees; NULL on error. */
static char *
render_prompt(struct rp *rp, const struct prompt_in *in)
{
	const char *p = rp->cfg->project_name;
	char num[32], note[64], err[256], *out = NULL;
	char *formula = formula_section(rp);
	char *phase = runfiles_review_phase(p, in->pr);
	char *output = runfiles_review_output(p, in->pr);
	const struct template_var vars[] = {{"REPO", rp->cfg->forge_repo},
	    {"PR_NUMBER", num}, {"PHASE_FILE", phase}, {"OUTPUT_FILE", output},
	    {"PR_TITLE", in->title}, {"PR_HEAD", in->head},
	    {"PR_BASE", in->base}, {"PR_SHA", in->sha}, {"CI_STATE", in->ci},
	    {"RE_REVIEW", in->prev_sha[0] ? "yes" : "no"},
	    {"PR_BODY", in->body}, {"CHANGED_FILES", in->files},
	    {"DIFF_NOTE", note}, {"DIFF", in->diff},
	    {"PREVIOUS_REVIEW", in->previous},
	    {"FORGE_API", rp->cfg->forge_api},
	    {"FACTORY_ROOT", rp->cfg->factory_root}, {"FORMULA", formula}};

	snprintf(num, sizeof(num), "%lld", in->pr);
	if (in->diff_cut)
		snprintf(note, sizeof(note), " (truncated at %zu bytes)",
		    rp->set.max_diff);
	else
		note[0] = '\0';
	if (template_render(rp->cfg->formulas_dir, "review-pr.md", vars,
		sizeof(vars) / sizeof(vars[0]), &out, err, sizeof(err)) == -1)
		log_msg("cannot build the review prompt: %s", err);
	free(formula);
	free(phase);
	free(output);
	return out;
}

/*
 * Worktree, run files, session, prompt.  On any failure everything is
 * removed again so the next tick starts over.
 */
static int
start_session(struct rp *rp, const struct prompt_in *in, const char *prompt)
{
	const char *p = rp->cfg->project_name;
	char *wt = runfiles_review_worktree(p, in->pr);
	char *phase = runfiles_review_phase(p, in->pr);
	char *output = runfiles_review_output(p, in->pr);
	char *req = runfiles_review_request(p, in->pr);
	char *session = runfiles_review_session(p, in->pr);
	char *record, old[72], retried[8];
	int r = -1;

	/* A review started again after a crash stays marked as such. */
	retried[0] = '\0';
	if (rp_read_key(req, "SHA:", old, sizeof(old)) == 0 &&
	    strcmp(old, in->sha) == 0)
		(void)rp_read_key(req, "RETRIED:", retried, sizeof(retried));
	record = xasprintf("SHA:%s\nPREV:%s\n%s", in->sha, in->prev_sha,
	    strcmp(retried, "1") == 0 ? "RETRIED:1\n" : "");

	if (rp_worktree_add(rp, wt, in->sha) == -1 ||
	    rp_remove(rp, output) == -1 || rp_write(rp, req, record) == -1 ||
	    rp_write(rp, phase, "") == -1 || rp_kill(rp, session) == -1 ||
	    rp_start(rp, session, wt) == -1)
		goto out;
	if (rp_inject(rp, session, prompt) != AGENT_DELIVERED)
		goto out;
	if (!rp->dry_run)
		log_msg("pr #%lld: review session %s started (%zu bytes of "
			"prompt, re-review: %s)",
		    in->pr, session, strlen(prompt),
		    in->prev_sha[0] ? "yes" : "no");
	r = 0;
out:
	if (r == -1)
		rp_run_cleanup(rp, in->pr, 0);
	free(wt);
	free(phase);
	free(output);
	free(req);
	free(session);
	free(record);
	return r;
}

/* Launch a review of the open PR pr (prev_sha: a re-review of it). */
static int
launch(struct rp *rp, const cJSON *pr, const char *prev_sha, const char *ci)
{
	struct prompt_in in;
	char *prompt = NULL;
	int r = -1;

	memset(&in, 0, sizeof(in));
	(void)json_int(pr, "number", &in.pr);
	in.sha = json_str_at(pr, "head.sha");
	in.head = json_str_at(pr, "head.ref");
	in.base = json_str_at(pr, "base.ref");
	in.title = json_str(pr, "title");
	in.body = json_str(pr, "body") ? json_str(pr, "body") : "";
	snprintf(in.ci, sizeof(in.ci), "%s", ci);
	/* The clone needs the PR's commits for the diff since last time. */
	if (rp_git_fetch(rp, in.head) == -1 || gather(rp, &in, prev_sha) == -1)
		goto out;
	if ((prompt = render_prompt(rp, &in)) == NULL)
		goto out;
	rp->launched++;
	r = start_session(rp, &in, prompt);
out:
	free(prompt);
	prompt_in_free(&in);
	return r;
}

static void
prompt_in_free(struct prompt_in *in)
{
	free(in->files);
	free(in->previous);
}
