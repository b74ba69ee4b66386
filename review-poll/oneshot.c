/*
 * review-poll --pr N [--force]: what running review-pr.sh N [--force] by
 * hand did.  One PR is reviewed now with a tick's own steps: the same
 * checks (open, CI passed or not needed, no review of the head yet unless
 * --force, memory), the same launch (rp_launch()) and the same posting
 * (rp_collect_pr()).  Unlike a tick it waits, holding the review lock as
 * review-pr.sh did, until the verdict is on the forge or [review]
 * pr_timeout_seconds have passed, and says the verdict.  A review of the
 * same head already in flight is waited for, not started again; an agent
 * that goes away without a word is started once more, as a tick would.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "forge.h"
#include "lock.h"
#include "log.h"
#include "marks.h"
#include "pulls.h"
#include "review-poll.h"
#include "reviewed.h"
#include "runfiles.h"
#include "termsafe.h"
#include "valid.h"
#include "xmalloc.h"

/* How often the review's run files are looked at while waiting (ms). */
#define ONESHOT_POLL_MS 500

/* The review asked for. */
struct oneshot {
	long long pr;
	const struct pull *pull; /* the open PR, from the tick's list */
	char sha[72];		 /* its head */
	char prev[72];		 /* a re-review: the head reviewed before */
	char ci[96];		 /* the CI state, for the prompt */
	int forced;		 /* rp_run.forced of the review, or -1 */
	int launched;		 /* starts so far */
	time_t deadline;
	char *text; /* what the operator is told, after "PR #N SHA: " */
};

/* Where the review stands. */
enum oneshot_state {
	ONESHOT_WAIT,	 /* not posted yet */
	ONESHOT_UNKNOWN, /* the forge could not be read: look again */
	ONESHOT_DONE,	 /* the verdict, or nothing to do: exit 0 */
	ONESHOT_FAILED	 /* no verdict will come: exit 1 */
};

/* A review in flight of the PR, from its run files. */
struct oneshot_run {
	int found;
	enum phase phase;
	char sha[64];
	char prev[64];
	int forced;
	int collectable;
};

static void oneshot_sleep(int);
static int oneshot_lock(struct rp *, const struct oneshot *, int *);
static enum oneshot_state oneshot_say(struct oneshot *, enum oneshot_state,
    const char *, ...) __attribute__((format(printf, 3, 4)));
static char *oneshot_verdict_line(const char *);
static enum oneshot_state oneshot_posted(struct rp *, struct oneshot *);
static enum oneshot_state oneshot_formal(struct rp *, struct oneshot *);
static enum oneshot_state oneshot_existing(struct rp *, struct oneshot *);
static int oneshot_find(struct rp *, long long, struct oneshot_run *);
static enum oneshot_state oneshot_launch(struct rp *, struct oneshot *);
static enum oneshot_state oneshot_start(struct rp *, struct oneshot *, int);
static enum oneshot_state oneshot_step(struct rp *, struct oneshot *);
static enum oneshot_state oneshot_open(struct rp *, struct oneshot *);
static enum oneshot_state oneshot_wait(struct rp *, struct oneshot *);

static void
oneshot_sleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* The review lock, waited for until the deadline: 0, or -1 (logged). */
static int
oneshot_lock(struct rp *rp, const struct oneshot *o, int *fd)
{
	char *path = runfiles_review_lock(rp->cfg->project_name);
	long long wait = (long long)(o->deadline - time(NULL));
	int r;

	*fd = -1;
	if (rp->act.dry_run) {
		free(path);
		return 0;
	}
	r = lock_wait(path, fd, wait > 0 ? (int)wait : 1);
	if (r != 0)
		log_err("cannot take the lock %s: %s", path,
		    r == 1 ? "another review-poll holds it" : strerror(errno));
	free(path);
	return r == 0 ? 0 : -1;
}

