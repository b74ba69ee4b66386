/*
 * Allocation wrappers that abort on out-of-memory: a short-lived cron job
 * does not try to recover from that, so callers never check for NULL.
 */
#ifndef XMALLOC_H
#define XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Each returns memory the caller frees with free(3). */
void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xreallocarray(void *, size_t, size_t);
/*
 * The array v (of *cap elements of size bytes, n of them used) with room
 * for element n, zeroed: grown by doubling when full.  Assign it back.
 */
void *xgrow(void *v, size_t n, size_t *cap, size_t size);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
char *xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));
char *xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif
