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

#include "agent.h"
#include "agent_exec.h"
#include "agent_lock.h"
#include "agent_tmux.h"
#include "buf.h"
#include "file.h"
#include "log.h"
#include "phase.h"
#include "runfiles.h"
#include "screen.h"
#include "strv.h"
#include "tmux.h"

static int agent_tmux_init(const struct agent_conf *);
static int agent_tmux_wrap(const struct agent_spec *, const char *,
    const char *, char ***, char **, char *, size_t);
static int agent_tmux_launch(const struct agent_spec *, const char *, char **,
    char *, size_t);
static int agent_tmux_ready(const struct agent_spec *, const char *, char *,
    size_t);
static int agent_tmux_start(const struct agent_spec *, char *, size_t);
static void agent_tmux_dialog(const struct agent_spec *, const char *, char *,
    size_t);
static enum agent_delivery agent_tmux_inject(const char *, const char *);
static int agent_tmux_signal(const char *, const char *, struct phase_info *);

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
};

/* The tmux server, and the run dir for the private paste files. */
static int
agent_tmux_init(const struct agent_conf *conf)
{
	tmux_set_socket(conf->tmux_socket);
	tmux_set_tmpdir(conf->state_dir);
	return 0;
}

/*
 * The command tmux runs: the wrapper, with the agent's variables in a
 * private file (*envfile, which the caller removes when the wrapper did
 * not), the state file and, when one is configured, the lock.  0, or -1
 * with err set.
 */
static int
agent_tmux_wrap(const struct agent_spec *s, const char *state,
    const char *request, char ***argv, char **envfile, char *err, size_t errsz)
{
	struct agent_exec x = {0};
	char exe[PATH_MAX], *tmpl;
	int r;

	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		snprintf(err, errsz, "cannot tell the running executable");
		return -1;
	}
	if (s->env != NULL) {
		tmpl = runfiles_agent_env(s->session);
		r = agent_exec_env_write(tmpl, s->env, envfile);
		free(tmpl);
		if (r == -1) {
			snprintf(err, errsz,
			    "cannot write the variables of session '%s': %s",
			    s->session, strerror(errno));
			return -1;
		}
		x.env_file = *envfile;
	}
	x.state = state;
	if ((x.lock = agent_lock_path()) != NULL) {
		x.wait_s = agent_lock_wait();
		x.request = request;
		x.watch = s->signal_path;
	}
	*argv = agent_exec_argv(exe, &x, s->argv);
	return 0;
}

/*
 * Start the session under its wrapper (the agent's variables, the state
 * file state, the Claude session lock this tick reserved, handed over)
 * and wait until the wrapper holds the lock.  0, or -1 with err set (a
 * session that started is killed again).  The variables file is named in
 * *envfile: the caller removes it and frees the name.
 */
static int
agent_tmux_launch(const struct agent_spec *s, const char *state, char **envfile,
    char *err, size_t errsz)
{
	char *request = runfiles_lock_request(s->session), why[512];
	char **argv = NULL;
	int r = -1;

	(void)file_remove(state);
	(void)file_remove(request);
	if (agent_tmux_wrap(s, state, request, &argv, envfile, err, errsz) ==
	    -1)
		goto out;
	if (tmux_new_session(s->session, s->workdir, argv, NULL) == -1) {
		snprintf(err, errsz, "cannot start tmux session '%s'",
		    s->session);
		goto out;
	}
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
	strv_free(argv);
	free(request);
	return r;
}

/*
 * Wait until the agent shows its input box.  0, or -1 with err set (with
 * the wrapper's words when it could not start the agent).
 */
static int
agent_tmux_ready(const struct agent_spec *s, const char *state, char *err,
    size_t errsz)
{
	struct buf screen;
	char why[512];
	int r;

	buf_init(&screen, 0);
	r = tmux_wait_ready(s->session, s->ready_pattern, s->ready_marker,
	    s->ready_timeout_s, &screen);
	if (r == TMUX_DIALOG)
		agent_tmux_dialog(s, buf_str(&screen), err, errsz);
	else if (r != 0 && agent_lock_state_why(state, why, sizeof(why)))
		snprintf(err, errsz, "session '%s' did not start: %s",
		    s->session, why);
	else if (r != 0)
		snprintf(err, errsz, "session '%s' %s", s->session,
		    r == TMUX_NOT_READY ? "never showed its input box" :
					  "exited before it was ready");
	buf_free(&screen);
	return r == 0 ? 0 : -1;
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
	screen_dialog_advice(d, s->workdir, advice, sizeof(advice));
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
	if (r == 1)
		log_msg("the Claude session lock '%s' stayed busy for %d s — "
			"not typing into %s this tick",
		    agent_lock_path(), agent_lock_wait(), session);
	return r;
}

/* The session holds the lock again first (agent_lock.h). */
static enum agent_delivery
agent_tmux_inject(const char *session, const char *text)
{
	int r = agent_tmux_relock(session);

	if (r == 1)
		return AGENT_NOT_DELIVERED;
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

/* The phase file is the signal; the session name is not needed. */
static int
agent_tmux_signal(const char *session, const char *path, struct phase_info *out)
{
	(void)session;
	return phase_read(path, out);
}
