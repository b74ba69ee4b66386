/*
 * The guard of an agent's shell commands, behind its PreToolUse hook on
 * Bash: what an agent working in its own worktree may not run.  A
 * command is refused when it
 * - force-pushes to the primary branch, force-pushes without naming a
 *   branch (its upstream may be the primary one), or deletes it;
 * - removes recursively anything outside the worktree (scratch space
 *   strictly below /tmp excepted);
 * - asks the forge API to merge a PR or close an issue or PR;
 * - asks it to review a PR (approve, request changes, submit a pending
 *   review, dismiss or delete one), set a commit status or change the
 *   branch protection, or does so through tea (reading is allowed);
 * - checks out or switches to the primary branch;
 * - touches a path under the factory's root (FACTORY_ROOT) that is not
 *   in the worktree or the run directory;
 * - signals processes (kill with a PID or signal, pkill, killall), or
 *   drives tmux or docker in ways that reach the orchestrator (killing
 *   or typing into sessions, stopping or removing containers).
 *
 * The text is split into simple commands and words as a shell would
 * (quotes, escapes, operators, redirections, here-documents, command
 * substitutions; `sh -c` and `eval` texts are checked in turn), and no
 * expansion is made but ~, $HOME and $FACTORY_ROOT.  A guard against an
 * agent's mistakes, not a sandbox against a determined one.
 */
#ifndef AGENT_GUARD_H
#define AGENT_GUARD_H

#include <stddef.h>

/* Where the agent works: absolute paths, NULL when unknown. */
struct agent_guard {
	const char *primary_branch;
	const char *worktree;
	const char *factory_root;
	const char *run_dir;
	const char *home; /* what ~ and $HOME mean */
	const char *cwd;  /* where the command runs; NULL: the worktree */
};

/*
 * Judge the shell command text.  Returns 0 when it may run, 1 when it is
 * refused, with the reason (one line, addressed to the agent) in why.
 */
int agent_guard_check(const struct agent_guard *, const char *command,
    char *why, size_t whysz);

#endif
