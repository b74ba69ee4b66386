/*
 * dev-poll's private interface: the tick context shared by the steps
 * (main.c lists them in DESIGN section 5 order) and the prototypes of its
 * topic files.
 *
 *   repo.c      repo_root: the forge remote, session worktrees, mirrors
 *   status.c    the operators' status line
 *   prs.c       the open PRs (the forge model, common/world/pulls.h) as
 *               the scheduler sees them
 *   issues.c    the backlog, issue lists, dependency states
 *   cifix.c     the CI-fix budget in dev/ci-fixes-P.json
 *   state.c     what dev-poll remembers of an issue between ticks
 *   merge.c     direct merges, refusals, the after-merge steps and the
 *               pre-lock merge step
 *   react.c     step 2, phase reactions (react.h: rx*.c, recover.c,
 *               reactpr.c: PRs merged or closed behind a tick's back)
 *   slot.c      the agent slot and the memory guard
 *   resume.c    escalations (the pass shared with supervisor-poll);
 *               parked ones: never busy, resumed with a reply
 *   schedule.c  priorities 1, 1.5 and 2
 *   preflight.c the dependency preflight and its comment
 *   gather.c    what a launch reads before it changes anything
 *   prompt.c    the first prompt, from the formulas/ templates
 *   session.c   a dev session: busy, started (its hooks, environment
 *               and lock through common/agent*.c)
 *   legacy.c    the legacy launch of DEV_AGENT_CMD
 *   launch.c    claiming an issue and starting its session
 *   backoff.c   issues whose launch failed for a reason of their own
 *   oneshot.c   dev-poll --issue N: one issue's session, now
 *
 * Side effects go through the effect layer (common/act/act.c) in c->act.
 */
#ifndef DEV_POLL_H
#define DEV_POLL_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "ci.h"
#include "forge.h"
#include "backlog.h"
#include "bashlock.h"
#include "phase.h"
#include "prmemo.h"
#include "promtick.h"
#include "pulls.h"

struct buf;
struct config;
struct promtick;
struct reviewers;
struct template_var;
struct forge;
struct parked;
struct woodpecker;

/*
 * The CI-fix budget: sessions started to fix one PR's CI (counted in
 * dev/ci-fixes-P.json), and CI failures told to one session, before a
 * person has to look.
 */
#define DP_CI_FIX_BUDGET 3

/* What a step tells main(): go on, the tick is over, or it failed. */
enum dp_step { DP_NEXT, DP_DONE, DP_FAIL };

/* What a PR needs next, once its CI and reviews are known. */
enum dp_pr_action {
	DP_PR_MERGE,	  /* approved and CI passed */
	DP_PR_FIX_REVIEW, /* changes requested, CI not failed */
	DP_PR_FIX_CI,	  /* CI failed */
	DP_PR_WAIT	  /* CI or a review still to come */
};

/* Whether an issue's dependencies are met. */
enum dp_deps {
	DP_DEPS_MET,	/* every one closed (or none) */
	DP_DEPS_OPEN,	/* some still open: logged */
	DP_DEPS_UNKNOWN /* a read failed: logged */
};

/* What dp_merge() did. */
enum dp_merge {
	DP_MERGED,	  /* merged now, or found merged */
	DP_MERGE_REFUSED, /* refused (now or before, for this head) */
	DP_MERGE_LATER,	  /* not now: the forge is checking the PR, or its
			     head or base moved; a later tick asks again */
	DP_MERGE_FAILED,  /* no answer: a later tick finds out */
	DP_MERGE_UNKNOWN  /* not tried: the issue's state is unreadable, or
			     a bash dev-agent.sh works on it */
};

/* What the CI-fix budget says (dp_cifix()). */
enum dp_cifix {
	DP_CIFIX_OK,	    /* attempts remain */
	DP_CIFIX_EXHAUSTED, /* used up: the issue is (being) blocked */
	DP_CIFIX_ERROR	    /* the issue or the count could not be read */
};

/* Whether an issue's session lives (dp_session_busy()). */
enum dp_busy {
	DP_FREE,
	DP_BUSY,	/* logged */
	DP_BUSY_UNKNOWN /* logged */
};

/*
 * An open PR as the scheduler sees it: the forge model's PR (pulls.h)
 * and what the scheduler worked out of it, at most once a tick.
 */
