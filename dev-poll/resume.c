/*
 * Parked escalations (DESIGN section 6, the escalate row): the
 * escalation pass (pollers/escalate.c) runs every tick, after the phase
 * reactions: it posts the notice, parks the conversation, keeps a
 * person's reply and times the escalation out, as supervisor-poll's pass
 * does (either alone is enough).  An escalated conversation whose agent
 * was ended while it waits for a person holds no slot, is never recovered as a crash nor started again
 * as an orphan, and is resumed here once a person's reply waits for it
 * and the slot is free: dev-poll is the one owner of the resume, as of
 * every start of a dev session, under its tick lock.  A waiting reply
 * goes before any new work (step 4b).  The resumed session runs the
 * agent command with "--resume ID" in the same worktree, and the reply
 * (the whole message the escalation pass made of it) is its first message,
 * delivered once (agent_deliver()); the records go after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "escalate.h"
#include "file.h"
#include "log.h"
#include "parked.h"
#include "runfiles.h"
#include "xmalloc.h"

/* The key of a reply message starts so (pollers/escalate.c). */
#define RESUME_KEY_PREFIX "reply "

static void resume_forget(struct dev_ctx *, long long);
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

	if ((r = agent_pending(session, RESUME_KEY_PREFIX, &key, &text)) ==
	    -1) {
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

/* Start the session again on its conversation with the reply. */
static int
resume_one(struct dev_ctx *c, long long issue, const struct parked *p,
    const char *key, const char *text)
{
	int r;

	if (!file_exists(p->worktree)) {
		log_warn("#%lld: the worktree '%s' of the parked conversation "
			 "is gone — it waits for the escalation's timeout",
		    issue, p->worktree);
		return -1;
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
