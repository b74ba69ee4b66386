/*
 * The default agent backend, protocol "phase": the agent runs in a tmux
 * session, under its wrapper (agent_exec.h: the agent's variables, the
 * Claude session lock), is ready when its pane shows the prompt glyph
 * (or a ready marker appears), takes text as a paste, and signals
 * through the phase file it was told to write (seeds/000-002).  Its
 * transport (the wrapper, the lock, kill) is lent to the markers backend
 * through agent_tmux.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_exec.h"
#include "agent_lock.h"
#include "agent_tmux.h"
#include "buf.h"
#include "crashpoint.h"
#include "file.h"
#include "log.h"
#include "phase.h"
#include "redact.h"
#include "runfiles.h"
#include "sandbox.h"
#include "screen.h"
#include "strv.h"
#include "termsafe.h"
#include "tmux.h"
#include "utf8.h"
#include "xmalloc.h"

static int agent_tmux_init(const struct agent_conf *);
static int agent_tmux_wrap(const struct agent_spec *, const char *,
    const char *, const char *, char ***, char **, char *, size_t);
static int agent_tmux_launch(const struct agent_spec *, const char *, char **,
    char *, size_t);
static int agent_tmux_ready(const struct agent_spec *, const char *, char *,
    size_t);
static void agent_tmux_last_screen(const struct agent_spec *, const char *,
    const char *, char *, size_t);
static int agent_tmux_start(const struct agent_spec *, char *, size_t);
static void agent_tmux_dialog(const struct agent_spec *, const char *, char *,
    size_t);
static enum agent_delivery agent_tmux_inject(const char *, const char *);
static int agent_tmux_signal(const char *, const char *, struct phase_info *);
static int agent_tmux_probe(const char *, char *, size_t);
static int agent_tmux_worked_since(const char *, time_t);
static long long agent_tmux_count(const char *, const char *);
static long long agent_tmux_stamp(const char *, const struct agent_msg *);
static int agent_tmux_seen(const char *, const struct agent_msg *, time_t,
    long long);

/* The pane lines looked through for a message typed before. */
#define AGENT_TMUX_SEEN_LINES 2000
/* A message's probe: its first line of at least MIN bytes, cut to MAX. */
#define AGENT_TMUX_PROBE_MIN 12
#define AGENT_TMUX_PROBE_MAX 48

/* The input box's prompt glyph (agent_conf.ready_pattern). */
static char *agent_tmux_glyph;
/* What a session's wrapper is told to deliver its mailbox the same way. */
static struct {
	char *protocol;
	char *state_dir;
	char *socket;
	char *wake;    /* the project file the wrapper wakes with, or NULL */
	char idle[24]; /* the idle grace the wrapper wakes after, or "" */
	char ack[24];  /* the markers ack wait the wrapper types by, or "" */
} agent_tmux_conf;

const struct agent_backend agent_tmux_backend = {
    .protocol = AGENT_PROTOCOL_DEFAULT,
    .init = agent_tmux_init,
    .start = agent_tmux_start,
    .inject = agent_tmux_inject,
    .alive = tmux_has_session,
    .read_signal = agent_tmux_signal,
    .kill = agent_tmux_kill,
    .valid_name = tmux_valid_name,
    .capture = tmux_capture,
    .list = tmux_list_sessions,
    .list_free = tmux_list_free,
    .activity = tmux_session_activity,
    .stamp = agent_tmux_stamp,
    .seen = agent_tmux_seen,
    .at_prompt = agent_tmux_at_prompt,
};

/* The tmux server, and the run dir for the private paste files. */
static int
agent_tmux_init(const struct agent_conf *conf)
{
	agent_tmux_configure(conf);
	return 0;
}

