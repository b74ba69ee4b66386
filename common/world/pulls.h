/*
 * The forge model of a project's open PRs: the only place that knows
 * what an open PR is.  The open list is read once, page by page, into
 * one struct pull per PR (the fields every tool decides on; no page is
 * kept), and what the forge has no list form for is asked at most once a
 * tick, when a tool asks the question that needs it:
 *
 *   CI        the head's state, from one Woodpecker pipeline list read
 *             for every head at once (woodpecker_scan()), the forge's
 *             commit status where it has none; once Woodpecker fails,
 *             the forge's status stands in for the rest of the tick
 *             (said once).  The non-code rule (pulls_ci_rule()): a PR
 *             that changes only non-code files (ci_files_need_ci())
 *             counts as passed whatever CI says; its files are read only
 *             when CI has not passed.
 *   verdict   the one rule of reviewed.h, over its formal reviews (read
 *             with the review handle, several at once when asked to).
 *   reviewed  a verdict, or a review comment of the head (reviewed.h).
 *
 * What the forge says of a PR that has not moved since the last tick
 * (same head, same updated_at) can be remembered in a run file
 * (prmemo.h) and not asked again: its changed files (PULLS_MEMO_FILES),
 * or that its reviews hold no verdict (PULLS_MEMO_REVIEWS, held while
 * its CI state, read this tick, is what it was).  Where no Woodpecker is
 * set up, the forge's combined status of each head is remembered by SHA
 * (pulls_ci_memo_use(), cimemo.h): a final state is not read again for
 * half an hour, one still pending with a back-off by its age, and a
 * head a webhook marked as changed at once.
 *
 * A failed read is never an answer: the call returns -1 with the reason
 * in pulls_error(), and asks again when called again.
 */
#ifndef PULLS_H
#define PULLS_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "ci.h"
#include "reviewed.h"

struct act;
struct config;
struct forge;
struct reviewers;
struct woodpecker;

/* One open PR as the list said it; strings NULL when not given. */
struct pull {
	long long number;
	const char *title;
	const char *branch; /* head.ref (forge.h: the branch once deleted) */
	const char *base;   /* base.ref */
	const char *sha;    /* head.sha */
	long long issue;    /* its linked issue (issueref_from_pr()): -1
			       none, 0 a chore PR */
	long long branch_issue; /* the N of its fix/issue-N branch, or -1 */
	const long long *fixes; /* each N of "fixes #N" in its body */
	size_t nfixes;
	int draft;
	int mergeable;	/* 1, 0, or -1 when not said */
	time_t updated; /* updated_at, 0 when not given */
};

/* What CI says of a head, the non-code rule applied (pulls_ci_rule()). */
enum pulls_ci {
	PULLS_CI_UNKNOWN,    /* the state could not be read */
	PULLS_CI_WAITING,    /* none yet, pending, or ended without a verdict */
	PULLS_CI_PASSED,     /* passed, or not needed: only non-code files */
	PULLS_CI_FAILED,     /* failed, and code changed */
	PULLS_CI_NEEDS_FILES /* the answer depends on the changed files */
};

/* The facts a tick remembers in a run file. */
enum pulls_memo {
	PULLS_MEMO_REVIEWS, /* reviews read and found without a verdict */
	PULLS_MEMO_FILES    /* only non-code files changed, or not */
};

struct pulls;

/*
 * A model of cfg's project read with f (the open list, changed files,
 * CI, and reviews and comments unless pulls_set_review()) and wp (NULL
 * when Woodpecker is not set up), rv saying whose verdicts count, at
 * now; all borrowed.  Nothing is asked before a call needs it.  Free
 * with pulls_free().
 */
struct pulls *pulls_new(const struct config *cfg, struct forge *f,
    struct woodpecker *wp, struct reviewers *rv, time_t now);
/* Read reviews and comments with review (borrowed) instead. */
void pulls_set_review(struct pulls *, struct forge *review);
/*
 * When a PR's reviews are read, read along (at most HTTP_PARALLEL at
 * once) those of the next PRs linked to an issue (issue >= 0) whose CI
 * has not been asked yet: the PRs a scan decides on next.
 */
void pulls_set_ahead(struct pulls *);
void pulls_free(struct pulls *);
/* Why the last call failed ("" after a success). */
const char *pulls_error(const struct pulls *);

/*
 * Read the open PRs (every page) and the CI states of their heads in
 * one pipeline list, once: 0, or -1 (nothing kept; said by the caller
 * from pulls_error(); not asked again).
 */
int pulls_load(struct pulls *);
/* 1 when the list was read, -1 when that failed, 0 when not asked yet. */
int pulls_loaded(const struct pulls *);
/* The open PRs, in the forge's order. */
size_t pulls_count(const struct pulls *);
const struct pull *pulls_at(const struct pulls *, size_t i);

