/*
 * The guard of an agent's commands, behind its PreToolUse hook: what an
 * agent working in its own worktree may not run.  A command is refused
 * when it
 * - force-pushes to the primary branch, force-pushes without naming a
 *   branch (its upstream may be the primary one) or to a branch it
 *   cannot tell, or deletes the primary branch;
 * - removes recursively anything outside the worktree (scratch space
 *   strictly below /tmp excepted), or what it cannot locate;
 * - makes a forge API call that is the orchestrator's, the review bot's,
 *   CI's or the operator's (guard_http.h: a merge, a close, a review, a
 *   commit status, the branch protection, a branch deletion, the
 *   orchestrator's labels, the repository's settings), through curl,
 *   wget, httpie, gh, tea or a python/node/perl/ruby program, judged by
 *   method, path and body in whatever order they come; a writing call
 *   whose method, URL or body it cannot tell is refused;
 * - checks out or switches to the primary branch;
 * - touches a path under the factory's root (FACTORY_ROOT) that is not
 *   in the worktree or the run directory;
 * - writes into the run directory what is not the session's own (its
 *   phase file, its summary or review output, its session directory):
 *   the tools and the agents share one user, so this is what keeps an
 *   agent from writing another session's phase or a review's verdict;
 * - signals processes (kill with a PID or signal, pkill, killall), or
 *   drives tmux or docker in ways that reach the orchestrator (killing
 *   or typing into sessions, stopping or removing containers);
 * - runs a command whose name it cannot tell.
 *
 * The text is read as a shell would read it (guard_shell.h): words,
 * quotes, escapes, operators, redirections, here-documents, subshells,
 * command substitutions; `sh -c`, `bash -c`, `eval`, `xargs`, `env`,
 * `command`, `exec`, `timeout`, `nice`, `sudo` and the like are looked
 * through.  In order: `cd` and `pushd` move where the commands after
 * them run (a subshell's or a pipeline's only within it), variables
 * take the values the text assigns them, and ~, $HOME, $PWD,
 * $FACTORY_ROOT, $FORGE_URL and $FORGE_API are known; any other value
 * (the environment's, a command's output, a loop's variable) is
 * unknown, and where an unknown could make the command one of the above
 * it is refused with the reason.
 *
 * Advice to a cooperating agent, not a boundary: no reader of command
 * text can tell what a program will do (a script the agent wrote, a
 * decoded pipeline), so its parser is not grown to chase such forms.
 * The boundary is the agent's confinement by the operating system and
 * the forge's own permissions (docs/SECURITY.md, "Least privilege").  What it
 * cannot read it refuses: a hook input over AGENT_GUARD_INPUT_MAX, not
 * JSON, naming no tool or one it does not know, or without the command
 * or path to judge.
 */
#ifndef AGENT_GUARD_H
#define AGENT_GUARD_H

#include <stddef.h>

/* The most of a PreToolUse hook's input the guard reads. */
#define AGENT_GUARD_INPUT_MAX (1024 * 1024)

/* Where the agent works: absolute paths, NULL when unknown. */
struct agent_guard {
	const char *primary_branch;
	const char *worktree;
	const char *factory_root;
	const char *run_dir;
	const char *home;      /* what ~ and $HOME mean */
	const char *cwd;       /* where the command runs; NULL: the worktree */
	const char *forge_url; /* $FORGE_URL, $FORGE_API; NULL: unknown */
	const char *forge_api;
	/*
	 * The session's own files in the run directory (a path ending in
	 * '/': a directory and what is in it), NULL-ended; NULL: writes
	 * into the run directory are not limited.
	 */
	const char *const *own;
};

/*
 * Judge the shell command text.  Returns 0 when it may run, 1 when it is
 * refused, with the reason (one line, addressed to the agent) in why.
 */
int agent_guard_check(const struct agent_guard *, const char *command,
    char *why, size_t whysz);
/*
 * Judge a write of the file at path (relative to the cwd) by the agent's
 * file tools (Write, Edit): refused (1, why set) in the factory's root
 * or in the run directory when not the session's own; else 0.
 */
int agent_guard_check_write(const struct agent_guard *, const char *path,
    char *why, size_t whysz);
/*
 * Judge a PreToolUse hook's input: the JSON object the agent CLI writes
 * (len bytes of text; whole is 0 when more was sent than read).  Bash's
 * tool_input.command goes to agent_guard_check(), the file tools'
 * (Write, Edit, MultiEdit, NotebookEdit) tool_input.file_path or
 * notebook_path to agent_guard_check_write(), from the input's cwd when
 * the guard's is NULL.  Input that cannot be read as such is refused.
 * Returns 0 or 1 (why set), as agent_guard_check().
 */
int agent_guard_hook(const struct agent_guard *, const char *input, size_t len,
    int whole, char *why, size_t whysz);

#endif
