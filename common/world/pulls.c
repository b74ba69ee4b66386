/*
 * The forge model of the open PRs: see pulls.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "buf.h"
#include "ci.h"
#include "cimemo.h"
#include "config.h"
#include "forge.h"
#include "http.h"
#include "issueref.h"
#include "log.h"
#include "prmemo.h"
#include "pulls.h"
#include "reviewed.h"
#include "runfiles.h"
#include "woodpecker.h"
#include "xmalloc.h"

#define PULLS_FACT_NONCODE "non-code"
#define PULLS_FACT_CODE "code"
#define PULLS_NMEMO 2

/* What the model learnt of one PR beyond the list. */
struct pulls_fact {
	char *text;	  /* the PR's strings (owned) */
	long long *fixes; /* owned */
	int ci_asked;	  /* its CI state was asked for */
	int ci_read;	  /* its CI state is in ci */
	enum ci_state ci;
	int noncode;	   /* -1 unknown, else only non-code files */
	time_t noncode_at; /* when its files were read */
	int verdict_known; /* verdict holds its verdict */
	int reviews_read;  /* its reviews were read this tick */
	struct reviewed_verdict verdict;
	char *author;		/* the deciding review's author (owned) */
	int ahead;		/* its reviews were asked in a batch */
	int quiet;		/* in the reviews memo, unchanged */
	enum ci_state quiet_ci; /* its CI state when they were read */
	time_t quiet_at;	/* when they were read */
	int ci_kept;		/* ci_entry is its head's line in the CI memo */
	int ci_prev;		/* ci_entry is the memo's line before, due */
	struct cimemo_entry ci_entry;
};

/* A memo file in use. */
struct pulls_memofile {
	char *path; /* NULL: not in use */
	struct prmemo_set set;
	int applied;
};

/* The CI memo (cimemo.h) in use. */
struct pulls_cimemo {
	char *path; /* NULL: not in use */
	struct cimemo memo;
	int applied;
};

/* Where a model reads from; everything borrowed. */
struct pulls_src {
	const struct config *cfg;
	struct forge *forge;   /* the open list, changed files, CI */
	struct forge *review;  /* reviews and comments (NULL: forge) */
	struct woodpecker *wp; /* NULL when Woodpecker is not set up */
	struct reviewers *rv;  /* whose verdicts count */
	time_t now;
	int reviews_ahead; /* pulls_set_ahead() */
};

struct pulls {
	struct pulls_src src;
	struct pull *v;
	struct pulls_fact *f; /* one per PR */
	size_t n, cap;
	int loaded; /* 1 read, -1 failed, 0 not yet */
	int wp_down;
	struct pulls_memofile memo[PULLS_NMEMO];
	struct pulls_cimemo ci_memo;
	char err[512];
};

static struct forge *pulls_rf(const struct pulls *);
static struct pulls_fact *pulls_fact(const struct pulls *, const struct pull *);
static int pulls_fail(struct pulls *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int pulls_keep(void *, const cJSON *);
static void pulls_text(struct pull *, struct pulls_fact *,
    const struct forge_pull *);
static void pulls_drop(struct pulls *);
static void pulls_ci_scan(struct pulls *);
static void pulls_wp_say(struct pulls *);
static void pulls_memo_apply(struct pulls *, enum pulls_memo);
static void pulls_memo_fact(struct pulls *, enum pulls_memo, size_t,
    const struct prmemo *);
static void pulls_memo_line(const struct pulls *, enum pulls_memo, size_t,
    struct buf *);
static void pulls_ahead_read(struct pulls *, size_t);
static int pulls_quiet(const struct pulls_fact *);
static void pulls_ci_memo_apply(struct pulls *);
static int pulls_ci_memo_read(struct pulls *, const struct pull *,
    enum ci_state *);
static void pulls_ci_memo_save(struct pulls *, struct act *);

struct pulls *
pulls_new(const struct config *cfg, struct forge *f, struct woodpecker *wp,
    struct reviewers *rv, time_t now)
{
	struct pulls *m = xcalloc(1, sizeof(*m));

	m->src.cfg = cfg;
	m->src.forge = f;
	m->src.wp = wp;
	m->src.rv = rv;
	m->src.now = now;
	return m;
}

void
pulls_set_review(struct pulls *m, struct forge *review)
{
	m->src.review = review;
}

void
pulls_set_ahead(struct pulls *m)
{
	m->src.reviews_ahead = 1;
}

/* Drop the list and every fact of it. */
static void
pulls_drop(struct pulls *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->f[i].text);
		free(m->f[i].fixes);
		free(m->f[i].author);
	}
	free(m->v);
	free(m->f);
	m->v = NULL;
	m->f = NULL;
	m->n = m->cap = 0;
}

