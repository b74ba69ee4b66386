/*
 * A session's mailbox: the messages a tick could not type into the
 * session now (the Claude session lock is held by another agent, another
 * process is typing into it), queued in order for the session's wrapper
 * (agent_exec.h), which types them once it holds the lock and the agent
 * waits at its prompt.  Each message has the key that names it in the
 * session's record of messages (intent.h) and its text; a key is queued
 * once.  The file (runfiles_mailbox(), mode 0600: the text may hold what
 * an issue says) is written whole (temp + rename, synced) under the
 * mailbox lock (runfiles_mailbox_lock()) and removed when it empties:
 *
 *   MSG KEYLEN TEXTLEN
 *   KEY
 *   TEXT
 *   MSG ...
 *
 * (KEYLEN and TEXTLEN in bytes; KEY and TEXT are each followed by a LF
 * not counted in their length.)
 */
#ifndef MAILBOX_H
#define MAILBOX_H

#include <stddef.h>

/* The largest mailbox read. */
#define MAILBOX_MAX (16 * 1024 * 1024)
/* The longest wait for the mailbox lock, in seconds. */
#define MAILBOX_LOCK_S 2

struct mailbox_msg {
	char *key;  /* owned */
	char *text; /* owned */
};

struct mailbox {
	struct mailbox_msg *msgs; /* oldest first (owned) */
	size_t n;
};

/*
 * Read session's mailbox into *mb (empty when there is none).  0, or -1
 * with errno set when it is there but cannot be read or is not one.
 * Free with mailbox_free(), whatever the result.
 */
int mailbox_load(const char *session, struct mailbox *mb);
void mailbox_free(struct mailbox *mb);
/* The index of key in mb, or -1 when it is not queued. */
long mailbox_find(const struct mailbox *mb, const char *key);
/*
 * Queue key (cut at a line end) with text at the end of session's
 * mailbox, under its lock.  0 queued, 1 it was queued already (nothing
 * changed), -1 on error with errno set (EWOULDBLOCK: the lock stayed
 * busy).
 */
int mailbox_add(const char *session, const char *key, const char *text);
/*
 * Remove key from session's mailbox, under its lock (the file goes when
 * it empties).  0 (also when key was not there), -1 on error.
 */
int mailbox_remove(const char *session, const char *key);
/*
 * The number of messages queued for session, or -1 when the mailbox
 * cannot be read.
 */
long mailbox_count(const char *session);
/* Remove session's mailbox and its lock: its messages are forgotten. */
int mailbox_forget(const char *session);

#endif
