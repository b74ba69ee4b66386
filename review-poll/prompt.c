/*
 * A review's prompt, from formulas/: the PR, its changed files and diff,
 * and on a re-review the previous review, the developer's answer and the
 * diff since; every piece of forge text capped, the cut said.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cap.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "marks.h"
#include "review-poll.h"
#include "runfiles.h"
#include "template.h"
#include "utf8.h"
#include "valid.h"
#include "xmalloc.h"

/* The factory's review formula (upstream's), inlined into the prompt. */
#define PROMPT_FORMULA_FILE "review-pr.toml"
#define PROMPT_FORMULA_MAX (64 * 1024)
/* Forge text in the prompt, each piece cut beyond (the cut said). */
#define PROMPT_TITLE_MAX 300
#define PROMPT_BODY_MAX (32 * 1024)
#define PROMPT_REVIEW_MAX (16 * 1024)
#define PROMPT_RESPONSE_MAX (8 * 1024)

static long long prompt_unread(struct rp *, long long, const cJSON *);
static char *prompt_files(const cJSON *, long long);
static char *prompt_formula(const struct rp *);
static char *prompt_previous(struct rp *, struct rp_prompt *, const cJSON *,
    const cJSON *);

/*
 * How many of the PR's changed files were not read (files has the first
 * of them): Gitea's "changed_files" of the PR less those read, at least
 * 1 (the list went on).
 */
static long long
prompt_unread(struct rp *rp, long long pr, const cJSON *files)
{
	long long total = 0, read = cJSON_GetArraySize(files);
	const cJSON *obj;

	if (forge_pull_get(rp->forge, pr, &obj) == -1 ||
	    json_int(obj, "changed_files", &total) == -1 || total <= read)
		return 1;
	return total - read;
}

/* The changed files, one a line, and how many were not read. */
static char *
prompt_files(const cJSON *files, long long unread)
{
	const cJSON *f;
	const char *name;
	struct buf b;

	buf_init(&b, 0);
	cJSON_ArrayForEach (f, files) {
		if ((name = forge_file_name(f)) != NULL)
			buf_printf(&b, "%s\n", name);
	}
	if (b.len == 0)
		buf_puts(&b, "(none listed)\n");
	if (unread > 0)
		buf_printf(&b,
		    "(%lld files not read: the list was cut; review what "
		    "is here and say in the review that %lld files were "
		    "not read)\n",
		    unread, unread);
	return buf_steal(&b);
}

/*
 * The re-review part of the prompt: the previous review, the developer's
 * answer, and the diff since (from the clone, else a note that the full
 * diff above must do).  Caller frees.
 */