void
pulls_free(struct pulls *m)
{
	size_t i;

	if (m == NULL)
		return;
	pulls_drop(m);
	for (i = 0; i < PULLS_NMEMO; i++) {
		free(m->memo[i].path);
		prmemo_free(&m->memo[i].set);
	}
	free(m->ci_memo.path);
	cimemo_free(&m->ci_memo.memo);
	free(m);
}

const char *
pulls_error(const struct pulls *m)
{
	return m->err;
}

/* Record why a call failed: -1. */
static int
pulls_fail(struct pulls *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* The handle reviews and comments are read with. */
static struct forge *
pulls_rf(const struct pulls *m)
{
	return m->src.review != NULL ? m->src.review : m->src.forge;
}

/* p's facts: p is one of the list's. */
static struct pulls_fact *
pulls_fact(const struct pulls *m, const struct pull *p)
{
	return &m->f[p - m->v];
}

/* Copy the PR's strings into one allocation, the fact's text. */
static void
pulls_text(struct pull *p, struct pulls_fact *f, const struct forge_pull *fp)
{
	const char *s[4] = {fp->title, fp->branch, fp->base, fp->sha};
	const char **to[4] = {&p->title, &p->branch, &p->base, &p->sha};
	size_t i, len = 0, off = 0;

	for (i = 0; i < 4; i++)
		len += s[i] != NULL ? strlen(s[i]) + 1 : 0;
	f->text = xmalloc(len + 1);
	for (i = 0; i < 4; i++) {
		*to[i] = NULL;
		if (s[i] == NULL)
			continue;
		memcpy(f->text + off, s[i], strlen(s[i]) + 1);
		*to[i] = f->text + off;
		off += strlen(s[i]) + 1;
	}
}

/* Keep what the tools decide on of one open PR of a page. */
static int
pulls_keep(void *arg, const cJSON *el)
{
	struct pulls *m = arg;
	struct forge_pull fp;
	struct pulls_fact *f;
	struct pull *p;
	size_t cap = m->cap;

	forge_pull_view(el, &fp);
	m->v = xgrow(m->v, m->n, &m->cap, sizeof(*m->v));
	if (m->cap != cap)
		m->f = xreallocarray(m->f, m->cap, sizeof(*m->f));
	p = &m->v[m->n];
	f = &m->f[m->n++];
	memset(p, 0, sizeof(*p));
	memset(f, 0, sizeof(*f));
	p->number = fp.number;
	pulls_text(p, f, &fp);
	p->issue = issueref_from_pr(p->branch, p->title, fp.body);
	p->branch_issue =
	    p->branch != NULL ? runfiles_branch_issue(p->branch) : -1;
	issueref_fixes(fp.body, &f->fixes, &p->nfixes);
	p->fixes = f->fixes;
	p->draft = fp.draft;
	p->mergeable = fp.mergeable;
	p->updated = fp.updated;
	f->noncode = -1;
	return 0;
}

int
pulls_load(struct pulls *m)
{
	size_t i;

	/* A failed read is not tried again this tick. */
	if (m->loaded != 0)
		return m->loaded == 1 ? 0 : -1;
	if (forge_pulls_each(m->src.forge, "open", pulls_keep, m) == -1) {
		pulls_fail(m, "%s", forge_error(m->src.forge));
		pulls_drop(m);
		m->loaded = -1;
		return -1;
	}
	m->loaded = 1;
	for (i = 0; i < PULLS_NMEMO; i++)
		pulls_memo_apply(m, (enum pulls_memo)i);
	pulls_ci_memo_apply(m);
	pulls_ci_scan(m);
	return 0;
}

int
pulls_loaded(const struct pulls *m)
{
	return m->loaded;
}

size_t
pulls_count(const struct pulls *m)
{
	return m->n;
}

const struct pull *
pulls_at(const struct pulls *m, size_t i)
{
	return i < m->n ? &m->v[i] : NULL;
}

const struct pull *
pulls_number(const struct pulls *m, long long pr)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].number == pr)
			return &m->v[i];
	return NULL;
}

