/*
 * Shell text split into commands and words (see guard_shell.h), in one
 * pass over the text; a substitution's text is found by scanning to its
 * closing character once, so the whole stays linear in the text's
 * length for each level of nesting.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "guard_shell.h"
#include "xmalloc.h"

/* Where the word being read goes. */
enum sh_mode {
	SH_WORD,   /* a word of the command */
	SH_IN,	   /* the target of a '<' */
	SH_OUT,	   /* the target of a '>' */
	SH_DUP,	   /* after '>&': a descriptor, or a file written */
	SH_DROP,   /* after '<&': a descriptor */
	SH_STRING, /* a here-string: the command's input */
};

/* A here-document waiting for its body at the next newline. */
struct sh_doc {
	char *delim;
	int strip;  /* <<-: leading tabs removed */
	int quoted; /* its delimiter was quoted: the body is literal */
	size_t cmd;
};

struct sh_lex {
	const char *s;
	size_t i;
	struct buf word;
	int have_word;
	enum sh_mode mode;
	struct guard_shell_cmd cur;
	int cur_used; /* the command has a here-document */
	unsigned opens;
	struct guard_shell *out;
	struct sh_doc *docs;
	size_t ndocs;
};

/* Characters looked at, for the fuzz harness's bound (guard_shell.h). */
static unsigned long long sh_work;

static void sh_push(char ***, size_t *, char *);
static size_t sh_closing(const char *, size_t, char, char);
static void sh_put(struct buf *, char);
static void sh_marker(struct buf *, char, const char *, size_t);
static void sh_sub(struct sh_lex *, const char *, size_t, struct buf *, size_t);
static void sh_word_subs(struct sh_lex *, const char *, size_t, size_t, size_t);
static size_t sh_brace(struct sh_lex *, const char *, size_t, struct buf *,
    size_t);
static size_t sh_backtick(struct sh_lex *, const char *, size_t, struct buf *,
    size_t);
static size_t sh_dollar(struct sh_lex *, const char *, size_t, struct buf *,
    size_t);
static void sh_end_word(struct sh_lex *);
static void sh_end_cmd(struct sh_lex *, enum guard_shell_op);
static void sh_single(struct sh_lex *);
static void sh_ansi(struct sh_lex *);
static void sh_double(struct sh_lex *);
static void sh_tilde(struct sh_lex *);
static void sh_heredoc(struct sh_lex *);
static char *sh_doc_body(struct sh_lex *, const struct sh_doc *);
static void sh_read_docs(struct sh_lex *);
static void sh_redirect(struct sh_lex *);
static int sh_operator(struct sh_lex *);
static void sh_char(struct sh_lex *);

static void
sh_push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

/*
 * The index of the close that ends what open started just before i, with
 * quotes inside skipped; the end of s when there is none.
 */
static size_t
sh_closing(const char *s, size_t i, char open, char close)
{
	int depth = 1;
	char q = 0;

	for (; s[i] != '\0'; i++) {
		sh_work++;
		if (q != 0) {
			if (s[i] == '\\' && q == '"' && s[i + 1] != '\0')
				i++;
			else if (s[i] == q)
				q = 0;
		} else if (s[i] == '\\' && s[i + 1] != '\0')
			i++;
		else if ((s[i] == '\'' || s[i] == '"') && open != '`')
			q = s[i];
		else if (s[i] == open && open != close)
			depth++;
		else if (s[i] == close && --depth == 0)
			break;
	}
	return i;
}

/* One character of text into b: the marker bytes but UNKNOWN become '?'. */
static void
sh_put(struct buf *b, char c)
{
	if (c == GUARD_SHELL_VAR || c == GUARD_SHELL_END ||
	    c == GUARD_SHELL_SUB)
		c = '?';
	buf_append(b, &c, 1);
}

/* A marker: kind, then n bytes of name, then the end. */
static void
sh_marker(struct buf *b, char kind, const char *name, size_t n)
{
	buf_append(b, &kind, 1);
	buf_append(b, name, n);
	buf_append(b, (char[]) {GUARD_SHELL_END}, 1);
}

