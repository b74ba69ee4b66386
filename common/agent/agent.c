/*
 * The agent seam: the table of backends, the one in use, and the calls
 * that go to it; every message a sender types goes through
 * agent_deliver(), which records its intent first (intent.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "agent_lock.h"
#include "crashpoint.h"
#include "file.h"
#include "intent.h"
#include "log.h"
#include "mailbox.h"
#include "runfiles.h"
#include "sandbox.h"
#include "xmalloc.h"

/* Each backend's row, from its own file. */
extern const struct agent_backend agent_tmux_backend;
extern const struct agent_backend agent_checkpoint_backend;
extern const struct agent_backend agent_markers_backend;

/* One row per protocol; AGENT_PROTOCOL_MARKERS's goes last. */
static const struct agent_backend *const agent_backends[] = {
    &agent_tmux_backend,
    &agent_checkpoint_backend,
    &agent_markers_backend,
};

static const struct agent_backend *agent_cur = &agent_tmux_backend;

static int agent_first(const struct agent_spec *, char *, size_t);
static enum agent_delivery agent_send(const char *, const struct agent_msg *);
static int agent_has(const char *, const struct agent_msg *,
    const struct intent *);
static enum agent_delivery agent_typed(const char *, const struct agent_msg *,
    struct intent *);
static void agent_settle_other(const char *, struct intent *);
static int agent_queue(const char *, const struct agent_msg *, const char *);
static int agent_queue_behind(const char *, const struct agent_msg *);
static enum agent_delivery agent_unsent(const char *, const struct agent_msg *,
    struct intent *, time_t, const char *);
static int agent_at_work(const char *, time_t);
static int agent_mailbox_served(const char *);
static enum agent_delivery agent_later(const char *, const struct agent_msg *,
    enum agent_delivery, const char *);
static enum agent_delivery agent_deliver_via(const char *,
    const struct agent_msg *, int, int *);
static int agent_mailbox_ready(const char *, const struct agent_msg *);

int
agent_use(const struct agent_conf *conf)
{
	const char *want = conf->protocol != NULL && *conf->protocol != '\0' ?
	    conf->protocol :
	    AGENT_PROTOCOL_DEFAULT;
	size_t i;

	agent_lock_configure(conf->session_lock, conf->session_lock_wait_s);
	sandbox_set(conf->sandbox);
	for (i = 0; i < sizeof(agent_backends) / sizeof(agent_backends[0]);
	     i++) {
		if (strcmp(agent_backends[i]->protocol, want) != 0)
			continue;
		agent_cur = agent_backends[i];
		return agent_cur->init != NULL ? agent_cur->init(conf) : 0;
	}
	return -1;
}

void
agent_set_backend(const struct agent_backend *b)
{
	agent_cur = b != NULL ? b : &agent_tmux_backend;
}

int
agent_reserve(char *err, size_t errsz)
{
	int r = agent_lock_reserve();

	if (r == 1)
		snprintf(err, errsz,
		    "the Claude session lock '%s' stayed busy for %d s",
		    agent_lock_path(), agent_lock_wait());
	else if (r == -1)
		snprintf(err, errsz,
		    "cannot take the Claude session lock '%s': %s",
		    agent_lock_path(), strerror(errno));
	return r;
}

void
agent_unreserve(void)
{
	agent_lock_unreserve();
}

/*
 * A new session under the name: the old one's record of messages goes,
 * and the first message, when there is one, is recorded, not typed yet.
 * 0, or -1 with err set.
 */