struct dp_pr {
	const struct pull *pull; /* the model's; valid until dp_prs_free() */
	int evaluated;		 /* 1 done, -1 a read failed, 0 not yet */
	enum ci_state ci;	 /* as read */
	int passed;		 /* CI passed, non-code PRs included */
	int failed;		 /* CI failed for good */
	int noncode;		 /* only non-code files changed */
	int approved;		 /* the head's verdict is an approval */
	int changes;		 /* the head's verdict asks for changes */
	int merge_refused;	 /* a direct merge was refused this tick */
	int merge_later;	 /* ... or put off to a later tick */
};

/* Backlog issues listed by title in a session's prompt. */
#define DP_BACKLOG_LINES 50

/* A merged PR of the closed list: the issue its branch fixes. */
struct dp_merged {
	long long issue;
	long long pr;
};

/*
 * What dev-poll remembers of an issue between ticks (dev-state-P-N;
 * state.c).  All empty: nothing.
 */
struct dp_state {
	long long pr;		  /* the issue's PR, 0 when none is known */
	char merge[64];		  /* a merge asked, its steps not all done */
	char refused[64];	  /* the head SHA whose merge was refused */
	long status;		  /* the refusal's HTTP status */
	long long refused_at;	  /* the phase file's mtime at the refusal */
	int escalate;		  /* the refusal is a human's: escalated */
	char answer[256];	  /* the forge's words on the refusal */
	char rebase[64];	  /* the head SHA a rebase was asked for */
	char unmergeable[64];	  /* the head the forge called not mergeable */
	long long unmergeable_at; /* since then (epoch seconds) */
	char unknown[PHASE_RAW_MAX]; /* the last unknown phase logged */
	long long no_pr_at; /* the phase write told its PR failed, or 0 */
};

/* One tick. */
struct dev_ctx {
	const struct config *cfg;
	struct forge *forge;
	struct woodpecker *wp; /* NULL when no CI is configured */
	struct act act;	       /* every side effect; act.dry_run */
	/* Whose formal verdicts count (common/world/reviewers.h). */
	struct reviewers *reviewers;
	int verbose;
	int legacy; /* DEV_AGENT_CMD set */
	time_t now;
	/* The open PRs, their CI and verdicts (common/world/pulls.h). */
	struct pulls *pulls;
	struct dp_pr *prs; /* the model's open PRs as the scheduler sees them */
	size_t nprs;
	int prs_read; /* 1 read, -1 the read failed (logged), 0 not yet */
	struct backlog backlog;	      /* the backlog issues, oldest first */
	struct dp_merged *merged_prs; /* the closed list's merged PRs */
	size_t nmerged_prs;
	int closed_read;	     /* 1 read, 0 not (or a write since) */
	unsigned long closed_writes; /* forge_writes() when it was read */
	const cJSON **inprog;	     /* in-progress issues, oldest first */
	size_t ninprog;
	int merged;   /* PRs merged (or their merge asked) this tick */
	int landed;   /* merges whose after-merge steps ran this tick */
	int skipped;  /* items left for a later tick: a read failed */
	int acted;    /* items handled: merges, reactions, launches */
	int failed;   /* launches that did not start (act counts writes) */
	int launched; /* sessions (or legacy agents) started this tick */
	int ci_fixes; /* of them, to fix a PR's failed CI */
	unsigned status_steps; /* status lines written: a launch went on */
	struct bashlock bash;  /* a bash dev-agent.sh's lock (standback.c) */
};

/* What dp_launch() did. */
enum dp_launch {
	DP_LAUNCHED,  /* a session (or legacy agent) was started */
	DP_SKIPPED,   /* its session already exists */
	DP_BLOCKED,   /* closed, or unmet dependencies: nothing claimed */
	DP_EXHAUSTED, /* the CI-fix budget ran out before the launch */
	DP_LOCK_BUSY, /* the Claude session lock stayed busy: nothing claimed */
	DP_LAUNCH_FAILED,
	/*
	 * Failed for a reason of the issue's own (its data over the body
	 * cap, its worktree path taken or not to be made, its prompt not to
	 * be built): given back, recorded with back-off (backoff.c), and
	 * the tick goes on with the next issue.
	 */
	DP_LAUNCH_BAD,
	DP_BACKED_OFF, /* not tried: backed off after such failures */
	/*
	 * Labelled formula, action, prediction/dismissed or
	 * prediction/unreviewed (backlog_skip()): never launched, by any
	 * path, --force included, as dev-agent.sh refused them.
	 */
	DP_REFUSED
};

