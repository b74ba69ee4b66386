/*
 * Commit statuses of open PR heads remembered between ticks: see
 * cimemo.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "cimemo.h"
#include "file.h"
#include "lock.h"
#include "valid.h"
#include "xmalloc.h"

#define CIMEMO_FILE_MAX (1024 * 1024) /* longer: not ours, ignored */
#define CIMEMO_LOCK_WAIT 2

static int cimemo_num(const char *, long long *);
static size_t cimemo_split(const char *, size_t, char **, size_t, char *,
    size_t);
static int cimemo_parse_entry(const char *, size_t, struct cimemo_entry *);
static int cimemo_parse_mark(const char *, size_t, struct cimemo_mark *);
static int cimemo_cmp(const void *, const void *);
static int cimemo_mark_cmp(const void *, const void *);
static int cimemo_mark_newest(const void *, const void *);
static void cimemo_parse_marks(struct cimemo *, const char *);
static void cimemo_marks_dedup(struct cimemo *);
static long long cimemo_step(long long);
static long long cimemo_spread(const char *);
static void cimemo_text(const struct cimemo_entry *, size_t, struct buf *);
static int cimemo_time_desc(const void *, const void *);
static long long cimemo_marks_cut(const struct cimemo *, long long);

int
cimemo_sha_ok(const char *s)
{
	size_t n;

	if (s == NULL)
		return 0;
	for (n = 0; s[n] != '\0'; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n >= 7 && n <= CIMEMO_SHA_MAX;
}

/* A non-negative number, the whole of tok: 0, or -1. */
static int
cimemo_num(const char *tok, long long *out)
{
	return valid_number_text(tok, out) == NULL && *out >= 0 ? 0 : -1;
}

/*
 * Split the len bytes at line on spaces into at most max tokens, in copy
 * (copysz bytes): how many there were (max + 1 when more), 0 when the
 * line does not fit.
 */
static size_t
cimemo_split(const char *line, size_t len, char **tok, size_t max, char *copy,
    size_t copysz)
{
	char *p, *save = NULL;
	size_t n = 0;

	if (len >= copysz)
		return 0;
	memcpy(copy, line, len);
	copy[len] = '\0';
	for (p = strtok_r(copy, " ", &save); p != NULL;
	     p = strtok_r(NULL, " ", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = p;
	}
	return n;
}

/* One memo line into *e: 0, or -1. */
static int
cimemo_parse_entry(const char *line, size_t len, struct cimemo_entry *e)
{
	char copy[192], *tok[5];

	if (cimemo_split(line, len, tok, 5, copy, sizeof(copy)) != 5 ||
	    !cimemo_sha_ok(tok[0]) || ci_state_parse(tok[1], &e->state) == -1 ||
	    (strcmp(tok[2], "0") != 0 && strcmp(tok[2], "1") != 0) ||
	    cimemo_num(tok[3], &e->since) == -1 ||
	    cimemo_num(tok[4], &e->at) == -1)
		return -1;
	memset(e->sha, 0, sizeof(e->sha));
	memcpy(e->sha, tok[0], strlen(tok[0]));
	e->final = tok[2][0] == '1';
	return 0;
}

/* One marks line into *k: 0, or -1. */
static int
cimemo_parse_mark(const char *line, size_t len, struct cimemo_mark *k)
{
	char copy[128], *tok[2];

	if (cimemo_split(line, len, tok, 2, copy, sizeof(copy)) != 2 ||
	    !cimemo_sha_ok(tok[0]) || cimemo_num(tok[1], &k->at) == -1)
		return -1;
	memset(k->sha, 0, sizeof(k->sha));
	memcpy(k->sha, tok[0], strlen(tok[0]));
	return 0;
}

static int
cimemo_cmp(const void *a, const void *b)
{
	const struct cimemo_entry *x = a, *y = b;

	return strcmp(x->sha, y->sha);
}

static int
cimemo_mark_cmp(const void *a, const void *b)
{
	const struct cimemo_mark *x = a, *y = b;

	return strcmp(x->sha, y->sha);
}

/* By SHA, the newest mark of each first. */
static int
cimemo_mark_newest(const void *a, const void *b)
{
	const struct cimemo_mark *x = a, *y = b;
	int c = strcmp(x->sha, y->sha);

	if (c != 0)
		return c;
	return x->at > y->at ? -1 : x->at < y->at;
}

/* Keep the newest mark of each SHA only (sorted by cimemo_mark_newest). */
static void
cimemo_marks_dedup(struct cimemo *c)
{
	size_t i, k = 0;

	for (i = 0; i < c->nmarks; i++)
		if (k == 0 || strcmp(c->marks[k - 1].sha, c->marks[i].sha) != 0)
			c->marks[k++] = c->marks[i];
	c->nmarks = k;
}

static void
cimemo_parse_marks(struct cimemo *c, const char *text)
{
	const char *line, *nl;
	size_t cap = 0;

	for (line = text; *line != '\0'; line = *nl ? nl + 1 : nl) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		c->marks = xgrow(c->marks, c->nmarks, &cap, sizeof(*c->marks));
		if (cimemo_parse_mark(line, (size_t)(nl - line),
			&c->marks[c->nmarks]) == 0)
			c->nmarks++;
	}
	if (c->nmarks > 1)
		qsort(c->marks, c->nmarks, sizeof(*c->marks),
		    cimemo_mark_newest);
	cimemo_marks_dedup(c);
}

void
cimemo_parse(struct cimemo *c, const char *text, const char *marks)
{
	const char *line, *nl;
	size_t cap = 0, i, k = 0;

	memset(c, 0, sizeof(*c));
	for (line = text != NULL ? text : ""; *line != '\0';
	     line = *nl ? nl + 1 : nl) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		c->v = xgrow(c->v, c->n, &cap, sizeof(*c->v));
		if (cimemo_parse_entry(line, (size_t)(nl - line),
			&c->v[c->n]) == 0)
			c->n++;
	}
	if (c->n > 1)
		qsort(c->v, c->n, sizeof(*c->v), cimemo_cmp);
	/* A SHA twice is not ours: its first line stands. */
	for (i = 0; i < c->n; i++)
		if (k == 0 || strcmp(c->v[k - 1].sha, c->v[i].sha) != 0)
			c->v[k++] = c->v[i];
	c->n = k;
	if (marks != NULL)
		cimemo_parse_marks(c, marks);
}

