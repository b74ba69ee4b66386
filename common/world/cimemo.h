/*
 * The forge's combined commit status of open PR heads remembered between
 * ticks, where no Woodpecker answers for them (CI that reports forge
 * commit statuses only: Gitea or Forgejo Actions, another CI), so that a
 * steady tick asks the forge only for the heads whose state may have
 * changed.
 *
 * The memo is a file of lines "SHA STATE FINAL SINCE AT": STATE the
 * state as ci_state_name() says it, FINAL 1 when the forge's combined
 * state was final (success, failure or error: Gitea's combined state is
 * the worst of a commit's statuses, modules/structs/commit_status.go, so
 * one of those no longer changes unless CI runs again), else 0; SINCE
 * when the head was first read in a state that was not final, AT when it
 * was last read (seconds since the epoch).  A head's state is read again
 * when it is due (cimemo_due()):
 *
 *   final      every CIMEMO_FINAL_RECHECK (and up to CIMEMO_FINAL_SPREAD
 *              more, by the SHA, so that heads read together spread
 *              out), to catch a re-run of the same commit;
 *   not final  every tick for its first CIMEMO_FRESH seconds, then every
 *              CIMEMO_STEP seconds, doubled each time its age doubles,
 *              up to CIMEMO_STEP_MAX;
 *   marked     at once, when a mark ("CI changed for SHA") newer than the
 *              read names it.
 *
 * The marks are a second file of lines "SHA AT" that a forge webhook
 * delivery writes (cimemo_mark()); the ticks only read it.  A new head
 * is a new SHA: it is read.
 */
#ifndef CIMEMO_H
#define CIMEMO_H

#include <stddef.h>
#include <time.h>

#include "ci.h"

struct act;

#define CIMEMO_FRESH 300
#define CIMEMO_STEP 120
#define CIMEMO_STEP_MAX 600
#define CIMEMO_FINAL_RECHECK 1500
#define CIMEMO_FINAL_SPREAD 600
/* A tick a little early is on time: ticks do not start to the second. */
#define CIMEMO_SLACK 15
/* Marks older than this are dropped; at most CIMEMO_MARKS_MAX kept. */
#define CIMEMO_MARK_KEEP (24 * 3600)
#define CIMEMO_MARKS_MAX 512
#define CIMEMO_SHA_MAX 64

struct cimemo_entry {
	char sha[CIMEMO_SHA_MAX + 1];
	enum ci_state state; /* never CI_UNKNOWN */
	int final;
	long long since;
	long long at;
};

struct cimemo_mark {
	char sha[CIMEMO_SHA_MAX + 1];
	long long at;
};

/* A memo as read. */
struct cimemo {
	struct cimemo_entry *v; /* owned, sorted by sha */
	size_t n;
	struct cimemo_mark *marks; /* owned, sorted by sha, newest kept */
	size_t nmarks;
};

/*
 * Read the memo at path and the marks at marks (may be NULL): a missing,
 * oversized or non-regular file, and lines that are not well formed,
 * count for nothing.
 */
void cimemo_load(struct cimemo *, const char *path, const char *marks);
/* The same from the files' texts (NULL: none). */
void cimemo_parse(struct cimemo *, const char *text, const char *marks);
void cimemo_free(struct cimemo *);
/* The entry of sha, or NULL. */
const struct cimemo_entry *cimemo_find(const struct cimemo *, const char *sha);
/* The newest mark of sha, or 0. */
long long cimemo_marked(const struct cimemo *, const char *sha);
/*
 * 1 when e's head must be read again at now (marked: its newest mark),
 * 0 when e's state still stands.
 */
int cimemo_due(const struct cimemo_entry *e, long long marked, time_t now);
/*
 * The entry of a head read at now in state st (final: the forge's state
 * was final), prev its entry before (NULL: none): SINCE carried over
 * while it stays not final.  0, or -1 for a SHA or state not kept.
 */
int cimemo_entry_set(struct cimemo_entry *out, const struct cimemo_entry *prev,
    const char *sha, enum ci_state st, int final, time_t now);
/*
 * Write the n entries v to path (through act, temp file and rename),
 * after merging in what another tool wrote there since: for each of
 * these SHAs, the entry read last wins; every other line is dropped (the
 * memo holds the open heads only).  Nothing is written when that is what
 * the file holds already.
 */
void cimemo_save(struct act *, const char *path, const struct cimemo_entry *v,
    size_t n);
/*
 * Mark sha as changed at now in the marks file at path, under the lock at
 * lockpath (waited for 2 s at most), dropping marks older than
 * CIMEMO_MARK_KEEP and all but the newest CIMEMO_MARKS_MAX.  0, or -1
 * with errno set.
 */
int cimemo_mark(const char *path, const char *lockpath, const char *sha,
    time_t now);
/* Whether s is a commit SHA as the forge gives it (hex, 7 to 64). */
int cimemo_sha_ok(const char *s);

#endif
