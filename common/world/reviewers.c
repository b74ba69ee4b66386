/*
 * Whose formal verdicts count (see reviewers.h): FORGE_REVIEWERS, the
 * review bot, never the dev bot; the bots' logins learnt once per token.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "record.h"
#include "reviewers.h"
#include "runfiles.h"
#include "valid.h"
#include "xmalloc.h"

/* Logins remembered in the run file, besides the one being added. */
#define REVIEWERS_MEMO_KEEP 15
/* Authors whose ignored verdicts were logged, at most. */
#define REVIEWERS_LOGGED_MAX 32

struct reviewers {
	const struct config *cfg;
	struct forge *dev;
	struct forge *review; /* borrowed, or owned (own_review) */
	int own_review;
	int dry_run;
	int review_known; /* review_bot learnt (0 not yet) */
	char *review_bot; /* NULL: there is no review bot */
	int dev_known;	  /* dev_bot learnt (0 not yet) */
	char *dev_bot;	  /* NULL: no FORGE_TOKEN */
	char *logged[REVIEWERS_LOGGED_MAX];
	size_t nlogged;
};

static void reviewers_key(const struct config *, const char *, char *, size_t);
static int reviewers_memo_get(const char *, char **);
static void reviewers_memo_put(const struct reviewers *, const char *,
    const char *);
static int reviewers_learn(struct reviewers *, struct forge *, const char *,
    char **);
static int reviewers_review_bot(struct reviewers *);
static int reviewers_dev_bot(struct reviewers *);
static int reviewers_ignore(struct reviewers *, const char *, long long,
    const char *, const char *);

struct reviewers *
reviewers_open(const struct config *cfg, struct forge *dev,
    struct forge *review, int dry_run)
{
	struct reviewers *r = xcalloc(1, sizeof(*r));

	r->cfg = cfg;
	r->dev = dev;
	r->review = review;
	r->dry_run = dry_run;
	return r;
}

void
reviewers_close(struct reviewers *r)
{
	size_t i;

	if (r == NULL)
		return;
	if (r->own_review)
		forge_close(r->review);
	for (i = 0; i < r->nlogged; i++)
		free(r->logged[i]);
	free(r->review_bot);
	free(r->dev_bot);
	free(r);
}

int
reviewers_listed(const char *list, const char *login)
{
	size_t n = strlen(login), len;
	const char *p = list != NULL ? list : "";

	if (n == 0)
		return 0;
	while (*p != '\0') {
		p += strspn(p, ", \t");
		len = strcspn(p, ", \t");
		if (len == n && strncmp(p, login, n) == 0)
			return 1;
		p += len;
	}
	return 0;
}

/*
 * The memo key of token on cfg's forge, "K" and 16 hex digits of its
 * FNV-1a hash with the forge's URL (a hash, never the token).
 */
static void
reviewers_key(const struct config *cfg, const char *token, char *key,
    size_t keysz)
{
	const char *parts[2] = {cfg->forge_url != NULL ? cfg->forge_url : "",
	    token};
	uint64_t h = 14695981039346656037ULL;
	const unsigned char *p;
	size_t i;

	for (i = 0; i < 2; i++) {
		for (p = (const unsigned char *)parts[i]; *p != '\0'; p++) {
			h ^= *p;
			h *= 1099511628211ULL;
		}
		h ^= '\n';
		h *= 1099511628211ULL;
	}
	snprintf(key, keysz, "K%016llx:", (unsigned long long)h);
}

/* The login remembered under key in *login (caller frees): 0, or -1. */
static int
reviewers_memo_get(const char *key, char **login)
{
	char *path = runfiles_forge_logins(), value[128];
	struct buf b;
	int r = -1;

	buf_init(&b, 0);
	if (record_load(path, &b) == 0 &&
	    record_get(buf_str(&b), key, value, sizeof(value)) == 0 &&
	    valid_name(value) == NULL) {
		*login = xstrdup(value);
		r = 0;
	}
	buf_free(&b);
	free(path);
	return r;
}

/*
 * Remember login under key, with the REVIEWERS_MEMO_KEEP other lines
 * that come first.  A failure is logged: the login is asked again.
 */
