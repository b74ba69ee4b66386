/*
 * Prometheus text exposition format: collecting, rendering, reading back
 * and writing a tick's metrics.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "prom.h"
#include "xmalloc.h"

#define PROM_MAX_NAME 128
#define PROM_MAX_HELP 1024
#define PROM_MAX_LABELS 16
#define PROM_MAX_LABEL_NAME 64
#define PROM_MAX_VALUE 512
#define PROM_MAX_FAMILIES 256
#define PROM_MAX_SERIES 4096
#define PROM_LOAD_MAX (4 << 20)

struct prom_series {
	char **labels; /* 2 * nlabels strings: name, value; sorted by name */
	size_t nlabels;
	double value;
};

struct prom_family {
	char *name;
	char *help;
	enum prom_type type;
	int keep; /* read back by prom_load() */
	struct prom_series *series;
	size_t nseries, cap;
};

struct prom {
	char *tool;
	char *project; /* NULL: none */
	struct prom_family *fams;
	size_t nfams;
	char err[256];
};

/* Label values read back: at most this many pairs per line. */
struct prom_parsed {
	char *labels[2 * PROM_MAX_LABELS + 1]; /* NULL-ended */
	size_t n;
};

static int prom_fail(struct prom *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int prom_file_name_ok(const char *);
static int prom_word_in(const char *, size_t, const char *const *);
static int prom_name_ok(struct prom *, const char *, enum prom_type);
static int prom_label_name_ok(const struct prom *, const char *);
static size_t prom_utf8_char(const unsigned char *, size_t);
static int prom_text_ok(const char *, size_t);
static struct prom_family *prom_family(const struct prom *, const char *);
static void prom_labels_free(char **, size_t);
static int prom_labels_copy(struct prom *, const char *const *, char ***,
    size_t *);
static void prom_labels_sort(char **, size_t);
static int prom_labels_equal(char **, size_t, char **, size_t);
static struct prom_series *prom_series(struct prom *, struct prom_family *,
    const char *const *);
static int prom_value_ok(struct prom *, const struct prom_family *, double);
static void prom_value_fmt(double, char *, size_t);
static void prom_escape(struct buf *, const char *, int);
static void prom_render_family(struct buf *, const struct prom *,
    const struct prom_family *);
static const char *prom_parse_name(const char *, const char *, char *, size_t);
static const char *prom_parse_quoted(const char *, const char *, struct buf *);
static const char *prom_parse_labels(const char *, const char *,
    struct prom_parsed *);
static int prom_parse_value(const char *, const char *, double *);
static void prom_load_line(struct prom *, const char *, const char *, size_t *);

/* Units that are not base units, and abbreviations, as words of a name. */
static const char *const prom_bad_units[] = {"milliseconds", "microseconds",
    "nanoseconds", "minutes", "hours", "days", "weeks", "months", "years",
    "kilobytes", "megabytes", "gigabytes", "terabytes", "kib", "mib", "gib",
    "percent", "ms", "us", "ns", "s", "sec", "secs", "min", "mins", "h", "hr",
    "hrs", "d", "b", "kb", "mb", "gb", "tb", NULL};
/* Type names have no place in a metric's name. */
static const char *const prom_type_words[] = {"gauge", "counter", NULL};

static int
prom_fail(struct prom *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int
prom_file_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PROM_MAX_NAME || s[0] == '.')
		return 0;
	return strspn(s,
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789._-") == n;
}

struct prom *
prom_new(const char *tool, const char *project)
{
	struct prom *p;

	if (tool == NULL || !prom_file_name_ok(tool) ||
	    (project != NULL && !prom_file_name_ok(project)))
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->tool = xstrdup(tool);
	p->project = project != NULL ? xstrdup(project) : NULL;
	return p;
}

void
prom_free(struct prom *p)
{
	size_t i, j;

	if (p == NULL)
		return;
	for (i = 0; i < p->nfams; i++) {
		struct prom_family *f = &p->fams[i];

		for (j = 0; j < f->nseries; j++)
			prom_labels_free(f->series[j].labels,
			    f->series[j].nlabels);
		free(f->series);
		free(f->name);
		free(f->help);
	}
	free(p->fams);
	free(p->tool);
	free(p->project);
	free(p);
}

const char *
prom_error(const struct prom *p)
{
	return p->err;
}

/* Whether one of the '_'-separated words of name[0..len) is in words. */
static int
prom_word_in(const char *name, size_t len, const char *const *words)
{
	const char *w = name, *end = name + len;

	while (w < end) {
		const char *e = memchr(w, '_', (size_t)(end - w));
		size_t i, n;

		if (e == NULL)
			e = end;
		n = (size_t)(e - w);
		for (i = 0; words[i] != NULL; i++)
			if (strlen(words[i]) == n &&
			    memcmp(w, words[i], n) == 0)
				return 1;
		w = e + 1;
	}
	return 0;
}

static int
prom_name_ok(struct prom *p, const char *name, enum prom_type type)
{
	size_t n = strlen(name), total = strlen("_total");
	int is_total = n > total && strcmp(name + n - total, "_total") == 0;

	if (n == 0 || n > PROM_MAX_NAME || (name[0] >= '0' && name[0] <= '9') ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return prom_fail(p,
		    "metric name '%.*s' is not lower-case snake_case",
		    PROM_MAX_NAME, name);
	if (type == PROM_COUNTER && !is_total)
		return prom_fail(p, "counter '%s' does not end in _total",
		    name);
	if (type == PROM_GAUGE && is_total)
		return prom_fail(p, "gauge '%s' ends in _total", name);
	if (prom_word_in(name, is_total ? n - total : n, prom_bad_units))
		return prom_fail(p, "metric name '%s' is not in base units",
		    name);
	if (prom_word_in(name, n, prom_type_words))
		return prom_fail(p, "metric name '%s' names its type", name);
	return 0;
}

static int
prom_label_name_ok(const struct prom *p, const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > PROM_MAX_LABEL_NAME ||
	    (name[0] >= '0' && name[0] <= '9') ||
	    strspn(name,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789_") != n ||
	    strncmp(name, "__", 2) == 0)
		return 0;
	if (strcmp(name, "le") == 0 || strcmp(name, "quantile") == 0 ||
	    strcmp(name, "tool") == 0)
		return 0;
	return p->project == NULL || strcmp(name, "project") != 0;
}

/*
 * The length of the UTF-8 sequence at s (at most n bytes), or 0 when it is
 * not valid: overlong forms, surrogates and code points past U+10FFFF are
 * refused.
 */
static size_t
prom_utf8_char(const unsigned char *s, size_t n)
{
	unsigned long c;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

/* Valid UTF-8 without control characters other than newline and tab. */
static int
prom_text_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t k = prom_utf8_char(u + i, n - i);

		if (k == 0 ||
		    (k == 1 &&
			((u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') ||
			    u[i] == 0x7f)))
			return 0;
		i += k;
	}
	return 1;
}

static struct prom_family *
prom_family(const struct prom *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nfams; i++)
		if (strcmp(p->fams[i].name, name) == 0)
			return &p->fams[i];
	return NULL;
}

int
prom_declare(struct prom *p, const char *name, enum prom_type type,
    const char *help)
{
	struct prom_family *f;
	size_t hn = help != NULL ? strlen(help) : 0;

	if (type != PROM_GAUGE && type != PROM_COUNTER)
		return prom_fail(p, "metric '%.*s': unknown type",
		    PROM_MAX_NAME, name);
	if (prom_name_ok(p, name, type) == -1)
		return -1;
	if (hn == 0 || hn > PROM_MAX_HELP || !prom_text_ok(help, hn))
		return prom_fail(p,
		    "metric '%s': help must be 1 to %d bytes "
		    "of printable UTF-8",
		    name, PROM_MAX_HELP);
	if ((f = prom_family(p, name)) != NULL) {
		if (f->type != type || strcmp(f->help, help) != 0)
			return prom_fail(p,
			    "metric '%s' declared twice, "
			    "differently",
			    name);
		return 0;
	}
	if (p->nfams >= PROM_MAX_FAMILIES)
		return prom_fail(p, "metric '%s': too many metrics", name);
	p->fams = xreallocarray(p->fams, p->nfams + 1, sizeof(*p->fams));
	f = &p->fams[p->nfams++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->help = xstrdup(help);
	f->type = type;
	f->keep = type == PROM_COUNTER;
	return 0;
}

int
prom_keep(struct prom *p, const char *name)
{
	struct prom_family *f = prom_family(p, name);

	if (f == NULL)
		return prom_fail(p, "metric '%.*s' is not declared",
		    PROM_MAX_NAME, name);
	f->keep = 1;
	return 0;
}

static void
prom_labels_free(char **labels, size_t n)
{
	size_t i;

	if (labels == NULL)
		return;
	for (i = 0; i < 2 * n; i++)
		free(labels[i]);
	free(labels);
}

/* Insertion sort of the pairs by label name (there are few). */
static void
prom_labels_sort(char **l, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		char *k = l[2 * i], *v = l[2 * i + 1];

		for (j = i; j > 0 && strcmp(l[2 * (j - 1)], k) > 0; j--) {
			l[2 * j] = l[2 * (j - 1)];
			l[2 * j + 1] = l[2 * (j - 1) + 1];
		}
		l[2 * j] = k;
		l[2 * j + 1] = v;
	}
}

/*
 * Check labels and copy them into *out (sorted; free with
 * prom_labels_free()), their number of pairs in *n.
 */
static int
prom_labels_copy(struct prom *p, const char *const *labels, char ***out,
    size_t *n)
{
	size_t i, k = 0;
	char **l;

	*out = NULL;
	*n = 0;
	while (labels != NULL && labels[k] != NULL)
		k++;
	if (k % 2 != 0 || k / 2 > PROM_MAX_LABELS)
		return prom_fail(p,
		    "labels must be at most %d name, value "
		    "pairs",
		    PROM_MAX_LABELS);
	for (i = 0; i < k; i += 2) {
		size_t vn = strlen(labels[i + 1]);

		if (!prom_label_name_ok(p, labels[i]))
			return prom_fail(p, "label name '%.*s' is not allowed",
			    PROM_MAX_LABEL_NAME, labels[i]);
		if (vn > PROM_MAX_VALUE || !prom_text_ok(labels[i + 1], vn))
			return prom_fail(p,
			    "label '%s': value is not %d bytes "
			    "of printable UTF-8 at most",
			    labels[i], PROM_MAX_VALUE);
	}
	l = xcalloc(k + 1, sizeof(*l));
	for (i = 0; i < k; i++)
		l[i] = xstrdup(labels[i]);
	prom_labels_sort(l, k / 2);
	for (i = 1; i < k / 2; i++)
		if (strcmp(l[2 * i], l[2 * (i - 1)]) == 0) {
			prom_fail(p, "label '%s' given twice", l[2 * i]);
			prom_labels_free(l, k / 2);
			return -1;
		}
	*out = l;
	*n = k / 2;
	return 0;
}

static int
prom_labels_equal(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < 2 * na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/* The series of f with labels, made (at 0) when new; NULL on an error. */
static struct prom_series *
prom_series(struct prom *p, struct prom_family *f, const char *const *labels)
{
	struct prom_series *s;
	char **l;
	size_t i, n;

	if (prom_labels_copy(p, labels, &l, &n) == -1)
		return NULL;
	for (i = 0; i < f->nseries; i++)
		if (prom_labels_equal(f->series[i].labels, f->series[i].nlabels,
			l, n)) {
			prom_labels_free(l, n);
			return &f->series[i];
		}
	if (f->nseries >= PROM_MAX_SERIES) {
		prom_labels_free(l, n);
		prom_fail(p, "metric '%s': too many series", f->name);
		return NULL;
	}
	if (f->nseries == f->cap) {
		f->cap = f->cap != 0 ? 2 * f->cap : 8;
		f->series = xreallocarray(f->series, f->cap, sizeof(*s));
	}
	s = &f->series[f->nseries++];
	s->labels = l;
	s->nlabels = n;
	s->value = 0;
	return s;
}

static int
prom_value_ok(struct prom *p, const struct prom_family *f, double v)
{
	if (f->type == PROM_COUNTER && (isnan(v) || isinf(v) || v < 0))
		return prom_fail(p, "counter '%s': %g is not a count", f->name,
		    v);
	return 0;
}

int
prom_set(struct prom *p, const char *name, const char *const *labels,
    double value)
{
	struct prom_family *f = prom_family(p, name);
	struct prom_series *s;

	if (f == NULL)
		return prom_fail(p, "metric '%.*s' is not declared",
		    PROM_MAX_NAME, name);
	if (prom_value_ok(p, f, value) == -1 ||
	    (s = prom_series(p, f, labels)) == NULL)
		return -1;
	s->value = value;
	return 0;
}

int
prom_add(struct prom *p, const char *name, const char *const *labels,
    double delta)
{
	struct prom_family *f = prom_family(p, name);
	struct prom_series *s;

	if (f == NULL)
		return prom_fail(p, "metric '%.*s' is not declared",
		    PROM_MAX_NAME, name);
	if (prom_value_ok(p, f, delta) == -1 ||
	    (s = prom_series(p, f, labels)) == NULL)
		return -1;
	if (prom_value_ok(p, f, s->value + delta) == -1)
		return -1;
	s->value += delta;
	return 0;
}

/*
 * A value as Go's strconv.ParseFloat reads it back: NaN, +Inf, -Inf,
 * integers without an exponent, else the shortest %g that round-trips.
 */
static void
prom_value_fmt(double v, char *out, size_t sz)
{
	int prec;

	if (isnan(v)) {
		snprintf(out, sz, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, sz, "%sInf", v > 0 ? "+" : "-");
		return;
	}
	if (v > -1e15 && v < 1e15 && v == (double)(long long)v) {
		snprintf(out, sz, "%lld", (long long)v);
		return;
	}
	for (prec = 1; prec < 17; prec++) {
		snprintf(out, sz, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
	snprintf(out, sz, "%.17g", v);
}

/* Append s escaped: backslash and newline, and with quote the '"' too. */
static void
prom_escape(struct buf *b, const char *s, int quote)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			buf_puts(b, "\\\\");
		else if (*s == '\n')
			buf_puts(b, "\\n");
		else if (quote && *s == '"')
			buf_puts(b, "\\\"");
		else
			buf_append(b, s, 1);
	}
}

static void
prom_render_family(struct buf *b, const struct prom *p,
    const struct prom_family *f)
{
	char num[64];
	size_t i, j;

	buf_printf(b, "# HELP %s ", f->name);
	prom_escape(b, f->help, 0);
	buf_printf(b, "\n# TYPE %s %s\n", f->name,
	    f->type == PROM_COUNTER ? "counter" : "gauge");
	for (i = 0; i < f->nseries; i++) {
		const struct prom_series *s = &f->series[i];

		buf_printf(b, "%s{tool=\"%s\"", f->name, p->tool);
		if (p->project != NULL)
			buf_printf(b, ",project=\"%s\"", p->project);
		for (j = 0; j < s->nlabels; j++) {
			buf_printf(b, ",%s=\"", s->labels[2 * j]);
			prom_escape(b, s->labels[2 * j + 1], 1);
			buf_puts(b, "\"");
		}
		prom_value_fmt(s->value, num, sizeof(num));
		buf_printf(b, "} %s\n", num);
	}
}

char *
prom_render(const struct prom *p)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; i < p->nfams; i++)
		if (p->fams[i].nseries > 0)
			prom_render_family(&b, p, &p->fams[i]);
	return buf_steal(&b);
}

