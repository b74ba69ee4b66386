/*
 * The hooks of an agent session, in <workdir>/.claude/settings.json, and
 * the hook commands themselves: a mode of the executables, chosen by
 * their first argument before any configuration is read, that reads the
 * JSON the agent CLI passes on stdin (no shell tools, no jq):
 *
 *   EXE --hook stop MARKER                 Stop: the idle marker
 *   EXE --hook session-end MARKER          SessionEnd: the exited marker
 *                                          ("TIME REASON")
 *   EXE --hook phase-change PHASE MARKER   PostToolUse on Bash|Write: the
 *                                          phase-changed marker when the
 *                                          tool wrote the phase file
 *   EXE --hook stop-failure PHASE MARKER   StopFailure on an API error:
 *                                          "PHASE:failed" with "Reason:
 *                                          api_error: TYPE", unless the
 *                                          phase is done, merged or
 *                                          escalate; the marker
 *   EXE --hook pretooluse BRANCH WORKTREE FACTORY_ROOT RUN_DIR
 *       FORGE_URL FORGE_API OWN...         PreToolUse on Bash and the
 *                                          file tools (Write, Edit,
 *                                          MultiEdit, NotebookEdit): the
 *                                          guard (agent_guard.h), OWN
 *                                          the session's own files in
 *                                          the run directory; a refusal
 *                                          is exit 2 with the reason on
 *                                          stdout and stderr
 *
 *   EXE --hook compact-context FILE        SessionStart after the CLI
 *                                          compacted the conversation
 *                                          (matcher "compact"): FILE's
 *                                          text on stdout, which the CLI
 *                                          adds to the context (nothing
 *                                          when there is no FILE)
 *
 * The hooks run inside the agent's sandbox (sandbox.h) and only write
 * their marks into the session directory; the session's wrapper, outside
 * it, wakes the tool when one appears (agent_exec.h,
 * agent_hooks_wake()).  A trailing "--wake PROJECT_TOML SESSION" that an
 * earlier version installed is ignored.
 *
 * Every hook but a refusal exits 0: a hook that fails must not stop the
 * agent.
 */
#ifndef AGENT_HOOKS_H
#define AGENT_HOOKS_H

#include <stddef.h>
#include <stdio.h>

struct act;

/* The first argument that selects a hook. */
#define AGENT_HOOKS_MODE "--hook"

/* A session's hooks; absolute paths. */
struct agent_hooks {
	const char *session;
	const char *workdir;
	const char *phase_file; /* NULL: no phase hooks */
	const char *primary_branch;
	const char *factory_root;
	const char *run_dir;
	/* The forge's URLs, for the guard ($FORGE_URL, $FORGE_API). */
	const char *forge_url;
	const char *forge_api;
	/* The session's own file besides its phase: a summary, an output. */
	const char *own_file;
	/*
	 * What the agent is given again after a compaction (its launch
	 * prompt, RUNFILES_SESSION_CONTEXT), or NULL: no such hook.
	 */
	const char *context_file;
	/*
	 * Wake the tool that installs the hooks when the agent stops, ends,
	 * fails or writes its phase: 1 yes, with the project file it was
	 * given (NULL: the environment's project).
	 */
	int wake;
	const char *project_toml;
};

/*
 * Install the session's hooks into workdir's settings (merged into the
 * file there; a hook already there is not added twice) and remove the
 * markers a previous session of the name left.  Every path in a hook is
 * single-quoted, and one that cannot be is refused.  0, or -1 (logged).
 */
int agent_hooks_install(struct act *, const struct agent_hooks *);
/*
 * Wake the tool of this executable for project ("": the environment's)
 * after the hook name of session, with the run directory of the tick
 * that started the session (wakecmd.h: `EXE --wake --run-dir RUN_DIR --
 * PROJECT_TOML "NAME hook SESSION"`, detached); nothing waits for it, and
 * a failure is only lost (the schedule's next tick acts).
 */
void agent_hooks_wake(const char *name, const char *project,
    const char *session, const char *run_dir);
/*
 * Run a hook: argv[0] is AGENT_HOOKS_MODE, argv[1] the hook's name, the
 * input on stdin.  Returns the exit status: 2 when the command is
 * refused (the reason written to out, for the agent, and put in msg), 1
 * for an unknown hook (why in msg), else 0.
 */
int agent_hooks_main(int argc, char *argv[], FILE *out, char *msg,
    size_t msgsz);

#endif
