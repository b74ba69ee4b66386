/*
 * Unit tests for common/world/issueref.c (dev-poll.sh's issue extraction,
 * and the title and "fixes #N" matches of dev-poll's PR lookups).
 */
#include <stdlib.h>

#include "check.h"
#include "issueref.h"

static void
test_branch(void)
{
	CHECK_INT(issueref_from_pr("fix/issue-42", "title #7", "Fixes #9"), 42);
	CHECK_INT(issueref_from_pr("fix/issue-42-retry", NULL, NULL), 42);
	/* Anywhere in the branch, as upstream's lookbehind. */
	CHECK_INT(issueref_from_pr("user/fix/issue-17", NULL, NULL), 17);
	CHECK_INT(issueref_from_pr("fix/issue-x-fix/issue-5", NULL, NULL), 5);
	CHECK_INT(issueref_from_pr("fix/issue-1-fix/issue-2", NULL, NULL), 1);
	/* Case matters in the branch. */
	CHECK_INT(issueref_from_pr("Fix/Issue-3", NULL, NULL), -1);
	CHECK_INT(issueref_from_pr("fix/issue-", NULL, NULL), -1);
	CHECK_INT(issueref_from_pr("fix/issues-4", NULL, NULL), -1);
}

static void
test_title(void)
{
	CHECK_INT(issueref_from_pr("feature/x", "fix: thing (#12)", NULL), 12);
	/* The last one. */
	CHECK_INT(issueref_from_pr("feature/x", "#3 then #4 and #5x", NULL), 5);
	CHECK_INT(
	    issueref_from_pr("feature/x", "no number # here", "closes #8"), 8);
	CHECK_INT(issueref_from_pr("feature/x", "issue#21", NULL), 21);
}

static void
test_body(void)
{
	CHECK_INT(issueref_from_pr("b", "t", "This Fixes #31.\nCloses #32"),
	    31);
	CHECK_INT(issueref_from_pr("b", "t", "CLOSES#33"), 33);
	CHECK_INT(issueref_from_pr("b", "t", "resolves \t #34"), 34);
	CHECK_INT(issueref_from_pr("b", "t", "see #1, then resolves #35"), 35);
	/* Inside a longer word, as upstream. */
	CHECK_INT(issueref_from_pr("b", "t", "discloses #36"), 36);
	/* Not across a line break, not after a colon. */
	CHECK_INT(issueref_from_pr("b", "t", "fixes\n#37"), -1);
	CHECK_INT(issueref_from_pr("b", "t", "Fixes: #38"), -1);
	CHECK_INT(issueref_from_pr("b", "t", "fixed #39"), -1);
	/* The first closing keyword that has a number wins. */
	CHECK_INT(issueref_from_pr("b", "t", "fixes the bug; closes #40"), 40);
	CHECK_INT(issueref_from_pr("b", "t", "fixes #41\r\nfixes #42"), 41);
}

static void
test_chore(void)
{
	CHECK_INT(issueref_from_pr("chore/gardener-2024", "tidy", ""), 0);
	CHECK_INT(issueref_from_pr("chore/planner-x", NULL, NULL), 0);
	CHECK_INT(issueref_from_pr("chore/predictor-1", "t", "b"), 0);
	/* A number still wins over the chore rule. */
	CHECK_INT(issueref_from_pr("chore/planner-x", "plan (#50)", NULL), 50);
	CHECK_INT(issueref_from_pr("chore/other-x", "t", "b"), -1);
	CHECK_INT(issueref_from_pr("x/chore/planner-x", "t", "b"), -1);
}

static void
test_none(void)
{
	CHECK_INT(issueref_from_pr(NULL, NULL, NULL), -1);
	CHECK_INT(issueref_from_pr("", "", ""), -1);
	CHECK_INT(issueref_from_pr("main", "Update README", "Some text"), -1);
}

static void
test_bounds(void)
{
	CHECK_INT(issueref_from_pr("fix/issue-0", "#0", "fixes #0"), -1);
	CHECK_INT(issueref_from_pr("fix/issue-0", "(#7)", NULL), 7);
	CHECK_INT(issueref_from_pr("b", "#99999999999999999999", NULL), -1);
	CHECK_INT(issueref_from_pr("b", "#99999999999999999999 #6", NULL), 6);
	CHECK_INT(issueref_from_pr("b", "#999999999999", NULL), 999999999999LL);
	/* Up to 2^53-1, the largest the forge's JSON holds exactly. */
	CHECK_INT(issueref_from_pr("b", "#9007199254740991", NULL),
	    9007199254740991LL);
	CHECK_INT(issueref_from_pr("b", "#9007199254740992", NULL), -1);
	CHECK_INT(issueref_from_pr("b", "#9007199254740993", NULL), -1);
	CHECK_INT(issueref_from_pr("fix/issue-9007199254740993", NULL, NULL),
	    -1);
	CHECK_INT(issueref_from_pr("fix/issue-9007199254740991", NULL, NULL),
	    9007199254740991LL);
	CHECK_INT(issueref_from_pr("b", "t", "fixes #9007199254740993"), -1);
	CHECK_INT(issueref_from_pr("b", "t", "fixes #18446744073709551617"),
	    -1);
	CHECK_INT(issueref_from_pr("fix/issue-007", NULL, NULL), 7);
}

/* A title names #N not followed by a digit or a word character. */
static void
test_title_names(void)
{
	CHECK_INT(issueref_title_names("fix: thing (#12)", 12), 1);
	CHECK_INT(issueref_title_names("fix: thing (#12)", 1), 0);
	CHECK_INT(issueref_title_names("#123", 12), 0);
	CHECK_INT(issueref_title_names("#12a", 12), 0);
	CHECK_INT(issueref_title_names("#3 and #4", 4), 1);
	CHECK_INT(issueref_title_names(NULL, 4), 0);
}

/* "fixes #N", any case, also inside a word ("Prefixes #N"), as before. */
static void
test_text_fixes(void)
{
	long long *v;
	size_t n;

	CHECK_INT(issueref_text_fixes("Fixes #5", 5), 1);
	CHECK_INT(issueref_text_fixes("this FIXES #5.", 5), 1);
	CHECK_INT(issueref_text_fixes("fixes #55", 5), 0);
	CHECK_INT(issueref_text_fixes("fixes 5", 5), 0);
	CHECK_INT(issueref_text_fixes(NULL, 5), 0);
	issueref_fixes("Fixes #1, fixes #2x and FIXES #3\nfixes #", &v, &n);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(v[0], 1);
		CHECK_INT(v[1], 3);
	}
	free(v);
	issueref_fixes(NULL, &v, &n);
	CHECK_INT(n, 0);
	CHECK(v == NULL);
}

int
main(void)
{
	RUN(test_branch);
	RUN(test_title);
	RUN(test_body);
	RUN(test_chore);
	RUN(test_none);
	RUN(test_bounds);
	RUN(test_title_names);
	RUN(test_text_fixes);
	return check_main();
}