char *
prom_path(const struct prom *p, const char *dir)
{
	if (p->project != NULL)
		return xasprintf("%s/%s-%s.prom", dir, p->tool, p->project);
	return xasprintf("%s/%s.prom", dir, p->tool);
}

/*
 * Parse a metric or label name at s (before end) into out; returns the
 * byte after it, or NULL when there is none or it does not fit.
 */
static const char *
prom_parse_name(const char *s, const char *end, char *out, size_t outsz)
{
	size_t n = 0;

	while (s + n < end &&
	    ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		s[n] == '_' || s[n] == ':' ||
		(n > 0 && s[n] >= '0' && s[n] <= '9')))
		n++;
	if (n == 0 || n >= outsz)
		return NULL;
	memcpy(out, s, n);
	out[n] = '\0';
	return s + n;
}

/* Parse a quoted label value at s into out; the byte after the quote. */
static const char *
prom_parse_quoted(const char *s, const char *end, struct buf *out)
{
	if (s >= end || *s++ != '"')
		return NULL;
	while (s < end && *s != '"') {
		char c = *s++;

		if (c == '\\') {
			if (s >= end)
				return NULL;
			c = *s++;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return NULL;
		}
		if (buf_append(out, &c, 1) == -1)
			return NULL;
	}
	return s < end ? s + 1 : NULL;
}

