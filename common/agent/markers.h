/*
 * The session directory of the markers protocol (seeds/004):
 * sessions/active/S/ under the run directory, holding the agent's
 * markers (markers/ready.marker, ack.marker, completed.marker), its
 * status.json, the text it is asked to read (system_prompt.txt,
 * prompt.txt) and the orchestrator's record of the injection awaiting
 * an acknowledgement.  The names come from runfiles.h; nothing here
 * talks to tmux.  The directories are created 0700 and checked to be
 * real directories of this user, so that no symlink planted in a shared
 * run directory redirects what is written or removed.
 */
#ifndef MARKERS_H
#define MARKERS_H

#include <time.h>

struct agent_progress;

/* Bytes of status.json read at most; a longer one is refused. */
#define MARKERS_STATUS_MAX 65536

/*
 * The session directory with fresh markers protocol files: whatever of
 * them an earlier session of the name left is removed first (the other
 * files of the session directory, its phase file, stay).  0, or -1 with
 * errno set.
 */
int markers_prepare(const char *session);
/*
 * Remove the markers protocol's files of the session (its markers/,
 * status.json, prompt.txt, system_prompt.txt, chat_history.jsonl;
 * symlinks are removed, never followed) and the record of its delivery;
 * the session directory too when nothing else is left in it.  Missing
 * ones count as removed.  0, or -1 with errno set.
 */
int markers_remove(const char *session);
/* 1 when the file name (RUNFILES_*) of the session is there, else 0. */
int markers_has(const char *session, const char *name);
/* Remove the file name of the session (missing is fine): 0 or -1. */
int markers_clear(const char *session, const char *name);
/*
 * Wait at most timeout_ms for the file name of the session to appear,
 * giving up early when alive(session) (may be NULL) says 0.  Returns 1
 * when it appeared, 0 when it did not.
 */
int markers_wait(const char *session, const char *name, int timeout_ms,
    int (*alive)(const char *));
/*
 * Replace the file name of the session with text (0600, atomically).
 * 0, or -1 with errno set.
 */
int markers_write(const char *session, const char *name, const char *text);
/*
 * Read the session's status.json into *out: "state" (one of "ready",
 * "processing", "completed", "error"), "progress" (0-100), "message",
 * "phase" and "updated_at" (a timestamp); fields missing or of the
 * wrong type are left unset, other fields are ignored.  Returns 0, 1
 * when there is no status.json yet, -1 when it cannot be read or is not
 * a JSON object (or is longer than MARKERS_STATUS_MAX).
 */
int markers_status(const char *session, struct agent_progress *out);

/* The injection last typed into a session, persisted across ticks. */
struct markers_delivery {
	unsigned long long hash; /* of the text (FNV-1a) */
	int sent;		 /* times the instruction was typed */
	int acked;		 /* the agent acknowledged it */
	time_t at;		 /* when it was last typed */
};

/* The hash that identifies text in a delivery record. */
unsigned long long markers_hash(const char *text);
/*
 * The session's delivery record into *out: 0, 1 when there is none, -1
 * when it cannot be read or makes no sense.
 */
int markers_delivery_read(const char *session, struct markers_delivery *out);
/* Replace it (synced: it counts attempts): 0, or -1 with errno set. */
int markers_delivery_write(const char *session,
    const struct markers_delivery *d);

#endif
