/*
 * The project-file TOML subset, parsed by inih with a line reader that
 * counts lines, left-strips them (inih would take an indented line as a
 * continuation), rejects what inih would silently accept, and hides ';'
 * inside quoted strings from inih's inline-comment rule.  A value decoder
 * then turns inih's raw value text into a typed value.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "buf.h"
#include "file.h"
#include "toml.h"
#include "xmalloc.h"

/* inih's inline comment prefix ';' is replaced by this inside strings. */
#define HIDDEN_SEMICOLON '\x1f'
/* Largest project file read. */
#define TOML_MAX_FILE (256 * 1024)

struct reader {
	const char *next; /* the rest of the text */
	int lineno;	  /* the line last handed to inih */
	char msg[256];	  /* the first problem found */
	int msg_line;
	toml_cb *cb;
	void *arg;
};

static char *read_line(char *, int, void *);
static int handle(void *, const char *, const char *, const char *);
static void fail(struct reader *, const char *);
static int check_line(const char *, size_t, const char **);
static void hide_semicolons(char *);
static void unhide(char *);
static const char *skip_ws(const char *);
static int trailing_ok(const char *, char *, size_t);
static int decode_basic(const char **, char **, char *, size_t);
static int decode_literal(const char **, char **, char *, size_t);
static int decode_string(const char **, char **, char *, size_t);
static int decode_array(const char *, struct toml_value *, char *, size_t);
static int decode_int(const char *, long long *);
static void put_utf8(struct buf *, unsigned long);

static void
fail(struct reader *r, const char *msg)
{
	if (r->msg[0] != '\0')
		return;
	snprintf(r->msg, sizeof(r->msg), "%s", msg);
	r->msg_line = r->lineno;
}

/*
 * Reject what inih would take but the subset does not allow.  Returns 0
 * or -1 with *why set.
 */
static int
check_line(const char *line, size_t len, const char **why)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == '\0' ||
		    (c < 0x20 && c != '\t' && c != '\r' && c != '\n')) {
			*why = "control character in line";
			return -1;
		}
	}
	if (len == 0 || line[0] == '#' || line[0] == ';' || line[0] == '[' ||
	    line[0] == '\n' || line[0] == '\r')
		return 0;
	for (i = 0; i < len; i++) {
		if (line[i] == '=')
			return 0;
		if (line[i] == ':') {
			*why = "expected '=' after the key";
			return -1;
		}
	}
	return 0;
}

/* Replace ';' inside quoted strings so inih does not cut the value. */
static void
hide_semicolons(char *s)
{
	char quote = '\0';

	for (; *s != '\0'; s++) {
		if (quote == '"' && *s == '\\' && s[1] != '\0') {
			s++;
			continue;
		}
		if (quote == '\0' && (*s == '"' || *s == '\''))
			quote = *s;
		else if (quote != '\0' && *s == quote)
			quote = '\0';
		else if (quote == '\0' && *s == '#')
			return;
		else if (quote != '\0' && *s == ';')
			*s = HIDDEN_SEMICOLON;
	}
}

static void
unhide(char *s)
{
	for (; *s != '\0'; s++)
		if (*s == HIDDEN_SEMICOLON)
			*s = ';';
}