const struct pull *
pulls_branch(const struct pulls *m, const char *branch)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].branch != NULL &&
		    strcmp(m->v[i].branch, branch) == 0)
			return &m->v[i];
	return NULL;
}

const struct pull *
pulls_issue_branch(const struct pulls *m, long long issue)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].branch_issue == issue)
			return &m->v[i];
	return NULL;
}

const struct pull *
pulls_titled(const struct pulls *m, long long issue)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (issueref_title_names(m->v[i].title, issue))
			return &m->v[i];
	return NULL;
}

const struct pull *
pulls_fixing(const struct pulls *m, long long issue)
{
	size_t i, j;

	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->v[i].nfixes; j++)
			if (m->v[i].fixes[j] == issue)
				return &m->v[i];
	return NULL;
}

const struct pull *
pulls_linked(const struct pulls *m, long long issue)
{
	const struct pull *p;
	size_t i;

	if ((p = pulls_issue_branch(m, issue)) != NULL)
		return p;
	for (i = 0; i < m->n; i++)
		if (m->v[i].issue == issue)
			return &m->v[i];
	return NULL;
}

/* Say once that Woodpecker failed; the forge's status stands in. */
static void
pulls_wp_say(struct pulls *m)
{
	if (m->wp_down)
		return;
	log_msg("Woodpecker: %s — the forge's commit status stands in "
		"for the rest of this tick",
	    woodpecker_error(m->src.wp));
	m->wp_down = 1;
}

int
pulls_wp_down(const struct pulls *m)
{
	return m->wp_down;
}

void
pulls_wp_failed(struct pulls *m)
{
	m->wp_down = 1;
}

/*
 * One pipeline list for the CI states of every open PR's head, read
 * before any of them is asked for (the forge's status is read later
 * only for the heads the list does not cover).
 */
static void
pulls_ci_scan(struct pulls *m)
{
	const char **shas;
	size_t i;

	if (m->src.wp == NULL || m->wp_down || m->n == 0)
		return;
	shas = xcalloc(m->n, sizeof(*shas));
	for (i = 0; i < m->n; i++)
		shas[i] = m->v[i].sha;
	if (woodpecker_scan(m->src.wp, shas, m->n) == -1)
		pulls_wp_say(m);
	free(shas);
}

int
pulls_commit_ci(struct pulls *m, const char *sha, enum ci_state *st,
    long long *pipeline)
{
	int wp_failed, r;

	r = ci_commit_read(m->src.forge, m->wp_down ? NULL : m->src.wp, sha, st,
	    pipeline, &wp_failed);
	if (wp_failed)
		pulls_wp_say(m);
	if (r == -1)
		pulls_fail(m, "%s", forge_error(m->src.forge));
	return r;
}

int
pulls_ci(struct pulls *m, const struct pull *p, enum ci_state *st)
{
	struct pulls_fact *f = pulls_fact(m, p);

	f->ci_asked = 1;
	if (f->ci_read) {
		*st = f->ci;
		return 0;
	}
	*st = CI_UNKNOWN;
	if (p->sha == NULL || *p->sha == '\0')
		return pulls_fail(m, "no head SHA");
	if (m->ci_memo.path != NULL) {
		if (pulls_ci_memo_read(m, p, st) == -1)
			return -1;
	} else if (pulls_commit_ci(m, p->sha, st, NULL) == -1)
		return -1;
	f->ci = *st;
	f->ci_read = 1;
	return 0;
}

int
pulls_ci_known(const struct pulls *m, const struct pull *p, enum ci_state *st)
{
	const struct pulls_fact *f = pulls_fact(m, p);
	const char *status;

	if (f->ci_read) {
		*st = f->ci;
		return 0;
	}
	if (m->src.wp == NULL || m->wp_down || p->sha == NULL ||
	    woodpecker_known(m->src.wp, p->sha, &status) != 0 ||
	    ci_state_from_woodpecker(status, st) != 0)
		return -1;
	return 0;
}

int
pulls_noncode(struct pulls *m, const struct pull *p)
{
	struct pulls_fact *f = pulls_fact(m, p);
	const cJSON *files;
	int all;

	if (f->noncode != -1)
		return f->noncode;
	if (forge_pull_files_some(m->src.forge, p->number, &files, &all) == -1)
		return pulls_fail(m, "%s", forge_error(m->src.forge));
	/* A PR whose files were not all read is never "non-code". */
	f->noncode = all && !ci_files_need_ci(files);
	f->noncode_at = m->src.now;
	return f->noncode;
}