void
agent_tmux_configure(const struct agent_conf *conf)
{
	tmux_set_socket(conf->tmux_socket);
	tmux_set_tmpdir(conf->state_dir);
	tmux_set_server_env(conf->server_env);
	free(agent_tmux_glyph);
	agent_tmux_glyph =
	    conf->ready_pattern != NULL ? xstrdup(conf->ready_pattern) : NULL;
	free(agent_tmux_conf.protocol);
	free(agent_tmux_conf.state_dir);
	free(agent_tmux_conf.socket);
	agent_tmux_conf.protocol =
	    xstrdup(conf->protocol != NULL && *conf->protocol != '\0' ?
		    conf->protocol :
		    AGENT_PROTOCOL_DEFAULT);
	agent_tmux_conf.state_dir =
	    conf->state_dir != NULL ? xstrdup(conf->state_dir) : NULL;
	agent_tmux_conf.socket =
	    conf->tmux_socket != NULL ? xstrdup(conf->tmux_socket) : NULL;
	free(agent_tmux_conf.wake);
	agent_tmux_conf.wake =
	    conf->wake ? agent_exec_wake_project(conf->wake_project) : NULL;
	agent_tmux_conf.ack[0] = '\0';
	if (conf->marker_ack_s > 0)
		snprintf(agent_tmux_conf.ack, sizeof(agent_tmux_conf.ack), "%d",
		    conf->marker_ack_s);
	agent_tmux_conf.idle[0] = '\0';
	if (conf->idle_grace_s > 0)
		snprintf(agent_tmux_conf.idle, sizeof(agent_tmux_conf.idle),
		    "%d", conf->idle_grace_s);
}

/*
 * The command tmux runs: the wrapper, with the agent's variables in a
 * private file (*envfile, which the caller removes when the wrapper did
 * not), the state file and, when one is configured, the lock, handed
 * over at the socket handover (or NULL).  0, or -1 with err set.
 */
static int
agent_tmux_wrap(const struct agent_spec *s, const char *state,
    const char *request, const char *handover, char ***argv, char **envfile,
    char *err, size_t errsz)
{
	struct agent_exec x = {0};
	char exe[PATH_MAX], *tmpl, **cmd;
	int r;

	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		snprintf(err, errsz, "cannot tell the running executable");
		return -1;
	}
	if ((cmd = sandbox_session_argv(s->session, s->workdir, s->argv, s->env,
		 0, err, errsz)) == NULL)
		return -1;
	if (s->env != NULL) {
		tmpl = runfiles_agent_env(s->session);
		r = agent_exec_env_write(tmpl, s->env, envfile);
		free(tmpl);
		if (r == -1) {
			snprintf(err, errsz,
			    "cannot write the variables of session '%s': %s",
			    s->session, strerror(errno));
			strv_free(cmd);
			return -1;
		}
		x.env_file = *envfile;
	}
	x.state = state;
	if ((x.lock = agent_lock_path()) != NULL) {
		x.wait_s = agent_lock_wait();
		x.request = request;
		x.watch = s->signal_path;
		x.handover = handover;
		/* Its mailbox, typed as this process would (agent.h). */
		if (agent_tmux_conf.state_dir != NULL) {
			x.session = s->session;
			x.run_dir = agent_tmux_conf.state_dir;
			x.protocol = agent_tmux_conf.protocol;
			x.socket = agent_tmux_conf.socket;
			x.glyph = agent_tmux_glyph;
			x.crash = crashpoint_get();
			x.log = log_path();
			if (agent_tmux_conf.ack[0] != '\0')
				x.ack = agent_tmux_conf.ack;
		}
	}
	/* The hooks' marks wake the tool from outside the sandbox. */
	if (agent_tmux_conf.wake != NULL && agent_tmux_conf.state_dir != NULL) {
		x.wake = agent_tmux_conf.wake;
		if (agent_tmux_conf.idle[0] != '\0')
			x.idle = agent_tmux_conf.idle;
		x.session = s->session;
		x.run_dir = agent_tmux_conf.state_dir;
		x.log = log_path();
	}
	*argv = agent_exec_argv(exe, &x, cmd);
	strv_free(cmd);
	return 0;
}

/*
 * Start the session under its wrapper (the agent's variables, the state
 * file state, the Claude session lock this tick reserved, handed over
 * through a socket: agent_lock.h) and wait until the wrapper holds the
 * lock.  0, or -1 with err set (a session that started is killed again).
 * The variables file is named in *envfile: the caller removes it and
 * frees the name.
 */
