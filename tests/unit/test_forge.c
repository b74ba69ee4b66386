/*
 * Unit tests for common/forge/forge.c against a canned forge
 * (tests/unit/canned.h): PRs, issues, comments, reviews and changed
 * files decoded from the forge's JSON into their typed views; a PR's
 * branch from head.label when the forge answers refs/pull/N/head; an
 * object missing a required field or with a field of the wrong type
 * fails its read, and such an element of a list is left out of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canned.h"
#include "check.h"
#include "forge.h"

#define REPO "/api/v1/repos/o/r"
#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static const struct canned answers[] = {
    /* A merged PR whose branch was deleted: Gitea's refs/pull ref. */
    {REPO "/pulls/5", NULL, 200,
	"{\"number\": 5, \"title\": \"fix: five (#5)\", \"state\": \"closed\","
	" \"body\": \"Fixes #5\", \"merged\": true, \"mergeable\": false,"
	" \"head\": {\"ref\": \"refs/pull/5/head\", \"label\": "
	"\"fix/issue-5\", \"sha\": \"" SHA_A "\"},"
	" \"base\": {\"ref\": \"main\"}, \"user\": {\"login\": \"dev-bot\"},"
	" \"created_at\": \"2024-01-02T10:00:00Z\","
	" \"updated_at\": \"2024-01-03T10:00:00+01:00\","
	" \"merged_at\": \"2024-01-03T09:00:00Z\", \"secret\": \"x\"}"},
    /* refs/pull without a label: nothing better to say. */
    {REPO "/pulls/6", NULL, 200,
	"{\"number\": 6, \"title\": \"six\", \"state\": \"open\","
	" \"head\": {\"ref\": \"refs/pull/6/head\", \"sha\": \"" SHA_B "\"},"
	" \"base\": {\"ref\": \"main\"}}"},
    /* head.sha of the wrong type: the read fails. */
    {REPO "/pulls/7", NULL, 200,
	"{\"number\": 7, \"title\": \"seven\", \"state\": \"open\","
	" \"head\": {\"ref\": \"x\", \"sha\": [1]}, \"base\": {\"ref\": "
	"\"main\"}}"},
    /* The open list: one good, one without a title, one bad draft flag. */
    {REPO "/pulls", "state=open", 200,
	"[{\"number\": 1, \"title\": \"one\", \"state\": \"open\","
	"  \"draft\": true, \"head\": {\"ref\": \"fix/issue-1\", \"sha\": \"" SHA_A
	"\"}, \"base\": {\"ref\": \"main\"}},"
	" {\"number\": 2, \"state\": \"open\", \"head\": {\"ref\": \"b\","
	"  \"sha\": \"" SHA_B "\"}, \"base\": {\"ref\": \"main\"}},"
	" {\"number\": 3, \"title\": \"three\", \"state\": \"open\","
	"  \"draft\": \"yes\", \"head\": {\"ref\": \"c\", \"sha\": \"" SHA_B
	"\"}, \"base\": {\"ref\": \"main\"}},"
	" {\"number\": 4, \"title\": \"four\", \"state\": \"open\","
	"  \"head\": {\"ref\": \"refs/pull/4/head\", \"label\": \"d\","
	"  \"sha\": \"" SHA_B "\"}, \"base\": {\"ref\": \"main\"}}]"},
    {REPO "/issues/9", NULL, 200,
	"{\"number\": 9, \"title\": \"nine\", \"state\": \"open\","
	" \"labels\": [{\"id\": 1, \"name\": \"backlog\"}, {\"name\": "
	"\"priority\"}], \"user\": {\"login\": \"alice\"},"
	" \"created_at\": \"2024-02-01T00:00:00Z\"}"},
    {REPO "/issues/10", NULL, 200,
	"{\"number\": 10, \"title\": \"a PR\", \"state\": \"closed\","
	" \"body\": \"b\", \"pull_request\": {\"merged\": false},"
	" \"closed_at\": \"2024-02-02T00:00:00Z\"}"},
    {REPO "/issues/11", NULL, 200,
	"{\"number\": 11, \"title\": 11, \"state\": \"open\"}"},
    {REPO "/issues/12/comments", NULL, 200,
	"[{\"id\": 100, \"body\": \"first\", \"user\": {\"login\": \"alice\"},"
	"  \"created_at\": \"2024-03-01T12:00:00Z\"},"
	" {\"id\": 101, \"body\": \"no author\"},"
	" {\"id\": 102, \"body\": \"last\", \"user\": {\"login\": \"bob\"}}]"},
    {REPO "/pulls/1/reviews", NULL, 200,
	"[{\"id\": 7, \"state\": \"APPROVED\", \"user\": {\"login\": \"rb\"},"
	"  \"commit_id\": \"" SHA_A "\", \"dismissed\": true, \"stale\": true,"
	"  \"body\": \"ok\"},"
	" {\"id\": 8, \"state\": \"REQUEST_CHANGES\", \"user\": {\"login\": "
	"\"rb\"}},"
	" {\"id\": 9, \"state\": \"APPROVED\", \"user\": {\"login\": \"rb\"},"
	"  \"dismissed\": \"no\"},"
	" {\"id\": 10, \"state\": 3, \"user\": {\"login\": \"rb\"}}]"},
    {REPO "/pulls/1/files", NULL, 200,
	"[{\"filename\": \"src/a.c\", \"status\": \"modified\"},"
	" {\"filename\": 4}, {\"filename\": \"docs/b.md\"}]"},
};

