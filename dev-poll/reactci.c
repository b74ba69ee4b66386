/*
 * PHASE:awaiting_ci: open the PR when there is none, then tell the agent
 * the CI result of the PR head, once per (head SHA, outcome).  The key is
 * the ci-result file: "SHA:", "STATE:", "PIPELINE:", "STEP:", "EXIT:" and
 * "ATTEMPT:" header lines, then the text that was injected.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "cap.h"
#include "ci.h"
#include "ciwake.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "git.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "react.h"
#include "record.h"
#include "redact.h"
#include "runfiles.h"
#include "tools.h"
#include "utf8.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* The PR body takes at most this much of the agent's summary. */
#define SUMMARY_MAX 4000
/* The log tail injected after a CI failure. */
#define LOG_TAIL_MAX 8000

/* Whether the issue's PR is there for the CI reaction. */
enum reactci_pr {
	REACTCI_PR_THERE,   /* x->pr and x->head are set */
	REACTCI_PR_NOT_YET, /* not opened: a later tick, or the agent, again */
	REACTCI_PR_FAILED
};

/* What the ci-result file says about the last outcome. */
struct cirec {
	char sha[64];
	char state[16];
	long long attempt;
};

static int reactci_rec_read(const char *, struct cirec *);
static int reactci_rec_write(struct dev_ctx *, struct rx *, const char *state,
    long long pipeline, const struct ci_failure *, long long attempt,
    const char *text);
static char *reactci_summary_text(struct dev_ctx *, long long);
static char *reactci_pr_branch(struct dev_ctx *, long long);
static enum act_pull reactci_pr_open(struct dev_ctx *, struct rx *,
    const cJSON *, const char *);
static enum act_inject reactci_pr_error(struct dev_ctx *, struct rx *,
    const char *);
static enum reactci_pr reactci_no_pr(struct dev_ctx *, struct rx *,
    const char *);
static enum reactci_pr reactci_ensure_pr(struct dev_ctx *, struct rx *);
static int reactci_report(struct dev_ctx *, struct rx *, const char *state,
    long long pipeline, const struct ci_failure *, long long attempt,
    const char *text);
static int reactci_on_success(struct dev_ctx *, struct rx *, long long,
    const char *);
static enum pulls_ci reactci_says(struct dev_ctx *, const struct rx *,
    enum ci_state);
static int reactci_on_pending(struct dev_ctx *, struct rx *,
    const struct cirec *);
static void reactci_watch(struct dev_ctx *, struct rx *);
static char *reactci_failure_text(struct dev_ctx *, struct rx *,
    const struct ci_failure *, long long, long long);
static int reactci_escalate_exhausted(struct dev_ctx *, struct rx *,
    const struct ci_failure *, long long);
static int reactci_details(struct dev_ctx *, struct rx *, long long,
    struct ci_failure *, int *);
static int reactci_retrigger(struct dev_ctx *, struct rx *,
    const struct cirec *, long long, const struct ci_failure *);
static int reactci_on_failure(struct dev_ctx *, struct rx *,
    const struct cirec *, long long);

/*
 * The record of the last outcome; all empty when there is none.  -1
 * (logged) when the file is there but cannot be read: unknown, not
 * absent, or the last outcome would be told again every tick.
 */
static int
reactci_rec_read(const char *path, struct cirec *r)
{
	struct buf b;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	buf_init(&b, 0);
	if (record_load(path, &b) == 0) {
		(void)record_get(buf_str(&b), "SHA:", r->sha, sizeof(r->sha));
		(void)record_get(buf_str(&b), "STATE:", r->state,
		    sizeof(r->state));
		(void)record_get_ll(buf_str(&b), "ATTEMPT:", &r->attempt);
	} else if (errno != ENOENT) {
		log_warn("cannot read '%s' — the CI reaction waits", path);
		rc = -1;
	}
	buf_free(&b);
	return rc;
}

static int
reactci_rec_write(struct dev_ctx *c, struct rx *x, const char *state,
    long long pipeline, const struct ci_failure *f, long long attempt,
    const char *text)
{
	char *path = runfiles_ci_result(c->cfg->project_name, x->issue);
	struct buf b;
	int r;

	buf_init(&b, 0);
	buf_printf(&b, "SHA: %s\nSTATE: %s\nPIPELINE: %lld\n", x->head, state,
	    pipeline);
	if (f != NULL && f->found)
		buf_printf(&b, "STEP: %s\nEXIT: %lld\n", f->step, f->exit_code);
	buf_printf(&b, "ATTEMPT: %lld\n\n%s\n", attempt, text);
	r = act_write(&c->act, path, buf_str(&b), 0);
	buf_free(&b);
	free(path);
	return r;
}

