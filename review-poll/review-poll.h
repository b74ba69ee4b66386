/*
 * review-poll's private interface: the tick context shared by the steps
 * (main.c lists them), and the prototypes of its topic files.
 *
 *   act.c       every side effect, logged instead under --dry-run
 *   git.c       fetch, detached worktrees, incremental diffs
 *   verdict.c   the review output file, review comments and their markers
 *   sessions.c  the review run files: list, clean up, collect, post
 *   route.c     verdicts into dev sessions waiting in awaiting_review
 *   launch.c    choosing PRs to review and starting review sessions
 */
#ifndef REVIEW_POLL_H
#define REVIEW_POLL_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "phase.h"

struct buf;
struct config;
struct forge;
struct woodpecker;

/* One tick. */
struct rp {
	const struct config *cfg;
	struct config_review set; /* [review]; strings borrowed from cfg */
	struct forge *forge;	  /* FORGE_TOKEN: PRs, files, diffs, CI */
	struct forge *review;	  /* FORGE_REVIEW_TOKEN: comments, reviews */
	struct woodpecker *wp;	  /* NULL when no CI is configured */
	int dry_run;
	time_t now;
	const cJSON *pulls; /* the open PRs, read once per tick */
	int launched;	    /* review sessions started this tick */
	int failed;	    /* a run-time failure: exit 1 */
};

/* What a review agent wrote, checked and normalised. */
struct rp_verdict {
	char *verdict;	/* APPROVE, REQUEST_CHANGES, DISCUSS, or other */
	char *reason;	/* "" when not given */
	char *markdown; /* "" when not given */
};

/* A review in flight, from its run files. */
struct rp_run {
	long long pr;
	char *session;
	char *phase_path;
	struct phase_info phase;
	char sha[64];  /* the reviewed head, from the launch record */
	char prev[64]; /* the previously reviewed head, or "" */
	int retried;   /* started again after its agent went away */
};

/* The verdict markers the tools agree on. */
#define RP_REVIEWED_MARK "<!-- reviewed: "
#define RP_ERROR_MARK "<!-- review-error: "
#define RP_DEV_RESPONSE_MARK "<!-- dev-response:"

/* act.c: side effects; each logs what it does (or would do). */
/* Post a comment on PR pr with the review token: 0 or -1. */
int rp_comment(struct rp *, long long pr, const char *body);
/*
 * Submit a formal review (APPROVED, REQUEST_CHANGES, COMMENT) on sha.
 * Returns 0, 1 when the forge refused it for good (400, 403, 422), -1
 * otherwise.
 */
int rp_formal_review(struct rp *, long long pr, const char *event,
    const char *sha, const char *body);
/* Dismiss review id on PR pr: 0 or -1. */
int rp_dismiss(struct rp *, long long pr, long long id, const char *why);
/* Inject text into session: AGENT_DELIVERED, AGENT_NOT_DELIVERED or -1. */
int rp_inject(struct rp *, const char *session, const char *text);
/* Start a review agent session (waits until ready): 0 or -1. */
int rp_start(struct rp *, const char *session, const char *workdir);
/* Kill a session if it lives: 0 or -1. */
int rp_kill(struct rp *, const char *session);
/* Write a run file atomically: 0 or -1. */
int rp_write(struct rp *, const char *path, const char *text);
/* Remove a run file (missing is fine): 0 or -1. */
int rp_remove(struct rp *, const char *path);

/* git.c */
/* Fetch branch from origin into repo_root: 0 or -1. */
int rp_git_fetch(struct rp *, const char *branch);
/* A fresh detached worktree of sha at path (replacing one there): 0/-1. */
int rp_worktree_add(struct rp *, const char *path, const char *sha);
/* Remove the worktree at path and whatever is left of it: 0 or -1. */
int rp_worktree_remove(struct rp *, const char *path);
/*
 * git diff from..to in repo_root, at most max bytes, into out; *truncated
 * tells whether there was more.  Returns 0, or -1 (a commit is missing).
 */
int rp_git_diff(struct rp *, const char *from, const char *to, size_t max,
    struct buf *out, int *truncated);