static void
reviewers_memo_put(const struct reviewers *r, const char *key,
    const char *login)
{
	char *path = runfiles_forge_logins();
	const char *line, *end;
	struct buf old, text;
	size_t kept = 0;

	buf_init(&old, 0);
	buf_init(&text, 0);
	if (r->dry_run || valid_name(login) != NULL)
		goto out;
	(void)record_load(path, &old);
	for (line = buf_str(&old); *line != '\0' && kept < REVIEWERS_MEMO_KEEP;
	     line = *end != '\0' ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		if (line[0] != 'K' || strncmp(line, key, strlen(key)) == 0)
			continue;
		buf_append(&text, line, (size_t)(end - line));
		buf_puts(&text, "\n");
		kept++;
	}
	buf_printf(&text, "%s %s\n", key, login);
	if (file_write_atomic(path, buf_str(&text), text.len, 0600, 0) == -1)
		log_warn("cannot write '%s': %s", path, strerror(errno));
out:
	buf_free(&old);
	buf_free(&text);
	free(path);
}

/*
 * The login of token, whose handle is f, in *login (caller frees): from
 * the memo, else from the forge (then remembered).  0, or -1 (logged).
 */
static int
reviewers_learn(struct reviewers *r, struct forge *f, const char *token,
    char **login)
{
	const char *got;
	char key[24];

	reviewers_key(r->cfg, token, key, sizeof(key));
	if (reviewers_memo_get(key, login) == 0)
		return 0;
	if (forge_user_login(f, &got) == -1) {
		log_warn("cannot tell whose verdicts count: %s",
		    forge_error(f));
		return -1;
	}
	*login = xstrdup(got);
	reviewers_memo_put(r, key, got);
	return 0;
}

/* Learn the review bot's login (or that there is none): 0, or -1. */
static int
reviewers_review_bot(struct reviewers *r)
{
	const char *set = r->cfg->forge_review_bot;
	const char *token = r->cfg->forge_review_token;
	const char *dev = r->cfg->forge_token;

	if (r->review_known)
		return 0;
	if (set != NULL && set[0] != '\0')
		r->review_bot = xstrdup(set);
	else if (token == NULL || token[0] == '\0' ||
	    (dev != NULL && strcmp(token, dev) == 0))
		log_warn("no review bot (FORGE_REVIEW_BOT unset, and "
			 "FORGE_REVIEW_TOKEN unset or the dev bot's): only "
			 "the verdicts of FORGE_REVIEWERS count");
	else {
		if (r->review == NULL) {
			r->review = forge_open(r->cfg->forge_api, token);
			r->own_review = 1;
		}
		if (reviewers_learn(r, r->review, token, &r->review_bot) == -1)
			return -1;
	}
	r->review_known = 1;
	return 0;
}

/*
 * Learn the dev bot's login (none without FORGE_TOKEN): 0, or -1.  It is
 * asked of the forge, never taken from the run directory, where the dev
 * agent (which runs as the factory's user) could write another name.
 */
static int
reviewers_dev_bot(struct reviewers *r)
{
	const char *token = r->cfg->forge_token, *login;

	if (r->dev_known)
		return 0;
	if (token != NULL && token[0] != '\0' && r->dev != NULL) {
		if (forge_user_login(r->dev, &login) == -1) {
			log_warn("cannot tell whose verdicts count: %s",
			    forge_error(r->dev));
			return -1;
		}
		r->dev_bot = xstrdup(login);
	}
	r->dev_known = 1;
	return 0;
}

/* Log once per login that its verdicts are ignored, and why.  0. */
static int
reviewers_ignore(struct reviewers *r, const char *login, long long pr,
    const char *state, const char *why)
{
	size_t i;

	for (i = 0; i < r->nlogged; i++)
		if (strcmp(r->logged[i], login) == 0)
			return 0;
	if (r->nlogged < REVIEWERS_LOGGED_MAX)
		r->logged[r->nlogged++] = xstrdup(login);
	log_msg("PR #%lld: %s by '%s' ignored: %s", pr, state, login, why);
	return 0;
}

int
reviewers_count(struct reviewers *r, const char *login, long long pr,
    const char *state)
{
	int listed;

	if (login == NULL || login[0] == '\0')
		return reviewers_ignore(r, "", pr, state, "no author");
	listed = reviewers_listed(r->cfg->forge_reviewers, login);
	if (!listed) {
		if (reviewers_review_bot(r) == -1)
			return -1;
		if (r->review_bot == NULL || strcmp(login, r->review_bot) != 0)
			return reviewers_ignore(r, login, pr, state,
			    "only the review bot's and FORGE_REVIEWERS' "
			    "verdicts count");
	}
	if (reviewers_dev_bot(r) == -1)
		return -1;
	if (r->dev_bot != NULL && strcmp(login, r->dev_bot) == 0)
		return reviewers_ignore(r, login, pr, state,
		    "the dev bot's verdicts never count");
	return 1;
}
