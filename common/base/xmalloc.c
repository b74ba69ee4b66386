/*
 * Allocation wrappers that abort on out-of-memory.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmalloc.h"

static void xmalloc_oom(void) __attribute__((noreturn));

static void
xmalloc_oom(void)
{
	static const char msg[] = "out of memory\n";

	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p = reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		xmalloc_oom();
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list copy;
	char *p;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		xmalloc_oom();
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void *
xgrow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n >= *cap) {
		*cap = *cap != 0 ? *cap * 2 : 64;
		v = xreallocarray(v, *cap, size);
	}
	memset((char *)v + n * size, 0, size);
	return v;
}