/* The text s[0, n) as a substitution run before cmd; its marker into b. */
static void
sh_sub(struct sh_lex *l, const char *s, size_t n, struct buf *b, size_t cmd)
{
	struct guard_shell *o = l->out;
	char num[32];

	o->subs = xreallocarray(o->subs, o->nsubs + 1, sizeof(*o->subs));
	o->subs[o->nsubs].text = xstrndup(s, n);
	o->subs[o->nsubs].cmd = cmd;
	snprintf(num, sizeof(num), "%zu", o->nsubs++);
	sh_marker(b, GUARD_SHELL_SUB, num, strlen(num));
}

/*
 * The substitutions in s[from, to) (the word of a ${NAME:-word}) run
 * before cmd; what they stand for is not kept.
 */
static void
sh_word_subs(struct sh_lex *l, const char *s, size_t from, size_t to,
    size_t cmd)
{
	struct buf ignored;
	char *part = xstrndup(s + from, to - from);
	size_t k, n;

	buf_init(&ignored, 0);
	for (k = 0; part[k] != '\0';) {
		if (part[k] == '`')
			k = sh_backtick(l, part, k, &ignored, cmd);
		else if (part[k] == '$' && part[k + 1] == '(' &&
		    part[k + 2] != '(')
			k = sh_dollar(l, part, k, &ignored, cmd);
		else if (part[k] == '$' && part[k + 1] == '{') {
			/* Nested: skipped whole, which keeps this linear. */
			n = sh_closing(part, k + 2, '{', '}');
			k = part[n] != '\0' ? n + 1 : n;
		} else
			k++;
	}
	buf_free(&ignored);
	free(part);
}

/*
 * ${...} at s[i]: ${NAME} and ${NAME:-word} (and -, :=, =) stand for
 * NAME, every other form for something unknown; a word holding a
 * command is run as a substitution.  Returns the index past it.
 */
static size_t
sh_brace(struct sh_lex *l, const char *s, size_t i, struct buf *b, size_t cmd)
{
	size_t end = sh_closing(s, i + 2, '{', '}'), n = 0;
	const char *in = s + i + 2, *rest;

	while (isalnum((unsigned char)in[n]) || in[n] == '_')
		n++;
	rest = in + n + (in[n] == ':');
	if (n > 0 && !isdigit((unsigned char)in[0]) &&
	    (in + n == s + end ||
		((*rest == '-' || *rest == '=') && rest > in)))
		sh_marker(b, GUARD_SHELL_VAR, in, n);
	else
		sh_put(b, GUARD_SHELL_UNKNOWN);
	sh_word_subs(l, s, (size_t)(in + n - s), end, cmd);
	return s[end] != '\0' ? end + 1 : end;
}

/* `...` at s[i]: its text (\`, \\ and \$ unescaped) as a substitution. */
static size_t
sh_backtick(struct sh_lex *l, const char *s, size_t i, struct buf *b,
    size_t cmd)
{
	size_t end = sh_closing(s, i + 1, '`', '`'), k;
	struct buf text;

	buf_init(&text, 0);
	for (k = i + 1; k < end; k++) {
		if (s[k] == '\\' && k + 1 < end && strchr("`\\$", s[k + 1]))
			k++;
		buf_append(&text, s + k, 1);
	}
	sh_sub(l, buf_str(&text), text.len, b, cmd);
	buf_free(&text);
	return s[end] != '\0' ? end + 1 : end;
}

/*
 * At the '$' of s[i]: an expansion into b (substitutions run before
 * cmd).  Returns the index past it, or i for a '$' that is only one.
 */
static size_t
sh_dollar(struct sh_lex *l, const char *s, size_t i, struct buf *b, size_t cmd)
{
	size_t end, n = 0;
	char c = s[i + 1];

	if (c == '(' && s[i + 2] == '(') {
		end = sh_closing(s, i + 3, '(', ')');
		end = s[end] != '\0' ? sh_closing(s, end + 1, '(', ')') : end;
		sh_put(b, GUARD_SHELL_UNKNOWN);
		return s[end] != '\0' ? end + 1 : end;
	}
	if (c == '(') {
		end = sh_closing(s, i + 2, '(', ')');
		sh_sub(l, s + i + 2, end - (i + 2), b, cmd);
		return s[end] != '\0' ? end + 1 : end;
	}
	if (c == '{')
		return sh_brace(l, s, i, b, cmd);
	if (isalpha((unsigned char)c) || c == '_') {
		while (
		    isalnum((unsigned char)s[i + 1 + n]) || s[i + 1 + n] == '_')
			n++;
		sh_marker(b, GUARD_SHELL_VAR, s + i + 1, n);
		return i + 1 + n;
	}
	if (c != '\0' && (isdigit((unsigned char)c) || strchr("@*#?$!-", c))) {
		sh_put(b, GUARD_SHELL_UNKNOWN);
		return i + 2;
	}
	return i;
}

