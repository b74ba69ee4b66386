/*
 * The three tools as one of them sees the others (DESIGN section 13):
 * where each one's executable is, and a wake of one for a project.  The
 * webhook receiver wakes the tools an event concerns through it, and a
 * tick wakes the tool that reacts to what it learnt (a PR ready for
 * review, a verdict, an escalation, a kept reply), or itself once more
 * (a merge: the clean-up and the next launch in the merging tick).
 */
#ifndef TOOLS_H
#define TOOLS_H

struct act;
struct config;

/*
 * Where tool ("dev-poll", "review-poll", "supervisor-poll") is: around
 * the executable as it was called (exe, argv[0], may be NULL: its
 * directory may hold the tools as the operator laid them out), then
 * around the running executable's own path (beside it, in its build
 * tree, beside the tool's script in the factory above it, or that
 * script), then beside the tool's script in cfg's factory
 * (FACTORY_ROOT), or that script; else its bare name, found on PATH.
 * Caller frees.
 */
char *tools_path(const char *exe, const struct config *cfg, const char *tool);
/*
 * Start `TOOL --wake [PROJECT_TOML] REASON` for cfg's project, detached
 * (wakecmd_spawn(); a tool of every project is woken without the project
 * file), found by tools_path(exe, ...).  0, or -1 with errno set; *prog
 * (may be NULL) the executable tried, which the caller frees.
 */
int tools_wake(const char *exe, const struct config *cfg, const char *tool,
    const char *reason, char **prog);
/*
 * A tick's wake of another tool for cfg's project, logged: nothing with
 * DISINTO_WAKE=false (cfg->wake) or in a dry run (a said). 0, or -1
 * when it could not be started (logged: the tool's next scheduled tick
 * still sees what it was woken for).
 */
int tools_wake_other(struct act *a, const struct config *cfg, const char *tool,
    const char *reason);
/*
 * The running tick of tool prog (its tick lock held) runs its steps once
 * more before it exits: a wake noted for itself (wake_note()), with
 * nothing started.  Nothing with DISINTO_WAKE=false or in a dry run.
 * 0, or -1 (logged).
 */
int tools_wake_self(struct act *a, const struct config *cfg, const char *prog,
    const char *reason);

#endif