/* The ini_reader: one left-stripped line per call, at most num-1 bytes. */
static char *
read_line(char *str, int num, void *stream)
{
	struct reader *r = stream;
	const char *p = r->next, *end, *why;
	size_t len;

	if (p == NULL || *p == '\0' || r->msg[0] != '\0')
		return NULL;
	end = strchr(p, '\n');
	len = end ? (size_t)(end - p) + 1 : strlen(p);
	r->next = p + len;
	r->lineno++;
	if (len + 1 > (size_t)num) {
		fail(r, "line too long (inih reads at most 199 bytes)");
		return NULL;
	}
	if (check_line(p, len, &why) == -1) {
		fail(r, why);
		return NULL;
	}
	while (len > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	memcpy(str, p, len);
	str[len] = '\0';
	hide_semicolons(str);
	return str;
}

static int
handle(void *arg, const char *section, const char *name, const char *value)
{
	struct reader *r = arg;
	struct toml_value v;
	char err[200], *raw, *key;
	int rc = 1;

	if (r->msg[0] != '\0')
		return 0;
	raw = xstrdup(value);
	key = xstrdup(name);
	err[0] = '\0';
	if (toml_decode(raw, &v, err, sizeof(err)) == -1) {
		fail(r, err);
		rc = 0;
		goto out;
	}
	unhide(key);
	if (r->cb(r->arg, section, key, &v, r->lineno, err, sizeof(err)) ==
	    -1) {
		fail(r, err[0] ? err : "invalid value");
		rc = 0;
	}
	toml_value_free(&v);
out:
	free(raw);
	free(key);
	return rc;
}

int
toml_parse_string(const char *name, const char *text, toml_cb *cb, void *arg,
    char *err, size_t errsz)
{
	struct reader r;
	int line;

	memset(&r, 0, sizeof(r));
	r.next = text;
	r.cb = cb;
	r.arg = arg;
	line = ini_parse_stream(read_line, &r, handle, &r);
	if (r.msg[0] != '\0') {
		snprintf(err, errsz, "%s:%d: %s", name, r.msg_line, r.msg);
		return -1;
	}
	if (line != 0) {
		snprintf(err, errsz, "%s:%d: %s", name, line,
		    line > 0 ? "expected '[section]' or 'key = value'" :
			       "cannot parse");
		return -1;
	}
	return 0;
}

int
toml_parse_file(const char *path, toml_cb *cb, void *arg, char *err,
    size_t errsz)
{
	struct buf text;
	int r;

	buf_init(&text, 0);
	r = file_read(path, TOML_MAX_FILE, &text);
	if (r == -1) {
		snprintf(err, errsz, "%s: cannot read: %s", path,
		    strerror(errno));
		buf_free(&text);
		return -1;
	}
	if (r == 1) {
		snprintf(err, errsz, "%s: file too large", path);
		buf_free(&text);
		return -1;
	}
	r = toml_parse_string(path, buf_str(&text), cb, arg, err, errsz);
	buf_free(&text);
	return r;
}

static const char *
skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

/* After a value only white space or a '#' comment may follow. */
static int
trailing_ok(const char *s, char *err, size_t errsz)
{
	s = skip_ws(s);
	if (*s == '\0' || *s == '#')
		return 0;
	snprintf(err, errsz, "unexpected text after the value: '%.20s'", s);
	return -1;
}

static void
put_utf8(struct buf *b, unsigned long cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_append(b, u, n);
}

/* A "basic string" starting at *sp (on the quote); *sp ends past it. */
static int
decode_basic(const char **sp, char **out, char *err, size_t errsz)
{
	const char *s = *sp + 1;
	struct buf b;

	buf_init(&b, 0);
	for (; *s != '"'; s++) {
		char c = *s;

		if (c == '\0') {
			snprintf(err, errsz, "unterminated string");
			goto bad;
		}
		if (c == HIDDEN_SEMICOLON)
			c = ';';
		if (c != '\\') {
			buf_append(&b, &c, 1);
			continue;
		}
		switch (*++s) {
		case '"':
		case '\\':
			buf_append(&b, s, 1);
			break;
		case 'n':
			buf_puts(&b, "\n");
			break;
		case 't':
			buf_puts(&b, "\t");
			break;
		case 'r':
			buf_puts(&b, "\r");
			break;
		case 'b':
			buf_puts(&b, "\b");
			break;
		case 'f':
			buf_puts(&b, "\f");
			break;
		case 'u':
		case 'U': {
			int i, n = *s == 'u' ? 4 : 8;
			unsigned long cp = 0;

			for (i = 1; i <= n; i++) {
				if (!isxdigit((unsigned char)s[i])) {
					snprintf(err, errsz, "bad \\%c escape",
					    *s);
					goto bad;
				}
				cp = cp * 16 +
				    (unsigned long)(isdigit(
							(unsigned char)s[i]) ?
					    s[i] - '0' :
					    (tolower((unsigned char)s[i]) -
						'a' + 10));
			}
			if (cp == 0 || cp > 0x10ffff ||
			    (cp >= 0xd800 && cp <= 0xdfff)) {
				snprintf(err, errsz,
				    "bad code point in escape");
				goto bad;
			}
			put_utf8(&b, cp);
			s += n;
			break;
		}
		default:
			snprintf(err, errsz, "unknown escape '\\%c'",
			    *s ? *s : '0');
			goto bad;
		}
	}
	*sp = s + 1;
	*out = buf_steal(&b);
	return 0;
bad:
	buf_free(&b);
	return -1;
}

/* A 'literal string': no escapes. */
static int
decode_literal(const char **sp, char **out, char *err, size_t errsz)
{
	const char *s = *sp + 1, *end = strchr(s, '\'');

	if (end == NULL) {
		snprintf(err, errsz, "unterminated string");
		return -1;
	}
	*out = xstrndup(s, (size_t)(end - s));
	unhide(*out);
	*sp = end + 1;
	return 0;
}

static int
decode_string(const char **sp, char **out, char *err, size_t errsz)
{
	if (strncmp(*sp, "\"\"\"", 3) == 0 || strncmp(*sp, "'''", 3) == 0) {
		snprintf(err, errsz, "multi-line strings are not supported");
		return -1;
	}
	if (**sp == '"')
		return decode_basic(sp, out, err, errsz);
	return decode_literal(sp, out, err, errsz);
}

static int
decode_array(const char *s, struct toml_value *v, char *err, size_t errsz)
{
	s = skip_ws(s + 1);
	while (*s != ']') {
		char *item;

		if (*s == '\0' || *s == '#') {
			snprintf(err, errsz,
			    "multi-line arrays are not supported");
			return -1;
		}
		if (*s != '"' && *s != '\'') {
			snprintf(err, errsz,
			    "expected a quoted string in the array");
			return -1;
		}
		if (decode_string(&s, &item, err, errsz) == -1)
			return -1;
		v->items =
		    xreallocarray(v->items, v->nitems + 1, sizeof(*v->items));
		v->items[v->nitems++] = item;
		s = skip_ws(s);
		if (*s == ',')
			s = skip_ws(s + 1);
		else if (*s != ']' && *s != '\0') {
			snprintf(err, errsz,
			    "expected ',' or ']' in the array");
			return -1;
		}
	}
	return trailing_ok(s + 1, err, errsz);
}

/* Decimal integer with optional sign and '_' between digits. */
static int
decode_int(const char *s, long long *out)
{
	char digits[32];
	size_t n = 0;
	char *end;

	if (*s == '+' || *s == '-')
		digits[n++] = *s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; *s != '\0' && *s != '#' && *s != ' ' && *s != '\t'; s++) {
		if (*s == '_' && isdigit((unsigned char)s[1]) && n > 0 &&
		    isdigit((unsigned char)digits[n - 1]))
			continue;
		if (!isdigit((unsigned char)*s) || n >= sizeof(digits) - 1)
			return -1;
		digits[n++] = *s;
	}
	digits[n] = '\0';
	errno = 0;
	*out = strtoll(digits, &end, 10);
	if (errno == ERANGE || *end != '\0')
		return -1;
	return trailing_ok(s, NULL, 0) == 0 ? 0 : -1;
}

