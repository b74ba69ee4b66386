/*
 * The hidden markers: HTML comments the tools put into the comments they
 * post on the forge, so that they (and the other tools) find those
 * comments again, whatever else their text says.  Every marker is
 * written and recognised here, nowhere else.
 *
 *   <!-- disinto: KEY -->         every comment posted through
 *                                 act_comment(), its key (one post)
 *   <!-- reviewed: SHA -->        review-poll's review of head SHA
 *   <!-- review-error: SHA -->    a review of SHA that left no review
 *   <!-- dev-response: ... -->    a dev agent's answer to a review
 *   <!-- escalation: P-N -->      supervisor-poll's notice of an
 *   <!-- escalation-at: T -->     escalation (and its -renotify and
 *                                 -timeout comments), T its time
 *   <!-- dev-poll: PR #N closed unmerged -->
 *   <!-- dev-refusal: STATUS -->  the dev agent refused the issue
 *   <!-- dev-diagnostic: P-N-T --> a session's failure, at T
 *
 * A review comment is review-poll's own only when it also starts with
 * the review heading ("## AI Review", "## AI Re-review").
 */
#ifndef MARKS_H
#define MARKS_H

#include <stddef.h>

/* Where a review comment (and its heading) starts. */
#define MARKS_REVIEW_HEADING "## AI Re"

/* "<!-- disinto: KEY -->", key made safe for an HTML comment.  Caller frees. */
char *marks_key(const char *key);
/* "<!-- reviewed: SHA -->".  Caller frees. */
char *marks_reviewed(const char *sha);
/* "<!-- review-error: SHA -->".  Caller frees. */
char *marks_review_error(const char *sha);
/*
 * The SHA of the first "<!-- reviewed: SHA -->" in body into out (7 to
 * 64 lower-case hex digits): 0, or -1 when there is none.
 */
int marks_reviewed_sha(const char *body, char *out, size_t outsz);
/* 1 when body is a review comment (it starts with the heading), else 0. */
int marks_review_comment(const char *body);
/* 1 when body carries a reviewed marker, of any head, else 0. */
int marks_has_reviewed(const char *body);
/* 1 when body carries a dev agent's "<!-- dev-response:" marker. */
int marks_dev_response(const char *body);
/*
 * The markers of one kind ("escalation", "escalation-renotify",
 * "escalation-timeout") of comment about the escalation of project's
 * issue at since (two lines).  Caller frees.
 */
char *marks_escalation(const char *kind, const char *project, long long issue,
    long long since);
/* The marker of dev-poll's comment on PR pr closed unmerged.  Caller frees. */
char *marks_pr_closed(long long pr);
/* The marker of a refusal with status (its first 60 bytes).  Caller frees. */
char *marks_refusal(const char *status);
/* The marker of a session's failure diagnostic.  Caller frees. */
char *marks_diagnostic(const char *project, long long issue, long long at);
/* 1 when body (may be NULL) carries mark, else 0. */
int marks_in(const char *body, const char *mark);

#endif
