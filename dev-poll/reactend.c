/*
 * The end of a session: PHASE:done (the PR merged: clean up; not merged:
 * say so once) and PHASE:failed (a refusal hands the issue back as its
 * status says; anything else is a diagnostic, the blocked label and a
 * record for the supervisor).  Each posts at most one comment, found
 * again by its marker when a tick is repeated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "react.h"
#include "redact.h"
#include "runfiles.h"
#include "worktree.h"
#include "xmalloc.h"

/* The refusal JSON is read up to this size. */
#define REFUSAL_MAX (64 * 1024)
/* Pane lines quoted in a diagnostic. */
#define PANE_LINES 50

static int reactend_has_marker(struct dev_ctx *, long long, const char *);
static int reactend_comment_once(struct dev_ctx *, long long, const char *key,
    const char *marker, const char *body);
static int reactend_finish(struct dev_ctx *, struct rx *, int keep_worktree);
static int reactend_merged_pr(struct dev_ctx *, long long, long long *);
static cJSON *reactend_refusal_read(struct dev_ctx *, long long);
static char *reactend_blocked_by_text(const cJSON *);
static int reactend_refusal(struct dev_ctx *, struct rx *, const cJSON *);
static char *reactend_pane_tail(struct rx *);
static int reactend_record(struct dev_ctx *, struct rx *, const char *);
static int reactend_diagnostic(struct dev_ctx *, struct rx *, const char *);

/* Whether a comment on the issue carries marker: 1, 0, -1. */
static int
reactend_has_marker(struct dev_ctx *c, long long issue, const char *marker)
{
	const cJSON *list, *it;
	const char *body;

	if (forge_comments_list(c->forge, issue, &list) == -1) {
		log_msg("cannot read the comments of #%lld: %s", issue,
		    forge_error(c->forge));
		return -1;
	}
	cJSON_ArrayForEach (it, list)
		if ((body = json_str(it, "body")) != NULL &&
		    strstr(body, marker) != NULL)
			return 1;
	return 0;
}

static int
reactend_comment_once(struct dev_ctx *c, long long issue, const char *key,
    const char *marker, const char *body)
{
	char *full;
	int r;

	if ((r = reactend_has_marker(c, issue, marker)) != 0)
		return r == 1 ? 0 : -1;
	full = xasprintf("%s\n\n%s\n", body, marker);
	r = act_comment(&c->act, issue, key, full, NULL);
	free(full);
	return r;
}

/* Session, labels, worktree and run files: the issue is off the slot. */
static int
reactend_finish(struct dev_ctx *c, struct rx *x, int keep_worktree)
{
	char *wt = runfiles_worktree(c->cfg->project_name, x->issue);
	int r = 0;

	if (act_kill(&c->act, x->session) == -1 ||
	    act_label_remove(&c->act, x->issue, "in-progress") == -1)
		r = -1;
	if (r == 0 && !keep_worktree && file_exists(wt))
		r = worktree_remove(&c->act, c->cfg->project_repo_root, wt);
	if (r == 0)
		rx_clear_files(c, x);
	free(wt);
	return r;
}

/* A merged PR on fix/issue-N among the closed ones: 1 (*pr), 0, -1. */
static int
reactend_merged_pr(struct dev_ctx *c, long long issue, long long *pr)
{
	const cJSON *list, *it;
	const char *ref;
	int merged;

	if (forge_pulls_list(c->forge, "closed", &list) == -1) {
		log_msg("cannot read the closed PRs: %s",
		    forge_error(c->forge));
		return -1;
	}
	cJSON_ArrayForEach (it, list) {
		ref = json_str_at(it, "head.ref");
		if (ref != NULL && runfiles_branch_issue(ref) == issue &&
		    json_bool(it, "merged", &merged) == 0 && merged &&
		    json_int(it, "number", pr) == 0)
			return 1;
	}
	return 0;
}

