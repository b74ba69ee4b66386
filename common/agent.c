/*
 * The agent seam: the table of backends, the one in use, and the calls
 * that go to it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "agent_lock.h"

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

int
agent_start(const struct agent_spec *s, char *err, size_t errsz)
{
	int r = agent_cur->start(s, err, errsz);

	/* Handed over, or not needed any more. */
	agent_lock_unreserve();
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
	return agent_cur->kill(session);
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