/* Set what the operator is told; returns st. */
static enum oneshot_state
oneshot_say(struct oneshot *o, enum oneshot_state st, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	free(o->text);
	o->text = text;
	return st;
}

/*
 * The verdict line of a review comment ("APPROVE — reason"), printable
 * and without its emphasis, or NULL.  Caller frees.
 */
static char *
oneshot_verdict_line(const char *body)
{
	const char *p, *sect = NULL;
	char *line, *star;
	struct buf b;

	for (p = body; p != NULL && (p = strstr(p, "### Verdict\n")) != NULL;
	     p++)
		sect = p;
	if (sect == NULL)
		return NULL;
	sect += strlen("### Verdict\n");
	line = xstrndup(sect, strcspn(sect, "\n"));
	while ((star = strstr(line, "**")) != NULL)
		memmove(star, star + 2, strlen(star + 2) + 1);
	buf_init(&b, 0);
	termsafe_line(line, strlen(line), 400, &b);
	free(line);
	return buf_steal(&b);
}

/*
 * Whether the review of o's head is posted (a new one when forced):
 * ONESHOT_DONE with the verdict, ONESHOT_FAILED with the error comment,
 * ONESHOT_WAIT when neither is there, ONESHOT_UNKNOWN when the comments
 * cannot be read.
 */
static enum oneshot_state
oneshot_posted(struct rp *rp, struct oneshot *o)
{
	char *mark = marks_reviewed(o->sha), *err = marks_review_error(o->sha);
	enum oneshot_state r = ONESHOT_WAIT;
	const cJSON *comments;
	char *line;

	if (forge_comments_list(rp->review, o->pr, &comments) == -1) {
		log_warn("pr #%lld: cannot read the comments: %s", o->pr,
		    forge_error(rp->review));
		r = ONESHOT_UNKNOWN;
	} else if (rp_posted(comments, mark, o->sha, o->forced)) {
		line = oneshot_verdict_line(
		    rp_comment_body(rp_last_comment_with(comments, mark)));
		r = oneshot_say(o, ONESHOT_DONE, "%s",
		    line != NULL ? line : "reviewed");
		free(line);
	} else if (rp_posted(comments, err, o->sha, o->forced))
		r = oneshot_say(o, ONESHOT_FAILED,
		    "the review failed (see its error comment on the PR)");
	free(mark);
	free(err);
	return r;
}

/*
 * The verdict of o's head (a formal review, not a comment; the one rule
 * of common/world/reviewed.h), said: DONE, or WAIT.
 */
static enum oneshot_state
oneshot_formal(struct rp *rp, struct oneshot *o)
{
	struct reviewed_verdict v;

	if (pulls_verdict(rp->pulls, o->pull, &v) == -1)
		return ONESHOT_UNKNOWN;
	if (v.state == REVIEWED_NONE)
		return ONESHOT_WAIT;
	return oneshot_say(o, ONESHOT_DONE, "%s by %s",
	    v.state == REVIEWED_APPROVED ? "APPROVED" : "REQUEST_CHANGES",
	    v.author != NULL ? v.author : "?");
}

/* A head reviewed already, and no --force: what its review said. */
static enum oneshot_state
oneshot_existing(struct rp *rp, struct oneshot *o)
{
	char *said;

	o->forced = -1;
	if (oneshot_posted(rp, o) == ONESHOT_WAIT)
		(void)oneshot_formal(rp, o);
	said = o->text;
	o->text = NULL;
	oneshot_say(o, ONESHOT_DONE,
	    "reviewed already%s%s (--force reviews it "
	    "again)",
	    said != NULL ? ": " : "", said != NULL ? said : "");
	free(said);
	return ONESHOT_DONE;
}

