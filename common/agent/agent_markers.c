/*
 * The agent backend of protocol "markers" (seeds/004): the agent runs in
 * a tmux session as with the default backend (agent_tmux.h: its wrapper,
 * the Claude session lock), but the orchestrator never reads its pane.
 * It is ready when it has created markers/ready.marker on request, and
 * has taken its standing instructions when, asked to read
 * system_prompt.txt, it creates markers/ack.marker.  A message is written
 * to prompt.txt and one short instruction is typed; it is delivered when
 * ack.marker appears; a tick waits for it a few seconds at most, and a
 * later tick reads an ack that came after.  An unacknowledged instruction
 * is typed once more on a later tick once the ack wait has passed, never
 * twice in one process, and the record of what
 * was typed stays in the session directory (markers.h), so a tick that
 * lost its answer, or a second tick racing the first under the
 * directory's lock, types nothing again.  The lifecycle signal stays the
 * phase file; status.json is the agent's progress (agent_progress()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "agent_lock.h"
#include "agent_tmux.h"
#include "file.h"
#include "lock.h"
#include "log.h"
#include "markers.h"
#include "phase.h"
#include "runfiles.h"
#include "termsafe.h"
#include "tmux.h"
#include "xmalloc.h"

/* The waits of seeds/004 unless configured. */
#define MARKERS_READY_S 30
#define MARKERS_ACK_S 10
/* Requests for the ready marker within its wait. */
#define MARKERS_READY_ASKS 3
/* Times an instruction is typed at most. */
#define MARKERS_SENDS 2
/*
 * What a tick waits at most, for the session directory's lock and for an
 * ack: an ack that comes later is read by the next tick (woken, or by the
 * schedule), which types the instruction again only once the whole ack
 * wait has passed since it was typed.
 */
#define MARKERS_TICK_WAIT_S 3

static int agent_markers_init(const struct agent_conf *);
static int agent_markers_start(const struct agent_spec *, char *, size_t);
static int agent_markers_handshake(const struct agent_spec *, const char *,
    char *, size_t);
static int agent_markers_ask_ready(const char *);
static int agent_markers_ask_system(const char *);
static char *agent_markers_instruction(const char *);
static char *agent_markers_system_text(const char *);
static enum agent_delivery agent_markers_inject(const char *, const char *);
static enum agent_delivery agent_markers_deliver(const char *, const char *);
static int agent_markers_same(const char *, struct markers_delivery *,
    enum agent_delivery *);
static enum agent_delivery agent_markers_fresh(const char *, const char *,
    unsigned long long);
static enum agent_delivery agent_markers_type(const char *,
    struct markers_delivery *);
static int agent_markers_typed(const char *);
static void agent_markers_typed_add(const char *);
static int agent_markers_signal(const char *, const char *,
    struct phase_info *);
static int agent_markers_kill(const char *);
static int agent_markers_progress(const char *, struct agent_progress *);
static int agent_markers_seen(const char *, const struct agent_msg *, time_t,
    long long);

const struct agent_backend agent_markers_backend = {
    .protocol = "markers",
    .init = agent_markers_init,
    .start = agent_markers_start,
    .inject = agent_markers_inject,
    .alive = tmux_has_session,
    .read_signal = agent_markers_signal,
    .kill = agent_markers_kill,
    .valid_name = tmux_valid_name,
    .capture = tmux_capture,
    .list = tmux_list_sessions,
    .list_free = tmux_list_free,
    .activity = tmux_session_activity,
    .progress = agent_markers_progress,
    .seen = agent_markers_seen,
    .at_prompt = agent_tmux_at_prompt,
};

static int markers_ready_s = MARKERS_READY_S;
static int markers_ack_s = MARKERS_ACK_S;
/* The sessions this process typed an instruction into (one tick). */
static char **markers_typed_names;
static size_t markers_ntyped;

static int
agent_markers_init(const struct agent_conf *conf)
{
	agent_tmux_configure(conf);
	markers_ready_s =
	    conf->marker_ready_s > 0 ? conf->marker_ready_s : MARKERS_READY_S;
	markers_ack_s =
	    conf->marker_ack_s > 0 ? conf->marker_ack_s : MARKERS_ACK_S;
	return 0;
}

/*
 * A fresh session directory, the session under its wrapper, then the
 * handshake.  A session that never completed it is killed and its
 * directory removed.
 */
static int
agent_markers_start(const struct agent_spec *s, char *err, size_t errsz)
{
	if (markers_prepare(s->session) == -1) {
		snprintf(err, errsz,
		    "cannot create the session directory of '%s': %s",
		    s->session, strerror(errno));
		return -1;
	}
	if (agent_tmux_start_with(s, agent_markers_handshake, err, errsz) ==
	    -1) {
		(void)markers_remove(s->session);
		return -1;
	}
	return 0;
}

