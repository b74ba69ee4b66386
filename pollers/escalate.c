/*
 * Escalations (DESIGN section 6, the escalate row; escalate.h): for every
 * dev session whose phase is PHASE:escalate, one notice on the issue,
 * then the conversation parked (park.c: the agent ended, the slot free),
 * the first reply by a person kept for its resume once (or injected into
 * a session that could not be parked), one reminder after 6 hours without
 * a reply, and after 24 hours the issue is labelled blocked, a diagnostic
 * posted and the session (or the parked conversation) ended.  The clocks
 * run from the phase file's mtime (when the agent escalated); every
 * comment carries markers naming the escalation, so it is found on the
 * forge before anything is posted again, even when the run files are lost.
 * dev-poll and supervisor-poll each run the pass; the project's escalation
 * lock keeps the two from acting at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "cap.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "lock.h"
#include "log.h"
#include "marks.h"
#include "record.h"
#include "redact.h"
#include "runfiles.h"
#include "escalate.h"
#include "template.h"
#include "utf8.h"
#include "xmalloc.h"

#define REPLY_MAX (8 * 1024)
#define REPLY_TEMPLATE "supervisor-escalation-reply.md"

/* What escalate_comment() did. */
enum escalate_posted {
	ESCALATE_POSTED,     /* there: posted now or before */
	ESCALATE_POST_DRY,   /* dry-run: it would be posted */
	ESCALATE_POST_FAILED /* logged */
};

/* The escalation being handled. */
struct esc {
	const char *project;
	long long issue;
	char *session;
	char *phase;
	char *reason; /* redacted; "" when none was given */
	long long since;
	const char *login; /* the token's user */
};

static int escalate_state_load(const char *, long long *, long long *);
static int escalate_state_save(struct escalation *, const char *, long long,
    long long);
static char *escalate_marker(const struct esc *, const char *);
static int escalate_find_own(struct escalation *, const struct esc *,
    const char *, long long *);
static enum escalate_posted escalate_comment(struct escalation *,
    const struct esc *, const char *, const char *, const char *, long long *);
static int escalate_find_reply(struct escalation *, const struct esc *,
    long long, const cJSON **);
static enum act_inject escalate_inject_reply(struct escalation *,
    const struct esc_target *, const char *, const char *, const char *);
static void escalate_reply_key(const struct esc_target *, long long,
    const char *, char *, size_t);
static void escalate_reply_from_forge(struct escalation *, const struct esc *,
    const cJSON *, int *);
static void escalate_renotify(struct escalation *, const struct esc *);
static void escalate_timeout(struct escalation *, const struct esc *);
static void escalate_forget(struct escalation *, const struct esc *);
static void escalate_remember(struct escalation *, const struct esc *, int);
static enum escalate_posted escalate_notice(struct escalation *,
    const struct esc *, const char *, long long *);
static void escalate_clock(struct escalation *, const struct esc *, int);
static void escalate_one(struct escalation *, struct esc *);
static int escalate_login(struct escalation *, struct esc *);
static void escalate_pass(struct escalation *);

/*
 * An escalation's state file: the ID of a comment ("ID:", 0 for the reply
 * file) and the escalation it belongs to (its phase time, "AT:").  0, or
 * -1 when it is missing or not in that form.
 */
static int
escalate_state_load(const char *path, long long *id, long long *at)
{
	struct buf b;
	int r = -1;

	buf_init(&b, 0);
	if (record_load(path, &b) == 0 &&
	    record_get_ll(buf_str(&b), "ID:", id) == 0 &&
	    record_get_ll(buf_str(&b), "AT:", at) == 0)
		r = 0;
	buf_free(&b);
	return r;
}

/* Write a state file (synced): 0 or -1. */
static int
escalate_state_save(struct escalation *s, const char *path, long long id,
    long long at)
{
	char text[64];

	snprintf(text, sizeof(text), "ID: %lld\nAT: %lld\n", id, at);
	return act_write(s->act, path, text, 1);
}

/* The markers of one kind of comment about this escalation. */
static char *
escalate_marker(const struct esc *e, const char *kind)
{
	return marks_escalation(kind, e->project, e->issue, e->since);
}

/*
 * Look for our own comment of kind on the issue: 1 found (*id set), 0
 * not there, -1 when the comments cannot be read.
 */
