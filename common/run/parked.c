/*
 * Parked escalations' records (parked.h): "KEY: value" headers read by
 * record.h, the reply's text after the header's empty line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "parked.h"
#include "record.h"
#include "xmalloc.h"

static void parked_line(char *);

/* Make s one line: line breaks become spaces. */
static void
parked_line(char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

int
parked_read(const char *path, struct parked *p)
{
	struct buf b;
	const char *t;
	int r = -1;

	memset(p, 0, sizeof(*p));
	buf_init(&b, 0);
	if (record_load(path, &b) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	t = buf_str(&b);
	if (record_get(t, "ID:", p->id, sizeof(p->id)) == 0 &&
	    p->id[0] != '\0' && record_get_ll(t, "AT:", &p->at) == 0 &&
	    record_get(t, "WORKTREE:", p->worktree, sizeof(p->worktree)) == 0)
		r = 1;
	if (r == 1 &&
	    record_get(t, "REASON:", p->reason, sizeof(p->reason)) == -1)
		p->reason[0] = '\0';
out:
	buf_free(&b);
	return r;
}

char *
parked_text(const struct parked *p)
{
	char *reason = xstrdup(p->reason), *text;

	parked_line(reason);
	text = xasprintf("ID: %s\nAT: %lld\nWORKTREE: %s\nREASON: %s\n", p->id,
	    p->at, p->worktree, reason);
	free(reason);
	return text;
}

int
parked_reply_read(const char *path, long long at, char **key, char **text)
{
	char k[256];
	const char *t, *body;
	long long when;
	struct buf b;
	int r = 0;

	*key = *text = NULL;
	buf_init(&b, 0);
	if (file_read(path, PARKED_REPLY_MAX, &b) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	t = buf_str(&b);
	if (record_get(t, "KEY:", k, sizeof(k)) == -1 || k[0] == '\0' ||
	    record_get_ll(t, "AT:", &when) == -1 ||
	    (body = strstr(t, "\n\n")) == NULL) {
		r = -1;
		goto out;
	}
	if (when != at)
		goto out;
	*key = xstrdup(k);
	*text = xstrdup(body + 2);
	r = 1;
out:
	buf_free(&b);
	return r;
}

char *
parked_reply_text(const char *key, long long at, const char *text)
{
	char *k = xstrdup(key), *out;

	parked_line(k);
	out = xasprintf("KEY: %s\nAT: %lld\n\n%s", k, at, text);
	free(k);
	return out;
}