enum pulls_ci
pulls_ci_rule(enum ci_state st, int configured, int noncode)
{
	if (st == CI_UNKNOWN)
		return PULLS_CI_UNKNOWN;
	if (ci_passed(st, configured))
		return PULLS_CI_PASSED;
	if (noncode == -1)
		return PULLS_CI_NEEDS_FILES;
	if (noncode)
		return PULLS_CI_PASSED;
	return ci_failed(st, configured) ? PULLS_CI_FAILED : PULLS_CI_WAITING;
}

enum pulls_ci
pulls_ci_says(struct pulls *m, const struct pull *p)
{
	int configured = config_ci_configured(m->src.cfg), nc;
	enum ci_state st;
	enum pulls_ci says;

	if (pulls_ci(m, p, &st) == -1)
		return PULLS_CI_UNKNOWN;
	says = pulls_ci_rule(st, configured, pulls_fact(m, p)->noncode);
	if (says != PULLS_CI_NEEDS_FILES)
		return says;
	if ((nc = pulls_noncode(m, p)) == -1)
		return PULLS_CI_UNKNOWN;
	return pulls_ci_rule(st, configured, nc);
}

int
pulls_ci_passed(struct pulls *m, const struct pull *p)
{
	int configured = config_ci_configured(m->src.cfg);
	enum ci_state st;

	if (pulls_ci(m, p, &st) == -1)
		return -1;
	if (ci_passed(st, configured))
		return 1;
	switch (pulls_ci_says(m, p)) {
	case PULLS_CI_UNKNOWN:
		return -1;
	case PULLS_CI_PASSED:
		return 1;
	default:
		return 0;
	}
}

int
pulls_ci_failed(struct pulls *m, const struct pull *p)
{
	int configured = config_ci_configured(m->src.cfg);
	enum ci_state st;

	if (pulls_ci(m, p, &st) == -1)
		return -1;
	if (!ci_failed(st, configured))
		return 0;
	switch (pulls_ci_says(m, p)) {
	case PULLS_CI_UNKNOWN:
		return -1;
	case PULLS_CI_FAILED:
		return 1;
	default:
		return 0;
	}
}

int
pulls_files_needed(const struct pulls *m, const struct pull *p)
{
	enum ci_state st;

	if (pulls_fact(m, p)->noncode != -1)
		return 0;
	/* Passed by the pipeline list: no files needed. */
	return pulls_ci_known(m, p, &st) == -1 ||
	    !ci_passed(st, config_ci_configured(m->src.cfg));
}

void
pulls_files_ahead(struct pulls *m, const struct pull *const *v, size_t n)
{
	long long nums[HTTP_PARALLEL];
	size_t i, k = 0;

	for (i = 0; i < n && k < HTTP_PARALLEL; i++)
		nums[k++] = v[i]->number;
	if (k > 1)
		forge_files_prefetch(m->src.forge, nums, k);
}

/* Whether f's reviews are known to hold no verdict (the reviews memo). */
static int
pulls_quiet(const struct pulls_fact *f)
{
	return f->quiet && f->ci_read && f->quiet_ci == f->ci;
}

/*
 * Read the reviews of the PR at i and of the next PRs the scans will ask
 * for, up to HTTP_PARALLEL of them, at once (pulls_set_ahead()).
 */
static void
pulls_ahead_read(struct pulls *m, size_t at)
{
	long long nums[HTTP_PARALLEL];
	struct pulls_fact *f;
	size_t i, n = 0;

	if (!m->src.reviews_ahead || m->f[at].ahead)
		return;
	for (i = at; i < m->n && n < HTTP_PARALLEL; i++) {
		f = &m->f[i];
		if (i == at ||
		    (!f->ci_asked && m->v[i].issue >= 0 && !f->ahead &&
			!f->quiet)) {
			f->ahead = 1;
			nums[n++] = m->v[i].number;
		}
	}
	if (n > 1)
		forge_reviews_prefetch(pulls_rf(m), nums, n);
}

int
pulls_verdict(struct pulls *m, const struct pull *p,
    struct reviewed_verdict *out)
{
	struct pulls_fact *f = pulls_fact(m, p);
	struct reviewed_verdict v;
	const cJSON *list;
	int r;

