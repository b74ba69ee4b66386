/*
 * Unit tests for the backlog projection (common/world/backlog.c) over a
 * canned forge (tests/unit/canned.h): only open issues carrying the
 * label, never a PR, whatever the forge's filters let through; the
 * tools' order (created, then number); dependencies, priority, the
 * labels that keep an issue from the dev agent; titles kept for the
 * first few only; lookups by number; an empty backlog.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backlog.h"
#include "canned.h"
#include "check.h"
#include "forge.h"

#define REPO "/api/v1/repos/o/r"

/* An open issue: number, created_at, labels, body. */
#define I(n, at, labels, body)                                             \
	"{\"number\": " #n ", \"title\": \"Issue " #n "\", \"state\": "    \
	"\"open\", \"created_at\": \"" at "\", \"labels\": [" labels "], " \
	"\"body\": \"" body "\"}"
#define L(name) "{\"name\": \"" name "\"}"

static const struct canned answers[] = {
    /* Newest first, as Gitea lists them. */
    {REPO "/issues", "state=open&labels=backlog", 200,
	"[" I(9, "2024-03-01T00:00:00Z", L("backlog"), "Depends on #3") ", " I(
	    8, "2024-02-01T00:00:00Z", L("backlog") "," L("priority"),
	    "") ", " I(7, "2024-02-01T00:00:00Z", L("backlog") "," L("formula"),
	    "") ", " I(6, "2024-01-15T00:00:00Z", L("in-progress"),
	    "") ", "
		"{\"number\": 5, \"title\": \"a PR\", \"state\": \"open\", "
		"\"labels\": [" L("backlog") "], \"pull_request\": {}}, " I(3,
		    "2024-01-01T00:00:00Z", L("backlog"),
		    "## Dependencies\\n- #1\\n- #2") "]"},
    {"/gone" REPO "/issues", NULL, 500, "{}"},
    {"/empty" REPO "/issues", NULL, 200, "[]"},
};

static void
test_projection(void)
{
	static const long long order[] = {3, 7, 8, 9};
	struct backlog b;
	struct forge *f;
	char base[128];
	size_t i;

	snprintf(base, sizeof(base), "%s%s", canned_url, REPO);
	f = forge_open(base, NULL);
	memset(&b, 0, sizeof(b));
	CHECK_INT(backlog_load(&b, f, 2), 0);
	CHECK_INT(b.read, 1);
	/* Not 6 (no label), not 5 (a PR); oldest first, then by number. */
	CHECK_INT(b.n, 4);
	for (i = 0; i < b.n && i < 4; i++)
		CHECK_INT(b.v[i].number, order[i]);
	CHECK_INT(b.v[0].ndeps, 2);
	CHECK_INT(b.v[3].ndeps, 1);
	CHECK_INT(b.v[3].deps[0], 3);
	CHECK_INT(b.v[2].priority, 1);
	CHECK_STR(b.v[1].skip, "formula");
	CHECK(b.v[0].skip == NULL);
	/* Titles of the first two only. */
	CHECK_STR(b.v[0].title, "Issue 3");
	CHECK_STR(b.v[1].title, "Issue 7");
	CHECK(b.v[2].title == NULL);
	CHECK_INT(backlog_find(&b, 8)->number, 8);
	CHECK(backlog_find(&b, 6) == NULL);
	CHECK(backlog_find(&b, 100) == NULL);
	CHECK_INT(backlog_age_days(b.v[0].key.created,
		      b.v[0].key.created + 31 * 86400 + 5),
	    31);
	CHECK_INT(backlog_age_days(0, 1000), -1);
	/* Read once: a second load asks nothing. */
	CHECK_INT(backlog_load(&b, f, 2), 0);
	backlog_free(&b);
	CHECK_INT(b.n, 0);
	forge_close(f);
}

/* A list that fails keeps nothing, and is asked again next time. */
static void
test_fails(void)
{
	struct backlog b;
	struct forge *f;
	char base[128];

	snprintf(base, sizeof(base), "%s/gone%s", canned_url, REPO);
	f = forge_open(base, NULL);
	memset(&b, 0, sizeof(b));
	CHECK_INT(backlog_load(&b, f, 2), -1);
	CHECK_INT(b.read, 0);
	CHECK_INT(b.n, 0);
	backlog_free(&b);
	forge_close(f);
}

/* An empty backlog is read, holds nothing and finds nothing. */
static void
test_empty(void)
{
	struct backlog b;
	struct forge *f;
	char base[128];

	snprintf(base, sizeof(base), "%s/empty%s", canned_url, REPO);
	f = forge_open(base, NULL);
	memset(&b, 0, sizeof(b));
	CHECK_INT(backlog_load(&b, f, 2), 0);
	CHECK_INT(b.read, 1);
	CHECK_INT(b.n, 0);
	CHECK(backlog_find(&b, 1) == NULL);
	backlog_free(&b);
	forge_close(f);
}

int
main(void)
{
	if (canned_begin(answers, sizeof(answers) / sizeof(answers[0])) == -1)
		return 1;
	RUN(test_projection);
	RUN(test_fails);
	RUN(test_empty);
	canned_end();
	return check_main();
}
