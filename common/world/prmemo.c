/*
 * Facts about open PRs remembered between ticks: see prmemo.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "file.h"
#include "prmemo.h"
#include "valid.h"
#include "xmalloc.h"

#define PRMEMO_FILE_MAX (4 * 1024 * 1024) /* longer: not ours, ignored */

static int prmemo_sha_ok(const char *);
static int prmemo_word_ok(const char *);
static int prmemo_num(const char *, long long *);
static int prmemo_parse_line(const char *, size_t, struct prmemo *);
static int prmemo_cmp(const void *, const void *);

/* Whether s is a commit SHA as the forge gives it (hex, 7 to 64). */
static int
prmemo_sha_ok(const char *s)
{
	return s != NULL && valid_sha(s) == NULL;
}

/* Whether s is a fact's word: lower-case letters and '-', 1 to 15. */
static int
prmemo_word_ok(const char *s)
{
	size_t n;

	for (n = 0; s[n] != '\0'; n++)
		if (!islower((unsigned char)s[n]) && s[n] != '-')
			return 0;
	return n >= 1 && n < sizeof(((struct prmemo *)0)->fact);
}

/* A PR number, the whole of tok (valid_number_text()): 0, or -1. */
static int
prmemo_num(const char *tok, long long *out)
{
	return valid_number_text(tok, out) == NULL ? 0 : -1;
}

/* Parse one line (len bytes at line) into *m: 0, or -1. */
static int
prmemo_parse_line(const char *line, size_t len, struct prmemo *m)
{
	char copy[192], *tok[6], *save = NULL, *p;
	size_t n = 0;

	if (len >= sizeof(copy))
		return -1;
	memcpy(copy, line, len);
	copy[len] = '\0';
	for (p = strtok_r(copy, " ", &save); p != NULL && n < 6;
	     p = strtok_r(NULL, " ", &save))
		tok[n++] = p;
	if (n != 5 || prmemo_num(tok[0], &m->pr) == -1 ||
	    prmemo_num(tok[2], &m->updated) == -1 ||
	    prmemo_num(tok[4], &m->at) == -1 || !prmemo_sha_ok(tok[1]) ||
	    !prmemo_word_ok(tok[3]))
		return -1;
	memset(m->sha, 0, sizeof(m->sha));
	memset(m->fact, 0, sizeof(m->fact));
	memcpy(m->sha, tok[1], strlen(tok[1]));
	memcpy(m->fact, tok[3], strlen(tok[3]));
	return 0;
}

static int
prmemo_cmp(const void *a, const void *b)
{
	const struct prmemo *x = a, *y = b;

	return x->pr < y->pr ? -1 : x->pr > y->pr;
}

void
prmemo_parse(struct prmemo_set *s, const char *text)
{
	const char *line, *nl;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	for (line = text; *line != '\0'; line = *nl ? nl + 1 : nl) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		s->v = xgrow(s->v, s->n, &cap, sizeof(*s->v));
		if (prmemo_parse_line(line, (size_t)(nl - line), &s->v[s->n]) ==
		    0)
			s->n++;
	}
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), prmemo_cmp);
	s->was = xstrdup(text);
}

void
prmemo_load(struct prmemo_set *s, const char *path)
{
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, PRMEMO_FILE_MAX, &b) != 0)
		buf_reset(&b);
	prmemo_parse(s, buf_str(&b));
	buf_free(&b);
}

const struct prmemo *
prmemo_find(const struct prmemo_set *s, long long pr, const char *sha,
    time_t updated, time_t now)
{
	const struct prmemo *m;
	struct prmemo key;

	key.pr = pr;
	if (s->n == 0 || sha == NULL || updated <= 0 ||
	    (m = bsearch(&key, s->v, s->n, sizeof(*s->v), prmemo_cmp)) == NULL)
		return NULL;
	if (m->updated != (long long)updated || strcmp(m->sha, sha) != 0 ||
	    m->at > (long long)now || now - m->at >= PRMEMO_MAX_AGE)
		return NULL;
	return m;
}

int
prmemo_put(struct buf *b, long long pr, const char *sha, time_t updated,
    const char *fact, time_t at, time_t now)
{
	if (!prmemo_sha_ok(sha) || updated <= 0 || !prmemo_word_ok(fact) ||
	    now - updated < PRMEMO_SETTLE)
		return 0;
	buf_printf(b, "%lld %s %lld %s %lld\n", pr, sha, (long long)updated,
	    fact, (long long)at);
	return 1;
}

void
prmemo_save(const struct prmemo_set *s, struct act *a, const char *path,
    const char *text)
{
	if (s->was != NULL && strcmp(s->was, text) == 0)
		return;
	(void)act_write(a, path, text, 0);
}

void
prmemo_free(struct prmemo_set *s)
{
	free(s->v);
	free(s->was);
	memset(s, 0, sizeof(*s));
}
