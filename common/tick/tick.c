/*
 * The lifecycle of a run, once for every tool (tick.h has the order).
 */
#include <sys/resource.h>
#include <sys/time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "act.h"
#include "cause.h"
#include "cli.h"
#include "config.h"
#include "file.h"
#include "http.h"
#include "lock.h"
#include "lockwait.h"
#include "log.h"
#include "prom.h"
#include "promtick.h"
#include "redact.h"
#include "runfiles.h"
#include "spawn.h"
#include "tick.h"
#include "tickenv.h"
#include "wake.h"
#include "xmalloc.h"

static long long tick_now_ms(void);
static void tick_prom(struct tick *, int);
static char *tick_root_said(const struct config *);
static int tick_active(struct tick *);
static void tick_settings(const struct tick *);
static int tick_lock(struct tick *);
static int tick_steps(struct tick *);
static int tick_woken(struct tick *, const char *);
static int tick_again(struct tick *, const char *);
static int tick_next(struct tick *, int *);
static int tick_passes(struct tick *);
static char *tick_cause(const struct tick *, const struct http_failed *);
static int tick_reads(struct tick *, int);
static int tick_run(struct tick *);
static void tick_summary(const struct tick *);
static char *tick_failed_line(const struct tick *);

static long long
tick_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int
tick_oneshot(const struct tick *t)
{
	return t->cli.issue > 0 || t->cli.pr > 0;
}

/*
 * The metrics of a tick cron runs (not a one-shot, --status, --check,
 * --help or a dry run), once the factory (and the project, for a tool of one)
 * is known: rc is what cli_start() returned, and a run that could not start (2)
 * is recorded too.  Otherwise there are none.
 */
static void
tick_prom(struct tick *t, int rc)
{
	const struct config *cfg = &t->cfg;

	if ((rc == -1 || rc == CLI_EXIT_USAGE) && !t->cli.dry_run &&
	    !t->cli.status && !t->cli.check && !t->cli.wake &&
	    !tick_oneshot(t) && cfg->factory_root != NULL &&
	    cfg->run_dir != NULL &&
	    (!t->tool->cli.takes_project ||
		(cfg->project_name != NULL && cfg->project_name[0] != '\0'))) {
		t->prom = promtick_begin(t->prom, cfg,
		    t->tool->cli.takes_project ? cfg->project_name :
						 t->cli.project,
		    t->tool->metrics);
		return;
	}
	promtick_free(t->prom);
	t->prom = NULL;
}

/*
 * Where the factory was found, for a skipped tick: FACTORY_ROOT set, or
 * derived from the executable's place (config.c refuses one that is no
 * factory at all).  Caller frees.
 */
static char *
tick_root_said(const struct config *cfg)
{
	const char *env = getenv("FACTORY_ROOT");
	int derived = env == NULL || env[0] == '\0';

	return xasprintf("FACTORY_ROOT=%s (%s)", cfg->factory_root,
	    derived ? "derived from the executable's place; set FACTORY_ROOT" :
		      "from the environment");
}

/*
 * The guard of the bash scripts: a tick runs only while
 * $FACTORY_ROOT/state/.<guard>-active exists (a one-shot is run by a
 * person: the factory may be paused).  1 active, else 0 (logged, with
 * the factory it looked in).
 */
static int
tick_active(struct tick *t)
{
	char *flag, *root;
	int active;

	if (t->tool->guard == NULL || tick_oneshot(t))
		return 1;
	flag = runfiles_active_flag(t->tool->guard);
	if (!(active = file_exists(flag))) {
		root = tick_root_said(&t->cfg);
		log_warn("%s not active — skipping: '%s' not found, %s",
		    t->tool->guard, flag, root);
		t->result = PROMTICK_INACTIVE;
		/*
		 * As lib/guard.sh did: cron mails it, with the remedy (a
		 * journald unit has the log line on stderr already).
		 */
		if (!log_on_stderr())
			t->note =
			    xasprintf("%s: SKIP: '%s' not found — %s disabled "
				      "(touch it to enable); %s\n",
				t->tool->cli.prog, flag, t->tool->guard, root);
		free(root);
	}
	free(flag);
	return active;
}

/*
 * A scheduled tick (not one a wake started, given --run-dir; not a
 * one-shot or a dry run) records the settings it took from its
 * environment, which its tool's wakes take in the place of theirs
 * (tickenv.h).  A failure is logged: the wakes then use their own.
 */
static void
tick_settings(const struct tick *t)
{
	char *path;

	if (t->cli.run_dir != NULL || t->cli.dry_run || tick_oneshot(t))
		return;
	path = runfiles_tick_settings(t->tool->cli.prog,
	    t->tool->cli.takes_project ? t->cfg.project_name : NULL);
	if (tickenv_record(path, &t->cfg) == -1)
		log_warn("cannot record the tick's settings in '%s': %s — "
			 "its wakes use their waker's environment",
		    path, strerror(errno));
	free(path);
}

