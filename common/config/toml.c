/*
 * A TOML 1.0 reader that accepts and refuses what Python's tomllib does,
 * in two layers.
 *
 * Lines: inih (ini_parse_stream) reads the document line by line, finds
 * the [table] lines, splits "key = value" at the '=' and reports the
 * pieces to a handler.  Its reader callback, ini_read(), turns the TOML
 * text (after "\r\n" became "\n", as tomllib does first) into lines inih
 * reads correctly:
 *   - a line is left-stripped, so an indented key is not taken for the
 *     continuation of the previous value;
 *   - a value that spans lines (a multi-line array, string or inline
 *     table) is joined into one logical line;
 *   - bytes inih would misread are protected: every ';' (inih's comment),
 *     '\v' '\f' '\r' (which it strips), '=' and ':' inside a quoted key,
 *     ']' inside a quoted table name, a leading byte it would skip (a
 *     blank, '#', a byte-order mark) and a trailing blank.  A protected
 *     byte becomes TOML_ESC and the byte with its top bit flipped; 0xff
 *     never occurs in UTF-8, which is checked first;
 *   - a logical line longer than inih's buffer goes on as continuation
 *     lines (indented: inih calls the handler again with the same name);
 *   - inih reports no [table] line and keeps only the first 49 bytes of
 *     its name, so a carrier line "]=..." follows each one with the rest
 *     of it; a key that does not fit inih's line travels the same way.
 * The reader keeps a map from the lines it returns to the lines of the
 * file, for messages; it stops at the first error, and when inih refused
 * a line (no handler call came for it) the line is read again below to
 * say why.
 *
 * Grammar: the handler, ini_line(), joins the pieces back and reads them
 * by recursive descent.  Which keys and tables may be defined again
 * follows tomllib's two structures: the document tree (tables, arrays of
 * tables, values) and a tree of flags per key path (FROZEN: an inline
 * table or array, never changed again; EXPLICIT: a table opened by a
 * [header] or by dotted keys, never opened again).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "buf.h"
#include "file.h"
#include "toml.h"
#include "valid.h"
#include "xmalloc.h"

/* Largest project file read. */
#define TOML_MAX_FILE (256 * 1024)

/* Flags of a key path (tomllib's Flags). */
#define FL_FROZEN 1u
#define FL_EXPLICIT 2u

/* The first byte of a protected pair in the lines handed to inih. */
#define TOML_ESC 0xff
/* How much of a [section] name inih keeps (MAX_SECTION in its ini.c). */
#define TOML_SECTION_KEPT 49
/* The least line buffer the reader can work with. */
#define TOML_MIN_LINE 16

/*
 * Bytes inih would misread wherever they are (';' starts its comments, it
 * strips these blanks), in a key (it splits at '=' or ':') and in a table
 * name (it ends at ']'): each is protected where it could be misread.
 */
#define PROT_ANY ";\v\f\r"
#define PROT_KEY PROT_ANY "=:"
#define PROT_TABLE PROT_ANY "]"
/* How put() protects the edges of what it hands on. */
#define PUT_FIRST 1 /* a first byte inih would skip */
#define PUT_LAST 2  /* a last byte inih would strip */

/* A key as written: its parts, owned. */
struct key {
	char **part;
	size_t n;
};

/* The document tree (tomllib's NestedDict), only what the rules need. */
struct tnode {
	char *key;
	enum { TN_TABLE, TN_AOT, TN_VALUE } kind;
	struct tnode **kid;
	size_t nkid;
	struct tnode *last; /* TN_AOT: the element headers now add to */
};

struct tflag {
	char *key;
	unsigned flags, rflags; /* rflags hold for every key below too */
	struct tflag **kid;
	size_t nkid;
};

/* What a line handed to inih is. */
enum tl_kind {
	TL_BLANK,   /* inih skips it */
	TL_COMMENT, /* inih skips it */
	TL_BAD,	    /* inih refuses it: no '=', or no ']' */
	TL_HEADER,  /* "[name]": inih's section */
	TL_PAIR,    /* "key=value": a handler call */
	TL_REST,    /* "]=rest": the rest of the [header] line before */
	TL_WHOLE,   /* "]=key = value": a key too long for inih's line */
	TL_MORE	    /* " more": the continuation of one of the three */
};

/* One line handed to inih, and the logical line of the file it is from. */
struct tline {
	size_t start, end; /* the logical line, without its newline */
	int lineno;	   /* the file's line where it starts */
	enum tl_kind kind;
};

struct tp {
	/* The text the grammar reads now: a logical line, or the document. */
	const char *src;
	size_t len, pos;
	int base;    /* the file's line of src[0] */
	size_t lpos; /* line_at() cache: line lline starts at or before lpos */
	int lline;
	char msg[200];
	int msgline;
	struct tnode root;
	struct tflag flags;
	struct key *pend; /* EXPLICIT flags set at the next header */
	size_t npend;
	struct key header;
	int in_array;
	toml_cb *cb;
	void *arg;
	/* The reader's side: the document and the lines handed to inih. */
	const char *text;
	size_t tlen, tpos;
	int tlineno; /* the file's line at tpos */
	struct tline *lines;
	size_t nlines;
	struct tline cur;   /* the logical line being handed on */
	size_t rfrom, rto;  /* what is left of it */
	enum tl_kind rkind; /* what the next piece of it is */
	size_t kept;	    /* bytes of the last table name inih was given */
	int await;	    /* the last line is due at the handler */
	int stop, refused;  /* an error; inih refused the last line */
	/* The handler's side: the pieces of the logical line, joined. */
	enum tl_kind jkind;
	char *jname; /* the name inih gave the first piece */
	struct key jkey;
	struct buf joined;
};

