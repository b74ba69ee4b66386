/*
 * Tests for the phase reader and the run-file names.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "buf.h"
#include "file.h"
#include "phase.h"
#include "runfiles.h"
#include "xmalloc.h"

static enum phase
parse(const char *text, struct phase_info *pi)
{
	phase_parse(text, strlen(text), pi);
	return pi->phase;
}

static void
test_phase_values(void)
{
	struct phase_info pi;

	CHECK_INT(parse("PHASE:awaiting_ci\n", &pi), PHASE_AWAITING_CI);
	CHECK_INT(parse("PHASE:awaiting_review", &pi), PHASE_AWAITING_REVIEW);
	CHECK_INT(parse("PHASE:escalate\nReason: need a key\n", &pi),
	    PHASE_ESCALATE);
	CHECK_STR(pi.reason, "need a key");
	CHECK_INT(parse("PHASE:done\r\n", &pi), PHASE_DONE);
	CHECK_INT(parse("  PHASE: failed  \t\r\nReason:   refused  \r\n", &pi),
	    PHASE_FAILED);
	CHECK_STR(pi.reason, "refused");
	CHECK_INT(parse("PHASE:awaiting_changes\nSHA:abc\n", &pi),
	    PHASE_AWAITING_CHANGES);
	CHECK_STR(pi.reason, "");
	CHECK_INT(parse("\xef\xbb\xbfPHASE:done\n", &pi), PHASE_DONE);
	/* As agent-session.sh: merged is done. */
	CHECK_INT(parse("PHASE:merged\n", &pi), PHASE_DONE);
	CHECK_STR(pi.raw, "PHASE:merged");
}

static void
test_phase_junk(void)
{
	struct phase_info pi;
	char *big;

	CHECK_INT(parse("", &pi), PHASE_NONE);
	CHECK_INT(parse("\n\n", &pi), PHASE_NONE);
	CHECK_INT(parse("  \r\nPHASE:done\n", &pi), PHASE_NONE);
	CHECK_INT(parse("PHASE:finished\n", &pi), PHASE_UNKNOWN);
	CHECK_STR(pi.raw, "PHASE:finished");
	CHECK_INT(parse("phase:done\n", &pi), PHASE_UNKNOWN);
	CHECK_INT(parse("PHASE:doneReason:x\n", &pi), PHASE_UNKNOWN);
	CHECK_INT(parse("\x01\x02\xff", &pi), PHASE_UNKNOWN);
	/* A huge first line is unknown, whatever it starts with. */
	big = xmalloc(1 << 20);
	memset(big, 'x', (1 << 20) - 1);
	memcpy(big, "PHASE:done", 10);
	big[(1 << 20) - 1] = '\0';
	CHECK_INT(parse(big, &pi), PHASE_UNKNOWN);
	free(big);
	CHECK_STR(phase_name(PHASE_ESCALATE), "PHASE:escalate");
	CHECK_STR(phase_name(PHASE_UNKNOWN), "");
	CHECK_INT(phase_is_terminal(PHASE_FAILED), 1);
	CHECK_INT(phase_is_terminal(PHASE_AWAITING_CI), 0);
}