/*
 * Type only into the input box: wait until the agent shows it (a dialog
 * is a person's to answer: named, nothing typed; keys typed into an agent
 * still starting are dropped or merged into one request), then ask for
 * the ready marker and wait for it, asking again a few times only while
 * the agent waits at its input box with no marker made (a request it
 * dropped); then hand over system_prompt.txt and wait for its ack.  An
 * empty AGENT_READY_PATTERN (an agent without an input box to see) skips
 * the looking, not the dialogs.  0, or -1 with err set.
 */
static int
agent_markers_handshake(const struct agent_spec *s, const char *state,
    char *err, size_t errsz)
{
	int every = markers_ready_s * 1000 / MARKERS_READY_ASKS, left, got = 0;
	int box = s->ready_pattern != NULL && *s->ready_pattern != '\0', seen;
	char why[512];

	if (box && agent_tmux_wait_box(s, state, err, errsz) == -1)
		return -1;
	for (left = markers_ready_s * 1000; left > 0 && !got; left -= every) {
		if (left < markers_ready_s * 1000 &&
		    (seen = agent_tmux_screen_check(s, err, errsz)) != 1) {
			if (seen == -1)
				return -1;
			if (box) {
				got = markers_wait(s->session,
				    RUNFILES_READY_MARKER,
				    every < left ? every : left,
				    tmux_has_session);
				continue;
			}
		}
		/*
		 * Typing fails when the agent has gone; its session may
		 * take a moment longer to close.
		 */
		if (agent_markers_ask_ready(s->session) == -1) {
			(void)markers_wait(s->session, RUNFILES_READY_MARKER,
			    1000, tmux_has_session);
			break;
		}
		got = markers_wait(s->session, RUNFILES_READY_MARKER,
		    every < left ? every : left, tmux_has_session);
	}
	if (!got && agent_lock_state_why(state, why, sizeof(why))) {
		snprintf(err, errsz, "session '%s' did not start: %s",
		    s->session, why);
		return -1;
	}
	if (!got && tmux_has_session(s->session) != 1) {
		snprintf(err, errsz, "session '%s' exited before it was ready",
		    s->session);
		return -1;
	}
	if (!got) {
		snprintf(err, errsz,
		    "session '%s' created no " RUNFILES_READY_MARKER
		    " within %d s",
		    s->session, markers_ready_s);
		return -1;
	}
	if (agent_tmux_screen_check(s, err, errsz) == -1)
		return -1;
	if (agent_markers_ask_system(s->session) == -1 ||
	    !markers_wait(s->session, RUNFILES_ACK_MARKER, markers_ack_s * 1000,
		tmux_has_session)) {
		snprintf(err, errsz,
		    "session '%s' did not acknowledge " RUNFILES_SYSTEM_PROMPT
		    " within %d s",
		    s->session, markers_ack_s);
		return -1;
	}
	return 0;
}

/* Type the request for the ready marker: 0 or -1. */
static int
agent_markers_ask_ready(const char *session)
{
	char *ready = runfiles_session_file(session, RUNFILES_READY_MARKER);
	char *text = xasprintf("Create the empty file %s now, and do "
			       "nothing else.",
	    ready);
	int r = tmux_type(session, text);

	free(text);
	free(ready);
	return r;
}

/* Write system_prompt.txt and type the request to read it: 0 or -1. */
static int
agent_markers_ask_system(const char *session)
{
	char *path = runfiles_session_file(session, RUNFILES_SYSTEM_PROMPT);
	char *ack = runfiles_session_file(session, RUNFILES_ACK_MARKER);
	char *body = agent_markers_system_text(session), *text = NULL;
	int r = -1;

	if (markers_clear(session, RUNFILES_ACK_MARKER) == -1 ||
	    markers_write(session, RUNFILES_SYSTEM_PROMPT, body) == -1)
		goto out;
	text = xasprintf("Read %s and follow it from now on; then create the "
			 "empty file %s.",
	    path, ack);
	r = tmux_type(session, text);
out:
	free(text);
	free(body);
	free(ack);
	free(path);
	return r;
}