/* The agent's summary for the PR body; refusal JSON is not one. */
static char *
reactci_summary_text(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_summary(c->cfg->project_name, issue);
	cJSON *j;
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, SUMMARY_MAX, &b) == -1)
		buf_reset(&b);
	j = cJSON_ParseWithLength(buf_str(&b), b.len);
	if (j != NULL && cJSON_IsObject(j) && json_str(j, "status") != NULL)
		buf_reset(&b);
	cJSON_Delete(j);
	free(path);
	return buf_steal(&b);
}

/* The worktree's branch, else fix/issue-N.  Caller frees. */
static char *
reactci_pr_branch(struct dev_ctx *c, long long issue)
{
	static const char *const head[] = {"rev-parse", "--abbrev-ref", "HEAD",
	    NULL};
	char *wt = runfiles_worktree(c->cfg->project_name, issue), *b = NULL;

	if (file_exists(wt))
		b = git_line(wt, head, NULL);
	free(wt);
	if (b == NULL || strcmp(b, "HEAD") == 0 || *b == '\0') {
		free(b);
		b = runfiles_branch(issue);
	}
	return b;
}

/*
 * Open the PR of the issue from branch, or adopt the one open already:
 * x->pr and x->head set when it is there.
 */
static enum act_pull
reactci_pr_open(struct dev_ctx *c, struct rx *x, const cJSON *issue,
    const char *branch)
{
	char *title, *body, *sum, *msg;
	long long number = 0;
	struct forge_pull fp;
	enum act_pull made;
	const cJSON *pr;

	sum = reactci_summary_text(c, x->issue);
	title = dp_title(issue);
	msg = xasprintf("fix: %s (#%lld)", title, x->issue);
	body = xasprintf("Fixes #%lld\n\n## Changes\n%s", x->issue, sum);
	made = act_pull_create(&c->act, msg, body, branch,
	    c->cfg->primary_branch, &number);
	if (made == ACT_PULL_EXISTS &&
	    forge_pull_find_head(c->forge, branch, &number) == FORGE_OK)
		made = ACT_PULL_OPENED;
	if (made == ACT_PULL_OPENED) {
		if (forge_pull_get(c->forge, number, &pr) == 0) {
			x->pr = number;
			forge_pull_view(pr, &fp);
			x->head = fp.sha;
			x->pr_read = 1;
			(void)dp_state_note_pr(c, x->issue, number);
			log_msg("PR #%lld for #%lld on %s", number, x->issue,
			    branch);
		} else
			made = ACT_PULL_FAILED;
	}
	free(msg);
	free(body);
	free(title);
	free(sum);
	return made;
}

/* The PR could not be opened: tell the agent how to try again, once. */
static enum act_inject
reactci_pr_error(struct dev_ctx *c, struct rx *x, const char *branch)
{
	char *remote = dp_forge_remote(c), *msg;
	enum act_inject r;

	log_err("ERROR: cannot create the PR for #%lld: %s", x->issue,
	    forge_error(c->forge));
	msg = xasprintf("ERROR: the pull request for branch %s could not be "
			"created (%s).\nCheck that the branch was pushed "
			"(git push %s %s), then write PHASE:awaiting_ci again "
			"to the phase file:\n  echo \"PHASE:awaiting_ci\" > "
			"\"%s\"\n",
	    branch, forge_error(c->forge), remote, branch, x->phase_path);
	r = rx_notice(c, x, "pr-error", msg);
	free(msg);
	free(remote);
	return r;
}

/*
 * The PR could not be opened: the agent is told once (the phase write
 * that was told is kept in the issue's state first); when a later phase
 * write still has none, the session has failed (no_pr).
 */
static enum reactci_pr
reactci_no_pr(struct dev_ctx *c, struct rx *x, const char *branch)
{
	struct dp_state st;

	if (dp_state_read(c, x->issue, &st) == -1)
		return REACTCI_PR_FAILED;
	if (st.no_pr_at != 0 && st.no_pr_at != (long long)x->sig.mtime) {
		log_msg("#%lld: still no PR after the notice — failed",
		    x->issue);
		return rx_failed(c, x, "no_pr") == 0 ? REACTCI_PR_NOT_YET :
						       REACTCI_PR_FAILED;
	}
	st.no_pr_at = (long long)x->sig.mtime;
	if (dp_state_write(c, x->issue, &st) == -1 ||
	    reactci_pr_error(c, x, branch) == ACT_INJECT_FAILED)
		return REACTCI_PR_FAILED;
	return REACTCI_PR_NOT_YET;
}

