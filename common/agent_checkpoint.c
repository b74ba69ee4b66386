/*
 * The agent backend of protocol "checkpoint" (seeds/003): each prompt is
 * one run of the agent, `-p PROMPT --output-format json`, resumed by the
 * agent's session id, which ends by writing a JSON checkpoint
 * (checkpoint.h); between runs no agent process exists.
 */
#include <stddef.h>

#include "agent.h"
#include "valid.h"

static int agent_checkpoint_init(const struct agent_conf *);
static int agent_checkpoint_start(const struct agent_spec *, char *, size_t);
static enum agent_delivery agent_checkpoint_inject(const char *, const char *);
static int agent_checkpoint_alive(const char *);
static int agent_checkpoint_signal(const char *, const char *,
    struct phase_info *);
static int agent_checkpoint_kill(const char *);
static int agent_checkpoint_valid_name(const char *);

const struct agent_backend agent_checkpoint_backend = {
    .protocol = AGENT_PROTOCOL_CHECKPOINT,
    .init = agent_checkpoint_init,
    .start = agent_checkpoint_start,
    .inject = agent_checkpoint_inject,
    .alive = agent_checkpoint_alive,
    .read_signal = agent_checkpoint_signal,
    .kill = agent_checkpoint_kill,
    .valid_name = agent_checkpoint_valid_name,
};

static int
agent_checkpoint_init(const struct agent_conf *conf)
{
	(void)conf;
	return 0;
}

static int
agent_checkpoint_start(const struct agent_spec *s, char *err, size_t errsz)
{
	(void)s;
	(void)err;
	(void)errsz;
	return -1;
}

static enum agent_delivery
agent_checkpoint_inject(const char *session, const char *text)
{
	(void)session;
	(void)text;
	return AGENT_INJECT_ERROR;
}

static int
agent_checkpoint_alive(const char *session)
{
	(void)session;
	return -1;
}

static int
agent_checkpoint_signal(const char *session, const char *path,
    struct phase_info *out)
{
	(void)session;
	(void)path;
	(void)out;
	return -1;
}

static int
agent_checkpoint_kill(const char *session)
{
	(void)session;
	return -1;
}

static int
agent_checkpoint_valid_name(const char *name)
{
	return valid_name(name) == NULL;
}
