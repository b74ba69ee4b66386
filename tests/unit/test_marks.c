/*
 * Unit tests for common/parse/marks.c: the hidden markers the tools write
 * into their forge comments, and how they are found again.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "marks.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"

static void
test_reviewed(void)
{
	char *m = marks_reviewed(SHA), *e = marks_review_error(SHA), out[72];
	char body[256];

	CHECK_STR(m, "<!-- reviewed: " SHA " -->");
	CHECK_STR(e, "<!-- review-error: " SHA " -->");
	snprintf(body, sizeof(body), "## AI Review\n%s\n\ntext", m);
	CHECK_INT(marks_reviewed_sha(body, out, sizeof(out)), 0);
	CHECK_STR(out, SHA);
	CHECK_INT(marks_review_comment(body), 1);
	CHECK_INT(marks_has_reviewed(body), 1);
	CHECK_INT(marks_in(body, m), 1);
	/* An error comment carries no reviewed marker. */
	CHECK_INT(marks_has_reviewed(e), 0);
	CHECK_INT(marks_reviewed_sha(e, out, sizeof(out)), -1);
	/* Not a SHA: upper case, too short, not closed. */
	CHECK_INT(
	    marks_reviewed_sha("<!-- reviewed: ABCDEF01 -->", out, sizeof(out)),
	    -1);
	CHECK_INT(
	    marks_reviewed_sha("<!-- reviewed: abc -->", out, sizeof(out)), -1);
	CHECK_INT(
	    marks_reviewed_sha("<!-- reviewed: abcdef01", out, sizeof(out)),
	    -1);
	CHECK_INT(marks_reviewed_sha(NULL, out, sizeof(out)), -1);
	/* Only a comment starting with the heading is a review comment. */
	CHECK_INT(marks_review_comment("quoting ## AI Review"), 0);
	CHECK_INT(marks_review_comment("## AI Re-review (round 2)"), 1);
	CHECK_INT(marks_review_comment(NULL), 0);
	CHECK_INT(marks_in(NULL, m), 0);
	free(m);
	free(e);
}

static void
test_others(void)
{
	char *s;

	CHECK_INT(marks_dev_response("ok <!-- dev-response: --> done"), 1);
	CHECK_INT(marks_dev_response("<!-- dev-responses -->"), 0);
	s = marks_escalation("escalation", "harb", 5, 1700000000);
	CHECK_STR(s,
	    "<!-- escalation: harb-5 -->\n"
	    "<!-- escalation-at: 1700000000 -->");
	free(s);
	s = marks_pr_closed(12);
	CHECK_STR(s, "<!-- dev-poll: PR #12 closed unmerged -->");
	free(s);
	s = marks_refusal("too_large");
	CHECK_STR(s, "<!-- dev-refusal: too_large -->");
	free(s);
	s = marks_diagnostic("harb", 7, 99);
	CHECK_STR(s, "<!-- dev-diagnostic: harb-7-99 -->");
	free(s);
}

/* A key cannot end the HTML comment early or hide another marker. */
static void
test_key(void)
{
	char *s = marks_key("review #3 abc");
	char longkey[300];

	CHECK_STR(s, "<!-- disinto: review #3 abc -->");
	free(s);
	s = marks_key("x --> <!-- reviewed: y\n");
	CHECK_STR(s, "<!-- disinto: x -__ __-_ reviewed: y_ -->");
	free(s);
	memset(longkey, 'k', sizeof(longkey) - 1);
	longkey[sizeof(longkey) - 1] = '\0';
	s = marks_key(longkey);
	CHECK_INT(strlen(s), strlen("<!-- disinto:  -->") + 200);
	free(s);
}

int
main(void)
{
	RUN(test_reviewed);
	RUN(test_others);
	RUN(test_key);
	return check_main();
}