/*
 * Take the tick lock (a one-shot waits for it, when the tool does not
 * take it in the one-shot itself): -1 to go on, else the exit status.
 * Another tick holding it ends a tick without a failure; a one-shot that
 * cannot have it fails.
 */
static int
tick_lock(struct tick *t)
{
	const struct tick_tool *tool = t->tool;
	int oneshot = tick_oneshot(t), r;
	char *path;

	if (oneshot && tool->oneshot_lock_s <= 0)
		return -1;
	path = tool->lock_path(t->cfg.project_name);
	if (t->cli.dry_run && tool->dry_run_unlocked) {
		log_msg("dry-run: not taking the lock %s", path);
		free(path);
		return -1;
	}
	r = oneshot ? lock_wait(path, &t->lockfd, tool->oneshot_lock_s) :
		      lock_take(path, &t->lockfd);
	if (r == 1 && tool->lock_held != NULL)
		log_msg(tool->lock_held, path);
	else if (r == -1)
		log_err("cannot lock '%s': %s", path, strerror(errno));
	if (r == 0) {
		t->lockpath = path;
		return -1;
	}
	free(path);
	if (oneshot) {
		t->msg = xasprintf("%s: cannot take the tick lock (see the "
				   "log)\n",
		    tool->cli.prog);
		return CLI_EXIT_FAIL;
	}
	if (r == 1)
		t->result = PROMTICK_LOCKED;
	return r == 1 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/*
 * The tool's steps, with HTTP set up around them: open, the tick or the
 * one-shot, the verdict on the writes, close.  The exit status.
 */
static int
tick_steps(struct tick *t)
{
	const struct tick_tool *tool = t->tool;
	char *status;
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	(void)promtick_watch_apis(&t->cfg);
	tool->open(t);
	rc = tick_oneshot(t) ? tool->oneshot(t) : tool->run(t);
	/* A write that failed fails the tick, wherever it was. */
	status = tool->cli.status_path(&t->cfg);
	if (t->act != NULL && act_tick_failed(t->act, status, tool->cli.prog))
		rc = CLI_EXIT_FAIL;
	free(status);
	tool->close(t);
	rc = tick_reads(t, rc);
	http_cleanup();
	curl_global_cleanup();
	if (t->cli.verbose)
		tick_summary(t);
	return rc;
}

/*
 * A pass starts: the wake that asked for it (if any) consumed and
 * logged.  1 woken, 0 not.
 */
static int
tick_woken(struct tick *t, const char *wake)
{
	char reason[WAKE_REASON_MAX + 1];

	if (wake == NULL || wake_take(wake, reason, sizeof(reason)) != 1)
		return 0;
	log_msg("woken: %s (pass %d)", reason, t->passes + 1);
	return 1;
}

/*
 * After a pass: whether another one runs, with the tick lock held.  A
 * wake that came during the pass asks for one; else the lock is let go
 * of, and a wake that came before its release (its waker found the lock
 * held) takes it again.  1 another pass, 0 done.
 */
static int
tick_again(struct tick *t, const char *wake)
{
	char *path;

	if (wake == NULL || t->passes >= WAKE_MAX_PASSES) {
		if (wake_pending(wake))
			log_msg("%d passes: the wake waits for the next tick",
			    t->passes);
		return 0;
	}
	wake_hold("pass");
	if (wake_pending(wake))
		return 1;
	wake_hold("release");
	path = t->lockpath;
	lock_release_remove(t->lockpath, t->lockfd);
	t->lockpath = NULL;
	t->lockfd = -1;
	if (wake_pending(wake) && lock_take(path, &t->lockfd) == 0) {
		t->lockpath = path;
		return 1;
	}
	free(path);
	return 0;
}

/*
 * The state zeroed and load run again for another pass: 0 to go on, -1
 * when load ended the tick (its exit status in *rc).
 */
static int
tick_next(struct tick *t, int *rc)
{
	int r = -1;

	if (t->tool->ctx_size > 0)
		memset(t->ctx, 0, t->tool->ctx_size);
	t->act = NULL;
	if (t->tool->load != NULL && (r = t->tool->load(t)) != -1) {
		t->tool->close(t);
		if (r > *rc)
			*rc = r;
		return -1;
	}
	return 0;
}

/*
 * The steps, once, then again while wakes come (wake.h); a one-shot and
 * a dry run run once and leave the wakes alone.  The worst exit status.
 */
static int
tick_passes(struct tick *t)
{
	char *wake = tick_oneshot(t) || t->cli.dry_run ?
	    NULL :
	    runfiles_wake(t->tool->cli.prog,
		t->tool->cli.takes_project ? t->cfg.project_name : NULL);
	int rc = CLI_EXIT_OK, r;

	for (;;) {
		(void)tick_woken(t, wake);
		r = tick_steps(t);
		t->passes++;
		if (r > rc)
			rc = r;
		if (!tick_again(t, wake) || tick_next(t, &rc) == -1)
			break;
	}
	if (t->passes > 1)
		log_msg("tick: %d passes", t->passes);
	lockwait_tick_end(t);
	free(wake);
	return rc;
}

/*
 * The cause of the failed read f: for a tool of every project, under the
 * project whose server it was (its settings and where they were set),
 * else under the tool's own configuration.  Caller frees.
 */
static char *
tick_cause(const struct tick *t, const struct http_failed *f)
{
	struct config *all = NULL;
	char *cause = NULL, err[512];
	size_t i, n = 0;

	if (!t->tool->cli.takes_project)
		(void)cli_projects_load(&t->cfg, t->exe, t->cli.project, &all,
		    &n, err, sizeof(err));
	for (i = 0; i < n; i++) {
		if (cause == NULL && cause_knows(&all[i], f->url))
			cause = cause_failed_read(&all[i], f);
		config_free(&all[i]);
	}
	free(all);
	return cause != NULL ? cause : cause_failed_read(&t->cfg, f);
}

/*
 * The verdict on the tick's reads: a GET of the forge that brought no
 * data back is logged with its cause, and a tick that exited 0 without
 * that data exits 1, "degraded".  The exit status.
 */
static int
tick_reads(struct tick *t, int rc)
{
	struct http_failed f;

	/*
	 * Woodpecker's trouble decides nothing: the forge's commit status
	 * stands in (ci.h).  It is logged and counted all the same.
	 */
	if (!http_failed_read(PROMTICK_WOODPECKER, &f))
		return rc;
	t->cause = tick_cause(t, &f);
	log_err("%s", t->cause);
	if (rc != CLI_EXIT_OK)
		return rc;
	t->result = PROMTICK_DEGRADED;
	return CLI_EXIT_FAIL;
}

/* A run past the start: the guard, load, the lock, the steps. */
static int
tick_run(struct tick *t)
{
	const struct tick_tool *tool = t->tool;
	int rc = -1;

	if (t->cli.wake)
		return wake_run(t);
	if (!tick_active(t))
		return CLI_EXIT_OK;
	if (tool->load != NULL)
		rc = tool->load(t);
	/* Recorded once the configuration holds: a failing one is no one's. */
	if (rc == -1)
		tick_settings(t);
	if (rc == -1)
		rc = tick_lock(t);
	if (rc == -1)
		return tick_passes(t);
	/* Loaded, and stopped before it opened. */
	if (tool->load != NULL)
		tool->close(t);
	return rc;
}

/* The tick's cost, at -v: what tests/bench reads. */
static void
tick_summary(const struct tick *t)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		ru.ru_maxrss = 0;
	log_msg("tick: %lu requests, %lu processes, %lld ms, peak rss %ld kB",
	    http_request_count(), spawn_count(), tick_now_ms() - t->start_ms,
	    ru.ru_maxrss);
}

