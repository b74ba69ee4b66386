/*
 * A dev session's first prompt, from the templates of formulas/: a fresh
 * session's (the issue with its human comments, the other backlog
 * issues, prior art), a session continuing an open PR or a crashed
 * session's (the branch's diff, the last phase and CI result, the PR's
 * latest comments), each with the phase protocol and its real paths.
 * Text from the forge is untrusted: every piece is cut to a bounded
 * length (on a UTF-8 character boundary, the cut said: cap.h) before it
 * goes in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "buf.h"
#include "cap.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "git.h"
#include "log.h"
#include "runfiles.h"
#include "template.h"
#include "utf8.h"
#include "xmalloc.h"

#define BODY_MAX (32 * 1024)
#define COMMENT_MAX (8 * 1024)
#define COMMENTS_MAX (32 * 1024)
#define TITLE_MAX 300
/* Recovery context: the diff's summary and the last CI result. */
#define DIFFSTAT_LINES 20
#define CI_RESULT_MAX (8 * 1024)

static void prompt_put_cut(struct buf *, const char *, size_t);
static int prompt_is_human(struct dev_ctx *, const char *, const char *);
static char *prompt_rstrip(struct buf *);
static char *prompt_protocol(struct dev_ctx *, const struct dp_gather *);
static char *prompt_fresh(struct dev_ctx *, struct dp_gather *, const char *);
static char *prompt_recovery(struct dev_ctx *, struct dp_gather *, const char *,
    const char *);

/* Append at most max bytes of s (a title), cut before a partial character. */
static void
prompt_put_cut(struct buf *b, const char *s, size_t max)
{
	size_t len = s != NULL ? strlen(s) : 0, keep;

	keep = utf8_prefix_len(s, len, max);
	buf_append(b, s != NULL ? s : "", keep);
}

/* The buffer's text without trailing white space, handed over. */
static char *
prompt_rstrip(struct buf *b)
{
	while (b->len > 0 && strchr(" \t\r\n", b->data[b->len - 1]) != NULL)
		b->data[--b->len] = '\0';
	return buf_steal(b);
}

/* Whether a comment by login counts as a human's. */
static int
prompt_is_human(struct dev_ctx *c, const char *login, const char *self)
{
	if (login == NULL || *login == '\0')
		return 0;
	if (self != NULL && strcmp(login, self) == 0)
		return 0;
	return !config_is_bot(c->cfg, login);
}

char *
dp_issue_text(struct dev_ctx *c, const cJSON *issue, const cJSON *comments,
    const char *login)
{
	struct forge_comment cm;
	struct forge_issue fi;
	const cJSON *it;
	struct buf b, all;

	buf_init(&b, 0);
	buf_init(&all, 0);
	forge_issue_view(issue, &fi);
	cap_append(&b, fi.body, BODY_MAX);
	cJSON_ArrayForEach (it, comments) {
		forge_comment_view(it, &cm);
		if (!prompt_is_human(c, cm.author, login))
			continue;
		buf_printf(&all, "### @%s (%.10s):\n", cm.author,
		    cm.created_at != NULL ? cm.created_at : "");
		cap_append(&all, cm.body, COMMENT_MAX);
		buf_puts(&all, "\n\n");
	}
	if (all.len > 0) {
		buf_puts(&b, "\n\n## Comments from people on this issue\n\n");
		cap_append(&b, buf_str(&all), COMMENTS_MAX);
	}
	buf_free(&all);
	return prompt_rstrip(&b);
}

char *
dp_backlog_text(struct dev_ctx *c, long long self)
{
	struct buf b;
	long long n;
	size_t i, shown = 0, more = 0;

	buf_init(&b, 0);
	for (i = 0; i < c->backlog.n; i++) {
		if ((n = c->backlog.v[i].number) == self)
			continue;
		if (shown == DP_BACKLOG_LINES) {
			more++;
			continue;
		}
		buf_printf(&b, "- #%lld ", n);
		prompt_put_cut(&b, c->backlog.v[i].title, TITLE_MAX);
		buf_puts(&b, "\n");
		shown++;
	}
	if (more > 0)
		buf_printf(&b, "- ... and %zu more\n", more);
	if (shown == 0)
		buf_puts(&b, "(none)\n");
	return prompt_rstrip(&b);
}

char *
dp_title(const cJSON *issue)
{
	struct forge_issue fi;

	forge_issue_view(issue, &fi);
	return utf8_cut(fi.title, TITLE_MAX, NULL);
}