static int
agent_first(const struct agent_spec *s, char *err, size_t errsz)
{
	struct intent in;
	int fd = -1, r = -1;

	if ((r = intent_lock(s->session, &fd)) != 0) {
		snprintf(err, errsz,
		    "cannot lock the record of session '%s': %s", s->session,
		    r == 1 ? "another process is typing into it" :
			     strerror(errno));
		return -1;
	}
	memset(&in, 0, sizeof(in));
	if (mailbox_forget(s->session) == -1)
		snprintf(err, errsz,
		    "cannot remove the mailbox of session '%s': %s", s->session,
		    strerror(errno));
	else if (intent_forget(s->session) == -1)
		snprintf(err, errsz,
		    "cannot remove the record of session '%s': %s", s->session,
		    strerror(errno));
	else if (s->first_key != NULL) {
		intent_pend(&in, s->first_key, s->first_text, time(NULL));
		if ((r = intent_save(s->session, &in)) == -1)
			snprintf(err, errsz,
			    "cannot record the first message of session '%s': "
			    "%s",
			    s->session, strerror(errno));
	} else
		r = 0;
	intent_free(&in);
	intent_unlock(fd);
	return r;
}

int
agent_start(const struct agent_spec *s, char *err, size_t errsz)
{
	int r = agent_first(s, err, errsz);

	if (r == 0)
		r = agent_cur->start(s, err, errsz);
	/* Handed over, or not needed any more. */
	agent_lock_unreserve();
	return r;
}

/* The backend's step for m. */
static enum agent_delivery
agent_send(const char *session, const struct agent_msg *m)
{
	switch (m->kind) {
	case AGENT_MSG_ANSWER:
		return agent_answer(session, m->reply, m->text);
	case AGENT_MSG_ADVANCE:
		return agent_advance(session, m->signal_path, m->next, m->text);
	case AGENT_MSG_INJECT:
		break;
	}
	return agent_inject(session, m->text);
}

/* Whether the session has m, as recorded in in (its text as typed). */
static int
agent_has(const char *session, const struct agent_msg *m,
    const struct intent *in)
{
	struct agent_msg typed = *m;

	if (agent_cur->seen == NULL)
		return 0;
	if (in->text != NULL)
		typed.text = in->text;
	return agent_cur->seen(session, &typed, in->at, in->stamp);
}

/* m arrived: recorded as delivered (a failure is settled by a look). */
static enum agent_delivery
agent_typed(const char *session, const struct agent_msg *m, struct intent *in)
{
	intent_delivered(in);
	if (intent_save(session, in) == -1)
		log_msg("session %s: cannot record '%s' as delivered: %s — a "
			"later tick looks at the session",
		    session, m->key, strerror(errno));
	return AGENT_DELIVERED;
}

/*
 * Another message is recorded and not confirmed, and this one takes its
 * place: when the session has it, it joins the delivered ones first, so
 * that its sender, asking again, does not type it twice.
 */
static void
agent_settle_other(const char *session, struct intent *in)
{
	struct agent_msg other = {.key = in->key, .kind = AGENT_MSG_INJECT};

	if (in->key[0] == '\0' || in->tries == 0 || in->text == NULL ||
	    agent_has(session, &other, in) != 1)
		return;
	log_msg("session %s: '%s' (typed before) has arrived", session,
	    in->key);
	intent_delivered(in);
}

/*
 * Queue m in the session's mailbox for its wrapper (why: for the log).
 * 1 queued (now or before), 0 not (logged: a later tick tries again).
 */
static int
agent_queue(const char *session, const struct agent_msg *m, const char *why)
{
	int r = mailbox_add(session, m->key, m->text);

	if (r == -1) {
		log_msg("session %s: cannot queue '%s' in its mailbox: %s — a "
			"later tick tries again",
		    session, m->key, strerror(errno));
		return 0;
	}
	if (r == 0)
		log_msg("queued for %s (%s): '%s'", session, why, m->key);
	return 1;
}

/*
 * Before m is typed by a sender: is it in the mailbox, or are others
 * queued before it (it goes behind them, in order)?  1 it is queued
 * (AGENT_QUEUED), 0 type it, -1 the mailbox cannot be read (logged).
 */
