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

int
main(void)
{
	RUN(test_valid_branch);
	RUN(test_valid_repo);
	RUN(test_valid_name_url);
	return check_main();
}
