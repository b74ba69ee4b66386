/*
 * Facts about open PRs remembered between ticks, so that what the forge
 * has no list form for (reviews, changed files) is not read again for a
 * PR that has not moved.  A file of lines "PR HEAD-SHA UPDATED FACT AT":
 * UPDATED is the PR's updated_at and AT when the fact was read (seconds
 * since the epoch), FACT one word.  A fact holds while the PR is listed
 * with the same head and updated_at, and for PRMEMO_MAX_AGE at most; a PR
 * updated less than PRMEMO_SETTLE ago is not remembered, so that a change
 * landing in the same second as the read is never missed.
 */
#ifndef PRMEMO_H
#define PRMEMO_H

#include <stddef.h>
#include <time.h>

struct act;
struct buf;

#define PRMEMO_SETTLE 60
#define PRMEMO_MAX_AGE (12 * 3600)
#define PRMEMO_SHA_MAX 64

struct prmemo {
	long long pr;
	long long updated;
	long long at;
	char sha[PRMEMO_SHA_MAX + 1];
	char fact[16];
};

/* A file as read: its well-formed lines by PR, and its text. */
struct prmemo_set {
	struct prmemo *v; /* owned, sorted by pr */
	size_t n;
	char *was; /* owned: the file's text ("" when none) */
};

/*
 * Read path (a missing, oversized or non-regular file, and lines that
 * are not well formed, count for nothing).
 */
void prmemo_load(struct prmemo_set *, const char *path);
/* The same from the file's text (lines not well formed are left out). */
void prmemo_parse(struct prmemo_set *, const char *text);
/* The fact remembered for PR pr at head sha and updated, if still held. */
const struct prmemo *prmemo_find(const struct prmemo_set *, long long pr,
    const char *sha, time_t updated, time_t now);
/*
 * Append the line of a fact read at `at` to b, unless the PR has no
 * usable head or updated_at, or was updated less than PRMEMO_SETTLE
 * before now.  Returns 1 when appended, else 0.
 */
int prmemo_put(struct buf *b, long long pr, const char *sha, time_t updated,
    const char *fact, time_t at, time_t now);
/* Replace path with text when it differs from what was read (act_write). */
void prmemo_save(const struct prmemo_set *, struct act *, const char *path,
    const char *text);
void prmemo_free(struct prmemo_set *);

#endif