static int line_at(struct tp *, size_t);
static int fail(struct tp *, size_t, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_line(struct tp *, int, const char *);
static int is_bare(int);
static int is_ctrl(int);
static int peek(const struct tp *);
static int starts(const struct tp *, const char *);
static void skip_ws(struct tp *);
static int skip_comment(struct tp *);
static int skip_array_ws(struct tp *);
static void key_push(struct key *, char *);
static void key_free(struct key *);
static const char **key_join(const struct key *, const struct key *, size_t,
    size_t *);
static void put_utf8(struct buf *, unsigned long);
static int parse_hex(struct tp *, int, struct buf *);
static int parse_escape(struct tp *, int, struct buf *);
static int parse_basic(struct tp *, int, char **);
static int parse_literal(struct tp *, int, char **);
static int parse_string(struct tp *, struct toml_value *);
static int parse_key_part(struct tp *, char **);
static int parse_key(struct tp *, struct key *);
static size_t digits(const char *, size_t, size_t, int);
static int digit_value(int);
static int all_digits(const char *, size_t);
static size_t special_float(const struct tp *);
static int two_digits(const char *, int);
static size_t match_time(const struct tp *, size_t);
static size_t match_datetime(const struct tp *, size_t, int *);
static size_t match_number(const struct tp *, int *);
static int parse_number(struct tp *, struct toml_value *);
static int parse_datetime(struct tp *, struct toml_value *);
static int parse_array(struct tp *, struct toml_value *);
static struct toml_value *member(struct toml_value *, const char *);
static struct toml_value *inline_nest(struct toml_value *, const struct key *);
static int inline_add(struct tp *, struct toml_value *, struct tflag *,
    struct key *, struct toml_value *);
static int parse_inline(struct tp *, struct toml_value *);
static int parse_value(struct tp *, struct toml_value *);
static int parse_pair(struct tp *, struct key *, struct toml_value *);
static struct tflag *flag_child(struct tflag *, const char *, int);
static int flag_is(struct tflag *, const char *const *, size_t, unsigned);
static void flag_set(struct tflag *, const char *const *, size_t, unsigned,
    int);
static void flag_unset_all(struct tflag *, const char *const *, size_t);
static void flag_free(struct tflag *);
static void pending_finalize(struct tp *);
static struct tnode *node_child(struct tnode *, const char *);
static struct tnode *node_add(struct tnode *, const char *, int);
static void node_free(struct tnode *);
static struct tnode *nest(struct tp *, const char *const *, size_t, int *);
static int emit(struct tp *, const char **, size_t, const struct toml_value *,
    int);
static int key_value_rule(struct tp *);
static int key_value_apply(struct tp *, struct key *, struct toml_value *, int);
static int header_rule(struct tp *);
static int array_header_rule(struct tp *);
static int statement(struct tp *);
static int line_end(struct tp *);
static size_t toml_utf8_bad(const unsigned char *, size_t);
static int check_bytes(struct tp *);
static void tp_source(struct tp *, const char *, size_t, int);
static int run_lines(struct tp *, const char *, size_t, int);
static size_t scan_to(const struct tp *, size_t, size_t, int);
static int triple(const struct tp *, size_t, char);
static size_t skip_string(const struct tp *, size_t);
static size_t scan_value(const struct tp *, size_t);
static size_t put(const struct tp *, char *, size_t *, size_t, size_t, size_t,
    const char *, int);
static void advance(struct tp *, size_t);
static enum tl_kind read_comment(struct tp *, char *, size_t, size_t *);
static enum tl_kind read_header(struct tp *, char *, size_t, size_t *);
static enum tl_kind read_pair(struct tp *, char *, size_t, size_t *);
static enum tl_kind read_line(struct tp *, char *, size_t, size_t *);
static enum tl_kind read_rest(struct tp *, char *, size_t, size_t *);
static char *ini_read(char *, int, void *);
static void unprotect(struct buf *, const char *);
static int pair_key(struct tp *, const char *, int);
static int pair_value(struct tp *, int);
static int piece_first(struct tp *, const struct tline *, const char *,
    const char *);
static int piece_more(struct tp *, const struct tline *, const char *);
static int line_done(struct tp *, const struct tline *);
static int ini_line(void *, const char *, const char *, const char *);
static void diagnose(struct tp *, size_t);

/* The file's line of position pos; positions are asked in order. */
static int
line_at(struct tp *p, size_t pos)
{
	if (pos < p->lpos) {
		p->lpos = 0;
		p->lline = p->base;
	}
	for (; p->lpos < pos && p->lpos < p->len; p->lpos++)
		if (p->src[p->lpos] == '\n')
			p->lline++;
	return p->lline;
}

/* Record the first problem, at pos.  Returns -1. */
static int
fail(struct tp *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (p->msg[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	p->msgline = line_at(p, pos);
	return -1;
}

static int
fail_line(struct tp *p, int line, const char *msg)
{
	if (p->msg[0] == '\0') {
		snprintf(p->msg, sizeof(p->msg), "%s", msg);
		p->msgline = line;
	}
	return -1;
}

static int
is_bare(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* ASCII control characters and DEL (tab is the caller's to allow). */
static int
is_ctrl(int c)
{
	return (c >= 0 && c < 0x20) || c == 0x7f;
}

/* The next byte, or -1 at the end. */
static int
peek(const struct tp *p)
{
	return p->pos < p->len ? (unsigned char)p->src[p->pos] : -1;
}

static int
starts(const struct tp *p, const char *s)
{
	size_t n = strlen(s);

	return p->len - p->pos >= n && memcmp(p->src + p->pos, s, n) == 0;
}

static void
skip_ws(struct tp *p)
{
	while (peek(p) == ' ' || peek(p) == '\t')
		p->pos++;
}

/* A '#' comment up to the end of the line: 0, or -1 (bad character). */
static int
skip_comment(struct tp *p)
{
	int c;

	if (peek(p) != '#')
		return 0;
	for (p->pos++; (c = peek(p)) != -1 && c != '\n'; p->pos++)
		if (is_ctrl(c) && c != '\t')
			return fail(p, p->pos,
			    "control character 0x%02x in a comment", c);
	return 0;
}

/* Blanks, newlines and comments inside an array. */
static int
skip_array_ws(struct tp *p)
{
	size_t before;

	do {
		before = p->pos;
		while (peek(p) == ' ' || peek(p) == '\t' || peek(p) == '\n')
			p->pos++;
		if (skip_comment(p) == -1)
			return -1;
	} while (p->pos != before);
	return 0;
}

static void
key_push(struct key *k, char *part)
{
	k->part = xreallocarray(k->part, k->n + 1, sizeof(*k->part));
	k->part[k->n++] = part;
}

static void
key_free(struct key *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->part[i]);
	free(k->part);
	k->part = NULL;
	k->n = 0;
}

/*
 * The path a's parts then the first bn parts of b, borrowed from both.
 * Caller frees the array (not the strings).
 */
static const char **
key_join(const struct key *a, const struct key *b, size_t bn, size_t *n)
{
	const char **out = xreallocarray(NULL, a->n + bn + 1, sizeof(*out));
	size_t i;

	for (i = 0; i < a->n; i++)
		out[i] = a->part[i];
	for (i = 0; i < bn; i++)
		out[a->n + i] = b->part[i];
	*n = a->n + bn;
	return out;
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

/* \uXXXX or \UXXXXXXXX, pos on the first hex digit. */
static int
parse_hex(struct tp *p, int n, struct buf *out)
{
	unsigned long cp = 0;
	int i;

	for (i = 0; i < n; i++) {
		int c = p->pos + (size_t)i < p->len ?
		    (unsigned char)p->src[p->pos + (size_t)i] :
		    -1;

		if (c >= '0' && c <= '9')
			cp = cp * 16 + (unsigned long)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			cp = cp * 16 + (unsigned long)((c | 0x20) - 'a' + 10);
		else
			return fail(p, p->pos, "invalid hex value in escape");
	}
	p->pos += (size_t)n;
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(p, p->pos,
		    "escaped character is not a Unicode scalar value");
	if (cp == 0)
		return fail(p, p->pos,
		    "a NUL character (\\u0000) is not "
		    "supported");
	put_utf8(out, cp);
	return 0;
}

/* A backslash escape of a basic string, pos on the backslash. */
static int
parse_escape(struct tp *p, int multi, struct buf *out)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	int id = p->pos + 1 < p->len ? (unsigned char)p->src[p->pos + 1] : -1;
	const char *m;

	p->pos += 2;
	if (multi && (id == ' ' || id == '\t' || id == '\n')) {
		/* A line-ending backslash trims up to the next text. */
		if (id != '\n') {
			skip_ws(p);
			if (peek(p) == -1)
				return 0;
			if (peek(p) != '\n')
				return fail(p, p->pos,
				    "unescaped '\\' in a string");
			p->pos++;
		}
		while (peek(p) == ' ' || peek(p) == '\t' || peek(p) == '\n')
			p->pos++;
		return 0;
	}
	if (id == 'u' || id == 'U')
		return parse_hex(p, id == 'u' ? 4 : 8, out);
	if (id <= 0 || (m = strchr(from, id)) == NULL)
		return fail(p, p->pos, "unescaped '\\' in a string");
	buf_append(out, &to[m - from], 1);
	return 0;
}

/* A basic string, pos just past the opening quote(s). */
static int
parse_basic(struct tp *p, int multi, char **out)
{
	struct buf b;
	int c;

	buf_init(&b, 0);
	for (;;) {
		if ((c = peek(p)) == -1) {
			fail(p, p->pos, "unterminated string");
			goto bad;
		}
		if (c == '"' && (!multi || starts(p, "\"\"\""))) {
			p->pos += multi ? 3 : 1;
			break;
		}
		if (c == '\\') {
			if (parse_escape(p, multi, &b) == -1)
				goto bad;
			continue;
		}
		if (is_ctrl(c) && c != '\t' && !(multi && c == '\n')) {
			fail(p, p->pos, "control character 0x%02x in a string",
			    c);
			goto bad;
		}
		buf_append(&b, p->src + p->pos++, 1);
	}
	*out = buf_steal(&b);
	return 0;
bad:
	buf_free(&b);
	return -1;
}

/* A literal string, pos just past the opening quote(s). */
static int
parse_literal(struct tp *p, int multi, char **out)
{
	size_t start = p->pos;
	int c;

	for (;; p->pos++) {
		if ((c = peek(p)) == -1)
			return fail(p, p->pos, "unterminated string");
		if (c == '\'' && (!multi || starts(p, "'''")))
			break;
		if (is_ctrl(c) && c != '\t' && !(multi && c == '\n'))
			return fail(p, p->pos,
			    "control character 0x%02x in a string", c);
	}
	*out = xstrndup(p->src + start, p->pos - start);
	p->pos += multi ? 3 : 1;
	return 0;
}

/* Any of the four string forms, pos on the first quote. */
static int
parse_string(struct tp *p, struct toml_value *v)
{
	int q = peek(p), multi = starts(p, q == '"' ? "\"\"\"" : "'''");
	char *s = NULL, extra[3] = "";
	int n = 0;

	v->type = TOML_STRING;
	p->pos += multi ? 3 : 1;
	if (multi && peek(p) == '\n')
		p->pos++;
	if ((q == '"' ? parse_basic(p, multi, &s) :
			parse_literal(p, multi, &s)) == -1)
		return -1;
	/* Up to two quotes may end the contents, right before the close. */
	while (multi && n < 2 && peek(p) == q) {
		extra[n++] = (char)q;
		p->pos++;
	}
	v->str = xasprintf("%s%s", s, extra);
	free(s);
	return 0;
}

static int
parse_key_part(struct tp *p, char **out)
{
	size_t start = p->pos;
	int c = peek(p);

	if (is_bare(c)) {
		while (is_bare(peek(p)))
			p->pos++;
		*out = xstrndup(p->src + start, p->pos - start);
		return 0;
	}
	if (c == '\'' || c == '"') {
		p->pos++;
		return c == '"' ? parse_basic(p, 0, out) :
				  parse_literal(p, 0, out);
	}
	return fail(p, p->pos, "invalid character at the start of a key");
}

/* A dotted key; blanks after it are skipped. */
static int
parse_key(struct tp *p, struct key *k)
{
	char *part;

	memset(k, 0, sizeof(*k));
	for (;;) {
		if (parse_key_part(p, &part) == -1) {
			key_free(k);
			return -1;
		}
		key_push(k, part);
		skip_ws(p);
		if (peek(p) != '.')
			return 0;
		p->pos++;
		skip_ws(p);
	}
}

/*
 * Digits (in base 16, 10, 8 or 2) with single '_' between them, from
 * pos; the end, or pos when there is no digit there.
 */
static size_t
digits(const char *s, size_t len, size_t pos, int base)
{
	size_t e = pos;

	if (e >= len || digit_value(s[e]) >= base)
		return pos;
	for (e++; e < len; e++) {
		if (s[e] == '_' && e + 1 < len && digit_value(s[e + 1]) < base)
			e++;
		else if (digit_value(s[e]) >= base)
			break;
	}
	return e;
}

/* The value of a hex digit, or 99. */
static int
digit_value(int c)
{
	int v = valid_hex_digit(c);

	return v < 0 ? 99 : v;
}

/* 1 when s starts with n ASCII digits. */
static int
all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* The two-digit number at s when it is at most max, else -1. */
static int
two_digits(const char *s, int max)
{
	int n;

	if (!all_digits(s, 2))
		return -1;
	n = (s[0] - '0') * 10 + s[1] - '0';
	return n <= max ? n : -1;
}

/* HH:MM:SS[.fraction] at pos: the end, or 0. */
static size_t
match_time(const struct tp *p, size_t pos)
{
	const char *s = p->src + pos;
	size_t e = pos + 8;

	if (p->len - pos < 8 || two_digits(s, 23) == -1 || s[2] != ':' ||
	    two_digits(s + 3, 59) == -1 || s[5] != ':' ||
	    two_digits(s + 6, 59) == -1)
		return 0;
	if (e + 1 < p->len && p->src[e] == '.' && all_digits(p->src + e + 1, 1))
		for (e++; e < p->len && all_digits(p->src + e, 1);)
			e++;
	return e;
}

/*
 * YYYY-MM-DD, optionally followed by [Tt ] and a time with an optional
 * offset (Z, or +HH:MM / -HH:MM), at pos: the end, or 0.  *bad is set
 * for a date that does not exist.
 */
static size_t
match_datetime(const struct tp *p, size_t pos, int *bad)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30,
	    31};
	const char *s = p->src + pos, *o;
	int y, m, d;
	size_t e = pos + 10, t;

	if (p->len - pos < 10 || !all_digits(s, 4) || s[4] != '-' ||
	    s[7] != '-' || (m = two_digits(s + 5, 12)) < 1 ||
	    (d = two_digits(s + 8, 31)) < 1)
		return 0;
	y = atoi(s);
	*bad = y < 1 || d > mdays[m - 1] ||
	    (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 || y % 400 == 0)));
	if (e >= p->len || strchr("Tt ", p->src[e]) == NULL ||
	    (t = match_time(p, e + 1)) == 0)
		return e;
	o = p->src + t;
	if (t < p->len && (*o == 'Z' || *o == 'z'))
		return t + 1;
	if (t + 6 <= p->len && (*o == '+' || *o == '-') &&
	    two_digits(o + 1, 23) != -1 && o[3] == ':' &&
	    two_digits(o + 4, 59) != -1)
		return t + 6;
	return t;
}

