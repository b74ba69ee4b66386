/*
 * The phase reactions' private interface (DESIGN section 6, the rows
 * dev-poll owns): one struct per phase file, worked out once a tick, and
 * the reaction of each topic file.
 *
 *   react.c     the dispatcher: what each phase file calls for
 *   rx.c        what every reaction uses: keyed notices, the PR, comments
 *               posted once, the end of a session and its run files
 *   reactci.c   PHASE:awaiting_ci: the PR, CI results, retriggers
 *   reactend.c  PHASE:done and PHASE:failed (refusals, diagnostics)
 *   recover.c   crash and timeout recovery, idle detection
 *   reactpr.c   the issue's PR merged or closed behind the tick's back
 *
 * The reactions call down into rx.c, never back into react.c.
 */
#ifndef REACT_H
#define REACT_H

#include <time.h>

#include "act.h"
#include "ci.h"
#include "phase.h"

struct dev_ctx;

/* One issue's session as this tick sees it. */
struct rx {
	long long issue;
	char *session;	  /* dev-P-N */
	char *phase_path; /* its phase file */
	struct phase_info sig;
	int alive;     /* agent_alive(): 1, 0 or -1 */
	long long age; /* seconds since the phase file was written */
	long long pr;  /* the issue's open PR, or 0 when none (read lazily) */
	const char *head; /* that PR's head SHA, or NULL */
	int pr_read; /* 1 when pr/head are known, -1 when the read failed */
};

/* CI gets this long after PHASE:awaiting_ci before the timeout notice. */
#define RX_CI_TIMEOUT CI_TIMEOUT_S
/* Crash recoveries of one issue before it is given up as failed. */
#define RX_MAX_RECOVERIES 2

/* What a phase file calls for this tick. */
enum rx_reaction {
	RX_IGNORE,  /* another tool's phase */
	RX_UNSURE,  /* whether the session lives cannot be told: next tick */
	RX_RECOVER, /* crashed or stuck: start it again, or give up */
	RX_IDLE,    /* no phase yet: the idle check */
	RX_CI,	    /* PHASE:awaiting_ci */
	RX_DONE,    /* PHASE:done */
	RX_FAILED   /* PHASE:failed */
};

/* react.c */
/*
 * The reaction to a phase, from the facts alone: alive as agent_alive()
 * says, exited when the SessionEnd hook's marker is there, age the
 * seconds since the phase was written, timeout CLAUDE_TIMEOUT.  A dead
 * or stuck session is recovered before any other reaction (*cause says
 * why); done and failed sessions are not.  An unknown phase counts as no
 * phase yet.
 */
enum rx_reaction rx_reaction(enum phase, int alive, int exited, long long age,
    long long timeout, const char **cause);

/* rx.c */
/* The issue's session, its names set (free with rx_free()). */
void rx_init(struct dev_ctx *, struct rx *, long long issue);
void rx_free(struct rx *);
/*
 * Inject text into the issue's session once per phase write: kind names
 * the notice ("done", "pr-error", ...).  ACT_INJECTED when it was sent
 * now or before, else as act_inject() (ACT_INJECT_FAILED also when the
 * key could not be written).
 */
enum act_inject rx_notice(struct dev_ctx *, struct rx *, const char *kind,
    const char *text);
/*
 * Whether the key kind was set for the current phase write: 1 or 0, or
 * -1 (logged) when the notice file is there but cannot be read (unknown:
 * the notice is not sent).
 */
int rx_key_done(struct dev_ctx *, struct rx *, const char *kind);
/* Set the key kind for the current phase write.  0 or -1. */
int rx_key_set(struct dev_ctx *, struct rx *, const char *kind);
/*
 * Inject text, the message key (act_inject()); the idle marker goes: the
 * agent has work again.
 */
enum act_inject rx_inject(struct dev_ctx *, struct rx *, const char *key,
    const char *text);
/* Move the session on to phase next, as act_advance(); the idle marker
 * goes as for rx_inject(). */
enum act_inject rx_advance(struct dev_ctx *, struct rx *, const char *key,
    enum phase next, const char *text);
/*
 * Find the issue's open PR into rx->pr and rx->head (and remember it in
 * the issue's state).  0 or -1.
 */
int rx_find_pr(struct dev_ctx *, struct rx *);
/*
 * Post body on the issue with marker below it, unless a comment carries
 * the marker already (act_comment() adds key's own marker, and looks it
 * up too).  0 or -1.
 */
int rx_comment_once(struct dev_ctx *, long long issue, const char *key,
    const char *marker, const char *body);
/*
 * The session is over: killed, the issue out of in-progress, the
 * worktree removed (unless keep_worktree), the run files gone.  0 or -1.
 */
int rx_end_session(struct dev_ctx *, struct rx *, int keep_worktree);
/*
 * Remove every run file of the issue (phase, summary, CI result, notice,
 * counters, hook markers, its state, the PR's review-injected file).
 */
void rx_clear_files(struct dev_ctx *, struct rx *);

/* reactci.c */
/* PHASE:awaiting_ci.  0 or -1 (nothing changed, retried next tick). */
int rx_awaiting_ci(struct dev_ctx *, struct rx *);

/*
 * PHASE:awaiting_review with CI passed at the PR's head (its CI result
 * says so): review-poll is woken, once per phase write, so that the
 * review starts now (DESIGN section 13).  0 or -1.
 */
int rx_review_ready(struct dev_ctx *, struct rx *);

/* reactend.c */
/* PHASE:done.  0 or -1. */
int rx_done(struct dev_ctx *, struct rx *);
/*
 * PHASE:failed, or a session given up with reason (NULL: the phase
 * file's reason).  0 or -1.
 */
int rx_failed(struct dev_ctx *, struct rx *, const char *reason);

/* pause.c */
/*
 * The session stopped by an API error (apistop.h; read from its screen
 * when no hook said so): 1 when it is the pause's this tick (kept, or
 * resumed: no other reaction), 0 when not (an error of the issue's own
 * read from the screen leaves x->sig at PHASE:failed), -1 on failure.
 */
int dp_pause_session(struct dev_ctx *, struct rx *);

/* recover.c */
/*
 * A crashed or stuck session (cause: why): started again, or handled as
 * failed after RX_MAX_RECOVERIES.  0 or -1.
 */
int rx_recover(struct dev_ctx *, struct rx *, const char *cause);
/* The idle check for a session without a phase.  0 or -1. */
int rx_idle(struct dev_ctx *, struct rx *);

#endif