/*
 * A tick that failed at run time says so on stderr in one line (cron
 * mails it; chronic shows it): the first failed write, or the log to
 * read, secrets masked.  Caller frees.
 */
static char *
tick_failed_line(const struct tick *t)
{
	const char *first = t->cause != NULL ? t->cause :
	    t->act != NULL && t->act->first_fail[0] != '\0' ?
					       t->act->first_fail :
					       log_first_error();
	char *log = t->cfg.project_name != NULL || !t->tool->cli.takes_project ?
	    t->tool->cli.log_path(&t->cfg) :
	    NULL;
	char *why = redact_values(*first != '\0' ? first : "see the log");
	char *line = xasprintf("%s: tick failed: %s%s%s%s\n", t->tool->cli.prog,
	    why, log != NULL ? " (log: " : "", log != NULL ? log : "",
	    log != NULL ? ")" : "");

	free(why);
	free(log);
	return line;
}

int
tick_main(const struct tick_tool *tool, void *ctx, int argc, char *argv[],
    char **msg, char **note)
{
	struct tick t;
	int rc;

	memset(&t, 0, sizeof(t));
	t.tool = tool;
	t.exe = argv[0];
	t.ctx = ctx;
	t.lockfd = -1;
	t.start_ms = tick_now_ms();
	log_first_error_clear();
	t.prom = promtick_new(tool->cli.prog);
	rc = cli_start(argc, argv, &tool->cli, &t.cli, &t.cfg, &t.msg);
	tick_prom(&t, rc);
	if (rc == -1)
		rc = tick_run(&t);
	if (rc == CLI_EXIT_FAIL && t.msg == NULL && !log_on_stderr())
		t.msg = tick_failed_line(&t);
	if (t.passes > 0 && t.prom != NULL && promtick_prom(t.prom) != NULL)
		(void)prom_set(promtick_prom(t.prom), "disinto_tick_passes",
		    NULL, t.passes);
	promtick_end(t.prom, rc, promtick_result(rc, t.result));
	/* No file with a PID that is gone stays (upstream's preflight). */
	lock_release_remove(t.lockpath, t.lockfd);
	free(t.lockpath);
	free(t.cause);
	log_close();
	config_free(&t.cfg);
	*msg = t.msg;
	if (note != NULL)
		*note = t.note;
	else
		free(t.note);
	return rc;
}