static int
agent_queue_behind(const char *session, const struct agent_msg *m)
{
	struct mailbox mb;
	int r = 0;

	if (mailbox_load(session, &mb) == -1) {
		log_msg("session %s: its mailbox cannot be read: %s", session,
		    strerror(errno));
		r = -1;
	} else if (mailbox_find(&mb, m->key) >= 0)
		r = 1;
	else if (mb.n > 0)
		r = agent_queue(session, m, "messages queued before it") ? 1 :
									   -1;
	mailbox_free(&mb);
	return r;
}

/*
 * Nothing typed: the session's wrapper types it (the lock is held
 * elsewhere, or the agent is at work; why, for the log).  The record
 * forgets the try (when it was typed last stays at, for the wrapper's
 * look at the agent) and m is queued.
 */
static enum agent_delivery
agent_unsent(const char *session, const struct agent_msg *m, struct intent *in,
    time_t at, const char *why)
{
	in->key[0] = '\0';
	in->tries = 0;
	in->at = at;
	free(in->text);
	in->text = NULL;
	if (intent_save(session, in) == -1)
		log_msg("session %s: cannot record that '%s' was not typed: %s",
		    session, m->key, strerror(errno));
	return agent_queue(session, m, why) ? AGENT_QUEUED :
					      AGENT_NOT_DELIVERED;
}

/*
 * Whether the agent is at work on the message typed last, at since (no
 * turn of its ended since: agent_backend.at_prompt), in a session whose
 * wrapper delivers its mailbox: what a sender would type now is queued
 * instead, and typed when the turn is over.
 */
static int
agent_at_work(const char *session, time_t since)
{
	return since != 0 && agent_cur->at_prompt != NULL &&
	    agent_mailbox_served(session) &&
	    agent_cur->at_prompt(session, since) == 0;
}

/*
 * Whether the session's wrapper delivers its mailbox: the session lives
 * and has a wrapper holding the Claude session lock for it (its state
 * file), which types what is queued (agent_exec.h).
 */
static int
agent_mailbox_served(const char *session)
{
	char *state;
	int r;

	if (agent_lock_path() == NULL)
		return 0;
	state = runfiles_agent_state(session);
	r = file_exists(state) && agent_alive(session) == 1;
	free(state);
	return r;
}

/*
 * A sender could not have m typed now (d, for why): another process
 * types into the session, the agent is at work, the paste was not taken
 * or not confirmed.  With a wrapper to deliver it, m is queued in the
 * mailbox (AGENT_QUEUED), where a try recorded before is settled by a
 * look, never typed blindly; else d (a later tick tries again).
 */
static enum agent_delivery
agent_later(const char *session, const struct agent_msg *m,
    enum agent_delivery d, const char *why)
{
	if (!agent_mailbox_served(session))
		return d;
	return agent_queue(session, m, why) ? AGENT_QUEUED : d;
}

/*
 * agent_deliver(), from a sender (a tick: what cannot be typed now is
 * queued) or from the mailbox (the wrapper: nothing queued); *typed set
 * when m was typed now.
 */