static int
escalate_find_own(struct escalation *s, const struct esc *e, const char *kind,
    long long *id)
{
	struct forge_comment cm;
	const cJSON *list, *c;
	char *mark = escalate_marker(e, kind);
	int r = 0;

	if (forge_comments_list(s->forge, e->issue, &list) == -1) {
		escalate_fail(s, "%s: cannot read the comments of #%lld: %s",
		    e->project, e->issue, forge_error(s->forge));
		r = -1;
		goto out;
	}
	cJSON_ArrayForEach (c, list) {
		forge_comment_view(c, &cm);
		if (cm.author != NULL && strcmp(cm.author, e->login) == 0 &&
		    marks_in(cm.body, mark) && cm.id > 0) {
			*id = cm.id;
			r = 1;
			break;
		}
	}
out:
	free(mark);
	return r;
}

/*
 * Make sure our comment of kind exists for this escalation, remembered
 * in the state file: its ID in *id.
 */
static enum escalate_posted
escalate_comment(struct escalation *s, const struct esc *e, const char *kind,
    const char *state, const char *text, long long *id)
{
	long long at;
	char *mark, *body, *key;
	int r;

	if (state != NULL && escalate_state_load(state, id, &at) == 0 &&
	    at == e->since)
		return ESCALATE_POSTED;
	if ((r = escalate_find_own(s, e, kind, id)) == -1)
		return ESCALATE_POST_FAILED;
	if (r == 0) {
		mark = escalate_marker(e, kind);
		body = xasprintf("%s\n%s", mark, text);
		key = xasprintf("%s %s-%lld %lld", kind, e->project, e->issue,
		    e->since);
		r = act_comment(s->act, e->issue, key, body, id);
		free(key);
		free(mark);
		free(body);
		if (r == -1)
			return ESCALATE_POST_FAILED;
		if (s->act->dry_run)
			return ESCALATE_POST_DRY;
		log_notice("%s: #%lld: posted the %s comment", e->project,
		    e->issue, kind);
		s->noticed += strcmp(kind, "escalation") == 0;
	}
	if (state != NULL)
		(void)escalate_state_save(s, state, *id, e->since);
	return ESCALATE_POSTED;
}

/*
 * The first comment after the notice by a person (neither the token's
 * user nor one of FORGE_BOT_USERNAMES): 1 found, 0 none yet, -1 failed.
 */
static int
escalate_find_reply(struct escalation *s, const struct esc *e, long long notice,
    const cJSON **reply)
{
	struct forge_comment cm;
	const cJSON *list, *c;

	if (forge_comments_list(s->forge, e->issue, &list) == -1) {
		escalate_fail(s, "%s: cannot read the comments of #%lld: %s",
		    e->project, e->issue, forge_error(s->forge));
		return -1;
	}
	cJSON_ArrayForEach (c, list) {
		forge_comment_view(c, &cm);
		if (cm.id <= 0 || cm.id <= notice || cm.author == NULL ||
		    cm.body == NULL || *cm.body == '\0' ||
		    strcmp(cm.author, e->login) == 0 ||
		    config_is_bot(s->cfg, cm.author))
			continue;
		*reply = c;
		return 1;
	}
	return 0;
}

/*
 * Pass the reply to the session with the instructions to continue (a
 * backend that resumes its agent makes its own prompt of the reply), or
 * keep it for the resume of a parked conversation.  Returns what
 * act_inject() returns (ACT_INJECT_FAILED also when the text cannot be
 * built).
 */
static enum act_inject
escalate_inject_reply(struct escalation *s, const struct esc_target *t,
    const char *source, const char *reply, const char *key)
{
	char num[32], err[256], *text = NULL;
	char *cut = cap_head(reply, REPLY_MAX);
	struct template_var vars[] = {{"ISSUE", num}, {"SOURCE", source},
	    {"REPLY", cut}, {"PHASE_FILE", t->phase_path}};
	enum act_inject r = ACT_INJECT_FAILED;

	snprintf(num, sizeof(num), "%lld", t->issue);
	if (template_render(s->cfg->formulas_dir, REPLY_TEMPLATE, vars,
		sizeof(vars) / sizeof(vars[0]), &text, err, sizeof(err)) == -1)
		escalate_fail(s, "%s: #%lld: %s", t->project, t->issue, err);
	else if (t->parked)
		r = park_reply(s, t, key, text);
	else
		r = act_answer(s->act, t->session, key, cut, text);
	free(text);
	free(cut);
	return r;
}