	if (f->verdict_known || pulls_quiet(f)) {
		/* Known, or known to hold none and unchanged since. */
		if (!f->verdict_known)
			f->verdict.state = REVIEWED_NONE;
		f->verdict_known = 1;
		*out = f->verdict;
		return 0;
	}
	pulls_ahead_read(m, (size_t)(p - m->v));
	if (forge_reviews_list(pulls_rf(m), p->number, &list) == -1)
		return pulls_fail(m, "%s", forge_error(pulls_rf(m)));
	r = reviewed_verdict(list, p->sha, p->number, m->src.rv, &v);
	if (r == 0) {
		f->author = v.author != NULL ? xstrdup(v.author) : NULL;
		v.author = f->author;
		f->verdict = v;
		f->verdict_known = f->reviews_read = 1;
		*out = v;
	}
	/* Only the verdict is needed: review texts are not held. */
	forge_reviews_forget(pulls_rf(m), p->number);
	return r == 0 ? 0 : pulls_fail(m, "a reviewer's login is unknown");
}

int
pulls_review_comment(struct pulls *m, const struct pull *p, const cJSON **out)
{
	const cJSON *comments;

	*out = NULL;
	if (forge_comments_list(pulls_rf(m), p->number, &comments) == -1)
		return pulls_fail(m, "%s", forge_error(pulls_rf(m)));
	if (reviewed_comment(comments, p->sha, p->number, m->src.rv, out) == -1)
		return pulls_fail(m, "a reviewer's login is unknown");
	return 0;
}

int
pulls_reviewed(struct pulls *m, const struct pull *p)
{
	struct reviewed_verdict v;
	const cJSON *c;

	if (pulls_review_comment(m, p, &c) == -1)
		return -1;
	if (c != NULL)
		return 1;
	if (pulls_verdict(m, p, &v) == -1)
		return -1;
	return v.state != REVIEWED_NONE;
}

void
pulls_memo_use(struct pulls *m, enum pulls_memo kind, const char *path)
{
	struct pulls_memofile *mf = &m->memo[kind];

	free(mf->path);
	prmemo_free(&mf->set);
	mf->path = xstrdup(path);
	mf->applied = 0;
	prmemo_load(&mf->set, path);
	if (m->loaded == 1)
		pulls_memo_apply(m, kind);
}

/* What the memo of kind remembers of PR i (m) into its facts. */
static void
pulls_memo_fact(struct pulls *m, enum pulls_memo kind, size_t i,
    const struct prmemo *r)
{
	struct pulls_fact *f = &m->f[i];

	if (kind == PULLS_MEMO_REVIEWS) {
		if (ci_state_parse(r->fact, &f->quiet_ci) == 0) {
			f->quiet = 1;
			f->quiet_at = (time_t)r->at;
		}
		return;
	}
	if (strcmp(r->fact, PULLS_FACT_NONCODE) == 0)
		f->noncode = 1;
	else if (strcmp(r->fact, PULLS_FACT_CODE) == 0)
		f->noncode = 0;
	else
		return;
	f->noncode_at = (time_t)r->at;
}

/* Mark what the memo of kind knows of the list's PRs. */
static void
pulls_memo_apply(struct pulls *m, enum pulls_memo kind)
{
	struct pulls_memofile *mf = &m->memo[kind];
	const struct prmemo *r;
	size_t i;

	if (mf->path == NULL || mf->applied)
		return;
	mf->applied = 1;
	for (i = 0; i < m->n; i++) {
		r = prmemo_find(&mf->set, m->v[i].number, m->v[i].sha,
		    m->v[i].updated, m->src.now);
		if (r != NULL)
			pulls_memo_fact(m, kind, i, r);
	}
}

/* The line of PR i (m) for the memo of kind, if it has a fact, into b. */
static void
pulls_memo_line(const struct pulls *m, enum pulls_memo kind, size_t i,
    struct buf *b)
{
	const struct pulls_fact *f = &m->f[i];
	const struct pull *p = &m->v[i];
	time_t now = m->src.now;

