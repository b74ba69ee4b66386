/*
 * The CI watcher (ciwake.h): the tick's side, which starts and stops
 * it, and the watcher's own run.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "act.h"
#include "agent_exec.h"
#include "buf.h"
#include "ci.h"
#include "cimemo.h"
#include "ciwake.h"
#include "ciwatch.h"
#include "cli.h"
#include "config.h"
#include "http.h"
#include "log.h"
#include "phase.h"
#include "record.h"
#include "runfiles.h"
#include "valid.h"
#include "wake.h"
#include "wakecmd.h"
#include "xmalloc.h"

/* One watcher's run. */
struct ciwake_run {
	struct config cfg;
	const char *exe;  /* argv[0] */
	const char *toml; /* the project file, "" for the environment's */
	long long issue;
	long long pr;
	const char *sha;
	int interval;
	long long deadline; /* ciwake_now_ms() */
	int fd;		    /* the watcher lock, or -1 */
};

/* Why the watching ended. */
enum ciwake_end {
	CIWAKE_FINAL,	/* CI is final: the tool is woken */
	CIWAKE_TIMEOUT, /* the CI timeout passed: the tool is woken */
	CIWAKE_DONE	/* no longer wanted, stopped, or unreadable */
};

/* Set by SIGTERM, SIGINT: the watcher ends at once. */
static volatile sig_atomic_t ciwake_stopped;

static void ciwake_project(const struct config *, char *, size_t);
static int ciwake_start(struct act *, const struct config *,
    const struct ciwake_head *);
static int ciwake_args(int, char *[], struct ciwake_run *, char **);
static int ciwake_configure(const struct cli_tool *, struct ciwake_run *,
    char **);
static void ciwake_on_signal(int);
static void ciwake_signals(void);
static long long ciwake_now_ms(void);
static void ciwake_sleep(long long);
static int ciwake_told(const struct ciwake_run *);
static const char *ciwake_unwanted(const struct ciwake_run *);
static int ciwake_look(const struct ciwake_run *, enum ci_state *,
    unsigned long *);
static void ciwake_wake(const struct ciwake_run *, const char *);
static enum ciwake_end ciwake_loop(struct ciwake_run *);
static int ciwake_hold(struct ciwake_run *);

/*
 * The project file of cfg as the watcher is given it: an absolute path
 * (the watcher runs in /), or "" for the environment's project.
 */
static void
ciwake_project(const struct config *cfg, char *out, size_t outsz)
{
	char real[PATH_MAX];

	if (cfg->project_toml == NULL)
		snprintf(out, outsz, "%s", "");
	else if (realpath(cfg->project_toml, real) != NULL)
		snprintf(out, outsz, "%s", real);
	else
		snprintf(out, outsz, "%s", cfg->project_toml);
}

/* Start the watcher of h, detached.  0 or -1 (logged). */
static int
ciwake_start(struct act *a, const struct config *cfg,
    const struct ciwake_head *h)
{
	char exe[PATH_MAX], toml[PATH_MAX], issue[24], pr[24], what[64];
	char *argv[7];
	pid_t pid;

	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		log_err("cannot tell the running executable: no CI watcher "
			"for #%lld",
		    h->issue);
		return -1;
	}
	ciwake_project(cfg, toml, sizeof(toml));
	snprintf(issue, sizeof(issue), "%lld", h->issue);
	snprintf(pr, sizeof(pr), "%lld", h->pr);
	snprintf(what, sizeof(what), "the CI watcher of #%lld", h->issue);
	argv[0] = exe;
	argv[1] = CIWAKE_MODE;
	argv[2] = toml;
	argv[3] = issue;
	argv[4] = pr;
	argv[5] = (char *)h->sha;
	argv[6] = NULL;
	/* Its stderr, where nothing goes but a crash's report: the log. */
	if (act_spawn(a, argv, log_path(), what, &pid) == -1)
		return -1;
	if (pid > 0)
		log_msg("#%lld: CI pending at %.7s on PR #%lld — watcher "
			"started (pid %ld)",
		    h->issue, h->sha, h->pr, (long)pid);
	return 0;
}

