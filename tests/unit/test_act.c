/*
 * Unit tests for common/act/act.c, the effects that need no forge: under
 * dry-run each is logged and none is taken; a failed effect is logged
 * and counted (the first one kept for the status line) and
 * act_tick_failed() turns the count into the tick's verdict; a refusal
 * (another user's file in the run directory, a command that may fail by
 * design, a process or file already gone) is not a failure.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "act.h"
#include "buf.h"
#include "file.h"
#include "log.h"
#include "phase.h"
#include "runfiles.h"
#include "xmalloc.h"

static char dir[] = "/tmp/test_act.XXXXXX";

/* dir/name.  Caller frees. */
static char *
at(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* The file at dir/name, or "" (missing).  Caller frees. */
static char *
contents(const char *name)
{
	char *path = at(name);
	struct buf b;

	buf_init(&b, 0);
	(void)file_read(path, 1 << 16, &b);
	free(path);
	return buf_steal(&b);
}

/* Whether the log (dir/test.log) has a line with text. */
static int
logged(const char *text)
{
	char *log = contents("test.log");
	int r = strstr(log, text) != NULL;

	free(log);
	return r;
}

/* Under dry-run: every effect logged as "dry-run: would", none taken. */
static void
test_act_dry_run(void)
{
	struct act a = {.dry_run = 1};
	char *file = at("kept"), *gone = at("gone"), *sub = at("sub");
	char *status = at("status"), *text;
	struct buf b;

	CHECK_INT(file_write_atomic(file, "as it was\n", 10, 0644, 0), 0);
	CHECK_INT(act_write(&a, gone, "new\n", 0), 0);
	CHECK_INT(act_phase(&a, gone, PHASE_DONE, NULL, NULL), 0);
	CHECK_INT(act_append(&a, file, "more"), 0);
	CHECK_INT(act_truncate(&a, file), 0);
	CHECK_INT(act_touch(&a, gone), 0);
	CHECK_INT(act_mkdir(&a, sub), 0);
	CHECK_INT(act_rename(&a, file, gone), 0);
	CHECK_INT(act_remove(&a, file), 0);
	CHECK_INT(act_status(&a, status, "tool", "working on #%d", 3), 0);
	/* A dry run sends no signal: to this very process, say. */
	CHECK_INT(act_signal(&a, getpid()), 0);
	buf_init(&b, 0);
	CHECK_INT(act_claim(&a, file, 100, &b, "#3"), ACT_CLAIM_NONE);
	buf_free(&b);
	CHECK_INT(a.failed, 0);
	text = contents("kept");
	CHECK_STR(text, "as it was\n");
	free(text);
	CHECK_INT(file_exists(gone), 0);
	CHECK_INT(file_exists(sub), 0);
	CHECK_INT(file_exists(status), 0);
	CHECK(logged("dry-run: would write '"));
	CHECK(logged("dry-run: would append to '"));
	CHECK(logged("dry-run: would create the directory '"));
	CHECK(logged("dry-run: would remove '"));
	CHECK(logged("dry-run: would set the status to 'working on #3'"));
	CHECK(logged("dry-run: would send SIGTERM to process"));
	CHECK(logged("dry-run: would claim '"));
	/* A dry run's verdict writes no status file either. */
	CHECK_INT(act_tick_failed(&a, status, "tool"), 0);
	CHECK_INT(file_exists(status), 0);
	unlink(file);
	free(file);
	free(gone);
	free(sub);
	free(status);
}

/* Effects taken: the files as meant, nothing counted. */
static void
test_act_taken(void)
{
	struct act a = {0};
	char *file = at("f"), *phase = at("p.phase"), *marker = at("m");
	char *sub = at("d/e"), *text;
	struct phase_info pi;

	CHECK_INT(act_write(&a, file, "one\n", 1), 0);
	CHECK_INT(act_append(&a, file, "two"), 0);
	text = contents("f");
	CHECK_STR(text, "one\ntwo\n");
	free(text);
	CHECK_INT(act_phase(&a, phase, PHASE_ESCALATE, "which key?", NULL), 0);
	CHECK_INT(phase_read(phase, &pi), 0);
	CHECK_INT(pi.phase, PHASE_ESCALATE);
	CHECK_STR(pi.reason, "which key?");
	CHECK_INT(act_touch(&a, marker), 0);
	CHECK_INT(file_exists(marker), 1);
	CHECK_INT(act_mkdir(&a, sub), 0);
	CHECK_INT(act_remove_tree(&a, sub), 0);
	CHECK_INT(file_exists(sub), 0);
	/* Already gone: no change, no failure. */
	CHECK_INT(act_remove(&a, sub), 0);
	CHECK_INT(act_remove(&a, marker), 0);
	CHECK_INT(act_remove(&a, marker), 0);
	CHECK_INT(act_truncate(&a, file), 0);
	text = contents("f");
	CHECK_STR(text, "");
	free(text);
	CHECK_INT(a.failed, 0);
	unlink(file);
	unlink(phase);
	text = at("d");
	rmdir(text);
	free(text);
	free(file);
	free(phase);
	free(marker);
	free(sub);
}

/*
 * Failures are logged and counted, the first kept; the tick's verdict
 * goes into the status file, and a tick without failures replaces it.
 */
static void
test_act_failures(void)
{
	struct act a = {0}, next = {0};
	char *nodir = at("no/such/file"), *status = at("status");
	char *missing = at("missing"), *text;

	CHECK_INT(act_write(&a, nodir, "x\n", 0), -1);
	CHECK_INT(a.failed, 1);
	CHECK(strncmp(a.first_fail, "cannot write '", 14) == 0);
	CHECK(logged("cannot write '"));
	CHECK_INT(act_rename(&a, missing, nodir), -1);
	CHECK_INT(act_phase(&a, nodir, PHASE_DONE, NULL, NULL), -1);
	CHECK_INT(act_pipeline_restart(&a, 7, &(long long) {0}), -1);
	CHECK_INT(a.failed, 4);
	CHECK(strncmp(a.first_fail, "cannot write '", 14) == 0);
	CHECK_INT(act_tick_failed(&a, status, "tool"), 1);
	text = contents("status");
	CHECK(strstr(text,
		  "] tool: tick failed: 4 writes failed, the first: "
		  "cannot write '") != NULL);
	free(text);
	/* The next tick without a failure says so. */
	CHECK_INT(act_tick_failed(&next, status, "tool"), 0);
	text = contents("status");
	CHECK(strstr(text,
		  "] tool: tick ok (the last failed tick is in the "
		  "log)\n") != NULL);
	free(text);
	/* A status line of the tick's own stays. */
	CHECK_INT(act_status(&next, status, "tool", "idle"), 0);
	CHECK_INT(act_tick_failed(&next, status, "tool"), 0);
	text = contents("status");
	CHECK(strstr(text, "] tool: idle\n") != NULL);
	free(text);
	/* No status file: the verdict is only logged. */
	CHECK_INT(act_tick_failed(&a, NULL, "tool"), 1);
	unlink(status);
	free(nodir);
	free(status);
	free(missing);
}

/*
 * Refusals are not failures: another user's file holding a run file's
 * name (refused and logged by file.c, what it was for waits), a git
 * command that may fail by design, a process already gone, nothing to
 * claim.
 */
static void
test_act_refusals(void)
{
	struct act a = {0};
	char *theirs = at("theirs"), *claim = at("reply"), *text;
	const char *const args[] = {"rev-parse", "--verify", "no-such-ref",
	    NULL};
	struct buf b;
	pid_t pid;
	int st;

	CHECK_INT(file_write_atomic(theirs, "x\n", 2, 0644, 0), 0);
	CHECK_INT(chown(theirs, 65534, 65534), 0);
	CHECK_INT(act_touch(&a, theirs), -1);
	CHECK_INT(act_append(&a, theirs, "mine"), -1);
	CHECK_INT(act_truncate(&a, theirs), -1);
	CHECK_INT(a.failed, 0);
	CHECK(logged("a file of another user"));
	/* A whole new file takes its place. */
	CHECK_INT(act_write(&a, theirs, "mine\n", 0), 0);
	text = contents("theirs");
	CHECK_STR(text, "mine\n");
	free(text);
	CHECK_INT(act_git(&a, "/", args), -1);
	CHECK_INT(a.failed, 0);
	CHECK(logged("'git -C / rev-parse --verify no-such-ref' failed"));
	if ((pid = fork()) == 0)
		_exit(0);
	CHECK_INT(waitpid(pid, &st, 0), pid);
	CHECK_INT(act_signal(&a, pid), 0);
	buf_init(&b, 0);
	CHECK_INT(act_claim(&a, claim, 100, &b, "#3"), ACT_CLAIM_NONE);
	buf_free(&b);
	CHECK_INT(a.failed, 0);
	CHECK_INT(act_tick_failed(&a, NULL, "tool"), 0);
	unlink(theirs);
	free(theirs);
	free(claim);
}

int
main(void)
{
	char *log;

	if (mkdtemp(dir) == NULL)
		return 1;
	/* The test's directory is the run directory: this user's alone. */
	runfiles_init(dir, dir);
	file_private_dir(dir);
	log = at("test.log");
	if (log_open(log, "", 0, 0) == -1)
		return 1;
	RUN(test_act_dry_run);
	RUN(test_act_taken);
	RUN(test_act_failures);
	RUN(test_act_refusals);
	log_close();
	unlink(log);
	free(log);
	rmdir(dir);
	return check_main();
}
