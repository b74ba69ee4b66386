/*
 * Unit tests for common/parse/deps.c, the port of parse-deps.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "deps.h"

/* The parse of body as "1,2,3" ("" when empty).  Static storage. */
static const char *
parse(const char *body, long long self)
{
	static char text[256];
	long long sentinel, *v = &sentinel; /* must be replaced */
	size_t n = 99, i, len = 0;

	text[0] = '\0';
	if (deps_parse(body, self, &v, &n) != 0)
		return "error";
	if (n == 0 && v != NULL)
		return "non-NULL for none";
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		    "%s%lld", i ? "," : "", v[i]);
	free(v);
	return text;
}

static void
test_empty(void)
{
	CHECK_STR(parse("", 0), "");
	CHECK_STR(parse(NULL, 0), "");
	CHECK_STR(parse("just text #12 mentioned", 0), "");
}

static void
test_sections(void)
{
	CHECK_STR(parse("## Dependencies\n- #12\n- #3\n", 0), "3,12");
	CHECK_STR(parse("## Depends on\n#4 and #5\n", 0), "4,5");
	CHECK_STR(parse("## Blocked by\n* #6\n", 0), "6");
	CHECK_STR(parse("# Dependencies\n#7\n", 0), "7");
	CHECK_STR(parse("##Dependencies\n#8\n", 0), "8");
	CHECK_STR(parse("##   Dependencies:\n#9\n", 0), "9");
	/* Three hashes open nothing. */
	CHECK_STR(parse("### Dependencies\n#10\n", 0), "");
	/* Heading text after the keyword is fine. */
	CHECK_STR(parse("## Dependencies (must land first)\n#11\n", 0), "11");
}

static void
test_section_end(void)
{
	const char *body = "## Dependencies\n"
			   "- #1\n"
			   "### Notes inside\n"
			   "- #2\n"
			   "#3 starts a line\n"
			   "## Related\n"
			   "- #4\n"
			   "# Other\n"
			   "#5\n";

	CHECK_STR(parse(body, 0), "1,2,3");
	/* A "## " line with nothing after it still ends the section. */
	CHECK_STR(parse("## Dependencies\n#1\n## \n#2\n", 0), "1");
}

static void
test_heading_line_itself(void)
{
	/* The section pass skips the heading; the inline pass sees it. */
	CHECK_STR(parse("## Dependencies #5\n", 0), "");
	CHECK_STR(parse("## Depends on #5\n", 0), "5");
}

static void
test_inline(void)
{
	CHECK_STR(parse("This depends on #42.\n", 0), "42");
	CHECK_STR(parse("Blocked by #7 and #8\n", 0), "7,8");
	CHECK_STR(parse("DEPENDS ON #1\nblocked BY #2\n", 0), "1,2");
	CHECK_STR(parse("depends on\n#3\n", 0), "");
	CHECK_STR(parse("dependson #3\n", 0), "");
}

static void
test_related(void)
{
	CHECK_STR(parse("## Related\n- #4\n- see #5\n", 0), "");
	/* An inline keyword counts even there, as upstream. */
	CHECK_STR(parse("## Related\n- #4 depends on #6\n", 0), "4,6");
}

static void
test_fenced(void)
{
	const char *body = "Intro\n"
			   "```\n"
			   "depends on #100\n"
			   "```\n"
			   "depends on #1\n"
			   "```sh\n"
			   "blocked by #101\n";

	CHECK_STR(parse(body, 0), "1");
	/* Sections are not fence-aware upstream: the #N inside counts. */
	CHECK_STR(parse("## Dependencies\n```\n#9\n```\n", 0), "9");
	/* An indented fence is not a fence. */
	CHECK_STR(parse(" ```\ndepends on #2\n", 0), "2");
}

static void
test_self_and_dups(void)
{
	CHECK_STR(parse("## Dependencies\n#5\n#3\n#5\n#7\ndepends on #3\n", 5),
	    "3,7");
	CHECK_STR(parse("depends on #5\n", 5), "");
}

static void
test_odd_numbers(void)
{
	CHECK_STR(parse("depends on #12abc\n", 0), "12");
	CHECK_STR(parse("depends on x#13 and ##14\n", 0), "13,14");
	CHECK_STR(parse("depends on #007\n", 0), "7");
	CHECK_STR(parse("depends on #0 and #\n", 0), "");
	CHECK_STR(parse("depends on #999999999999 and #1\n", 0),
	    "1,999999999999");
	CHECK_STR(parse("depends on #9999999999999999999999999 and #1\n", 0),
	    "1");
	/* Up to 2^53-1, the largest the forge's JSON holds exactly. */
	CHECK_STR(parse("depends on #9007199254740991 and #9007199254740992 "
			"and #9007199254740993\n",
		      0),
	    "9007199254740991");
}

static void
test_crlf(void)
{
	CHECK_STR(parse("## Dependencies\r\n- #21\r\n## Notes\r\n- #22\r\n"
			"Blocked by #23\r\n",
		      0),
	    "21,23");
	CHECK_STR(parse("```\r\ndepends on #1\r\n```\r\ndepends on #2\r\n", 0),
	    "2");
}

static void
test_no_trailing_newline(void)
{
	CHECK_STR(parse("## Dependencies\n#31", 0), "31");
	CHECK_STR(parse("blocked by #32", 0), "32");
}

int
main(void)
{
	RUN(test_empty);
	RUN(test_sections);
	RUN(test_section_end);
	RUN(test_heading_line_itself);
	RUN(test_inline);
	RUN(test_related);
	RUN(test_fenced);
	RUN(test_self_and_dups);
	RUN(test_odd_numbers);
	RUN(test_crlf);
	RUN(test_no_trailing_newline);
	return check_main();
}