int
ciwake_ensure(struct act *a, const struct config *cfg,
    const struct ciwake_head *h)
{
	struct ciwatch w;
	int r;

	if (!cfg->wake || h->sha == NULL || !cimemo_sha_ok(h->sha))
		return 0;
	r = ciwatch_find(cfg->project_name, h->issue, &w);
	if (r == -1) {
		log_warn("#%lld: cannot tell whether a CI watcher runs: %s",
		    h->issue, strerror(errno));
		return -1;
	}
	/* Running for this head, or starting (its record not written). */
	if (r == 1 && (w.pid == 0 || ciwatch_is(&w, h->pr, h->sha)))
		return 0;
	if (r == 1) {
		log_msg("#%lld: the CI watcher of %.7s (pid %lld) is stopped: "
			"the head is %.7s",
		    h->issue, w.sha, w.pid, h->sha);
		(void)act_signal(a, (pid_t)w.pid);
	}
	return ciwake_start(a, cfg, h);
}

void
ciwake_stop(struct act *a, const struct config *cfg, long long issue)
{
	struct ciwatch w;

	if (ciwatch_find(cfg->project_name, issue, &w) == 1 && w.pid > 0)
		(void)act_signal(a, (pid_t)w.pid);
}

long long
ciwake_delay(int interval, unsigned long requests, int unknown)
{
	long long factor = 1;

	for (; unknown > 0 && factor < CIWAKE_BACKOFF_MAX; unknown--)
		factor *= 2;
	if (factor > CIWAKE_BACKOFF_MAX)
		factor = CIWAKE_BACKOFF_MAX;
	return (long long)interval * factor *
	    (long long)(requests > 0 ? requests : 1);
}

/* PROJECT_TOML ISSUE PR SHA after the mode: 0, or -1 (*msg set). */
static int
ciwake_args(int argc, char *argv[], struct ciwake_run *r, char **msg)
{
	if (argc != 6 || valid_number_text(argv[3], &r->issue) != NULL ||
	    valid_number_text(argv[4], &r->pr) != NULL ||
	    !cimemo_sha_ok(argv[5]) || strlen(argv[5]) > CIWATCH_SHA_MAX) {
		*msg = xasprintf("usage: %s " CIWAKE_MODE
				 " PROJECT_TOML ISSUE PR SHA\n",
		    argv[0]);
		return -1;
	}
	r->exe = argv[0];
	r->toml = argv[2];
	r->sha = argv[5];
	return 0;
}

/*
 * The configuration (of the project file, or of the environment), the
 * log (tool t's), and HTTP without retries.  0, or -1 (*msg set).
 */
static int
ciwake_configure(const struct cli_tool *t, struct ciwake_run *r, char **msg)
{
	struct http_opts ho;
	struct cli cli;
	char err[1024];
	char *path;

	err[0] = '\0';
	memset(&cli, 0, sizeof(cli));
	if (cli_configure(&r->cfg, &cli, *r->toml != '\0' ? r->toml : NULL,
		r->exe, err, sizeof(err)) == -1) {
		*msg = xasprintf("%s: %s\n", r->exe, err);
		return -1;
	}
	if (r->cfg.project_name[0] == '\0') {
		*msg = xasprintf("%s: no project: give a project file or set "
				 "FORGE_REPO\n",
		    r->exe);
		return -1;
	}
	log_use_stderr(
	    r->cfg.log_dest != NULL && strcmp(r->cfg.log_dest, "stderr") == 0);
	if ((path = t->log_path(&r->cfg)) != NULL)
		(void)log_open(path, "ci-watch: ", 0, 0);
	free(path);
	http_get_opts(&ho);
	ho.retries = 0;
	http_set_opts(&ho);
	r->interval = r->cfg.test_ci_watch_s > 0 ? r->cfg.test_ci_watch_s :
						   CIWAKE_INTERVAL_S;
	return 0;
}

