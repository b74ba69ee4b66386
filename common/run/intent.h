/*
 * A session's record of the messages typed into it, so that each is
 * delivered once across crashes (agent_deliver(), agent.h).  A message
 * has a key naming it ("ci 1a2b3c success 0", "verdict 1a2b3c"); before
 * it is typed its intent is recorded (synced): the key, how often and
 * when it was typed, and its text.  Once the agent has it, the key joins
 * the delivered ones.  The record (runfiles_intent(), mode 0600: the
 * text may hold what an issue says) reads:
 *
 *   KEY: verdict 1a2b3c      the message being delivered ("" none)
 *   TRIES: 1                 times typed (0: recorded before its session
 *                            started, not typed yet)
 *   AT: 1700000000           when it was last typed, or recorded
 *   STAMP: 2                 the backend's count before it was typed
 *   DONE: ci 1a2b3c success 0
 *   DONE: ...                delivered keys, oldest first, the last
 *                            INTENT_DONE_MAX kept
 *
 *   the text of KEY
 *
 * The record is read and written under the session's intent lock
 * (runfiles_intent_lock()), held while the message is typed.
 */
#ifndef INTENT_H
#define INTENT_H

#include <stddef.h>
#include <time.h>

/* A key's longest form, and the delivered keys kept. */
#define INTENT_KEY_MAX 200
#define INTENT_DONE_MAX 32
/* The largest record read (a first prompt with its issue). */
#define INTENT_MAX (4 * 1024 * 1024)

struct intent {
	char key[INTENT_KEY_MAX]; /* pending, or "" */
	long long tries;
	time_t at;
	long long stamp;
	char *text;  /* the pending message's text (owned), or NULL */
	char **done; /* delivered keys (owned), ndone of them */
	size_t ndone;
};

/*
 * Read session's record into *in (empty when there is none).  0, or -1
 * with errno set when it is there but cannot be read or is not one.
 * Free with intent_free(), whatever the result.
 */
int intent_load(const char *session, struct intent *in);
void intent_free(struct intent *in);
/* Write the record (atomically, synced, 0600).  0, or -1 with errno. */
int intent_save(const char *session, const struct intent *in);
/* Remove session's record: its messages are forgotten.  0 or -1. */
int intent_forget(const char *session);
/* 1 when key was delivered, else 0. */
int intent_was_delivered(const struct intent *in, const char *key);
/*
 * key (cut to INTENT_KEY_MAX - 1 bytes) with text becomes the pending
 * message, not typed yet, at now.
 */
void intent_pend(struct intent *in, const char *key, const char *text,
    time_t now);
/* The pending message is delivered: its key joins the delivered ones. */
void intent_delivered(struct intent *in);
/*
 * Take session's intent lock without waiting.  0 taken (*fd holds it;
 * release with intent_unlock()), 1 another process holds it, -1 on
 * error with errno set.
 */
int intent_lock(const char *session, int *fd);
void intent_unlock(int fd);

#endif
