/*
 * A session's mailbox (mailbox.h): read whole, changed in memory under
 * its lock, written back whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "intent.h"
#include "lock.h"
#include "mailbox.h"
#include "runfiles.h"
#include "xmalloc.h"

static int mailbox_parse(struct mailbox *, const char *, size_t);
static int mailbox_save(const char *, const struct mailbox *);
static void mailbox_push(struct mailbox *, const char *, size_t, const char *,
    size_t);
static int mailbox_locked(const char *, int *);

/* One more message (copied) at the end of mb. */
static void
mailbox_push(struct mailbox *mb, const char *key, size_t keylen,
    const char *text, size_t textlen)
{
	mb->msgs = xreallocarray(mb->msgs, mb->n + 1, sizeof(*mb->msgs));
	mb->msgs[mb->n].key = xstrndup(key, keylen);
	mb->msgs[mb->n].text = xstrndup(text, textlen);
	mb->n++;
}

/* The records of the file's len bytes at p into mb: 0, or -1. */
static int
mailbox_parse(struct mailbox *mb, const char *p, size_t len)
{
	const char *end = p + len, *nl;
	unsigned long long klen, tlen;
	char head[64];

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
		    (size_t)(nl - p) >= sizeof(head))
			return -1;
		snprintf(head, sizeof(head), "%.*s", (int)(nl - p), p);
		if (sscanf(head, "MSG %llu %llu", &klen, &tlen) != 2 ||
		    klen == 0 || klen >= INTENT_KEY_MAX)
			return -1;
		p = nl + 1;
		if ((size_t)(end - p) < klen + 1 + tlen + 1 ||
		    p[klen] != '\n' || p[klen + 1 + tlen] != '\n' ||
		    memchr(p, '\0', klen) != NULL)
			return -1;
		mailbox_push(mb, p, (size_t)klen, p + klen + 1, (size_t)tlen);
		p += klen + 1 + tlen + 1;
	}
	return 0;
}

/* mailbox_parse() for file_load(). */
static int
mailbox_parse_file(void *ctx, const char *text, size_t len)
{
	return mailbox_parse(ctx, text, len);
}

int
mailbox_load(const char *session, struct mailbox *mb)
{
	char *path = runfiles_mailbox(session);
	int r, saved;

	memset(mb, 0, sizeof(*mb));
	r = file_load(path, MAILBOX_MAX, mailbox_parse_file, mb);
	saved = errno;
	free(path);
	errno = saved;
	return r;
}

void
mailbox_free(struct mailbox *mb)
{
	size_t i;

	for (i = 0; i < mb->n; i++) {
		free(mb->msgs[i].key);
		free(mb->msgs[i].text);
	}
	free(mb->msgs);
	memset(mb, 0, sizeof(*mb));
}

long
mailbox_find(const struct mailbox *mb, const char *key)
{
	size_t i;

	for (i = 0; i < mb->n; i++)
		if (strcmp(mb->msgs[i].key, key) == 0)
			return (long)i;
	return -1;
}

/* Write mb whole (synced, 0600), or remove the file when it is empty. */
static int
mailbox_save(const char *session, const struct mailbox *mb)
{
	char *path = runfiles_mailbox(session);
	struct buf b;
	size_t i;
	int r;

	buf_init(&b, 0);
	for (i = 0; i < mb->n; i++) {
		buf_printf(&b, "MSG %zu %zu\n", strlen(mb->msgs[i].key),
		    strlen(mb->msgs[i].text));
		buf_printf(&b, "%s\n", mb->msgs[i].key);
		buf_puts(&b, mb->msgs[i].text);
		buf_puts(&b, "\n");
	}
	if (mb->n == 0)
		r = file_remove(path);
	else
		r = file_write_atomic(path, buf_str(&b), b.len, 0600, 1);
	buf_free(&b);
	free(path);
	return r;
}

/* The mailbox lock, waiting MAILBOX_LOCK_S at most: 0, or -1 (errno). */
static int
mailbox_locked(const char *session, int *fd)
{
	char *path = runfiles_mailbox_lock(session);
	int r = lock_wait(path, fd, MAILBOX_LOCK_S);

	free(path);
	if (r == 1)
		errno = EWOULDBLOCK;
	return r == 0 ? 0 : -1;
}

int
mailbox_add(const char *session, const char *key, const char *text)
{
	char one[INTENT_KEY_MAX];
	struct mailbox mb;
	int fd = -1, r = -1;

	/* The key as the record of messages keeps it (intent_pend()). */
	snprintf(one, sizeof(one), "%.*s", (int)strcspn(key, "\r\n"), key);
	if (one[0] == '\0') {
		errno = EINVAL;
		return -1;
	}
	if (mailbox_locked(session, &fd) == -1)
		return -1;
	if (mailbox_load(session, &mb) == 0) {
		if (mailbox_find(&mb, one) >= 0)
			r = 1;
		else {
			mailbox_push(&mb, one, strlen(one),
			    text != NULL ? text : "",
			    text != NULL ? strlen(text) : 0);
			r = mailbox_save(session, &mb);
		}
	}
	mailbox_free(&mb);
	lock_release(fd);
	return r;
}

int
mailbox_remove(const char *session, const char *key)
{
	struct mailbox mb;
	long at;
	int fd = -1, r = -1;

	if (mailbox_locked(session, &fd) == -1)
		return -1;
	if (mailbox_load(session, &mb) == 0) {
		r = 0;
		if ((at = mailbox_find(&mb, key)) >= 0) {
			free(mb.msgs[at].key);
			free(mb.msgs[at].text);
			memmove(mb.msgs + at, mb.msgs + at + 1,
			    (mb.n - (size_t)at - 1) * sizeof(*mb.msgs));
			mb.n--;
			r = mailbox_save(session, &mb);
		}
	}
	mailbox_free(&mb);
	lock_release(fd);
	return r;
}

long
mailbox_count(const char *session)
{
	struct mailbox mb;
	long n;

	n = mailbox_load(session, &mb) == 0 ? (long)mb.n : -1;
	mailbox_free(&mb);
	return n;
}

int
mailbox_forget(const char *session)
{
	char *path = runfiles_mailbox(session);
	char *lock = runfiles_mailbox_lock(session);
	int r = file_remove(path);

	(void)file_remove(lock);
	free(lock);
	free(path);
	return r;
}
