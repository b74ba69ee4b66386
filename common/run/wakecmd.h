/*
 * The command line that wakes a tool (common/tick/wake.h), built in one
 * place for every waker: the session's wrapper, the webhook receiver and
 * a wake that starts its tick.
 *
 *   EXE --wake [--run-dir DIR] [-- PROJECT_TOML [REASON]]
 *   EXE --wake [--run-dir DIR] [-- REASON]        (a tool of no project)
 *
 * The operands follow "--", so no reason (and no project file) is ever
 * read as an option.  DIR is the run directory of the ticks to wake: the
 * wake takes the settings their scheduled ticks recorded there
 * (common/run/tickenv.h), never the waker's environment's.
 */
#ifndef WAKECMD_H
#define WAKECMD_H

/*
 * The argv of a wake of exe: run_dir (NULL: none given), project (the
 * project file; "" the environment's project of a tool that takes one,
 * and then no reason either; NULL a tool of no one project), reason
 * (NULL or "": none).  Free with strv_free().
 */
char **wakecmd_argv(const char *exe, const char *run_dir, const char *project,
    const char *reason);
/*
 * Start wakecmd_argv()'s command detached (its own session, stdin,
 * stdout and stderr on /dev/null, this process's environment) and return
 * without waiting for it.  0, or -1 with errno set (it could not be
 * started; EINVAL for no exe).
 */
int wakecmd_spawn(const char *exe, const char *run_dir, const char *project,
    const char *reason);

#endif