void
cimemo_load(struct cimemo *c, const char *path, const char *marks)
{
	struct buf a, b;

	buf_init(&a, 0);
	buf_init(&b, 0);
	if (file_read(path, CIMEMO_FILE_MAX, &a) != 0)
		buf_reset(&a);
	if (marks == NULL || file_read(marks, CIMEMO_FILE_MAX, &b) != 0)
		buf_reset(&b);
	cimemo_parse(c, buf_str(&a), buf_str(&b));
	buf_free(&a);
	buf_free(&b);
}

void
cimemo_free(struct cimemo *c)
{
	free(c->v);
	free(c->marks);
	memset(c, 0, sizeof(*c));
}

const struct cimemo_entry *
cimemo_find(const struct cimemo *c, const char *sha)
{
	struct cimemo_entry key;

	if (c->n == 0 || !cimemo_sha_ok(sha))
		return NULL;
	memset(key.sha, 0, sizeof(key.sha));
	memcpy(key.sha, sha, strlen(sha));
	return bsearch(&key, c->v, c->n, sizeof(*c->v), cimemo_cmp);
}

long long
cimemo_marked(const struct cimemo *c, const char *sha)
{
	const struct cimemo_mark *k;
	struct cimemo_mark key;

	if (c->nmarks == 0 || !cimemo_sha_ok(sha))
		return 0;
	memset(key.sha, 0, sizeof(key.sha));
	memcpy(key.sha, sha, strlen(sha));
	k = bsearch(&key, c->marks, c->nmarks, sizeof(*c->marks),
	    cimemo_mark_cmp);
	return k != NULL ? k->at : 0;
}

/* How long a state not final stands at its age: 0 while fresh. */
static long long
cimemo_step(long long age)
{
	long long step = CIMEMO_STEP, edge;

	if (age < CIMEMO_FRESH)
		return 0;
	for (edge = 2 * CIMEMO_FRESH; age >= edge && step < CIMEMO_STEP_MAX;
	     edge *= 2)
		step *= 2;
	return step < CIMEMO_STEP_MAX ? step : CIMEMO_STEP_MAX;
}

/* A stable share of CIMEMO_FINAL_SPREAD by the SHA (FNV-1a). */
static long long
cimemo_spread(const char *sha)
{
	unsigned long h = 2166136261UL;

	for (; *sha != '\0'; sha++)
		h = ((h ^ (unsigned char)tolower((unsigned char)*sha)) *
			16777619UL) &
		    0xffffffffUL;
	return (long long)(h % CIMEMO_FINAL_SPREAD);
}

