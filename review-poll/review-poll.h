/*
 * review-poll's private interface: the tick context shared by the steps
 * (main.c lists them), and the prototypes of its topic files.
 *
 *   model.c     the tick's forge model (common/world/pulls.h): the open
 *               PRs, their CI and verdicts, review-poll-files-P
 *   repo.c      fetch, detached worktrees, incremental diffs
 *   verdict.c   the review output file, review comments and their markers
 *   runs.c      the reviews in flight, from their run files
 *   tries.c     how often the review of a head was tried
 *   status.c    the operators' status file, P-review-status
 *   cleanup.c   step 1: reviews that no longer matter
 *   collect.c   step 2: posting finished reviews
 *   route.c     step 3: verdicts into dev sessions in awaiting_review
 *   prompt.c    a review's prompt
 *   launch.c    steps 4 and 5: choosing PRs, starting review sessions
 *   oneshot.c   review-poll --pr N: one review, now, waited for
 *
 * Side effects go through the effect layer (common/act/act.c) in rp->act.
 */
#ifndef REVIEW_POLL_H
#define REVIEW_POLL_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "config.h"
#include "phase.h"
#include "prmemo.h"
#include "promtick.h"
#include "pulls.h"

struct buf;
struct config;
struct promtick;
struct forge;
struct reviewers;
struct woodpecker;

/* One tick. */
struct rp {
	const struct config *cfg;
	struct config_review set; /* [review]; strings borrowed from cfg */
	struct forge *forge;	  /* FORGE_TOKEN: PRs, files, diffs, CI */
	struct forge *review;	  /* FORGE_REVIEW_TOKEN: comments, reviews */
	struct woodpecker *wp;	  /* NULL when no CI is configured */
	struct act act;		  /* side effects, with the review token */
	/* Whose formal verdicts count (common/world/reviewers.h). */
	struct reviewers *reviewers;
	time_t now;
	/* The open PRs, their CI and verdicts (common/world/pulls.h). */
	struct pulls *pulls;
	int launched;	     /* review sessions started this tick */
	int skipped;	     /* PRs passed over: CI not passed, reviewed */
	int alive;	     /* review sessions alive before launching; -1 */
	int posted;	     /* reviews posted this tick */
	int lock_busy;	     /* the Claude session lock stayed busy */
	int failed;	     /* a run-time failure: exit 1 */
	long long forced_pr; /* review-poll --pr --force: that PR, else 0 */
	int forced_seen;     /* its head's review comments before */
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
	const char *sha, *head, *base, *title;
	char *body; /* owned */
	char ci[96];
	char prev_sha[72];
	char *files;		/* owned */
	long long files_unread; /* changed files not read (capped), or 0 */
	const char *diff;
	int diff_cut;
	char *previous; /* owned: the re-review section, or "" */
};

/* Where a review in flight stands (rp_runs_list()). */
enum rp_run_state {
	RP_RUN_WORKING,	 /* its agent is at it */
	RP_RUN_FINISHED, /* its agent said so: done (or failed, escalate) */
	RP_RUN_GONE,	 /* its agent went away without a word */
	RP_RUN_IDLE,	 /* back at its prompt without a phase (Stop hook) */
	RP_RUN_TIMEOUT,	 /* no phase within the agent timeout */
	RP_RUN_WAITING,	 /* PHASE:awaiting_changes: no agent, a later head */
	RP_RUN_UNSURE,	 /* whether its session lives cannot be told */
	RP_RUN_PAUSED	 /* an API error of the project's stopped it */
};

/* A review in flight, from its run files. */
struct rp_run {
	long long pr;
	char *session;
	char *phase_path;
	struct phase_info phase;
	enum rp_run_state state;
	char sha[64];  /* the reviewed head, from the launch record */
	char prev[64]; /* the previously reviewed head, or "" */
	time_t at;     /* when it was launched (the record's AT:), or 0 */
	int retried;   /* started again after its agent went away */
	int forced;    /* forced: the head's review comments before, else -1 */
	long long unread; /* changed files the review could not read */
};