/* A launch request. */
struct dp_launch_req {
	long long issue;
	const cJSON *issue_json; /* the issue object, or NULL: read it */
	const char *why;	 /* for the log: "recovery", "CI fix", ... */
	long long ci_fix_pr;	 /* > 0: charge this PR's CI-fix budget */
	int crash;  /* crash recovery: no preflight, the worktree kept */
	int force;  /* dev-poll --issue --force: no preflight */
	int manual; /* dev-poll --issue: a person asks, no back-off */
	/*
	 * Added to the first prompt, or NULL: a parked conversation lost
	 * with its worktree and branch starts afresh with its escalation
	 * and the reply (resume.c); its parked record is passed over.
	 */
	const char *note;
};

/* What a launch reads before it changes anything (gather.c). */
struct dp_gather {
	long long issue;
	const cJSON *it;
	const cJSON *comments;
	const char *login;
	long long pr;	/* the open PR to adopt (recovery), or 0 */
	char *branch;	/* fix/issue-N, or the PR's branch */
	char *prior;	/* the prior-art section, or "" */
	char *pr_notes; /* recovery: the PR's latest comments */
	char *text;	/* the issue with its human comments */
	char *title;
	char *backlog;
	char *remote;	/* the launch's: the forge remote */
	char *worktree; /* the launch's: P-worktree-N */
	int crash;	/* restarting a crashed session */
	char bad[256];	/* DP_GATHER_BAD, or a launch's: the issue's fault */
};

/* What dp_gather() found. */
enum dp_gathered {
	DP_GATHERED,	   /* all read: the launch goes on */
	DP_GATHER_BLOCKED, /* the issue cannot start (closed, unmet deps) */
	DP_GATHER_FAILED,  /* a read failed (logged) */
	DP_GATHER_BAD,	   /* the issue's own data cannot be taken (in bad) */
	DP_GATHER_REFUSED  /* a label says no agent works on it (logged) */
};

/* devlog.c */
/*
 * Make $FACTORY_ROOT/dev/dev-agent.log (upstream's readers') a hard link
 * to this project's dev log, unless it is one already; a file there that
 * is not such a link is renamed to dev-agent.log.old first.  Not under
 * dry-run.  A failure is a warning.
 */
void dp_devlog_link(struct dev_ctx *);

/* standback.c */
/*
 * Read dev-agent-P.lock (not in legacy mode, where it is the tick's own
 * child's): a live bash dev-agent.sh in it is logged ("standing back from
 * #N: ..."), a PID that is gone is logged and ignored.
 */
void dp_standback_read(struct dev_ctx *);
/*
 * 1 when a live bash dev-agent.sh works on issue (or on an issue it does
 * not name); issue -1 asks for the agent slot, which such a run holds
 * (logged: "agent running: ...").
 */
int dp_stands_back(const struct dev_ctx *, long long issue);

/* repo.c */
/*
 * The repo_root remote whose push URL names FORGE_URL's host, else
 * "origin".  Caller frees.
 */
char *dp_forge_remote(struct dev_ctx *);
/* Fetch, check out and fast-forward the primary branch in repo_root. */
int dp_git_ff_primary(struct dev_ctx *);
/* Push the primary branch to every [mirrors] URL, in the background. */
void dp_mirror_push(struct dev_ctx *);
/*
 * A new worktree on branch from the remote's primary branch.  0, -1 when
 * the remote cannot be fetched, 1 when the worktree cannot be made.
 */
int dp_worktree_fresh(struct dev_ctx *, const char *remote, const char *wt,
    const char *branch);
/*
 * A worktree on the remote's branch of an open PR, kept if there.  As
 * dp_worktree_fresh().
 */
int dp_worktree_recover(struct dev_ctx *, const char *remote, const char *wt,
    const char *branch);