/* The issue's PR, found or opened. */
static enum reactci_pr
reactci_ensure_pr(struct dev_ctx *c, struct rx *x)
{
	enum reactci_pr r = REACTCI_PR_NOT_YET;
	const cJSON *issue;
	char *branch;

	if (rx_find_pr(c, x) == -1)
		return REACTCI_PR_FAILED;
	if (x->pr > 0 && x->head != NULL)
		return REACTCI_PR_THERE;
	if (dp_issue(c, x->issue, &issue) == -1)
		return REACTCI_PR_FAILED;
	branch = reactci_pr_branch(c, x->issue);
	switch (reactci_pr_open(c, x, issue, branch)) {
	case ACT_PULL_OPENED:
		r = REACTCI_PR_THERE;
		break;
	case ACT_PULL_DRY:
		break;
	default:
		/*
		 * Tried again by the next tick first (once per phase write):
		 * a lost answer may have opened it, and a forge error may
		 * pass.  Then the agent is told.
		 */
		if (!rx_key_done(c, x, "pr-retry")) {
			log_warn("#%lld: the PR could not be opened (%s) — the "
				 "next tick looks again",
			    x->issue, forge_error(c->forge));
			if (rx_key_set(c, x, "pr-retry") == -1)
				r = REACTCI_PR_FAILED;
		} else
			r = reactci_no_pr(c, x, branch);
		break;
	}
	free(branch);
	return r;
}

/*
 * Inject text (on success: move the session on to awaiting_review,
 * telling an agent that writes its own phases with text), and record the
 * outcome once it was delivered.
 */
static int
reactci_report(struct dev_ctx *c, struct rx *x, const char *state,
    long long pipeline, const struct ci_failure *f, long long attempt,
    const char *text)
{
	enum act_inject r;
	char key[128];

	snprintf(key, sizeof(key), "ci %s %s %lld", x->head, state, attempt);
	r = strcmp(state, "success") == 0 ?
	    rx_advance(c, x, key, PHASE_AWAITING_REVIEW, text) :
	    rx_inject(c, x, key, text);
	if (r != ACT_INJECTED)
		return r == ACT_INJECT_FAILED ? -1 : 0;
	log_notice("#%lld: CI %s on PR #%lld injected", x->issue, state, x->pr);
	if (reactci_rec_write(c, x, state, pipeline, f, attempt, text) == -1)
		return -1;
	/* A backend that moves the phase itself is ready for review now. */
	if (strcmp(state, "success") == 0 &&
	    agent_read_signal(x->session, x->phase_path, &x->sig) == 0)
		return rx_review_ready(c, x);
	return 0;
}

/* note: why CI's verdict is not needed ("; ..."), or NULL. */
static int
reactci_on_success(struct dev_ctx *c, struct rx *x, long long pipeline,
    const char *note)
{
	char *text;
	int r;

	text = xasprintf("CI passed on PR #%lld (commit %.7s)%s.\n"
			 "Write PHASE:awaiting_review to the phase file, then "
			 "stop and wait for the review:\n"
			 "  echo \"PHASE:awaiting_review\" > \"%s\"\n",
	    x->pr, x->head, note != NULL ? note : "", x->phase_path);
	r = reactci_report(c, x, "success", pipeline, NULL, 0, text);
	free(text);
	return r;
}

/* No result yet: after RX_CI_TIMEOUT, one timeout notice per SHA. */
static int
reactci_on_pending(struct dev_ctx *c, struct rx *x, const struct cirec *rec)
{
	char *text;
	int r;

	if (x->age < RX_CI_TIMEOUT ||
	    (strcmp(rec->sha, x->head) == 0 &&
		strcmp(rec->state, "timeout") == 0))
		return 0;
	text = xasprintf("CI TIMEOUT: no CI result for PR #%lld (commit %.7s) "
			 "%d minutes after PHASE:awaiting_ci. This may be an "
			 "infrastructure problem. If you cannot go on, "
			 "escalate to a human:\n"
			 "  printf 'PHASE:escalate\\nReason: %%s\\n' \"CI "
			 "timeout on PR #%lld\" > \"%s\"\n",
	    x->pr, x->head, RX_CI_TIMEOUT / 60, x->pr, x->phase_path);
	r = reactci_report(c, x, "timeout", 0, NULL, rec->attempt, text);
	free(text);
	return r;
}

/*
 * CI still to come at the head, before its timeout: one watcher wakes
 * this tool when it is final, with no webhook needed (ciwake.h).
 */
