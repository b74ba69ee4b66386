/*
 * Direct merges of approved, CI-green PRs (a single API call, no agent
 * needed) and everything a merge entails: the issue closed, its
 * in-progress label and run files gone, the primary branch fast-forwarded
 * in repo_root, mirrors pushed in the background, the CI-fix count reset.
 * The pre-lock step merges every such PR before the agent slot is looked
 * at, so approved work lands even while an agent is busy.
 *
 * The merge is written into the issue's state before it is asked, and
 * stays there until every after-merge step succeeded: a merge whose
 * answer was lost, or whose close or label removal failed, is finished by
 * a later tick (reactpr.c).
 *
 * What the forge's no means (routers/api/v1/repo/pull.go MergePullRequest,
 * services/pull/check.go CheckPullMergeable, both Gitea and Forgejo): 405
 * "Please try again later" is a PR not in a mergeable state, a conflict
 * and a PR still being checked alike (a merge puts every open PR on its
 * base into checking: services/pull/merge.go Merge); a PR the forge does
 * not call mergeable is not asked to merge, and counts as a conflict only
 * once it stayed so for MERGE_CHECK_WAIT at one head; until then a later
 * tick looks again, nothing remembered as a refusal.  409 "head out of
 * date" or "merge push out of date" (the head or the base moved) is tried
 * again by a later tick too.  A conflict (found so, or a 409 conflict of
 * the merge itself) asks the session to rebase, once per head; the other
 * 405s (branch protection, approvals, permission, work in progress,
 * signing) and a push the hooks refused escalate to a human, not asked
 * again until the phase file changed (someone answered the escalation).
 * A refusal is remembered per head SHA, so the merge is not asked again
 * every tick.  (phase-handler.sh's do_merge escalated every 405, a
 * checking PR's too.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "runfiles.h"
#include "template.h"
#include "tools.h"
#include "utf8.h"
#include "xmalloc.h"

/* The forge's answer quoted in an escalation, as do_merge did. */
#define ANSWER_MAX 200

/*
 * How long a PR may stay not mergeable at one head before it counts as a
 * conflict rather than a check still going on (seconds).
 */
#define MERGE_CHECK_WAIT 60

static long long merge_phase_mtime(struct dev_ctx *, long long);
static int merge_phase_done(struct dev_ctx *, long long);
static int merge_steps(struct dev_ctx *, long long, long long);
static int merge_held(struct dev_ctx *, const struct dp_pr *,
    const struct dp_state *);
static void merge_answer(const struct forge_merge *, char *, size_t);
static int merge_escalate(struct dev_ctx *, const struct dp_pr *,
    struct dp_state *);
static char *merge_rebase_text(struct dev_ctx *, const struct dp_pr *,
    const struct dp_state *);
static int merge_rebase(struct dev_ctx *, const struct dp_pr *,
    struct dp_state *);
static enum dp_merge merge_refused(struct dev_ctx *, const struct dp_pr *,
    struct dp_state *);
static int merge_remember(struct dev_ctx *, const struct dp_pr *,
    struct dp_state *);
static enum dp_merge merge_refusal(struct dev_ctx *, struct dp_pr *,
    struct dp_state *, const struct forge_merge *);
static enum dp_merge merge_prepare(struct dev_ctx *, struct dp_pr *,
    struct dp_state *);
static int merge_said(const char *, const char *);
static enum dp_merge merge_later(struct dp_pr *);
static enum dp_merge merge_unmergeable(struct dev_ctx *, struct dp_pr *,
    struct dp_state *, const char *);

/* The mtime of the issue's phase file, 0 when there is none. */
static long long
merge_phase_mtime(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_phase(c->cfg->project_name, issue);
	time_t t = 0;

	if (file_mtime(path, &t) == -1)
		t = 0;
	free(path);
	return (long long)t;
}

/*
 * A session still working on the issue is told PHASE:done, and its
 * reactions end it (session, worktree, run files); without one the phase
 * and summary files go.  0 or -1.
 */