/*
 * Parse "{name="value",...}" at s into out (the tool and project labels
 * left out); the byte after the brace, or NULL when malformed.
 */
static const char *
prom_parse_labels(const char *s, const char *end, struct prom_parsed *out)
{
	char name[PROM_MAX_LABEL_NAME + 1];
	struct buf v;

	s++;
	while (s < end && *s != '}') {
		buf_init(&v, PROM_MAX_VALUE);
		if ((s = prom_parse_name(s, end, name, sizeof(name))) == NULL ||
		    s >= end || *s++ != '=' ||
		    (s = prom_parse_quoted(s, end, &v)) == NULL) {
			buf_free(&v);
			return NULL;
		}
		if (strcmp(name, "tool") == 0 || strcmp(name, "project") == 0)
			buf_free(&v);
		else if (out->n < 2 * PROM_MAX_LABELS) {
			out->labels[out->n++] = xstrdup(name);
			out->labels[out->n++] = buf_steal(&v);
		} else {
			buf_free(&v);
			return NULL;
		}
		if (s < end && *s == ',')
			s++;
		else if (s >= end || *s != '}')
			return NULL;
	}
	return s < end ? s + 1 : NULL;
}

/* A sample value: a decimal number, NaN, or [+-]Inf; 0, else -1. */
static int
prom_parse_value(const char *s, const char *end, double *v)
{
	char tmp[64], *e;
	size_t n = (size_t)(end - s);

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (strcmp(tmp, "NaN") == 0 || strcmp(tmp, "+Inf") == 0 ||
	    strcmp(tmp, "-Inf") == 0 || strcmp(tmp, "Inf") == 0) {
		*v = tmp[0] == 'N' ? NAN : tmp[0] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	if (strspn(tmp, "0123456789+-.eE") != n)
		return -1;
	errno = 0;
	*v = strtod(tmp, &e);
	return *e == '\0' && errno == 0 ? 0 : -1;
}

/* One line of prom_load_text(); *n counts the series read. */
static void
prom_load_line(struct prom *p, const char *s, const char *end, size_t *n)
{
	char name[PROM_MAX_NAME + 1];
	struct prom_parsed pl = {{NULL}, 0};
	struct prom_family *f;
	const char *v;
	double value;
	size_t i;

	if ((s = prom_parse_name(s, end, name, sizeof(name))) == NULL ||
	    (f = prom_family(p, name)) == NULL || !f->keep)
		return;
	if (s < end && *s == '{' &&
	    (s = prom_parse_labels(s, end, &pl)) == NULL)
		goto out;
	if (s >= end || (*s != ' ' && *s != '\t'))
		goto out;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	for (v = s; s < end && *s != ' ' && *s != '\t'; s++)
		;
	if (prom_parse_value(v, s, &value) == -1)
		goto out;
	pl.labels[pl.n] = NULL;
	if (prom_set(p, name, (const char *const *)pl.labels, value) == 0)
		(*n)++;
out:
	for (i = 0; i < pl.n; i++)
		free(pl.labels[i]);
}

size_t
prom_load_text(struct prom *p, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	size_t n = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (nl == NULL)
			nl = end;
		if (nl > s && *s != '#')
			prom_load_line(p, s, nl, &n);
		s = nl + 1;
	}
	return n;
}

int
prom_load(struct prom *p, const char *dir)
{
	char *path = prom_path(p, dir);
	struct buf b;
	int r = -1, rr;

	buf_init(&b, 0);
	rr = file_read(path, PROM_LOAD_MAX, &b);
	if (rr == -1 && errno == ENOENT)
		r = 0;
	else if (rr == -1)
		prom_fail(p, "cannot read '%s': %s", path, strerror(errno));
	else if (rr == 1)
		prom_fail(p, "'%s' is larger than %d bytes", path,
		    PROM_LOAD_MAX);
	else {
		prom_load_text(p, buf_str(&b), b.len);
		r = 0;
	}
	buf_free(&b);
	free(path);
	return r;
}

int
prom_write(struct prom *p, const char *dir)
{
	char *path = prom_path(p, dir), *text = prom_render(p);
	int r = -1, saved;

	if (file_mkdirs(dir, 0755) == -1)
		prom_fail(p, "cannot make '%s': %s", dir, strerror(errno));
	else if (file_write_atomic(path, text, strlen(text), 0644, 0) == -1)
		prom_fail(p, "cannot write '%s': %s", path, strerror(errno));
	else
		r = 0;
	saved = errno;
	free(text);
	free(path);
	errno = saved;
	return r;
}