/* The PR's review in flight, if any, into *run: 0, or -1 (logged). */
static int
oneshot_find(struct rp *rp, long long pr, struct oneshot_run *run)
{
	struct rp_run *runs;
	size_t i, n;

	memset(run, 0, sizeof(*run));
	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (runs[i].pr != pr)
			continue;
		run->found = 1;
		run->phase = runs[i].phase.phase;
		snprintf(run->sha, sizeof(run->sha), "%s", runs[i].sha);
		snprintf(run->prev, sizeof(run->prev), "%s", runs[i].prev);
		run->forced = runs[i].forced;
		run->collectable = rp_run_collectable(&runs[i]);
	}
	rp_runs_free(runs, n);
	return 0;
}

/* Start the review agent (again): WAIT, or FAILED. */
static enum oneshot_state
oneshot_launch(struct rp *rp, struct oneshot *o)
{
	int tries = 0;

	if (o->launched >= 2)
		return oneshot_say(o, ONESHOT_FAILED,
		    "the review agent went away twice without a review");
	/*
	 * A person asked for this review: it counts as a try of the head but
	 * is not refused when the tick's tries are used up; starting it again
	 * after its agent went away is no new try.
	 */
	if (o->launched == 0 && (tries = rp_tries_get(rp, o->pr, o->sha)) == -1)
		return oneshot_say(o, ONESHOT_FAILED,
		    "cannot read the review's tries (see the log)");
	if (rp_launch(rp, o->pull, o->prev[0] ? o->prev : NULL, o->ci,
		o->launched == 0 ? tries + 1 : 0) == -1)
		return oneshot_say(o, ONESHOT_FAILED,
		    "the review could not be started (see the log)");
	o->launched++;
	return ONESHOT_WAIT;
}

/*
 * The checks of a tick and the launch, or a review of the head already
 * in flight to wait for: WAIT, DONE (nothing to do, said) or FAILED.
 */
static enum oneshot_state
oneshot_start(struct rp *rp, struct oneshot *o, int force)
{
	struct oneshot_run run;
	const cJSON *comments;

	if (oneshot_find(rp, o->pr, &run) == -1)
		return oneshot_say(o, ONESHOT_FAILED,
		    "cannot list the reviews in flight");
	if (run.found && run.phase != PHASE_AWAITING_CHANGES &&
	    strcmp(run.sha, o->sha) == 0) {
		log_msg("pr #%lld: a review of %.7s is in flight: waiting for "
			"it",
		    o->pr, o->sha);
		o->forced = run.forced;
		o->launched = 1;
		return ONESHOT_WAIT;
	}
	switch (rp_reviewed(rp, o->pull)) {
	case -1:
		return oneshot_say(o, ONESHOT_FAILED,
		    "cannot read its reviews (see the log)");
	case 1:
		if (!force)
			return oneshot_existing(rp, o);
		break;
	}
	switch (rp_ci_ready(rp, o->pull, o->ci, sizeof(o->ci))) {
	case -1:
		return oneshot_say(o, ONESHOT_FAILED,
		    "cannot read its CI state (see the log)");
	case 0:
		return oneshot_say(o, ONESHOT_DONE,
		    "not reviewed: CI has not passed (%s)", o->ci);
	}
	if (!rp_may_launch(rp))
		return oneshot_say(o, ONESHOT_FAILED,
		    "not started: too little memory, no review allowed or the "
		    "Claude session lock busy (see "
		    "the log)");
	if (force) {
		if (forge_comments_list(rp->review, o->pr, &comments) == -1)
			return oneshot_say(o, ONESHOT_FAILED,
			    "cannot read its comments (see the log)");
		o->forced = rp_count_comments_with(comments, o->sha);
		rp->forced_pr = o->pr;
		rp->forced_seen = o->forced;
	}
	if (run.found && run.phase == PHASE_AWAITING_CHANGES &&
	    strcmp(run.sha, o->sha) != 0)
		snprintf(o->prev, sizeof(o->prev), "%s", run.sha);
	log_msg("pr #%lld: reviewing %.7s now%s", o->pr, o->sha,
	    force ? " (--force)" : "");
	return oneshot_launch(rp, o);
}

/*
 * One look: a review agent that is through is collected (posted as a
 * tick posts it); then the forge says whether the verdict is there.
 */