static void
escalate_reply_from_forge(struct escalation *s, const struct esc *e,
    const cJSON *reply, int *handled)
{
	char *injected = runfiles_escalation_injected(e->project, e->issue);
	struct forge_comment cm;
	char *source, *what;
	long long id, iid, at;

	forge_comment_view(reply, &cm);
	id = cm.id;
	*handled = 0;
	if (escalate_state_load(injected, &iid, &at) == 0 && at == e->since &&
	    iid == id)
		goto out;
	*handled = 1;
	source = xasprintf("comment by @%s", cm.author);
	what = xasprintf("@%s's reply", cm.author);
	/* escalate_one() remembered this escalation last. */
	(void)escalate_answer(s, &s->esc[s->nesc - 1], id, source, what,
	    cm.body);
	free(what);
	free(source);
out:
	free(injected);
}

/*
 * The message key of a reply: the comment (0: the reply file) and the
 * escalation it answers, and the reply's words (the reply file may bring
 * several replies to one escalation).
 */
static void
escalate_reply_key(const struct esc_target *t, long long id, const char *reply,
    char *key, size_t keysz)
{
	unsigned long long h = 14695981039346656037ULL;
	const char *p;

	for (p = reply != NULL ? reply : ""; *p != '\0'; p++) {
		h ^= (unsigned char)*p;
		h *= 1099511628211ULL;
	}
	snprintf(key, keysz, ESCALATE_REPLY_KEY_PREFIX "%lld %lld %016llx", id,
	    (long long)t->since, h);
}

enum act_inject
escalate_answer(struct escalation *s, const struct esc_target *t, long long id,
    const char *source, const char *what, const char *reply)
{
	char *injected = runfiles_escalation_injected(t->project, t->issue);
	char *renote = runfiles_renotify(t->project, t->issue);
	enum act_inject r;
	char key[96];

	escalate_reply_key(t, id, reply, key, sizeof(key));
	r = escalate_inject_reply(s, t, source, reply, key);
	if (r == ACT_INJECTED &&
	    escalate_state_save(s, injected, id, (long long)t->since) == 0) {
		/* Marks the escalation answered: no reminder follows. */
		(void)act_remove(s->act, renote);
		s->kept += t->parked;
		escalate_fixed(s, "%s: #%lld: passed %s to %s%s", t->project,
		    t->issue, what,
		    t->parked ? "the parked conversation of " : "", t->session);
	}
	free(injected);
	free(renote);
	return r;
}

static void
escalate_renotify(struct escalation *s, const struct esc *e)
{
	char *state = runfiles_renotify(e->project, e->issue), *text;
	long long id;

	text = xasprintf("### Still waiting for an answer\n\n"
			 "The dev agent asked for help here %lld hours ago and "
			 "no one has answered yet.\n\n**Reason:** %s\n\n"
			 "Please reply in a comment. Without an answer the "
			 "issue is labelled `blocked` and the session "
			 "stopped 24 hours after the question.\n",
	    (long long)(s->now - e->since) / 3600,
	    *e->reason ? e->reason : "(none given)");
	if (escalate_comment(s, e, "escalation-renotify", state, text, &id) ==
	    ESCALATE_POSTED)
		log_notice("%s: #%lld: reminder for the escalation is out",
		    e->project, e->issue);
	free(text);
	free(state);
}

/* Forget this escalation's run files once it is settled for good. */
static void
escalate_forget(struct escalation *s, const struct esc *e)
{
	char *paths[3];
	size_t i;

	paths[0] = runfiles_escalation_notified(e->project, e->issue);
	paths[1] = runfiles_escalation_injected(e->project, e->issue);
	paths[2] = runfiles_renotify(e->project, e->issue);
	for (i = 0; i < 3; i++) {
		(void)act_remove(s->act, paths[i]);
		free(paths[i]);
	}
	park_forget(s, e->project, e->issue);
}

/*
 * 24 hours without an answer: blocked label, diagnostic (under the
 * heading and table of upstream's blocked diagnostic), session stopped,
 * in-progress dropped, and the phase file removed so that no one revives
 * the session.  Each step is idempotent; a failed one stops the rest
 * until the next tick.
 */