/* An integer or float at pos: the end (0: none); *is_float set. */
static size_t
match_number(const struct tp *p, int *is_float)
{
	const char *s = p->src;
	size_t e = p->pos, f;

	*is_float = 0;
	if (s[e] == '0' && e + 2 < p->len && strchr("xob", s[e + 1]) != NULL) {
		int base = s[e + 1] == 'x' ? 16 : s[e + 1] == 'o' ? 8 : 2;

		if ((f = digits(s, p->len, e + 2, base)) != e + 2)
			return f;
	}
	if (s[e] == '+' || s[e] == '-')
		e++;
	if (e < p->len && s[e] == '0')
		e++;
	else if (e < p->len && s[e] >= '1' && s[e] <= '9')
		e = digits(s, p->len, e, 10);
	else
		return 0;
	if (e + 1 < p->len && s[e] == '.' &&
	    (f = digits(s, p->len, e + 1, 10)) != e + 1) {
		e = f;
		*is_float = 1;
	}
	if (e < p->len && (s[e] == 'e' || s[e] == 'E')) {
		f = e + 1;
		if (f < p->len && (s[f] == '+' || s[f] == '-'))
			f++;
		if (digits(s, p->len, f, 10) != f) {
			e = digits(s, p->len, f, 10);
			*is_float = 1;
		}
	}
	return e;
}

