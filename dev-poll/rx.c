/*
 * One issue's session as a phase reaction sees it, and what every
 * reaction does to it: the notices keyed per phase write (so a repeated
 * tick repeats nothing), the injections, the issue's open PR, comments
 * posted once, and the end of a session with the removal of its run
 * files.  Lower than the reactions that use it (react.h); it calls none
 * of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "ciwake.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "marks.h"
#include "react.h"
#include "runfiles.h"
#include "worktree.h"
#include "xmalloc.h"

static int rx_key_line(struct rx *, const char *, char *, size_t);
static int rx_has_marker(struct dev_ctx *, long long, const char *);

int
dp_phase_issues(struct dev_ctx *c, long long **issues, size_t *n)
{
	if (runfiles_phase_issues(c->cfg->project_name, issues, n) == -1) {
		log_warn("cannot list the phase files in '%s'",
		    c->cfg->run_dir);
		return -1;
	}
	return 0;
}

/* "kind mtime": the key of a notice for the current phase write. */
static int
rx_key_line(struct rx *x, const char *kind, char *out, size_t outsz)
{
	return snprintf(out, outsz, "%s %lld\n", kind, (long long)x->sig.mtime);
}

void
rx_init(struct dev_ctx *c, struct rx *x, long long issue)
{
	memset(x, 0, sizeof(*x));
	x->issue = issue;
	x->session = runfiles_dev_session(c->cfg->project_name, issue);
	x->phase_path = runfiles_phase(c->cfg->project_name, issue);
}

void
rx_free(struct rx *x)
{
	free(x->session);
	free(x->phase_path);
}

int
rx_key_done(struct dev_ctx *c, struct rx *x, const char *kind)
{
	char *path = runfiles_phase_notice(c->cfg->project_name, x->issue);
	char line[128];
	struct buf b;
	int found = 0;

	/* Lines are matched whole: "\nkind mtime\n" within "\n" + file. */
	line[0] = '\n';
	rx_key_line(x, kind, line + 1, sizeof(line) - 1);
	buf_init(&b, 0);
	buf_puts(&b, "\n");
	if (file_read(path, 4096, &b) != -1)
		found = strstr(buf_str(&b), line) != NULL;
	else if (errno != ENOENT) {
		/* Unknown, not absent: sending it again could repeat it. */
		log_warn("#%lld: cannot read '%s' — %s notice skipped",
		    x->issue, path, kind);
		found = -1;
	}
	buf_free(&b);
	free(path);
	return found;
}

int
rx_key_set(struct dev_ctx *c, struct rx *x, const char *kind)
{
	char *path = runfiles_phase_notice(c->cfg->project_name, x->issue);
	char line[128], stamp[40];
	const char *p, *nl;
	struct buf old, b;
	int r;

	buf_init(&old, 0);
	buf_init(&b, 0);
	snprintf(stamp, sizeof(stamp), " %lld", (long long)x->sig.mtime);
	if (file_read(path, 4096, &old) == 0) {
		/* Keep the keys of this phase write only. */
		for (p = buf_str(&old); *p != '\0'; p = nl + 1) {
			if ((nl = strchr(p, '\n')) == NULL)
				break;
			if ((size_t)(nl - p) > strlen(stamp) &&
			    strncmp(nl - strlen(stamp), stamp, strlen(stamp)) ==
				0)
				buf_append(&b, p, (size_t)(nl - p) + 1);
		}
	}
	rx_key_line(x, kind, line, sizeof(line));
	buf_puts(&b, line);
	r = act_write(&c->act, path, buf_str(&b), 0);
	buf_free(&b);
	buf_free(&old);
	free(path);
	return r;
}

enum act_inject
rx_inject(struct dev_ctx *c, struct rx *x, const char *key, const char *text)
{
	char *idle;

	/* New work for the agent: it is no longer idle at its prompt. */
	idle = runfiles_idle_marker(x->session);
	(void)act_remove(&c->act, idle);
	free(idle);
	return act_inject(&c->act, x->session, key, text);
}

enum act_inject
rx_advance(struct dev_ctx *c, struct rx *x, const char *key, enum phase next,
    const char *text)
{
	char *idle = runfiles_idle_marker(x->session);

	(void)act_remove(&c->act, idle);
	free(idle);
	return act_advance(&c->act, x->session, key, x->phase_path, next, text);
}