/* status.c */
/* Replace the operators' status line (dev-agent-status-P) and log it. */
int dp_status(struct dev_ctx *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Record what the tick came to in dev-poll-ticks-P (runfiles.h): s as
 * the steps returned it, ended the outcome of the step that ended it
 * (a RUNFILES_TICK_ word), refined by what the tick did.
 */
void dp_tick_record(struct dev_ctx *, enum dp_step s, const char *ended);

/* prs.c */
/* Read the open PRs into the context, once.  0 or -1 (logged). */
int dp_prs_load(struct dev_ctx *);
/* Work out the PR's CI state and reviews, once.  0 or -1 (logged). */
int dp_pr_evaluate(struct dev_ctx *, struct dp_pr *);
/* The open PR whose head branch is branch, or NULL. */
struct dp_pr *dp_pr_for_branch(struct dev_ctx *, const char *branch);
/* The open PR on fix/issue-N (or, with by_title, naming #N in its title). */
struct dp_pr *dp_pr_for_issue(struct dev_ctx *, long long issue, int by_title);
/* The open PR whose body says "Fixes #N" (any case), or NULL. */
struct dp_pr *dp_pr_fixing(struct dev_ctx *, long long issue);
/* The open PR numbered number, or NULL (also when none were read). */
struct dp_pr *dp_pr_open(struct dev_ctx *, long long number);
/* What an evaluated PR needs next. */
enum dp_pr_action dp_pr_decide(const struct dp_pr *);
/*
 * The forge model of the tick's open PRs (common/world/pulls.h), made
 * when first asked for; the list is read by dp_prs_load().
 */
struct pulls *dp_pulls(struct dev_ctx *);
/*
 * The CI state of commit sha (and its pipeline, may be NULL): Woodpecker
 * first, the forge's commit status when Woodpecker has no pipeline for
 * it or fails (said once a tick; Woodpecker is not asked again that
 * tick; pulls_commit_ci()).  0, or -1 when the forge's status could not
 * be read either.
 */
int dp_ci_state(struct dev_ctx *, const char *sha, enum ci_state *,
    long long *pipeline);
/*
 * A merged PR on fix/issue-N among the closed ones: 1 (its number in
 * *pr), 0 none, -1 the closed PRs could not be read (logged).
 */
int dp_pr_merged(struct dev_ctx *, long long issue, long long *pr);
/* The CI state of an evaluated PR for the log ("success" if non-code). */
const char *dp_pr_ci_name(const struct dp_pr *);
/*
 * Rewrite dev-poll-reviews-P, the PRs whose reviews were read and hold no
 * verdict (pulls.h, PULLS_MEMO_REVIEWS), and the CI memo of the heads
 * (ci-status-P, where no Woodpecker is set up) from this tick's PRs.
 */
void dp_quiet_save(struct dev_ctx *);

/* issues.c */
/*
 * The open issues carrying label, every page, oldest first (the tools'
 * order, forge_issues_list()), into a new array of borrowed items
 * (caller frees the array).  0 or -1 (logged).
 */
int dp_issues_labelled(struct dev_ctx *, const char *label, const cJSON ***out,
    size_t *n);
/*
 * The backlog (common/world/backlog.h), read once into the context.  0
 * or -1 (logged).
 */
int dp_backlog_load(struct dev_ctx *);
/*
 * Make sure the repository has the `priority` label the gardener and the
 * planner set, as dev-poll.sh did on each backlog scan: not looked for
 * when a backlog issue carries it (npri > 0) or the run file of
 * runfiles_dev_priority_label() is younger than an hour; created when
 * missing.  A failure is a warning: the scan goes on.
 */
void dp_priority_label(struct dev_ctx *, size_t npri);
/* One issue (borrowed).  0 or -1 (logged). */
int dp_issue(struct dev_ctx *, long long number, const cJSON **out);
/* An issue's state, as dp_issue_state() reads it. */
enum dp_issue_state {
	DP_ISSUE_OPEN,
	DP_ISSUE_CLOSED,
	DP_ISSUE_MISSING, /* no such issue (404) */
	DP_ISSUE_UNKNOWN  /* it could not be read (logged) */
};
/* Read issue number (borrowed into *out unless missing) and its state. */
enum dp_issue_state dp_issue_state(struct dev_ctx *, long long number,
    const cJSON **out);
/*
 * Whether issue dep is closed (a missing one is not; one in a list of
 * open issues already read costs no request).  0 or -1.
 */
int dp_dep_closed(struct dev_ctx *, long long dep, int *closed);
/* Whether every dependency in body is closed. */
enum dp_deps dp_issue_ready(struct dev_ctx *, long long number,
    const char *body);
/* Whether each of the n issues of deps (those of issue number) is closed. */
enum dp_deps dp_deps_ready(struct dev_ctx *, long long number,
    const long long *deps, size_t n);
/* Free the context's backlog. */
void dp_backlog_free(struct dev_ctx *);
/* Free the context's PRs. */
void dp_prs_free(struct dev_ctx *);

/* cifix.c */
/*
 * The CI-fix budget of pr (issue's PR): DP_CIFIX_OK when attempts remain
 * (*attempts: the count, after the increment unless check_only),
 * DP_CIFIX_EXHAUSTED when they are used up (the first caller to see it
 * posts the diagnostic and labels the issue blocked; an unreadable count
 * counts as that for a check), DP_CIFIX_ERROR when the issue or the count
 * could not be read or written.
 */
enum dp_cifix dp_cifix(struct dev_ctx *, long long pr, long long issue,
    int check_only, long long *attempts);
/* One locked step on a PR's count: what the step does. */
enum dp_cifix_op {
	DP_CIFIX_READ,	    /* read only */
	DP_CIFIX_CHECK,	    /* read; the last attempt used marks it spent */
	DP_CIFIX_INCREMENT, /* as CHECK, else add one */
	DP_CIFIX_RESET	    /* forget the PR */
};
/* What the step found. */
enum dp_cifix_res {
	DP_CIFIX_LEFT,	/* attempts remain */
	DP_CIFIX_SPENT, /* used up, already seen so */
	DP_CIFIX_FIRST	/* used up, and this caller is the first to see it */
};
/*
 * The step's rule, on a count read from the file: the result, the count
 * to store in *next, and whether the file must change.
 */
enum dp_cifix_res dp_cifix_step(long long count, enum dp_cifix_op op,
    long long *next, int *changed);
/* Forget pr's count (after its merge).  0 or -1. */
int dp_cifix_reset(struct dev_ctx *, long long pr);

/* state.c */
/*
 * Read the issue's state into *st (all empty when there is none).  0, or
 * -1 (logged) when the file is there but cannot be read.
 */
int dp_state_read(struct dev_ctx *, long long issue, struct dp_state *st);
/* Replace the issue's state (all empty: remove it).  0 or -1. */
int dp_state_write(struct dev_ctx *, long long issue,
    const struct dp_state *st);
/* Remember pr as the issue's PR (nothing for issue 0).  0 or -1. */
int dp_state_note_pr(struct dev_ctx *, long long issue, long long pr);
/* Forget everything about the issue.  0 or -1. */
int dp_state_forget(struct dev_ctx *, long long issue);

/* merge.c */
/*
 * Merge an approved, green PR at the SHA that was checked, and do what a
 * merge entails.  The merge is remembered in the issue's state before it
 * is asked; a refusal is remembered per head SHA and not asked again: 405
 * (the forge's merge requirements) escalates a live session, anything
 * else (a conflict) has it rebase, once per head.  Without a live session
 * the caller starts one.
 */
enum dp_merge dp_merge(struct dev_ctx *, struct dp_pr *);
/*
 * The after-merge steps of PR pr of issue (0: a chore PR), each
 * idempotent: the issue closed and out of in-progress, PHASE:done for a
 * session still on it (its reactions clean up) or else its phase and
 * summary files removed, the PR's CI-fix count forgotten; the primary
 * branch and the mirrors follow at the end of the tick.  The issue's
 * state keeps the merge until every step succeeded, so that a later tick
 * (dp_reconcile()) finishes them.  0 or -1.
 */
int dp_merged(struct dev_ctx *, long long issue, long long pr, const char *sha);
/* Step 1: merge every approved, green PR with an issue reference. */
enum dp_step dp_merge_prelock(struct dev_ctx *);
/*
 * After the tick's merges, if any: fast-forward the primary branch in
 * repo_root and push it to the mirrors.
 */
void dp_merge_finish(struct dev_ctx *);

/* rx.c */
/* The issue numbers of the project's phase files.  Caller frees. */
int dp_phase_issues(struct dev_ctx *, long long **issues, size_t *n);

/* reactpr.c */
/*
 * Step 1, first: every issue's remembered PR checked against the forge.
 * Merged (dev-poll's merge whose answer was lost, or a person's): the
 * after-merge steps.  Closed unmerged: the session ends.
 */
void dp_reconcile(struct dev_ctx *);

/* react.c */
/*
 * Step 2: phase reactions.  DP_NEXT (one issue's trouble leaves it for
 * the next tick and does not stop the others), or DP_FAIL when the phase
 * files cannot be listed.
 */
enum dp_step dp_react(struct dev_ctx *);

/* pause.c */
/*
 * Step 2b: DP_DONE while the project is paused by an API error (logged,
 * nothing starts), DP_FAIL when the pause cannot be read, else DP_NEXT.
 */
enum dp_step dp_paused(struct dev_ctx *);
/* Whether the pause holds now (not logged): 1, 0, or -1 unknown. */
int dp_pause_holds(struct dev_ctx *);

/* slot.c */
/* Step 3: one agent per project: DP_DONE while it is busy. */
enum dp_step dp_slot(struct dev_ctx *);
/* The same, with issue except's own session and phase file left out. */
enum dp_step dp_slot_except(struct dev_ctx *, long long except);
/* Step 4: DP_DONE when memory is too low to launch. */
enum dp_step dp_memory(struct dev_ctx *);

/* resume.c: escalations, parked escalations and their resume. */
/*
 * Step 2a: the escalation pass (pollers/escalate.h): notices, parking,
 * replies, reminders, timeouts.  A step that failed counts as skipped.
 */
void dp_escalations(struct dev_ctx *);
/*
 * The parked record of issue into *p: 1 parked, 0 not, -1 when it
 * cannot be read (logged).
 */
int dp_parked(struct dev_ctx *, long long issue, struct parked *p);
/*
 * A parked issue whose session lives again: its resume was cut off, so
 * the reply recorded for it is delivered now (once), and the records
 * go.  0, or -1 (logged).
 */
int dp_resume_finish(struct dev_ctx *, long long issue, const char *session);
/*
 * Step 4b: the first parked issue a reply waits for is resumed (the
 * slot is free): DP_DONE when it was (or the Claude session lock stayed
 * busy), DP_FAIL when it failed, DP_NEXT when no reply waits.
 */
enum dp_step dp_resume(struct dev_ctx *);

/* schedule.c: steps 5 to 8. */
/*
 * The backlog in launch order: priority issues first, each tier oldest
 * first (the list is read oldest first).  *n items; caller frees the
 * array, not the items.
 */
const struct backlog_issue **dp_backlog_order(
    const struct backlog_issue *backlog, size_t n, size_t *nout);
/* Priority 1: the first orphaned in-progress issue. */
enum dp_step dp_orphans(struct dev_ctx *);
/* Priority 1.5: PRs with requested changes or failed CI. */
enum dp_step dp_stuck(struct dev_ctx *);
/* Priority 2: the backlog. */
enum dp_step dp_backlog(struct dev_ctx *);

/* preflight.c */
/*
 * Check the dependencies in body before issue is claimed: when some are
 * open, the notice is posted unless the newest of comments is one.
 * DP_DEPS_UNKNOWN also when the comment could not be posted.
 */
enum dp_deps dp_preflight(struct dev_ctx *, long long issue, const char *body,
    const cJSON *comments);

/* gather.c */
/* Read everything a launch needs into *g (free with dp_gather_free()). */
/*
 * 1 when the issue's labels say no agent works on it (backlog_skip():
 * formula, action, prediction/dismissed, prediction/unreviewed), logged
 * as a SKIP line; else 0.
 */
int dp_launch_refused(long long issue, const cJSON *it);
enum dp_gathered dp_gather(struct dev_ctx *, const struct dp_launch_req *,
    struct dp_gather *g);
void dp_gather_free(struct dp_gather *);

/* prompt.c */
/*
 * The issue body and its human comments (not by login, the token's user,
 * nor by FORGE_BOT_USERNAMES), each cut to a bounded size.  Caller frees.
 */
char *dp_issue_text(struct dev_ctx *, const cJSON *issue, const cJSON *comments,
    const char *login);
/* "- #N title" lines of the backlog but self.  Caller frees. */
char *dp_backlog_text(struct dev_ctx *, long long self);
/* The issue's title, cut to a bounded size.  Caller frees. */
char *dp_title(const cJSON *issue);
/* Fill the template name of formulas/, or NULL (logged).  Caller frees. */
char *dp_render(struct dev_ctx *, const char *name,
    const struct template_var *vars, size_t n);
/* The first max lines of text.  Caller frees. */
char *dp_cut_lines(const char *text, size_t max);
/*
 * The first prompt of the launch: a fresh session's, or, continuing an
 * open PR or a crashed session, the recovery prompt.  NULL (logged) when
 * it cannot be built.  Caller frees.
 */
char *dp_launch_prompt(struct dev_ctx *, struct dp_gather *);

/* session.c */
/* Whether the issue's session lives. */
enum dp_busy dp_session_busy(struct dev_ctx *, long long issue);
/*
 * Start the issue's session in an existing worktree and deliver prompt:
 * hooks (agent_hooks.h), stale markers removed, agent started with the
 * dev role's environment, readiness, injection (the session is killed if
 * the prompt does not arrive).  Used by every
 * launch, including the phase loop's crash recovery.  0 or -1 (logged).
 */
int dp_session_start(struct dev_ctx *, long long issue, const char *worktree,
    const char *prompt);
/*
 * A live session whose launch was cut off between its start and its
 * prompt (the tick was killed): the prompt recorded for it is delivered
 * now (once: agent_deliver()).  1 when one was pending (delivered now,
 * or to be tried again on a later tick), 0 none, -1 on failure (logged).
 */
int dp_session_finish(struct dev_ctx *, long long issue);
/*
 * Start the issue's session again in worktree on the Claude
 * conversation id (the agent command with "--resume ID") and deliver
 * text under key first, as dp_session_start() does.  0 or -1 (logged).
 */
int dp_session_resume(struct dev_ctx *, long long issue, const char *worktree,
    const char *id, const char *key, const char *text);
/*
 * Before a dev agent starts: a warning in the log when it is given the
 * dev bot's FORGE_TOKEN (FORGE_AGENT_TOKEN unset), the token that merges.
 */
void dp_session_token_note(const struct dev_ctx *);

/* legacy.c */
/*
 * The legacy launch: DEV_AGENT_CMD with the issue number, detached (the
 * CI-fix budget already charged).
 */
enum dp_launch dp_launch_legacy(struct dev_ctx *, const struct dp_launch_req *);

/* launch.c */
/*
 * Take the Claude session lock for a session about to start (nothing
 * under dry-run); dp_launch() hands it over or lets go of it.  0 taken;
 * 1 busy after the wait, -1 an error, each logged.
 */
int dp_launch_reserve(struct dev_ctx *, long long issue);
/* Start work on an issue (see enum dp_launch). */
enum dp_launch dp_launch(struct dev_ctx *, const struct dp_launch_req *);
/*
 * Start the issue's session again in its worktree (made again from its
 * branch when gone) with the recovery prompt: the issue, the branch's
 * diff against the primary branch, the last phase and CI result, the
 * PR's latest comments.  0 or -1 (logged).
 */
int dp_relaunch(struct dev_ctx *, long long issue);

/* backoff.c */
/*
 * Whether the issue's launch is backed off now (logged, with until when
 * and why): 1, 0, or -1 when its record cannot be read (logged; the
 * issue is passed over this tick).
 */
int dp_backoff_holds(struct dev_ctx *, long long issue);
/* Record one more failed launch of the issue, for reason (logged). */
void dp_backoff_failed(struct dev_ctx *, long long issue, const char *reason);
/* A launch of the issue succeeded: its record goes. */
void dp_backoff_clear(struct dev_ctx *, long long issue);

/* promfile.c */
/* dev-poll's own families of the tick's metrics (promtick.h). */
extern const struct promtick_family dp_prom_families[];
/* The tick's counts and the sessions' phases into pt (NULL: none). */
void dp_prom_tick(struct promtick *pt, const struct dev_ctx *);

/* oneshot.c */
/*
 * dev-poll --issue N [--force]: launch the session of issue now, or
 * start its crashed session again, obeying the agent slot, the memory
 * guard and the dependencies unless force.  What happened, for the
 * operator, in *msg (caller frees).  Returns the exit status: 0 started,
 * running already or refused by a rule (said in *msg), 1 a failure.
 */
int dp_oneshot(struct dev_ctx *, long long issue, int force, char **msg);

#endif