static void
ciwake_on_signal(int sig)
{
	(void)sig;
	ciwake_stopped = 1;
}

/* SIGTERM and SIGINT end the watcher, a sleep included. */
static void
ciwake_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ciwake_on_signal;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGINT, &sa, NULL);
}

/* The monotonic clock in milliseconds: the schedule's, never stepped. */
static long long
ciwake_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Sleep until until (ciwake_now_ms()), or a signal that stops the run,
 * in naps short enough that a signal between the check and the nap costs
 * little.
 */
static void
ciwake_sleep(long long until)
{
	struct timespec nap;
	long long left;

	while (!ciwake_stopped && (left = until - ciwake_now_ms()) > 0) {
		if (left > 250)
			left = 250;
		nap.tv_sec = 0;
		nap.tv_nsec = (long)left * 1000000L;
		(void)nanosleep(&nap, NULL);
	}
}

/* 1 when the issue's CI result says this head's verdict was told. */
static int
ciwake_told(const struct ciwake_run *r)
{
	char *path = runfiles_ci_result(r->cfg.project_name, r->issue);
	char sha[CIWATCH_SHA_MAX + 8], state[32];
	struct buf b;
	int told = 0;

	buf_init(&b, 0);
	if (record_load(path, &b) == 0 &&
	    record_get(buf_str(&b), "SHA:", sha, sizeof(sha)) == 0 &&
	    record_get(buf_str(&b), "STATE:", state, sizeof(state)) == 0)
		told = strcmp(sha, r->sha) == 0 &&
		    (strcmp(state, "success") == 0 ||
			strcmp(state, "failure") == 0);
	buf_free(&b);
	free(path);
	return told;
}

/*
 * Why the session no longer waits on this head's CI, read from the run
 * files alone, or NULL while it does (or cannot be told).
 */
static const char *
ciwake_unwanted(const struct ciwake_run *r)
{
	char *path = runfiles_phase(r->cfg.project_name, r->issue);
	struct phase_info pi;
	const char *why = NULL;

	if (phase_read(path, &pi) == 0) {
		if (pi.mtime == 0)
			why = "the session's phase file is gone";
		else if (pi.phase != PHASE_AWAITING_CI)
			why = "the session no longer waits for CI";
	}
	free(path);
	if (why == NULL && ciwake_told(r))
		why = "the CI result was told already";
	return why;
}

/*
 * One look at the head's CI: 0 with *st, or -1 (logged: unknown); the
 * requests it took in *requests.
 */
static int
ciwake_look(const struct ciwake_run *r, enum ci_state *st,
    unsigned long *requests)
{
	unsigned long before = http_request_count();
	char why[512];
	int rc;

	rc = ci_read_fresh(&r->cfg, r->sha, st, why, sizeof(why));
	*requests = http_request_count() - before;
	if (rc == -1)
		log_warn("cannot read the CI of %.7s (PR #%lld): %s", r->sha,
		    r->pr, why);
	return rc;
}

/*
 * Wake the tool for what happened ("final", "timeout"), after marking
 * the head as changed for the CI memo, as a status webhook does.
 */
static void
ciwake_wake(const struct ciwake_run *r, const char *what)
{
	char exe[PATH_MAX], reason[WAKE_REASON_MAX + 1];
	char *marks = runfiles_ci_changed(r->cfg.project_name);
	char *lock = runfiles_ci_changed_lock(r->cfg.project_name);

	if (cimemo_mark(marks, lock, r->sha, time(NULL)) == -1)
		log_warn("cannot mark the CI change in '%s': %s", marks,
		    strerror(errno));
	snprintf(reason, sizeof(reason), "ci %s PR#%lld %.7s", what, r->pr,
	    r->sha);
	if (agent_exec_self(exe, sizeof(exe)) == -1 ||
	    wakecmd_spawn(exe, r->cfg.run_dir, r->toml, reason) == -1)
		log_err("cannot wake the tool (%s): %s — the next scheduled "
			"tick reacts",
		    reason, strerror(errno));
	else
		log_msg("#%lld: %s: woke the tool", r->issue, reason);
	free(lock);
	free(marks);
}