int
toml_decode(const char *raw, struct toml_value *v, char *err, size_t errsz)
{
	const char *s = skip_ws(raw);
	char dummy[1];

	memset(v, 0, sizeof(*v));
	if (err == NULL) {
		err = dummy;
		errsz = sizeof(dummy);
	}
	if (*s == '"' || *s == '\'') {
		v->type = TOML_STRING;
		if (decode_string(&s, &v->str, err, errsz) == -1)
			goto bad;
		if (trailing_ok(s, err, errsz) == -1)
			goto bad;
		return 0;
	}
	if (*s == '[') {
		v->type = TOML_ARRAY;
		if (decode_array(s, v, err, errsz) == -1)
			goto bad;
		return 0;
	}
	if (*s == '{') {
		snprintf(err, errsz, "inline tables are not supported");
		return -1;
	}
	if ((strncmp(s, "true", 4) == 0 || strncmp(s, "false", 5) == 0)) {
		int t = s[0] == 't';

		v->type = TOML_BOOL;
		v->num = t;
		if (trailing_ok(s + (t ? 4 : 5), err, errsz) == -1)
			goto bad;
		return 0;
	}
	v->type = TOML_INT;
	if (decode_int(s, &v->num) == 0)
		return 0;
	snprintf(err, errsz,
	    "expected a quoted string, an integer, true, "
	    "false or a one-line [array]");
bad:
	toml_value_free(v);
	return -1;
}

void
toml_value_free(struct toml_value *v)
{
	size_t i;

	free(v->str);
	for (i = 0; i < v->nitems; i++)
		free(v->items[i]);
	free(v->items);
	memset(v, 0, sizeof(*v));
}