static char *
prompt_previous(struct rp *rp, struct rp_prompt *in, const cJSON *prev,
    const cJSON *comments)
{
	const cJSON *resp = rp_last_dev_response(comments);
	struct buf b, diff;
	int cut = 0;

	buf_init(&b, 0);
	buf_init(&diff, 0);
	buf_printf(&b,
	    "## This is a re-review\n\nThe review of `%.7s` asked for "
	    "changes.\n\n### Previous review\n\n",
	    in->prev_sha);
	cap_append(&b, rp_comment_body(prev), PROMPT_REVIEW_MAX);
	buf_puts(&b, "\n\n");
	if (resp != NULL) {
		buf_puts(&b, "### The developer's response\n\n");
		cap_append(&b, rp_comment_body(resp), PROMPT_RESPONSE_MAX);
		buf_puts(&b, "\n\n");
	}
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

int
rp_prompt_gather(struct rp *rp, struct rp_prompt *in, const char *prev_sha)
{
	const cJSON *files, *comments, *prev;
	int all;

	if (forge_pull_files_some(rp->forge, in->pr, &files, &all) == -1) {
		log_warn("pr #%lld: cannot read the changes: %s", in->pr,
		    forge_error(rp->forge));
		return -1;
	}
	in->files_unread = all ? 0 : prompt_unread(rp, in->pr, files);
	if (forge_pull_diff(rp->forge, in->pr, rp->set.max_diff, &in->diff,
		&in->diff_cut) == -1) {
		log_warn("pr #%lld: cannot read the changes: %s", in->pr,
		    forge_error(rp->forge));
		return -1;
	}
	if (forge_comments_list(rp->review, in->pr, &comments) == -1) {
		log_warn("pr #%lld: cannot read the comments: %s", in->pr,
		    forge_error(rp->review));
		return -1;
	}
	in->files = prompt_files(files, in->files_unread);
	if (in->files_unread > 0)
		log_msg("pr #%lld: %d changed files read, %lld not read: "
			"reviewed all the same",
		    in->pr, cJSON_GetArraySize(files), in->files_unread);
	prev = rp_previous_review(comments, in->sha);
	if (prev_sha == NULL && prev != NULL &&
	    marks_reviewed_sha(rp_comment_body(prev), in->prev_sha,
		sizeof(in->prev_sha)) == -1)
		prev = NULL;
	if (prev_sha != NULL && valid_sha(prev_sha) == NULL)
		snprintf(in->prev_sha, sizeof(in->prev_sha), "%s", prev_sha);
	in->previous = prev != NULL && in->prev_sha[0] != '\0' ?
	    prompt_previous(rp, in, prev, comments) :
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
prompt_formula(const struct rp *rp)
{
	char *path =
	    xasprintf("%s/%s", rp->cfg->formulas_dir, PROMPT_FORMULA_FILE);
	struct buf text;
	char *out;
	int r;

	buf_init(&text, 0);
	r = file_read(path, PROMPT_FORMULA_MAX, &text);
	if (r == -1 && errno != ENOENT)
		log_warn("cannot read '%s': %s", path, strerror(errno));
	if (r == 1)
		log_msg("'%s' is longer than %d bytes: cut", path,
		    PROMPT_FORMULA_MAX);
	out = r == -1 ? xstrdup("") :
			xasprintf("## Formula\n\n%s\n\n", buf_str(&text));
	buf_free(&text);
	free(path);
	return out;
}

/*
 * The review prompt.  The PR's title and description are cut to their
 * caps (the cut said); the forge's API URL goes in without credentials.
 */
char *
rp_prompt_render(struct rp *rp, const struct rp_prompt *in)
{
	const char *p = rp->cfg->project_name;
	char num[32], note[64], err[256], *out = NULL;
	char *formula = prompt_formula(rp);
	char *phase = runfiles_review_phase(p, in->pr);
	char *output = runfiles_review_output(p, in->pr);
	char *title = utf8_cut(in->title, PROMPT_TITLE_MAX, " [... cut]");
	char *body = cap_head(in->body, PROMPT_BODY_MAX);
	char *api = config_url_public(rp->cfg->forge_api);
	const struct template_var vars[] = {{"REPO", rp->cfg->forge_repo},
	    {"PR_NUMBER", num}, {"PHASE_FILE", phase}, {"OUTPUT_FILE", output},
	    {"PR_TITLE", title}, {"PR_HEAD", in->head}, {"PR_BASE", in->base},
	    {"PR_SHA", in->sha}, {"CI_STATE", in->ci},
	    {"RE_REVIEW", in->prev_sha[0] ? "yes" : "no"}, {"PR_BODY", body},
	    {"CHANGED_FILES", in->files}, {"DIFF_NOTE", note},
	    {"DIFF", in->diff}, {"PREVIOUS_REVIEW", in->previous},
	    {"FORGE_API", api}, {"FACTORY_ROOT", rp->cfg->factory_root},
	    {"FORMULA", formula}};

	snprintf(num, sizeof(num), "%lld", in->pr);
	if (in->diff_cut)
		snprintf(note, sizeof(note), " (truncated at %zu bytes)",
		    rp->set.max_diff);
	else
		note[0] = '\0';
	if (template_render(rp->cfg->formulas_dir, "review-pr.md", vars,
		sizeof(vars) / sizeof(vars[0]), &out, err, sizeof(err)) == -1)
		log_err("cannot build the review prompt: %s", err);
	free(api);
	free(body);
	free(title);
	free(formula);
	free(phase);
	free(output);
	return out;
}

void
rp_prompt_free(struct rp_prompt *in)
{
	free(in->body);
	free(in->files);
	free(in->previous);
}
