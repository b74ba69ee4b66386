/*
 * The review settings: formulas/review-pr.toml, in the project files'
 * TOML subset.  The prompt wording lives in the template it names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "review-poll.h"
#include "toml.h"
#include "xmalloc.h"

#define SETTINGS_FILE "review-pr.toml"

static int setting(void *, const char *, const char *,
    const struct toml_value *, int, char *, size_t);
static int set_int(const struct toml_value *, long long, long long, long long *,
    char *, size_t);
static int set_str(const struct toml_value *, char **, char *, size_t);
static void defaults(struct rp_settings *);

static void
defaults(struct rp_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->model = xstrdup("sonnet");
	s->prompt = xstrdup("review-pr.md");
	s->max_diff = 25000;
	s->max_reviews = 3;
	s->idle_timeout_s = 4 * 3600;
	s->no_review_s = 3 * 3600;
	s->min_available_mb = 1500;
	s->ready_timeout_s = 120;
}

static int
set_int(const struct toml_value *v, long long lo, long long hi, long long *out,
    char *err, size_t errsz)
{
	if (v->type != TOML_INT || v->num < lo || v->num > hi) {
		snprintf(err, errsz, "expected an integer from %lld to %lld",
		    lo, hi);
		return -1;
	}
	*out = v->num;
	return 0;
}

static int
set_str(const struct toml_value *v, char **out, char *err, size_t errsz)
{
	if (v->type != TOML_STRING || v->str[0] == '\0' ||
	    strchr(v->str, '/') != NULL || strchr(v->str, ' ') != NULL) {
		snprintf(err, errsz, "expected a non-empty word");
		return -1;
	}
	free(*out);
	*out = xstrdup(v->str);
	return 0;
}

/* One key of the file; unknown keys (name, description...) are ignored. */
static int
setting(void *arg, const char *section, const char *key,
    const struct toml_value *v, int lineno, char *err, size_t errsz)
{
	struct rp_settings *s = arg;
	long long n;
	int r = 0;

	(void)lineno;
	if (section[0] != '\0')
		return 0;
	if (strcmp(key, "model") == 0)
		return set_str(v, &s->model, err, errsz);
	if (strcmp(key, "prompt") == 0)
		return set_str(v, &s->prompt, err, errsz);
	if (strcmp(key, "max_diff_bytes") == 0 &&
	    (r = set_int(v, 1000, 1000000, &n, err, errsz)) == 0)
		s->max_diff = (size_t)n;
	else if (strcmp(key, "max_reviews_per_tick") == 0 &&
	    (r = set_int(v, 0, 100, &n, err, errsz)) == 0)
		s->max_reviews = (int)n;
	else if (strcmp(key, "idle_timeout_minutes") == 0 &&
	    (r = set_int(v, 1, 100000, &n, err, errsz)) == 0)
		s->idle_timeout_s = n * 60;
	else if (strcmp(key, "no_review_escalate_minutes") == 0 &&
	    (r = set_int(v, 1, 100000, &n, err, errsz)) == 0)
		s->no_review_s = n * 60;
	else if (strcmp(key, "min_available_mb") == 0 &&
	    (r = set_int(v, 0, 10000000, &n, err, errsz)) == 0)
		s->min_available_mb = n;
	else if (strcmp(key, "ready_timeout_seconds") == 0 &&
	    (r = set_int(v, 1, 3600, &n, err, errsz)) == 0)
		s->ready_timeout_s = (int)n;
	return r;
}

int
rp_settings_load(struct rp_settings *s, const char *dir, char *err,
    size_t errsz)
{
	char *path;
	int r = 0;

	defaults(s);
	path = xasprintf("%s/%s", dir, SETTINGS_FILE);
	if (file_exists(path))
		r = toml_parse_file(path, setting, s, err, errsz);
	free(path);
	return r;
}

void
rp_settings_free(struct rp_settings *s)
{
	free(s->model);
	free(s->prompt);
	s->model = s->prompt = NULL;
}