/* Tries of the review of one head before it is left to a new push. */
#define RP_MAX_TRIES 3
/* A Stop-hook marker this old, with no phase, means the agent stopped. */
#define RP_IDLE_GRACE_S 30

/* The review text kept from an agent's output. */
#define RP_MARKDOWN_MAX (60 * 1024)

/* model.c */
/*
 * Read the open PRs, page by page, into the tick's forge model
 * (rp->pulls; nothing of them when a page fails).  0, or -1 (logged).
 * Free with rp_pulls_free().
 */
int rp_pulls_read(struct rp *);
void rp_pulls_free(struct rp *);
/* The open PR numbered pr from the tick's list, or NULL. */
const struct pull *rp_open_pull(const struct rp *, long long pr);
/*
 * The open PR working on issue n: on its fix/issue-n branch, else the
 * first linked to it (pulls_linked()), or NULL.
 */
const struct pull *rp_issue_pull(const struct rp *, long long n);
/*
 * The description of p ("" when it has none), read from the forge (the
 * list's copy was not kept), or NULL when it cannot be read (logged).
 * Caller frees.
 */
char *rp_pull_body(const struct rp *, const struct pull *p);
/*
 * review-poll-files-P: whether a PR changes only non-code files,
 * remembered between ticks (the model's PULLS_MEMO_FILES), so that a PR
 * waiting for CI does not cost a changed-files read every tick.
 */
void rp_files_memo_load(struct rp *);
void rp_files_memo_save(struct rp *);

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
/*
 * The verdict a review comment states in its last "### Verdict" section
 * (a heading at the start of a line; failing that, the first **APPROVE**,
 * **REQUEST_CHANGES** or **DISCUSS** in it) into out: 0, or -1 when it
 * states none.
 */
int rp_comment_verdict(const char *body, char *out, size_t outsz);
/*
 * The body of the comment posted for a review: heading (round > 0 for a
 * re-review), marker, markdown, verdict, footer.  Caller frees.
 */
char *rp_review_comment(const struct rp_verdict *, const char *sha,
    const char *prev_sha, int round);
/* The comment posted when a review produced no usable output. */
char *rp_error_comment(const char *sha, const char *why);

/*
 * Comment lists (Gitea objects); results are borrowed.  Only
 * review-poll's own comments (marks_review_comment()) are searched.
 */
/* The last such comment whose body contains needle, or NULL. */
const cJSON *rp_last_comment_with(const cJSON *comments, const char *needle);
/* How many comments contain needle. */
int rp_count_comments_with(const cJSON *comments, const char *needle);
/* How many carry a reviewed marker, of any head. */
int rp_count_reviews(const cJSON *comments);
/*
 * The round of the review comment c (1 for the PR's first review): the
 * reviews posted for the PR up to it and with it, among comments (the
 * same comment: the same "id").  0 when c is not among them.
 */
int rp_review_round(const cJSON *comments, const cJSON *c);
/* The body of comment c (NULL when it has none). */
const char *rp_comment_body(const cJSON *c);
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
 * review's head (or ""), when it was launched, whether the review was
 * started again after its agent went away, and for a forced review of a
 * head reviewed before (review-poll --pr --force) how many review
 * comments of the head there were (forced >= 0; -1 for any other
 * review).  Caller frees.
 */
char *rp_run_record(const char *sha, const char *prev, time_t at, int retried,
    int forced, long long unread);
/*
 * Remove a review's session (and its hooks' markers), worktree and run
 * files; with forget set (the PR closed) also its injection record and
 * its count of tries.
 */
void rp_run_cleanup(struct rp *, long long pr, int forget);
/* Stop a review's session and remove its hooks' markers. */
void rp_run_kill(struct rp *, long long pr);
/* 1 when the review's agent is through: it said so, stopped, or is gone. */
int rp_run_collectable(const struct rp_run *);
/* What a state is called in the log. */
const char *rp_run_state_name(enum rp_run_state);

