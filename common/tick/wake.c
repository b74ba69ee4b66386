/*
 * Ticks started by events (wake.h has the protocol).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_exec.h"
#include "buf.h"
#include "cli.h"
#include "file.h"
#include "lock.h"
#include "log.h"
#include "runfiles.h"
#include "spawn.h"
#include "tick.h"
#include "wake.h"
#include "xmalloc.h"

/* A wake file is read up to this size. */
#define WAKE_FILE_MAX 512
/* wake_hold() waits at most this long (seconds), in steps of 50 ms. */
#define WAKE_HOLD_S 120

static void wake_clean(const char *, char *, size_t);
static char *wake_path(const struct tick *);
static int wake_start_tick(const struct tick *);

/* A reason for a file and a log: printable ASCII, bounded. */
static void
wake_clean(const char *s, char *out, size_t outsz)
{
	size_t n = 0;

	for (; s != NULL && *s != '\0' && n + 1 < outsz && n < WAKE_REASON_MAX;
	     s++)
		if (*s >= ' ' && *s <= '~')
			out[n++] = *s;
	out[n] = '\0';
}

int
wake_note(const char *path, const char *reason)
{
	char clean[WAKE_REASON_MAX + 1], line[WAKE_REASON_MAX + 32];

	wake_clean(reason, clean, sizeof(clean));
	snprintf(line, sizeof(line), "%lld %s\n", (long long)time(NULL),
	    clean[0] != '\0' ? clean : "wake");
	return file_write_atomic(path, line, strlen(line), 0644, 0);
}

int
wake_take(const char *path, char *reason, size_t reasonsz)
{
	char *taken = xasprintf("%s.taken", path);
	const char *sp;
	struct buf b;
	int r = -1;

	buf_init(&b, 0);
	reason[0] = '\0';
	/* Renamed first: a wake written after this one stays for a pass. */
	if (rename(path, taken) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	if (file_read(taken, WAKE_FILE_MAX, &b) != -1 &&
	    (sp = strchr(buf_str(&b), ' ')) != NULL) {
		wake_clean(sp + 1, reason, reasonsz);
		reason[strcspn(reason, "\n")] = '\0';
	}
	if (reason[0] == '\0')
		snprintf(reason, reasonsz, "wake");
	(void)file_remove(taken);
	r = 1;
out:
	buf_free(&b);
	free(taken);
	return r;
}

int
wake_pending(const char *path)
{
	return path != NULL && file_exists(path);
}

/* The wake file of the tool and project t runs for.  Caller frees. */
static char *
wake_path(const struct tick *t)
{
	return runfiles_wake(t->tool->cli.prog,
	    t->tool->cli.takes_project ? t->cfg.project_name : NULL);
}

/*
 * A tick as cron starts it, detached: this executable with the project
 * file (or --project NAME) it was given, and the run directory whose
 * recorded settings the wake took (so that the tick takes them too, and
 * records none of its own).  0 or -1 (logged).
 */
static int
wake_start_tick(const struct tick *t)
{
	char exe[PATH_MAX], dir[PATH_MAX], *argv[7];
	pid_t pid;
	int n = 0;

	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		log_err("wake: cannot tell the running executable");
		return -1;
	}
	argv[n++] = exe;
	argv[n++] = "--run-dir";
	argv[n++] =
	    realpath(t->cfg.run_dir, dir) != NULL ? dir : t->cfg.run_dir;
	if (t->cli.project_toml != NULL) {
		argv[n++] = "--";
		argv[n++] = (char *)t->cli.project_toml;
	} else if (t->cli.project != NULL) {
		argv[n++] = "--project";
		argv[n++] = (char *)t->cli.project;
	}
	argv[n] = NULL;
	if (spawn_detached(argv, NULL, NULL, &pid) == -1) {
		log_err("wake: cannot start a tick of '%s': %s", exe,
		    strerror(errno));
		return -1;
	}
	log_msg("wake: tick started (pid %ld)", (long)pid);
	return 0;
}

int
wake_run(struct tick *t)
{
	const struct tick_tool *tool = t->tool;
	char reason[WAKE_REASON_MAX + 1], *flag, *path = NULL, *lock = NULL;
	int rc = CLI_EXIT_FAIL, fd = -1, r;

	wake_clean(t->cli.reason, reason, sizeof(reason));
	if (reason[0] == '\0')
		snprintf(reason, sizeof(reason), "wake");
	if (tool->guard != NULL) {
		flag = runfiles_active_flag(tool->guard);
		r = file_exists(flag);
		free(flag);
		if (!r) {
			log_msg("wake (%s): %s not active — nothing started",
			    reason, tool->guard);
			return CLI_EXIT_OK;
		}
	}
	path = wake_path(t);
	if (wake_note(path, reason) == -1) {
		log_err("wake: cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	lock = tool->lock_path(t->cfg.project_name);
	if ((r = lock_take(lock, &fd)) == 1) {
		log_msg("wake (%s): a tick runs — it runs once more", reason);
		rc = CLI_EXIT_OK;
		goto out;
	}
	if (r == -1) {
		log_err("wake: cannot lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	lock_release_remove(lock, fd);
	log_msg("wake (%s): no tick runs — starting one", reason);
	rc = wake_start_tick(t) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
out:
	free(lock);
	free(path);
	return rc;
}

void
wake_hold(const char *point)
{
	const char *hold = getenv("DISINTO_TEST_WAKE_HOLD");
	size_t n = strlen(point);
	char *at, *path;
	int i;

	if (hold == NULL || strncmp(hold, point, n) != 0 || hold[n] != ':' ||
	    hold[n + 1] == '\0')
		return;
	path = xstrdup(hold + n + 1);
	(void)unsetenv("DISINTO_TEST_WAKE_HOLD");
	at = xasprintf("%s.at", path);
	(void)file_write_atomic(at, "", 0, 0644, 0);
	for (i = 0; i < WAKE_HOLD_S * 20 && !file_exists(path); i++)
		(void)usleep(50 * 1000);
	free(at);
	free(path);
}
