/*
 * review-poll's private interface: the tick context shared by the steps
 * (main.c lists them), and the prototypes of its topic files.
 *
 *   pulls.c     the tick's open PRs, by number and by issue
 *   repo.c      fetch, detached worktrees, incremental diffs
 *   verdict.c   the review output file, review comments and their markers
 *   runs.c      the reviews in flight, from their run files
 *   cleanup.c   step 1: reviews that no longer matter
 *   collect.c   step 2: posting finished reviews
 *   route.c     step 3: verdicts into dev sessions in awaiting_review
 *   prompt.c    a review's prompt
 *   launch.c    steps 4 and 5: choosing PRs, starting review sessions
 *
 * Side effects go through the effect layer (common/act.c) in rp->act.
 */
#ifndef REVIEW_POLL_H
#define REVIEW_POLL_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "act.h"
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
	struct act act;		  /* side effects, with the review token */
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

/* What a review prompt is built from; strings borrowed or owned. */
struct rp_prompt {
	long long pr;
	const char *sha, *head, *base, *title, *body;
	char ci[96];
	char prev_sha[72];
	char *files; /* owned */
	const char *diff;
	int diff_cut;
	char *previous; /* owned: the re-review section, or "" */
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

/* The review text kept from an agent's output. */
#define RP_MARKDOWN_MAX (60 * 1024)

/* The verdict markers the tools agree on. */
#define RP_REVIEWED_MARK "<!-- reviewed: "
#define RP_ERROR_MARK "<!-- review-error: "
#define RP_DEV_RESPONSE_MARK "<!-- dev-response:"

/* pulls.c */
/* Read the open PRs, every page, into rp->pulls.  0, or -1 (logged). */
int rp_pulls_read(struct rp *);
/* The open PR numbered pr from the tick's list, or NULL. */
const cJSON *rp_open_pull(const struct rp *, long long pr);
/*
 * The open PR working on issue n: on its fix/issue-n branch, else the
 * first naming it (issueref_from_pr()), or NULL.
 */
const cJSON *rp_issue_pull(const struct rp *, long long n);

/* repo.c */
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
/* 1 when s looks like a commit ID (7 to 64 hex digits), else 0. */
int rp_is_sha(const char *s);
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
 * The verdict a review comment states in its last "### Verdict" section
 * (a heading at the start of a line; failing that, the first **APPROVE**,
 * **REQUEST_CHANGES** or **DISCUSS** in it) into out: 0, or -1 when it
 * states none.
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

/* runs.c */
/*
 * The reviews in flight, from the review phase files, into *runs (*n of
 * them).  Free with rp_runs_free().  Returns 0 or -1.
 */
int rp_runs_list(struct rp *, struct rp_run **runs, size_t *n);
void rp_runs_free(struct rp_run *runs, size_t n);
/*
 * Call fn for every review in flight; one failing does not stop the
 * others.  0, or -1 when the list or some call failed.
 */
int rp_runs_each(struct rp *, int (*fn)(struct rp *, const struct rp_run *));
/* 1 when PR pr has a review in flight (run files or a live session). */
int rp_review_busy(struct rp *, long long pr);
/*
 * The text of a review's launch record: the head reviewed, the previous
 * review's head (or ""), and whether the review was started again after
 * its agent went away.  Caller frees.
 */
char *rp_run_record(const char *sha, const char *prev, int retried);
/* Remove a review's session, worktree and run files. */
void rp_run_cleanup(struct rp *, long long pr, int forget_injection);
/* 1 when the review's agent is through: it said so, or it is gone. */
int rp_run_collectable(const struct rp_run *);

/* cleanup.c */
/* Step 1: clean up reviews of closed PRs, idle ones, unknown phases. */
int rp_cleanup(struct rp *);

/* collect.c */
/* Step 2: post the reviews whose agents finished.  0, or -1 (failed). */
int rp_collect(struct rp *);

/* route.c */
/* Step 3: inject verdicts into dev sessions waiting for a review. */
int rp_route(struct rp *);

/* prompt.c */
/* Read everything the prompt of in->pr needs into in.  0, or -1 (logged). */
int rp_prompt_gather(struct rp *, struct rp_prompt *in, const char *prev_sha);
/* The review prompt from the template.  Caller frees; NULL on error. */
char *rp_prompt_render(struct rp *, const struct rp_prompt *in);
void rp_prompt_free(struct rp_prompt *);

/* launch.c */
/* Step 4: re-review PRs whose review asked for changes and that moved. */
int rp_rereview(struct rp *);
/* Step 5: review the open PRs that need one. */
int rp_review_new(struct rp *);
/* 1 when launching is allowed (limit and memory); logs why not. */
int rp_may_launch(struct rp *);

#endif