static int
parse_number(struct tp *p, struct toml_value *v)
{
	int is_float, base = 10;
	size_t end = match_number(p, &is_float), i;
	struct buf clean;
	const char *s;
	char *stop;

	if (end == 0)
		return 1;
	buf_init(&clean, 0);
	for (i = p->pos; i < end; i++)
		if (p->src[i] != '_')
			buf_append(&clean, p->src + i, 1);
	p->pos = end;
	v->type = is_float ? TOML_FLOAT : TOML_INT;
	s = buf_str(&clean);
	if (!is_float && s[0] == '0' && s[1] != '\0') {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2;
	}
	errno = 0;
	v->num = is_float ? 0 : strtoll(s, &stop, base);
	v->overflow = !is_float && errno == ERANGE;
	if (is_float || v->overflow)
		v->str = xstrdup(buf_str(&clean) + (*buf_str(&clean) == '+'));
	else
		v->str = xasprintf("%lld", v->num);
	buf_free(&clean);
	return 0;
}

/* A date, time or date-time: 0, 1 when there is none at pos, or -1. */
static int
parse_datetime(struct tp *p, struct toml_value *v)
{
	int bad = 0;
	size_t end = match_datetime(p, p->pos, &bad);

	if (end == 0 && (end = match_time(p, p->pos)) == 0)
		return 1;
	if (bad)
		return fail(p, p->pos, "invalid date or datetime");
	v->type = TOML_DATETIME;
	v->str = xstrndup(p->src + p->pos, end - p->pos);
	p->pos = end;
	return 0;
}

static int
parse_array(struct tp *p, struct toml_value *v)
{
	v->type = TOML_ARRAY;
	p->pos++;
	if (skip_array_ws(p) == -1)
		return -1;
	if (peek(p) == ']') {
		p->pos++;
		return 0;
	}
	for (;;) {
		v->items =
		    xreallocarray(v->items, v->nitems + 1, sizeof(*v->items));
		memset(&v->items[v->nitems], 0, sizeof(*v->items));
		if (parse_value(p, &v->items[v->nitems++]) == -1 ||
		    skip_array_ws(p) == -1)
			return -1;
		if (peek(p) == ']') {
			p->pos++;
			return 0;
		}
		if (peek(p) != ',')
			return fail(p, p->pos, "unclosed array");
		p->pos++;
		if (skip_array_ws(p) == -1)
			return -1;
		if (peek(p) == ']') {
			p->pos++;
			return 0;
		}
	}
}

/* The item named key of table t, or NULL. */
static struct toml_value *
member(struct toml_value *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->nitems; i++)
		if (strcmp(t->keys[i], key) == 0)
			return &t->items[i];
	return NULL;
}

/*
 * The table inside inline table t that k's last part goes into, made
 * when missing; NULL when a value is in the way.
 */
static struct toml_value *
inline_nest(struct toml_value *t, const struct key *k)
{
	struct toml_value *m;
	size_t i;

	for (i = 0; i + 1 < k->n; i++) {
		if ((m = member(t, k->part[i])) == NULL) {
			t->items = xreallocarray(t->items, t->nitems + 1,
			    sizeof(*t->items));
			t->keys = xreallocarray(t->keys, t->nitems + 1,
			    sizeof(*t->keys));
			m = &t->items[t->nitems];
			memset(m, 0, sizeof(*m));
			m->type = TOML_TABLE;
			t->keys[t->nitems++] = xstrdup(k->part[i]);
		}
		if (m->type != TOML_TABLE)
			return NULL;
		t = m;
	}
	return t;
}

/* Add k = val to inline table t (val is moved in): 0 or -1. */
static int
inline_add(struct tp *p, struct toml_value *t, struct tflag *fl, struct key *k,
    struct toml_value *val)
{
	struct toml_value *into;

	if (flag_is(fl, (const char *const *)k->part, k->n, FL_FROZEN))
		return fail(p, p->pos, "cannot change the inline value of '%s'",
		    k->part[0]);
	if ((into = inline_nest(t, k)) == NULL)
		return fail(p, p->pos, "cannot overwrite a value");
	if (member(into, k->part[k->n - 1]) != NULL)
		return fail(p, p->pos, "duplicate key '%s' in an inline table",
		    k->part[k->n - 1]);
	into->items =
	    xreallocarray(into->items, into->nitems + 1, sizeof(*into->items));
	into->keys =
	    xreallocarray(into->keys, into->nitems + 1, sizeof(*into->keys));
	into->items[into->nitems] = *val;
	into->keys[into->nitems++] = xstrdup(k->part[k->n - 1]);
	memset(val, 0, sizeof(*val));
	return 0;
}

static int
parse_inline(struct tp *p, struct toml_value *v)
{
	struct tflag fl;
	struct toml_value val;
	struct key k;
	int r = -1, frozen;

	memset(&fl, 0, sizeof(fl));
	v->type = TOML_TABLE;
	p->pos++;
	skip_ws(p);
	if (peek(p) == '}') {
		p->pos++;
		return 0;
	}
	for (;;) {
		memset(&val, 0, sizeof(val));
		if (parse_pair(p, &k, &val) == -1)
			goto out;
		frozen = val.type == TOML_ARRAY || val.type == TOML_TABLE;
		if (inline_add(p, v, &fl, &k, &val) == -1) {
			toml_value_free(&val);
			key_free(&k);
			goto out;
		}
		skip_ws(p);
		if (peek(p) != ',') {
			key_free(&k);
			if (peek(p) != '}') {
				fail(p, p->pos, "unclosed inline table");
				goto out;
			}
			p->pos++;
			break;
		}
		if (frozen)
			flag_set(&fl, (const char *const *)k.part, k.n,
			    FL_FROZEN, 1);
		key_free(&k);
		p->pos++;
		skip_ws(p);
	}
	r = 0;
out:
	flag_free(&fl);
	return r;
}

/* Any value at pos, in tomllib's order of attempts. */
static int
parse_value(struct tp *p, struct toml_value *v)
{
	int c = peek(p), r;
	size_t n;

	memset(v, 0, sizeof(*v));
	if (c == '"' || c == '\'')
		return parse_string(p, v);
	if (starts(p, "true") || starts(p, "false")) {
		v->type = TOML_BOOL;
		v->num = c == 't';
		v->str = xstrdup(c == 't' ? "true" : "false");
		p->pos += c == 't' ? 4 : 5;
		return 0;
	}
	if (c == '[')
		return parse_array(p, v);
	if (c == '{')
		return parse_inline(p, v);
	if (c != -1 && (r = parse_datetime(p, v)) != 1)
		return r;
	if (c != -1 && (r = parse_number(p, v)) != 1)
		return r;
	if ((n = special_float(p)) != 0) {
		v->type = TOML_FLOAT;
		v->str = xstrndup(p->src + p->pos + (c == '+'), n - (c == '+'));
		p->pos += n;
		return 0;
	}
	return fail(p, p->pos, "invalid value");
}

/* The length of inf or nan (signed or not) at pos, or 0. */
static size_t
special_float(const struct tp *p)
{
	static const char *const forms[] = {"inf", "nan", "+inf", "+nan",
	    "-inf", "-nan"};
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (starts(p, forms[i]))
			return strlen(forms[i]);
	return 0;
}

