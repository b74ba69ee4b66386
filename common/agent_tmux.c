/*
 * The default agent backend, protocol "phase": the agent runs in a tmux
 * session, is ready when its pane shows the prompt glyph (or a ready
 * marker appears), takes text as a paste, and signals through the phase
 * file it was told to write (seeds/000-002).
 */
#include <stdio.h>

#include "agent.h"
#include "phase.h"
#include "tmux.h"

static int agent_tmux_init(const struct agent_conf *);
static int agent_tmux_start(const struct agent_spec *, char *, size_t);
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
	int r;

	if (tmux_new_session(s->session, s->workdir, s->argv, s->env) == -1) {
		snprintf(err, errsz, "cannot start tmux session '%s'",
		    s->session);
		return -1;
	}
	r = tmux_wait_ready(s->session, s->ready_pattern, s->ready_marker,
	    s->ready_timeout_s);
	if (r == 0)
		return 0;
	snprintf(err, errsz, "session '%s' %s", s->session,
	    r == 1 ? "never showed the ready prompt" :
		     "exited before it was ready");
	(void)tmux_kill_session(s->session);
	return -1;
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