static int
merge_phase_done(struct dev_ctx *c, long long issue)
{
	const char *proj = c->cfg->project_name;
	char *path = runfiles_phase(proj, issue), *summary = NULL;
	char *session = runfiles_dev_session(proj, issue);
	struct phase_info sig;
	int r = 0;

	switch (agent_alive(session)) {
	case 1:
		if (agent_read_signal(session, path, &sig) == 0 &&
		    sig.phase == PHASE_DONE)
			break;
		r = act_phase(&c->act, path, PHASE_DONE, NULL, NULL);
		break;
	case 0:
		summary = runfiles_summary(proj, issue);
		if (act_remove(&c->act, path) == -1 ||
		    act_remove(&c->act, summary) == -1)
			r = -1;
		break;
	default:
		/*
		 * Not known whether it lives: the state is kept (dp_merged()),
		 * so the next tick's look at the remembered PR (reactpr.c)
		 * tells it PHASE:done then; the phase reactions never would,
		 * its PR being gone from the open ones.
		 */
		log_warn("#%lld: cannot tell whether session %s lives — a "
			 "later tick tells it the merge",
		    issue, session);
		r = -1;
		break;
	}
	free(summary);
	free(session);
	free(path);
	return r;
}

/* Every after-merge step of the issue, each tried: 0, or -1 if one failed. */
static int
merge_steps(struct dev_ctx *c, long long issue, long long pr)
{
	int r = 0;

	if (act_issue_close(&c->act, issue) == -1)
		r = -1;
	if (act_label_remove(&c->act, issue, "in-progress") == -1)
		r = -1;
	if (merge_phase_done(c, issue) == -1)
		r = -1;
	if (dp_cifix_reset(c, pr) == -1)
		r = -1;
	return r;
}

int
dp_merged(struct dev_ctx *c, long long issue, long long pr, const char *sha)
{
	struct dp_state st;

	c->landed++;
	c->acted++;
	if (issue <= 0)
		return dp_cifix_reset(c, pr);
	if (dp_state_read(c, issue, &st) == -1)
		return -1;
	st.pr = pr;
	if (st.merge[0] == '\0')
		snprintf(st.merge, sizeof(st.merge), "%s",
		    sha != NULL ? sha : "merged");
	/* Remembered first: a failed step is found again by a later tick. */
	if (dp_state_write(c, issue, &st) == -1)
		return -1;
	if (merge_steps(c, issue, pr) == -1) {
		log_msg("#%lld: the after-merge steps of PR #%lld are not all "
			"done — a later tick finishes them",
		    issue, pr);
		return -1;
	}
	return dp_state_forget(c, issue);
}

/*
 * Whether the merge of p was refused before and must not be asked again:
 * the same head, and for a 405 the phase file unchanged since.
 */
static int
merge_held(struct dev_ctx *c, const struct dp_pr *p, const struct dp_state *st)
{
	if (st->refused[0] == '\0' || strcmp(st->refused, p->pull->sha) != 0)
		return 0;
	return !st->escalate ||
	    st->refused_at == merge_phase_mtime(c, p->pull->issue);
}

/*
 * The forge's own words on a refusal (its message, not the endpoint the
 * client names first), cut to ANSWER_MAX bytes.
 */
static void
merge_answer(const struct forge_merge *m, char *out, size_t outsz)
{
	const char *s = strstr(m->message, "': ");
	char *cut;

	s = s != NULL ? s + 3 : m->message;
	cut = utf8_cut(s, ANSWER_MAX, NULL);
	snprintf(out, outsz, "%s", cut);
	free(cut);
}

/*
 * A human's refusal (a 405 of the forge's merge rules, a push its hooks
 * refused): the session escalates to a human, as do_merge wrote.
 * The phase file's new mtime is kept with the refusal.  0 or -1.
 */
static int
merge_escalate(struct dev_ctx *c, const struct dp_pr *p, struct dp_state *st)
{
	const char *proj = c->cfg->project_name;
	char *path = runfiles_phase(proj, p->pull->issue), *why;
	char *session = runfiles_dev_session(proj, p->pull->issue);
	struct phase_info sig;
	int r = 0;

	if (agent_read_signal(session, path, &sig) == 0 &&
	    sig.phase == PHASE_ESCALATE)
		goto out;
	log_msg("PR #%lld blocked — merge requirements not met (HTTP %ld) — "
		"escalating #%lld",
	    p->pull->number, st->status, p->pull->issue);
	why = xasprintf("PR #%lld merge blocked — merge requirements not met "
			"(HTTP %ld): %s",
	    p->pull->number, st->status, st->answer);
	r = act_phase(&c->act, path, PHASE_ESCALATE, why, NULL);
	free(why);
	if (r == 0) {
		st->refused_at = merge_phase_mtime(c, p->pull->issue);
		r = dp_state_write(c, p->pull->issue, st);
	}
out:
	free(session);
	free(path);
	return r;
}

