/*
 * Unit tests for the forge model of the open PRs (common/world/pulls.c):
 * the CI rule as a table (passed, failed, waiting, and when the changed
 * files decide), then a model over a canned forge (tests/unit/canned.h)
 * answering four PRs: the lookups, each PR's CI with the non-code rule
 * (its files read only when they decide, once), each head's verdict and
 * whether it is reviewed, the files memo between two ticks, and the CI
 * memo of the heads' statuses without Woodpecker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "act.h"
#include "buf.h"
#include "canned.h"
#include "check.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "http.h"
#include "pulls.h"
#include "reviewers.h"

#define REPO "/api/v1/repos/o/r"
#define SA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define SC "cccccccccccccccccccccccccccccccccccccccc"
#define SD "dddddddddddddddddddddddddddddddddddddddd"
#define OLD "2024-01-01T00:00:00Z"

/* An open PR of the list. */
#define PR(n, title, ref, sha, body)                                          \
	"{\"number\": " #n ", \"title\": \"" title "\", \"state\": "          \
	"\"open\", \"body\": \"" body "\", \"head\": {\"ref\": \"" ref "\", " \
	"\"sha\": \"" sha "\"}, \"base\": {\"ref\": \"main\"}, "              \
	"\"updated_at\": \"" OLD "\"}"

static const struct canned answers[] = {
    {REPO "/pulls", "state=open", 200,
	"[" PR(1, "fix: one (#1)", "fix/issue-1", SA, "Fixes #1") ", " PR(2,
	    "docs: two", "fix/issue-2", SB, "") ", " PR(3, "Something for #7",
	    "feature/x", SC, "this fixes #8 and FIXES #9") ", " PR(4,
	    "chore: garden", "chore/gardener-1", SD, "") "]"},
    {REPO "/commits/" SA "/status", NULL, 200,
	"{\"state\": \"success\", \"statuses\": [{\"id\": 1, \"status\": "
	"\"success\", \"context\": \"ci\"}]}"},
    {REPO "/commits/" SB "/status", NULL, 200,
	"{\"state\": \"failure\", \"statuses\": [{\"id\": 1, \"status\": "
	"\"failure\", \"context\": \"ci\"}]}"},
    {REPO "/commits/" SC "/status", NULL, 200,
	"{\"state\": \"failure\", \"statuses\": [{\"id\": 1, \"status\": "
	"\"failure\", \"context\": \"ci\"}]}"},
    {REPO "/commits/" SD "/status", NULL, 200,
	"{\"state\": \"pending\", \"statuses\": [{\"id\": 1, \"status\": "
	"\"pending\", \"context\": \"ci\"}]}"},
    {REPO "/pulls/2/files", NULL, 200,
	"[{\"filename\": \"docs/a.md\"}, {\"filename\": \"README.md\"}]"},
    {REPO "/pulls/3/files", NULL, 200, "[{\"filename\": \"src/a.c\"}]"},
    {REPO "/pulls/4/files", NULL, 200, "[{\"filename\": \"Makefile\"}]"},
    {REPO "/pulls/1/reviews", NULL, 200,
	"[{\"id\": 1, \"state\": \"APPROVED\", \"user\": {\"login\": "
	"\"rb\"}, \"commit_id\": \"" SA "\"}]"},
    {REPO "/pulls/2/reviews", NULL, 200,
	"[{\"id\": 2, \"state\": \"REQUEST_CHANGES\", \"user\": {\"login\": "
	"\"rb\"}, \"commit_id\": \"" SB "\"}]"},
    {REPO "/pulls/3/reviews", NULL, 200,
	"[{\"id\": 3, \"state\": \"APPROVED\", \"user\": {\"login\": "
	"\"rb\"}, \"commit_id\": \"" SA "\"}]"},
    {REPO "/pulls/4/reviews", NULL, 200, "[]"},
    {REPO "/issues/1/comments", NULL, 200, "[]"},
    {REPO "/issues/3/comments", NULL, 200, "[]"},
    {REPO "/issues/4/comments", NULL, 200,
	"[{\"id\": 9, \"user\": {\"login\": \"rb\"}, \"body\": \"## AI "
	"Review\\n<!-- reviewed: " SD " -->\"}]"},
};

