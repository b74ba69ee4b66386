/*
 * Ticks turned away by the Claude session lock, and their wake
 * (lockwait.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_exec.h"
#include "agent_lock.h"
#include "buf.h"
#include "file.h"
#include "lockwait.h"
#include "log.h"
#include "runfiles.h"
#include "strv.h"
#include "tick.h"
#include "wakecmd.h"
#include "xmalloc.h"

/* A waiter file is read up to this size. */
#define LOCKWAIT_FILE_MAX (2 * PATH_MAX + 2)
/* The reason a waiter is woken with. */
#define LOCKWAIT_REASON "Claude session lock let go"

static void lockwait_note(const struct tick *, const char *);
static void lockwait_wake_one(const char *, const char *);

/* Record tick t as a waiter at path: its executable and project file. */
static void
lockwait_note(const struct tick *t, const char *path)
{
	char exe[PATH_MAX], *project, *text;

	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		log_warn("cannot tell the running executable: the tick the "
			 "Claude session lock turned away is not woken");
		return;
	}
	project = agent_exec_wake_project(t->cfg.project_toml);
	text = xasprintf("%s\n%s\n", exe, project);
	if (file_write_atomic(path, text, strlen(text), 0600, 0) == -1)
		log_warn("cannot write '%s': %s", path, strerror(errno));
	else
		log_msg("the Claude session lock turned this tick away: woken "
			"when it is let go");
	free(text);
	free(project);
}

/*
 * Wake the waiter of the file at path, once: the file goes first, then
 * its tool is started with --wake.  One whose file cannot be read, or
 * names no absolute executable, is only removed.
 */
/* run_dir: the waiters' run directory (this tick's), for the wake. */
static void
lockwait_wake_one(const char *path, const char *run_dir)
{
	char *exe = NULL, *project = NULL, *nl;
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, LOCKWAIT_FILE_MAX, &b) == 0 &&
	    (nl = strchr(buf_str(&b), '\n')) != NULL) {
		exe = xstrndup(buf_str(&b), (size_t)(nl - buf_str(&b)));
		project = xstrndup(nl + 1, strcspn(nl + 1, "\n"));
	}
	if (file_remove(path) == -1 && errno != ENOENT)
		log_warn("cannot remove '%s': %s", path, strerror(errno));
	else if (exe == NULL || exe[0] != '/')
		log_warn("'%s' names no executable: removed", path);
	else if (wakecmd_spawn(exe, run_dir, *project != '\0' ? project : NULL,
		     LOCKWAIT_REASON) == -1)
		log_warn("cannot wake '%s': %s", exe, strerror(errno));
	else
		log_msg("the Claude session lock is free: woke %s%s%s", exe,
		    *project != '\0' ? " " : "", project);
	free(project);
	free(exe);
	buf_free(&b);
}

void
lockwait_tick_end(const struct tick *t)
{
	char *own, **waiters;
	size_t i;

	if (!t->cfg.wake || t->cli.dry_run || agent_lock_path() == NULL)
		return;
	own = runfiles_lock_waiter(t->tool->cli.prog,
	    t->tool->cli.takes_project ? t->cfg.project_name : NULL);
	/* A person's one-shot is told, not woken. */
	if (agent_lock_turned_away() && !tick_oneshot(t))
		lockwait_note(t, own);
	else if (file_exists(own))
		(void)file_remove(own);
	free(own);
	if ((waiters = runfiles_lock_waiters()) == NULL) {
		log_warn("cannot list the ticks waiting for the Claude session "
			 "lock");
		return;
	}
	if (waiters[0] != NULL && agent_lock_free() == 1)
		for (i = 0; waiters[i] != NULL; i++)
			lockwait_wake_one(waiters[i], t->cfg.run_dir);
	strv_free(waiters);
}
