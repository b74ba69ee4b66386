/*
 * Parked escalations (DESIGN section 6, the escalate row): the
 * escalation pass (pollers/escalate.c) runs every tick, after the phase
 * reactions: it posts the notice, parks the conversation, keeps a
 * person's reply and times the escalation out, as supervisor-poll's pass
 * does (either alone is enough).  An escalated conversation whose agent
 * was ended while it waits for a person holds no slot, is never recovered as a
 * crash nor started again as an orphan, and is resumed here once a person's
 * reply waits for it and the slot is free: dev-poll is the one owner of the
 * resume, as of every start of a dev session, under its tick lock.  A waiting
 * reply goes before any new work (step 4b).  The resumed session runs the agent
 * command with "--resume ID" in the same worktree (made again from its pushed
 * branch when it was removed meanwhile: Claude Code finds a conversation by its
 * directory; when the branch is gone too, a fresh session starts with the
 * escalation and the reply in its prompt), and the reply (the whole message the
 * escalation pass made of it) is its first message, delivered once
 * (agent_deliver()); the records go after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "escalate.h"
#include "file.h"
#include "git.h"
#include "log.h"
#include "parked.h"
#include "runfiles.h"
#include "tools.h"
#include "xmalloc.h"

static void resume_forget(struct dev_ctx *, long long);
static char *resume_branch(struct dev_ctx *, long long);
static int resume_branch_pushed(struct dev_ctx *, const char *, const char *);
static int resume_fresh(struct dev_ctx *, long long, const struct parked *,
    const char *);
static int resume_rebuild(struct dev_ctx *, long long, const struct parked *);
static int resume_one(struct dev_ctx *, long long, const struct parked *,
    const char *, const char *);
static enum dp_step resume_try(struct dev_ctx *, long long);

int
dp_parked(struct dev_ctx *c, long long issue, struct parked *p)
{
	char *path = runfiles_escalation_parked(c->cfg->project_name, issue);
	int r;

	if ((r = parked_read(path, p)) == -1)
		log_warn("#%lld: cannot read '%s'", issue, path);
	free(path);
	return r;
}

/* The conversation is resumed: its records go, the reply first. */
static void
resume_forget(struct dev_ctx *c, long long issue)
{
	char *reply = runfiles_escalation_resume(c->cfg->project_name, issue);
	char *parked = runfiles_escalation_parked(c->cfg->project_name, issue);

	if (act_remove(&c->act, reply) == 0)
		(void)act_remove(&c->act, parked);
	free(parked);
	free(reply);
}

int
dp_resume_finish(struct dev_ctx *c, long long issue, const char *session)
{
	char *key = NULL, *text = NULL;
	int r;

	if ((r = agent_pending(session, ESCALATE_REPLY_KEY_PREFIX, &key,
		 &text)) == -1) {
		log_warn("#%lld: cannot read the record of session %s", issue,
		    session);
		return -1;
	}
	if (r == 1) {
		log_msg("#%lld: the resume of %s was cut off before the reply "
			"was delivered — delivering it",
		    issue, session);
		switch (act_inject(&c->act, session, key, text)) {
		case ACT_INJECTED:
			break;
		case ACT_INJECT_DRY:
		case ACT_INJECT_LATER:
			r = 0;
			goto out;
		case ACT_INJECT_FAILED:
			r = -1;
			goto out;
		}
	}
	resume_forget(c, issue);
	r = 0;
out:
	free(text);
	free(key);
	return r;
}

/*
 * The branch of the parked issue's work: its open PR's, else
 * fix/issue-N.  Caller frees.
 */
static char *
resume_branch(struct dev_ctx *c, long long issue)
{
	struct dp_pr *pr;

	if (dp_prs_load(c) == 0 && (pr = dp_pr_for_issue(c, issue, 0)) != NULL)
		return xstrdup(pr->pull->branch);
	return runfiles_branch(issue);
}

/*
 * Whether branch is on the forge remote: 1, 0, or -1 when the remote
 * cannot be asked (logged).
 */
static int
resume_branch_pushed(struct dev_ctx *c, const char *remote, const char *branch)
{
	char *ref = xasprintf("refs/heads/%s", branch);
	const char *args[] = {"ls-remote", "--heads", remote, ref, NULL};
	struct buf out;
	int r = -1;

	buf_init(&out, 4096);
	if (git_run(c->cfg->project_repo_root, args, &out) == 0)
		r = out.len > 0;
	else
		log_warn("cannot ask the remote '%s' for the branch %s", remote,
		    branch);
	buf_free(&out);
	free(ref);
	return r;
}

/*
 * The parked conversation's branch is gone with its worktree: a fresh
 * session on the issue, its first prompt carrying the escalation and
 * the reply.  0, 1 when the Claude session lock stayed busy, or -1.
 */