/* status.c */
/* Replace the status file with "PR #pr: message" (logged too). */
void rp_status(struct rp *, long long pr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* At the end of a tick: the reviews in flight, or none. */
void rp_status_tick(struct rp *);

/* tries.c */
/*
 * The tries of the review of sha of PR pr so far (0 when the count is of
 * another head), or -1 when the count cannot be read.
 */
int rp_tries_get(struct rp *, long long pr, const char *sha);
/* Persist tries as the count of sha, before the try: 0 or -1. */
int rp_tries_set(struct rp *, long long pr, const char *sha, int tries);
/* Forget PR pr's count (its review was posted, or it closed). */
void rp_tries_forget(struct rp *, long long pr);
/* Forget the counts of PRs no longer open: 0, or -1 (unknown). */
int rp_tries_sweep(struct rp *);

/* cleanup.c */
/* Step 1: clean up reviews of closed PRs, idle ones, unknown phases. */
int rp_cleanup(struct rp *);

/* collect.c */
/* Step 2: post the reviews whose agents finished.  0, or -1 (failed). */
int rp_collect(struct rp *);
/*
 * The same for PR pr alone: 0 (posted, or nothing to post yet), or -1.
 */
int rp_collect_pr(struct rp *, long long pr);
/*
 * Whether the review of run's head is on the forge in comments: a
 * comment carrying mark (of the head), and for a forced review one more
 * review comment of the head than when it started.
 */
int rp_posted(const cJSON *comments, const char *mark, const char *sha,
    int forced);

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
/*
 * 1 when the head of pr is reviewed (pulls_reviewed(): the one rule of
 * common/world/reviewed.h), 0 when not, -1 when that cannot be told
 * (logged).
 */
int rp_reviewed(struct rp *, const struct pull *pr);
/*
 * 1 when CI let the head of pr through (passed, not configured, or only
 * non-code files changed: pulls_ci_says()), with the state for the
 * prompt in note; 0 when it did not; -1 when it cannot be told.
 */
int rp_ci_ready(struct rp *, const struct pull *pr, char *note, size_t notesz);
/*
 * Launch a review of the open PR pr (prev_sha: a re-review of it), ci
 * the CI state for the prompt, as try try_no of its head (0: the one
 * restart of a review whose agent went away, not counted): 0, or -1
 * (logged, everything removed).
 */
int rp_launch(struct rp *, const struct pull *pr, const char *prev_sha,
    const char *ci, int try_no);

/*
 * Whether the review of sha of pr may be tried (again): 1 with the try's
 * number in *try_no, 0 when its tries are used up (logged), -1 when the
 * count cannot be read.
 */
int rp_launch_tries(struct rp *, long long pr, const char *sha, int *try_no);
/* Step 4: re-review PRs whose review asked for changes and that moved. */
int rp_rereview(struct rp *);
/* Step 5: review the open PRs that need one. */
int rp_review_new(struct rp *);
/*
 * 1 when launching is allowed (limit, memory, and the Claude session
 * lock, taken for the launch that follows); logs why not.
 */
int rp_may_launch(struct rp *);

/* promfile.c */
/* review-poll's own families of the tick's metrics (promtick.h). */
extern const struct promtick_family rp_prom_families[];
/* The tick's counts and the review sessions' phases into pt (NULL: none). */
void rp_prom_tick(struct promtick *pt, const struct rp *);

/* oneshot.c */
/*
 * review-poll --pr N [--force]: review PR pr now under the review lock,
 * wait until the verdict is posted (at most the [review] pr_timeout) and
 * say it in *msg (caller frees).  Returns the exit status: 0 a verdict
 * (or nothing to review, said in *msg), 1 no verdict (a failure, a
 * review that failed, the timeout).
 */
int rp_oneshot(struct rp *, long long pr, int force, char **msg);

/* bashreview.c */
struct tick;
/*
 * The tick's load step: a live bash review-pr.sh in P-review.lock (read
 * before the tick lock is taken, which would overwrite its PID) ends the
 * tick or --pr with exit 0 and a log line ("standing back from #R: ..."),
 * as review-pr.sh let one review run at a time; a PID that is gone is
 * logged and ignored.  -1 to go on.
 */
int rp_standback(struct tick *);

#endif
