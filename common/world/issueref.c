/*
 * Issue number of a pull request, as dev-poll.sh extracts it:
 *
 *   branch: the digits after the first "fix/issue-" followed by digits,
 *           anywhere in the branch name (upstream's lookbehind);
 *   title:  the last #N;
 *   body:   the first "closes", "fixes" or "resolves" (any case, also
 *           inside a longer word, as upstream) followed by spaces or tabs
 *           on the same line and #N;
 *   else 0 for chore/gardener-, chore/planner- and chore/predictor-
 *   branches, else -1.
 *
 * Unlike upstream, a number 0 or above VALID_NUMBER_MAX (2^53-1, the
 * largest the forge's JSON holds exactly) is not a reference, so "#0"
 * cannot pass a PR off as an issue-less chore.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "issueref.h"
#include "runfiles.h"
#include "valid.h"
#include "xmalloc.h"

static long long issueref_number_at(const char *, const char **);
static long long issueref_from_branch(const char *);
static long long issueref_from_title(const char *);
static long long issueref_from_body(const char *);
static long long issueref_closing_ref_at(const char *);
static int issueref_is_chore(const char *);
static int issueref_number_is(const char *, long long);

/*
 * The issue number written at s: a run of digits from 1 to
 * VALID_NUMBER_MAX, or -1.  *end is set past the digits.
 */
static long long
issueref_number_at(const char *s, const char **end)
{
	long long v = 0;
	size_t n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++)
		if (v <= VALID_NUMBER_MAX)
			v = v * 10 + (*s - '0');
	*end = s;
	return n > 0 && v > 0 && v <= VALID_NUMBER_MAX ? v : -1;
}

static long long
issueref_from_branch(const char *branch)
{
	static const char prefix[] = RUNFILES_BRANCH_PREFIX;
	const char *p = branch, *end;
	long long v;

	while ((p = strstr(p, prefix)) != NULL) {
		p += sizeof(prefix) - 1;
		if ((v = issueref_number_at(p, &end)) > 0)
			return v;
	}
	return -1;
}

static long long
issueref_from_title(const char *title)
{
	const char *p = title, *end;
	long long v, last = -1;

	while ((p = strchr(p, '#')) != NULL) {
		if ((v = issueref_number_at(p + 1, &end)) > 0)
			last = v;
		p = end > p + 1 ? end : p + 1;
	}
	return last;
}

/* The #N of a closing keyword starting at s, or -1. */
static long long
issueref_closing_ref_at(const char *s)
{
	static const char *const kw[] = {"closes", "fixes", "resolves"};
	const char *end;
	size_t k, len;

	for (k = 0; k < sizeof(kw) / sizeof(kw[0]); k++) {
		len = strlen(kw[k]);
		if (strncasecmp(s, kw[k], len) != 0)
			continue;
		s += len;
		/* PCRE's \s within one line: not the newline itself. */
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' ||
		    *s == '\v')
			s++;
		return *s == '#' ? issueref_number_at(s + 1, &end) : -1;
	}
	return -1;
}

static long long
issueref_from_body(const char *body)
{
	long long v;

	for (; *body != '\0'; body++)
		if ((v = issueref_closing_ref_at(body)) > 0)
			return v;
	return -1;
}

static int
issueref_is_chore(const char *branch)
{
	static const char *const pfx[] = {"chore/gardener-", "chore/planner-",
	    "chore/predictor-"};
	size_t k;

	for (k = 0; k < sizeof(pfx) / sizeof(pfx[0]); k++)
		if (strncmp(branch, pfx[k], strlen(pfx[k])) == 0)
			return 1;
	return 0;
}

long long
issueref_from_pr(const char *branch, const char *title, const char *body)
{
	long long v;

	if (branch != NULL && (v = issueref_from_branch(branch)) > 0)
		return v;
	if (title != NULL && (v = issueref_from_title(title)) > 0)
		return v;
	if (body != NULL && (v = issueref_from_body(body)) > 0)
		return v;
	return branch != NULL && issueref_is_chore(branch) ? 0 : -1;
}

/* Whether s starts with the number n, not followed by a word character. */
static int
issueref_number_is(const char *s, long long n)
{
	const char *end;
	long long v;

	if (valid_number_at(s, &end, &v) != NULL)
		return 0;
	return v == n && !isalnum((unsigned char)*end) && *end != '_';
}

int
issueref_title_names(const char *title, long long issue)
{
	const char *t;

	for (t = title; t != NULL && (t = strchr(t, '#')) != NULL; t++)
		if (issueref_number_is(t + 1, issue))
			return 1;
	return 0;
}

int
issueref_text_fixes(const char *text, long long issue)
{
	const char *b;

	for (b = text; b != NULL && *b != '\0'; b++)
		if (strncasecmp(b, "ixes #", 6) == 0 &&
		    issueref_number_is(b + 6, issue))
			return 1;
	return 0;
}

void
issueref_fixes(const char *text, long long **out, size_t *n)
{
	const char *b, *end;
	long long v;

	*out = NULL;
	*n = 0;
	for (b = text; b != NULL && *b != '\0'; b++) {
		if (strncasecmp(b, "ixes #", 6) != 0 ||
		    valid_number_at(b + 6, &end, &v) != NULL)
			continue;
		if (isalnum((unsigned char)*end) || *end == '_')
			continue;
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		(*out)[(*n)++] = v;
	}
}