int
cimemo_due(const struct cimemo_entry *e, long long marked, time_t now)
{
	long long t = (long long)now, stand;

	/* Read in the future (a clock set back), or marked since. */
	if (e->at > t || e->since > e->at || (marked > 0 && marked >= e->at))
		return 1;
	if (e->final)
		stand = CIMEMO_FINAL_RECHECK + cimemo_spread(e->sha);
	else
		stand = cimemo_step(e->at - e->since);
	return stand == 0 || t - e->at >= stand - CIMEMO_SLACK;
}

int
cimemo_entry_set(struct cimemo_entry *out, const struct cimemo_entry *prev,
    const char *sha, enum ci_state st, int final, time_t now)
{
	if (!cimemo_sha_ok(sha) || st == CI_UNKNOWN)
		return -1;
	memset(out, 0, sizeof(*out));
	memcpy(out->sha, sha, strlen(sha));
	out->state = st;
	out->final = final != 0;
	out->at = (long long)now;
	/* The age of a state not final runs on while it stays so. */
	out->since = (long long)now;
	if (!out->final && prev != NULL && !prev->final &&
	    prev->since <= out->at)
		out->since = prev->since;
	return 0;
}

static int
cimemo_time_desc(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x > y ? -1 : x < y;
}

/* The file's text of the n entries v (sorted), into b. */
static void
cimemo_text(const struct cimemo_entry *v, size_t n, struct buf *b)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf_printf(b, "%s %s %d %lld %lld\n", v[i].sha,
		    ci_state_name(v[i].state), v[i].final, v[i].since, v[i].at);
}

void
cimemo_save(struct act *a, const char *path, const struct cimemo_entry *v,
    size_t n)
{
	struct cimemo now;
	struct cimemo_entry *out;
	const struct cimemo_entry *o;
	struct buf was, b;
	size_t i;

	buf_init(&was, 0);
	buf_init(&b, 0);
	if (file_read(path, CIMEMO_FILE_MAX, &was) != 0)
		buf_reset(&was);
	cimemo_parse(&now, buf_str(&was), NULL);
	out = xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++) {
		o = cimemo_find(&now, v[i].sha);
		/* Read later by another tool: that read stands. */
		out[i] = o != NULL && o->at > v[i].at ? *o : v[i];
	}
	if (n > 1)
		qsort(out, n, sizeof(*out), cimemo_cmp);
	cimemo_text(out, n, &b);
	if (strcmp(buf_str(&b), buf_str(&was)) != 0)
		(void)act_write(a, path, buf_str(&b), 0);
	free(out);
	cimemo_free(&now);
	buf_free(&was);
	buf_free(&b);
}

/* The time of the newest CIMEMO_MARKS_MAX of c's marks at or after from. */
static long long
cimemo_marks_cut(const struct cimemo *c, long long from)
{
	long long *at, cut = from;
	size_t i, n = 0;

	at = xcalloc(c->nmarks + 1, sizeof(*at));
	for (i = 0; i < c->nmarks; i++)
		if (c->marks[i].at >= from)
			at[n++] = c->marks[i].at;
	if (n > CIMEMO_MARKS_MAX) {
		qsort(at, n, sizeof(*at), cimemo_time_desc);
		cut = at[CIMEMO_MARKS_MAX - 1];
	}
	free(at);
	return cut;
}

int
cimemo_mark(const char *path, const char *lockpath, const char *sha, time_t now)
{
	struct cimemo c;
	struct buf was, b;
	long long cut;
	size_t i;
	int fd, r, e;

	if (!cimemo_sha_ok(sha)) {
		errno = EINVAL;
		return -1;
	}
	if ((r = lock_wait(lockpath, &fd, CIMEMO_LOCK_WAIT)) != 0) {
		if (r == 1)
			errno = EWOULDBLOCK;
		return -1;
	}
	buf_init(&was, 0);
	buf_init(&b, 0);
	if (file_read(path, CIMEMO_FILE_MAX, &was) != 0)
		buf_reset(&was);
	buf_printf(&was, "\n%s %lld\n", sha, (long long)now);
	cimemo_parse(&c, NULL, buf_str(&was));
	/* Recent marks only, the newest CIMEMO_MARKS_MAX of them. */
	cut = cimemo_marks_cut(&c, (long long)now - CIMEMO_MARK_KEEP + 1);
	for (i = 0; i < c.nmarks; i++)
		if (c.marks[i].at >= cut)
			buf_printf(&b, "%s %lld\n", c.marks[i].sha,
			    c.marks[i].at);
	r = file_write_atomic(path, buf_str(&b), b.len, 0644, 0);
	e = errno;
	cimemo_free(&c);
	buf_free(&was);
	buf_free(&b);
	lock_release(fd);
	errno = e;
	return r == -1 ? -1 : 0;
}