/* The looks, until CI is final or the watching ends otherwise. */
static enum ciwake_end
ciwake_loop(struct ciwake_run *r)
{
	long long next = ciwake_now_ms() + r->interval * 1000LL;
	unsigned long requests;
	const char *why;
	enum ci_state st;
	int unknown = 0;

	for (;;) {
		ciwake_sleep(next < r->deadline ? next : r->deadline);
		if (ciwake_stopped)
			why = "stopped";
		else if (ciwake_now_ms() >= r->deadline)
			return CIWAKE_TIMEOUT;
		else
			why = ciwake_unwanted(r);
		if (why != NULL) {
			log_msg("#%lld: %s — watcher of %.7s ends", r->issue,
			    why, r->sha);
			return CIWAKE_DONE;
		}
		if (ciwake_look(r, &st, &requests) == 0) {
			if (ci_final(st))
				return CIWAKE_FINAL;
			unknown = 0;
		} else if (++unknown >= CIWAKE_UNKNOWN_MAX) {
			log_warn("#%lld: CI of %.7s unreadable %d times in a "
				 "row — the scheduled ticks read it",
			    r->issue, r->sha, unknown);
			return CIWAKE_DONE;
		}
		next = ciwake_now_ms() +
		    ciwake_delay(r->interval, requests, unknown) * 1000;
	}
}

/*
 * Take the issue's watcher lock and write the record: 0, or 1 when
 * another watcher keeps it (logged), -1 on error (logged).
 */
static int
ciwake_hold(struct ciwake_run *r)
{
	const char *p = r->cfg.project_name;
	struct ciwatch w;
	int t;

	if ((t = ciwatch_take(p, r->issue, 0, &r->fd)) == 1) {
		if (ciwatch_find(p, r->issue, &w) == 1 &&
		    ciwatch_is(&w, r->pr, r->sha)) {
			log_msg("#%lld: a watcher of %.7s runs (pid %lld)",
			    r->issue, r->sha, w.pid);
			return 1;
		}
		t = ciwatch_take(p, r->issue, CIWAKE_HANDOVER_S, &r->fd);
	}
	if (t == 1)
		log_msg("#%lld: another CI watcher keeps the lock — exiting",
		    r->issue);
	else if (t == -1 ||
	    ciwatch_note(p, r->issue, r->pr, r->sha, time(NULL)) == -1) {
		log_err("#%lld: cannot hold the CI watcher's files: %s",
		    r->issue, strerror(errno));
		return -1;
	}
	return t;
}

int
ciwake_main(const struct cli_tool *t, int argc, char *argv[], char **msg)
{
	struct ciwake_run r;
	int rc = CLI_EXIT_USAGE, held;

	*msg = NULL;
	memset(&r, 0, sizeof(r));
	r.fd = -1;
	(void)umask(umask(022) | 022);
	if (ciwake_args(argc, argv, &r, msg) == -1)
		return CLI_EXIT_USAGE;
	if (ciwake_configure(t, &r, msg) == -1)
		goto out;
	ciwake_signals();
	if (chdir("/") == -1 || (held = ciwake_hold(&r)) == -1) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	rc = CLI_EXIT_OK;
	if (held == 1)
		goto out;
	log_msg("#%lld: watching CI of %.7s on PR #%lld, every %d s", r.issue,
	    r.sha, r.pr, r.interval);
	r.deadline = ciwake_now_ms() + CI_TIMEOUT_S * 1000LL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	switch (ciwake_loop(&r)) {
	case CIWAKE_FINAL:
		ciwake_wake(&r, "final");
		break;
	case CIWAKE_TIMEOUT:
		ciwake_wake(&r, "timeout");
		break;
	case CIWAKE_DONE:
		break;
	}
	http_cleanup();
	curl_global_cleanup();
out:
	if (r.fd != -1)
		ciwatch_release(r.cfg.project_name, r.issue, r.fd);
	log_close();
	config_free(&r.cfg);
	return rc;
}