static int
agent_tmux_launch(const struct agent_spec *s, const char *state, char **envfile,
    char *err, size_t errsz)
{
	char *request = runfiles_lock_request(s->session), why[512];
	char *hand = runfiles_lock_handover(s->session);
	char **argv = NULL;
	int r = -1, sfd = -1;

	(void)file_remove(state);
	(void)file_remove(request);
	/* The one place in the run directory the agent may write. */
	if (runfiles_session_mkdir(s->session) == -1) {
		snprintf(err, errsz,
		    "cannot create the session directory of '%s': %s",
		    s->session, strerror(errno));
		goto out;
	}
	if (agent_lock_handover_listen(hand, &sfd) == -1 && errno != ENOLCK)
		log_msg("session %s: the Claude session lock cannot be handed "
			"over at '%s': %s — the session takes it itself",
		    s->session, hand, strerror(errno));
	if (agent_tmux_wrap(s, state, request, sfd != -1 ? hand : NULL, &argv,
		envfile, err, errsz) == -1)
		goto out;
	if (tmux_new_session(s->session, s->workdir, argv, NULL) == -1) {
		snprintf(err, errsz, "cannot start tmux session '%s'",
		    s->session);
		goto out;
	}
	if (sfd != -1 &&
	    agent_lock_handover(sfd, hand, s->session, tmux_has_session) == -1)
		log_msg("session %s: its wrapper did not take the Claude "
			"session lock from this tick — it takes it itself",
		    s->session);
	sfd = -1;
	agent_lock_unreserve();
	switch (agent_lock_await_start(state, s->session, tmux_has_session)) {
	case 0:
		r = 0;
		break;
	case 1:
		snprintf(err, errsz,
		    "the Claude session lock '%s' stayed busy for %d s",
		    agent_lock_path(), agent_lock_wait());
		break;
	default:
		if (agent_lock_state_why(state, why, sizeof(why)))
			snprintf(err, errsz, "session '%s' did not start: %s",
			    s->session, why);
		else if (tmux_has_session(s->session) == 0)
			snprintf(err, errsz,
			    "session '%s' exited before it was ready",
			    s->session);
		else
			snprintf(err, errsz,
			    "session '%s' never took the Claude session lock "
			    "'%s'",
			    s->session, agent_lock_path());
		break;
	}
	if (r == -1)
		(void)tmux_kill_session(s->session);
out:
	/* Not started: no wrapper will connect. */
	if (sfd != -1) {
		(void)close(sfd);
		(void)file_remove(hand);
	}
	strv_free(argv);
	free(hand);
	free(request);
	return r;
}

/*
 * The agent never became ready (what: how): its last screen, the reason
 * it printed ("Unable to connect to Anthropic services", a refusal to
 * run as root), made one line with secrets masked, in the log and in
 * err.
 */
static void
agent_tmux_last_screen(const struct agent_spec *s, const char *screen,
    const char *what, char *err, size_t errsz)
{
	char *text = screen_text(screen), *masked = redact_secrets(text);
	char *cut = utf8_cut(masked, 300, NULL);

	if (*cut == '\0')
		snprintf(err, errsz, "session '%s' %s", s->session, what);
	else {
		log_msg("session %s %s; its last screen: %s", s->session, what,
		    cut);
		snprintf(err, errsz, "session '%s' %s; its last screen: %s",
		    s->session, what, cut);
	}
	free(cut);
	free(masked);
	free(text);
}

/*
 * Wait until the agent shows its input box (or marker, when not NULL,
 * exists).  0, or -1 with err set (with the wrapper's words when it could
 * not start the agent).
 */
static int
agent_tmux_await(const struct agent_spec *s, const char *state,
    const char *marker, char *err, size_t errsz)
{
	struct buf screen;
	char why[512];
	int r;

	buf_init(&screen, 0);
	r = tmux_wait_ready(s->session, s->ready_pattern, marker,
	    s->ready_timeout_s, &screen);
	if (r == TMUX_DIALOG)
		agent_tmux_dialog(s, buf_str(&screen), err, errsz);
	else if (r != 0 && agent_lock_state_why(state, why, sizeof(why)))
		snprintf(err, errsz, "session '%s' did not start: %s",
		    s->session, why);
	else if (r != 0)
		agent_tmux_last_screen(s, buf_str(&screen),
		    r == TMUX_NOT_READY ? "never showed its input box" :
					  "exited before it was ready",
		    err, errsz);
	buf_free(&screen);
	return r == 0 ? 0 : -1;
}

/* The phase backend's readiness: the input box or the ready marker. */
static int
agent_tmux_ready(const struct agent_spec *s, const char *state, char *err,
    size_t errsz)
{
	return agent_tmux_await(s, state, s->ready_marker, err, errsz);
}

int
agent_tmux_wait_box(const struct agent_spec *s, const char *state, char *err,
    size_t errsz)
{
	return agent_tmux_await(s, state, NULL, err, errsz);
}

