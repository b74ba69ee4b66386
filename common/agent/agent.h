/*
 * The agent seam: everything the pollers know about an agent session.
 * Start it, inject text into it, ask whether it lives, read its signal,
 * capture its output, list the sessions, kill it.  Nothing else in the
 * tree talks to tmux.
 *
 * Each backend is one file (agent_tmux.c: tmux sessions signalling
 * through phase files, seeds/002; agent_markers.c: the same sessions
 * with a marker-file handshake, seeds/004) with a row in the table of
 * agent.c;
 * a project chooses one by its protocol name ([agent] protocol).  A
 * backend knows a session by its name alone, and may keep per-session
 * state of its own on disk under the state directory it is given (a
 * JSON checkpoint, seeds/003; a marker handshake, seeds/004).
 *
 * Every message typed into a session, whatever its backend and whoever
 * sends it, goes through agent_deliver(): it is delivered once across
 * crashes (intent.h).  Its intent is recorded before it is typed and it
 * is marked delivered once the backend says so; a message found
 * recorded and not marked (the sender died between the two, or the try
 * was not confirmed) is settled by asking the backend whether the
 * session has it (its pane shows it, the agent worked since, its
 * mailbox took it: agent_backend.seen), never by typing it again
 * blindly.
 *
 * A message that cannot be typed now, whatever the reason (the Claude
 * session lock is held by another agent, the agent is at work on the
 * message typed last, another process types into the session, a paste
 * the backend did not confirm), goes to the session's mailbox (mailbox.h)
 * when its wrapper delivers one, and the sender moves on: the session's wrapper
 * types it, in order and once, when it holds the lock and the agent waits at
 * its prompt (agent_mailbox_deliver()).  A message queued there counts for its
 * sender as delivered or on its way: asked again, agent_deliver() queues
 * nothing twice.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stddef.h>
#include <time.h>

#include "phase.h"

struct buf;
struct sandbox_conf;

/* The protocol of the default backend. */
#define AGENT_PROTOCOL_DEFAULT "phase"
/* One-shot runs ending in a JSON checkpoint (agent_checkpoint.c). */
#define AGENT_PROTOCOL_CHECKPOINT "checkpoint"
/* A tmux session with a marker-file handshake (agent_markers.c). */
#define AGENT_PROTOCOL_MARKERS "markers"

/* How the tools run agents: given once, at start-up, to agent_use(). */
struct agent_conf {
	const char *protocol;	 /* backend name; NULL: the default */
	const char *state_dir;	 /* per-session state (the run dir) */
	const char *tmux_socket; /* -L of the tmux server, or NULL */
	/* "K=V" (NULL-ended, or NULL) for a tmux server a start makes
	 * (config_server_env()); copied. */
	char *const *server_env;
	const char *ready_pattern; /* the input box's prompt glyph */
	/* The factory's Claude session lock (agent_lock.h); NULL: none. */
	const char *session_lock;
	int session_lock_wait_s;
	/* markers: the waits for the ready marker and an ack (0: 30, 10). */
	int marker_ready_s;
	int marker_ack_s;
	/* checkpoint: a run's longest time (0: the backend's default). */
	long long run_timeout_s;
	/* --dry-run: reading a session changes nothing (no file written, no
	 * run started or stopped by a read). */
	int dry_run;
	/*
	 * The confinement of every agent started (sandbox.h); NULL: none,
	 * the agent trusted (the units' tests).
	 */
	const struct sandbox_conf *sandbox;
	/*
	 * Wake the tool when an agent's hooks leave a mark (its wrapper
	 * does, agent_exec.h): 1 yes, with this project file (NULL: the
	 * environment's project).
	 */
	int wake;
	const char *wake_project;
	/*
	 * With wake: an agent idle this many seconds since its turn ended
	 * wakes the tool once more (0: no such wake).
	 */
	int idle_grace_s;
};

/*
 * What a poller asks for when it starts an agent.  The agent's variables
 * reach it through a private file its wrapper reads (agent_exec.h), never
 * a command line.
 */
struct agent_spec {
	const char *session; /* session name */
	const char *workdir;
	/* The repository workdir is a worktree of (the folder the agent's
	 * trust dialog must be answered for), or NULL: workdir. */
	const char *trust_dir;
	char *const *argv;	 /* the agent command */
	const char *const *env;	 /* "K=V", NULL-ended, or NULL */
	const char *signal_path; /* the phase file, or NULL */
	/* Readiness (phase); markers asks for its own ready marker. */
	const char *ready_pattern; /* pane text meaning ready */
	const char *ready_marker;  /* or this file appearing */
	int ready_timeout_s;
	/*
	 * The first message (key and text), or NULL: recorded before the
	 * session starts, so that a tick that dies between the start and
	 * the message leaves it to the next (agent_pending()).  The caller
	 * delivers it with agent_deliver() once the start returned.
	 */
	const char *first_key;
	const char *first_text;
};

