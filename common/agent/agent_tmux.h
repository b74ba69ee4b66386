/*
 * The tmux transport of the default backend, shared with the backends
 * that run their agents the same way (agent_markers.c).
 */
#ifndef AGENT_TMUX_H
#define AGENT_TMUX_H

#include <stddef.h>
#include <time.h>

struct agent_conf;
struct agent_spec;

/*
 * Configure the tmux transport from conf (the server, the run dir, the
 * prompt glyph), and remember what a session's wrapper is told so that
 * it delivers the session's mailbox the same way.
 */
void agent_tmux_configure(const struct agent_conf *conf);

/*
 * Whether the agent of a session that started is ready (state: the
 * session's lock state file): 0, or -1 with err set.
 */
typedef int agent_tmux_ready_fn(const struct agent_spec *, const char *state,
    char *err, size_t errsz);
/*
 * Reserve the Claude session lock, start the session under its wrapper
 * (the agent's variables, the state file, the lock handed over), then
 * ask ready(): 0, or -1 with err set (a session that started is killed,
 * its wrapper let end).  The agent's variables file is gone by then.
 */
int agent_tmux_start_with(const struct agent_spec *, agent_tmux_ready_fn *ready,
    char *err, size_t errsz);
/*
 * Wait until the agent of a session that started shows its input box
 * (agent_spec.ready_pattern): 0, or -1 with err set (a dialog named with
 * what to accept by hand, a timeout, an agent that exited).
 */
int agent_tmux_wait_box(const struct agent_spec *, const char *state, char *err,
    size_t errsz);
/*
 * Look at the session's screen before typing into it: 1 when it shows
 * the input box, 0 when not (busy, or still drawing), -1 with err set
 * when it shows a dialog (named, with what to accept by hand) or the
 * session is gone.
 */
int agent_tmux_screen_check(const struct agent_spec *, char *err, size_t errsz);
/*
 * Kill the session and let its wrapper end (the lock free, the state
 * file gone).  One already gone counts as killed.  0 or -1.
 */
int agent_tmux_kill(const char *session);
/*
 * Make the session hold the Claude session lock again before text is
 * typed into it: 0 when it does, 1 when another agent holds the lock
 * (its wrapper is asked, not waited for: the text goes to the mailbox),
 * -1 on error.
 */
int agent_tmux_relock(const char *session);
/*
 * Whether the agent waits at its prompt, the last message having been
 * typed at since (agent_backend.at_prompt): 1 or 0.
 */
int agent_tmux_at_prompt(const char *session, time_t since);

#endif
