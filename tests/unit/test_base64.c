/*
 * Unit tests for common/base/base64.c: the test vectors of RFC 4648 section
 * 10, and bytes of every value.
 */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "check.h"

static int
encodes(const char *in, size_t len, const char *want)
{
	char *got = base64_encode(in, len);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("#   got \"%s\", want \"%s\"\n", got, want);
	free(got);
	return ok;
}

static void
test_rfc4648(void)
{
	CHECK(encodes("", 0, ""));
	CHECK(encodes("f", 1, "Zg=="));
	CHECK(encodes("fo", 2, "Zm8="));
	CHECK(encodes("foo", 3, "Zm9v"));
	CHECK(encodes("foob", 4, "Zm9vYg=="));
	CHECK(encodes("fooba", 5, "Zm9vYmE="));
	CHECK(encodes("foobar", 6, "Zm9vYmFy"));
}

static void
test_binary(void)
{
	CHECK(encodes("\xfb\xff\xbf", 3, "+/+/"));
	CHECK(encodes("\0\0\0", 3, "AAAA"));
	CHECK(encodes("bot:tok\n", 8, "Ym90OnRvawo="));
}

int
main(void)
{
	RUN(test_rfc4648);
	RUN(test_binary);
	return check_main();
}