/* The rebase instructions (formulas/dev-merge-rebase.md).  Caller frees. */
static char *
merge_rebase_text(struct dev_ctx *c, const struct dp_pr *p,
    const struct dp_state *st)
{
	char *remote = dp_forge_remote(c), *phase, *text;
	char pr[32], status[32];

	phase = runfiles_phase(c->cfg->project_name, p->pull->issue);
	snprintf(pr, sizeof(pr), "%lld", p->pull->number);
	snprintf(status, sizeof(status), "%ld", st->status);
	text = dp_render(c, "dev-merge-rebase.md",
	    (struct template_var[]) {{"PR", pr},
		{"PRIMARY_BRANCH", c->cfg->primary_branch}, {"REMOTE", remote},
		{"BRANCH", p->pull->branch != NULL ? p->pull->branch : ""},
		{"PHASE_FILE", phase}, {"STATUS", status},
		{"ANSWER", st->answer}},
	    7);
	free(phase);
	free(remote);
	return text;
}

/*
 * Any other refusal (a conflict): the session rebases and pushes, told
 * once per head SHA.  0 or -1.
 */
static int
merge_rebase(struct dev_ctx *c, const struct dp_pr *p, struct dp_state *st)
{
	char *session, *idle, *text, key[96];
	enum act_inject r;

	if (strcmp(st->rebase, p->pull->sha) == 0)
		return 0;
	if ((text = merge_rebase_text(c, p, st)) == NULL)
		return -1;
	session = runfiles_dev_session(c->cfg->project_name, p->pull->issue);
	idle = runfiles_idle_marker(session);
	(void)act_remove(&c->act, idle);
	snprintf(key, sizeof(key), "rebase %s", p->pull->sha);
	if ((r = act_inject(&c->act, session, key, text)) == ACT_INJECTED) {
		log_msg("#%lld: rebase onto %s asked for PR #%lld",
		    p->pull->issue, c->cfg->primary_branch, p->pull->number);
		snprintf(st->rebase, sizeof(st->rebase), "%s", p->pull->sha);
		if (dp_state_write(c, p->pull->issue, st) == -1)
			r = ACT_INJECT_FAILED;
	}
	free(idle);
	free(session);
	free(text);
	return r == ACT_INJECT_FAILED ? -1 : 0;
}

/*
 * A refused merge (now or before, at this head): a live session is
 * escalated (a human's refusal) or asked to rebase; without one the
 * caller starts a session for it.
 */
static enum dp_merge
merge_refused(struct dev_ctx *c, const struct dp_pr *p, struct dp_state *st)
{
	char *session =
	    runfiles_dev_session(c->cfg->project_name, p->pull->issue);
	int alive = agent_alive(session);

	free(session);
	if (alive == 1) {
		if (st->escalate)
			(void)merge_escalate(c, p, st);
		else
			(void)merge_rebase(c, p, st);
	}
	return DP_MERGE_REFUSED;
}

/* The merge about to be asked, in the issue's state.  0 or -1. */
static int
merge_remember(struct dev_ctx *c, const struct dp_pr *p, struct dp_state *st)
{
	st->pr = p->pull->number;
	snprintf(st->merge, sizeof(st->merge), "%s", p->pull->sha);
	return dp_state_write(c, p->pull->issue, st);
}

/*
 * The forge said no: remembered for this head (an issue's PR), then
 * handled as merge_refused() says.
 */
static enum dp_merge
merge_refusal(struct dev_ctx *c, struct dp_pr *p, struct dp_state *st,
    const struct forge_merge *m)
{
	char answer[sizeof(st->answer)];

	merge_answer(m, answer, sizeof(answer));
	st->merge[0] = '\0';
	if (m->status == 405 && merge_said(answer, "try again later"))
		return merge_unmergeable(c, p, st, answer);
	if (m->status == 409 &&
	    (merge_said(answer, "head out of date") ||
		merge_said(answer, "push out of date"))) {
		log_msg("PR #%lld: the merge found its head or %s moved (HTTP "
			"409: %s) — a later tick asks again",
		    p->pull->number, c->cfg->primary_branch, answer);
		if (p->pull->issue > 0)
			(void)dp_state_write(c, p->pull->issue, st);
		return merge_later(p);
	}
	log_warn("PR #%lld direct merge failed (HTTP %ld) — falling back to "
		 "dev-agent",
	    p->pull->number, m->status);
	p->merge_refused = 1;
	if (p->pull->issue <= 0)
		return DP_MERGE_REFUSED;
	snprintf(st->refused, sizeof(st->refused), "%s", p->pull->sha);
	st->status = m->status;
	/*
	 * A 405 now is the forge's merge rules (protection, approvals,
	 * permission, work in progress, signing), a 409 PushRejected its
	 * hooks: a human's.  Any other 409 is a conflict the merge found.
	 */
	st->escalate = m->status == 405 ||
	    (m->status == 409 && merge_said(answer, "PushRejected"));
	st->refused_at = merge_phase_mtime(c, p->pull->issue);
	snprintf(st->answer, sizeof(st->answer), "%s", answer);
	(void)dp_state_write(c, p->pull->issue, st);
	return merge_refused(c, p, st);
}

