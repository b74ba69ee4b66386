/*
 * A reader of the shell subset a .env file may use: a small lexer that
 * follows bash's quoting and expansion rules for assignments, and
 * refuses the rest.  Words are evaluated as they are read; in the parts
 * of ${VAR:-word} that bash would not evaluate, "skip" mode still checks
 * the syntax but looks nothing up and assigns nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "envfile.h"
#include "xmalloc.h"

/* Characters that need a shell to mean anything. */
#define SH_META "&|<>()"

/* Assignments of an `export` line: made once every word is expanded. */
struct deferred {
	char **name, **value;
	int *line;
	size_t n;
};

struct sh {
	const char *s;
	size_t len, pos;
	int line;
	const struct envfile_ops *ops;
	char msg[200];
	int msgline;
};

static int fail(struct sh *, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static int peek(const struct sh *);
static int peek_at(const struct sh *, size_t);
static int is_name_start(int);
static int is_name(int);
static int is_blank(int);
static int word_end(int);
static size_t name_len(const struct sh *, size_t);
static int continuation(struct sh *);
static int skip_blanks(struct sh *);
static const char *lookup(struct sh *, const char *, int);
static int single_quote(struct sh *, struct buf *);
static int ansi_escape(struct sh *, struct buf *);
static int ansi_quote(struct sh *, struct buf *);
static int double_quote(struct sh *, struct buf *, int);
static int backslash(struct sh *, struct buf *, int, int);
static int braced(struct sh *, struct buf *, int, int);
static int brace_op(struct sh *, const char *, struct buf *, int, int);
static int expansion(struct sh *, struct buf *, int, int);
static int tilde(struct sh *, struct buf *, int, int);
static int word(struct sh *, struct buf *, int, int, int);
static int assign(struct sh *, const char *, const char *, int);
static int assignment(struct sh *, struct deferred *);
static int deferred_apply(struct sh *, struct deferred *, int);
static int command_word(struct sh *);
static int command(struct sh *);
static int run(struct sh *);

/* Record the first problem, on line.  Returns -1. */
static int
fail(struct sh *sh, int line, const char *fmt, ...)
{
	va_list ap;

	if (sh->msg[0] != '\0')
		return -1;
	va_start(ap, fmt);
	vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
	va_end(ap);
	sh->msgline = line;
	return -1;
}

/* The next byte, or -1 at the end. */
static int
peek(const struct sh *sh)
{
	return peek_at(sh, 0);
}

static int
peek_at(const struct sh *sh, size_t off)
{
	return sh->pos + off < sh->len ? (unsigned char)sh->s[sh->pos + off] :
					 -1;
}

static int
is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_name(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* What ends an unquoted word (and a command, except blanks). */
static int
word_end(int c)
{
	return c == -1 || c == '\n' || c == ';' || is_blank(c);
}

/* The length of the variable name at pos+off, or 0. */
static size_t
name_len(const struct sh *sh, size_t off)
{
	size_t n = 0;

	if (!is_name_start(peek_at(sh, off)))
		return 0;
	while (is_name(peek_at(sh, off + n)))
		n++;
	return n;
}

/*
 * A backslash-newline at pos: 1 a line continuation (skipped), 0 none
 * there, -1 one that ends the file, continuing nothing (refused).
 */
static int
continuation(struct sh *sh)
{
	if (peek(sh) != '\\' || peek_at(sh, 1) != '\n')
		return 0;
	if (sh->pos + 2 >= sh->len)
		return fail(sh, sh->line,
		    "backslash at the end of the file continues nothing");
	sh->pos += 2;
	sh->line++;
	return 1;
}

/* Blanks and line continuations: 0, or -1 (a dangling one). */
static int
skip_blanks(struct sh *sh)
{
	int r;

	for (;;) {
		if (is_blank(peek(sh)))
			sh->pos++;
		else if ((r = continuation(sh)) != 1)
			return r;
	}
}

/* The value of a variable, or NULL (always, when skipping). */
static const char *
lookup(struct sh *sh, const char *name, int skip)
{
	return skip ? NULL : sh->ops->get(sh->ops->arg, name);
}

/* '...', pos on the opening quote. */
static int
single_quote(struct sh *sh, struct buf *out)
{
	int line = sh->line, c;

	for (sh->pos++; (c = peek(sh)) != '\''; sh->pos++) {
		if (c == -1)
			return fail(sh, line, "unterminated single quote");
		if (c == '\n')
			sh->line++;
		buf_append(out, sh->s + sh->pos, 1);
	}
	sh->pos++;
	return 0;
}

/*
 * One backslash escape of $'...', pos on the backslash.  \u and \U are
 * refused: what bash makes of them depends on the locale.
 */
static int
ansi_escape(struct sh *sh, struct buf *out)
{
	static const char from[] = "abeEfnrtv\\'\"?";
	static const char to[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
	int c = peek_at(sh, 1), n, max, base = c == 'x' ? 16 : 8;
	unsigned v = 0;
	const char *m;
	unsigned char b;

	if (c != -1 && (m = strchr(from, c)) != NULL) {
		buf_append(out, &to[m - from], 1);
		sh->pos += 2;
		return 0;
	}
	if (c != 'x' && (c < '0' || c > '7')) {
		if (c == 'u' || c == 'U' || c == 'c')
			return fail(sh, sh->line,
			    "unsupported escape '\\%c' in a $'...' string", c);
		/* Other escapes stay as written, as in bash. */
		buf_append(out, "\\", 1);
		sh->pos++;
		return 0;
	}
	max = base == 16 ? 2 : 3;
	sh->pos += base == 16 ? 2 : 1;
	for (n = 0; n < max; n++, sh->pos++) {
		c = peek(sh);
		if (c >= '0' && c <= (base == 8 ? '7' : '9'))
			v = v * (unsigned)base + (unsigned)(c - '0');
		else if (base == 16 && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (unsigned)((c | 0x20) - 'a' + 10);
		else
			break;
	}
	if (n == 0 || (v & 0xff) == 0)
		return fail(sh, sh->line,
		    "a NUL or empty escape in a $'...' string");
	b = (unsigned char)v;
	buf_append(out, &b, 1);
	return 0;
}

/* $'...', pos on the '$'. */
static int
ansi_quote(struct sh *sh, struct buf *out)
{
	int line = sh->line, c;

	for (sh->pos += 2; (c = peek(sh)) != '\'';) {
		if (c == -1)
			return fail(sh, line, "unterminated $'...' string");
		if (c == '\\') {
			if (ansi_escape(sh, out) == -1)
				return -1;
			continue;
		}
		if (c == '\n')
			sh->line++;
		buf_append(out, sh->s + sh->pos++, 1);
	}
	sh->pos++;
	return 0;
}

/* "...", pos on the opening quote. */
static int
double_quote(struct sh *sh, struct buf *out, int skip)
{
	int line = sh->line, c;

	for (sh->pos++; (c = peek(sh)) != '"';) {
		if (c == -1)
			return fail(sh, line, "unterminated double quote");
		if (c == '\\') {
			if (backslash(sh, out, 1, 0) == -1)
				return -1;
		} else if (c == '$') {
			if (expansion(sh, out, 1, skip) == -1)
				return -1;
		} else if (c == '`')
			return fail(sh, sh->line,
			    "command substitution (`...`) needs a shell");
		else {
			if (c == '\n')
				sh->line++;
			buf_append(out, sh->s + sh->pos++, 1);
		}
	}
	sh->pos++;
	return 0;
}

/*
 * A backslash at pos: a line continuation, or what it quotes (inside
 * double quotes only $ ` " \ and, in ${...}, }).
 */
static int
backslash(struct sh *sh, struct buf *out, int dq, int brace)
{
	int c = peek_at(sh, 1);

	if (c == -1)
		return fail(sh, sh->line,
		    "backslash at the end of the file quotes nothing");
	if (c == '\n')
		return continuation(sh) == -1 ? -1 : 0;
	if (dq && strchr("$`\"\\", c) == NULL && !(brace && c == '}')) {
		buf_append(out, "\\", 1);
		sh->pos++;
		return 0;
	}
	buf_append(out, sh->s + sh->pos + 1, 1);
	sh->pos += 2;
	return 0;
}

/*
 * The operator part of ${name<op>word}, pos on the operator: the word
 * is read (evaluated only when bash would) and the result appended.
 */
static int
brace_op(struct sh *sh, const char *name, struct buf *out, int dq, int skip)
{
	const char *value = lookup(sh, name, skip);
	int colon = peek(sh) == ':', op, set, use, line = sh->line, r;
	char err[160];
	struct buf w;

	sh->pos += (size_t)colon;
	op = peek(sh);
	if (op == -1 || strchr("-=+?", op) == NULL)
		return fail(sh, line, "unsupported expansion '${%s%s%c...}'",
		    name, colon ? ":" : "", op == -1 ? ' ' : op);
	sh->pos++;
	set = value != NULL && (!colon || value[0] != '\0');
	use = op == '+' ? set : !set;
	buf_init(&w, 0);
	r = word(sh, &w, 1, dq, skip || !use);
	if (r == 0 && !skip && use && op == '?')
		r = fail(sh, line, "%s: %s", name,
		    w.len ? buf_str(&w) : "parameter null or not set");
	if (r == 0 && !skip && use && op == '=' &&
	    sh->ops->set(sh->ops->arg, name, buf_str(&w), line, err,
		sizeof(err)) == -1)
		r = fail(sh, line, "%s", err);
	/* Used, the word (a '?' failed above); else the value, or "". */
	if (r == 0 && !skip)
		buf_puts(out, use ? buf_str(&w) : op == '+' ? "" : value);
	buf_free(&w);
	return r;
}

/* ${...}, pos on the '$'. */
static int
braced(struct sh *sh, struct buf *out, int dq, int skip)
{
	size_t n = name_len(sh, 2);
	int line = sh->line, r;
	char *name;
	const char *v;

	if (n == 0)
		return fail(sh, line, "unsupported expansion '${%c...}'",
		    peek_at(sh, 2) == -1 ? ' ' : peek_at(sh, 2));
	name = xstrndup(sh->s + sh->pos + 2, n);
	sh->pos += 2 + n;
	if (peek(sh) == '}') {
		if ((v = lookup(sh, name, skip)) != NULL)
			buf_puts(out, v);
		r = 0;
	} else
		r = brace_op(sh, name, out, dq, skip);
	free(name);
	if (r == -1)
		return -1;
	if (peek(sh) != '}')
		return fail(sh, line, "missing '}'");
	sh->pos++;
	return 0;
}

/* Whatever starts with '$', pos on it. */
static int
expansion(struct sh *sh, struct buf *out, int dq, int skip)
{
	int c = peek_at(sh, 1);
	size_t n;
	char *name;
	const char *v;

	if (c == '(')
		return fail(sh, sh->line,
		    peek_at(sh, 2) == '(' ?
			"arithmetic expansion $((...)) is not supported" :
			"command substitution $(...) needs a shell");
	if (c == '{')
		return braced(sh, out, dq, skip);
	if (c == '\'' && !dq)
		return ansi_quote(sh, out);
	if (c == '"' && !dq) {
		sh->pos++; /* $"..." is "..." */
		return 0;
	}
	if ((n = name_len(sh, 1)) > 0) {
		name = xstrndup(sh->s + sh->pos + 1, n);
		if ((v = lookup(sh, name, skip)) != NULL)
			buf_puts(out, v);
		free(name);
		sh->pos += 1 + n;
		return 0;
	}
	if (c != -1 && strchr("0123456789@*#?$!-", c) != NULL)
		return fail(sh, sh->line,
		    "special parameter '$%c' is not supported", c);
	buf_append(out, "$", 1);
	sh->pos++;
	return 0;
}

/* ~ or ~/... at the start of a value or after ':', pos on the '~'. */
static int
tilde(struct sh *sh, struct buf *out, int brace, int skip)
{
	const char *home;
	size_t n = 1;
	int c;

	while ((c = peek_at(sh, n)) != '/' && c != ':' && !word_end(c) &&
	    !(brace && c == '}'))
		n++;
	if (n > 1)
		return fail(sh, sh->line, "'~%.*s' is not supported",
		    (int)(n - 1), sh->s + sh->pos + 1);
	home = lookup(sh, "HOME", skip);
	buf_puts(out, home != NULL ? home : "~");
	sh->pos++;
	return 0;
}

/*
 * A word from pos into out: an assignment's value (brace 0: it ends at
 * an unquoted blank, newline or ';') or the word of ${name-word}
 * (brace 1: it ends at the unquoted '}'; dq: inside double quotes).
 */
static int
word(struct sh *sh, struct buf *out, int brace, int dq, int skip)
{
	int c, tilde_ok = !dq, r;

	for (;; tilde_ok = !brace && c == ':') {
		c = peek(sh);
		if (brace ? c == '}' : word_end(c))
			return 0;
		if (c == -1)
			return fail(sh, sh->line, "missing '}'");
		if (!brace && strchr(SH_META, c) != NULL)
			return fail(sh, sh->line, "'%c' needs a shell", c);
		if (c == '\\')
			r = backslash(sh, out, dq, brace);
		else if (c == '\'' && !dq)
			r = single_quote(sh, out);
		else if (c == '"')
			r = double_quote(sh, out, skip);
		else if (c == '$')
			r = expansion(sh, out, dq, skip);
		else if (c == '`')
			r = fail(sh, sh->line,
			    "command substitution (`...`) needs a shell");
		else if (c == '~' && tilde_ok)
			r = tilde(sh, out, brace, skip);
		else {
			if (c == '\n')
				sh->line++;
			buf_append(out, sh->s + sh->pos++, 1);
			r = 0;
		}
		if (r == -1)
			return -1;
	}
}

static int
assign(struct sh *sh, const char *name, const char *value, int line)
{
	char err[160];

	err[0] = '\0';
	if (sh->ops->set(sh->ops->arg, name, value, line, err, sizeof(err)) ==
	    -1)
		return fail(sh, line, "%s", err[0] ? err : "refused");
	return 0;
}

/*
 * NAME=word or NAME+=word at pos: assigned now, or (for `export`) kept
 * in later.
 */
static int
assignment(struct sh *sh, struct deferred *later)
{
	size_t n = name_len(sh, 0);
	int line = sh->line, append = peek_at(sh, n) == '+', r;
	char *name = xstrndup(sh->s + sh->pos, n);
	const char *old;
	struct buf v;

	buf_init(&v, 0);
	sh->pos += n + 1 + (size_t)append;
	if (append && (old = lookup(sh, name, 0)) != NULL)
		buf_puts(&v, old);
	if ((r = word(sh, &v, 0, 0, 0)) == 0 && later == NULL)
		r = assign(sh, name, buf_str(&v), line);
	else if (r == 0) {
		later->name = xreallocarray(later->name, later->n + 1,
		    sizeof(*later->name));
		later->value = xreallocarray(later->value, later->n + 1,
		    sizeof(*later->value));
		later->line = xreallocarray(later->line, later->n + 1,
		    sizeof(*later->line));
		later->name[later->n] = name;
		later->value[later->n] = buf_steal(&v);
		later->line[later->n++] = line;
		name = NULL;
	}
	if (v.data != NULL)
		memset(v.data, 0, v.len);
	buf_free(&v);
	free(name);
	return r;
}

/* Make the kept assignments (when ok) and free them: 0 or -1. */
static int
deferred_apply(struct sh *sh, struct deferred *later, int ok)
{
	size_t i;
	int r = ok ? 0 : -1;

	for (i = 0; i < later->n; i++) {
		if (r == 0)
			r = assign(sh, later->name[i], later->value[i],
			    later->line[i]);
		memset(later->value[i], 0, strlen(later->value[i]));
		free(later->name[i]);
		free(later->value[i]);
	}
	free(later->name);
	free(later->value);
	free(later->line);
	memset(later, 0, sizeof(*later));
	return r;
}

/* A word that is not an assignment: a command, refused. */
static int
command_word(struct sh *sh)
{
	size_t n = 0;
	int c;

	c = peek(sh);
	if (strchr(SH_META, c) != NULL)
		return fail(sh, sh->line, "'%c' needs a shell", c);
	if (c == '\r')
		return fail(sh, sh->line,
		    "carriage return outside quotes "
		    "(the file has DOS line ends)");
	while (!word_end(peek_at(sh, n)) && n < 40)
		n++;
	return fail(sh, sh->line,
	    "'%.*s' is a command: only variable assignments are allowed",
	    (int)n, sh->s + sh->pos);
}

/*
 * One simple command: assignments, or `export` and assignments or
 * names.  Ends before a newline, ';', comment or the end.
 */
static int
command(struct sh *sh)
{
	struct deferred later;
	size_t n = name_len(sh, 0);
	int export = 0, r = 0, c;

	memset(&later, 0, sizeof(later));
	if (n == 6 && strncmp(sh->s + sh->pos, "export", 6) == 0 &&
	    word_end(peek_at(sh, 6))) {
		export = 1;
		sh->pos += 6;
		if (skip_blanks(sh) == -1)
			return -1;
		if (word_end(peek(sh)) || peek(sh) == '#')
			return fail(sh, sh->line, "'export' without a name");
	}
	while (r == 0 && !word_end(c = peek(sh)) && c != '#') {
		n = name_len(sh, 0);
		if (n > 0 &&
		    (peek_at(sh, n) == '=' ||
			(peek_at(sh, n) == '+' && peek_at(sh, n + 1) == '=')))
			r = assignment(sh, export ? &later : NULL);
		else if (export && n > 0 && word_end(peek_at(sh, n)))
			sh->pos += n; /* export NAME: already exported */
		else
			r = command_word(sh);
		if (r == 0)
			r = skip_blanks(sh);
	}
	return deferred_apply(sh, &later, r == 0);
}

static int
run(struct sh *sh)
{
	int c;

	if (memchr(sh->s, '\0', sh->len) != NULL) {
		const char *nul = memchr(sh->s, '\0', sh->len), *p;

		for (p = sh->s; p < nul; p++)
			if (*p == '\n')
				sh->line++;
		return fail(sh, sh->line, "NUL byte in the file");
	}
	for (;;) {
		if (skip_blanks(sh) == -1)
			return -1;
		c = peek(sh);
		if (c == -1)
			return 0;
		if (c == '\n') {
			sh->pos++;
			sh->line++;
		} else if (c == '#') {
			while (peek(sh) != -1 && peek(sh) != '\n')
				sh->pos++;
		} else if (c == ';')
			return fail(sh, sh->line, "syntax error near ';'");
		else if (command(sh) == -1)
			return -1;
		else if (peek(sh) == ';') {
			sh->pos++;
			if (skip_blanks(sh) == -1)
				return -1;
			if (peek(sh) == ';')
				return fail(sh, sh->line,
				    "syntax error near ';;'");
		}
	}
}

int
envfile_parse(const char *name, const char *text, size_t len,
    const struct envfile_ops *ops, char *err, size_t errsz)
{
	struct sh sh;

	memset(&sh, 0, sizeof(sh));
	sh.s = text;
	sh.len = len;
	sh.line = 1;
	sh.ops = ops;
	if (run(&sh) == 0)
		return 0;
	snprintf(err, errsz, "%s:%d: %s", name, sh.msgline, sh.msg);
	return -1;
}
