/*
 * Unit tests for common/world/reviewed.c, the one rule for "reviewed"
 * (docs/POLLERS.md, "When is a PR reviewed?"), as a table: a verdict counts
 * for the head only (commit_id, never the forge's "stale" flag), not when
 * dismissed, only by the review bot or a listed reviewer and never the
 * dev bot, and the latest (highest ID) that counts wins.  The rows marked
 * "was:" are where one of the four rules that came before decided
 * otherwise (dev-poll's dp_pr_reviews, review-poll's rp_reviewed and its
 * --pr's oneshot_formal, supervisor-poll's prs_reviewed).  The dev bot's
 * login is learnt from a canned forge (tests/unit/canned.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canned.h"
#include "check.h"
#include "config.h"
#include "forge.h"
#include "reviewed.h"
#include "reviewers.h"

#define H "1111111111111111111111111111111111111111"
#define OLD "0000000000000000000000000000000000000000"

/* A review: id, state, author, commit_id, and the rest of its fields. */
#define R(id, state, who, commit, rest)                                      \
	"{\"id\": " #id ", \"state\": \"" state "\", \"user\": {\"login\": " \
	"\"" who "\"}, \"commit_id\": \"" commit "\"" rest "}"

static const struct canned answers[] = {
    {"/api/v1/user", NULL, 200, "{\"login\": \"dev-bot\"}"},
};

struct verdict_row {
	const char *name;
	const char *reviews; /* a JSON array */
	enum reviewed_state want;
	long long id; /* of the deciding review */
	int ignored;
};

static const struct verdict_row verdict_rows[] = {
    {"an approval of the head", "[" R(1, "APPROVED", "rb", H, "") "]",
	REVIEWED_APPROVED, 1, 0},
    {"changes asked of the head", "[" R(2, "REQUEST_CHANGES", "rb", H, "") "]",
	REVIEWED_CHANGES, 2, 0},
    {"no review", "[]", REVIEWED_NONE, 0, 0},
    {"a comment is no verdict", "[" R(3, "COMMENT", "rb", H, "") "]",
	REVIEWED_NONE, 0, 0},
    {"a pending review is no verdict", "[" R(3, "PENDING", "rb", H, "") "]",
	REVIEWED_NONE, 0, 0},
    /* was: dev-poll counted it (its stale flag false). */
    {"stale: of an earlier head",
	"[" R(4, "APPROVED", "rb", OLD, ", \"stale\": false") "]",
	REVIEWED_NONE, 0, 0},
    /* was: dev-poll skipped a review without a stale flag. */
    {"of the head, no stale flag", "[" R(5, "APPROVED", "rb", H, "") "]",
	REVIEWED_APPROVED, 5, 0},
    /* was: dev-poll skipped it; commit_id names the head. */
    {"of the head, flagged stale",
	"[" R(5, "APPROVED", "rb", H, ", \"stale\": true") "]",
	REVIEWED_APPROVED, 5, 0},
    {"no commit_id: not of the head",
	"[{\"id\": 6, \"state\": \"APPROVED\", \"user\": {\"login\": "
	"\"rb\"}}]",
	REVIEWED_NONE, 0, 0},
    /* was: review-poll and its --pr counted a dismissed review. */
    {"dismissed", "[" R(7, "APPROVED", "rb", H, ", \"dismissed\": true") "]",
	REVIEWED_NONE, 0, 0},
    {"a dismissed request leaves the approval",
	"[" R(8, "APPROVED", "rb", H, "") ", " R(9, "REQUEST_CHANGES", "rb", H,
	    ", \"dismissed\": true") "]",
	REVIEWED_APPROVED, 8, 0},
    /* was: dev-poll merged on the approval (approval and changes both). */
    {"the latest wins: changes after an approval",
	"[" R(10, "APPROVED", "rb", H, "") ", " R(11, "REQUEST_CHANGES", "rb",
	    H, "") "]",
	REVIEWED_CHANGES, 11, 0},
    {"the latest wins: an approval after changes",
	"[" R(12, "REQUEST_CHANGES", "alice", H, "") ", " R(13, "APPROVED",
	    "rb", H, "") "]",
	REVIEWED_APPROVED, 13, 0},
    /* was: review-poll's --pr said the first that counted. */
    {"the latest by ID, whatever the list's order",
	"[" R(21, "APPROVED", "rb", H, "") ", " R(20, "REQUEST_CHANGES", "rb",
	    H, "") "]",
	REVIEWED_APPROVED, 21, 0},
    {"a listed reviewer counts", "[" R(14, "APPROVED", "bob", H, "") "]",
	REVIEWED_APPROVED, 14, 0},
    {"anyone else does not", "[" R(15, "APPROVED", "mallory", H, "") "]",
	REVIEWED_NONE, 0, 1},
    {"the dev bot never, even listed",
	"[" R(16, "APPROVED", "dev-bot", H, "") "]", REVIEWED_NONE, 0, 1},
    {"one that does not count is not the latest",
	"[" R(17, "REQUEST_CHANGES", "rb", H, "") ", " R(18, "APPROVED",
	    "mallory", H, "") "]",
	REVIEWED_CHANGES, 17, 1},
    {"an earlier head's by anyone is not even ignored",
	"[" R(19, "APPROVED", "mallory", OLD, "") "]", REVIEWED_NONE, 0, 0},
    {"a state that is not a string",
	"[{\"id\": 22, \"state\": 1, \"user\": {\"login\": \"rb\"}, "
	"\"commit_id\": \"" H "\"}]",
	REVIEWED_NONE, 0, 0},
};