static enum agent_delivery
agent_deliver_via(const char *session, const struct agent_msg *m,
    int from_mailbox, int *typed)
{
	enum agent_delivery d = AGENT_INJECT_ERROR;
	struct intent in;
	long long tries;
	time_t last;
	int fd = -1, r, fresh;

	memset(&in, 0, sizeof(in));
	*typed = 0;
	if ((r = intent_lock(session, &fd)) != 0) {
		log_msg("session %s: %s", session,
		    r == 1 ? "another process is typing into it" :
			     "cannot lock its record of messages");
		if (r != 1)
			return AGENT_INJECT_ERROR;
		return from_mailbox ?
		    AGENT_NOT_DELIVERED :
		    agent_later(session, m, AGENT_NOT_DELIVERED,
			"another process types into it");
	}
	if (intent_load(session, &in) == -1) {
		log_msg("session %s: its record of messages cannot be read: %s",
		    session, strerror(errno));
		goto out;
	}
	if (intent_was_delivered(&in, m->key)) {
		d = AGENT_DELIVERED;
		goto out;
	}
	/* Queued before: the wrapper delivers it (and settles a try). */
	if (!from_mailbox && (r = agent_queue_behind(session, m)) != 0) {
		d = r == 1 ? AGENT_QUEUED : AGENT_NOT_DELIVERED;
		goto out;
	}
	/*
	 * Recorded before: typed by a process that died before it recorded
	 * the delivery, or not confirmed, or (never typed) recorded as the
	 * first message of a session whose start was cut off.
	 */
	tries = strcmp(in.key, m->key) == 0 ? in.tries : -1;
	if (tries >= 0 && (r = agent_has(session, m, &in)) != 0) {
		log_msg("session %s: '%s' (recorded, typed %lld time%s): %s",
		    session, m->key, tries, tries == 1 ? "" : "s",
		    r == 1 ? "the session has it, not typed again" :
			     "the session cannot take it now");
		d = r == 1 ? agent_typed(session, m, &in) : AGENT_NOT_DELIVERED;
		if (d == AGENT_NOT_DELIVERED && !from_mailbox)
			d = agent_later(session, m, d, "not taken yet");
		goto out;
	}
	if ((fresh = tries < 0)) {
		agent_settle_other(session, &in);
		tries = 0;
	}
	last = in.at;
	if (fresh && !from_mailbox && agent_at_work(session, last)) {
		d = agent_unsent(session, m, &in, last, "agent at work");
		goto out;
	}
	intent_pend(&in, m->key, m->text, time(NULL));
	in.tries = tries + 1;
	in.stamp = agent_cur->stamp != NULL ? agent_cur->stamp(session, m) : 0;
	if (intent_save(session, &in) == -1) {
		log_msg("session %s: cannot record '%s' before typing it: %s",
		    session, m->key, strerror(errno));
		goto out;
	}
	crashpoint("recorded");
	d = agent_send(session, m);
	crashpoint(from_mailbox ? "mailbox-typed" : "typed");
	if (d == AGENT_DELIVERED) {
		*typed = 1;
		(void)agent_typed(session, m, &in);
	} else if (d == AGENT_QUEUED)
		d = from_mailbox ?
		    AGENT_NOT_DELIVERED :
		    agent_unsent(session, m, &in, last, "Claude lock busy");
	else if (!from_mailbox)
		/* Maybe typed: the record stays, for the wrapper's look. */
		d = agent_later(session, m, d,
		    d == AGENT_NOT_DELIVERED ? "not confirmed" : "not typed");
out:
	intent_free(&in);
	intent_unlock(fd);
	return d;
}

enum agent_delivery
agent_deliver(const char *session, const struct agent_msg *m)
{
	int typed;

	return agent_deliver_via(session, m, 0, &typed);
}

/*
 * Whether the wrapper may go on with m, the oldest of the mailbox: it was
 * delivered, or typed and not confirmed (settled by looking, nothing
 * typed blindly), or the agent waits at its prompt since the last
 * message typed.
 */
static int
agent_mailbox_ready(const char *session, const struct agent_msg *m)
{
	struct intent in;
	int r = 0;

	if (intent_load(session, &in) == -1)
		r = 0;
	else if (intent_was_delivered(&in, m->key) ||
	    (strcmp(in.key, m->key) == 0 && in.tries > 0))
		r = 1;
	else if (agent_cur->at_prompt != NULL)
		r = agent_cur->at_prompt(session, in.at) == 1;
	intent_free(&in);
	return r;
}