char *
dp_render(struct dev_ctx *c, const char *name, const struct template_var *vars,
    size_t n)
{
	char err[512], *out = NULL;

	if (template_render(c->cfg->formulas_dir, name, vars, n, &out, err,
		sizeof(err)) == -1) {
		log_err("cannot build the prompt: %s", err);
		return NULL;
	}
	return out;
}

char *
dp_cut_lines(const char *text, size_t max)
{
	const char *p = text;
	size_t n = 0;

	while (*p != '\0' && n < max)
		if (*p++ == '\n')
			n++;
	return xstrndup(text, (size_t)(p - text));
}

/* The phase protocol with the session's real paths. */
static char *
prompt_protocol(struct dev_ctx *c, const struct dp_gather *l)
{
	char *phase = runfiles_phase(c->cfg->project_name, l->issue);
	char *summary = runfiles_summary(c->cfg->project_name, l->issue);
	char *out;

	out = dp_render(c, "dev-phase-protocol.md",
	    (struct template_var[]) {{"PHASE_FILE", phase},
		{"SUMMARY_FILE", summary}, {"REMOTE", l->remote},
		{"BRANCH", l->branch}},
	    4);
	free(summary);
	free(phase);
	return out;
}

/* The first prompt of a fresh session. */
static char *
prompt_fresh(struct dev_ctx *c, struct dp_gather *l, const char *proto)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", l->issue);
	return dp_render(c, "dev-initial.md",
	    (struct template_var[]) {{"WORKTREE", l->worktree},
		{"BRANCH", l->branch}, {"ISSUE", num},
		{"REPO", c->cfg->forge_repo}, {"TITLE", l->title},
		{"ISSUE_TEXT", l->text}, {"BACKLOG", l->backlog},
		{"PRIOR_ART", l->prior}, {"PHASE_PROTOCOL", proto}},
	    9);
}

/* The first prompt of a session continuing an open PR. */
static char *
prompt_recovery(struct dev_ctx *c, struct dp_gather *l, const char *proto,
    const char *tmpl)
{
	char num[32], pr[32], *range, *stat, *phase_path, *ci_path, *session;
	const char *diffstat[] = {"diff", "--stat", NULL, NULL};
	struct phase_info sig;
	struct buf diff, ci;
	char *out;

	snprintf(num, sizeof(num), "%lld", l->issue);
	snprintf(pr, sizeof(pr), "%lld", l->pr);
	buf_init(&diff, 1024 * 1024);
	buf_init(&ci, 0);
	range = xasprintf("%s/%s..HEAD", l->remote, c->cfg->primary_branch);
	diffstat[2] = range;
	if (git_run(l->worktree, diffstat, &diff) != 0)
		buf_reset(&diff);
	stat = dp_cut_lines(diff.len > 0 ? buf_str(&diff) : "(no diff)\n",
	    DIFFSTAT_LINES);
	phase_path = runfiles_phase(c->cfg->project_name, l->issue);
	session = runfiles_dev_session(c->cfg->project_name, l->issue);
	if (agent_read_signal(session, phase_path, &sig) == -1 ||
	    *sig.raw == '\0')
		snprintf(sig.raw, sizeof(sig.raw), "unknown");
	ci_path = runfiles_ci_result(c->cfg->project_name, l->issue);
	if (file_read(ci_path, CI_RESULT_MAX, &ci) == -1 || ci.len == 0) {
		buf_reset(&ci);
		buf_puts(&ci, "(none recorded)");
	}
	out = dp_render(c, tmpl,
	    (struct template_var[]) {{"WORKTREE", l->worktree},
		{"BRANCH", l->branch}, {"ISSUE", num},
		{"REPO", c->cfg->forge_repo}, {"TITLE", l->title},
		{"ISSUE_TEXT", l->text}, {"DIFF_STAT", stat},
		{"LAST_PHASE", sig.raw}, {"PR", pr},
		{"PR_COMMENTS", l->pr_notes}, {"CI_RESULT", buf_str(&ci)},
		{"PHASE_PROTOCOL", proto}},
	    12);
	free(ci_path);
	free(session);
	free(phase_path);
	free(stat);
	free(range);
	buf_free(&ci);
	buf_free(&diff);
	return out;
}

char *
dp_launch_prompt(struct dev_ctx *c, struct dp_gather *l)
{
	char *proto, *out;

	if ((proto = prompt_protocol(c, l)) == NULL)
		return NULL;
	if (l->pr > 0)
		out = prompt_recovery(c, l, proto, "dev-recovery.md");
	else if (l->crash)
		out = prompt_recovery(c, l, proto, "dev-crash.md");
	else
		out = prompt_fresh(c, l, proto);
	free(proto);
	return out;
}
