/*
 * Unit tests for common/tick/tick.c, the lifecycle of a run, with a tool
 * of fake steps that note what ran: a paused factory exits 0 with its
 * log line and runs nothing; a lock another tick holds exits 0 quietly;
 * a tick runs open, run, close in that order and releases the lock; a
 * step that fails exits 1, and a failed write also says so in the status
 * file; a one-shot skips the guard and the metrics and fails when it
 * cannot have the lock; load runs before the lock and close after it
 * alone; a dry run of a tool that takes no lock then says so; -v logs
 * the tick's cost; the metrics file records how each tick ended.
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "act.h"
#include "buf.h"
#include "cli.h"
#include "config.h"
#include "file.h"
#include "lock.h"
#include "tick.h"
#include "wake.h"
#include "xmalloc.h"

/* What the fake steps did, and what they are told to do. */
struct fake {
	char trail[128]; /* the steps that ran, one letter each */
	int load_rc;	 /* what load returns */
	int run_rc;	 /* what run returns */
	int bad_write;	 /* run makes a write that fails */
	int wakes;	 /* run leaves a wake this many times (-1: always) */
	struct act act;
};

static char dir[] = "/tmp/test_tick.XXXXXX";
static char *project_toml;

static char *fake_log_path(const struct config *);
static char *fake_status_path(const struct config *);
static char *fake_lock_path(const char *);
static int fake_load(struct tick *);
static void fake_open(struct tick *);
static int fake_oneshot(struct tick *);
static int fake_run(struct tick *);
static void fake_close(struct tick *);

static const struct tick_tool fake_tool = {
    .cli = {.prog = "fake",
	.takes_project = 1,
	.log_path = fake_log_path,
	.status_path = fake_status_path,
	.log_prefix = "poll: ",
	.opts = CLI_OPT_ISSUE},
    .guard = "fake",
    .lock_path = fake_lock_path,
    .lock_held = "another fake holds '%s' — exiting",
    .oneshot_lock_s = 1,
    .open = fake_open,
    .oneshot = fake_oneshot,
    .run = fake_run,
    .close = fake_close,
};

/* The same tool with a load step, a dry run without the lock. */
static const struct tick_tool loading_tool = {
    .cli = {.prog = "fake",
	.takes_project = 1,
	.log_path = fake_log_path,
	.status_path = fake_status_path,
	.log_prefix = "poll: ",
	.opts = CLI_OPT_ISSUE},
    .guard = "fake",
    .lock_path = fake_lock_path,
    .dry_run_unlocked = 1,
    .load = fake_load,
    .open = fake_open,
    .oneshot = fake_oneshot,
    .run = fake_run,
    .close = fake_close,
};