/* key = value, pos on the key. */
static int
parse_pair(struct tp *p, struct key *k, struct toml_value *v)
{
	if (parse_key(p, k) == -1)
		return -1;
	if (peek(p) != '=') {
		key_free(k);
		return fail(p, p->pos, "expected '=' after the key");
	}
	p->pos++;
	skip_ws(p);
	if (parse_value(p, v) == -1) {
		toml_value_free(v);
		key_free(k);
		return -1;
	}
	return 0;
}

static struct tflag *
flag_child(struct tflag *f, const char *key, int create)
{
	size_t i;

	for (i = 0; i < f->nkid; i++)
		if (strcmp(f->kid[i]->key, key) == 0)
			return f->kid[i];
	if (!create)
		return NULL;
	f->kid = xreallocarray(f->kid, f->nkid + 1, sizeof(*f->kid));
	f->kid[f->nkid] = xcalloc(1, sizeof(**f->kid));
	f->kid[f->nkid]->key = xstrdup(key);
	return f->kid[f->nkid++];
}

/* tomllib's Flags.is_(): flag on key, or recursively on a parent. */
static int
flag_is(struct tflag *f, const char *const *key, size_t n, unsigned flag)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i + 1 < n; i++) {
		if ((f = flag_child(f, key[i], 0)) == NULL)
			return 0;
		if (f->rflags & flag)
			return 1;
	}
	f = flag_child(f, key[n - 1], 0);
	return f != NULL && ((f->flags | f->rflags) & flag) != 0;
}

static void
flag_set(struct tflag *f, const char *const *key, size_t n, unsigned flag,
    int recursive)
{
	size_t i;

	for (i = 0; i < n; i++)
		f = flag_child(f, key[i], 1);
	if (recursive)
		f->rflags |= flag;
	else
		f->flags |= flag;
}

/* Forget every flag of key and below (a new [[array]] element). */
static void
flag_unset_all(struct tflag *f, const char *const *key, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if ((f = flag_child(f, key[i], 0)) == NULL)
			return;
	for (i = 0; i < f->nkid; i++) {
		if (strcmp(f->kid[i]->key, key[n - 1]) != 0)
			continue;
		flag_free(f->kid[i]);
		free(f->kid[i]);
		f->kid[i] = f->kid[--f->nkid];
		return;
	}
}

/* Free what f holds (not f itself). */
static void
flag_free(struct tflag *f)
{
	size_t i;

	for (i = 0; i < f->nkid; i++) {
		flag_free(f->kid[i]);
		free(f->kid[i]);
	}
	free(f->kid);
	free(f->key);
	memset(f, 0, sizeof(*f));
}

static void
pending_finalize(struct tp *p)
{
	size_t i;

	for (i = 0; i < p->npend; i++) {
		flag_set(&p->flags, (const char *const *)p->pend[i].part,
		    p->pend[i].n, FL_EXPLICIT, 0);
		key_free(&p->pend[i]);
	}
	free(p->pend);
	p->pend = NULL;
	p->npend = 0;
}

static struct tnode *
node_child(struct tnode *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->nkid; i++)
		if (strcmp(t->kid[i]->key, key) == 0)
			return t->kid[i];
	return NULL;
}

static struct tnode *
node_add(struct tnode *t, const char *key, int kind)
{
	struct tnode *n = xcalloc(1, sizeof(*n));

	n->key = xstrdup(key);
	n->kind = kind;
	t->kid = xreallocarray(t->kid, t->nkid + 1, sizeof(*t->kid));
	t->kid[t->nkid++] = n;
	return n;
}

/* Free what t holds (not t itself). */
static void
node_free(struct tnode *t)
{
	size_t i;

	for (i = 0; i < t->nkid; i++) {
		node_free(t->kid[i]);
		free(t->kid[i]);
	}
	if (t->last != NULL) {
		node_free(t->last);
		free(t->last);
	}
	free(t->kid);
	free(t->key);
	memset(t, 0, sizeof(*t));
}

/*
 * tomllib's get_or_create_nest(): the table at key, made when missing,
 * through the last element of arrays of tables (*in_array is then set);
 * NULL when a value is in the way.
 */
static struct tnode *
nest(struct tp *p, const char *const *key, size_t n, int *in_array)
{
	struct tnode *t = &p->root, *c;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((c = node_child(t, key[i])) == NULL)
			c = node_add(t, key[i], TN_TABLE);
		if (c->kind == TN_AOT) {
			*in_array = 1;
			c = c->last;
		}
		if (c->kind != TN_TABLE)
			return NULL;
		t = c;
	}
	return t;
}

/* Report v (each key of it, for a table) at path to the callback. */
static int
emit(struct tp *p, const char **path, size_t n, const struct toml_value *v,
    int line)
{
	struct toml_item item;
	char err[160];
	size_t i;

	if (v->type == TOML_TABLE) {
		const char **sub = xreallocarray(NULL, n + 1, sizeof(*sub));
		int r = 0;

		memcpy(sub, path, n * sizeof(*sub));
		for (i = 0; i < v->nitems && r == 0; i++) {
			sub[n] = v->keys[i];
			r = emit(p, sub, n + 1, &v->items[i], line);
		}
		free(sub);
		return r;
	}
	item.path = path;
	item.depth = n;
	item.in_array = p->in_array;
	item.value = v;
	item.lineno = line;
	err[0] = '\0';
	if (p->cb(p->arg, &item, err, sizeof(err)) == -1)
		return fail_line(p, line, err[0] ? err : "invalid value");
	return 0;
}

/* tomllib's key_value_rule(), at pos. */
static int
key_value_rule(struct tp *p)
{
	int line = line_at(p, p->pos);
	struct toml_value v;
	struct key k;

	memset(&v, 0, sizeof(v));
	if (parse_pair(p, &k, &v) == -1)
		return -1;
	return key_value_apply(p, &k, &v, line);
}

/*
 * The rule for k = v (both are freed here), the key on line line: the
 * tables it may go into, then the value to the callback.
 */
static int
key_value_apply(struct tp *p, struct key *k, struct toml_value *v, int line)
{
	int in_array = 0, r = -1;
	const char **full = NULL;
	struct tnode *into;
	size_t i, j, n;

	for (i = 1; i < k->n; i++) {
		full = key_join(&p->header, k, i, &n);
		if (flag_is(&p->flags, full, n, FL_EXPLICIT)) {
			fail_line(p, line,
			    "a dotted key cannot add to a table defined "
			    "elsewhere");
			goto out;
		}
		p->pend =
		    xreallocarray(p->pend, p->npend + 1, sizeof(*p->pend));
		memset(&p->pend[p->npend], 0, sizeof(*p->pend));
		for (j = 0; j < n; j++)
			key_push(&p->pend[p->npend], xstrdup(full[j]));
		p->npend++;
		free(full);
		full = NULL;
	}
	full = key_join(&p->header, k, k->n, &n);
	if (flag_is(&p->flags, full, n - 1, FL_FROZEN)) {
		fail_line(p, line, "cannot change an inline table or array");
		goto out;
	}
	if ((into = nest(p, full, n - 1, &in_array)) == NULL ||
	    node_child(into, full[n - 1]) != NULL) {
		fail_line(p, line,
		    into == NULL ? "cannot overwrite a value" :
				   "a key is defined twice");
		goto out;
	}
	node_add(into, full[n - 1], TN_VALUE);
	if (v->type == TOML_TABLE || v->type == TOML_ARRAY)
		flag_set(&p->flags, full, n, FL_FROZEN, 1);
	r = emit(p, full, n, v, line);
out:
	free(full);
	toml_value_free(v);
	key_free(k);
	return r;
}