/* How a message reaches the session (agent_deliver()). */
enum agent_msg_kind {
	AGENT_MSG_INJECT, /* text, as one prompt */
	AGENT_MSG_ANSWER, /* a person's reply (agent_answer()) */
	AGENT_MSG_ADVANCE /* the work moves on (agent_advance()) */
};

/* A message for a session. */
struct agent_msg {
	const char *key; /* names it: delivered once (a line, < 200 bytes) */
	enum agent_msg_kind kind;
	const char *text;
	const char *reply;	 /* AGENT_MSG_ANSWER: the person's words */
	const char *signal_path; /* AGENT_MSG_ADVANCE: the phase file */
	enum phase next;	 /* AGENT_MSG_ADVANCE: the phase */
};

/*
 * What an agent says of its own progress (markers: its status.json):
 * state "ready", "processing", "completed" or "error", progress 0-100
 * (-1: not given), a message and a phase of its own (not the lifecycle
 * phase), and when it wrote them (0: not given).  Strings are made
 * printable and cut to fit.
 */
struct agent_progress {
	char state[16];
	int progress;
	char message[160];
	char phase[32];
	time_t updated_at;
};

/* What agent_inject() did. */
enum agent_delivery {
	AGENT_INJECT_ERROR = -1,
	AGENT_DELIVERED = 0,
	AGENT_NOT_DELIVERED, /* try again on a later tick */
	/* Nothing typed now: the session's wrapper can type it (the lock
	 * is held elsewhere), or it is in the session's mailbox. */
	AGENT_QUEUED
};

/*
 * A backend.  The signal an agent gives is a struct phase_info: its phase,
 * the raw first line, the reason, and when it was written.
 */
struct agent_backend {
	const char *protocol;
	/* Take the configuration (socket, state directory): 0 or -1. */
	int (*init)(const struct agent_conf *);
	int (*start)(const struct agent_spec *, char *err, size_t errsz);
	enum agent_delivery (*inject)(const char *session, const char *text);
	int (*alive)(const char *session);
	int (*read_signal)(const char *session, const char *signal_path,
	    struct phase_info *);
	int (*kill)(const char *session);
	int (*valid_name)(const char *name);
	/* Optional (NULL: the calls below return -1). */
	int (*capture)(const char *session, int lines, struct buf *out);
	int (*list)(const char *prefix, char ***names, size_t *n);
	void (*list_free)(char **names, size_t n); /* with list */
	int (*activity)(const char *session, time_t *when);
	int (*progress)(const char *session, struct agent_progress *);
	/* Optional (NULL: agent_answer() injects text). */
	enum agent_delivery (
	    *answer)(const char *session, const char *reply, const char *text);
	/* Optional (NULL: agent_advance() injects text). */
	enum agent_delivery (*advance)(const char *session,
	    const char *signal_path, enum phase next, const char *text);
	/*
	 * Optional (NULL: 0).  A count that grows when the session is given
	 * m (tmux: how often its pane shows m's first line), taken before m
	 * is typed, or -1 when it cannot be had.
	 */
	long long (*stamp)(const char *session, const struct agent_msg *m);
	/*
	 * Optional (NULL: 0).  Whether the session has m, whose delivery
	 * was recorded (and maybe tried) at at, with stamp() then stamp, and
	 * not confirmed: 1 it has, 0 it has not and can take it now, -1
	 * cannot tell now (try on a later tick).
	 */
	int (*seen)(const char *session, const struct agent_msg *m, time_t at,
	    long long stamp);
	/*
	 * Optional (NULL: 0, never).  Whether the agent waits at its prompt
	 * for a message, the last one having been typed at since (0: none):
	 * 1 it does, 0 not now (at work, starting, a dialog), for the
	 * wrapper delivering the mailbox.
	 */
	int (*at_prompt)(const char *session, time_t since);
};

/*
 * Choose the backend of conf->protocol and configure it.  Returns 0, or
 * -1 when no backend has that protocol or it cannot be configured (the
 * backend in use stays): a configuration error for the caller.
 */
int agent_use(const struct agent_conf *conf);
/* Replace the backend (tests); NULL restores the default. */
void agent_set_backend(const struct agent_backend *);

/*
 * Before an agent_start(): take the factory's Claude session lock for
 * the session to come, waiting at most the configured time, so that
 * nothing is claimed for it while another agent works.  agent_start()
 * hands the lock to the session; agent_unreserve() lets go of it when
 * no start follows.  Returns 0 (also when no lock is configured), 1 when
 * the lock stayed busy, -1 on error, with why in err for 1 and -1.
 */