struct comment_row {
	const char *name;
	const char *comments;
	long long id; /* of the comment found, 0 for none */
};

static const struct comment_row comment_rows[] = {
    {"the review comment of the head",
	"[{\"id\": 1, \"user\": {\"login\": \"rb\"}, \"body\": \"## AI "
	"Review\\n<!-- reviewed: " H " -->\\nfine\"}]",
	1},
    {"of another head",
	"[{\"id\": 2, \"user\": {\"login\": \"rb\"}, \"body\": \"## AI "
	"Review\\n<!-- reviewed: " OLD " -->\"}]",
	0},
    /* was: supervisor-poll counted a marker in any comment. */
    {"a marker outside a review comment",
	"[{\"id\": 3, \"user\": {\"login\": \"rb\"}, \"body\": \"quoting "
	"<!-- reviewed: " H " -->\"}]",
	0},
    {"by an author whose verdicts do not count",
	"[{\"id\": 4, \"user\": {\"login\": \"mallory\"}, \"body\": \"## AI "
	"Review\\n<!-- reviewed: " H " -->\"}]",
	0},
    {"the last that counts",
	"[{\"id\": 5, \"user\": {\"login\": \"rb\"}, \"body\": \"## AI "
	"Review\\n<!-- reviewed: " H " -->\"},"
	" {\"id\": 6, \"user\": {\"login\": \"alice\"}, \"body\": \"## AI "
	"Re-review (round 1)\\n<!-- reviewed: " H " -->\"},"
	" {\"id\": 7, \"user\": {\"login\": \"dev-bot\"}, \"body\": \"## AI "
	"Review\\n<!-- reviewed: " H " -->\"}]",
	6},
};

static struct config cfg;
static struct forge *dev;

/*
 * The rule with review bot rb, the reviewers listed, and the dev bot the
 * login the canned forge at root says (none there: unknown).
 */
static struct reviewers *
rule_open(const char *listed, const char *root)
{
	char base[128];

	memset(&cfg, 0, sizeof(cfg));
	cfg.forge_review_bot = (char *)"rb";
	cfg.forge_reviewers = (char *)listed;
	cfg.forge_token = (char *)"dev-token";
	cfg.forge_review_token = (char *)"";
	snprintf(base, sizeof(base), "%s%s/api/v1/repos/o/r", canned_url, root);
	dev = forge_open(base, "dev-token");
	return reviewers_open(&cfg, dev, NULL, 1);
}

static void
rule_close(struct reviewers *rv)
{
	reviewers_close(rv);
	forge_close(dev);
}

static void
test_verdict_table(void)
{
	struct reviewers *rv = rule_open("alice, bob, dev-bot", "");
	struct reviewed_verdict v;
	cJSON *list;
	size_t i;

	for (i = 0; i < sizeof(verdict_rows) / sizeof(verdict_rows[0]); i++) {
		list = cJSON_Parse(verdict_rows[i].reviews);
		CHECK(list != NULL);
		if (reviewed_verdict(list, H, 42, rv, &v) != 0 ||
		    v.state != verdict_rows[i].want ||
		    v.id != verdict_rows[i].id ||
		    v.ignored != verdict_rows[i].ignored) {
			printf("#   row '%s': got %s (id %lld, ignored %d)\n",
			    verdict_rows[i].name, reviewed_name(v.state), v.id,
			    v.ignored);
			CHECK(0);
		}
		cJSON_Delete(list);
	}
	/* No head: nothing counts. */
	list = cJSON_Parse(verdict_rows[0].reviews);
	CHECK_INT(reviewed_verdict(list, NULL, 42, rv, &v), 0);
	CHECK_INT(v.state, REVIEWED_NONE);
	cJSON_Delete(list);
	rule_close(rv);
}

static void
test_comment_table(void)
{
	struct reviewers *rv = rule_open("alice, bob, dev-bot", "");
	struct forge_comment c;
	const cJSON *found;
	cJSON *list;
	size_t i;

	for (i = 0; i < sizeof(comment_rows) / sizeof(comment_rows[0]); i++) {
		list = cJSON_Parse(comment_rows[i].comments);
		CHECK(list != NULL);
		CHECK_INT(reviewed_comment(list, H, 42, rv, &found), 0);
		forge_comment_view(found, &c);
		if (c.id != comment_rows[i].id) {
			printf("#   row '%s': got comment %lld\n",
			    comment_rows[i].name, c.id);
			CHECK(0);
		}
		cJSON_Delete(list);
	}
	rule_close(rv);
}

/* When the dev bot's login cannot be learnt, the verdict is unknown. */
static void
test_unknown(void)
{
	struct reviewers *rv = rule_open("", "/gone");
	struct reviewed_verdict v;
	const cJSON *found;
	cJSON *list;

	list = cJSON_Parse(verdict_rows[0].reviews);
	CHECK_INT(reviewed_verdict(list, H, 42, rv, &v), -1);
	cJSON_Delete(list);
	list = cJSON_Parse(comment_rows[0].comments);
	CHECK_INT(reviewed_comment(list, H, 42, rv, &found), -1);
	CHECK(found == NULL);
	cJSON_Delete(list);
	/* Nothing to decide: nothing asked, nothing unknown. */
	list = cJSON_Parse("[]");
	CHECK_INT(reviewed_verdict(list, H, 42, rv, &v), 0);
	cJSON_Delete(list);
	rule_close(rv);
}

int
main(void)
{
	if (canned_begin(answers, sizeof(answers) / sizeof(answers[0])) == -1)
		return 1;
	RUN(test_verdict_table);
	RUN(test_comment_table);
	RUN(test_unknown);
	canned_end();
	return check_main();
}
