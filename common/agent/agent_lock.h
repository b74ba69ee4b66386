/*
 * The factory's Claude session lock: flock(2) on one file (by default
 * ~/.claude/session.lock), shared with upstream's bash agents, so that
 * one agent session works at a time (they would race refreshing the same
 * OAuth token).  It is held by the wrapper of a session (agent_exec.h),
 * a process that lives exactly as long as the session, never by a tick
 * that exits.  A tick and a wrapper talk through two run files of the
 * session (runfiles_agent_state(), runfiles_lock_request()):
 * - the state file, which the wrapper writes: "held" while it holds the
 *   lock, "free" while it does not, "busy" when it could not take the
 *   lock to start the agent (and gave up), "error: WHY" when it could
 *   not start the agent (with or without a lock);
 * - the request marker, which a tick creates before it types into the
 *   session; the wrapper tries the lock (at once, never waiting for it),
 *   writes the state and removes the marker.  A tick that finds it
 *   "free" (another agent holds the lock) types nothing: the message
 *   goes to the session's mailbox (mailbox.h), which the wrapper
 *   delivers once it holds the lock (agent_lock_hold_try()).
 * The wrapper gives the lock up when the phase file turns to a phase in
 * which the agent waits (awaiting_ci, awaiting_review, awaiting_changes,
 * escalate, done, failed).
 *
 * A tick about to start a session takes the lock itself first
 * (agent_lock_reserve(): an issue is not claimed while another agent
 * works) and hands it to the session's wrapper without letting go of
 * it: before the session starts it listens on a socket only this user
 * can reach (runfiles_lock_handover()), the wrapper connects, and the
 * tick sends it the descriptor that holds the lock (SCM_RIGHTS).  A
 * flock(2) lock belongs to the open file description, which both then
 * share: the lock passes from holder to holder with no moment in which
 * another waiter could take it.  Only when the hand-over cannot happen
 * (no socket, a wrapper that never connects) does the tick let go of it
 * (agent_lock_unreserve()) for the wrapper to take.
 */
#ifndef AGENT_LOCK_H
#define AGENT_LOCK_H

#include <sys/stat.h>
#include <sys/types.h>

/* The lock file and the longest wait for it; NULL or "": no lock. */
void agent_lock_configure(const char *path, int wait_s);
/* The configured lock file, or NULL when there is none. */
const char *agent_lock_path(void);
/* The configured wait, in seconds. */
int agent_lock_wait(void);

/* The tick's side. */
/*
 * Take the lock in this process, waiting at most the configured time.
 * Returns 0 when taken (or when no lock is configured, or it is held
 * already), 1 when it stayed busy, -1 on error (errno set).
 */
int agent_lock_reserve(void);
/* Let go of a lock agent_lock_reserve() took; nothing when none. */
void agent_lock_unreserve(void);
/*
 * Whether the last agent_lock_reserve() of this process found the lock
 * busy for its whole wait: 1, else 0 (none yet, or it was taken).
 */
int agent_lock_turned_away(void);
/*
 * Whether the lock is free now: 1 when it could be taken without
 * waiting (and was let go again at once), 0 when it is held (by this
 * process too) or none is configured, -1 on error (errno set).
 */
int agent_lock_free(void);
/*
 * Hand the lock agent_lock_reserve() took over to a process about to
 * inherit it: its descriptor (-1 when none is held), which the caller
 * closes (never unlocks) once the process has it.
 */
int agent_lock_hand_over(void);
/*
 * The hand-over, the tick's side.  Before the wrapper is started: listen
 * at path (a new socket, mode 0600) when a lock is reserved.  0 with the
 * socket in *sfd, or -1 (errno set; *sfd -1): the wrapper takes the lock
 * itself.
 */
int agent_lock_handover_listen(const char *path, int *sfd);
/*
 * Once the wrapper was started: send it the reserved lock over sfd
 * (its peer must be this user), waiting for it a few seconds at most
 * while alive(session) says it lives.  0 when it was sent (this process
 * holds the lock no more; the wrapper, or nobody should it have died,
 * has it), -1 when not (still reserved).  sfd is closed and path removed
 * either way; sfd -1 does only that.
 */
int agent_lock_handover(int sfd, const char *path, const char *session,
    int (*alive)(const char *));

/*
 * After a session's wrapper was started: wait until its state file
 * says whether it holds the lock.  alive(session) is asked now and then
 * whether the session still lives.  Returns 0 held, 1 busy (the wrapper
 * gave up and the session ends), -1 when the session went away or never
 * answered.
 */
int agent_lock_await_start(const char *state, const char *session,
    int (*alive)(const char *));
/*
 * Before text is typed into a session: ask its wrapper to hold the lock
 * and wait for the answer (a few seconds at most: the wrapper never
 * waits for the lock).  A session without a state file has no wrapper
 * (started otherwise): 0 at once.  Returns 0 held, 1 busy (another agent
 * holds it, or no answer in time), -1 when the session went away.
 */
int agent_lock_for_inject(const char *state, const char *request,
    const char *session, int (*alive)(const char *));

/*
 * The state file says the wrapper failed: 1 with its words in why, else
 * 0.
 */
int agent_lock_state_why(const char *state, char *why, size_t whysz);
/*
 * After a session was stopped: wait (a few seconds at most) until its
 * wrapper is gone, having let go of the lock and removed its state, so
 * that a session started again under the name starts clean.  0, or -1
 * when it is still there.
 */
int agent_lock_await_end(const char *state);

/* The wrapper's side. */
/* The agent could not be started, for why. */
void agent_lock_state_failed(const char *state, const char *why);
struct agent_lock_holder {
	const char *path;     /* the lock file */
	const char *handover; /* the tick's socket handing it over, or NULL */
	int wait_s;	      /* the longest wait for it */
	const char *state;    /* the session's state file */
	const char *request;  /* the session's request marker */
	const char *watch;    /* the phase file, or NULL */
	int fd;		      /* the lock while held, else -1 */
	struct stat seen;     /* the phase file as last looked at */
	int seen_valid;
};
/*
 * Set h up and take the lock for the agent's start: from the tick that
 * started the session (h->handover), else waiting at most h->wait_s
 * seconds while stop(arg) says 0.  Returns 0 held ("held" written), 1
 * busy ("busy" written), -1 on error (errno set; nothing written).
 */
int agent_lock_hold_start(struct agent_lock_holder *h, int (*stop)(void *),
    void *arg);
/*
 * One look at the session: release the lock when the phase file turned
 * to a waiting phase since the last look, then serve a request (taking
 * the lock when it is free, without waiting; stop(arg) may end even
 * that try).
 */
void agent_lock_serve(struct agent_lock_holder *h, int (*stop)(void *),
    void *arg);
/*
 * The wrapper has messages to deliver: take the lock when it is free,
 * without waiting ("held" written).  1 held, 0 not.
 */
int agent_lock_hold_try(struct agent_lock_holder *h);
/* Let go of the lock while the agent waits ("free" written). */
void agent_lock_hold_free(struct agent_lock_holder *h);
/*
 * The session ends: release the lock, remove the state file (when it is
 * still the one h wrote).
 */
void agent_lock_hold_end(struct agent_lock_holder *h);

#endif
