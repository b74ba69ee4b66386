/*
 * The agent seam: everything the pollers know about an agent session.
 * Start it, inject text into it, ask whether it lives, read its signal,
 * kill it.  Today the transport is tmux and the signal is the phase file
 * (seeds/002); a backend built on a JSON checkpoint file (seeds/003) or a
 * marker handshake (seeds/004) replaces the table below without the
 * pollers changing.
 */
#ifndef AGENT_H
#define AGENT_H

#include <stddef.h>
#include <time.h>

#include "phase.h"

/* What a poller asks for when it starts an agent. */
struct agent_spec {
	const char *session; /* session name */
	const char *workdir;
	char *const *argv;	   /* the agent command */
	const char *const *env;	   /* "K=V", NULL-ended, or NULL */
	const char *ready_pattern; /* pane text meaning ready */
	const char *ready_marker;  /* or this file appearing */
	int ready_timeout_s;
};

/* What an agent says through its signal channel. */
struct agent_signal {
	enum phase phase;
	char raw[PHASE_RAW_MAX];       /* as written */
	char reason[PHASE_REASON_MAX]; /* or "" */
	time_t since;		       /* when it was written; 0 if never */
};

/* The results of agent_inject(). */
#define AGENT_DELIVERED 0
#define AGENT_NOT_DELIVERED 1

struct agent_backend {
	int (*start)(const struct agent_spec *, char *err, size_t errsz);
	int (*inject)(const char *session, const char *text);
	int (*alive)(const char *session);
	int (*read_signal)(const char *signal_path, struct agent_signal *);
	int (*kill)(const char *session);
	/* Optional (NULL: the calls below return -1). */
	int (*list)(const char *prefix, char ***names, size_t *n);
	int (*activity)(const char *session, time_t *when);
};

/* Replace the backend (tests, other transports); NULL restores tmux. */
void agent_set_backend(const struct agent_backend *);

/*
 * Start the agent and wait until it is ready for a prompt.  Returns 0, or
 * -1 with err set; a session that started but never became ready is
 * killed before returning -1.
 */
int agent_start(const struct agent_spec *, char *err, size_t errsz);
/*
 * Deliver text as one prompt.  Returns AGENT_DELIVERED,
 * AGENT_NOT_DELIVERED (try again on a later tick) or -1.
 */
int agent_inject(const char *session, const char *text);
/* 1 alive, 0 gone, -1 cannot tell. */
int agent_alive(const char *session);
/* Read the signal at signal_path.  0, or -1 when it cannot be read. */
int agent_read_signal(const char *signal_path, struct agent_signal *);
/* Stop the agent; one already gone counts as stopped.  0 or -1. */
int agent_kill(const char *session);
/*
 * The names of the live sessions whose name starts with prefix, *n of
 * them, into *names (free with agent_list_free()).  Returns 0, or -1 when
 * they cannot be listed.
 */
int agent_list(const char *prefix, char ***names, size_t *n);
void agent_list_free(char **names, size_t n);
/*
 * When the session last had activity (tmux: created, or typed into by an
 * attached client), in *when.  Returns 0 or -1.
 */
int agent_activity(const char *session, time_t *when);
#endif
