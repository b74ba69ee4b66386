/*
 * Tests for the table of phases, the phase file's reader and writer, the
 * phase words of the prompts and sources, and the run-file names.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "buf.h"
#include "file.h"
#include "log.h"
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
	CHECK_STR(pi.sha, "abc");
	CHECK_INT(parse("PHASE:awaiting_changes\nReason: x\nSHA:  d1 \n", &pi),
	    PHASE_AWAITING_CHANGES);
	CHECK_STR(pi.reason, "x");
	CHECK_STR(pi.sha, "d1");
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

/*
 * The table: one row per phase, every row filled in, and the sets as the
 * tools use them.
 */
static void
test_phase_table(void)
{
	const struct phase_def *d, *e;
	char line[64];
	size_t p, q;

	for (p = 0; p < PHASE_COUNT; p++) {
		d = phase_def((enum phase)p);
		/* A row left out of the table is all zeros. */
		CHECK(d->line != NULL && d->label != NULL && *d->label != '\0');
		if (d->line == NULL || d->label == NULL)
			continue;
		for (q = 0; q < p; q++) {
			e = phase_def((enum phase)q);
			CHECK(strcmp(d->label, e->label) != 0);
			CHECK(
			    *d->line == '\0' || strcmp(d->line, e->line) != 0);
		}
		/* A phase with a line: "PHASE:" and its label, a writer. */
		if (*d->line != '\0') {
			snprintf(line, sizeof(line), "PHASE:%s", d->label);
			CHECK_STR(d->line, line);
			CHECK(d->writers != 0);
		}
		/* Protected from the sweep: waiting, and not at its end. */
		CHECK_INT(d->sweep_protected, d->waiting && !d->terminal);
		CHECK_INT(phase_is_terminal((enum phase)p), d->terminal);
		CHECK_STR(phase_name((enum phase)p), d->line);
	}
	CHECK_STR(phase_def(PHASE_NONE)->line, "");
	CHECK_STR(phase_def(PHASE_UNKNOWN)->line, "");
	CHECK_INT(phase_def(PHASE_UNKNOWN)->writers, 0);
	CHECK(phase_def(PHASE_COUNT) == phase_def(PHASE_UNKNOWN));
	CHECK(phase_def((enum phase) - 1) == phase_def(PHASE_UNKNOWN));
	CHECK_STR(phase_def(PHASE_DONE)->alias, "PHASE:merged");
	/* The agent lets the session lock go in these (agent_lock.c). */
	CHECK_INT(phase_def(PHASE_AWAITING_CI)->waiting, 1);
	CHECK_INT(phase_def(PHASE_AWAITING_CHANGES)->waiting, 1);
	CHECK_INT(phase_def(PHASE_FAILED)->waiting, 1);
	CHECK_INT(phase_def(PHASE_NONE)->waiting, 0);
	CHECK_INT(phase_def(PHASE_UNKNOWN)->waiting, 0);
	/* CLAUDE_TIMEOUT runs before a phase and while CI is fixed. */
	CHECK_INT(phase_def(PHASE_NONE)->crash_clock, 1);
	CHECK_INT(phase_def(PHASE_AWAITING_CI)->crash_clock, 1);
	CHECK_INT(phase_def(PHASE_AWAITING_REVIEW)->crash_clock, 0);
	CHECK_INT(phase_def(PHASE_ESCALATE)->crash_clock, 0);
	/* Never swept: waiting on CI, a review or a person. */
	CHECK_INT(phase_def(PHASE_ESCALATE)->sweep_protected, 1);
	CHECK_INT(phase_def(PHASE_AWAITING_REVIEW)->sweep_protected, 1);
	CHECK_INT(phase_def(PHASE_DONE)->sweep_protected, 0);
	CHECK_INT(phase_def(PHASE_NONE)->sweep_protected, 0);
	CHECK_INT(phase_def(PHASE_AWAITING_CHANGES)->writers, PHASE_BY_REVIEW);
}

/* What phase_text() writes, phase_parse() reads back. */
static void
test_phase_text(void)
{
	struct phase_info pi;
	char *t;
	size_t p;

	for (p = 0; p < PHASE_COUNT; p++) {
		if (p == PHASE_UNKNOWN)
			continue;
		t = phase_text((enum phase)p, "one\ntwo\r\nthree", "abc123");
		CHECK_INT(parse(t, &pi), p);
		if (p != PHASE_NONE) {
			CHECK_STR(pi.reason, "one two  three");
			CHECK_STR(pi.sha, "abc123");
		}
		free(t);
	}
	t = phase_text(PHASE_NONE, "why", "abc");
	CHECK_STR(t, "");
	free(t);
	t = phase_text(PHASE_DONE, NULL, NULL);
	CHECK_STR(t, "PHASE:done\n");
	free(t);
	t = phase_text(PHASE_FAILED, "", NULL);
	CHECK_STR(t, "PHASE:failed\n");
	free(t);
	t = phase_text(PHASE_ESCALATE, "need a key", NULL);
	CHECK_STR(t, "PHASE:escalate\nReason: need a key\n");
	free(t);
	t = phase_text(PHASE_AWAITING_CHANGES, NULL, "d00d");
	CHECK_STR(t, "PHASE:awaiting_changes\nSHA:d00d\n");
	free(t);
}

