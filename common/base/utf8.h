/*
 * Cutting untrusted text to a bounded size without splitting a UTF-8
 * character: the one truncator every prompt, comment and log tail uses.
 * Only continuation bytes are looked at, so text that is not valid UTF-8
 * is cut as bytes and never read past its end.
 */
#ifndef UTF8_H
#define UTF8_H

#include <stddef.h>

/*
 * The length of the longest prefix of the len bytes at s that is at most
 * max bytes long and does not end inside a character.
 */
size_t utf8_prefix_len(const char *s, size_t len, size_t max);
/*
 * The offset in the len bytes at s where the shortest suffix of at most
 * max bytes starting on a character begins.
 */
size_t utf8_suffix_start(const char *s, size_t len, size_t max);
/*
 * A copy of s (NULL: "") of at most max bytes, cut before a partial
 * character, with mark (may be NULL) appended when anything was cut.
 * Caller frees.
 */
char *utf8_cut(const char *s, size_t max, const char *mark);
/* A copy of the last max bytes of s (NULL: ""), from a character start. */
char *utf8_tail(const char *s, size_t max);

#endif
