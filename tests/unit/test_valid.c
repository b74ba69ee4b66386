/*
 * Tests for the name checks: git's branch names, Gitea's owner/name, the
 * toolkit's file-name parts, URLs.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "valid.h"

static void
test_valid_branch(void)
{
	static const char *const good[] = {"master", "main", "a/b", "fix/x-1",
	    "@", "x@y", "v1.2", "\xc3\xa9t\xc3\xa9"};
	static const char *const bad[] = {"", "a..b", "-x", "x.lock", "a/.b",
	    "a//b", "a/", "a.", "a@{b", "a b", "a~", "HEAD", "a/b.lock/c", ".a",
	    "a\\b", "a*", "a?", "a[", "a:b", "a^", "a\x01", "a\x7f", "/a"};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK_STR(valid_branch(good[i]), NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (valid_branch(bad[i]) == NULL) {
			printf("#   accepted branch '%s'\n", bad[i]);
			CHECK(0);
		}
}

static void
test_valid_repo(void)
{
	static const char *const good[] = {"johba/harb", "o/p", "a-b.c_d/x.y",
	    "O9/Repo_Name-1", "o/.hidden", "o/p.gitx"};
	static const char *const bad[] = {"", "nodash", "o/p?x=1#", "o/p/q",
	    "/p", "o/", "-o/p", "o-/p", "o--x/p", "o/..", "o/.", "o/-",
	    "o/p.git", "o/p.wiki", "o/a..b", "o p/q", "o/p q", "o/p#",
	    "\xc3\xa9/p"};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK_STR(valid_repo(good[i]), NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (valid_repo(bad[i]) == NULL) {
			printf("#   accepted repo '%s'\n", bad[i]);
			CHECK(0);
		}
	CHECK_STR(valid_repo("o/p?x=1#"),
	    "the repository name has characters other than letters, digits, "
	    "'-', '_', '.'");
}

static void
test_valid_name_url(void)
{
	CHECK_STR(valid_name("harb-1.x_y"), NULL);
	CHECK(valid_name("") != NULL);
	CHECK(valid_name(".x") != NULL);
	CHECK(valid_name("../x") != NULL);
	CHECK(valid_name("a b") != NULL);
	CHECK_STR(valid_url("http://127.0.0.1:3000"), NULL);
	CHECK_STR(valid_url("https://forge.example/x"), NULL);
	CHECK(valid_url("ftp://x") != NULL);
	CHECK(valid_url("http://") != NULL);
	CHECK(valid_url("http://a b") != NULL);
	CHECK(valid_url("http://a\n") != NULL);
}

static void
test_valid_number(void)
{
	const char *end;
	long long n = 7;

	CHECK_STR(valid_number(1), NULL);
	CHECK_STR(valid_number(VALID_NUMBER_MAX), NULL);
	CHECK_STR(valid_number(VALID_NUMBER_MAX + 1), "above 2^53-1");
	CHECK_STR(valid_number(0), "not a positive number");
	CHECK_STR(valid_number(-3), "not a positive number");
	CHECK_STR(valid_number_text("42", &n), NULL);
	CHECK_INT(n, 42);
	CHECK_STR(valid_number_text("9007199254740991", &n), NULL);
	CHECK_INT(n, VALID_NUMBER_MAX);
	/* 2^53 and 2^53 + 1 are one double: neither numbers anything. */
	CHECK_STR(valid_number_text("9007199254740992", &n), "above 2^53-1");
	CHECK_STR(valid_number_text("9007199254740993", &n), "above 2^53-1");
	CHECK_STR(valid_number_text("99999999999999999999999999", &n),
	    "above 2^53-1");
	CHECK_INT(n, VALID_NUMBER_MAX);
	CHECK_STR(valid_number_text("-1", &n), "not a number");
	CHECK_STR(valid_number_text("+1", &n), "not a number");
	CHECK_STR(valid_number_text("0", &n), "not a positive number");
	CHECK_STR(valid_number_text("012", &n), "a number with a leading zero");
	CHECK_STR(valid_number_text("12x", &n), "not a number");
	CHECK_STR(valid_number_text(" 12", &n), "not a number");
	CHECK_STR(valid_number_text("", &n), "not a number");
	CHECK_STR(valid_number_at("15 left", &end, &n), NULL);
	CHECK_INT(n, 15);
	CHECK_STR(end, " left");
	CHECK_STR(valid_number_at("18446744073709551617x", &end, &n),
	    "above 2^53-1");
	CHECK_STR(end, "x");
}

/* A commit ID: 7 to 64 lower-case hex digits. */
static void
test_valid_sha(void)
{
	CHECK(valid_sha("abcdef0") == NULL);
	CHECK(valid_sha("0123456789abcdef0123456789abcdef01234567") == NULL);
	CHECK(valid_sha("abcdef") != NULL);
	CHECK(valid_sha("ABCDEF0") != NULL);
	CHECK(valid_sha("-abcdef0") != NULL);
	CHECK(valid_sha("") != NULL);
	CHECK(valid_sha("abcdef0 ") != NULL);
	CHECK(
	    valid_sha("00000000000000000000000000000000000000000000000000000000"
		      "000000000") != NULL);
}

/* A secret of blanks is none. */
static void
test_valid_blank(void)
{
	CHECK(valid_blank(NULL));
	CHECK(valid_blank(""));
	CHECK(valid_blank("   "));
	CHECK(valid_blank(" \t\r\n"));
	CHECK(!valid_blank(" s "));
	CHECK(!valid_blank("s3cret"));
}

int
main(void)
{
	RUN(test_valid_branch);
	RUN(test_valid_repo);
	RUN(test_valid_name_url);
	RUN(test_valid_number);
	RUN(test_valid_sha);
	RUN(test_valid_blank);
	return check_main();
}