/* The word read so far goes where the mode says. */
static void
sh_end_word(struct sh_lex *l)
{
	struct guard_shell_cmd *c = &l->cur;
	char *w;

	if (!l->have_word)
		return;
	w = buf_steal(&l->word);
	buf_init(&l->word, 0);
	if (l->mode == SH_DUP &&
	    (strcmp(w, "-") == 0 || w[strspn(w, "0123456789")] == '\0'))
		l->mode = SH_DROP;
	switch (l->mode) {
	case SH_WORD:
		sh_push(&c->words, &c->nwords, w);
		break;
	case SH_IN:
	case SH_OUT:
	case SH_DUP:
		c->redirs = xreallocarray(c->redirs, c->nredirs + 1,
		    sizeof(*c->redirs));
		c->redirs[c->nredirs].out = l->mode != SH_IN;
		c->redirs[c->nredirs++].target = w;
		break;
	case SH_STRING:
		free(c->input);
		c->input = w;
		break;
	case SH_DROP:
		free(w);
		break;
	}
	l->have_word = 0;
	l->mode = SH_WORD;
}

/*
 * The command read so far ends, followed by op; with nothing read, op
 * belongs to the command before (a newline ends nothing then: "a |"
 * continues on the next line).
 */
static void
sh_end_cmd(struct sh_lex *l, enum guard_shell_op op)
{
	struct guard_shell *o = l->out;
	struct guard_shell_cmd *c = &l->cur;

	sh_end_word(l);
	if (c->nwords == 0 && c->nredirs == 0 && c->input == NULL &&
	    !l->cur_used) {
		if (op != GUARD_SHELL_SEQ && o->ncmds > 0)
			o->cmds[o->ncmds - 1].op = op;
		return;
	}
	c->op = op;
	c->opens = l->opens;
	l->opens = 0;
	o->cmds = xreallocarray(o->cmds, o->ncmds + 1, sizeof(*o->cmds));
	o->cmds[o->ncmds++] = *c;
	memset(c, 0, sizeof(*c));
	l->cur_used = 0;
}

static void
sh_single(struct sh_lex *l)
{
	const char *s = l->s;

	l->have_word = 1;
	for (l->i++; s[l->i] != '\0' && s[l->i] != '\''; l->i++)
		sh_put(&l->word, s[l->i]);
	if (s[l->i] == '\'')
		l->i++;
}

/* $'...' with its escapes (\n, \t, \xHH, \NNN, \\, \', ...). */
static void
sh_ansi(struct sh_lex *l)
{
	static const char from[] = "ntrabefv\\'\"?",
			  to[] = "\n\t\r\a\b\033\f\v\\'\"?";
	const char *s = l->s, *p;
	unsigned v;
	int k;

	l->have_word = 1;
	for (l->i += 2; s[l->i] != '\0' && s[l->i] != '\''; l->i++) {
		if (s[l->i] != '\\' || s[l->i + 1] == '\0') {
			sh_put(&l->word, s[l->i]);
			continue;
		}
		l->i++;
		if ((p = strchr(from, s[l->i])) != NULL)
			sh_put(&l->word, to[p - from]);
		else if (s[l->i] == 'x' || (s[l->i] >= '0' && s[l->i] <= '7')) {
			int hex = s[l->i] == 'x';

			l->i += hex;
			for (v = 0, k = 0; k < (hex ? 2 : 3) &&
			     (hex ? isxdigit((unsigned char)s[l->i]) :
				    (s[l->i] >= '0' && s[l->i] <= '7'));
			     k++, l->i++)
				v = v * (hex ? 16 : 8) +
				    (unsigned)(isdigit((unsigned char)s[l->i]) ?
					    s[l->i] - '0' :
					    (tolower((unsigned char)s[l->i]) -
						'a' + 10));
			l->i--;
			if (v != 0)
				sh_put(&l->word, (char)v);
		} else {
			sh_put(&l->word, '\\');
			sh_put(&l->word, s[l->i]);
		}
	}
	if (s[l->i] == '\'')
		l->i++;
}