	if (kind == PULLS_MEMO_FILES) {
		if (f->noncode != -1)
			(void)prmemo_put(b, p->number, p->sha, p->updated,
			    f->noncode ? PULLS_FACT_NONCODE : PULLS_FACT_CODE,
			    f->noncode_at, now);
		return;
	}
	/*
	 * Read this tick and found without a verdict (one that did not
	 * count may count under other settings: not kept).
	 */
	if (f->reviews_read && f->ci_read &&
	    f->verdict.state == REVIEWED_NONE && !f->verdict.ignored)
		(void)prmemo_put(b, p->number, p->sha, p->updated,
		    ci_state_name(f->ci), now, now);
	/* Remembered, and not read again. */
	else if (!f->reviews_read && f->quiet)
		(void)prmemo_put(b, p->number, p->sha, p->updated,
		    ci_state_name(f->quiet_ci), f->quiet_at, now);
}

void
pulls_ci_memo_use(struct pulls *m, const char *path, const char *marks)
{
	struct pulls_cimemo *c = &m->ci_memo;

	/* Woodpecker's pipeline list answers for every head at once. */
	if (m->src.wp != NULL)
		return;
	free(c->path);
	cimemo_free(&c->memo);
	c->path = xstrdup(path);
	c->applied = 0;
	cimemo_load(&c->memo, path, marks);
	if (m->loaded == 1)
		pulls_ci_memo_apply(m);
}

void
pulls_ci_memo_project(struct pulls *m)
{
	char *path, *marks;

	if (m->src.wp != NULL)
		return;
	path = runfiles_ci_memo(m->src.cfg->project_name);
	marks = runfiles_ci_changed(m->src.cfg->project_name);
	pulls_ci_memo_use(m, path, marks);
	free(path);
	free(marks);
}

/*
 * The CI state of each head the memo holds: taken while it stands, kept
 * as the line before when it is due.
 */
static void
pulls_ci_memo_apply(struct pulls *m)
{
	struct pulls_cimemo *c = &m->ci_memo;
	const struct cimemo_entry *e;
	struct pulls_fact *f;
	size_t i;

	if (c->path == NULL || c->applied)
		return;
	c->applied = 1;
	for (i = 0; i < m->n; i++) {
		f = &m->f[i];
		if (f->ci_read ||
		    (e = cimemo_find(&c->memo, m->v[i].sha)) == NULL)
			continue;
		f->ci_entry = *e;
		if (cimemo_due(e, cimemo_marked(&c->memo, e->sha),
			m->src.now)) {
			f->ci_prev = 1;
			continue;
		}
		f->ci = e->state;
		f->ci_read = f->ci_kept = 1;
	}
}

/* Read p's head's combined status for the CI memo: 0, or -1. */
static int
pulls_ci_memo_read(struct pulls *m, const struct pull *p, enum ci_state *st)
{
	struct pulls_fact *f = pulls_fact(m, p);
	struct cimemo_entry prev = f->ci_entry;
	int final;

	if (ci_forge_read(m->src.forge, p->sha, st, &final) == -1)
		return pulls_fail(m, "%s", forge_error(m->src.forge));
	f->ci_kept = cimemo_entry_set(&f->ci_entry, f->ci_prev ? &prev : NULL,
			 p->sha, *st, final, m->src.now) == 0;
	f->ci_prev = 0;
	return 0;
}

/* Rewrite the CI memo from the heads of this tick's list (no others). */
static void
pulls_ci_memo_save(struct pulls *m, struct act *act)
{
	struct cimemo_entry *v;
	size_t i, n = 0;

	if (m->ci_memo.path == NULL)
		return;
	v = xcalloc(m->n + 1, sizeof(*v));
	/* Read or remembered; one due but not asked for stays as it was. */
	for (i = 0; i < m->n; i++)
		if (m->f[i].ci_kept || m->f[i].ci_prev)
			v[n++] = m->f[i].ci_entry;
	cimemo_save(act, m->ci_memo.path, v, n);
	free(v);
}

void
pulls_memo_save(struct pulls *m, struct act *act)
{
	struct buf b;
	size_t k, i;

	/* No list this tick, or a dry run: the files stay as they are. */
	if (m->loaded != 1 || act->dry_run)
		return;
	pulls_ci_memo_save(m, act);
	for (k = 0; k < PULLS_NMEMO; k++) {
		if (m->memo[k].path == NULL)
			continue;
		buf_init(&b, 0);
		for (i = 0; i < m->n; i++)
			pulls_memo_line(m, (enum pulls_memo)k, i, &b);
		prmemo_save(&m->memo[k].set, act, m->memo[k].path, buf_str(&b));
		buf_free(&b);
	}
}
