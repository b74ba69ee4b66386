/*
 * The agent CLI's conversation directory of a working directory (see
 * convdir.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "convdir.h"
#include "xmalloc.h"

/* The CLI cuts a longer name here. */
#define CONVDIR_NAME_MAX 200

static size_t convdir_next(const unsigned char *, uint32_t *);
static int convdir_alnum(uint32_t);

/* An ASCII letter or digit. */
static int
convdir_alnum(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/*
 * The code point of the UTF-8 sequence at s into *cp and its length; a
 * byte that starts no valid sequence is taken alone, as U+FFFD.
 */
static size_t
convdir_next(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*cp = c;
	return n;
}

char *
convdir_name(const char *path)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	const unsigned char *s = (const unsigned char *)path;
	uint32_t cp, units[2];
	int32_t hash = 0;
	long long h;
	char tail[16], ch;
	size_t i, k, nu, len = 0;
	struct buf b;

	buf_init(&b, 0);
	while (*s != '\0') {
		s += convdir_next(s, &cp);
		nu = 1;
		units[0] = cp;
		if (cp >= 0x10000) {
			units[0] = 0xd800 + ((cp - 0x10000) >> 10);
			units[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
			nu = 2;
		}
		for (i = 0; i < nu; i++) {
			/* t = (t << 5) - t + unit, in 32 bits. */
			hash = (int32_t)((uint32_t)hash * 31u + units[i]);
			ch = convdir_alnum(cp) ? (char)cp : '-';
			if (len++ < CONVDIR_NAME_MAX)
				(void)buf_append(&b, &ch, 1);
		}
	}
	if (len > CONVDIR_NAME_MAX) {
		h = hash < 0 ? -(long long)hash : hash;
		k = sizeof(tail) - 1;
		tail[k] = '\0';
		do {
			tail[--k] = digits[h % 36];
			h /= 36;
		} while (h > 0);
		(void)buf_append(&b, "-", 1);
		(void)buf_puts(&b, tail + k);
	}
	return buf_steal(&b);
}

char *
convdir_path(const char *home, const char *path)
{
	char *name, *dir;

	if (home == NULL || home[0] != '/')
		return NULL;
	name = convdir_name(path);
	dir = xasprintf("%s/.claude/projects/%s", home, name);
	free(name);
	return dir;
}