static struct forge *
open_forge(void)
{
	char base[128];

	snprintf(base, sizeof(base), "%s%s", canned_url, REPO);
	return forge_open(base, NULL);
}

/* The branch of a PR whose head branch was deleted is head.label. */
static void
test_pull_refs_pull(void)
{
	struct forge *f = open_forge();
	struct forge_pull p;
	const cJSON *pr;

	CHECK_INT(forge_pull_get(f, 5, &pr), 0);
	forge_pull_view(pr, &p);
	CHECK_INT(p.number, 5);
	CHECK_STR(p.branch, "fix/issue-5");
	CHECK_STR(p.sha, SHA_A);
	CHECK_STR(p.base, "main");
	CHECK_STR(p.title, "fix: five (#5)");
	CHECK_STR(p.state, "closed");
	CHECK_STR(p.body, "Fixes #5");
	CHECK_STR(p.author, "dev-bot");
	CHECK_INT(p.merged, 1);
	CHECK_INT(p.draft, 0);
	CHECK_INT(p.mergeable, 0);
	CHECK_INT(p.created, 1704189600);
	/* +01:00: 09:00 UTC. */
	CHECK_INT(p.updated, 1704272400);
	CHECK_INT(p.merged_at, 1704272400);
	CHECK_INT(p.closed_at, 0);
	/* A field no table lists is not kept. */
	CHECK(cJSON_GetObjectItemCaseSensitive(pr, "secret") == NULL);
	CHECK_INT(forge_pull_get(f, 6, &pr), 0);
	forge_pull_view(pr, &p);
	CHECK_STR(p.branch, "refs/pull/6/head");
	CHECK(p.body == NULL);
	CHECK(p.author == NULL);
	CHECK_INT(p.mergeable, -1);
	CHECK_INT(p.updated, 0);
	forge_close(f);
}

/* A single object that fails its table fails the read, and says why. */
static void
test_pull_wrong_type(void)
{
	struct forge *f = open_forge();
	const cJSON *pr;

	CHECK_INT(forge_pull_get(f, 7, &pr), -1);
	CHECK(strstr(forge_error(f), "head.sha") != NULL);
	CHECK_INT(forge_pull_get(f, 8, &pr), -1);
	CHECK_INT(forge_last_status(f), 404);
	forge_close(f);
}

static int
keep_number(void *arg, const cJSON *el)
{
	struct forge_pull p;
	char *seen = arg;
	size_t n = strlen(seen);

	forge_pull_view(el, &p);
	snprintf(seen + n, 64 - n, "%lld:%s%s ", p.number,
	    p.branch != NULL ? p.branch : "-", p.draft ? ":draft" : "");
	return 0;
}

/* Elements that fail their table are left out of a list, the rest kept. */
static void
test_pulls_list_skips(void)
{
	struct forge *f = open_forge();
	char seen[64] = "";
	const cJSON *list;

	CHECK_INT(forge_pulls_each(f, "open", keep_number, seen), 0);
	CHECK_STR(seen, "1:fix/issue-1:draft 4:d ");
	CHECK_INT(forge_pulls_list(f, "open", &list), 0);
	CHECK_INT(cJSON_GetArraySize(list), 2);
	forge_close(f);
}

