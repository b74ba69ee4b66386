/*
 * NULL-ended string vectors: argv arrays and word lists from
 * configuration, split on blanks once and never through a shell.
 */
#ifndef STRV_H
#define STRV_H

#include <stddef.h>

/*
 * Split s on spaces and tabs (no quoting) into a NULL-ended vector; *n
 * (may be NULL) receives the count.  Free with strv_free().
 */
char **strv_split(const char *s, size_t *n);
/* Number of entries before the NULL. */
size_t strv_len(char *const *);
void strv_free(char **);
/* Free the n strings of v (not NULL-ended), then v; v may be NULL. */
void strv_free_n(char **v, size_t n);

#endif