/* "..." from its opening quote. */
static void
sh_double(struct sh_lex *l)
{
	const char *s = l->s;
	size_t cmd = l->out->ncmds, n;

	l->have_word = 1;
	for (l->i++; s[l->i] != '\0' && s[l->i] != '"';) {
		if (s[l->i] == '\\' && s[l->i + 1] != '\0' &&
		    strchr("\"\\$`\n", s[l->i + 1]) != NULL) {
			if (s[l->i + 1] != '\n')
				sh_put(&l->word, s[l->i + 1]);
			l->i += 2;
		} else if (s[l->i] == '`')
			l->i = sh_backtick(l, s, l->i, &l->word, cmd);
		else if (s[l->i] == '$' &&
		    (n = sh_dollar(l, s, l->i, &l->word, cmd)) != l->i)
			l->i = n;
		else
			sh_put(&l->word, s[l->i++]);
	}
	if (s[l->i] == '"')
		l->i++;
}

/* An unquoted '~' starting a word (or a NAME=~ assignment's value). */
static void
sh_tilde(struct sh_lex *l)
{
	const char *s = l->s + l->i + 1;
	size_t n = 0;

	l->have_word = 1;
	if (*s == '+' || *s == '-') {
		n = 1;
		sh_marker(&l->word, GUARD_SHELL_VAR,
		    *s == '+' ? "PWD" : "OLDPWD", *s == '+' ? 3 : 6);
	} else if (*s == '\0' || *s == '/' || strchr(" \t\n;&|<>()", *s))
		sh_marker(&l->word, GUARD_SHELL_VAR, "HOME", 4);
	else {
		while (isalnum((unsigned char)s[n]) ||
		    (s[n] != '\0' && strchr("._-", s[n]) != NULL))
			n++;
		sh_put(&l->word, GUARD_SHELL_UNKNOWN);
	}
	l->i += 1 + n;
}

/* After "<<" or "<<-": the delimiter of a here-document. */
static void
sh_heredoc(struct sh_lex *l)
{
	const char *s = l->s;
	struct sh_doc d = {NULL, 0, 0, l->out->ncmds};
	struct buf delim;
	char q = 0;

	if (s[l->i] == '-') {
		d.strip = 1;
		l->i++;
	}
	while (s[l->i] == ' ' || s[l->i] == '\t')
		l->i++;
	buf_init(&delim, 0);
	for (; s[l->i] != '\0'; l->i++) {
		if (q != 0 && s[l->i] == q)
			q = 0;
		else if (q == 0 && (s[l->i] == '\'' || s[l->i] == '"'))
			q = s[l->i], d.quoted = 1;
		else if (q == 0 && strchr(" \t\n;&|<>()", s[l->i]) != NULL)
			break;
		else if (q == 0 && s[l->i] == '\\' && s[l->i + 1] != '\0') {
			d.quoted = 1;
			buf_append(&delim, s + ++l->i, 1);
		} else
			buf_append(&delim, s + l->i, 1);
	}
	d.delim = buf_steal(&delim);
	l->docs = xreallocarray(l->docs, l->ndocs + 1, sizeof(*l->docs));
	l->docs[l->ndocs++] = d;
	l->cur_used = 1;
}

/*
 * The body of here-document d from l->i (past it when it returns), as
 * its command reads it: literal when the delimiter was quoted, else
 * with its expansions.  Caller frees.
 */
