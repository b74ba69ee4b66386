/*
 * When is a PR reviewed: the one rule (docs/POLLERS.md, "When is a PR
 * reviewed?").
 *
 * A verdict counts for the current head only: of a PR's formal reviews,
 * an APPROVED or REQUEST_CHANGES review counts when it names the head in
 * its commit_id (a review of an earlier head is stale: the forge's own
 * "stale" flag is not read), was not dismissed, and is by an author
 * whose verdicts count (reviewers.h: the review bot or a listed
 * reviewer, never the dev bot).  Of the reviews that count, the latest
 * (the highest ID) is the head's verdict.  A head is reviewed when it
 * has a verdict, or when a review comment of review-poll's for it
 * (marks.h: the review heading and "<!-- reviewed: HEAD -->") is by
 * such an author: the comment is posted before the formal review, and
 * stays the only record where the forge refuses the formal one.
 */
#ifndef REVIEWED_H
#define REVIEWED_H

#include <cjson/cJSON.h>

struct reviewers;

enum reviewed_state {
	REVIEWED_NONE,	   /* no verdict for the head */
	REVIEWED_APPROVED, /* the verdict is an approval */
	REVIEWED_CHANGES   /* the verdict asks for changes */
};

/* What the rule found among a PR's reviews. */
struct reviewed_verdict {
	enum reviewed_state state;
	long long id;	    /* the deciding review's ID, or 0 */
	const char *author; /* its author (borrowed), or NULL */
	/*
	 * A verdict of the head by an author whose verdicts do not count
	 * was there (it may count under other settings).
	 */
	int ignored;
};

/*
 * Apply the rule to the formal reviews (Gitea objects) of PR pr whose
 * head is head (NULL: nothing counts) into *out; rv says whose verdicts
 * count.  0, or -1 when a login the rule depends on cannot be learnt
 * from the forge (logged): unknown, decide nothing.
 */
int reviewed_verdict(const cJSON *reviews, const char *head, long long pr,
    struct reviewers *rv, struct reviewed_verdict *out);
/*
 * The last review comment of head among comments (Gitea objects) whose
 * author's verdicts count, in *out (borrowed; NULL when there is none):
 * 0, or -1 when that cannot be told.
 */
int reviewed_comment(const cJSON *comments, const char *head, long long pr,
    struct reviewers *rv, const cJSON **out);
/* "none", "approved", "changes requested". */
const char *reviewed_name(enum reviewed_state);

#endif