static int
resume_fresh(struct dev_ctx *c, long long issue, const struct parked *p,
    const char *text)
{
	struct dp_launch_req req = {.issue = issue,
	    .why = "escalation answered, fresh conversation",
	    .force = 1,
	    .manual = 1};
	char *note;
	int r;

	note = xasprintf(
	    "## The escalation this session continues\n\n"
	    "An earlier session on this issue asked a person for a "
	    "decision (reason: %s). Its conversation, its worktree and its "
	    "branch are gone, so this session starts afresh from the primary "
	    "branch. The person's answer:\n\n%s",
	    *p->reason != '\0' ? p->reason : "none given", text);
	req.note = note;
	log_msg("#%lld: the worktree and branch of the parked conversation "
		"are gone — starting a fresh conversation with the escalation "
		"and the reply",
	    issue);
	switch (dp_launch(c, &req)) {
	case DP_LAUNCHED:
		r = 0;
		break;
	case DP_LOCK_BUSY:
		r = 1;
		break;
	default:
		r = -1;
		break;
	}
	free(note);
	return r;
}

/*
 * The worktree of the parked conversation is gone (removed as an old
 * worktree with no process): made again at the same path from its
 * pushed branch, where Claude Code finds the conversation again.  0
 * made again, 1 the branch is gone too, -1 a failure (logged).
 */
static int
resume_rebuild(struct dev_ctx *c, long long issue, const struct parked *p)
{
	char *remote = dp_forge_remote(c), *branch = resume_branch(c, issue);
	int r;

	if ((r = resume_branch_pushed(c, remote, branch)) == 1) {
		log_msg("#%lld: the worktree '%s' of the parked conversation "
			"is gone — making it again from %s",
		    issue, p->worktree, branch);
		r = dp_worktree_recover(c, remote, p->worktree, branch) == 0 ?
		    0 :
		    -1;
	} else if (r == 0) {
		r = 1;
	}
	free(branch);
	free(remote);
	return r;
}

/*
 * Start the session again on its conversation with the reply.  0, 1
 * when the Claude session lock stayed busy, -1 on failure.
 */
static int
resume_one(struct dev_ctx *c, long long issue, const struct parked *p,
    const char *key, const char *text)
{
	int r;

	if (!file_exists(p->worktree) && !c->act.dry_run &&
	    (r = resume_rebuild(c, issue, p)) != 0) {
		if (r == 1 && (r = resume_fresh(c, issue, p, text)) == 0)
			resume_forget(c, issue);
		return r;
	}
	if ((r = dp_launch_reserve(c, issue)) != 0)
		return r == 1 ? 1 : -1;
	log_msg("#%lld: a reply to the escalation waits — resuming Claude "
		"session %s",
	    issue, p->id);
	r = dp_session_resume(c, issue, p->worktree, p->id, key, text);
	agent_unreserve();
	if (r == -1)
		return -1;
	if (!c->act.dry_run)
		resume_forget(c, issue);
	return 0;
}

/* One issue: DP_DONE when it was resumed (or tried), else DP_NEXT. */
static enum dp_step
resume_try(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_escalation_resume(c->cfg->project_name, issue);
	char *key = NULL, *text = NULL;
	enum dp_step s = DP_NEXT;
	struct parked p;
	int r;

	if (dp_parked(c, issue, &p) != 1)
		goto out;
	if ((r = parked_reply_read(path, p.at, &key, &text)) == -1)
		log_warn("#%lld: cannot read '%s'", issue, path);
	if (r != 1)
		goto out;
	switch (resume_one(c, issue, &p, key, text)) {
	case 0:
		c->launched++;
		c->acted++;
		s = DP_DONE;
		break;
	case 1: /* the Claude session lock stayed busy: the reply waits */
		s = DP_DONE;
		break;
	default:
		c->failed++;
		s = DP_FAIL;
		break;
	}
out:
	free(text);
	free(key);
	free(path);
	return s;
}

void
dp_escalations(struct dev_ctx *c)
{
	struct escalation e;

	if (c->legacy)
		return;
	memset(&e, 0, sizeof(e));
	e.cfg = c->cfg;
	e.forge = c->forge;
	e.act = &c->act;
	e.now = c->now;
	(void)escalate_check(&e);
	if (e.failed)
		c->skipped++;
	/*
	 * supervisor-poll hears of the escalation now; a reply this pass
	 * kept is this tick's to resume (dp_resume()).
	 */
	if (e.noticed > 0)
		(void)tools_wake_other(&c->act, c->cfg, "supervisor-poll",
		    "escalation notice posted");
	escalate_free(&e);
}

enum dp_step
dp_resume(struct dev_ctx *c)
{
	enum dp_step s = DP_NEXT;
	long long *issues;
	size_t n, i;

	if (c->legacy)
		return DP_NEXT;
	if (dp_phase_issues(c, &issues, &n) == -1)
		return DP_FAIL;
	for (i = 0; i < n && s == DP_NEXT; i++)
		s = resume_try(c, issues[i]);
	free(issues);
	return s;
}
