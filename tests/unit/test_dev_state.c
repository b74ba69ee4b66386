/*
 * Unit tests for what dev-poll remembers of an issue between ticks
 * (dev-poll/state.c, dev-state-P-N), linked with dev-poll's archive: the
 * fields read back as written, a missing file is an empty state, an
 * empty state removes the file, and a file that is there but cannot be
 * read (a FIFO) is unknown, never empty.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "dev-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

static char dir[] = "/tmp/test_dev_state.XXXXXX";
static struct config cfg;
static struct dev_ctx ctx;

static char *
state_path(long long issue)
{
	return runfiles_dev_state("p", issue);
}

static void
test_state_missing(void)
{
	struct dp_state st;

	memset(&st, 0xff, sizeof(st));
	CHECK_INT(dp_state_read(&ctx, 1, &st), 0);
	CHECK_INT(st.pr, 0);
	CHECK_STR(st.merge, "");
	CHECK_STR(st.refused, "");
	CHECK_STR(st.unknown, "");
}

static void
test_state_round_trip(void)
{
	struct dp_state st, back;
	char *path = state_path(2);

	memset(&st, 0, sizeof(st));
	st.pr = 12;
	snprintf(st.merge, sizeof(st.merge), "%s", "aaaa");
	snprintf(st.refused, sizeof(st.refused), "%s", "bbbb");
	st.status = 405;
	st.refused_at = 1700000000;
	snprintf(st.answer, sizeof(st.answer), "%s", "not\nmergeable\r");
	snprintf(st.rebase, sizeof(st.rebase), "%s", "bbbb");
	snprintf(st.unknown, sizeof(st.unknown), "%s", "PHASE:bogus");
	st.no_pr_at = 1700000001;
	CHECK_INT(dp_state_write(&ctx, 2, &st), 0);
	CHECK_INT(dp_state_read(&ctx, 2, &back), 0);
	CHECK_INT(back.pr, 12);
	CHECK_STR(back.merge, "aaaa");
	CHECK_STR(back.refused, "bbbb");
	CHECK_INT(back.status, 405);
	CHECK_INT(back.refused_at, 1700000000);
	/* The forge's words are kept on one line. */
	CHECK_STR(back.answer, "not mergeable");
	CHECK_STR(back.rebase, "bbbb");
	CHECK_STR(back.unknown, "PHASE:bogus");
	CHECK_INT(back.no_pr_at, 1700000001);
	/* Nothing left: the file goes. */
	memset(&st, 0, sizeof(st));
	CHECK_INT(dp_state_write(&ctx, 2, &st), 0);
	CHECK_INT(access(path, F_OK), -1);
	free(path);
}

static void
test_state_note_pr(void)
{
	struct dp_state st;
	char *path = state_path(0);

	CHECK_INT(dp_state_note_pr(&ctx, 3, 30), 0);
	CHECK_INT(dp_state_read(&ctx, 3, &st), 0);
	CHECK_INT(st.pr, 30);
	CHECK_INT(dp_state_note_pr(&ctx, 3, 31), 0);
	CHECK_INT(dp_state_read(&ctx, 3, &st), 0);
	CHECK_INT(st.pr, 31);
	/* A chore PR has no issue to remember it for. */
	CHECK_INT(dp_state_note_pr(&ctx, 0, 5), 0);
	CHECK_INT(access(path, F_OK), -1);
	CHECK_INT(dp_state_forget(&ctx, 3), 0);
	CHECK_INT(dp_state_read(&ctx, 3, &st), 0);
	CHECK_INT(st.pr, 0);
	free(path);
}

/*
 * A state that is there but cannot be read (a FIFO) is unknown: what
 * depends on it waits, and noting a PR does not write over it.  One that
 * others could have written is no state of ours (file.h): none.
 */
static void
test_state_unreadable(void)
{
	struct dp_state st;
	char *path = state_path(4);

	CHECK_INT(mkfifo(path, 0600), 0);
	CHECK_INT(dp_state_read(&ctx, 4, &st), -1);
	CHECK_INT(dp_state_note_pr(&ctx, 4, 40), -1);
	CHECK_INT(unlink(path), 0);
	CHECK_INT(dp_state_note_pr(&ctx, 4, 40), 0);
	CHECK_INT(chmod(path, 0666), 0);
	CHECK_INT(dp_state_read(&ctx, 4, &st), 0);
	CHECK_INT(st.pr, 0);
	CHECK_INT(unlink(path), 0);
	free(path);
}

static void
test_state_listed(void)
{
	long long *nums;
	size_t n;
	char *junk = xasprintf("%s/dev-state-p-7.tmp", dir);
	FILE *f = fopen(junk, "w");

	CHECK(f != NULL);
	if (f != NULL)
		fclose(f);
	CHECK_INT(dp_state_note_pr(&ctx, 6, 60), 0);
	CHECK_INT(runfiles_dev_state_issues("p", &nums, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(n == 1 ? nums[0] : 0, 6);
	free(nums);
	unlink(junk);
	free(junk);
	CHECK_INT(dp_state_forget(&ctx, 6), 0);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	runfiles_init(dir, dir);
	cfg.project_name = "p";
	cfg.run_dir = dir;
	ctx.cfg = &cfg;
	RUN(test_state_missing);
	RUN(test_state_round_trip);
	RUN(test_state_note_pr);
	RUN(test_state_unreadable);
	RUN(test_state_listed);
	/* Every test removed what it made. */
	if (rmdir(dir) == -1)
		printf("not ok - the test directory is left empty\n");
	return check_main();
}