static void
reactci_watch(struct dev_ctx *c, struct rx *x)
{
	struct ciwake_head h = {x->issue, x->pr, x->head};

	if (x->age < RX_CI_TIMEOUT)
		(void)ciwake_ensure(&c->act, c->cfg, &h);
}

static char *
reactci_failure_text(struct dev_ctx *c, struct rx *x,
    const struct ci_failure *f, long long pipeline, long long attempt)
{
	char *tail = NULL, *cut, *text;

	if (f->log_tail != NULL) {
		cut = cap_tail(f->log_tail, LOG_TAIL_MAX);
		tail = redact_secrets(cut);
		free(cut);
	}
	text = xasprintf("CI failed on PR #%lld (attempt %lld/%d, commit "
			 "%.7s).\n\nFailed step: %s (exit code %lld, pipeline "
			 "#%lld)\n\nLog tail:\n```\n%s\n```\n\nWhat to do:\n"
			 "1. Find the root cause in the log and the failing "
			 "tests; fix the code, do not weaken the tests.\n"
			 "2. Commit and push the fix to the PR branch.\n"
			 "3. Write: echo \"PHASE:awaiting_ci\" > \"%s\"\n"
			 "4. Stop and wait for the next CI result.\n",
	    x->pr, attempt, DP_CI_FIX_BUDGET, x->head,
	    f->found ? f->step : "unknown", f->found ? f->exit_code : -1,
	    pipeline, tail != NULL ? tail : "(no log available)",
	    x->phase_path);
	free(tail);
	(void)c;
	return text;
}

/* Out of fix attempts: the session must escalate to a human. */
static int
reactci_escalate_exhausted(struct dev_ctx *c, struct rx *x,
    const struct ci_failure *f, long long attempt)
{
	char *why = xasprintf("ci_exhausted after %lld attempts (step: %s)",
	    attempt - 1, f->found ? f->step : "unknown");
	int r;

	log_warn("#%lld: CI failed %lld times on PR #%lld — escalating",
	    x->issue, attempt - 1, x->pr);
	r = reactci_rec_write(c, x, "failure", 0, f, attempt, "(escalated)");
	if (r == 0)
		r = act_phase(&c->act, x->phase_path, PHASE_ESCALATE, why,
		    NULL);
	free(why);
	return r;
}

/*
 * The failure's details from Woodpecker into *f.  Details that could not
 * be read (Woodpecker down this tick, or this read failed) are unknown:
 * the next tick reads again, once per phase write; after that the failure
 * is told without them.  1 to wait (0 in *r, or -1), 0 to go on.
 */
static int
reactci_details(struct dev_ctx *c, struct rx *x, long long pipeline,
    struct ci_failure *f, int *r)
{
	struct pulls *m = dp_pulls(c);

	if (c->wp == NULL ||
	    (!pulls_wp_down(m) &&
		(pipeline <= 0 ||
		    ci_classify_pipeline(c->wp, pipeline, f) == 0)))
		return 0;
	ci_failure_free(f);
	memset(f, 0, sizeof(*f));
	if (!pulls_wp_down(m))
		log_warn("Woodpecker: cannot read pipeline #%lld: %s", pipeline,
		    woodpecker_error(c->wp));
	pulls_wp_failed(m);
	if (!rx_key_done(c, x, "ci-details-wait")) {
		log_msg("#%lld: CI failed; its details are read again next "
			"tick",
		    x->issue);
		c->skipped++;
		*r = rx_key_set(c, x, "ci-details-wait");
		return 1;
	}
	log_msg("#%lld: CI failed; told without Woodpecker's details",
	    x->issue);
	return 0;
}

/*
 * An infrastructure failure, restarted once per head.  Recorded once the
 * restart is there: a restart Woodpecker did not take is tried again by
 * the next tick, and one whose answer was lost has a newer pipeline that
 * the next tick sees instead of this one.
 */
static int
reactci_retrigger(struct dev_ctx *c, struct rx *x, const struct cirec *rec,
    long long pipeline, const struct ci_failure *f)
{
	long long next;
	int r;

	log_msg("#%lld: infra failure (%s) — retriggering pipeline #%lld",
	    x->issue, f->reason, pipeline);
	if (act_pipeline_restart(&c->act, pipeline, &next) == -1)
		return -1;
	r = reactci_rec_write(c, x, "retried", pipeline, f, rec->attempt,
	    "(infrastructure failure retriggered)");
	/* The CI timeout counts from the retrigger. */
	if (r == 0)
		(void)act_touch(&c->act, x->phase_path);
	return r;
}

