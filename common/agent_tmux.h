/*
 * The tmux transport of the default backend, shared with the backends
 * that run their agents the same way (agent_markers.c).
 */
#ifndef AGENT_TMUX_H
#define AGENT_TMUX_H

#include <stddef.h>

struct agent_spec;

/*
 * Start the session under its wrapper (the agent's variables, the state
 * file state, the Claude session lock, which the caller reserved with
 * agent_lock_reserve()) and wait until the wrapper holds the lock.  0,
 * or -1 with err set (a session that started is killed again).  The
 * variables file is named in *envfile: the caller removes it and frees
 * the name.
 */
int agent_tmux_launch(const struct agent_spec *, const char *state,
    char **envfile, char *err, size_t errsz);
/*
 * Kill the session and let its wrapper end (the lock free, the state
 * file gone).  One already gone counts as killed.  0 or -1.
 */
int agent_tmux_kill(const char *session);
/*
 * Make the session hold the Claude session lock again before text is
 * typed into it: 0 when it does, 1 when the lock stayed busy (logged),
 * -1 on error.
 */
int agent_tmux_relock(const char *session);

#endif
