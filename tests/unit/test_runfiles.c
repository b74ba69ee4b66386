/*
 * Unit tests for the names of common/run/runfiles.c: every name a function
 * makes is read back to its number by the matching parser, and nothing
 * else is.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "runfiles.h"

static void
test_names(void)
{
	char *s;

	runfiles_init("/run/d", "/factory");
	s = runfiles_branch(42);
	CHECK_STR(s, "fix/issue-42");
	free(s);
	s = runfiles_dev_session("harb", 7);
	CHECK_STR(s, "dev-harb-7");
	free(s);
	s = runfiles_review_session("harb", 9);
	CHECK_STR(s, "review-harb-9");
	free(s);
	s = runfiles_dev_session_prefix("my-proj");
	CHECK_STR(s, "dev-my-proj-");
	free(s);
	s = runfiles_review_session_prefix("harb");
	CHECK_STR(s, "review-harb-");
	free(s);
	s = runfiles_worktree("harb", 3);
	CHECK_STR(s, "/run/d/harb-worktree-3");
	free(s);
	s = runfiles_phase("harb", 3);
	CHECK_STR(s,
	    "/run/d/sessions/active/dev-harb-3/dev-session-harb-3.phase");
	free(s);
}

/* The Claude session id file, by session and beside a hook's marker. */
static void
test_claude_id(void)
{
	char *s, *m;

	runfiles_init("/run/d", "/factory");
	s = runfiles_claude_id("dev-harb-3");
	CHECK_STR(s, "/run/d/sessions/active/dev-harb-3/claude-id-dev-harb-3");
	free(s);
	m = runfiles_idle_marker("dev-harb-3");
	s = runfiles_claude_id_beside(m);
	CHECK_STR(s, "/run/d/sessions/active/dev-harb-3/claude-id-dev-harb-3");
	free(s);
	free(m);
	m = runfiles_exited_marker("dev-harb-3");
	s = runfiles_claude_id_beside(m);
	CHECK_STR(s, "/run/d/sessions/active/dev-harb-3/claude-id-dev-harb-3");
	free(s);
	free(m);
	s = runfiles_claude_id_beside("/elsewhere/claude-idle-x.ts");
	CHECK_STR(s, "/elsewhere/claude-id-x");
	free(s);
	/* Not a marker: the phase file, a branch, an empty name. */
	CHECK(runfiles_claude_id_beside("/run/d/dev-session-harb-3.phase") ==
	    NULL);
	CHECK(runfiles_claude_id_beside("master") == NULL);
	CHECK(runfiles_claude_id_beside("/run/d/claude-idle-.ts") == NULL);
	CHECK(runfiles_claude_id_beside("/run/d/claude-idle-x.tsv") == NULL);
	CHECK(runfiles_is_run_name("claude-id-dev-harb-3"));
	CHECK(runfiles_is_run_name("dev-escalation-parked-harb-3"));
}

/* name(N) read back gives N, for each name and parser pair. */
static void
test_round_trip(void)
{
	static const long long nums[] = {1, 9, 10, 12345, 999999999999LL};
	char *s;
	size_t i;

	runfiles_init("/run/d", "/factory");
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		long long n = nums[i];

		s = runfiles_phase("p-1", n);
		CHECK_INT(runfiles_phase_issue("p-1", s), n);
		free(s);
		s = runfiles_review_phase("p-1", n);
		CHECK_INT(runfiles_review_phase_pr("p-1", s), n);
		free(s);
		s = runfiles_dev_session("p-1", n);
		CHECK_INT(runfiles_dev_session_issue("p-1", s), n);
		CHECK_INT(runfiles_dev_session_like(s), 1);
		free(s);
		s = runfiles_review_session("p-1", n);
		CHECK_INT(runfiles_review_session_pr("p-1", s), n);
		free(s);
		s = runfiles_worktree("p-1", n);
		CHECK_INT(runfiles_worktree_issue("p-1", s), n);
		CHECK_INT(runfiles_review_worktree_pr("p-1", s), -1);
		free(s);
		s = runfiles_review_worktree("p-1", n);
		CHECK_INT(runfiles_review_worktree_pr("p-1", s), n);
		CHECK_INT(runfiles_worktree_issue("p-1", s), -1);
		free(s);
		s = runfiles_branch(n);
		CHECK_INT(runfiles_branch_issue(s), n);
		free(s);
	}
}