/* dir/name.  Caller frees. */
static char *
at(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static char *
fake_log_path(const struct config *cfg)
{
	(void)cfg;
	return at("fake.log");
}

static char *
fake_status_path(const struct config *cfg)
{
	(void)cfg;
	return at("run/fake-status");
}

static char *
fake_lock_path(const char *project)
{
	CHECK_STR(project, "demo");
	return at("run/fake.lock");
}

/* Note step c. */
static void
fake_note(struct tick *t, char c)
{
	struct fake *f = t->ctx;
	size_t n = strlen(f->trail);

	if (n + 1 < sizeof(f->trail)) {
		f->trail[n] = c;
		f->trail[n + 1] = '\0';
	}
}

static int
fake_load(struct tick *t)
{
	fake_note(t, 'L');
	return ((struct fake *)t->ctx)->load_rc;
}

static void
fake_open(struct tick *t)
{
	struct fake *f = t->ctx;

	fake_note(t, 'O');
	f->act.dry_run = t->cli.dry_run;
	t->act = &f->act;
}

static int
fake_oneshot(struct tick *t)
{
	fake_note(t, 'S');
	t->msg = xasprintf("issue #%lld: done\n", t->cli.issue);
	return CLI_EXIT_OK;
}

static int
fake_run(struct tick *t)
{
	struct fake *f = t->ctx;
	char *path;

	fake_note(t, 'R');
	if (f->wakes != 0) {
		path = at("run/fake-demo.wake");
		CHECK_INT(wake_note(path, "again"), 0);
		free(path);
		if (f->wakes > 0)
			f->wakes--;
	}
	if (f->bad_write) {
		path = at("no/such/dir/file");
		(void)act_write(&f->act, path, "x\n", 0);
		free(path);
	}
	return f->run_rc;
}

static void
fake_close(struct tick *t)
{
	fake_note(t, 'C');
}

/* Run tool for the words (argv[0] added); the exit status, f and msg. */
/* The last tick's stderr note, or NULL. */
static char *last_note;

static int
tick(const struct tick_tool *tool, struct fake *f, char **msg, const char *w0,
    ...)
{
	char *argv[16];
	const char *w;
	va_list ap;
	int argc = 0, load_rc = f->load_rc, run_rc = f->run_rc;
	int bad = f->bad_write, wakes = f->wakes;

	memset(f, 0, sizeof(*f));
	f->wakes = wakes;
	f->load_rc = load_rc;
	f->run_rc = run_rc;
	f->bad_write = bad;
	argv[argc++] = (char *)"fake";
	va_start(ap, w0);
	for (w = w0; w != NULL && argc < 15; w = va_arg(ap, const char *))
		argv[argc++] = (char *)w;
	va_end(ap);
	argv[argc++] = project_toml;
	argv[argc] = NULL;
	free(last_note);
	last_note = NULL;
	return tick_main(tool, f, argc, argv, msg, &last_note);
}

/* The contents of dir/name ("" when missing).  Caller frees. */
static char *
contents(const char *name)
{
	char *path = at(name);
	struct buf b;

	buf_init(&b, 0);
	(void)file_read(path, 1 << 20, &b);
	free(path);
	return buf_steal(&b);
}

/* Whether dir/name has text. */
static int
has(const char *name, const char *text)
{
	char *s = contents(name);
	int r = strstr(s, text) != NULL;

	free(s);
	return r;
}

/* Pause or resume the factory. */
static void
active(int on)
{
	char *flag = at("state/.fake-active");

	if (on)
		CHECK_INT(file_write_atomic(flag, "", 0, 0644, 0), 0);
	else
		unlink(flag);
	free(flag);
}

/* Start every test with no log, metrics or status file. */
static void
fresh(void)
{
	const char *const names[] = {"fake.log", "run/fake-status",
	    "metrics/fake-demo.prom", NULL};
	char *p;
	size_t i;

	for (i = 0; names[i] != NULL; i++) {
		p = at(names[i]);
		unlink(p);
		free(p);
	}
}

/* Paused: exit 0, the guard's log line, no step, "inactive". */
static void
test_tick_inactive(void)
{
	struct fake f = {0};
	char *msg;

	fresh();
	active(0);
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK(msg == NULL);
	/* For cron's mail, as lib/guard.sh: the flag's path and the remedy. */
	CHECK(last_note != NULL && strstr(last_note, "fake: SKIP: '") != NULL &&
	    strstr(last_note, "/state/.fake-active' not found") != NULL);
	CHECK_STR(f.trail, "");
	CHECK(has("fake.log", "poll: fake not active — skipping: '"));
	CHECK(has("fake.log", "/state/.fake-active' not found, FACTORY_ROOT="));
	CHECK(
	    strstr(last_note, "(touch it to enable); FACTORY_ROOT=") != NULL &&
	    strstr(last_note, " (from the environment)\n") != NULL);
	CHECK(has("metrics/fake-demo.prom",
	    "disinto_ticks_total{tool=\"fake\",project=\"demo\","
	    "result=\"inactive\"} 1\n"));
	CHECK(has("metrics/fake-demo.prom", "disinto_tick_exit_code{"));
}

/* Another tick holds the lock: exit 0, nothing run, nothing printed. */
static void
test_tick_locked(void)
{
	struct fake f = {0};
	char *lock = at("run/fake.lock"), *msg;
	int fd = -1;

	fresh();
	active(1);
	CHECK_INT(lock_take(lock, &fd), 0);
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK(msg == NULL);
	CHECK_STR(f.trail, "");
	CHECK(has("fake.log", "another fake holds '"));
	CHECK(has("metrics/fake-demo.prom", "result=\"locked\""));
	/* A one-shot waits for it, then fails and says so. */
	CHECK_INT(tick(&fake_tool, &f, &msg, "--issue", "4", NULL),
	    CLI_EXIT_FAIL);
	CHECK_STR(msg, "fake: cannot take the tick lock (see the log)\n");
	free(msg);
	CHECK_STR(f.trail, "");
	lock_release(fd);
	free(lock);
}

/* A tick: open, run, close; exit 0, "ok"; the lock let go. */
static void
test_tick_runs(void)
{
	struct fake f = {0};
	char *lock = at("run/fake.lock"), *msg;
	int fd = -1;

	fresh();
	active(1);
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK(msg == NULL);
	CHECK_STR(f.trail, "ORC");
	CHECK(has("metrics/fake-demo.prom", "result=\"ok\"} 1\n"));
	CHECK(has("metrics/fake-demo.prom",
	    "disinto_tick_last_success_timestamp_seconds{"));
	CHECK_INT(lock_take(lock, &fd), 0);
	lock_release(fd);
	/* At -v, what it cost. */
	CHECK_INT(tick(&fake_tool, &f, &msg, "-v", NULL), CLI_EXIT_OK);
	CHECK(has("fake.log", "poll: tick: 0 requests, "));
	CHECK(has("fake.log", " kB\n"));
	free(lock);
}

/*
 * Wakes (wake.h): one left during a pass makes one more pass, logged with
 * its reason; one left before the tick is taken by it in its first pass;
 * a wake every pass stops at WAKE_MAX_PASSES, the last left for the next
 * tick; a one-shot leaves wakes alone.
 */
static void
test_tick_wakes(void)
{
	struct fake f = {.wakes = 1};
	char *wake = at("run/fake-demo.wake"), *msg, want[64];

	fresh();
	active(1);
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK_STR(f.trail, "ORCORC");
	CHECK(has("fake.log", "poll: woken: again (pass 2)\n"));
	CHECK(has("fake.log", "poll: tick: 2 passes\n"));
	CHECK(has("metrics/fake-demo.prom", "disinto_tick_passes{"));
	CHECK(has("metrics/fake-demo.prom", "} 2\n"));
	CHECK(!file_exists(wake));
	/* A wake before the tick: its first pass takes it. */
	fresh();
	f.wakes = 0;
	CHECK_INT(wake_note(wake, "earlier"), 0);
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK_STR(f.trail, "ORC");
	CHECK(has("fake.log", "poll: woken: earlier (pass 1)\n"));
	CHECK(!file_exists(wake));
	/* Wakes without end: bounded, the last one kept. */
	fresh();
	f.wakes = -1;
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK_INT(strlen(f.trail), 3 * WAKE_MAX_PASSES);
	snprintf(want, sizeof(want), "poll: tick: %d passes\n",
	    WAKE_MAX_PASSES);
	CHECK(has("fake.log", want));
	CHECK(file_exists(wake));
	/* A one-shot runs once and leaves the wake. */
	fresh();
	f.wakes = 0;
	CHECK_INT(tick(&fake_tool, &f, &msg, "--issue", "3", NULL),
	    CLI_EXIT_OK);
	free(msg);
	CHECK_STR(f.trail, "OSC");
	CHECK(file_exists(wake));
	/* A dry run too. */
	CHECK_INT(tick(&fake_tool, &f, &msg, "-n", NULL), CLI_EXIT_OK);
	CHECK_STR(f.trail, "ORC");
	CHECK(file_exists(wake));
	(void)unlink(wake);
	free(wake);
}

/* A step that fails: exit 1; a failed write also in the status file. */
static void
test_tick_fails(void)
{
	struct fake f = {.run_rc = CLI_EXIT_FAIL};
	char *msg;

	fresh();
	active(1);
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_FAIL);
	CHECK_STR(f.trail, "ORC");
	CHECK(has("metrics/fake-demo.prom", "result=\"failed\"} 1\n"));
	/* One line on stderr, for cron's mail: what failed, the log. */
	CHECK(msg != NULL &&
	    strncmp(msg, "fake: tick failed: see the log (log: ", 37) == 0 &&
	    strchr(msg, '\n') == msg + strlen(msg) - 1);
	free(msg);
	f.run_rc = CLI_EXIT_OK;
	f.bad_write = 1;
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_FAIL);
	CHECK(msg != NULL && strstr(msg, "fake: tick failed: ") == msg &&
	    strstr(msg, "cannot write '") != NULL);
	free(msg);
	CHECK(has("run/fake-status",
	    "] fake: tick failed: 1 write failed, the first: cannot write '"));
	CHECK(has("metrics/fake-demo.prom", "result=\"failed\"} 2\n"));
	/* The next good tick says so. */
	f.bad_write = 0;
	CHECK_INT(tick(&fake_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK(has("run/fake-status", "] fake: tick ok (the last failed tick"));
}

/* A one-shot: no guard, its own step, its message, no metrics. */
static void
test_tick_oneshot(void)
{
	struct fake f = {0};
	char *msg, *p;

	fresh();
	active(0);
	CHECK_INT(tick(&fake_tool, &f, &msg, "--issue", "5", NULL),
	    CLI_EXIT_OK);
	CHECK_STR(msg, "issue #5: done\n");
	free(msg);
	CHECK_STR(f.trail, "OSC");
	CHECK(!has("fake.log", "not active"));
	p = at("metrics/fake-demo.prom");
	CHECK_INT(file_exists(p), 0);
	free(p);
}

/*
 * load runs before the lock: its exit status ends the run (close after
 * it alone); a dry run of a tool that takes no lock runs beside a tick.
 */
static void
test_tick_load(void)
{
	struct fake f = {.load_rc = CLI_EXIT_USAGE};
	char *lock = at("run/fake.lock"), *msg, *err;
	int fd = -1, errfd, saved;

	fresh();
	active(1);
	CHECK_INT(tick(&loading_tool, &f, &msg, NULL), CLI_EXIT_USAGE);
	CHECK_STR(f.trail, "LC");
	CHECK(has("metrics/fake-demo.prom", "result=\"config_error\"} 1\n"));
	f.load_rc = -1;
	CHECK_INT(lock_take(lock, &fd), 0);
	CHECK_INT(tick(&loading_tool, &f, &msg, NULL), CLI_EXIT_OK);
	CHECK_STR(f.trail, "LC");
	CHECK(!has("fake.log", "holds"));
	/* A dry run's lines go to stderr, not to the log. */
	err = at("stderr");
	errfd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(STDERR_FILENO);
	CHECK(errfd != -1 && saved != -1);
	fflush(stderr);
	dup2(errfd, STDERR_FILENO);
	CHECK_INT(tick(&loading_tool, &f, &msg, "-n", NULL), CLI_EXIT_OK);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(errfd);
	CHECK_STR(f.trail, "LORC");
	CHECK(has("stderr", "dry-run: not taking the lock "));
	CHECK(!has("fake.log", "dry-run"));
	free(err);
	lock_release(fd);
	free(lock);
}

/* A command line that cannot run: exit 2, no step, the message. */
static void
test_tick_usage(void)
{
	struct fake f = {0};
	char *msg;

	fresh();
	active(1);
	CHECK_INT(tick(&fake_tool, &f, &msg, "--bogus", NULL), CLI_EXIT_USAGE);
	CHECK(msg != NULL && strstr(msg, "unknown option '--bogus'") != NULL);
	free(msg);
	CHECK_STR(f.trail, "");
	CHECK_INT(tick(&fake_tool, &f, &msg, "--version", NULL), CLI_EXIT_OK);
	CHECK(msg != NULL && strncmp(msg, "fake ", 5) == 0);
	free(msg);
	CHECK_STR(f.trail, "");
}

/* nftw(3) callback: remove one entry, children first. */
static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

int
main(void)
{
	static const char toml[] = "name = \"demo\"\nrepo = \"o/demo\"\n"
				   "forge_url = \"http://127.0.0.1:1\"\n";
	char *p;
	int r;

	if (mkdtemp(dir) == NULL)
		return 1;
	p = at("run");
	(void)mkdir(p, 0700);
	setenv("DISINTO_RUN_DIR", p, 1);
	free(p);
	p = at("state");
	(void)mkdir(p, 0755);
	free(p);
	setenv("FACTORY_ROOT", dir, 1);
	unsetenv("DISINTO_LOG");
	unsetenv("FORGE_TOKEN");
	project_toml = at("demo.toml");
	if (file_write_atomic(project_toml, toml, strlen(toml), 0644, 0) == -1)
		return 1;
	RUN(test_tick_inactive);
	RUN(test_tick_locked);
	RUN(test_tick_runs);
	RUN(test_tick_fails);
	RUN(test_tick_oneshot);
	RUN(test_tick_load);
	RUN(test_tick_usage);
	RUN(test_tick_wakes);
	r = check_main();
	free(last_note);
	free(project_toml);
	(void)nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return r;
}
