/*
 * "KEY: value" record headers, read; writers build the text themselves
 * and write it with the tick's effect layer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "record.h"

static const char *record_find(const char *, const char *, size_t *);

/* The value of key in the header of text and its length, or NULL. */
static const char *
record_find(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key), n;
	const char *line, *v;

	for (line = text; *line != '\0' && *line != '\n';) {
		n = strcspn(line, "\n");
		if (n >= klen && strncmp(line, key, klen) == 0) {
			v = line + klen;
			v += strspn(v, " \t");
			*len = (size_t)(line + n - v);
			while (*len > 0 && strchr(" \t\r", v[*len - 1]) != NULL)
				(*len)--;
			return v;
		}
		line += n + (line[n] == '\n');
	}
	return NULL;
}

int
record_get(const char *text, const char *key, char *out, size_t outsz)
{
	const char *v;
	size_t len;

	if ((v = record_find(text, key, &len)) == NULL || len >= outsz)
		return -1;
	memcpy(out, v, len);
	out[len] = '\0';
	return 0;
}

int
record_get_ll(const char *text, const char *key, long long *out)
{
	char num[32], *end;
	long long v;

	if (record_get(text, key, num, sizeof(num)) == -1 || num[0] == '\0')
		return -1;
	errno = 0;
	v = strtoll(num, &end, 10);
	if (*end != '\0' || errno != 0)
		return -1;
	*out = v;
	return 0;
}

int
record_load(const char *path, struct buf *out)
{
	/* A longer file still has its whole header in the first bytes. */
	return file_read(path, RECORD_MAX, out) == -1 ? -1 : 0;
}

int
record_read(const char *path, const char *key, char *out, size_t outsz)
{
	struct buf b;
	int r = -1;

	buf_init(&b, 0);
	if (record_load(path, &b) == 0)
		r = record_get(buf_str(&b), key, out, outsz);
	buf_free(&b);
	return r;
}
