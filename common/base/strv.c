/*
 * NULL-ended string vectors.
 */
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "xmalloc.h"

char **
strv_split(const char *s, size_t *n)
{
	char *copy = xstrdup(s), *w, *save = NULL, **v;
	size_t count = 0;

	v = xcalloc(1, sizeof(*v));
	for (w = strtok_r(copy, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save)) {
		v = xreallocarray(v, count + 2, sizeof(*v));
		v[count++] = xstrdup(w);
		v[count] = NULL;
	}
	free(copy);
	if (n != NULL)
		*n = count;
	return v;
}

size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

void
strv_free(char **v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
strv_free_n(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
