/*
 * Shared by the libFuzzer harnesses tests/fuzz/fuzz_<target>.c: each
 * defines LLVMFuzzerTestOneInput(), feeds the input to one parser and
 * checks what the parser promises; a broken promise aborts, which
 * libFuzzer reports as a crash with the input saved.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Abort, naming the broken promise, when expr is false. */
#define FUZZ_ASSERT(expr)                                                \
	do {                                                             \
		if (!(expr)) {                                           \
			fprintf(stderr, "%s:%d: broken: %s\n", __FILE__, \
			    __LINE__, #expr);                            \
			abort();                                         \
		}                                                        \
	} while (0)

/* The input as a string, cut at its first NUL.  Caller frees. */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The next NUL-separated field of the input at *pos (a string the caller
 * frees), or NULL when the input is used up.
 */
static inline char *
fuzz_field(const uint8_t *data, size_t size, size_t *pos)
{
	const uint8_t *end;
	size_t n;
	char *s;

	if (*pos > size)
		return NULL;
	end = memchr(data + *pos, '\0', size - *pos);
	n = end != NULL ? (size_t)(end - (data + *pos)) : size - *pos;
	s = fuzz_cstr(data + *pos, n);
	*pos += n + 1;
	return s;
}

#endif