static char *
sh_doc_body(struct sh_lex *l, const struct sh_doc *d)
{
	const char *s = l->s, *line, *eol;
	struct buf raw, out;
	size_t len, k, n;

	buf_init(&raw, 0);
	while (s[l->i] != '\0') {
		line = s + l->i;
		eol = strchr(line, '\n');
		len = eol != NULL ? (size_t)(eol - line) : strlen(line);
		l->i += len + (eol != NULL);
		sh_work += len + 1;
		for (; d->strip && len > 0 && *line == '\t'; line++)
			len--;
		if (len == strlen(d->delim) &&
		    strncmp(line, d->delim, len) == 0)
			break;
		buf_append(&raw, line, len);
		buf_puts(&raw, "\n");
	}
	buf_init(&out, 0);
	line = buf_str(&raw);
	for (k = 0; k < raw.len;) {
		if (!d->quoted && line[k] == '\\' && line[k + 1] != '\0' &&
		    strchr("$`\\\n", line[k + 1]) != NULL) {
			if (line[k + 1] != '\n')
				sh_put(&out, line[k + 1]);
			k += 2;
		} else if (!d->quoted && line[k] == '`')
			k = sh_backtick(l, line, k, &out, d->cmd);
		else if (!d->quoted && line[k] == '$' &&
		    (n = sh_dollar(l, line, k, &out, d->cmd)) != k)
			k = n;
		else
			sh_put(&out, line[k++]);
	}
	buf_free(&raw);
	return buf_steal(&out);
}

/* At a newline: the bodies of the pending here-documents, in order. */
static void
sh_read_docs(struct sh_lex *l)
{
	struct guard_shell *o = l->out;
	size_t k;
	char *body;

	for (k = 0; k < l->ndocs; k++) {
		body = sh_doc_body(l, &l->docs[k]);
		if (l->docs[k].cmd < o->ncmds) {
			free(o->cmds[l->docs[k].cmd].input);
			o->cmds[l->docs[k].cmd].input = body;
		} else
			free(body);
		free(l->docs[k].delim);
	}
	free(l->docs);
	l->docs = NULL;
	l->ndocs = 0;
}

/*
 * At '<', '>' or "&>" (a descriptor number may be the word before): a
 * target, a here-document or here-string, a descriptor, or a process
 * substitution.
 */
static void
sh_redirect(struct sh_lex *l)
{
	const char *s = l->s, *w = buf_str(&l->word);
	size_t i = l->i, end;

	if (l->have_word && w[strspn(w, "0123456789")] == '\0') {
		buf_reset(&l->word);
		l->have_word = 0;
	}
	sh_end_word(l);
	if ((s[i] == '<' || s[i] == '>') && s[i + 1] == '(') {
		/* <(cmd), >(cmd): a file name of /dev/fd, unknown here. */
		end = sh_closing(s, i + 2, '(', ')');
		sh_sub(l, s + i + 2, end - (i + 2), &l->word, l->out->ncmds);
		buf_reset(&l->word);
		sh_put(&l->word, GUARD_SHELL_UNKNOWN);
		l->have_word = 1;
		l->i = s[end] != '\0' ? end + 1 : end;
		return;
	}
	if (s[i] == '<' && s[i + 1] == '<' && s[i + 2] == '<') {
		l->mode = SH_STRING;
		i += 3;
	} else if (s[i] == '<' && s[i + 1] == '<') {
		l->i = i + 2;
		sh_heredoc(l);
		return;
	} else if (s[i] == '<') {
		i++;
		l->mode = s[i] == '&' ? SH_DROP : s[i] == '>' ? SH_OUT : SH_IN;
		i += s[i] == '&' || s[i] == '>';
	} else {
		i += s[i] == '&';
		for (i++; s[i] == '>' || s[i] == '|'; i++)
			;
		l->mode = SH_OUT;
		if (s[i] == '&') {
			l->mode = SH_DUP;
			i++;
		}
	}
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	l->i = i;
}

/*
 * An unquoted character that ends a word or a command.  Returns 1 when
 * it was one (and consumed), 0 when it belongs to a word.
 */
