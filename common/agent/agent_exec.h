/*
 * The wrapper an agent runs under: a mode of the executables themselves,
 * chosen by their first argument before any configuration is read:
 *
 *   EXE --agent-exec [--env FILE] [--state FILE] [--lock PATH
 *       --wait SECONDS --request FILE [--watch PHASE_FILE]
 *       [--handover SOCKET] [--session NAME --run-dir DIR
 *       [--protocol NAME] [--socket NAME] [--glyph TEXT]
 *       [--crash POINTS] [--log FILE] [--ack SECONDS]]] [--wake PROJECT_TOML
 *       [--idle SECONDS]] -- COMMAND...
 *
 * FILE holds the variables the agent gets (agent_exec_env_write(): a
 * private file, never a command line, where any local user could read
 * the tokens); the wrapper reads and removes it, drops the inherited
 * variables an agent may not have (agent_exec_inherits()) and runs
 * COMMAND with the file's added to its environment, found on the PATH
 * they give; why it
 * could not is written to the state file (agent_lock.h).  Without
 * --lock it becomes COMMAND (exec).  With --lock it holds the factory's
 * Claude session lock for the session (agent_lock.h): it takes it before
 * the agent starts (busy after SECONDS: the agent never starts), runs
 * COMMAND as its child in the same process group (the terminal's), gives
 * the lock up and takes it again as the phase file and the ticks' requests
 * say, passes SIGHUP and SIGTERM on, and exits with the agent's status.
 * With --handover it first takes the lock from the tick that started the
 * session, over SOCKET (agent_lock.h), before it waits for it itself.
 * With --session it delivers the session's mailbox (mailbox.h, in the
 * run directory DIR): while messages are queued (a stat of the file each
 * look) it takes the lock when it is free, and a short-lived child of
 * it types the oldest one when the agent waits at its prompt
 * (agent_mailbox_deliver(): the backend NAME on the tmux server of
 * socket NAME, the prompt glyph TEXT), one at a time, in order; a child
 * that dies mid-way is settled by the next one looking at the session.
 * What it did goes to the log FILE (the tool's that started it); POINTS
 * are the test-only crash points of that child (crashpoint.h); SECONDS
 * of --ack the markers protocol's ack wait, as the tools' setting says.
 *
 * With --wake PROJECT_TOML (and --session, --run-dir) it supervises the
 * agent (without --lock too) and watches the marks the agent's hooks
 * write in its session directory (runfiles.h: idle, exited,
 * phase-changed, API error): a new one wakes the tool that started it
 * (agent_hooks_wake(), from outside the agent's sandbox, with the
 * project file it was given, "" the environment's, and the run
 * directory DIR, whose recorded settings the woken tick takes).  With --idle
 * SECONDS too, a stop mark (the agent's turn ended) arranges one more
 * wake SECONDS after it, when neither the stop nor the phase-change mark
 * was written again meanwhile: the tick that reacts to an idle session
 * runs when its grace is over, not at the next scheduled tick.
 */
#ifndef AGENT_EXEC_H
#define AGENT_EXEC_H

#include <stddef.h>

/* The first argument that selects the wrapper. */
#define AGENT_EXEC_MODE "--agent-exec"
/* The wrapper's exit status when the lock stayed busy (EX_TEMPFAIL). */
#define AGENT_EXEC_BUSY 75

/* What a wrapper is told; NULL members are left out. */
struct agent_exec {
	const char *env_file;
	const char *lock;
	int wait_s;
	const char *state;
	const char *request;
	const char *watch;
	const char *handover;
	/* The mailbox (with lock). */
	const char *session;
	const char *run_dir;
	const char *protocol;
	const char *socket;
	const char *glyph;
	const char *crash;
	const char *log;
	const char
	    *ack; /* the markers protocol's ack wait (seconds), or NULL */
	/* Wake the tool on the agent's marks: its project file ("": none). */
	const char *wake;
	/*
	 * With wake: the idle grace, in seconds ("0": none), after which
	 * an agent still idle since its stop mark wakes the tool again.
	 */
	const char *idle;
};

/*
 * 1 when an agent may keep a variable called name that it inherits (from
 * the tmux server, or from the tick that starts a one-shot run): any
 * whose name does not say it holds a secret (redact_secret_name()), and
 * the agent CLI's own settings (ANTHROPIC_*, CLAUDE_*) whatever their
 * names.  Anything else (another role's token, the CI token, a password)
 * is dropped before the agent starts; the variables it is given
 * (config_agent_env(), the file above) come on top.
 */
int agent_exec_inherits(const char *name);
/*
 * The absolute path of the running executable (the one that serves
 * --agent-exec and --hook) into buf.  0, or -1 when it cannot be told.
 */
int agent_exec_self(char *buf, size_t bufsz);
/*
 * Write env ("K=V", NULL-ended) to a new file made from template (its
 * last six characters "XXXXXX"), readable by this user only; its name
 * into *path (the caller frees it, and removes the file when no wrapper
 * will).  0, or -1 with errno set.
 */
int agent_exec_env_write(const char *template_path, const char *const *env,
    char **path);
/*
 * The project file a wrapper wakes the tool with: absolute (the agent
 * runs in its worktree), "" for NULL (the environment's project).
 * Caller frees.
 */
char *agent_exec_wake_project(const char *project);
/*
 * The wrapper's command line: exe AGENT_EXEC_MODE, the options of x,
 * "--", then cmd.  Free with strv_free().
 */
char **agent_exec_argv(const char *exe, const struct agent_exec *x,
    char *const *cmd);
/*
 * Run as the wrapper: argv[0] is AGENT_EXEC_MODE.  Returns an exit
 * status: the agent's (128 + the signal when one ended it), 127 when it
 * could not be run, AGENT_EXEC_BUSY, 1 on another failure or 2 for a bad
 * command line, with what went wrong in err.  Without --lock it does not
 * return once COMMAND runs.
 */
int agent_exec_main(int argc, char *argv[], char *err, size_t errsz);

#endif