/* The rule: every state, CI set up or not, the files known or not. */
static void
test_ci_rule(void)
{
	static const struct {
		enum ci_state st;
		int configured, noncode;
		enum pulls_ci want;
	} rows[] = {
	    {CI_SUCCESS, 1, -1, PULLS_CI_PASSED},
	    {CI_SUCCESS, 1, 0, PULLS_CI_PASSED},
	    {CI_FAILURE, 1, -1, PULLS_CI_NEEDS_FILES},
	    {CI_FAILURE, 1, 0, PULLS_CI_FAILED},
	    {CI_FAILURE, 1, 1, PULLS_CI_PASSED},
	    {CI_PENDING, 1, -1, PULLS_CI_NEEDS_FILES},
	    {CI_PENDING, 1, 0, PULLS_CI_WAITING},
	    {CI_PENDING, 1, 1, PULLS_CI_PASSED},
	    {CI_NONE, 1, 0, PULLS_CI_WAITING},
	    {CI_NONE, 1, 1, PULLS_CI_PASSED},
	    {CI_CANCELED, 1, 0, PULLS_CI_WAITING},
	    {CI_CANCELED, 1, 1, PULLS_CI_PASSED},
	    /* No CI set up: none and pending count as passed. */
	    {CI_NONE, 0, -1, PULLS_CI_PASSED},
	    {CI_PENDING, 0, -1, PULLS_CI_PASSED},
	    {CI_FAILURE, 0, -1, PULLS_CI_NEEDS_FILES},
	    {CI_FAILURE, 0, 0, PULLS_CI_FAILED},
	    {CI_UNKNOWN, 1, 1, PULLS_CI_UNKNOWN},
	    {CI_UNKNOWN, 1, -1, PULLS_CI_UNKNOWN},
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (pulls_ci_rule(rows[i].st, rows[i].configured,
			rows[i].noncode) != rows[i].want) {
			printf("#   row %zu: %s, configured %d, noncode %d\n",
			    i, ci_state_name(rows[i].st), rows[i].configured,
			    rows[i].noncode);
			CHECK(0);
		}
}

static struct config cfg;
static struct forge *forge;
static struct reviewers *rv;

/* A model over the canned forge, CI set up (no Woodpecker). */
static struct pulls *
model_open(void)
{
	char base[128];

	memset(&cfg, 0, sizeof(cfg));
	cfg.forge_review_bot = (char *)"rb";
	cfg.forge_reviewers = (char *)"";
	cfg.forge_token = (char *)"";
	cfg.forge_review_token = (char *)"";
	cfg.woodpecker_repo_id = 1;
	snprintf(base, sizeof(base), "%s%s", canned_url, REPO);
	forge = forge_open(base, NULL);
	rv = reviewers_open(&cfg, NULL, NULL, 1);
	return pulls_new(&cfg, forge, NULL, rv, time(NULL));
}

static void
model_close(struct pulls *m)
{
	pulls_free(m);
	reviewers_close(rv);
	forge_close(forge);
}

static void
test_lookups(void)
{
	struct pulls *m = model_open();
	const struct pull *p;

	CHECK_INT(pulls_loaded(m), 0);
	CHECK_INT(pulls_load(m), 0);
	CHECK_INT(pulls_loaded(m), 1);
	CHECK_INT(pulls_count(m), 4);
	p = pulls_at(m, 2);
	CHECK(p != NULL && p->number == 3);
	if (p != NULL) {
		CHECK_STR(p->branch, "feature/x");
		CHECK_STR(p->base, "main");
		CHECK_STR(p->sha, SC);
		CHECK_INT(p->issue, 7);
		CHECK_INT(p->branch_issue, -1);
		CHECK_INT(p->nfixes, 2);
		CHECK_INT(p->mergeable, -1);
		CHECK_INT(p->updated, 1704067200);
	}
	CHECK(pulls_at(m, 4) == NULL);
	CHECK_INT(pulls_number(m, 4)->issue, 0);
	CHECK(pulls_number(m, 5) == NULL);
	CHECK_INT(pulls_branch(m, "fix/issue-2")->number, 2);
	CHECK_INT(pulls_issue_branch(m, 1)->number, 1);
	CHECK(pulls_issue_branch(m, 7) == NULL);
	CHECK_INT(pulls_titled(m, 7)->number, 3);
	CHECK_INT(pulls_fixing(m, 9)->number, 3);
	CHECK(pulls_fixing(m, 7) == NULL);
	CHECK_INT(pulls_linked(m, 7)->number, 3);
	CHECK_INT(pulls_linked(m, 2)->number, 2);
	model_close(m);
}

/* The CI of each PR, the files read only where they decide, once. */
static void
test_ci(void)
{
	static const struct {
		long long pr;
		enum pulls_ci want;
		int files; /* its files are read */
		int passed, failed;
	} rows[] = {
	    {1, PULLS_CI_PASSED, 0, 1, 0},
	    {2, PULLS_CI_PASSED, 1, 1, 0}, /* failed, non-code only */
	    {3, PULLS_CI_FAILED, 1, 0, 1},
	    {4, PULLS_CI_WAITING, 1, 0, 0}, /* pending, a Makefile */
	};
	struct pulls *m = model_open();
	const struct pull *p;
	unsigned long before;
	size_t i;

	CHECK_INT(pulls_load(m), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		p = pulls_number(m, rows[i].pr);
		before = http_request_count();
		CHECK_INT(pulls_ci_says(m, p), rows[i].want);
		/* The status, and the files when they decide. */
		CHECK_INT(http_request_count() - before, 1 + rows[i].files);
		before = http_request_count();
		CHECK_INT(pulls_ci_says(m, p), rows[i].want);
		CHECK_INT(pulls_ci_passed(m, p), rows[i].passed);
		CHECK_INT(pulls_ci_failed(m, p), rows[i].failed);
		if (rows[i].files)
			CHECK_INT(pulls_noncode(m, p), rows[i].pr == 2);
		CHECK_INT(http_request_count() - before, 0);
	}
	model_close(m);
}

/* Each head's verdict (reviewed.h) and whether it is reviewed. */
static void
test_verdicts(void)
{
	static const struct {
		long long pr;
		enum reviewed_state want;
		int reviewed;
	} rows[] = {
	    {1, REVIEWED_APPROVED, 1}, {2, REVIEWED_CHANGES, 1},
	    {3, REVIEWED_NONE, 0}, /* an approval of an earlier head */
	    {4, REVIEWED_NONE, 1}, /* its review comment */
	};
	struct reviewed_verdict v;
	struct pulls *m = model_open();
	const struct pull *p;
	unsigned long before;
	size_t i;

	CHECK_INT(pulls_load(m), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		p = pulls_number(m, rows[i].pr);
		CHECK_INT(pulls_verdict(m, p, &v), 0);
		CHECK_INT(v.state, rows[i].want);
		before = http_request_count();
		CHECK_INT(pulls_verdict(m, p, &v), 0);
		CHECK_INT(v.state, rows[i].want);
		/* Asked once a tick. */
		CHECK_INT(http_request_count() - before, 0);
		if (rows[i].pr != 2)
			CHECK_INT(pulls_reviewed(m, p), rows[i].reviewed);
	}
	CHECK_STR(v.author, NULL);
	CHECK_INT(pulls_verdict(m, pulls_number(m, 1), &v), 0);
	CHECK_STR(v.author, "rb");
	/* PR 2's comments cannot be read (404): unknown, never "no". */
	CHECK_INT(pulls_reviewed(m, pulls_number(m, 2)), -1);
	model_close(m);
}

/* What one tick learnt of the files is not asked on the next. */
static void
test_files_memo(void)
{
	char dir[] = "/tmp/test_pulls.XXXXXX", path[64];
	struct act act;
	struct pulls *m;
	unsigned long before;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/memo", dir);
	memset(&act, 0, sizeof(act));
	m = model_open();
	pulls_memo_use(m, PULLS_MEMO_FILES, path);
	CHECK_INT(pulls_load(m), 0);
	CHECK_INT(pulls_ci_says(m, pulls_number(m, 2)), PULLS_CI_PASSED);
	CHECK_INT(pulls_ci_says(m, pulls_number(m, 3)), PULLS_CI_FAILED);
	pulls_memo_save(m, &act);
	model_close(m);
	/* The next tick: the memo is used once the list is read. */
	m = model_open();
	CHECK_INT(pulls_load(m), 0);
	pulls_memo_use(m, PULLS_MEMO_FILES, path);
	before = http_request_count();
	CHECK_INT(pulls_noncode(m, pulls_number(m, 2)), 1);
	CHECK_INT(pulls_noncode(m, pulls_number(m, 3)), 0);
	CHECK_INT(http_request_count() - before, 0);
	/* PR 4's were not read: asked now. */
	CHECK_INT(pulls_noncode(m, pulls_number(m, 4)), 0);
	CHECK_INT(http_request_count() - before, 1);
	model_close(m);
	(void)remove(path);
	(void)rmdir(dir);
}

/* Each head's CI state of the model as pulls_ci() says it. */
static void
ci_all(struct pulls *m, enum ci_state *st)
{
	size_t i;

	for (i = 0; i < 4; i++)
		CHECK_INT(pulls_ci(m, pulls_at(m, i), &st[i]), 0);
}

/*
 * Without Woodpecker the heads' combined statuses are remembered: a tick
 * that asks for none keeps them, on the next tick only the pending one is
 * read, and a head a webhook marked.
 */
static void
test_ci_memo(void)
{
	char dir[] = "/tmp/test_pulls.XXXXXX", path[64], marks[64], line[128];
	enum ci_state st[4], again[4];
	struct buf was, now;
	struct act act;
	struct pulls *m;
	unsigned long before;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/ci", dir);
	snprintf(marks, sizeof(marks), "%s/marks", dir);
	memset(&act, 0, sizeof(act));
	m = model_open();
	pulls_ci_memo_use(m, path, marks);
	CHECK_INT(pulls_load(m), 0);
	before = http_request_count();
	ci_all(m, st);
	CHECK_INT(http_request_count() - before, 4);
	pulls_memo_save(m, &act);
	model_close(m);
	/* A tick that asks for no CI state leaves every head's line. */
	buf_init(&was, 0);
	buf_init(&now, 0);
	CHECK_INT(file_read(path, 1 << 16, &was), 0);
	m = model_open();
	pulls_ci_memo_use(m, path, marks);
	CHECK_INT(pulls_load(m), 0);
	pulls_memo_save(m, &act);
	model_close(m);
	CHECK_INT(file_read(path, 1 << 16, &now), 0);
	CHECK_STR(buf_str(&now), buf_str(&was));
	CHECK_INT(strlen(buf_str(&was)) > 0, 1);
	buf_free(&was);
	buf_free(&now);
	/* The next tick: the final states stand, the pending one is read. */
	m = model_open();
	CHECK_INT(pulls_load(m), 0);
	pulls_ci_memo_use(m, path, marks);
	before = http_request_count();
	ci_all(m, again);
	CHECK_INT(http_request_count() - before, 1);
	CHECK(memcmp(st, again, sizeof(st)) == 0);
	CHECK_INT(again[0], CI_SUCCESS);
	CHECK_INT(again[3], CI_PENDING);
	pulls_memo_save(m, &act);
	model_close(m);
	/* A webhook said PR 1's head changed: read again at once. */
	snprintf(line, sizeof(line), SA " %lld\n", (long long)time(NULL));
	CHECK(file_write_atomic(marks, line, strlen(line), 0644, 0) == 0);
	m = model_open();
	pulls_ci_memo_use(m, path, marks);
	CHECK_INT(pulls_load(m), 0);
	before = http_request_count();
	ci_all(m, again);
	CHECK_INT(http_request_count() - before, 2);
	CHECK(memcmp(st, again, sizeof(st)) == 0);
	model_close(m);
	(void)remove(path);
	(void)remove(marks);
	(void)rmdir(dir);
}

/* A list that cannot be read is not read again, and keeps nothing. */
static void
test_list_fails(void)
{
	struct forge *f;
	struct pulls *m;
	char base[128];

	snprintf(base, sizeof(base), "%s/gone%s", canned_url, REPO);
	f = forge_open(base, NULL);
	m = pulls_new(&cfg, f, NULL, NULL, time(NULL));
	CHECK_INT(pulls_load(m), -1);
	CHECK(pulls_error(m)[0] != '\0');
	CHECK_INT(pulls_loaded(m), -1);
	CHECK_INT(pulls_count(m), 0);
	CHECK_INT(pulls_load(m), -1);
	pulls_free(m);
	forge_close(f);
}

int
main(void)
{
	if (canned_begin(answers, sizeof(answers) / sizeof(answers[0])) == -1)
		return 1;
	RUN(test_ci_rule);
	RUN(test_lookups);
	RUN(test_ci);
	RUN(test_verdicts);
	RUN(test_files_memo);
	RUN(test_ci_memo);
	RUN(test_list_fails);
	canned_end();
	return check_main();
}
