/*
 * Unit tests for common/base/utf8.c: cuts never split a character, leave short
 * text alone and mark what was cut.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "utf8.h"

/* "é" is 2 bytes, "€" 3, "😀" 4. */
static void
test_prefix_len(void)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
	size_t len = strlen(s);

	CHECK_INT(utf8_prefix_len(s, len, 100), len);
	CHECK_INT(utf8_prefix_len(s, len, len), len);
	CHECK_INT(utf8_prefix_len(s, len, 0), 0);
	CHECK_INT(utf8_prefix_len(s, len, 1), 1);
	CHECK_INT(utf8_prefix_len(s, len, 2), 1); /* inside é */
	CHECK_INT(utf8_prefix_len(s, len, 3), 3);
	CHECK_INT(utf8_prefix_len(s, len, 4), 3); /* inside € */
	CHECK_INT(utf8_prefix_len(s, len, 5), 3);
	CHECK_INT(utf8_prefix_len(s, len, 6), 6);
	CHECK_INT(utf8_prefix_len(s, len, 9), 6); /* inside 😀 */
	CHECK_INT(utf8_prefix_len(s, len, 10), 10);
	/* Not UTF-8: stray continuation bytes are passed over, never past 0. */
	CHECK_INT(utf8_prefix_len("\x80\x80\x80", 3, 2), 0);
	CHECK_INT(utf8_prefix_len(NULL, 0, 5), 0);
}

static void
test_suffix_start(void)
{
	const char *s = "a\xc3\xa9\xe2\x82\xac";
	size_t len = strlen(s);

	CHECK_INT(utf8_suffix_start(s, len, 100), 0);
	CHECK_INT(utf8_suffix_start(s, len, 3), 3);
	CHECK_INT(utf8_suffix_start(s, len, 4), 3); /* not inside é */
	CHECK_INT(utf8_suffix_start(s, len, 5), 1);
	CHECK_INT(utf8_suffix_start(s, len, 2), 6); /* € does not fit */
	CHECK_INT(utf8_suffix_start(s, len, 0), len);
	CHECK_INT(utf8_suffix_start("\x80\x80\x80", 3, 2), 3);
}

static void
test_cut_and_tail(void)
{
	char *t;

	t = utf8_cut("short", 10, " [cut]");
	CHECK_STR(t, "short");
	free(t);
	t = utf8_cut("a\xc3\xa9z", 2, " [cut]");
	CHECK_STR(t, "a [cut]");
	free(t);
	t = utf8_cut("abcdef", 3, NULL);
	CHECK_STR(t, "abc");
	free(t);
	t = utf8_cut(NULL, 3, "x");
	CHECK_STR(t, "");
	free(t);
	t = utf8_tail("ab\xe2\x82\xac", 4);
	CHECK_STR(t, "b\xe2\x82\xac");
	free(t);
	t = utf8_tail("ab\xe2\x82\xac", 2);
	CHECK_STR(t, "");
	free(t);
	t = utf8_tail(NULL, 2);
	CHECK_STR(t, "");
	free(t);
}

int
main(void)
{
	RUN(test_prefix_len);
	RUN(test_suffix_start);
	RUN(test_cut_and_tail);
	return check_main();
}