int
agent_tmux_screen_check(const struct agent_spec *s, char *err, size_t errsz)
{
	struct buf screen;
	int r = -1;

	buf_init(&screen, 0);
	if (tmux_capture(s->session, 0, &screen) == -1) {
		snprintf(err, errsz, "session '%s' exited before it was ready",
		    s->session);
		goto out;
	}
	if (screen_dialog(buf_str(&screen)) != SCREEN_NO_DIALOG) {
		agent_tmux_dialog(s, buf_str(&screen), err, errsz);
		goto out;
	}
	r = screen_input_box(buf_str(&screen), s->ready_pattern) ? 1 : 0;
out:
	buf_free(&screen);
	return r;
}

/*
 * Start the session and wait until it is ready.  The variables file is
 * gone by then: read by the wrapper of a session that started, removed
 * here when it did not.
 */
int
agent_tmux_start_with(const struct agent_spec *s, agent_tmux_ready_fn *ready,
    char *err, size_t errsz)
{
	char *state = runfiles_agent_state(s->session), *envfile = NULL;
	int r = -1;

	if (agent_lock_reserve() == -1) {
		snprintf(err, errsz,
		    "cannot take the Claude session lock '%s': %s",
		    agent_lock_path(), strerror(errno));
		goto out;
	}
	if (agent_tmux_launch(s, state, &envfile, err, errsz) == -1)
		goto out;
	if (ready(s, state, err, errsz) == -1) {
		(void)agent_tmux_kill(s->session);
		goto out;
	}
	r = 0;
out:
	if (envfile != NULL)
		(void)file_remove(envfile);
	free(envfile);
	free(state);
	return r;
}

/* The phase backend's start: ready when the input box shows. */
static int
agent_tmux_start(const struct agent_spec *s, char *err, size_t errsz)
{
	return agent_tmux_start_with(s, agent_tmux_ready, err, errsz);
}

/*
 * The agent waits in a dialog for a person: log what it shows (one line,
 * made printable by the log) and put what the operator must accept once
 * by hand into err.
 */
static void
agent_tmux_dialog(const struct agent_spec *s, const char *screen, char *err,
    size_t errsz)
{
	enum screen_dialog d = screen_dialog(screen);
	char *text = screen_text(screen), advice[256];

	log_msg("session %s shows the agent's %s, not its input box: %s",
	    s->session, screen_dialog_name(d), text);
	screen_dialog_advice(d, s->workdir, s->trust_dir, advice,
	    sizeof(advice));
	snprintf(err, errsz, "session '%s' waits in the agent's %s; %s",
	    s->session, screen_dialog_name(d), advice);
	free(text);
}

int
agent_tmux_relock(const char *session)
{
	char *state = runfiles_agent_state(session);
	char *request = runfiles_lock_request(session);
	int r =
	    agent_lock_for_inject(state, request, session, tmux_has_session);

	free(state);
	free(request);
	return r;
}

/*
 * The session holds the lock again first (agent_lock.h); while another
 * agent holds it, nothing is typed: the session's wrapper will.
 */
static enum agent_delivery
agent_tmux_inject(const char *session, const char *text)
{
	int r = agent_tmux_relock(session);

	if (r == 1)
		return AGENT_QUEUED;
	if (r == -1)
		return AGENT_INJECT_ERROR;
	switch (tmux_inject(session, text)) {
	case 0:
		return AGENT_DELIVERED;
	case 1:
		return AGENT_NOT_DELIVERED;
	default:
		return AGENT_INJECT_ERROR;
	}
}

/*
 * Its agent gets SIGHUP, then SIGKILL after a grace period: the lock is
 * free and the state file gone when this returns, for a session started
 * again under the name.
 */
int
agent_tmux_kill(const char *session)
{
	int was = tmux_has_session(session) == 1, r;
	char *state;

	if ((r = tmux_kill_session(session)) == 0 && was) {
		state = runfiles_agent_state(session);
		if (agent_lock_await_end(state) == -1)
			log_msg("the wrapper of session %s did not end",
			    session);
		free(state);
	}
	return r;
}

/*
 * The first line of text, as the pane shows it (terminal-safe, without
 * its blanks at either end), of at least AGENT_TMUX_PROBE_MIN bytes (a
 * shorter line could be anything), cut to fit probe.  1, or 0 when text
 * has no such line.
 */