/* [table] */
static int
header_rule(struct tp *p)
{
	const char *const *part;
	struct key k;
	char *name;
	int in_array = 0;

	p->pos++;
	skip_ws(p);
	if (parse_key(p, &k) == -1)
		return -1;
	part = (const char *const *)k.part;
	if (flag_is(&p->flags, part, k.n, FL_EXPLICIT) ||
	    flag_is(&p->flags, part, k.n, FL_FROZEN)) {
		name = toml_path_str(part, k.n);
		fail(p, p->pos, "table [%s] is defined twice", name);
		free(name);
		goto bad;
	}
	flag_set(&p->flags, part, k.n, FL_EXPLICIT, 0);
	if (nest(p, part, k.n, &in_array) == NULL) {
		fail(p, p->pos, "cannot overwrite a value");
		goto bad;
	}
	if (peek(p) != ']') {
		fail(p, p->pos, "expected ']' at the end of a table header");
		goto bad;
	}
	p->pos++;
	key_free(&p->header);
	p->header = k;
	p->in_array = in_array;
	return 0;
bad:
	key_free(&k);
	return -1;
}

/* [[array of tables]] */
static int
array_header_rule(struct tp *p)
{
	const char *const *part;
	struct tnode *into, *c;
	struct key k;
	int in_array = 1;

	p->pos += 2;
	skip_ws(p);
	if (parse_key(p, &k) == -1)
		return -1;
	part = (const char *const *)k.part;
	if (flag_is(&p->flags, part, k.n, FL_FROZEN)) {
		fail(p, p->pos, "cannot change an inline table or array");
		goto bad;
	}
	flag_unset_all(&p->flags, part, k.n);
	flag_set(&p->flags, part, k.n, FL_EXPLICIT, 0);
	if ((into = nest(p, part, k.n - 1, &in_array)) == NULL ||
	    ((c = node_child(into, part[k.n - 1])) != NULL &&
		c->kind != TN_AOT)) {
		fail(p, p->pos, "cannot overwrite a value");
		goto bad;
	}
	if (c == NULL)
		c = node_add(into, part[k.n - 1], TN_AOT);
	if (c->last != NULL) {
		node_free(c->last);
		free(c->last);
	}
	c->last = xcalloc(1, sizeof(*c->last));
	c->last->kind = TN_TABLE;
	if (!starts(p, "]]")) {
		fail(p, p->pos, "expected ']]' at the end of an array header");
		goto bad;
	}
	p->pos += 2;
	key_free(&p->header);
	p->header = k;
	p->in_array = in_array;
	return 0;
bad:
	key_free(&k);
	return -1;
}

/* One statement: 0 go on, 1 end of the document, -1 error. */
static int
statement(struct tp *p)
{
	int c;

	skip_ws(p);
	if ((c = peek(p)) == -1)
		return 1;
	if (c == '\n') {
		p->pos++;
		return 0;
	}
	if (is_bare(c) || c == '"' || c == '\'') {
		if (key_value_rule(p) == -1)
			return -1;
	} else if (c == '[') {
		pending_finalize(p);
		if ((starts(p, "[[") ? array_header_rule(p) : header_rule(p)) ==
		    -1)
			return -1;
	} else if (c != '#')
		return fail(p, p->pos, "invalid statement");
	return line_end(p);
}

/* After a statement: blanks, a comment, a newline (0) or the end (1). */
static int
line_end(struct tp *p)
{
	int c;

	skip_ws(p);
	if (skip_comment(p) == -1)
		return -1;
	if ((c = peek(p)) == -1)
		return 1;
	if (c != '\n')
		return fail(p, p->pos,
		    "expected the end of the line after "
		    "the statement");
	p->pos++;
	return 0;
}

/* The offset of the first byte that is not valid UTF-8, or len. */
static size_t
toml_utf8_bad(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	unsigned char lo, hi;

	while (i < len) {
		unsigned char c = s[i];

		lo = 0x80;
		hi = 0xbf;
		if (c < 0x80)
			n = 0;
		else if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			lo = c == 0xe0 ? 0xa0 : 0x80;
			hi = c == 0xed ? 0x9f : 0xbf;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			lo = c == 0xf0 ? 0x90 : 0x80;
			hi = c == 0xf4 ? 0x8f : 0xbf;
		} else
			return i;
		if (len - i <= n)
			return n == 0 ? len : i;
		for (k = 1; k <= n; k++)
			if (s[i + k] < (k == 1 ? lo : 0x80) ||
			    s[i + k] > (k == 1 ? hi : 0xbf))
				return i;
		i += n + 1;
	}
	return len;
}

/* Refuse NUL bytes and invalid UTF-8 before parsing. */
static int
check_bytes(struct tp *p)
{
	const char *nul = memchr(p->src, '\0', p->len);
	size_t bad = toml_utf8_bad((const unsigned char *)p->src, p->len);

	if (nul != NULL && (size_t)(nul - p->src) <= bad)
		return fail(p, (size_t)(nul - p->src), "NUL byte in the file");
	if (bad != p->len)
		return fail(p, bad, "invalid UTF-8");
	return 0;
}

/* Make text (len bytes, from line line of the file) what the grammar reads. */
static void
tp_source(struct tp *p, const char *text, size_t len, int line)
{
	p->src = text;
	p->len = len;
	p->pos = 0;
	p->base = line;
	p->lpos = 0;
	p->lline = line;
}

/* Read the statements of text (from line line of the file): 0 or -1. */
static int
run_lines(struct tp *p, const char *text, size_t len, int line)
{
	int r;

	tp_source(p, text, len, line);
	while ((r = statement(p)) == 0)
		;
	return r == -1 ? -1 : 0;
}

/*
 * The first byte c of the document's text[from, eol) outside a one-line
 * quoted string, or eol.
 */
static size_t
scan_to(const struct tp *p, size_t from, size_t eol, int c)
{
	const char *t = p->text;
	size_t i;
	char q;

	for (i = from; i < eol; i++) {
		if (t[i] == c)
			return i;
		if (t[i] != '"' && t[i] != '\'')
			continue;
		for (q = t[i++]; i < eol && t[i] != q; i++)
			if (q == '"' && t[i] == '\\' && i + 1 < eol)
				i++;
		if (i == eol)
			break;
	}
	return eol;
}

/* 1 when the document has three q at i. */
static int
triple(const struct tp *p, size_t i, char q)
{
	return p->tlen - i >= 3 && p->text[i] == q && p->text[i + 1] == q &&
	    p->text[i + 2] == q;
}

/* Past the string of a value that starts at i, or where it breaks off. */
static size_t
skip_string(const struct tp *p, size_t i)
{
	const char *t = p->text;
	char q = t[i];
	int multi = triple(p, i, q);

	for (i += multi ? 3 : 1; i < p->tlen; i++) {
		if (t[i] == '\n' && !multi)
			return i;
		if (t[i] == '\\' && q == '"')
			i++; /* the escaped byte, a newline too, as tomllib */
		else if (t[i] == q && (!multi || triple(p, i, q)))
			return i + (multi ? 3 : 1);
	}
	return p->tlen;
}

/*
 * The end of the value that starts at i: the newline after it outside
 * strings, comments and brackets, or the end of the document.
 */