static void
escalate_timeout(struct escalation *s, const struct esc *e)
{
	const cJSON *issue;
	char ts[32], *text;
	long long id;
	int r;

	if (forge_issue_get(s->forge, e->issue, &issue) == -1) {
		escalate_fail(s, "%s: cannot read #%lld: %s", e->project,
		    e->issue, forge_error(s->forge));
		return;
	}
	if (!forge_labelled(issue, "blocked") &&
	    act_label_add(s->act, e->issue, "blocked") == -1)
		return;
	log_iso8601((time_t)s->now, ts, sizeof(ts));
	text = xasprintf("### Session failure diagnostic\n\n"
			 "| Field | Value |\n|---|---|\n"
			 "| Exit reason | `escalate_timeout (24h)` |\n"
			 "| Timestamp | `%s` |\n\n"
			 "No one answered the agent's question within 24 "
			 "hours, so its session `%s` was ended and this "
			 "issue is labelled `blocked`.\n\n**Reason given:** "
			 "%s\n\nTo try again: answer the question here, then "
			 "remove `blocked` and add `backlog`.\n",
	    ts, e->session, *e->reason ? e->reason : "(none given)");
	r = escalate_comment(s, e, "escalation-timeout", NULL, text, &id);
	free(text);
	if (r == ESCALATE_POST_FAILED)
		return;
	if ((forge_labelled(issue, "in-progress") &&
		act_label_remove(s->act, e->issue, "in-progress") == -1) ||
	    act_kill(s->act, e->session) == -1 ||
	    act_remove(s->act, e->phase) == -1)
		return;
	escalate_forget(s, e);
	escalate_fixed(s,
	    "%s: #%lld: no answer to the escalation in 24 h: "
	    "labelled blocked, %s stopped",
	    e->project, e->issue, e->session);
}

/*
 * Keep the live (or parked) escalated session for the legacy reply
 * file.
 */
static void
escalate_remember(struct escalation *s, const struct esc *e, int parked)
{
	struct esc_target *t;

	s->esc = xreallocarray(s->esc, s->nesc + 1, sizeof(*s->esc));
	t = &s->esc[s->nesc++];
	t->project = xstrdup(e->project);
	t->issue = e->issue;
	t->session = xstrdup(e->session);
	t->phase_path = xstrdup(e->phase);
	t->since = (time_t)e->since;
	t->parked = parked;
}

enum escalate_due
escalate_due(long long age, int answered)
{
	if (age >= ESCALATE_TIMEOUT_S)
		return ESCALATE_TIMEOUT;
	if (age >= ESCALATE_RENOTIFY_S && !answered)
		return ESCALATE_RENOTIFY;
	return ESCALATE_WAIT;
}

/* The notice on the issue, once: its comment ID in *notice. */
static enum escalate_posted
escalate_notice(struct escalation *s, const struct esc *e, const char *state,
    long long *notice)
{
	enum escalate_posted r;
	char *text;

	text = xasprintf(
	    "### The dev agent needs a decision from a person\n\n"
	    "**Reason:** %s\n\nPlease answer in a comment on this issue. The "
	    "agent's conversation (session `%s`) is parked meanwhile, so "
	    "that the next issue can start; the first reply from a person "
	    "(not a bot account) resumes it, and it carries on. Without an "
	    "answer a reminder follows after 6 hours, and after 24 hours the "
	    "issue is labelled `blocked` and the conversation ended.\n",
	    *e->reason ? e->reason : "(none given)", e->session);
	r = escalate_comment(s, e, "escalation", state, text, notice);
	free(text);
	return r;
}

/* Run the clock's verdict: the timeout, or the reminder. */
static void
escalate_clock(struct escalation *s, const struct esc *e, int answered)
{
	switch (escalate_due(s->now - e->since, answered)) {
	case ESCALATE_TIMEOUT:
		escalate_timeout(s, e);
		break;
	case ESCALATE_RENOTIFY:
		escalate_renotify(s, e);
		break;
	case ESCALATE_WAIT:
		break;
	}
}