int
agent_mailbox_deliver(const char *session)
{
	struct agent_msg m = {.kind = AGENT_MSG_INJECT};
	enum agent_delivery d;
	struct mailbox mb;
	int r = 0, typed = 0;

	if (mailbox_load(session, &mb) == -1) {
		log_msg("session %s: its mailbox cannot be read: %s", session,
		    strerror(errno));
		return -1;
	}
	if (mb.n == 0)
		goto out;
	m.key = mb.msgs[0].key;
	m.text = mb.msgs[0].text;
	if (!agent_mailbox_ready(session, &m))
		goto out;
	if ((d = agent_deliver_via(session, &m, 1, &typed)) ==
	    AGENT_DELIVERED) {
		log_msg("session %s: '%s' delivered from its mailbox", session,
		    m.key);
		if (mailbox_remove(session, m.key) == -1)
			log_msg("session %s: cannot take '%s' out of its "
				"mailbox: %s",
			    session, m.key, strerror(errno));
		r = typed ? 1 : 2;
	} else if (d == AGENT_INJECT_ERROR)
		r = -1;
out:
	mailbox_free(&mb);
	return r;
}

long
agent_queued(const char *session)
{
	return mailbox_count(session);
}

int
agent_pending(const char *session, const char *prefix, char **key, char **text)
{
	struct intent in;
	int r = 0;

	*key = *text = NULL;
	if (intent_load(session, &in) == -1)
		r = -1;
	else if (in.key[0] != '\0' &&
	    strncmp(in.key, prefix, strlen(prefix)) == 0) {
		*key = xstrdup(in.key);
		*text = xstrdup(in.text != NULL ? in.text : "");
		r = 1;
	}
	intent_free(&in);
	return r;
}

enum agent_delivery
agent_inject(const char *session, const char *text)
{
	return agent_cur->inject(session, text);
}

int
agent_alive(const char *session)
{
	return agent_cur->alive(session);
}

int
agent_read_signal(const char *session, const char *path, struct phase_info *out)
{
	return agent_cur->read_signal(session, path, out);
}

int
agent_capture(const char *session, int lines, struct buf *out)
{
	if (agent_cur->capture == NULL)
		return -1;
	return agent_cur->capture(session, lines, out);
}

int
agent_kill(const char *session)
{
	char *lock;
	int r = agent_cur->kill(session);

	/* Its messages were for it alone. */
	if (r == 0)
		(void)mailbox_forget(session);
	if (r == 0 && intent_forget(session) == 0) {
		lock = runfiles_intent_lock(session);
		(void)file_remove(lock);
		free(lock);
	}
	return r;
}

int
agent_valid_name(const char *name)
{
	return agent_cur->valid_name(name);
}

int
agent_list(const char *prefix, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	if (agent_cur->list == NULL)
		return -1;
	return agent_cur->list(prefix, names, n);
}

void
agent_list_free(char **names, size_t n)
{
	/* What the backend's list made, its list_free takes back. */
	if (names != NULL && agent_cur->list_free != NULL)
		agent_cur->list_free(names, n);
}

int
agent_activity(const char *session, time_t *when)
{
	if (agent_cur->activity == NULL)
		return -1;
	return agent_cur->activity(session, when);
}

int
agent_progress(const char *session, struct agent_progress *out)
{
	memset(out, 0, sizeof(*out));
	out->progress = -1;
	if (agent_cur->progress == NULL)
		return 1;
	return agent_cur->progress(session, out);
}

int
agent_progress_stale(const struct agent_progress *p, time_t now,
    long long timeout_s)
{
	if (p->updated_at == 0 || strcmp(p->state, "completed") == 0)
		return 0;
	return now > p->updated_at &&
	    (long long)(now - p->updated_at) > timeout_s;
}

enum agent_delivery
agent_answer(const char *session, const char *reply, const char *text)
{
	if (agent_cur->answer == NULL)
		return agent_cur->inject(session, text);
	return agent_cur->answer(session, reply, text);
}

enum agent_delivery
agent_advance(const char *session, const char *signal_path, enum phase next,
    const char *text)
{
	if (agent_cur->advance == NULL)
		return agent_cur->inject(session, text);
	return agent_cur->advance(session, signal_path, next, text);
}