enum act_inject
rx_notice(struct dev_ctx *c, struct rx *x, const char *kind, const char *text)
{
	enum act_inject r;
	char key[128];
	int done;

	if ((done = rx_key_done(c, x, kind)) != 0)
		return done == 1 ? ACT_INJECTED : ACT_INJECT_FAILED;
	snprintf(key, sizeof(key), "notice %s %lld", kind,
	    (long long)x->sig.mtime);
	if ((r = rx_inject(c, x, key, text)) != ACT_INJECTED)
		return r;
	log_notice("#%lld: %s notice injected", x->issue, kind);
	return rx_key_set(c, x, kind) == 0 ? ACT_INJECTED : ACT_INJECT_FAILED;
}

int
rx_find_pr(struct dev_ctx *c, struct rx *x)
{
	struct dp_pr *p;

	if (x->pr_read)
		return x->pr_read == 1 ? 0 : -1;
	if (dp_prs_load(c) == -1) {
		x->pr_read = -1;
		return -1;
	}
	p = dp_pr_for_issue(c, x->issue, 0);
	if (p == NULL)
		p = dp_pr_fixing(c, x->issue);
	x->pr = p != NULL ? p->pull->number : 0;
	x->head = p != NULL ? p->pull->sha : NULL;
	x->pr_read = 1;
	/* Remembered, so that a tick finds it merged or closed later. */
	if (x->pr > 0)
		(void)dp_state_note_pr(c, x->issue, x->pr);
	return 0;
}

/* Whether a comment on the issue carries marker: 1, 0, -1. */
static int
rx_has_marker(struct dev_ctx *c, long long issue, const char *marker)
{
	struct forge_comment cm;
	const cJSON *list, *it;

	if (forge_comments_list(c->forge, issue, &list) == -1) {
		log_warn("cannot read the comments of #%lld: %s", issue,
		    forge_error(c->forge));
		return -1;
	}
	cJSON_ArrayForEach (it, list) {
		forge_comment_view(it, &cm);
		if (marks_in(cm.body, marker))
			return 1;
	}
	return 0;
}

int
rx_comment_once(struct dev_ctx *c, long long issue, const char *key,
    const char *marker, const char *body)
{
	char *full;
	int r;

	if ((r = rx_has_marker(c, issue, marker)) != 0)
		return r == 1 ? 0 : -1;
	full = xasprintf("%s\n\n%s\n", body, marker);
	r = act_comment(&c->act, issue, key, full, NULL);
	free(full);
	return r;
}

int
rx_end_session(struct dev_ctx *c, struct rx *x, int keep_worktree)
{
	char *wt = runfiles_worktree(c->cfg->project_name, x->issue);
	int r = 0;

	if (act_kill(&c->act, x->session) == -1 ||
	    act_label_remove(&c->act, x->issue, "in-progress") == -1)
		r = -1;
	/* Its conversation goes too: a next session there starts afresh. */
	if (r == 0 && !keep_worktree && file_exists(wt))
		r = worktree_remove_for_good(&c->act, c->cfg->project_repo_root,
		    wt, config_agent_home(c->cfg));
	if (r == 0)
		rx_clear_files(c, x);
	free(wt);
	return r;
}

void
rx_clear_files(struct dev_ctx *c, struct rx *x)
{
	const char *p = c->cfg->project_name;
	char *paths[17];
	size_t i, n = 0;

	paths[n++] = runfiles_phase(p, x->issue);
	paths[n++] = runfiles_summary(p, x->issue);
	paths[n++] = runfiles_ci_result(p, x->issue);
	paths[n++] = runfiles_phase_notice(p, x->issue);
	paths[n++] = runfiles_idle_ticks(p, x->issue);
	paths[n++] = runfiles_recoveries(p, x->issue);
	paths[n++] = runfiles_idle_marker(x->session);
	paths[n++] = runfiles_exited_marker(x->session);
	paths[n++] = runfiles_phase_marker(x->session);
	paths[n++] = runfiles_ready_marker(x->session);
	paths[n++] = runfiles_api_error(x->session);
	paths[n++] = runfiles_dev_state(p, x->issue);
	paths[n++] = runfiles_claude_id(x->session);
	paths[n++] =
	    runfiles_session_file(x->session, RUNFILES_SESSION_CONTEXT);
	paths[n++] = runfiles_escalation_parked(p, x->issue);
	paths[n++] = runfiles_escalation_resume(p, x->issue);
	if (x->pr > 0)
		paths[n++] = runfiles_review_injected(p, x->pr);
	for (i = 0; i < n; i++) {
		(void)act_remove(&c->act, paths[i]);
		free(paths[i]);
	}
	(void)act_remove_session(&c->act, x->session);
	ciwake_stop(&c->act, c->cfg, x->issue);
}
