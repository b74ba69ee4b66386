/*
 * Memory figures from /proc/meminfo.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "meminfo.h"

/* /proc/meminfo is a few kB; anything past this is not a meminfo file. */
#define MEMINFO_MAX (64 * 1024)

static int meminfo_field_kb(const char *, const char *, long long *);

/* Find "field:   123 kB" at the start of a line of text. */
static int
meminfo_field_kb(const char *text, const char *field, long long *kb)
{
	size_t flen = strlen(field);
	const char *line;
	char *end;
	long long v;

	for (line = text; *line != '\0';) {
		if (strncmp(line, field, flen) == 0 && line[flen] == ':') {
			errno = 0;
			v = strtoll(line + flen + 1, &end, 10);
			if (errno != 0 || end == line + flen + 1 || v < 0)
				return -1;
			*kb = v;
			return 0;
		}
		if ((line = strchr(line, '\n')) == NULL)
			break;
		line++;
	}
	return -1;
}

int
meminfo_mb(const char *path, const char *field, long long *mb)
{
	struct buf b;
	long long kb;
	int r = -1;

	buf_init(&b, 0);
	if (file_read(path, MEMINFO_MAX, &b) == -1)
		goto out;
	if (meminfo_field_kb(buf_str(&b), field, &kb) == -1)
		goto out;
	*mb = kb / 1024;
	r = 0;
out:
	buf_free(&b);
	return r;
}