static size_t
scan_value(const struct tp *p, size_t i)
{
	const char *t = p->text, *nl;
	int depth = 0;

	while (i < p->tlen) {
		if (t[i] == '\n' && depth == 0)
			return i;
		if (t[i] == '#') {
			nl = memchr(t + i, '\n', p->tlen - i);
			i = nl != NULL ? (size_t)(nl - t) : p->tlen;
			continue;
		}
		if (t[i] == '"' || t[i] == '\'') {
			i = skip_string(p, i);
			continue;
		}
		if (t[i] == '[' || t[i] == '{')
			depth++;
		else if ((t[i] == ']' || t[i] == '}') && depth > 0)
			depth--;
		i++;
	}
	return p->tlen;
}

/*
 * Hand on text[from, to) into out while *n stays within room, protecting
 * the bytes of prot and, as how says, the edges.  Returns where it
 * stopped.
 */
static size_t
put(const struct tp *p, char *out, size_t *n, size_t room, size_t from,
    size_t to, const char *prot, int how)
{
	size_t i, keep = how & PUT_LAST ? 1 : 0;
	int c, esc;

	for (i = from; i < to; i++) {
		c = (unsigned char)p->text[i];
		esc = c != '\0' &&
		    (strchr(prot, c) != NULL ||
			(i == from && (how & PUT_FIRST) &&
			    strchr(" \t\n#\xef", c) != NULL));
		if (*n + (esc ? 2 : 1) + keep > room)
			break;
		if (esc)
			out[(*n)++] = (char)TOML_ESC;
		out[(*n)++] = (char)(esc ? c ^ 0x80 : c);
	}
	/* A blank that ends the line would be stripped. */
	if ((how & PUT_LAST) && i > from &&
	    strchr(" \t\n", out[*n - 1]) != NULL) {
		out[*n] = (char)(out[*n - 1] ^ 0x80);
		out[*n - 1] = (char)TOML_ESC;
		(*n)++;
	}
	return i;
}

/* Move the reader to to, counting the lines passed. */
static void
advance(struct tp *p, size_t to)
{
	for (; p->tpos < to; p->tpos++)
		if (p->text[p->tpos] == '\n')
			p->tlineno++;
}

/* A comment line: refused with a control character, as in tomllib. */
static enum tl_kind
read_comment(struct tp *p, char *out, size_t room, size_t *n)
{
	char msg[64];
	size_t i;
	int c;

	for (i = p->cur.start; i < p->cur.end; i++) {
		c = (unsigned char)p->text[i];
		if (is_ctrl(c) && c != '\t') {
			snprintf(msg, sizeof(msg),
			    "control character 0x%02x in a comment", c);
			fail_line(p, p->cur.lineno, msg);
			p->stop = 1;
			break;
		}
	}
	/* inih skips the line: what does not fit can go. */
	put(p, out, n, room, p->cur.start, p->cur.end, PROT_ANY, 0);
	return TL_COMMENT;
}

/*
 * A [table] or [[array]] line: "[name]" with the first bytes of the name
 * inih keeps, then (next call) the rest after "]=".
 */
static enum tl_kind
read_header(struct tp *p, char *out, size_t room, size_t *n)
{
	size_t s = p->cur.start, eol = p->cur.end;
	size_t close = scan_to(p, s + 1, eol, ']'), kept;

	if (close == eol) {
		put(p, out, n, room, s, eol, PROT_TABLE, 0);
		return TL_BAD;
	}
	out[(*n)++] = '[';
	kept =
	    room - 1 < 1 + TOML_SECTION_KEPT ? room - 1 : 1 + TOML_SECTION_KEPT;
	p->rfrom = put(p, out, n, kept, s + 1, close, PROT_TABLE, 0);
	p->kept = *n - 1;
	out[(*n)++] = ']';
	p->rto = eol;
	p->rkind = TL_REST;
	return TL_HEADER;
}

/*
 * A key = value line, joined with the lines its value spans: "key=" and
 * as much of the value as fits, the rest in continuation lines.  A line
 * without '=' is handed on for inih to refuse.
 */
static enum tl_kind
read_pair(struct tp *p, char *out, size_t room, size_t *n)
{
	size_t s = p->cur.start, eq = scan_to(p, s, p->cur.end, '=');
	enum tl_kind kind = TL_PAIR;

	if (eq == p->cur.end) {
		put(p, out, n, room, s, eq, PROT_KEY, PUT_FIRST);
		return TL_BAD;
	}
	p->cur.end = scan_value(p, eq + 1);
	if (put(p, out, n, room - 1, s, eq, PROT_KEY, PUT_FIRST) == eq) {
		out[(*n)++] = '=';
		p->rfrom = put(p, out, n, room, eq + 1, p->cur.end, PROT_ANY,
		    PUT_LAST);
	} else {
		/* The key does not fit inih's line: the whole line travels. */
		memcpy(out, "]=", 2);
		*n = 2;
		p->rfrom = put(p, out, n, room, s, p->cur.end, PROT_ANY,
		    PUT_FIRST | PUT_LAST);
		kind = TL_WHOLE;
	}
	p->rto = p->cur.end;
	p->rkind = TL_MORE;
	return kind;
}

/* The next logical line of the document, left-stripped. */
static enum tl_kind
read_line(struct tp *p, char *out, size_t room, size_t *n)
{
	const char *t = p->text, *nl;
	size_t s = p->tpos;
	enum tl_kind kind;

	while (s < p->tlen && (t[s] == ' ' || t[s] == '\t'))
		s++;
	nl = memchr(t + s, '\n', p->tlen - s);
	p->cur.start = s;
	p->cur.end = nl != NULL ? (size_t)(nl - t) : p->tlen;
	p->cur.lineno = p->tlineno;
	if (s == p->cur.end)
		kind = TL_BLANK;
	else if (t[s] == '#')
		kind = read_comment(p, out, room, n);
	else if (t[s] == '[')
		kind = read_header(p, out, room, n);
	else
		kind = read_pair(p, out, room, n);
	advance(p, p->cur.end < p->tlen ? p->cur.end + 1 : p->tlen);
	return kind;
}

/* The next piece of a line that did not fit, or a header's rest. */
static enum tl_kind
read_rest(struct tp *p, char *out, size_t room, size_t *n)
{
	enum tl_kind kind = p->rkind;

	if (kind == TL_REST) {
		memcpy(out, "]=", 2);
		*n = 2;
	} else {
		out[0] = ' ';
		*n = 1;
	}
	p->rfrom = put(p, out, n, room, p->rfrom, p->rto, PROT_ANY,
	    PUT_FIRST | PUT_LAST);
	p->rkind = TL_MORE;
	return kind;
}

/*
 * inih's reader (fgets-like): the next line for it in out (num bytes).
 * Returns out, or NULL at the end, after an error, and once inih refused
 * a line (the handler call due for it did not come).
 */
static char *
ini_read(char *out, int num, void *arg)
{
	struct tp *p = arg;
	enum tl_kind kind;
	size_t n = 0;

	if (p->await)
		p->refused = 1;
	if (p->stop || p->refused)
		return NULL;
	if (num < TOML_MIN_LINE) {
		fail_line(p, p->tlineno,
		    "the line buffer of inih is too small");
		p->stop = 1;
		return NULL;
	}
	if (p->rfrom < p->rto)
		kind = read_rest(p, out, (size_t)num - 1, &n);
	else if (p->tpos < p->tlen)
		kind = read_line(p, out, (size_t)num - 1, &n);
	else
		return NULL;
	if (p->stop)
		return NULL;
	out[n] = '\0';
	p->lines = xreallocarray(p->lines, p->nlines + 1, sizeof(*p->lines));
	p->lines[p->nlines] = p->cur;
	p->lines[p->nlines++].kind = kind;
	p->await = kind != TL_BLANK && kind != TL_COMMENT && kind != TL_HEADER;
	return out;
}