int agent_reserve(char *err, size_t errsz);
void agent_unreserve(void);
/*
 * Start the agent and wait until it is ready for a prompt.  The session
 * holds the Claude session lock while its agent works (taken first when
 * agent_reserve() did not).  Returns 0, or -1 with err set; a session
 * that started but never became ready is killed before returning -1.
 */
int agent_start(const struct agent_spec *, char *err, size_t errsz);
/*
 * Deliver m to the session once, across crashes (see above):
 * AGENT_DELIVERED when it has it (now, or before: nothing typed then),
 * AGENT_NOT_DELIVERED when it is to be tried on a later tick (another
 * process is typing into the session, the backend did not confirm, or
 * whether it arrived cannot be told now, in a session whose wrapper
 * delivers no mailbox), AGENT_QUEUED when it is in the
 * session's mailbox (now, or before: nothing queued twice; logged "queued
 * for SESSION (why)"), AGENT_INJECT_ERROR on an error (its intent could
 * not be recorded: nothing typed).
 */
enum agent_delivery agent_deliver(const char *session,
    const struct agent_msg *m);
/*
 * The session's wrapper (agent_exec.h), holding the Claude session lock:
 * type the oldest message of its mailbox when the agent waits at its
 * prompt, once across crashes (as agent_deliver(); a message typed by a
 * process that died before it recorded the delivery is settled by
 * looking).  Returns 1 when one was typed, 2 when one was found
 * delivered before (nothing typed; either way it left the mailbox), 0
 * when there is nothing to type or not now, -1 on an error (logged).
 */
int agent_mailbox_deliver(const char *session);
/* Messages queued in the session's mailbox, or -1 when it cannot be read. */
long agent_queued(const char *session);
/*
 * The session's message recorded and not delivered whose key starts with
 * prefix: 1 with its key and text in *key and *text (caller frees both),
 * 0 when there is none, -1 when the record cannot be read.
 */
int agent_pending(const char *session, const char *prefix, char **key,
    char **text);
/*
 * Deliver text as one prompt, once the session holds the Claude session
 * lock again (a waiting agent gave it up): AGENT_QUEUED, nothing typed,
 * when another agent holds it.  The backend's own step: senders use
 * agent_deliver().
 */
enum agent_delivery agent_inject(const char *session, const char *text);
/* 1 alive, 0 gone, -1 cannot tell. */
int agent_alive(const char *session);
/*
 * Read the session's signal (the phase backend: the file at signal_path,
 * which the agent was told to write).  0, or -1 when it cannot be read.
 */
int agent_read_signal(const char *session, const char *signal_path,
    struct phase_info *);
/*
 * Append the last lines lines of the session's output (what its terminal
 * shows, history included) to out.  0, or -1.
 */
int agent_capture(const char *session, int lines, struct buf *out);
/*
 * Stop the agent; one already gone counts as stopped.  Its record of
 * messages goes with it.  0 or -1.
 */
int agent_kill(const char *session);
/* 1 when name can name a session of the backend, else 0. */
int agent_valid_name(const char *name);
/*
 * The names of the live sessions whose name starts with prefix, *n of
 * them, into *names (free with agent_list_free()).  Returns 0, or -1 when
 * they cannot be listed.
 */
int agent_list(const char *prefix, char ***names, size_t *n);
void agent_list_free(char **names, size_t n);
/*
 * A person's reply to the question the agent escalated: reply is their
 * words, text the poller's whole message around them (what to do next).
 * A backend that resumes its agent with a prompt of its own (checkpoint:
 * "User answered: REPLY ...") uses reply; the others inject text.
 */
enum agent_delivery agent_answer(const char *session, const char *reply,
    const char *text);
/*
 * The session's work moves on to phase next without anything for the
 * agent to do (CI passed: awaiting_review).  An agent that writes its own
 * phases is told so (text, injected); a backend whose agent is not running
 * between prompts (checkpoint) writes the phase at signal_path itself.
 */
enum agent_delivery agent_advance(const char *session, const char *signal_path,
    enum phase next, const char *text);
/*
 * When the session last had activity (tmux: created, or typed into by an
 * attached client), in *when.  Returns 0 or -1.
 */
int agent_activity(const char *session, time_t *when);
/*
 * The agent's own account of its progress, read afresh (each tick).
 * Returns 0 when read, 1 when there is none (the backend has no such
 * report, or the agent wrote none yet), -1 when it cannot be read.
 */
int agent_progress(const char *session, struct agent_progress *out);
/*
 * 1 when p says the agent is at work (any state but "completed") and
 * has not updated it for more than timeout_s seconds at now: the session
 * is stuck, as one whose phase did not change (the crash rule); else 0.
 */
int agent_progress_stale(const struct agent_progress *p, time_t now,
    long long timeout_s);

#endif