/* Whether the forge's answer says what (ASCII, any case). */
static int
merge_said(const char *answer, const char *what)
{
	size_t n = strlen(what);
	const char *s;

	for (s = answer; *s != '\0'; s++)
		if (strncasecmp(s, what, n) == 0)
			return 1;
	return 0;
}

/* Not this tick: a later tick asks again. */
static enum dp_merge
merge_later(struct dp_pr *p)
{
	p->merge_later = 1;
	return DP_MERGE_LATER;
}

/*
 * The forge does not call p mergeable (its "mergeable", or a 405 "Please
 * try again later", answer): checked still, or a conflict.  The first
 * time at this head it is noted and left to a later tick; once it stayed
 * so for MERGE_CHECK_WAIT, a conflict: refused, the session asked to
 * rebase.
 */
static enum dp_merge
merge_unmergeable(struct dev_ctx *c, struct dp_pr *p, struct dp_state *st,
    const char *answer)
{
	long long since, issue = p->pull->issue;

	if (issue <= 0) {
		log_msg("PR #%lld: not mergeable now (the forge may be "
			"checking it) — a later tick looks again",
		    p->pull->number);
		return merge_later(p);
	}
	if (strcmp(st->unmergeable, p->pull->sha) != 0) {
		snprintf(st->unmergeable, sizeof(st->unmergeable), "%s",
		    p->pull->sha);
		st->unmergeable_at = (long long)c->now;
	}
	since = (long long)c->now - st->unmergeable_at;
	if (since < MERGE_CHECK_WAIT) {
		log_msg("PR #%lld: not mergeable now (the forge may be "
			"checking it after a merge to %s%s%s) — a later tick "
			"looks again",
		    p->pull->number, c->cfg->primary_branch,
		    answer != NULL ? "; HTTP 405: " : "",
		    answer != NULL ? answer : "");
		(void)dp_state_write(c, issue, st);
		return merge_later(p);
	}
	log_msg("PR #%lld: not mergeable for %llds at %.7s — a conflict with "
		"%s",
	    p->pull->number, since, p->pull->sha, c->cfg->primary_branch);
	p->merge_refused = 1;
	st->merge[0] = '\0';
	snprintf(st->refused, sizeof(st->refused), "%s", p->pull->sha);
	st->status = 405;
	st->escalate = 0;
	st->refused_at = merge_phase_mtime(c, issue);
	snprintf(st->answer, sizeof(st->answer),
	    "%s (not mergeable for %llds: a conflict with %s)",
	    answer != NULL ? answer : "Please try again later", since,
	    c->cfg->primary_branch);
	(void)dp_state_write(c, issue, st);
	return merge_refused(c, p, st);
}

/*
 * Before a merge of an issue's PR: its state read into *st.  Returns
 * DP_MERGED to go on (the merge remembered), DP_MERGE_REFUSED when it
 * was refused before at this head, DP_MERGE_UNKNOWN when the state could
 * not be read or written.
 */
static enum dp_merge
merge_prepare(struct dev_ctx *c, struct dp_pr *p, struct dp_state *st)
{
	memset(st, 0, sizeof(*st));
	if (p->pull->issue <= 0)
		return p->pull->mergeable == 0 && !p->pull->draft ?
		    merge_unmergeable(c, p, st, NULL) :
		    DP_MERGED;
	if (dp_state_read(c, p->pull->issue, st) == -1) {
		c->skipped++;
		return DP_MERGE_UNKNOWN;
	}
	if (merge_held(c, p, st)) {
		log_err("PR #%lld: its merge was refused at %.7s (HTTP %ld) — "
			"not asked again",
		    p->pull->number, p->pull->sha, st->status);
		return DP_MERGE_REFUSED;
	}
	if (p->pull->mergeable == 0 && !p->pull->draft)
		return merge_unmergeable(c, p, st, NULL);
	st->unmergeable[0] = '\0';
	return merge_remember(c, p, st) == 0 ? DP_MERGED : DP_MERGE_UNKNOWN;
}