int
rx_done(struct dev_ctx *c, struct rx *x)
{
	const cJSON *issue;
	const char *state;
	long long pr = 0;
	int r;

	if (rx_find_pr(c, x) == -1)
		return -1;
	if (x->pr > 0 && x->alive != 1)
		return 0; /* no one to tell: the orphan scan takes it up */
	if (x->pr > 0) {
		char *text =
		    xasprintf("PR #%lld is not merged yet, so the "
			      "work is not done. dev-poll merges it "
			      "once it is approved and CI is green; "
			      "do not merge it yourself. Write the "
			      "phase you are in (PHASE:awaiting_review "
			      "while the review is pending) to \"%s\", "
			      "then stop and wait.\n",
			x->pr, x->phase_path);

		r = rx_notice(c, x, "done", text) == ACT_INJECT_FAILED ? -1 : 0;
		free(text);
		return r;
	}
	if (dp_issue(c, x->issue, &issue) == -1)
		return -1;
	state = json_str(issue, "state");
	if (state == NULL || strcmp(state, "closed") != 0) {
		if ((r = reactend_merged_pr(c, x->issue, &pr)) == -1)
			return -1;
		if (r == 0) {
			return rx_notice(c, x, "done",
				   "PHASE:done was written, but there is no "
				   "merged PR for this issue. Push your branch "
				   "and write PHASE:awaiting_ci to have the PR "
				   "opened, or PHASE:escalate with a reason if "
				   "you are stuck.\n") == ACT_INJECT_FAILED ?
			    -1 :
			    0;
		}
		if (act_issue_close(&c->act, x->issue) == -1)
			return -1;
	}
	x->pr = pr;
	log_msg("#%lld: done — cleaning up", x->issue);
	return reactend_finish(c, x, 0);
}

/* The refusal JSON object in the summary file, or NULL.  Caller frees. */
static cJSON *
reactend_refusal_read(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_summary(c->cfg->project_name, issue);
	struct buf b;
	cJSON *j;

	buf_init(&b, 0);
	j = file_read(path, REFUSAL_MAX, &b) == 0 ?
	    cJSON_ParseWithLength(buf_str(&b), b.len) :
	    NULL;
	if (j != NULL &&
	    (!cJSON_IsObject(j) || json_str(j, "status") == NULL)) {
		cJSON_Delete(j);
		j = NULL;
	}
	buf_free(&b);
	free(path);
	return j;
}

/* The "blocked_by" of an unmet dependency: text or a list of issues. */
static char *
reactend_blocked_by_text(const cJSON *j)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "blocked_by"), *it;
	struct buf b;

	buf_init(&b, 4096);
	if (cJSON_IsString(v))
		buf_puts(&b, v->valuestring);
	else if (cJSON_IsArray(v))
		cJSON_ArrayForEach (it, v)
			if (cJSON_IsNumber(it))
				buf_printf(&b, "%s#%lld", b.len ? ", " : "",
				    (long long)it->valuedouble);
	if (b.len == 0)
		buf_puts(&b, "(not said)");
	return buf_steal(&b);
}

static int
reactend_refusal(struct dev_ctx *c, struct rx *x, const cJSON *j)
{
	const char *status = json_str(j, "status"),
		   *why = json_str(j, "reason");
	char *text = NULL, *marker, *key, *body;
	long long sugg = 0;
	int r = -1;

	marker = xasprintf("<!-- dev-refusal: %s -->", status);
	key = xasprintf("dev-refusal %s", status);
	log_msg("#%lld: the agent refused: %s", x->issue, status);
	if (strcmp(status, "unmet_dependency") == 0) {
		text = reactend_blocked_by_text(j);
		(void)json_int(j, "suggestion", &sugg);
		body = sugg > 0 ?
		    xasprintf("### Refused: unmet dependency\n\n%s\n\n"
			      "Suggestion: work on #%lld first.",
			text, sugg) :
		    xasprintf("### Refused: unmet dependency\n\n%s", text);
	} else if (strcmp(status, "too_large") == 0)
		body = xasprintf("### Refused: too large for one session\n\n%s"
				 "\n\nA maintainer should split this issue or "
				 "make its specification more precise.",
		    why != NULL ? why : "(no reason given)");
	else if (strcmp(status, "already_done") == 0)
		body = xasprintf("### Refused: already implemented\n\n%s\n\n"
				 "Closing the issue.",
		    why != NULL ? why : "(no reason given)");
	else
		body = xasprintf("### Refused: `%.60s`\n\nThe agent gave a "
				 "status dev-poll does not know; the issue "
				 "goes back to the backlog.",
		    status);
	if (reactend_comment_once(c, x->issue, key, marker, body) == -1 ||
	    act_label_remove(&c->act, x->issue, "in-progress") == -1)
		goto out;
	if (strcmp(status, "too_large") == 0)
		r = act_label_add(&c->act, x->issue, "underspecified") == 0 &&
			act_label_remove(&c->act, x->issue, "backlog") == 0 ?
		    0 :
		    -1;
	else if (strcmp(status, "already_done") == 0)
		r = act_issue_close(&c->act, x->issue);
	else
		r = act_label_add(&c->act, x->issue, "backlog");
	if (r == 0)
		r = reactend_finish(c, x, 0);
out:
	free(body);
	free(text);
	free(key);
	free(marker);
	return r;
}