static int
sh_operator(struct sh_lex *l)
{
	const char *s = l->s;
	char c = s[l->i], d = s[l->i + 1];

	if (c == ' ' || c == '\t') {
		sh_end_word(l);
		l->i++;
	} else if (c == '\n') {
		sh_end_cmd(l, GUARD_SHELL_SEQ);
		l->i++;
		sh_read_docs(l);
	} else if (c == '<' || c == '>' || (c == '&' && d == '>'))
		sh_redirect(l);
	else if (c == ';') {
		sh_end_cmd(l, GUARD_SHELL_SEQ);
		l->i++;
	} else if (c == '&') {
		sh_end_cmd(l, d == '&' ? GUARD_SHELL_AND : GUARD_SHELL_BG);
		l->i += 1 + (d == '&');
	} else if (c == '|') {
		sh_end_cmd(l, d == '|' ? GUARD_SHELL_OR : GUARD_SHELL_PIPE);
		l->i += 1 + (d == '|' || d == '&');
	} else if (c == '(') {
		sh_end_cmd(l, GUARD_SHELL_SEQ);
		l->opens++;
		l->i++;
	} else if (c == ')') {
		sh_end_cmd(l, GUARD_SHELL_SEQ);
		if (l->opens > 0)
			l->opens--;
		else if (l->out->ncmds > 0)
			l->out->cmds[l->out->ncmds - 1].closes++;
		l->i++;
	} else if (c == '#' && !l->have_word) {
		while (s[l->i] != '\0' && s[l->i] != '\n')
			l->i++;
	} else
		return 0;
	return 1;
}

/* A character of a word outside quotes. */
static void
sh_char(struct sh_lex *l)
{
	const char *s = l->s, *w = buf_str(&l->word);
	size_t n;
	char c = s[l->i];

	if (c == '\'')
		sh_single(l);
	else if (c == '"')
		sh_double(l);
	else if (c == '`') {
		l->i = sh_backtick(l, s, l->i, &l->word, l->out->ncmds);
		l->have_word = 1;
	} else if (c == '$' && s[l->i + 1] == '\'')
		sh_ansi(l);
	else if (c == '$' && s[l->i + 1] == '"') {
		l->i++;
		sh_double(l);
	} else if (c == '$' &&
	    (n = sh_dollar(l, s, l->i, &l->word, l->out->ncmds)) != l->i) {
		l->i = n;
		l->have_word = 1;
	} else if (c == '\\' && s[l->i + 1] != '\0') {
		if (s[l->i + 1] != '\n') {
			sh_put(&l->word, s[l->i + 1]);
			l->have_word = 1;
		}
		l->i += 2;
	} else if (c == '~' &&
	    (!l->have_word ||
		(l->word.len > 1 && w[l->word.len - 1] == '=' &&
		    strcspn(w, "=") == l->word.len - 1 &&
		    (isalpha((unsigned char)w[0]) || w[0] == '_'))))
		sh_tilde(l);
	else {
		sh_put(&l->word, c);
		l->have_word = 1;
		l->i++;
	}
}

void
guard_shell_parse(const char *text, struct guard_shell *out)
{
	struct sh_lex l;
	size_t k;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	l.s = text;
	l.out = out;
	buf_init(&l.word, 0);
	while (text[l.i] != '\0') {
		sh_work++;
		if (!sh_operator(&l))
			sh_char(&l);
	}
	sh_end_cmd(&l, GUARD_SHELL_SEQ);
	sh_read_docs(&l);
	for (k = 0; k < l.cur.nwords; k++)
		free(l.cur.words[k]);
	free(l.cur.words);
	buf_free(&l.word);
}

unsigned long long
guard_shell_work(void)
{
	return sh_work;
}

void
guard_shell_free(struct guard_shell *sh)
{
	size_t i, k;

	for (i = 0; i < sh->ncmds; i++) {
		struct guard_shell_cmd *c = &sh->cmds[i];

		for (k = 0; k < c->nwords; k++)
			free(c->words[k]);
		free(c->words);
		for (k = 0; k < c->nredirs; k++)
			free(c->redirs[k].target);
		free(c->redirs);
		free(c->input);
	}
	free(sh->cmds);
	for (i = 0; i < sh->nsubs; i++)
		free(sh->subs[i].text);
	free(sh->subs);
	memset(sh, 0, sizeof(*sh));
}

int
guard_shell_has_unknown(const char *s)
{
	return s != NULL && strchr(s, GUARD_SHELL_UNKNOWN) != NULL;
}

int
guard_shell_refuse(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	return 1;
}