/* The standing instructions, with the session's real paths.  Caller frees. */
static char *
agent_markers_system_text(const char *session)
{
	char *dir = runfiles_session_dir(session), *text;

	text = xasprintf(
	    "You are driven by an orchestrator through the files of %s.\n"
	    "\n"
	    "Each time you are asked to read %s/" RUNFILES_SESSION_PROMPT ":\n"
	    "1. Create the empty file %s/" RUNFILES_ACK_MARKER
	    " at once, before anything else.\n"
	    "2. Do what the prompt says.  While you work, keep %s/" RUNFILES_SESSION_STATUS
	    " current (write it whole, at least every few minutes):\n"
	    "   {\"state\": \"processing\", \"progress\": 0-100, "
	    "\"message\": \"what you are doing\", \"phase\": "
	    "\"reading_prompt | executing | writing_output\", "
	    "\"updated_at\": \"YYYY-MM-DDTHH:MM:SSZ\"}\n"
	    "3. When you are done, write it with \"state\": \"completed\" "
	    "and create the empty file %s/" RUNFILES_COMPLETED_MARKER ".\n"
	    "\n"
	    "Where the work stands (awaiting CI, done, failed) you still "
	    "report in the phase file the prompts name; the markers only say "
	    "that a message arrived and was dealt with.\n",
	    dir, dir, dir, dir, dir);
	free(dir);
	return text;
}

/* The instruction typed for each message.  Caller frees. */
static char *
agent_markers_instruction(const char *session)
{
	char *prompt = runfiles_session_file(session, RUNFILES_SESSION_PROMPT);
	char *ack = runfiles_session_file(session, RUNFILES_ACK_MARKER);
	char *done = runfiles_session_file(session, RUNFILES_COMPLETED_MARKER);
	char *text =
	    xasprintf("Read %s and do what it says: create %s at once, "
		      "and %s when you are done.",
		prompt, ack, done);

	free(done);
	free(ack);
	free(prompt);
	return text;
}

/*
 * One injection at a time per session: under the session directory's
 * lock (a racing tick waits for the first one's answer, then finds the
 * text delivered).
 */
static enum agent_delivery
agent_markers_inject(const char *session, const char *text)
{
	char *path = runfiles_session_inject_lock(session);
	char *dir = runfiles_session_dir(session);
	enum agent_delivery r = AGENT_INJECT_ERROR;
	int fd = -1, got;

	if (!file_exists(dir)) {
		log_msg("session %s has no session directory '%s'", session,
		    dir);
		goto out;
	}
	if ((got = lock_wait(path, &fd, MARKERS_TICK_WAIT_S)) == 1) {
		log_msg("session %s: another tick is typing into it", session);
		r = AGENT_NOT_DELIVERED;
	} else if (got == 0)
		r = agent_markers_deliver(session, text);
	else
		log_msg("cannot lock '%s': %s", path, strerror(errno));
	lock_release(fd);
out:
	free(dir);
	free(path);
	return r;
}

/* Under the lock: a message seen before, or a new one. */
static enum agent_delivery
agent_markers_deliver(const char *session, const char *text)
{
	unsigned long long h = markers_hash(text);
	struct markers_delivery d;
	enum agent_delivery r;
	int rd = markers_delivery_read(session, &d);

	if (rd == -1) {
		log_msg("session %s: its delivery record cannot be read",
		    session);
		return AGENT_INJECT_ERROR;
	}
	if (rd == 0 && d.hash == h && agent_markers_same(session, &d, &r))
		return r;
	return agent_markers_fresh(session, text, h);
}

/*
 * The text of the record d was typed before.  Acknowledged (now, late,
 * or already): delivered, nothing typed, unless the agent has finished
 * with it, when it is new work (0).  Not acknowledged: typed once more,
 * unless this process typed it already or it was typed MARKERS_SENDS
 * times.  1 with *r set, or 0: send it afresh.
 */
static int
agent_markers_same(const char *session, struct markers_delivery *d,
    enum agent_delivery *r)
{
	if (d->acked) {
		if (markers_has(session, RUNFILES_COMPLETED_MARKER))
			return 0;
		*r = AGENT_DELIVERED;
		return 1;
	}
	if (markers_has(session, RUNFILES_ACK_MARKER)) {
		log_msg("session %s acknowledged prompt.txt late", session);
		d->acked = 1;
		*r = markers_delivery_write(session, d) == 0 ?
		    AGENT_DELIVERED :
		    AGENT_INJECT_ERROR;
		return 1;
	}
	if (agent_markers_typed(session) ||
	    time(NULL) - d->at < (time_t)markers_ack_s) {
		*r = AGENT_NOT_DELIVERED;
		return 1;
	}
	if (d->sent >= MARKERS_SENDS) {
		log_msg("session %s acknowledged none of %d requests to read "
			"prompt.txt",
		    session, d->sent);
		*r = AGENT_INJECT_ERROR;
		return 1;
	}
	log_msg("session %s: prompt.txt re-sent (no ack.marker after %d s)",
	    session, markers_ack_s);
	*r = agent_markers_type(session, d);
	return 1;
}

/*
 * A new message: the markers of the last one cleared, the text (made
 * terminal-safe) in prompt.txt, the record written, the instruction
 * typed.
 */