/* The pane's last lines with secrets masked, or NULL.  Caller frees. */
static char *
reactend_pane_tail(struct rx *x)
{
	struct buf b;
	char *out = NULL;

	buf_init(&b, 256 * 1024);
	if (x->alive == 1 && agent_capture(x->session, PANE_LINES, &b) == 0 &&
	    b.len > 0)
		out = redact_secrets(buf_str(&b));
	buf_free(&b);
	return out;
}

/* One line in supervisor/escalations-P.jsonl. */
static int
reactend_record(struct dev_ctx *c, struct rx *x, const char *reason)
{
	char *path = runfiles_escalations(c->cfg->project_name), *line;
	cJSON *o = cJSON_CreateObject();
	char ts[32];
	int r = -1;

	log_iso8601(c->now, ts, sizeof(ts));
	cJSON_AddStringToObject(o, "ts", ts);
	cJSON_AddStringToObject(o, "project", c->cfg->project_name);
	cJSON_AddNumberToObject(o, "issue", (double)x->issue);
	cJSON_AddNumberToObject(o, "pr", (double)x->pr);
	cJSON_AddStringToObject(o, "reason", reason);
	line = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	r = act_append(&c->act, path, line);
	free(line);
	free(path);
	return r;
}

static int
reactend_diagnostic(struct dev_ctx *c, struct rx *x, const char *reason)
{
	char ts[32], *pane, *marker, *key, *body, pr[64] = "";
	int r = -1;

	log_iso8601(c->now, ts, sizeof(ts));
	if (x->pr > 0)
		snprintf(pr, sizeof(pr), "| PR | #%lld |\n", x->pr);
	pane = reactend_pane_tail(x);
	marker = xasprintf("<!-- dev-diagnostic: %s-%lld-%lld -->",
	    c->cfg->project_name, x->issue, (long long)x->sig.mtime);
	key = xasprintf("dev-diagnostic %s-%lld-%lld", c->cfg->project_name,
	    x->issue, (long long)x->sig.mtime);
	body =
	    xasprintf("### Session failure diagnostic\n\n| | |\n|---|---|\n"
		      "| Exit reason | `%.200s` |\n| Time | `%s` |\n%s%s%s%s",
		reason, ts, pr,
		pane ? "\n<details><summary>Last lines of the session</summary>"
		       "\n\n```\n" :
		       "",
		pane ? pane : "", pane ? "\n```\n</details>" : "");
	log_msg("#%lld: session failed: %s", x->issue, reason);
	if (reactend_comment_once(c, x->issue, key, marker, body) == 0 &&
	    act_label_remove(&c->act, x->issue, "in-progress") == 0 &&
	    act_label_add(&c->act, x->issue, "blocked") == 0 &&
	    (rx_key_done(c, x, "recorded") ||
		(reactend_record(c, x, reason) == 0 &&
		    rx_key_set(c, x, "recorded") == 0)))
		r = reactend_finish(c, x, x->pr > 0);
	free(body);
	free(key);
	free(marker);
	free(pane);
	return r;
}

int
rx_failed(struct dev_ctx *c, struct rx *x, const char *reason)
{
	cJSON *j = NULL;
	int r;

	if (rx_find_pr(c, x) == -1)
		return -1;
	if (reason == NULL) {
		reason = *x->sig.reason != '\0' ? x->sig.reason : "unspecified";
		if (strcmp(reason, "refused") == 0)
			j = reactend_refusal_read(c, x->issue);
	}
	r = j != NULL ? reactend_refusal(c, x, j) :
			reactend_diagnostic(c, x, reason);
	cJSON_Delete(j);
	return r;
}