static void
test_phase_write(void)
{
	char dir[] = "/tmp/test_phase.XXXXXX", *path;
	struct phase_info pi;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/p.phase", dir);
	CHECK_INT(phase_write(path, PHASE_ESCALATE, "which key?", NULL), 0);
	CHECK_INT(phase_read(path, &pi), 0);
	CHECK_INT(pi.phase, PHASE_ESCALATE);
	CHECK_STR(pi.reason, "which key?");
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0644);
	CHECK_INT(phase_write(path, PHASE_NONE, NULL, NULL), 0);
	CHECK_INT(phase_read(path, &pi), 0);
	CHECK_INT(pi.phase, PHASE_NONE);
	CHECK(pi.mtime != 0);
	errno = 0;
	CHECK_INT(phase_write(path, PHASE_UNKNOWN, NULL, NULL), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(phase_write(path, PHASE_COUNT, NULL, NULL), -1);
	/* The file is as the last write that was taken left it. */
	CHECK_INT(phase_read(path, &pi), 0);
	CHECK_INT(pi.phase, PHASE_NONE);
	unlink(path);
	rmdir(dir);
	free(path);
}

/*
 * Every "PHASE:word" of the file at path names a phase of the table;
 * in a prompt (agent set), one the agent writes.  The number checked.
 */
static int
phase_words(const char *path, int agent)
{
	struct phase_info pi;
	struct buf b;
	const char *s;
	size_t n;
	int words = 0;

	buf_init(&b, 0);
	if (file_read(path, 1 << 20, &b) == -1) {
		buf_free(&b);
		return 0;
	}
	for (s = buf_str(&b); (s = strstr(s, "PHASE:")) != NULL; s += n) {
		n = 6 + strspn(s + 6, "abcdefghijklmnopqrstuvwxyz_");
		phase_parse(s, n, &pi);
		if (pi.phase == PHASE_UNKNOWN ||
		    (agent && !(phase_def(pi.phase)->writers & PHASE_BY_AGENT)))
			printf("#   %s: '%.*s'\n", path, (int)n, s);
		CHECK(pi.phase != PHASE_UNKNOWN);
		CHECK(!agent || phase_def(pi.phase)->writers & PHASE_BY_AGENT);
		words++;
	}
	buf_free(&b);
	return words;
}

/* phase_words() of the files of dir/sub ending in ext. */
static int
phase_words_dir(const char *top, const char *sub, const char *ext, int agent)
{
	struct dirent *e;
	char *path;
	size_t n;
	int words = 0;
	DIR *d;

	path = xasprintf("%s/%s", top, sub);
	d = opendir(path);
	free(path);
	CHECK(d != NULL);
	while (d != NULL && (e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (n < strlen(ext) ||
		    strcmp(e->d_name + n - strlen(ext), ext) != 0)
			continue;
		path = xasprintf("%s/%s/%s", top, sub, e->d_name);
		words += phase_words(path, agent);
		free(path);
	}
	if (d != NULL)
		closedir(d);
	return words;
}

/*
 * The phase words spelled outside the table: the prompts the agent
 * reads (formulas/, and the text the tools type into a session), the
 * guard's refusals, the logs and comments.  Each names a row, so a
 * phase renamed in the table and not in a prompt fails here.
 */
static void
test_phase_words(void)
{
	static const char *const dirs[] = {"common/act", "common/agent",
	    "common/run", "common/tick", "common/world", "dev-poll",
	    "review-poll", "supervisor-poll", NULL};
	const char *top = getenv("TOP") != NULL ? getenv("TOP") : ".";
	size_t i;
	int words;

	words = phase_words_dir(top, "formulas", ".md", 1);
	CHECK(words >= 10);
	for (i = 0; dirs[i] != NULL; i++) {
		words += phase_words_dir(top, dirs[i], ".c", 0);
		words += phase_words_dir(top, dirs[i], ".h", 0);
	}
	CHECK(words >= 40);
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
	CHECK_STR(p,
	    "/run/x/sessions/active/dev-harb-42/dev-session-harb-42.phase");
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
	CHECK_STR(p,
	    "/run/x/sessions/active/dev-harb-7/dev-impl-summary-harb-7.txt");
	free(p);
	p = runfiles_dev_session("harb", 7);
	CHECK_STR(p, "dev-harb-7");
	free(p);
	p = runfiles_idle_marker("dev-harb-7");
	CHECK_STR(p,
	    "/run/x/sessions/active/dev-harb-7/claude-idle-dev-harb-7.ts");
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
	/* DISINTO_LOG_DIR: the logs and the CI-fix counts below it, as
	 * upstream's newer main lays them out; the other files stay. */
	p = runfiles_review_log();
	CHECK_STR(p, "/opt/f/review/review.log");
	free(p);
	log_set_dir("/var/logs");
	p = runfiles_ci_fixes("harb");
	CHECK_STR(p, "/var/logs/dev/ci-fixes-harb.json");
	free(p);
	p = runfiles_dev_log("harb");
	CHECK_STR(p, "/var/logs/dev/dev-agent-harb.log");
	free(p);
	p = runfiles_dev_log_shared();
	CHECK_STR(p, "/var/logs/dev/dev-agent.log");
	free(p);
	p = runfiles_review_log();
	CHECK_STR(p, "/var/logs/review/review-poll.log");
	free(p);
	p = runfiles_supervisor_log();
	CHECK_STR(p, "/var/logs/supervisor/supervisor.log");
	free(p);
	p = runfiles_active_flag("dev");
	CHECK_STR(p, "/opt/f/state/.dev-active");
	free(p);
	p = runfiles_supervisor_prompt();
	CHECK_STR(p, "/opt/f/supervisor/PROMPT.md");
	free(p);
	log_set_dir("");
	p = runfiles_dev_log("harb");
	CHECK_STR(p, "/opt/f/dev/dev-agent-harb.log");
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
	RUN(test_phase_table);
	RUN(test_phase_text);
	RUN(test_phase_write);
	RUN(test_phase_words);
	RUN(test_phase_file);
	RUN(test_phase_planted);
	RUN(test_runfile_names);
	RUN(test_claim_touch_age);
	return check_main();
}
