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
#include "runfiles.h"
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

int
agent_use(const struct agent_conf *conf)
{
	const char *want = conf->protocol != NULL && *conf->protocol != '\0' ?
	    conf->protocol :
	    AGENT_PROTOCOL_DEFAULT;
	size_t i;

	agent_lock_configure(conf->session_lock, conf->session_lock_wait_s);
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
	if (intent_forget(s->session) == -1)
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

enum agent_delivery
agent_deliver(const char *session, const struct agent_msg *m)
{
	enum agent_delivery d = AGENT_INJECT_ERROR;
	struct intent in;
	long long tries;
	int fd = -1, r;

	memset(&in, 0, sizeof(in));
	if ((r = intent_lock(session, &fd)) != 0) {
		log_msg("session %s: %s", session,
		    r == 1 ? "another tick is typing into it" :
			     "cannot lock its record of messages");
		return r == 1 ? AGENT_NOT_DELIVERED : AGENT_INJECT_ERROR;
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
		goto out;
	}
	if (tries < 0) {
		agent_settle_other(session, &in);
		tries = 0;
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
	crashpoint("typed");
	if (d == AGENT_DELIVERED)
		(void)agent_typed(session, m, &in);
out:
	intent_free(&in);
	intent_unlock(fd);
	return d;
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
