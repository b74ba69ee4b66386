/*
 * Growing, optionally capped byte buffer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xmalloc.h"

void
buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

int
buf_append(struct buf *b, const void *p, size_t n)
{
	size_t need;

	if (b->max != 0 && (n > b->max || b->len > b->max - n))
		return -1;
	need = b->len + n + 1;
	if (need > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;

		while (ncap < need)
			ncap *= 2;
		b->data = xreallocarray(b->data, ncap, 1);
		b->cap = ncap;
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	r = buf_puts(b, s);
	free(s);
	return r;
}

const char *
buf_str(const struct buf *b)
{
	return b->data ? b->data : "";
}

char *
buf_steal(struct buf *b)
{
	char *p = b->data ? b->data : xstrdup("");

	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
