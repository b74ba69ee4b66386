/*
 * Unit tests for common/base/cap.c: text within its cap is kept as it is;
 * beyond it, cut on a character boundary with the cut said.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cap.h"
#include "check.h"

static int
is(char *got, const char *want)
{
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("#   got \"%s\", want \"%s\"\n", got, want);
	free(got);
	return ok;
}

static void
test_head(void)
{
	struct buf b;

	CHECK(is(cap_head("abc", 3), "abc"));
	CHECK(is(cap_head("abcdef", 4), "abcd\n[... cut: 2 more bytes]\n"));
	/* Never inside a character: "é" is two bytes. */
	CHECK(is(cap_head("ab\xc3\xa9z", 3), "ab\n[... cut: 3 more bytes]\n"));
	CHECK(is(cap_head(NULL, 3), ""));
	CHECK(is(cap_head("", 0), ""));
	buf_init(&b, 0);
	buf_puts(&b, "> ");
	cap_append(&b, "0123456789", 5);
	cap_append(&b, NULL, 5);
	CHECK(strcmp(buf_str(&b), "> 01234\n[... cut: 5 more bytes]\n") == 0);
	buf_free(&b);
}

static void
test_tail(void)
{
	CHECK(is(cap_tail("abc", 3), "abc"));
	CHECK(is(cap_tail("abcdef", 2), "[... cut: 4 earlier bytes]\nef"));
	CHECK(is(cap_tail("a\xc3\xa9z", 2), "[... cut: 3 earlier bytes]\nz"));
	CHECK(is(cap_tail(NULL, 2), ""));
}

int
main(void)
{
	RUN(test_head);
	RUN(test_tail);
	return check_main();
}
