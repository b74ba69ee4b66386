/*
 * Open PRs whose reviews hold no verdict, remembered between ticks
 * (dev-poll-reviews-P), so that a PR waiting for CI does not cost a
 * review read every tick.  The forge has no list form for reviews, but
 * its PR list carries each PR's updated_at, which every submitted or
 * dismissed review moves (each adds to the PR's timeline), and its head,
 * which a push moves.  A PR listed with both as they were when its
 * reviews were read and found without APPROVED or REQUEST_CHANGES in
 * force, and whose CI state has not changed since, is taken to have none
 * still (deleting a review can only take a verdict away).  What moves
 * neither (an undismissal through the API) is seen when CI changes state,
 * where a verdict starts to matter, and at the latest QUIET_MAX_AGE
 * after the read.  A PR updated within the last minute is not remembered,
 * so that a review landing in the same second as the read is never missed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "ci.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "runfiles.h"
#include "xmalloc.h"

#define QUIET_MAX (1024 * 1024)	  /* a longer file is not ours: ignored */
#define QUIET_SETTLE 60		  /* seconds a PR must be still */
#define QUIET_MAX_AGE (12 * 3600) /* a read is trusted this long at most */
#define QUIET_SHA_MAX 64

/* One remembered PR: "PR SHA UPDATED CI READ-AT". */
struct quiet_rec {
	long long pr;
	long long updated;
	char sha[QUIET_SHA_MAX + 1];
	char ci[16];
	long long read_at;
};

static int quiet_sha_ok(const char *);
static int quiet_parse_line(const char *, size_t, struct quiet_rec *);
static size_t quiet_parse(const char *, struct quiet_rec **);
static int quiet_cmp(const void *, const void *);
static int quiet_ci_parse(const char *, enum ci_state *);
static int quiet_line(const struct dev_ctx *, const struct dp_pr *,
    struct buf *);

/* Whether s is a commit SHA as the forge gives it (hex, 7 to 64). */
static int
quiet_sha_ok(const char *s)
{
	size_t n;

	if (s == NULL)
		return 0;
	for (n = 0; s[n] != '\0'; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n >= 7 && n <= QUIET_SHA_MAX;
}

/* A CI state by its ci_state_name() (never "unknown"): 0, or -1. */
static int
quiet_ci_parse(const char *name, enum ci_state *out)
{
	static const enum ci_state all[] = {CI_NONE, CI_PENDING, CI_SUCCESS,
	    CI_FAILURE};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcmp(name, ci_state_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	}
	return -1;
}

/* Parse one line (len bytes at line) into *r: 0, or -1. */
static int
quiet_parse_line(const char *line, size_t len, struct quiet_rec *r)
{
	char copy[160], extra;
	enum ci_state ci;

	if (len >= sizeof(copy))
		return -1;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (sscanf(copy, "%lld %64s %lld %15s %lld %c", &r->pr, r->sha,
		&r->updated, r->ci, &r->read_at, &extra) != 5 ||
	    r->pr <= 0 || r->updated <= 0 || r->read_at <= 0 ||
	    !quiet_sha_ok(r->sha) || quiet_ci_parse(r->ci, &ci) == -1)
		return -1;
	return 0;
}

/* The well-formed lines of text into *out, sorted by PR (caller frees). */
static size_t
quiet_parse(const char *text, struct quiet_rec **out)
{
	const char *nl;
	size_t n = 0, cap = 0;

	*out = NULL;
	for (; *text != '\0'; text = *nl != '\0' ? nl + 1 : nl) {
		if ((nl = strchr(text, '\n')) == NULL)
			nl = text + strlen(text);
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*out = xreallocarray(*out, cap, sizeof(**out));
		}
		if (quiet_parse_line(text, (size_t)(nl - text), &(*out)[n]) ==
		    0)
			n++;
	}
	qsort(*out, n, sizeof(**out), quiet_cmp);
	return n;
}

static int
quiet_cmp(const void *a, const void *b)
{
	const struct quiet_rec *x = a, *y = b;

	return x->pr < y->pr ? -1 : x->pr > y->pr;
}

void
dp_quiet_load(struct dev_ctx *c)
{
	char *path = runfiles_dev_quiet(c->cfg->project_name);
	struct quiet_rec *recs = NULL, key, *r;
	struct dp_pr *p;
	struct buf b;
	size_t n = 0, i;

	buf_init(&b, 0);
	/* Missing, too long, not a regular file: nothing is known. */
	if (file_read(path, QUIET_MAX, &b) == 0)
		n = quiet_parse(buf_str(&b), &recs);
	for (i = 0; i < c->nprs && n > 0; i++) {
		p = &c->prs[i];
		key.pr = p->number;
		r = bsearch(&key, recs, n, sizeof(*recs), quiet_cmp);
		if (r == NULL || p->updated <= 0 ||
		    r->updated != (long long)p->updated || p->sha == NULL ||
		    strcmp(r->sha, p->sha) != 0)
			continue;
		p->quiet = 1;
		(void)quiet_ci_parse(r->ci, &p->quiet_ci);
		p->quiet_at = (time_t)r->read_at;
	}
	c->quiet_was = xstrdup(buf_str(&b));
	free(recs);
	buf_free(&b);
	free(path);
}

int
dp_quiet(const struct dev_ctx *c, const struct dp_pr *p)
{
	return p->quiet && p->quiet_ci == p->ci && p->quiet_at <= c->now &&
	    c->now - p->quiet_at < QUIET_MAX_AGE;
}

/*
 * p's line, if it has one: its reviews read this tick without a verdict
 * (and it has been still for a while), or its line as read, unused.
 */
static int
quiet_line(const struct dev_ctx *c, const struct dp_pr *p, struct buf *b)
{
	if (!quiet_sha_ok(p->sha) || p->updated <= 0)
		return 0;
	if (p->reviews_read) {
		if (p->approved || p->changes ||
		    c->now - p->updated < QUIET_SETTLE)
			return 0;
		buf_printf(b, "%lld %s %lld %s %lld\n", p->number, p->sha,
		    (long long)p->updated, ci_state_name(p->ci),
		    (long long)c->now);
		return 1;
	}
	if (!p->quiet)
		return 0;
	buf_printf(b, "%lld %s %lld %s %lld\n", p->number, p->sha,
	    (long long)p->updated, ci_state_name(p->quiet_ci),
	    (long long)p->quiet_at);
	return 1;
}

void
dp_quiet_save(struct dev_ctx *c)
{
	char *path;
	struct buf b;
	size_t i;

	/* No list this tick, or a dry run: the file stays as it is. */
	if (c->prs_read != 1 || c->act.dry_run || c->quiet_was == NULL)
		return;
	buf_init(&b, 0);
	for (i = 0; i < c->nprs; i++)
		(void)quiet_line(c, &c->prs[i], &b);
	if (strcmp(buf_str(&b), c->quiet_was) != 0) {
		path = runfiles_dev_quiet(c->cfg->project_name);
		(void)act_write(&c->act, path, buf_str(&b), 0);
		free(path);
	}
	buf_free(&b);
}