enum dp_merge
dp_merge(struct dev_ctx *c, struct dp_pr *p)
{
	struct forge_merge m;
	struct dp_state st;
	enum dp_merge r;

	if (p->merge_later)
		return DP_MERGE_LATER;
	if (p->merge_refused)
		return DP_MERGE_REFUSED;
	if (p->pull->issue > 0 && dp_stands_back(c, p->pull->issue))
		return DP_MERGE_UNKNOWN;
	switch ((r = merge_prepare(c, p, &st))) {
	case DP_MERGED:
		break;
	case DP_MERGE_REFUSED:
		if (p->merge_refused)
			return r; /* just refused: told */
		p->merge_refused = 1;
		return merge_refused(c, p, &st);
	case DP_MERGE_LATER:
		return r;
	default:
		p->merge_refused = 1;
		return r;
	}
	log_msg("PR #%lld (issue #%lld) approved + CI green → attempting "
		"direct merge",
	    p->pull->number, p->pull->issue);
	switch (act_pull_merge(&c->act, p->pull->number, p->pull->sha, &m)) {
	case ACT_MERGE_FAILED:
		if (m.status == 0)
			log_msg("PR #%lld: no answer to the merge — a later "
				"tick finds out whether it happened",
			    p->pull->number);
		else
			log_msg("PR #%lld: the merge failed (HTTP %ld) — a "
				"later tick asks again",
			    p->pull->number, m.status);
		p->merge_refused = 1;
		c->merged++;
		return DP_MERGE_FAILED;
	case ACT_MERGE_REFUSED:
		return merge_refusal(c, p, &st, &m);
	case ACT_MERGED:
		log_notice("PR #%lld merged successfully", p->pull->number);
		break;
	case ACT_MERGE_DRY:
		break;
	}
	c->merged++;
	(void)dp_merged(c, p->pull->issue, p->pull->number, p->pull->sha);
	return DP_MERGED;
}

enum dp_step
dp_merge_prelock(struct dev_ctx *c)
{
	struct dp_pr *p;
	int merged = 0, lost = 0;
	size_t i;

	log_msg("pre-lock: scanning for mergeable PRs");
	(void)dp_prs_load(c);
	dp_reconcile(c);
	if (c->prs_read != 1)
		return DP_FAIL;
	/*
	 * Every PR is read before the first merge: the reads go out
	 * HTTP_PARALLEL at a time, and no merge's write makes a later PR's
	 * reads be asked again.
	 */
	for (i = 0; i < c->nprs; i++) {
		p = &c->prs[i];
		if (p->pull->issue >= 0 && dp_pr_evaluate(c, p) == -1)
			c->skipped++;
	}
	for (i = 0; i < c->nprs; i++) {
		p = &c->prs[i];
		if (p->pull->issue < 0 || p->evaluated != 1 || !p->passed ||
		    !p->approved)
			continue;
		switch (dp_merge(c, p)) {
		case DP_MERGED:
			merged = 1;
			break;
		case DP_MERGE_FAILED:
			lost = 1;
			break;
		case DP_MERGE_REFUSED:
		case DP_MERGE_LATER:
		case DP_MERGE_UNKNOWN:
			break;
		}
	}
	/*
	 * The merge's PHASE:done is this tick's own write, which no hook
	 * sees: the clean-up and the next launch are this tick's next pass.
	 */
	if (merged) {
		(void)tools_wake_self(&c->act, c->cfg, "dev-poll",
		    "merged: the clean-up and the next launch");
		log_msg("pre-lock: merged PR(s) successfully — exiting");
	} else if (lost)
		log_msg("pre-lock: a merge went unanswered — exiting");
	if (merged || lost)
		return DP_DONE;
	log_msg("pre-lock: no PRs merged, checking agent lock");
	return DP_NEXT;
}

void
dp_merge_finish(struct dev_ctx *c)
{
	if (c->landed == 0)
		return;
	(void)dp_git_ff_primary(c);
	dp_mirror_push(c);
}