/* Append s to b with its protected bytes restored. */
static void
unprotect(struct buf *b, const char *s)
{
	char c;

	for (; *s != '\0'; s++) {
		c = *s;
		if ((unsigned char)c == TOML_ESC && s[1] != '\0')
			c = (char)(*++s ^ 0x80);
		buf_append(b, &c, 1);
	}
}

/* The key of a key = value line, as inih split it: into p->jkey. */
static int
pair_key(struct tp *p, const char *name, int line)
{
	struct buf b;
	int c, r;

	buf_init(&b, 0);
	unprotect(&b, name);
	tp_source(p, buf_str(&b), b.len, line);
	c = peek(p);
	if (!is_bare(c) && c != '"' && c != '\'')
		r = fail(p, p->pos, "invalid statement");
	else if ((r = parse_key(p, &p->jkey)) == 0 && peek(p) != -1)
		r = fail(p, p->pos, "expected '=' after the key");
	tp_source(p, NULL, 0, line);
	buf_free(&b);
	return r;
}

/* The value of a key = value line, joined in p->joined: 0 or -1. */
static int
pair_value(struct tp *p, int line)
{
	struct toml_value v;
	int r;

	tp_source(p, buf_str(&p->joined), p->joined.len, line);
	skip_ws(p);
	if (parse_value(p, &v) == -1) {
		toml_value_free(&v);
		return -1;
	}
	if ((r = key_value_apply(p, &p->jkey, &v, line)) == 0)
		r = line_end(p);
	while (r == 0)
		r = statement(p);
	return r == -1 ? -1 : 0;
}

/* The first piece of a logical line, from inih: 0 or -1. */
static int
piece_first(struct tp *p, const struct tline *l, const char *section,
    const char *name)
{
	p->jkind = l->kind;
	buf_reset(&p->joined);
	key_free(&p->jkey);
	free(p->jname);
	p->jname = xstrdup(name);
	switch (l->kind) {
	case TL_PAIR:
		return pair_key(p, name, l->lineno);
	case TL_REST:
		if (strlen(section) != p->kept)
			return fail_line(p, l->lineno,
			    "inih cut the table name short");
		buf_puts(&p->joined, "[");
		unprotect(&p->joined, section);
		return 0;
	case TL_WHOLE:
		return 0;
	default:
		return fail_line(p, l->lineno, "inih read a line differently");
	}
}

/*
 * A continuation piece: inih repeats the name it keeps of the line's
 * first piece (TOML never has a key twice).  0 or -1.
 */
static int
piece_more(struct tp *p, const struct tline *l, const char *name)
{
	if (name[0] == '\0' || p->jname == NULL ||
	    strncmp(p->jname, name, strlen(name)) != 0)
		return fail_line(p, l->lineno, "inih read a line differently");
	return 0;
}

/* The logical line is complete in p->joined: read it.  0 or -1. */
static int
line_done(struct tp *p, const struct tline *l)
{
	if (l->end < p->tlen)
		buf_puts(&p->joined, "\n");
	if (p->jkind == TL_PAIR)
		return pair_value(p, l->lineno);
	return run_lines(p, buf_str(&p->joined), p->joined.len, l->lineno);
}

/*
 * inih's handler: gather the pieces of the logical line and read it once
 * the last one came.  Returns 1, or 0 after an error.
 */
static int
ini_line(void *arg, const char *section, const char *name, const char *value)
{
	struct tp *p = arg;
	const struct tline *l = &p->lines[p->nlines - 1];
	int r;

	p->await = 0;
	if (l->kind == TL_MORE)
		r = piece_more(p, l, name);
	else
		r = piece_first(p, l, section, name);
	if (r == 0)
		unprotect(&p->joined, value);
	if (r == 0 && p->rfrom == p->rto)
		r = line_done(p, l);
	if (r == -1)
		p->stop = 1;
	return r == 0;
}

/* inih refused line n of those handed to it: read it here to say why. */
static void
diagnose(struct tp *p, size_t n)
{
	const struct tline *l;
	struct buf b;

	if (n == 0 || n > p->nlines) {
		fail_line(p, p->tlineno, "inih cannot read the file");
		return;
	}
	l = &p->lines[n - 1];
	buf_init(&b, 0);
	buf_append(&b, p->text + l->start, l->end - l->start);
	if (l->end < p->tlen)
		buf_puts(&b, "\n");
	if (run_lines(p, buf_str(&b), b.len, l->lineno) == 0)
		fail_line(p, l->lineno, "inih cannot read the line");
	buf_free(&b);
}

int
toml_parse(const char *name, const char *text, size_t len, toml_cb *cb,
    void *arg, char *err, size_t errsz)
{
	struct tp p;
	struct buf src;
	size_t i;
	int r;

	/* "\r\n" is "\n" everywhere, strings included, as in tomllib. */
	buf_init(&src, 0);
	for (i = 0; i < len; i++)
		if (!(text[i] == '\r' && i + 1 < len && text[i + 1] == '\n'))
			buf_append(&src, text + i, 1);
	memset(&p, 0, sizeof(p));
	p.cb = cb;
	p.arg = arg;
	p.text = buf_str(&src);
	p.tlen = src.len;
	p.tlineno = 1;
	buf_init(&p.joined, 0);
	tp_source(&p, p.text, p.tlen, 1);
	if (check_bytes(&p) == 0) {
		r = ini_parse_stream(ini_read, &p, ini_line, &p);
		if (p.msg[0] == '\0' && (r != 0 || p.refused))
			diagnose(&p, r > 0 ? (size_t)r : p.nlines);
	}
	r = p.msg[0] != '\0' ? -1 : 0;
	if (r == -1)
		snprintf(err, errsz, "%s:%d: %s", name, p.msgline, p.msg);
	pending_finalize(&p);
	key_free(&p.header);
	key_free(&p.jkey);
	free(p.jname);
	node_free(&p.root);
	flag_free(&p.flags);
	buf_free(&p.joined);
	free(p.lines);
	buf_free(&src);
	return r;
}

int
toml_parse_file(const char *path, toml_cb *cb, void *arg, char *err,
    size_t errsz)
{
	struct buf text;
	int r;

	buf_init(&text, 0);
	r = file_read(path, TOML_MAX_FILE, &text);
	if (r == -1)
		snprintf(err, errsz, "%s: cannot read: %s", path,
		    strerror(errno));
	else if (r == 1)
		snprintf(err, errsz, "%s: larger than %d KiB", path,
		    TOML_MAX_FILE / 1024);
	else
		r = toml_parse(path, buf_str(&text), text.len, cb, arg, err,
		    errsz);
	buf_free(&text);
	return r == 0 ? 0 : -1;
}

char *
toml_path_str(const char *const *path, size_t depth)
{
	struct buf b;
	size_t i, j;

	buf_init(&b, 0);
	for (i = 0; i < depth; i++) {
		int bare = path[i][0] != '\0';

		for (j = 0; path[i][j] != '\0'; j++)
			bare = bare && is_bare((unsigned char)path[i][j]);
		buf_printf(&b, bare ? "%s%s" : "%s\"%s\"", i ? "." : "",
		    path[i]);
	}
	return buf_steal(&b);
}

void
toml_value_free(struct toml_value *v)
{
	size_t i;

	for (i = 0; i < v->nitems; i++) {
		toml_value_free(&v->items[i]);
		if (v->keys != NULL)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}
