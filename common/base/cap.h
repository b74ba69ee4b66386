/*
 * The caps on text from the forge (an issue, a comment, a PR's
 * description, a review, a CI log) that goes into an agent's prompt: at
 * most so many bytes of it, cut on a character boundary, and the cut said
 * where it happened, so that the agent knows it did not see everything:
 * "[... cut: N more bytes]" after a head, "[... cut: N earlier bytes]"
 * before a tail.
 */
#ifndef CAP_H
#define CAP_H

#include <stddef.h>

struct buf;

/* Append at most max bytes of s (NULL: nothing), and the note when cut. */
void cap_append(struct buf *b, const char *s, size_t max);
/* The same as a new string.  Caller frees. */
char *cap_head(const char *s, size_t max);
/*
 * The last max bytes of s (NULL: ""), from a character's start, after
 * the note when anything before them was cut.  Caller frees.
 */
char *cap_tail(const char *s, size_t max);

#endif