static enum agent_delivery
agent_markers_fresh(const char *session, const char *text, unsigned long long h)
{
	struct markers_delivery d = {.hash = h};
	char *safe = NULL;
	int r = -1;

	if (markers_clear(session, RUNFILES_ACK_MARKER) == -1 ||
	    markers_clear(session, RUNFILES_COMPLETED_MARKER) == -1)
		goto out;
	safe = termsafe_dup(text);
	r = markers_write(session, RUNFILES_SESSION_PROMPT, safe);
out:
	free(safe);
	if (r == -1) {
		log_msg("session %s: cannot write prompt.txt: %s", session,
		    strerror(errno));
		return AGENT_INJECT_ERROR;
	}
	return agent_markers_type(session, &d);
}

/*
 * Type the instruction for prompt.txt, counted in the record first (a
 * crash in between never grants another try), and wait for the ack.
 */
static enum agent_delivery
agent_markers_type(const char *session, struct markers_delivery *d)
{
	struct agent_spec s = {.session = session};
	char *text, why[512];
	int r;

	/* A dialog on the screen would take the Enter as its answer. */
	if (agent_tmux_screen_check(&s, why, sizeof(why)) == -1) {
		log_msg("session %s: nothing typed: %s", session, why);
		return AGENT_NOT_DELIVERED;
	}
	if ((r = agent_tmux_relock(session)) != 0)
		return r == 1 ? AGENT_QUEUED : AGENT_INJECT_ERROR;
	d->sent++;
	d->at = time(NULL);
	if (markers_delivery_write(session, d) == -1) {
		log_msg("session %s: cannot write its delivery record: %s",
		    session, strerror(errno));
		return AGENT_INJECT_ERROR;
	}
	text = agent_markers_instruction(session);
	agent_markers_typed_add(session);
	r = tmux_type(session, text);
	free(text);
	if (r == -1)
		return AGENT_INJECT_ERROR;
	if (!markers_wait(session, RUNFILES_ACK_MARKER,
		(markers_ack_s < MARKERS_TICK_WAIT_S ? markers_ack_s :
						       MARKERS_TICK_WAIT_S) *
		    1000,
		tmux_has_session)) {
		log_msg("session %s: no ack.marker within %d s — a later tick "
			"reads it",
		    session,
		    markers_ack_s < MARKERS_TICK_WAIT_S ? markers_ack_s :
							  MARKERS_TICK_WAIT_S);
		return d->sent >= MARKERS_SENDS &&
			markers_ack_s <= MARKERS_TICK_WAIT_S ?
		    AGENT_INJECT_ERROR :
		    AGENT_NOT_DELIVERED;
	}
	d->acked = 1;
	return markers_delivery_write(session, d) == 0 ? AGENT_DELIVERED :
							 AGENT_INJECT_ERROR;
}

/* 1 when this process typed into session already. */
static int
agent_markers_typed(const char *session)
{
	size_t i;

	for (i = 0; i < markers_ntyped; i++)
		if (strcmp(markers_typed_names[i], session) == 0)
			return 1;
	return 0;
}

/* Kept for the life of the process, which is one tick. */
static void
agent_markers_typed_add(const char *session)
{
	if (agent_markers_typed(session))
		return;
	markers_typed_names = xreallocarray(markers_typed_names,
	    markers_ntyped + 1, sizeof(*markers_typed_names));
	markers_typed_names[markers_ntyped++] = xstrdup(session);
}

/* The phase file is the lifecycle signal, as with the default backend. */
static int
agent_markers_signal(const char *session, const char *path,
    struct phase_info *out)
{
	(void)session;
	return phase_read(path, out);
}

/* The session, then its directory. */
static int
agent_markers_kill(const char *session)
{
	int r = agent_tmux_kill(session);

	if (markers_remove(session) == -1) {
		log_msg("cannot remove the session directory of %s: %s",
		    session, strerror(errno));
		r = -1;
	}
	return r;
}

static int
agent_markers_progress(const char *session, struct agent_progress *out)
{
	return markers_status(session, out);
}

/*
 * A message recorded and not confirmed: the mailbox has it when the
 * delivery record is of its text and the agent acknowledged it (then or
 * since).  Otherwise it can take it: agent_markers_inject() types its
 * instruction once more only as its own record allows.
 */
static int
agent_markers_seen(const char *session, const struct agent_msg *m, time_t at,
    long long stamp)
{
	struct markers_delivery d;
	int rd = markers_delivery_read(session, &d);

	(void)at;
	(void)stamp;
	if (rd == -1)
		return -1;
	return rd == 0 && d.hash == markers_hash(m->text) &&
	    (d.acked || markers_has(session, RUNFILES_ACK_MARKER));
}