/* verdict.c: pure text work, unit tested. */
/*
 * Find the review JSON in len bytes of text (the whole text, a ```json
 * fence, or the span from the first '{' to the last '}') and fill *out.
 * Returns 0, or -1 with err set when there is no object with a non-empty
 * string "verdict".  Free with rp_verdict_free().
 */
int rp_verdict_parse(const char *text, size_t len, struct rp_verdict *out,
    char *err, size_t errsz);
void rp_verdict_free(struct rp_verdict *);
/* The formal review event for a verdict: APPROVED, REQUEST_CHANGES, ... */
const char *rp_verdict_event(const char *verdict);
/* 1 when the verdict asks the developer for changes, else 0. */
int rp_verdict_wants_changes(const char *verdict);
/* "<!-- reviewed: SHA -->".  Caller frees. */
char *rp_reviewed_marker(const char *sha);
/* "<!-- review-error: SHA -->".  Caller frees. */
char *rp_error_marker(const char *sha);
/*
 * The verdict a review comment states in its "### Verdict" section (or,
 * failing that, the first **APPROVE**, **REQUEST_CHANGES** or
 * **DISCUSS** in it) into out: 0, or -1 when it states none.
 */
int rp_comment_verdict(const char *body, char *out, size_t outsz);
/* The SHA of the first "<!-- reviewed: SHA -->" in body into out: 0/-1. */
int rp_comment_reviewed_sha(const char *body, char *out, size_t outsz);
/*
 * The body of the comment posted for a review: heading (round > 0 for a
 * re-review), marker, markdown, verdict, footer.  Caller frees.
 */
char *rp_review_comment(const struct rp_verdict *, const char *sha,
    const char *prev_sha, int round);
/* The comment posted when a review produced no usable output. */
char *rp_error_comment(const char *sha, const char *why);

/*
 * Comment lists (Gitea objects with "body"); results are borrowed.  Only
 * review-poll's own comments (starting "## AI Re") are searched.
 */
/* The last such comment whose body contains needle, or NULL. */
const cJSON *rp_last_comment_with(const cJSON *comments, const char *needle);
/* How many comments contain needle. */
int rp_count_comments_with(const cJSON *comments, const char *needle);
/*
 * The last review comment of a head other than sha (the previous review),
 * or NULL.
 */
const cJSON *rp_previous_review(const cJSON *comments, const char *sha);

/* The last comment carrying a "<!-- dev-response: -->" marker, or NULL. */
const cJSON *rp_last_dev_response(const cJSON *comments);

/* sessions.c */
/* Step 1: clean up reviews of closed PRs, idle ones, unknown phases. */
int rp_cleanup(struct rp *);
/* Step 2: post the reviews whose agents finished.  0, or -1 (failed). */
int rp_collect(struct rp *);
/* The value after key ("SHA:") on a line of path: 0, or -1. */
int rp_read_key(const char *path, const char *key, char *out, size_t outsz);
/* Remove a review's session, worktree and run files. */
void rp_run_cleanup(struct rp *, long long pr, int forget_injection);
/*
 * The reviews in flight, from the review phase files, into *runs (*n of
 * them).  Free with rp_runs_free().  Returns 0 or -1.
 */
int rp_runs_list(struct rp *, struct rp_run **runs, size_t *n);
void rp_runs_free(struct rp_run *runs, size_t n);
/* 1 when PR pr has a review in flight (run files or a live session). */
int rp_review_busy(struct rp *, long long pr);

/* route.c */
/* Step 3: inject verdicts into dev sessions waiting for a review. */
int rp_route(struct rp *);

/* launch.c */
/* Step 4: re-review PRs whose review asked for changes and that moved. */
int rp_rereview(struct rp *);
/* Step 5: review the open PRs that need one. */
int rp_review_new(struct rp *);
/* 1 when launching is allowed (limit and memory); logs why not. */
int rp_may_launch(struct rp *);

/* Small shared helpers (launch.c). */
/* The open PR numbered pr from the tick's list, or NULL. */
const cJSON *rp_open_pull(const struct rp *, long long pr);
/* 1 when s looks like a commit ID (7 to 64 hex digits), else 0. */
int rp_is_sha(const char *s);

#endif