static void
test_phase_file(void)
{
	char dir[] = "/tmp/test_phase.XXXXXX", *path;
	struct phase_info pi;
	char *big;

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/p.phase", dir);
	CHECK_INT(phase_read(path, &pi), 0);
	CHECK_INT(pi.phase, PHASE_NONE);
	CHECK_INT(pi.mtime, 0);
	CHECK_INT(file_write_atomic(path, "PHASE:done\n", 11, 0644, 0), 0);
	CHECK_INT(phase_read(path, &pi), 0);
	CHECK_INT(pi.phase, PHASE_DONE);
	CHECK(pi.mtime > 0);
	big = xmalloc(1 << 20);
	memset(big, ' ', 1 << 20);
	memcpy(big + 100, "PHASE:done", 10);
	CHECK_INT(file_write_atomic(path, big, 1 << 20, 0644, 0), 0);
	CHECK_INT(phase_read(path, &pi), 0);
	CHECK_INT(pi.phase, PHASE_UNKNOWN);
	free(big);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void
test_phase_planted(void)
{
	/*
	 * A symlink, a FIFO or a directory named like a phase file: an error
	 * (the caller logs it), never followed, never waited on.
	 */
	char dir[] = "/tmp/test_phase.XXXXXX", *path, *claimed, *target;
	struct phase_info pi;
	struct buf b;
	long long age;

	alarm(20);
	CHECK(mkdtemp(dir) != NULL);
	runfiles_init(dir, dir);
	path = xasprintf("%s/p.phase", dir);
	target = xasprintf("%s/target", dir);
	CHECK_INT(file_write_atomic(target, "PHASE:done\n", 11, 0644, 0), 0);
	CHECK_INT(symlink("/etc/passwd", path), 0);
	CHECK_INT(phase_read(path, &pi), -1);
	CHECK_STR(pi.raw, "");
	unlink(path);
	CHECK_INT(symlink(target, path), 0);
	CHECK_INT(phase_read(path, &pi), -1);
	CHECK_INT(pi.phase, PHASE_NONE);
	unlink(path);
	CHECK_INT(mkfifo(path, 0644), 0);
	CHECK_INT(phase_read(path, &pi), -1);
	CHECK_INT(runfiles_age(path, time(NULL), &age), -1);
	CHECK_INT(runfiles_touch(path), -1);
	CHECK_INT(runfiles_write(path, "PHASE:done\n"), -1);
	unlink(path);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(phase_read(path, &pi), -1);
	rmdir(path);
	/*
	 * A reply that is a symlink is not claimed (only a regular file of
	 * this user alone is), not followed, and left where it is.
	 */
	claimed = runfiles_escalation_reply();
	CHECK_INT(symlink(target, claimed), 0);
	buf_init(&b, 0);
	CHECK_INT(runfiles_claim(claimed, 100, &b), 0);
	CHECK_INT(b.len, 0);
	CHECK_INT(file_exists(claimed), 1);
	CHECK_INT(file_read(target, 100, &b), 0);
	CHECK_STR(buf_str(&b), "PHASE:done\n");
	buf_free(&b);
	unlink(claimed);
	unlink(target);
	rmdir(dir);
	free(claimed);
	free(target);
	free(path);
	alarm(0);
}

static void
test_runfile_names(void)
{
	char *p;

	runfiles_init("/run/x", "/opt/f");
	p = runfiles_phase("harb", 42);
	CHECK_STR(p, "/run/x/dev-session-harb-42.phase");
	CHECK_INT(runfiles_phase_issue("harb", p), 42);
	free(p);
	CHECK_INT(
	    runfiles_phase_issue("harb", "/run/x/dev-session-harb-4x.phase"),
	    -1);
	CHECK_INT(
	    runfiles_phase_issue("harb", "/run/x/dev-session-harbor-4.phase"),
	    -1);
	CHECK_INT(
	    runfiles_phase_issue("harb", "/run/x/dev-session-harb-4.phase.tmp"),
	    -1);
	p = runfiles_review_phase("harb", 12);
	CHECK_INT(runfiles_review_phase_pr("harb", p), 12);
	CHECK_INT(runfiles_phase_issue("harb", p), -1);
	free(p);
	CHECK_INT(runfiles_review_phase_pr("harb",
		      "/run/x/review-session-harb-1.phase.tmp.x"),
	    -1);
	CHECK_INT(
	    runfiles_review_phase_pr("harb", "/run/x/dev-session-harb-1.phase"),
	    -1);
	p = runfiles_review_request("harb", 12);
	CHECK_STR(p, "/run/x/harb-review-request-12");
	free(p);
	p = runfiles_ci_result("harb", 7);
	CHECK_STR(p, "/run/x/ci-result-harb-7.txt");
	free(p);
	p = runfiles_summary("harb", 7);
	CHECK_STR(p, "/run/x/dev-impl-summary-harb-7.txt");
	free(p);
	p = runfiles_dev_session("harb", 7);
	CHECK_STR(p, "dev-harb-7");
	free(p);
	p = runfiles_idle_marker("dev-harb-7");
	CHECK_STR(p, "/run/x/claude-idle-dev-harb-7.ts");
	free(p);
	p = runfiles_ci_fixes("harb");
	CHECK_STR(p, "/opt/f/dev/ci-fixes-harb.json");
	free(p);
	p = runfiles_dev_log("harb");
	CHECK_STR(p, "/opt/f/dev/dev-agent-harb.log");
	free(p);
	p = runfiles_active_flag("reviewer");
	CHECK_STR(p, "/opt/f/state/.reviewer-active");
	free(p);
	p = runfiles_worktree("harb", 3);
	CHECK_STR(p, "/run/x/harb-worktree-3");
	free(p);
	p = runfiles_infra_retry(1, 7);
	CHECK_STR(p, "/run/x/supervisor-infra-retries/1-7");
	free(p);
	p = runfiles_supervisor_prompt();
	CHECK_STR(p, "/opt/f/supervisor/PROMPT.md");
	free(p);
}

static void
test_claim_touch_age(void)
{
	char dir[] = "/tmp/test_phase.XXXXXX", *path;
	struct buf b;
	long long age = -1;
	pid_t pid;
	int st;

	CHECK(mkdtemp(dir) != NULL);
	runfiles_init(dir, dir);
	path = runfiles_escalation_reply();
	buf_init(&b, 0);
	CHECK_INT(runfiles_claim(path, 100, &b), 0);
	CHECK_INT(runfiles_write(path, "yes, go ahead\n"), 0);
	/* Two claimers race: exactly one gets the reply. */
	pid = fork();
	if (pid == 0) {
		struct buf cb;
		int r;

		buf_init(&cb, 0);
		r = runfiles_claim(path, 100, &cb);
		_exit(r == 1 ? 1 : 0);
	}
	{
		int mine = runfiles_claim(path, 100, &b);

		waitpid(pid, &st, 0);
		CHECK_INT(mine + WEXITSTATUS(st), 1);
		if (mine == 1)
			CHECK_STR(buf_str(&b), "yes, go ahead\n");
	}
	CHECK_INT(file_exists(path), 0);
	CHECK_INT(runfiles_age(path, time(NULL), &age), -1);
	CHECK_INT(runfiles_touch(path), 0);
	CHECK_INT(runfiles_age(path, time(NULL) + 100, &age), 0);
	CHECK(age >= 99 && age <= 101);
	unlink(path);
	rmdir(dir);
	free(path);
	buf_free(&b);
}

int
main(void)
{
	RUN(test_phase_values);
	RUN(test_phase_junk);
	RUN(test_phase_file);
	RUN(test_phase_planted);
	RUN(test_runfile_names);
	RUN(test_claim_touch_age);
	return check_main();
}