static enum oneshot_state
oneshot_step(struct rp *rp, struct oneshot *o)
{
	struct oneshot_run run;
	enum oneshot_state st;

	if (oneshot_find(rp, o->pr, &run) == -1)
		return ONESHOT_WAIT;
	if (run.found && run.phase != PHASE_AWAITING_CHANGES &&
	    !run.collectable)
		return ONESHOT_WAIT;
	if (run.found && run.collectable &&
	    (rp_collect_pr(rp, o->pr) == -1 ||
		oneshot_find(rp, o->pr, &run) == -1))
		return ONESHOT_WAIT;
	if ((st = oneshot_posted(rp, o)) != ONESHOT_WAIT)
		return st == ONESHOT_UNKNOWN ? ONESHOT_WAIT : st;
	/* Neither posted nor in flight: its agent went away, once more. */
	if (!run.found)
		return oneshot_launch(rp, o);
	return ONESHOT_WAIT;
}

/* The PR, open, with a usable head: WAIT to go on, else DONE or FAILED. */
static enum oneshot_state
oneshot_open(struct rp *rp, struct oneshot *o)
{
	const char *sha;

	if (rp_pulls_read(rp) == -1)
		return oneshot_say(o, ONESHOT_FAILED,
		    "cannot read the open PRs (see the log)");
	if ((o->pull = rp_open_pull(rp, o->pr)) == NULL)
		return oneshot_say(o, ONESHOT_DONE,
		    "not an open PR: nothing to review");
	sha = o->pull->sha;
	if (sha == NULL || valid_sha(sha) != NULL || o->pull->branch == NULL)
		return oneshot_say(o, ONESHOT_FAILED, "its head is unusable");
	snprintf(o->sha, sizeof(o->sha), "%s", sha);
	return ONESHOT_WAIT;
}

/* Look until the verdict is there or the deadline passes. */
static enum oneshot_state
oneshot_wait(struct rp *rp, struct oneshot *o)
{
	enum oneshot_state st = ONESHOT_WAIT;

	while (st == ONESHOT_WAIT && time(NULL) < o->deadline) {
		oneshot_sleep(ONESHOT_POLL_MS);
		st = oneshot_step(rp, o);
	}
	if (st == ONESHOT_WAIT)
		st = oneshot_say(o, ONESHOT_FAILED,
		    "no verdict within %lld s; the review goes on and a later "
		    "tick posts it",
		    rp->set.pr_timeout_s);
	return st;
}

int
rp_oneshot(struct rp *rp, long long pr, int force, char **msg)
{
	struct oneshot o;
	enum oneshot_state st;
	int fd = -1;

	memset(&o, 0, sizeof(o));
	o.pr = pr;
	o.forced = -1;
	o.deadline = time(NULL) + (time_t)rp->set.pr_timeout_s;
	if (oneshot_lock(rp, &o, &fd) == -1)
		st = oneshot_say(&o, ONESHOT_FAILED,
		    "cannot take the review lock (see the log)");
	else {
		log_msg("--pr %lld%s: one review, now", pr,
		    force ? " --force" : "");
		if ((st = oneshot_open(rp, &o)) == ONESHOT_WAIT)
			st = oneshot_start(rp, &o, force);
	}
	if (st == ONESHOT_WAIT && rp->act.dry_run)
		st = oneshot_say(&o, ONESHOT_DONE,
		    "dry-run: a review would be started (nothing done)");
	else if (st == ONESHOT_WAIT)
		st = oneshot_wait(rp, &o);
	lock_release(fd);
	if (o.sha[0] != '\0')
		*msg = xasprintf("PR #%lld %.7s: %s\n", pr, o.sha, o.text);
	else
		*msg = xasprintf("PR #%lld: %s\n", pr, o.text);
	log_msg("--pr %lld: %s", pr, o.text);
	free(o.text);
	return st == ONESHOT_DONE ? 0 : 1;
}