static void
test_issue_view(void)
{
	struct forge *f = open_forge();
	struct forge_issue i;
	const cJSON *it;

	CHECK_INT(forge_issue_get(f, 9, &it), 0);
	forge_issue_view(it, &i);
	CHECK_INT(i.number, 9);
	CHECK_STR(i.title, "nine");
	CHECK_STR(i.state, "open");
	CHECK(i.body == NULL);
	CHECK_STR(i.author, "alice");
	CHECK_INT(i.pull, 0);
	CHECK_INT(i.created, 1706745600);
	CHECK_INT(i.closed, 0);
	CHECK_INT(forge_labelled(it, "backlog"), 1);
	CHECK_INT(forge_labelled(it, "priority"), 1);
	CHECK_INT(forge_labelled(it, "blocked"), 0);
	CHECK_INT(forge_issue_get(f, 10, &it), 0);
	forge_issue_view(it, &i);
	CHECK_INT(i.pull, 1);
	CHECK_STR(i.state, "closed");
	CHECK_INT(i.closed, 1706832000);
	CHECK_INT(forge_labelled(it, "backlog"), 0);
	/* A title that is a number: the read fails. */
	CHECK_INT(forge_issue_get(f, 11, &it), -1);
	CHECK(strstr(forge_error(f), "'title'") != NULL);
	forge_close(f);
}

static void
test_comment_view(void)
{
	struct forge *f = open_forge();
	struct forge_comment c;
	const cJSON *list;

	CHECK_INT(forge_comments_list(f, 12, &list), 0);
	/* The one without an author fails its table. */
	CHECK_INT(cJSON_GetArraySize(list), 2);
	forge_comment_view(cJSON_GetArrayItem(list, 0), &c);
	CHECK_INT(c.id, 100);
	CHECK_STR(c.body, "first");
	CHECK_STR(c.author, "alice");
	CHECK_STR(c.created_at, "2024-03-01T12:00:00Z");
	forge_comment_view(cJSON_GetArrayItem(list, 1), &c);
	CHECK_INT(c.id, 102);
	CHECK(c.created_at == NULL);
	forge_comment_view(NULL, &c);
	CHECK(c.body == NULL && c.id == 0);
	forge_close(f);
}

static void
test_review_view(void)
{
	struct forge *f = open_forge();
	struct forge_review r;
	const cJSON *list;

	CHECK_INT(forge_reviews_list(f, 1, &list), 0);
	/* A "dismissed" that is a string and a numeric state: left out. */
	CHECK_INT(cJSON_GetArraySize(list), 2);
	forge_review_view(cJSON_GetArrayItem(list, 0), &r);
	CHECK_INT(r.id, 7);
	CHECK_STR(r.state, "APPROVED");
	CHECK_STR(r.author, "rb");
	CHECK_STR(r.commit, SHA_A);
	CHECK_STR(r.body, "ok");
	CHECK_INT(r.dismissed, 1);
	forge_review_view(cJSON_GetArrayItem(list, 1), &r);
	CHECK_INT(r.id, 8);
	CHECK_STR(r.state, "REQUEST_CHANGES");
	CHECK(r.commit == NULL);
	CHECK_INT(r.dismissed, 0);
	forge_close(f);
}

static void
test_file_names(void)
{
	struct forge *f = open_forge();
	const cJSON *list;

	CHECK_INT(forge_pull_files(f, 1, &list), 0);
	CHECK_INT(cJSON_GetArraySize(list), 2);
	CHECK_STR(forge_file_name(cJSON_GetArrayItem(list, 0)), "src/a.c");
	CHECK_STR(forge_file_name(cJSON_GetArrayItem(list, 1)), "docs/b.md");
	forge_close(f);
}

int
main(void)
{
	if (canned_begin(answers, sizeof(answers) / sizeof(answers[0])) == -1)
		return 1;
	RUN(test_pull_refs_pull);
	RUN(test_pull_wrong_type);
	RUN(test_pulls_list_skips);
	RUN(test_issue_view);
	RUN(test_comment_view);
	RUN(test_review_view);
	RUN(test_file_names);
	canned_end();
	return check_main();
}
