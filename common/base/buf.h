/*
 * A growing byte buffer with an optional cap, always NUL-terminated so the
 * contents can be used as a C string.  Used for HTTP bodies, captured
 * process output and text assembled for prompts.
 */
#ifndef BUF_H
#define BUF_H

#include <stddef.h>

struct buf {
	char *data; /* owned; NULL until the first append */
	size_t len;
	size_t cap;
	size_t max; /* 0 = unlimited; appends past it fail */
};

/* Start empty with the given cap (0 = unlimited). */
void buf_init(struct buf *, size_t max);
/* Append n bytes; -1 (nothing appended) when the cap would be passed. */
int buf_append(struct buf *, const void *, size_t);
int buf_puts(struct buf *, const char *);
int buf_printf(struct buf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
/* The contents as a string ("" when empty).  Valid until the next append. */
const char *buf_str(const struct buf *);
/* Hand the contents over.  Caller frees.  The buffer is left empty. */
char *buf_steal(struct buf *);
void buf_reset(struct buf *);
void buf_free(struct buf *);

#endif
