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
#include <time.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "marks.h"
#include "react.h"
#include "redact.h"
#include "runfiles.h"
#include "utf8.h"
#include "xmalloc.h"

/* The refusal JSON is read up to this size. */
#define REFUSAL_MAX (64 * 1024)
/* Pane lines a diagnostic logs. */
#define PANE_LINES 50

static int reactend_merged(struct dev_ctx *, struct rx *);
static int reactend_refusal_read(struct dev_ctx *, long long, cJSON **);
static char *reactend_blocked_by_text(const cJSON *);
static char *reactend_refusal_body(struct dev_ctx *, const cJSON *,
    const char *);
static int reactend_refusal(struct dev_ctx *, struct rx *, const cJSON *);
static int reactend_pane_log(struct rx *);
static char *reactend_log_name(struct dev_ctx *);
static int reactend_record(struct dev_ctx *, struct rx *, const char *);
static int reactend_diagnostic(struct dev_ctx *, struct rx *, const char *);

/*
 * PHASE:done and the issue still open: a merged PR of the branch ends it
 * as a merge does (1), none means the work is not done (0).  -1: unknown.
 */
static int
reactend_merged(struct dev_ctx *c, struct rx *x)
{
	long long pr;
	int r;

	if ((r = dp_pr_merged(c, x->issue, &pr)) != 1)
		return r;
	log_msg("#%lld: PR #%lld was merged — finishing its after-merge steps",
	    x->issue, pr);
	x->pr = pr;
	return dp_merged(c, x->issue, pr, NULL) == 0 ? 1 : -1;
}

int
rx_done(struct dev_ctx *c, struct rx *x)
{
	const cJSON *issue;
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
	/* Closed, or gone altogether: nothing is left to do on it. */
	switch (dp_issue_state(c, x->issue, &issue)) {
	case DP_ISSUE_UNKNOWN:
		return -1;
	case DP_ISSUE_OPEN:
		if ((r = reactend_merged(c, x)) == -1)
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
		break;
	case DP_ISSUE_MISSING:
		/* Gone on two ticks (once per phase write) before it counts. */
		if (!rx_key_done(c, x, "gone-wait")) {
			log_msg("#%lld: done, but the issue is not there — "
				"looked at again next tick",
			    x->issue);
			return rx_key_set(c, x, "gone-wait");
		}
		break;
	case DP_ISSUE_CLOSED:
		break;
	}
	log_msg("#%lld: done — cleaning up", x->issue);
	return rx_end_session(c, x, 0);
}

/*
 * The refusal JSON object in the summary file into *out (caller frees),
 * NULL when it holds none.  -1 (logged) when the file is there but
 * cannot be read: unknown, so nothing is decided on it.
 */
static int
reactend_refusal_read(struct dev_ctx *c, long long issue, cJSON **out)
{
	char *path = runfiles_summary(c->cfg->project_name, issue);
	struct buf b;
	cJSON *j = NULL;
	int r = 0;

	buf_init(&b, 0);
	if (file_read(path, REFUSAL_MAX, &b) == 0)
		j = cJSON_ParseWithLength(buf_str(&b), b.len);
	else if (errno != ENOENT) {
		log_warn("#%lld: cannot read '%s' — the failure waits", issue,
		    path);
		r = -1;
	}
	if (j != NULL &&
	    (!cJSON_IsObject(j) || json_str(j, "status") == NULL)) {
		cJSON_Delete(j);
		j = NULL;
	}
	buf_free(&b);
	free(path);
	*out = j;
	return r;
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
		buf_puts(&b, "unknown");
	return buf_steal(&b);
}

/*
 * The refusal comment in post_refusal_comment's words (emoji, "Dev-agent:
 * TITLE", the assessment, the signature line).  Caller frees.
 */
static char *
reactend_refusal_body(struct dev_ctx *c, const cJSON *j, const char *status)
{
	const char *why = json_str(j, "reason");
	char ts[32], *text = NULL, *raw = NULL, *cut = NULL, *body;
	long long sugg = 0;
	struct tm tm;
	time_t now = c->now;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M UTC", &tm);
	if (why == NULL)
		why = "unspecified";
	if (strcmp(status, "unmet_dependency") == 0) {
		text = reactend_blocked_by_text(j);
		(void)json_int(j, "suggestion", &sugg);
		cut = sugg > 0 ? xasprintf("\n\n**Suggestion:** Work on "
					   "#%lld first.",
				     sugg) :
				 xstrdup("");
		body = xasprintf("🚧 **Dev-agent: Unmet dependency**\n\n"
				 "### Blocked by unmet dependency\n\n%s%s",
		    text, cut);
	} else if (strcmp(status, "too_large") == 0)
		body = xasprintf("📏 **Dev-agent: Too large for single "
				 "session**\n\n### Why this can't be "
				 "implemented as-is\n\n%s\n\n### Next steps\n"
				 "A maintainer should split this issue or add "
				 "more detail to the spec.",
		    why);
	else if (strcmp(status, "already_done") == 0)
		body = xasprintf("✅ **Dev-agent: Already implemented**\n\n"
				 "### Existing implementation\n\n%s\n\n"
				 "Closing as already implemented.",
		    why);
	else {
		raw = cJSON_Print(j);
		cut = utf8_cut(raw, 2000, NULL);
		body = xasprintf("❓ **Dev-agent: Unable to proceed**\n\n"
				 "The dev-agent could not process this issue."
				 "\n\nRaw response:\n```json\n%s\n```\n\n"
				 "The issue goes back to the backlog.",
		    cut);
	}
	free(text);
	free(raw);
	free(cut);
	text = xasprintf("%s\n\n---\n*Automated assessment by dev-agent · "
			 "%s*",
	    body, ts);
	free(body);
	return text;
}

static int
reactend_refusal(struct dev_ctx *c, struct rx *x, const cJSON *j)
{
	const char *status = json_str(j, "status");
	char *marker, *key, *body;
	int r = -1;

	marker = marks_refusal(status);
	key = xasprintf("dev-refusal %.60s", status);
	log_warn("#%lld: the agent refused: %s", x->issue, status);
	body = reactend_refusal_body(c, j, status);
	if (rx_comment_once(c, x->issue, key, marker, body) == -1 ||
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
		r = rx_end_session(c, x, 0);
out:
	free(body);
	free(key);
	free(marker);
	return r;
}

/*
 * The pane's last lines, secrets masked, into the log (one line each):
 * they stay on the host.  1 when there were some, else 0.
 */
static int
reactend_pane_log(struct rx *x)
{
	struct buf b;
	char *masked, *line, *save = NULL;
	int n = 0;

	buf_init(&b, 256 * 1024);
	if (x->alive == 1 && agent_capture(x->session, PANE_LINES, &b) == 0 &&
	    b.len > 0) {
		masked = redact_secrets(buf_str(&b));
		for (line = strtok_r(masked, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			log_msg("#%lld: %s pane %d: %s", x->issue, x->session,
			    ++n, line);
		free(masked);
	}
	buf_free(&b);
	return n > 0;
}

/*
 * Where the pane's lines were logged, as a public comment may say it:
 * the log file relative to the factory (no path of the host), or the
 * journal.  Caller frees.
 */
static char *
reactend_log_name(struct dev_ctx *c)
{
	char *path, *name;
	size_t n = strlen(c->cfg->factory_root);

	if (c->cfg->log_dest != NULL && strcmp(c->cfg->log_dest, "stderr") == 0)
		return xstrdup("the journal of dev-poll");
	path = runfiles_dev_log(c->cfg->project_name);
	name = strncmp(path, c->cfg->factory_root, n) == 0 && path[n] == '/' ?
	    xasprintf("`%s`", path + n + 1) :
	    xstrdup("the dev-poll log");
	free(path);
	return name;
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

/*
 * The failure comment says what ended the session and where its pane's
 * last lines are (the host's log), never the lines themselves: a pane
 * shows whatever the agent printed, tokens included.
 */
static int
reactend_diagnostic(struct dev_ctx *c, struct rx *x, const char *reason)
{
	char ts[32], *why, *cut, *where, *marker, *key, *body, pr[64] = "";
	char pane[512] = "";
	int r = -1;

	log_iso8601(c->now, ts, sizeof(ts));
	if (x->pr > 0)
		snprintf(pr, sizeof(pr), "| PR | #%lld |\n", x->pr);
	why = redact_secrets(reason);
	cut = utf8_cut(why, 200, NULL);
	log_warn("#%lld: session failed: %s", x->issue, why);
	where = reactend_log_name(c);
	if (reactend_pane_log(x))
		snprintf(pane, sizeof(pane),
		    "\nThe last %d lines of the session's terminal are in %s "
		    "on the factory's host (secrets masked); they are not "
		    "posted here.\n",
		    PANE_LINES, where);
	marker = marks_diagnostic(c->cfg->project_name, x->issue,
	    (long long)x->sig.mtime);
	key = xasprintf("dev-diagnostic %s-%lld-%lld", c->cfg->project_name,
	    x->issue, (long long)x->sig.mtime);
	/* post_blocked_diagnostic's table and words. */
	body = xasprintf("### Session failure diagnostic\n\n"
			 "| Field | Value |\n|---|---|\n"
			 "| Exit reason | `%s` |\n| Timestamp | `%s` |\n%s%s",
	    cut, ts, pr, pane);
	if (rx_comment_once(c, x->issue, key, marker, body) == 0 &&
	    act_label_remove(&c->act, x->issue, "in-progress") == 0 &&
	    act_label_add(&c->act, x->issue, "blocked") == 0 &&
	    (rx_key_done(c, x, "recorded") ||
		(reactend_record(c, x, why) == 0 &&
		    rx_key_set(c, x, "recorded") == 0)))
		r = rx_end_session(c, x, x->pr > 0);
	free(body);
	free(key);
	free(marker);
	free(where);
	free(cut);
	free(why);
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
		if (strcmp(reason, "refused") == 0 &&
		    reactend_refusal_read(c, x->issue, &j) == -1)
			return -1;
	}
	r = j != NULL ? reactend_refusal(c, x, j) :
			reactend_diagnostic(c, x, reason);
	cJSON_Delete(j);
	return r;
}
