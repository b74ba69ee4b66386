/*
 * Issue dependency parser, with parse-deps.sh's two passes:
 *
 * 1. Sections.  A line starting "#" or "##", optional spaces, then
 *    "Dependencies", "Depends on" or "Blocked by" (any case) opens a
 *    section; the next line starting "# " or "## " closes it.  Every #N on
 *    the lines in between counts.  As upstream, this pass does not know
 *    about fenced code, "###" subheadings stay inside the section, and #N
 *    on the heading line itself is not taken by this pass.
 * 2. Inline.  Outside fenced code (a line starting with three backticks
 *    toggles it), every #N on a line containing "depends on" or "blocked
 *    by" (any case) counts, in any section: a "## Related" section is not
 *    a dependency section, but an inline "depends on #N" inside it still
 *    counts, as upstream.
 *
 * #N is '#' followed by ASCII digits anywhere ("#12abc" gives 12, "a#5"
 * gives 5).  Unlike upstream, #0 and numbers above VALID_NUMBER_MAX
 * (2^53-1, the largest the forge's JSON holds exactly) are ignored:
 * neither can name an issue.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deps.h"
#include "valid.h"
#include "xmalloc.h"

struct numset {
	long long *v;
	size_t n;
	size_t cap;
};

static int deps_section_opens(const char *, size_t);
static int deps_heading(const char *, size_t);
static int deps_has_word(const char *, size_t, const char *);
static void deps_add_refs(struct numset *, const char *, size_t);
static void deps_add_num(struct numset *, long long);
static int deps_cmp_ll(const void *, const void *);
static void deps_finish(struct numset *, long long);

/* Does the line open a dependency section? */
static int
deps_section_opens(const char *s, size_t len)
{
	static const char *const kw[] = {"depends on", "blocked by",
	    "dependencies"};
	size_t i = 0, k;

	if (len == 0 || s[0] != '#')
		return 0;
	i = len > 1 && s[1] == '#' ? 2 : 1;
	while (i < len && s[i] == ' ')
		i++;
	for (k = 0; k < sizeof(kw) / sizeof(kw[0]); k++)
		if (len - i >= strlen(kw[k]) &&
		    strncasecmp(s + i, kw[k], strlen(kw[k])) == 0)
			return 1;
	return 0;
}

/* Does the line start with "# " or "## " (closing a section)? */
static int
deps_heading(const char *s, size_t len)
{
	if (len >= 2 && s[0] == '#' && s[1] == ' ')
		return 1;
	return len >= 3 && s[0] == '#' && s[1] == '#' && s[2] == ' ';
}

/* Does the line contain word, ignoring case? */
static int
deps_has_word(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word), i;

	for (i = 0; i + wl <= len; i++)
		if (strncasecmp(s + i, word, wl) == 0)
			return 1;
	return 0;
}

/* Add every #N of the line. */
static void
deps_add_refs(struct numset *set, const char *s, size_t len)
{
	size_t i = 0, start;
	long long v;

	while (i < len) {
		if (s[i++] != '#')
			continue;
		start = i;
		v = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (v <= VALID_NUMBER_MAX)
				v = v * 10 + (s[i] - '0');
			i++;
		}
		if (i > start && v > 0 && v <= VALID_NUMBER_MAX)
			deps_add_num(set, v);
	}
}

static void
deps_add_num(struct numset *set, long long v)
{
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 8;
		set->v = xreallocarray(set->v, set->cap, sizeof(*set->v));
	}
	set->v[set->n++] = v;
}

static int
deps_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Sort, drop duplicates and self. */
static void
deps_finish(struct numset *set, long long self)
{
	size_t i, k = 0;

	if (set->n == 0)
		return;
	qsort(set->v, set->n, sizeof(*set->v), deps_cmp_ll);
	for (i = 0; i < set->n; i++) {
		if (set->v[i] == self || (k > 0 && set->v[k - 1] == set->v[i]))
			continue;
		set->v[k++] = set->v[i];
	}
	set->n = k;
	if (k == 0) {
		free(set->v);
		set->v = NULL;
	}
}

int
deps_parse(const char *body, long long self, long long **out, size_t *n)
{
	struct numset set = {NULL, 0, 0};
	const char *line = body, *eol;
	int capture = 0, incode = 0;
	size_t len;

	while (line != NULL && *line != '\0') {
		eol = strchr(line, '\n');
		len = eol != NULL ? (size_t)(eol - line) : strlen(line);
		if (deps_section_opens(line, len))
			capture = 1;
		else if (capture && deps_heading(line, len))
			capture = 0;
		else if (capture)
			deps_add_refs(&set, line, len);
		if (len >= 3 && strncmp(line, "```", 3) == 0)
			incode = !incode;
		else if (!incode &&
		    (deps_has_word(line, len, "depends on") ||
			deps_has_word(line, len, "blocked by")))
			deps_add_refs(&set, line, len);
		line = eol != NULL ? eol + 1 : NULL;
	}
	deps_finish(&set, self);
	*out = set.v;
	*n = set.n;
	return 0;
}
