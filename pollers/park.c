/*
 * Parking an escalated conversation (DESIGN section 6, the escalate
 * row): once the notice is out and the agent's turn that escalated has
 * ended (its Stop hook kept its Claude session id after the phase was
 * written), the agent process is ended and the conversation is kept in
 * a parked record, so that the project's slot is free for the next
 * ready issue.  A person's reply to a parked conversation waits in a
 * reply record; dev-poll resumes the conversation with it (--resume ID)
 * when the slot is free.  The checkpoint protocol keeps no process
 * between its runs and is never parked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "agent.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "parked.h"
#include "runfiles.h"
#include "escalate.h"
#include "xmalloc.h"

static int park_session_id(const char *, long long, char *, size_t);

/*
 * The Claude session id of session, kept by its Stop hook at or after
 * since (the turn that escalated has ended): 1 with it in id, else 0.
 */
static int
park_session_id(const char *session, long long since, char *id, size_t idsz)
{
	char *path = runfiles_claude_id(session);
	struct buf b;
	time_t mtime;
	int r = 0;

	buf_init(&b, 0);
	if (file_mtime(path, &mtime) == 0 && (long long)mtime >= since &&
	    file_read(path, idsz, &b) == 0) {
		b.len = strcspn(buf_str(&b), "\r\n");
		snprintf(id, idsz, "%.*s", (int)b.len, buf_str(&b));
		r = id[0] != '\0';
	}
	buf_free(&b);
	free(path);
	return r;
}

int
park_is(const char *project, long long issue, long long since)
{
	char *path = runfiles_escalation_parked(project, issue);
	struct parked p;
	int r;

	r = parked_read(path, &p) == 1 && p.at == since;
	free(path);
	return r;
}

int
park_session(struct escalation *s, const struct esc_target *t,
    const char *reason)
{
	const char *proto = s->cfg->agent_protocol;
	char *path = NULL, *wt = NULL, *text = NULL;
	struct parked p;
	int r = 0;

	memset(&p, 0, sizeof(p));
	if ((proto != NULL && strcmp(proto, AGENT_PROTOCOL_CHECKPOINT) == 0) ||
	    !park_session_id(t->session, (long long)t->since, p.id,
		sizeof(p.id)))
		return 0;
	path = runfiles_escalation_parked(t->project, t->issue);
	wt = runfiles_worktree(t->project, t->issue);
	p.at = (long long)t->since;
	snprintf(p.worktree, sizeof(p.worktree), "%s", wt);
	snprintf(p.reason, sizeof(p.reason), "%s", reason);
	text = parked_text(&p);
	/* The record first: a session gone without one is a crash. */
	if (act_write(s->act, path, text, 1) == -1 ||
	    act_kill(s->act, t->session) == -1) {
		r = -1;
		goto out;
	}
	r = 1;
	if (!s->act->dry_run)
		escalate_fixed(s,
		    "%s: #%lld: escalated conversation parked (%s ended, "
		    "Claude session %s kept): the slot is free",
		    t->project, t->issue, t->session, p.id);
out:
	free(text);
	free(wt);
	free(path);
	return r;
}

enum act_inject
park_reply(struct escalation *s, const struct esc_target *t, const char *key,
    const char *text)
{
	char *path = runfiles_escalation_resume(t->project, t->issue);
	char *okey = NULL, *otext = NULL, *record = NULL;
	enum act_inject r = ACT_INJECT_FAILED;

	switch (parked_reply_read(path, (long long)t->since, &okey, &otext)) {
	case 1:
		r = strcmp(okey, key) == 0 ? ACT_INJECTED : ACT_INJECT_LATER;
		if (r == ACT_INJECT_LATER)
			log_msg("%s: #%lld: a reply already waits for the "
				"resume; this one waits for the next tick",
			    t->project, t->issue);
		goto out;
	case -1:
		escalate_fail(s, "cannot read '%s'", path);
		goto out;
	default:
		break;
	}
	record = parked_reply_text(key, (long long)t->since, text);
	if (act_write(s->act, path, record, 1) == -1)
		goto out;
	r = s->act->dry_run ? ACT_INJECT_DRY : ACT_INJECTED;
	if (r == ACT_INJECTED)
		log_msg(
		    "%s: #%lld: reply recorded for the parked conversation: "
		    "dev-poll resumes it when the slot is free",
		    t->project, t->issue);
out:
	free(record);
	free(otext);
	free(okey);
	free(path);
	return r;
}

void
park_forget(struct escalation *s, const char *project, long long issue)
{
	char *parked = runfiles_escalation_parked(project, issue);
	char *resume = runfiles_escalation_resume(project, issue);

	(void)act_remove(s->act, resume);
	(void)act_remove(s->act, parked);
	free(resume);
	free(parked);
}