static void
test_not_names(void)
{
	/* Another project, another kind, leading zeros, junk, too long. */
	CHECK_INT(runfiles_dev_session_issue("harb", "dev-harbx-1"), -1);
	CHECK_INT(runfiles_dev_session_issue("harb", "review-harb-1"), -1);
	CHECK_INT(runfiles_dev_session_issue("harb", "dev-harb-01"), -1);
	CHECK_INT(runfiles_dev_session_issue("harb", "dev-harb-1x"), -1);
	CHECK_INT(runfiles_dev_session_issue("harb", "dev-harb-"), -1);
	CHECK_INT(runfiles_dev_session_issue("harb", "x/dev-harb-1"), -1);
	CHECK_INT(runfiles_dev_session_issue("harb", "dev-harb-1234567890123"),
	    -1);
	CHECK_INT(runfiles_review_session_pr("harb", "review-harb-+1"), -1);
	CHECK_INT(runfiles_phase_issue("harb", "/d/dev-session-harb-3.txt"),
	    -1);
	CHECK_INT(runfiles_phase_issue("harb", "/d/dev-session-harb-3.phase"),
	    3);
	CHECK_INT(runfiles_branch_issue("fix/issue-"), -1);
	CHECK_INT(runfiles_branch_issue("fix/issue-4/x"), -1);
	CHECK_INT(runfiles_branch_issue("feat/fix/issue-4"), -1);
	CHECK_INT(runfiles_branch_issue("fix/issue-4-more"), -1);
	CHECK_INT(runfiles_branch_issue("fix/issue-0"), 0);
	CHECK_INT(runfiles_dev_session_like("dev-x-1"), 1);
	CHECK_INT(runfiles_dev_session_like("dev-"), 0);
	CHECK_INT(runfiles_dev_session_like("dev-a b"), 0);
	CHECK_INT(runfiles_dev_session_like("review-x-1"), 0);
}

/* The phase files of a project listed by number; anything else left out. */
static void
test_listing(void)
{
	/* In their session directories; one planted in another's. */
	static const char *const files[] = {"dev-p-3/dev-session-p-3.phase",
	    "dev-p-12/dev-session-p-12.phase", "dev-p-0/dev-session-p-0.phase",
	    "dev-p-x/dev-session-p-x.phase", "dev-q-4/dev-session-q-4.phase",
	    "review-p-5/review-session-p-5.phase",
	    "dev-p-7/dev-session-p-7.txt", "dev-p-3/dev-session-p-9.phase"};
	char dir[] = "/tmp/test-runfiles-XXXXXX", path[256];
	long long *nums, sum = 0;
	size_t i, n;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	runfiles_init(dir, "/factory");
	CHECK_INT(runfiles_phase_issues("p", &nums, &n), 0);
	CHECK_INT(n, 0);
	free(nums);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/sessions/active/%s", dir,
		    files[i]);
		CHECK_INT(runfiles_session_mkdir_for(path), 0);
		if ((f = fopen(path, "w")) != NULL)
			fclose(f);
	}
	CHECK_INT(runfiles_phase_issues("p", &nums, &n), 0);
	CHECK_INT(n, 2);
	for (i = 0; i < n; i++)
		sum += nums[i];
	CHECK_INT(sum, 15);
	free(nums);
	CHECK_INT(runfiles_review_phase_prs("p", &nums, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(n > 0 ? nums[0] : 0, 5);
	free(nums);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/sessions/active/%s", dir,
		    files[i]);
		unlink(path);
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/sessions/active", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/sessions", dir);
	rmdir(path);
	rmdir(dir);
}

/*
 * A claim takes a file of this user alone (read, then gone), and leaves
 * one that group or others could have written where it is, unread.
 */
static void
test_claim(void)
{
	char dir[] = "/tmp/test-runfiles-XXXXXX", path[128];
	struct buf b;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	runfiles_init(dir, "/factory");
	snprintf(path, sizeof(path), "%s/dev-escalation-reply", dir);
	buf_init(&b, 0);
	CHECK_INT(runfiles_claim(path, 100, &b), 0);
	if ((f = fopen(path, "w")) != NULL) {
		fputs("yes\n", f);
		fclose(f);
	}
	CHECK_INT(chmod(path, 0666), 0);
	CHECK_INT(runfiles_claim(path, 100, &b), 0);
	CHECK_INT(b.len, 0);
	CHECK_INT(access(path, F_OK), 0);
	CHECK_INT(chmod(path, 0644), 0);
	CHECK_INT(runfiles_claim(path, 100, &b), 1);
	CHECK_STR(buf_str(&b), "yes\n");
	CHECK(access(path, F_OK) == -1);
	buf_free(&b);
	rmdir(dir);
}

int
main(void)
{
	RUN(test_names);
	RUN(test_claude_id);
	RUN(test_round_trip);
	RUN(test_not_names);
	RUN(test_listing);
	RUN(test_claim);
	return check_main();
}