/* Lookups in the list (NULL when there is none). */
const struct pull *pulls_number(const struct pulls *, long long pr);
/* The PR whose head branch is branch. */
const struct pull *pulls_branch(const struct pulls *, const char *branch);
/* The PR on issue's fix/issue-N branch. */
const struct pull *pulls_issue_branch(const struct pulls *, long long issue);
/* The first PR whose title names #issue. */
const struct pull *pulls_titled(const struct pulls *, long long issue);
/* The first PR whose body says "fixes #issue". */
const struct pull *pulls_fixing(const struct pulls *, long long issue);
/* The PR on issue's branch, else the first linked to it. */
const struct pull *pulls_linked(const struct pulls *, long long issue);

/*
 * Remember kind between ticks in the run file at path (read now, or
 * once the list is read): PRs listed there unchanged are not asked
 * again.  pulls_memo_save() writes it back.
 */
void pulls_memo_use(struct pulls *, enum pulls_memo kind, const char *path);
/*
 * Where Woodpecker is not set up (wp NULL), remember the forge's combined
 * status of each open PR's head in the CI memo at path (cimemo.h), and
 * read it again only when it is due or a mark in the file at marks (may
 * be NULL) names it.  No-op with Woodpecker.
 */
void pulls_ci_memo_use(struct pulls *, const char *path, const char *marks);
/* The same with the project's run files (runfiles_ci_memo()). */
void pulls_ci_memo_project(struct pulls *);
/*
 * Rewrite each memo file in use from this tick's facts, when the list
 * was read and it changed (through act; nothing in a dry run).
 */
void pulls_memo_save(struct pulls *, struct act *);

/*
 * The CI rule: what CI in state st says (configured: CI is set up for
 * the project), noncode telling whether only non-code files changed (1),
 * not (0), or is not known (-1).  PULLS_CI_NEEDS_FILES only when
 * noncode is -1 and the files decide.
 */
enum pulls_ci pulls_ci_rule(enum ci_state st, int configured, int noncode);
/* The CI state of p's head in *st: 0, or -1. */
int pulls_ci(struct pulls *, const struct pull *p, enum ci_state *st);
/*
 * The same from the pipeline list already read, asking nothing: 0, or
 * -1 when it is not known yet.
 */
int pulls_ci_known(const struct pulls *, const struct pull *p,
    enum ci_state *st);
/*
 * The CI state of any commit sha, and the pipeline behind it (may be
 * NULL; ci_commit_state()), Woodpecker first while it answers: 0, or -1.
 */
int pulls_commit_ci(struct pulls *, const char *sha, enum ci_state *st,
    long long *pipeline);
/* 1 when Woodpecker failed this tick (the forge's status stands in). */
int pulls_wp_down(const struct pulls *);
/* A read of Woodpecker's failed elsewhere: leave it alone (said once). */
void pulls_wp_failed(struct pulls *);
/* Whether p changes only non-code files: 1, 0, or -1. */
int pulls_noncode(struct pulls *, const struct pull *p);
/*
 * What CI says of p's head, the non-code rule applied, reading its
 * files only when they decide: never PULLS_CI_NEEDS_FILES;
 * PULLS_CI_UNKNOWN when a read failed.
 */
enum pulls_ci pulls_ci_says(struct pulls *, const struct pull *p);
/*
 * The same questions one at a time, each reading the files only when
 * its answer depends on them: CI passed (or was not needed), CI failed
 * on code.  1, 0, or -1 (unknown).
 */
int pulls_ci_passed(struct pulls *, const struct pull *p);
int pulls_ci_failed(struct pulls *, const struct pull *p);
/*
 * Whether pulls_ci_says() would read p's files, as far as is known
 * without asking: they are not known, and CI has not passed as far as
 * the pipeline list says.  1 or 0.
 */
int pulls_files_needed(const struct pulls *, const struct pull *p);
/*
 * Read ahead, at once (at most HTTP_PARALLEL), the changed files of the n
 * PRs v, so that pulls_ci_says() finds them read.
 */
void pulls_files_ahead(struct pulls *, const struct pull *const *v, size_t n);

/* p's head's verdict (reviewed.h) into *out: 0, or -1. */
int pulls_verdict(struct pulls *, const struct pull *p,
    struct reviewed_verdict *out);
/* Whether p's head is reviewed (reviewed.h): 1, 0, or -1. */
int pulls_reviewed(struct pulls *, const struct pull *p);
/*
 * p's head's review comment whose author counts, in *out (borrowed from
 * the comment list, valid until the handle's next write; NULL when there
 * is none): 0, or -1.
 */
int pulls_review_comment(struct pulls *, const struct pull *p,
    const cJSON **out);

#endif