static int
reactci_on_failure(struct dev_ctx *c, struct rx *x, const struct cirec *rec,
    long long pipeline)
{
	struct ci_failure f;
	long long attempt;
	char *text;
	int r = -1;

	memset(&f, 0, sizeof(f));
	if (reactci_details(c, x, pipeline, &f, &r))
		return r;
	if (f.infra &&
	    !(strcmp(rec->sha, x->head) == 0 &&
		strcmp(rec->state, "retried") == 0)) {
		r = reactci_retrigger(c, x, rec, pipeline, &f);
		goto out;
	}
	attempt = rec->attempt + 1;
	if (attempt > DP_CI_FIX_BUDGET)
		r = reactci_escalate_exhausted(c, x, &f, attempt);
	else {
		text = reactci_failure_text(c, x, &f, pipeline, attempt);
		r = reactci_report(c, x, "failure", pipeline, &f, attempt,
		    text);
		free(text);
	}
out:
	ci_failure_free(&f);
	return r;
}

int
rx_review_ready(struct dev_ctx *c, struct rx *x)
{
	char *path, *why;
	struct cirec rec;
	int r;

	if (!c->cfg->wake || x->sig.phase != PHASE_AWAITING_REVIEW ||
	    rx_find_pr(c, x) == -1 || x->pr <= 0 || x->head == NULL)
		return 0;
	path = runfiles_ci_result(c->cfg->project_name, x->issue);
	r = reactci_rec_read(path, &rec);
	free(path);
	if (r == -1 || strcmp(rec.sha, x->head) != 0 ||
	    strcmp(rec.state, "success") != 0)
		return 0;
	if ((r = rx_key_done(c, x, "review-wake")) != 0)
		return r == 1 ? 0 : -1;
	why = xasprintf("PR #%lld ready for review (issue #%lld)", x->pr,
	    x->issue);
	(void)tools_wake_other(&c->act, c->cfg, "review-poll", why);
	free(why);
	return rx_key_set(c, x, "review-wake");
}

int
rx_awaiting_ci(struct dev_ctx *c, struct rx *x)
{
	char *path = runfiles_ci_result(c->cfg->project_name, x->issue);
	enum ci_state st;
	long long pipeline = 0;
	struct cirec rec;

	if (reactci_rec_read(path, &rec) == -1) {
		free(path);
		return -1;
	}
	free(path);
	switch (reactci_ensure_pr(c, x)) {
	case REACTCI_PR_THERE:
		break;
	case REACTCI_PR_NOT_YET:
		return 0; /* the agent was told, or dry-run */
	case REACTCI_PR_FAILED:
		return -1;
	}
	if (strcmp(rec.sha, x->head) == 0 &&
	    (strcmp(rec.state, "success") == 0 ||
		strcmp(rec.state, "failure") == 0))
		return 0;
	if (!config_ci_configured(c->cfg))
		return reactci_on_success(c, x, 0,
		    "; no CI is configured for this project");
	if (dp_ci_state(c, x->head, &st, &pipeline) == -1)
		goto unknown;
	switch (reactci_says(c, x, st)) {
	case PULLS_CI_UNKNOWN:
	case PULLS_CI_NEEDS_FILES:
		goto unknown;
	case PULLS_CI_PASSED:
		return reactci_on_success(c, x, pipeline,
		    st == CI_SUCCESS ? NULL :
				       "; only non-code files changed, so CI "
				       "is not needed");
	case PULLS_CI_FAILED:
		return reactci_on_failure(c, x, &rec, pipeline);
	case PULLS_CI_WAITING:
		break;
	}
	reactci_watch(c, x);
	return reactci_on_pending(c, x, &rec);
unknown:
	log_warn("#%lld: cannot read the CI state of %.7s: %s", x->issue,
	    x->head, forge_error(c->forge));
	return -1;
}

/*
 * What CI says of x's head, st read: the scheduler's rule (pulls.h, the
 * non-code rule included), so that the agent is told what the merge
 * will go by.  A head that is not its PR's in the model is told by st.
 */
static enum pulls_ci
reactci_says(struct dev_ctx *c, const struct rx *x, enum ci_state st)
{
	struct pulls *m = dp_pulls(c);
	const struct pull *p = m != NULL ? pulls_number(m, x->pr) : NULL;

	if (st == CI_SUCCESS)
		return PULLS_CI_PASSED;
	if (p == NULL || p->sha == NULL || strcmp(p->sha, x->head) != 0)
		return st == CI_FAILURE ? PULLS_CI_FAILED : PULLS_CI_WAITING;
	return pulls_ci_says(m, p);
}
