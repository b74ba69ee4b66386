/*
 * A session's record of the messages typed into it (intent.h): read,
 * changed in memory, written back whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "intent.h"
#include "lock.h"
#include "runfiles.h"
#include "xmalloc.h"

static void intent_add_done(struct intent *, const char *, size_t);
static int intent_parse_line(struct intent *, const char *, size_t);
static int intent_parse(struct intent *, const char *, size_t);

/* One more delivered key (len bytes at key), the oldest dropped past max. */
static void
intent_add_done(struct intent *in, const char *key, size_t len)
{
	if (in->ndone == INTENT_DONE_MAX) {
		free(in->done[0]);
		memmove(in->done, in->done + 1,
		    (in->ndone - 1) * sizeof(*in->done));
		in->ndone--;
	}
	in->done = xreallocarray(in->done, in->ndone + 1, sizeof(*in->done));
	in->done[in->ndone++] = xstrndup(key, len);
}

/* One header line (len bytes, no LF): 0, or -1 when it is no such line. */
static int
intent_parse_line(struct intent *in, const char *line, size_t len)
{
	char num[32];

	if (len >= 5 && strncmp(line, "KEY: ", 5) == 0) {
		if (len - 5 >= sizeof(in->key))
			return -1;
		memcpy(in->key, line + 5, len - 5);
		in->key[len - 5] = '\0';
	} else if (len >= 6 && strncmp(line, "DONE: ", 6) == 0)
		intent_add_done(in, line + 6, len - 6);
	else if (len < sizeof(num) && memchr(line, ':', len) != NULL) {
		snprintf(num, sizeof(num), "%.*s", (int)len, line);
		if (strncmp(num, "TRIES: ", 7) == 0)
			in->tries = strtoll(num + 7, NULL, 10);
		else if (strncmp(num, "AT: ", 4) == 0)
			in->at = (time_t)strtoll(num + 4, NULL, 10);
		else if (strncmp(num, "STAMP: ", 7) == 0)
			in->stamp = strtoll(num + 7, NULL, 10);
		else
			return -1;
	} else
		return -1;
	return 0;
}

/* The header lines, then the text after the empty line.  0 or -1. */
static int
intent_parse(struct intent *in, const char *p, size_t len)
{
	const char *end = p + len, *nl;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return -1;
		if (nl == p) {
			if (in->key[0] != '\0')
				in->text =
				    xstrndup(nl + 1, (size_t)(end - nl - 1));
			return 0;
		}
		if (intent_parse_line(in, p, (size_t)(nl - p)) == -1)
			return -1;
		p = nl + 1;
	}
	return 0;
}

/* intent_parse() for file_load(). */
static int
intent_parse_file(void *ctx, const char *text, size_t len)
{
	return intent_parse(ctx, text, len);
}

int
intent_load(const char *session, struct intent *in)
{
	char *path = runfiles_intent(session);
	int r, saved;

	memset(in, 0, sizeof(*in));
	r = file_load(path, INTENT_MAX, intent_parse_file, in);
	saved = errno;
	free(path);
	errno = saved;
	return r;
}

void
intent_free(struct intent *in)
{
	size_t i;

	for (i = 0; i < in->ndone; i++)
		free(in->done[i]);
	free(in->done);
	free(in->text);
	memset(in, 0, sizeof(*in));
}

int
intent_save(const char *session, const struct intent *in)
{
	char *path = runfiles_intent(session);
	struct buf b;
	size_t i;
	int r;

	buf_init(&b, 0);
	buf_printf(&b, "KEY: %s\nTRIES: %lld\nAT: %lld\nSTAMP: %lld\n", in->key,
	    in->tries, (long long)in->at, in->stamp);
	for (i = 0; i < in->ndone; i++)
		buf_printf(&b, "DONE: %s\n", in->done[i]);
	buf_puts(&b, "\n");
	if (in->key[0] != '\0' && in->text != NULL)
		buf_puts(&b, in->text);
	r = file_write_atomic(path, buf_str(&b), b.len, 0600, 1);
	buf_free(&b);
	free(path);
	return r;
}

int
intent_forget(const char *session)
{
	char *path = runfiles_intent(session);
	int r = file_remove(path);

	free(path);
	return r;
}

int
intent_was_delivered(const struct intent *in, const char *key)
{
	size_t i;

	for (i = 0; i < in->ndone; i++)
		if (strcmp(in->done[i], key) == 0)
			return 1;
	return 0;
}

void
intent_pend(struct intent *in, const char *key, const char *text, time_t now)
{
	/* A key is one line: anything past a line end is not part of it. */
	snprintf(in->key, sizeof(in->key), "%.*s", (int)strcspn(key, "\r\n"),
	    key);
	free(in->text);
	in->text = xstrdup(text != NULL ? text : "");
	in->tries = 0;
	in->at = now;
	in->stamp = 0;
}

void
intent_delivered(struct intent *in)
{
	if (in->key[0] == '\0')
		return;
	if (!intent_was_delivered(in, in->key))
		intent_add_done(in, in->key, strlen(in->key));
	in->key[0] = '\0';
	in->tries = 0;
	free(in->text);
	in->text = NULL;
}

int
intent_lock(const char *session, int *fd)
{
	char *path = runfiles_intent_lock(session);
	int r = lock_take(path, fd);

	free(path);
	return r;
}

void
intent_unlock(int fd)
{
	lock_release(fd);
}
