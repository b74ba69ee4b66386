/*
 * The agent seam, with its default backend: tmux sessions signalling
 * through phase files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "log.h"
#include "phase.h"
#include "screen.h"
#include "tmux.h"

static int tmux_start(const struct agent_spec *, char *, size_t);
static void dialog_report(const struct agent_spec *, const char *, char *,
    size_t);
static int tmux_alive(const char *);
static int phase_signal(const char *, struct agent_signal *);

static const struct agent_backend tmux_backend = {
    .start = tmux_start,
    .inject = tmux_inject,
    .alive = tmux_alive,
    .read_signal = phase_signal,
    .kill = tmux_kill_session,
    .list = tmux_list_sessions,
    .activity = tmux_session_activity,
};

static const struct agent_backend *backend = &tmux_backend;

void
agent_set_backend(const struct agent_backend *b)
{
	backend = b != NULL ? b : &tmux_backend;
}

static int
tmux_start(const struct agent_spec *s, char *err, size_t errsz)
{
	struct buf screen;
	int r;

	if (tmux_new_session(s->session, s->workdir, s->argv, s->env) == -1) {
		snprintf(err, errsz, "cannot start tmux session '%s'",
		    s->session);
		return -1;
	}
	buf_init(&screen, 0);
	r = tmux_wait_ready(s->session, s->ready_pattern, s->ready_marker,
	    s->ready_timeout_s, &screen);
	if (r == 0) {
		buf_free(&screen);
		return 0;
	}
	if (r == TMUX_DIALOG)
		dialog_report(s, buf_str(&screen), err, errsz);
	else
		snprintf(err, errsz, "session '%s' %s", s->session,
		    r == TMUX_NOT_READY ? "never showed its input box" :
					  "exited before it was ready");
	buf_free(&screen);
	(void)tmux_kill_session(s->session);
	return -1;
}

/*
 * The agent waits in a dialog for a person: log what it shows (one line,
 * made printable by the log) and put what the operator must accept once
 * by hand into err.
 */
static void
dialog_report(const struct agent_spec *s, const char *screen, char *err,
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

static int
tmux_alive(const char *session)
{
	return tmux_has_session(session);
}

static int
phase_signal(const char *path, struct agent_signal *out)
{
	struct phase_info pi;

	memset(out, 0, sizeof(*out));
	if (phase_read(path, &pi) == -1)
		return -1;
	out->phase = pi.phase;
	memcpy(out->raw, pi.raw, sizeof(out->raw));
	memcpy(out->reason, pi.reason, sizeof(out->reason));
	out->since = pi.mtime;
	return 0;
}

int
agent_start(const struct agent_spec *s, char *err, size_t errsz)
{
	return backend->start(s, err, errsz);
}

int
agent_inject(const char *session, const char *text)
{
	return backend->inject(session, text);
}

int
agent_alive(const char *session)
{
	return backend->alive(session);
}

int
agent_read_signal(const char *path, struct agent_signal *out)
{
	return backend->read_signal(path, out);
}

int
agent_kill(const char *session)
{
	return backend->kill(session);
}

int
agent_list(const char *prefix, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	if (backend->list == NULL)
		return -1;
	return backend->list(prefix, names, n);
}

void
agent_list_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int
agent_activity(const char *session, time_t *when)
{
	if (backend->activity == NULL)
		return -1;
	return backend->activity(session, when);
}
