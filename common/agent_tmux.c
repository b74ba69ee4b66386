/*
 * The default agent backend, protocol "phase": the agent runs in a tmux
 * session, is ready when its pane shows the prompt glyph (or a ready
 * marker appears), takes text as a paste, and signals through the phase
 * file it was told to write (seeds/000-002).
 */
#include <stdio.h>
#include <stdlib.h>

#include "agent.h"
#include "buf.h"
#include "log.h"
#include "phase.h"
#include "screen.h"
#include "tmux.h"

static int agent_tmux_init(const struct agent_conf *);
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
    .kill = tmux_kill_session,
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

static int
agent_tmux_start(const struct agent_spec *s, char *err, size_t errsz)
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
		agent_tmux_dialog(s, buf_str(&screen), err, errsz);
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

static enum agent_delivery
agent_tmux_inject(const char *session, const char *text)
{
	switch (tmux_inject(session, text)) {
	case 0:
		return AGENT_DELIVERED;
	case 1:
		return AGENT_NOT_DELIVERED;
	default:
		return AGENT_INJECT_ERROR;
	}
}

/* The phase file is the signal; the session name is not needed. */
static int
agent_tmux_signal(const char *session, const char *path, struct phase_info *out)
{
	(void)session;
	return phase_read(path, out);
}
