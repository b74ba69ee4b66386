/*
 * tmux, driven only through spawn_run() with argv arrays: sessions are
 * named, never interpreted, and literal text reaches a pane through a
 * paste buffer, never as a command string.  Every call carries -L when a
 * socket is set.  Functions taking a session name refuse an invalid one
 * with -1 (errno EINVAL).
 */
#ifndef TMUX_H
#define TMUX_H

#include <sys/types.h>

#include <time.h>

struct buf;

/* Use the server on socket name (-L); NULL: the default server. */
void tmux_set_socket(const char *name);
/* Directory for the private temporary files of tmux_inject(). */
void tmux_set_tmpdir(const char *dir);
/*
 * "K=V" entries (NULL-ended; NULL: none; copied) that tmux_new_session()
 * adds to the environment of the tmux client it runs: a server that
 * client starts takes them as its global environment, through the
 * process environment, never a command line.
 */
void tmux_set_server_env(char *const *env);
/*
 * Start the tmux server with the environment of tmux_set_server_env()
 * (its global environment, through the client's process environment)
 * and "exit-empty off", so it stays up with no session.  A server that
 * runs already keeps its environment; only the option is set there.
 * Returns 0, or -1 with the client's output in err (may be NULL).
 */
int tmux_start_server(struct buf *err);

/* 1 if name is a usable session name ([A-Za-z0-9._-]+), else 0. */
int tmux_valid_name(const char *name);

/* 1 if the session exists, 0 if not (or no server runs), -1 on error. */
int tmux_has_session(const char *name);

/*
 * Names of the sessions starting with prefix ("" or NULL: all) into
 * *names, *n of them.  No server running means zero sessions.  Free with
 * tmux_list_free().  Returns 0 or -1.
 */
int tmux_list_sessions(const char *prefix, char ***names, size_t *n);
void tmux_list_free(char **names, size_t n);

/*
 * Start a detached 200x50 session name in cwd running argv (executed
 * without a shell), with env ("K=V", NULL-ended, may be NULL) added to
 * its environment.  Returns 0 or -1.
 */
int tmux_new_session(const char *name, const char *cwd, char *const argv[],
    const char *const *env);

/* Kill the session; one that does not exist counts as killed.  0 or -1. */
int tmux_kill_session(const char *name);

/*
 * Append the last lines lines of the pane's text (history included,
 * lines the terminal wrapped joined again; lines <= 0: the visible
 * screen as it shows) to out.  Returns 0 or -1.
 */
int tmux_capture(const char *name, int lines, struct buf *out);

/* The session's last activity time into *when.  Returns 0 or -1. */
int tmux_session_activity(const char *name, time_t *when);

/* The process ID of the session's pane into *pid.  Returns 0 or -1. */
int tmux_pane_pid(const char *name, pid_t *pid);

/*
 * Type text into the session's pane as one paste, made terminal-safe
 * first (termsafe_text(): no escape or control character but LF and TAB,
 * CR and CRLF as LF, valid UTF-8), then press Enter, the only key ever
 * sent, and check the pane changed; Enter is re-sent twice at most.
 * Returns 0 when delivered, 1 when the pane never changed (retry on a
 * later tick), -1 on error.
 */
int tmux_inject(const char *name, const char *text);

/*
 * Type text into the session's pane as one paste, made terminal-safe as
 * above, then press Enter once, without looking at the pane: for agents
 * that confirm what they received by other means (agent_markers.c).
 * Returns 0, or -1 on error.
 */
int tmux_type(const char *name, const char *text);

/* What tmux_wait_ready() found, besides 0 (ready) and -1. */
#define TMUX_NOT_READY 1
#define TMUX_DIALOG 2

/*
 * Wait up to timeout_s seconds until the agent is ready for a prompt: the
 * pane shows its input box with pattern as the prompt glyph
 * (screen_input_box(); NULL pattern: never), or the regular file
 * marker_path (NULL: none) exists.  A dialog of the agent CLI
 * (screen_dialog()) ends the wait at once: it waits for a person.
 * Returns 0 when ready, TMUX_NOT_READY on timeout, TMUX_DIALOG with the
 * screen appended to screen (when not NULL), -1 on error or when the
 * session went away; for these two the last screen it showed is
 * appended.
 */
int tmux_wait_ready(const char *name, const char *pattern,
    const char *marker_path, int timeout_s, struct buf *screen);

#endif