static void
escalate_one(struct escalation *s, struct esc *e)
{
	char *notified = runfiles_escalation_notified(e->project, e->issue);
	char *injected = runfiles_escalation_injected(e->project, e->issue);
	const cJSON *reply;
	long long notice, iid, at;
	int alive = agent_alive(e->session), r, handled = 0, parked, answered;

	if (alive == -1) {
		escalate_fail(s, "%s: cannot tell whether %s lives", e->project,
		    e->session);
		goto out;
	}
	parked = alive == 0 && park_is(e->project, e->issue, e->since);
	if (alive == 0 && !parked) {
		log_msg("%s: #%lld escalated, but session %s is gone",
		    e->project, e->issue, e->session);
		/* No one to remind for: only the timeout applies. */
		escalate_clock(s, e, 1);
		goto out;
	}
	answered =
	    escalate_state_load(injected, &iid, &at) == 0 && at == e->since;
	escalate_remember(s, e, parked);
	if (escalate_notice(s, e, notified, &notice) != ESCALATE_POSTED)
		goto out;
	/* Told, and no reply on its way: the slot is freed. */
	if (!parked && !answered &&
	    (r = park_session(s, &s->esc[s->nesc - 1], e->reason)) != 0) {
		if (r == -1)
			goto out;
		s->esc[s->nesc - 1].parked = 1;
	}
	if ((r = escalate_find_reply(s, e, notice, &reply)) == -1)
		goto out;
	if (r == 1)
		escalate_reply_from_forge(s, e, reply, &handled);
	if (!handled)
		escalate_clock(s, e, r == 1 || answered);
out:
	free(notified);
	free(injected);
}

/* The token's user, who posts the notices: 0, or -1 (logged). */
static int
escalate_login(struct escalation *s, struct esc *e)
{
	if (forge_user_login(s->forge, &e->login) == 0)
		return 0;
	escalate_fail(s, "%s: cannot tell the token's user: %s", e->project,
	    forge_error(s->forge));
	return -1;
}

/* One pass over the project's phase files, under the escalation lock. */
static void
escalate_pass(struct escalation *s)
{
	const char *proj = s->cfg->project_name;
	struct phase_info sig;
	long long *issues;
	struct esc e;
	size_t i, n;
	int stop = 0;

	if (runfiles_phase_issues(proj, &issues, &n) == -1) {
		escalate_fail(s, "cannot list the phase files of %s", proj);
		return;
	}
	for (i = 0; !stop && i < n; i++) {
		memset(&e, 0, sizeof(e));
		e.project = proj;
		e.issue = issues[i];
		e.session = runfiles_dev_session(proj, e.issue);
		e.phase = runfiles_phase(proj, e.issue);
		if (agent_read_signal(e.session, e.phase, &sig) == -1)
			escalate_fail(s, "cannot read '%s'", e.phase);
		else if (sig.phase == PHASE_ESCALATE && sig.mtime != 0 &&
		    !(stop = escalate_login(s, &e) == -1)) {
			e.since = (long long)sig.mtime;
			e.reason = redact_secrets(sig.reason);
			escalate_one(s, &e);
		}
		free(e.session);
		free(e.phase);
		free(e.reason);
	}
	free(issues);
}

int
escalate_check(struct escalation *s)
{
	char *lock = runfiles_escalation_lock(s->cfg->project_name);
	int fd = -1, r;

	if ((r = lock_take(lock, &fd)) == 1) {
		log_msg("%s: escalations: the other tool's pass holds '%s' — "
			"it handles them",
		    s->cfg->project_name, lock);
	} else if (r == -1) {
		escalate_fail(s, "cannot lock '%s': %s", lock, strerror(errno));
	} else {
		escalate_pass(s);
		lock_release_remove(lock, fd);
	}
	free(lock);
	return r;
}

void
escalate_fail(struct escalation *s, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	s->failed = 1;
	if (s->fail != NULL)
		s->fail(s->arg, msg);
	else
		log_warn("skipped: %s", msg);
	free(msg);
}

void
escalate_fixed(struct escalation *s, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (s->fixed != NULL)
		s->fixed(s->arg, msg);
	else
		log_msg("%s: %s",
		    s->act->dry_run ? "not fixed (dry run)" : "fixed", msg);
	free(msg);
}

void
escalate_free(struct escalation *s)
{
	size_t i;

	for (i = 0; i < s->nesc; i++) {
		free(s->esc[i].project);
		free(s->esc[i].session);
		free(s->esc[i].phase_path);
	}
	free(s->esc);
	s->esc = NULL;
	s->nesc = 0;
}