static int
agent_tmux_probe(const char *text, char *probe, size_t probesz)
{
	char *safe = termsafe_dup(text), *line, *save = NULL;
	size_t n;
	int r = 0;

	for (line = strtok_r(safe, "\n", &save); line != NULL && !r;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		n = strlen(line);
		while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		if (n < AGENT_TMUX_PROBE_MIN)
			continue;
		n = utf8_prefix_len(line, n,
		    probesz - 1 < AGENT_TMUX_PROBE_MAX ? probesz - 1 :
							 AGENT_TMUX_PROBE_MAX);
		memcpy(probe, line, n);
		probe[n] = '\0';
		r = 1;
	}
	free(safe);
	return r;
}

/*
 * Whether the agent's hooks said it worked after at: a turn ended (the
 * Stop hook's idle marker) or a tool was used (the PostToolUse marker).
 * It waited at its prompt when the message was typed, so only the
 * message set it working.
 */
static int
agent_tmux_worked_since(const char *session, time_t at)
{
	char *paths[2] = {runfiles_idle_marker(session),
	    runfiles_phase_marker(session)};
	time_t mtime;
	int worked = 0, i;

	for (i = 0; i < 2; i++) {
		if (file_mtime(paths[i], &mtime) == 0 && mtime > at)
			worked = 1;
		free(paths[i]);
	}
	return worked;
}

/*
 * How often the pane (its last AGENT_TMUX_SEEN_LINES lines) shows the
 * first line of text (agent_tmux_probe()): 0 when text has none, -1
 * when the pane cannot be read.
 */
static long long
agent_tmux_count(const char *session, const char *text)
{
	char probe[AGENT_TMUX_PROBE_MAX + 1];
	const char *p;
	long long n = 0;
	struct buf pane;

	if (!agent_tmux_probe(text, probe, sizeof(probe)))
		return 0;
	buf_init(&pane, 0);
	if (tmux_capture(session, AGENT_TMUX_SEEN_LINES, &pane) == -1)
		n = -1;
	else
		for (p = buf_str(&pane); (p = strstr(p, probe)) != NULL;
		     p += strlen(probe))
			n++;
	buf_free(&pane);
	return n;
}

/* Before m is typed: how often the pane shows its first line already. */
static long long
agent_tmux_stamp(const char *session, const struct agent_msg *m)
{
	return agent_tmux_count(session, m->text);
}

/*
 * A message typed before and not confirmed: the session has it when its
 * pane shows the message's first line more often than before it was
 * typed (the agent's transcript echoes what it was given) or its hooks
 * say it worked since; it can take it when it waits at its input box;
 * else (busy, starting, or no pane) it cannot be told now.
 */
static int
agent_tmux_seen(const char *session, const struct agent_msg *m, time_t at,
    long long stamp)
{
	struct buf screen;
	long long n;
	int r = -1;

	buf_init(&screen, 0);
	if ((n = agent_tmux_count(session, m->text)) == -1 ||
	    tmux_capture(session, 0, &screen) == -1)
		goto out;
	if (n > (stamp > 0 ? stamp : 0) || agent_tmux_worked_since(session, at))
		r = 1;
	else if (screen_input_box(buf_str(&screen), agent_tmux_glyph))
		r = 0;
out:
	buf_free(&screen);
	return r;
}

/*
 * The agent waits for a message: no turn of its runs since the last
 * message was typed at since (its Stop hook's idle marker, when it has
 * one, is not older), and its pane shows the input box, no dialog.
 */
int
agent_tmux_at_prompt(const char *session, time_t since)
{
	char *idle = runfiles_idle_marker(session);
	struct buf screen;
	time_t mtime;
	int r = 0;

	buf_init(&screen, 0);
	if (since != 0 && file_mtime(idle, &mtime) == 0 && mtime < since)
		goto out;
	if (tmux_capture(session, 0, &screen) == -1 ||
	    screen_dialog(buf_str(&screen)) != SCREEN_NO_DIALOG)
		goto out;
	r = screen_input_box(buf_str(&screen), agent_tmux_glyph) ? 1 : 0;
out:
	buf_free(&screen);
	free(idle);
	return r;
}

/* The phase file is the signal; the session name is not needed. */
static int
agent_tmux_signal(const char *session, const char *path, struct phase_info *out)
{
	(void)session;
	return phase_read(path, out);
}
