/*
 * The webhook deliveries taken lately (see delivery.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "delivery.h"
#include "file.h"
#include "lock.h"
#include "xmalloc.h"

/* The longest file read: DELIVERY_MAX full lines. */
#define DELIVERY_FILE_MAX (DELIVERY_MAX * (DELIVERY_KEY_MAX + 24))

/* One line of the file: where its key starts, its length, its time. */
struct delivery_line {
	const char *key;
	size_t keylen;
	long long at;
};

static int delivery_parse(const char *, size_t, struct delivery_line *);
static size_t delivery_lines(const char *, long long, struct delivery_line **);
static int delivery_known(const struct delivery_line *, size_t,
    const char *const *, size_t);

int
delivery_key_ok(const char *key)
{
	size_t n;

	if (key == NULL || (n = strlen(key)) == 0 || n > DELIVERY_KEY_MAX)
		return 0;
	return strspn(key,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789-_.:") == n;
}

/* The line of len bytes at s as "AT KEY" into *l: 0, or -1. */
static int
delivery_parse(const char *s, size_t len, struct delivery_line *l)
{
	const char *sp = memchr(s, ' ', len), *p;
	char *key;
	int ok;

	l->at = 0;
	if (sp == NULL || sp == s)
		return -1;
	for (p = s; p < sp; p++) {
		if (*p < '0' || *p > '9' || l->at > 1000000000000LL)
			return -1;
		l->at = l->at * 10 + (*p - '0');
	}
	l->key = sp + 1;
	l->keylen = len - (size_t)(l->key - s);
	key = xstrndup(l->key, l->keylen);
	ok = delivery_key_ok(key);
	free(key);
	return ok ? 0 : -1;
}

/*
 * The lines of text taken at or after cut, in the file's order, into
 * *out (caller frees): their count.  Lines that are not "AT KEY" are
 * dropped.
 */
static size_t
delivery_lines(const char *text, long long cut, struct delivery_line **out)
{
	const char *line, *nl;
	size_t n = 0, cap = 0;

	*out = NULL;
	for (line = text; *line != '\0'; line = *nl != '\0' ? nl + 1 : nl) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		*out = xgrow(*out, n, &cap, sizeof(**out));
		if (delivery_parse(line, (size_t)(nl - line), &(*out)[n]) ==
			0 &&
		    (*out)[n].at >= cut)
			n++;
	}
	return n;
}

/* Whether one of the keys is among the n lines. */
static int
delivery_known(const struct delivery_line *l, size_t n, const char *const *keys,
    size_t nkeys)
{
	size_t i, k;

	for (k = 0; k < nkeys; k++) {
		if (!delivery_key_ok(keys[k]))
			continue;
		for (i = 0; i < n; i++)
			if (l[i].keylen == strlen(keys[k]) &&
			    memcmp(l[i].key, keys[k], l[i].keylen) == 0)
				return 1;
	}
	return 0;
}

int
delivery_seen(const char *path, const char *lockpath, const char *const *keys,
    size_t nkeys, time_t now)
{
	struct delivery_line *l = NULL;
	struct buf was, b;
	size_t i, n, add = 0;
	int fd, r, e = 0;

	if ((r = lock_wait(lockpath, &fd, DELIVERY_LOCK_WAIT)) != 0) {
		if (r == 1)
			errno = EWOULDBLOCK;
		return -1;
	}
	buf_init(&was, 0);
	buf_init(&b, 0);
	/* A file past the limit is not ours: it starts again. */
	if (file_read(path, DELIVERY_FILE_MAX, &was) != 0)
		buf_reset(&was);
	n = delivery_lines(buf_str(&was), (long long)now - DELIVERY_KEEP + 1,
	    &l);
	if (delivery_known(l, n, keys, nkeys)) {
		r = 1;
		goto out;
	}
	for (i = 0; i < nkeys; i++)
		add += delivery_key_ok(keys[i]);
	/* The newest lines, DELIVERY_MAX with the new ones. */
	for (i = n + add > DELIVERY_MAX ? n + add - DELIVERY_MAX : 0; i < n;
	     i++)
		buf_printf(&b, "%lld %.*s\n", l[i].at, (int)l[i].keylen,
		    l[i].key);
	for (i = 0; i < nkeys; i++)
		if (delivery_key_ok(keys[i]) && add-- <= DELIVERY_MAX)
			buf_printf(&b, "%lld %s\n", (long long)now, keys[i]);
	r = file_write_atomic(path, buf_str(&b), b.len, 0644, 0) == -1 ? -1 : 0;
	e = errno;
out:
	free(l);
	buf_free(&was);
	buf_free(&b);
	lock_release(fd);
	if (r == -1)
		errno = e;
	return r;
}
