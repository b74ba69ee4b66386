/*
 * The guard of an agent's shell commands (see agent_guard.h).  The text
 * is first split into simple commands (words and redirection targets),
 * as a shell would split it without expanding anything; then each
 * command is judged by its name, past the words that only run another
 * command (sudo, env, xargs, timeout, ...).
 */
#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_guard.h"
#include "buf.h"
#include "strv.h"
#include "xmalloc.h"

/* `sh -c 'eval "..."'` and the like are followed this deep. */
#define GUARD_DEPTH 4
#define GUARD_PATH_MAX 4096

/* A simple command: its words, and the targets of its redirections. */
struct guard_cmd {
	char **words;
	size_t nwords;
	char **redirs;
	size_t nredirs;
};

/* A command text, split. */
struct guard_split {
	struct guard_cmd *cmds;
	size_t ncmds;
	char **subs; /* the texts of command substitutions */
	size_t nsubs;
};

/* The guard's places, normalized ("" when unknown). */
struct guard_ctx {
	const char *primary;
	char worktree[GUARD_PATH_MAX];
	char factory[GUARD_PATH_MAX];
	char run_dir[GUARD_PATH_MAX];
	char home[GUARD_PATH_MAX];
	char cwd[GUARD_PATH_MAX];
};

/* The splitter's state. */
struct guard_lex {
	const char *s;
	size_t i;
	struct buf word;
	int have_word;
	int redirect; /* the word being read is a redirection target */
	int dropped;  /* ... or data to drop (a here-string, a >&2) */
	struct guard_cmd cur;
	struct guard_split *out;
	char **docs; /* here-document delimiters to skip at the newline */
	size_t ndocs;
};

static void strs_push(char ***, size_t *, char *);
static void lex_end_word(struct guard_lex *);
static void lex_end_cmd(struct guard_lex *);
static size_t lex_closing(const char *, size_t, char, char);
static void lex_subst(struct guard_lex *, size_t, size_t);
static int lex_dollar(struct guard_lex *);
static void lex_quoted(struct guard_lex *, char);
static void lex_redirect(struct guard_lex *);
static void lex_heredoc(struct guard_lex *);
static void lex_skip_docs(struct guard_lex *);
static int lex_operator(struct guard_lex *);
static void guard_split(const char *, struct guard_split *);
static void guard_split_free(struct guard_split *);
static const char *base_name(const char *);
static int is_assignment(const char *);
static size_t skip_runners(char *const *, size_t, size_t);
static int refuse(char *, size_t, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static int normalize(const char *, char *, size_t);
static const char *var_prefix(const char *, const char *);
static int resolve(const struct guard_ctx *, const char *, char *, size_t);
static int under(const char *, const char *);
static int in_scratch(const struct guard_ctx *, const char *);
static int names_primary(const struct guard_ctx *, const char *);
static int names_primary_ref(const struct guard_ctx *, const char *);
static int check_push(const struct guard_ctx *, char *const *, size_t, char *,
    size_t);
static int check_checkout(const struct guard_ctx *, char *const *, size_t,
    char *, size_t);
static const char *subcommand(char *const *, size_t, size_t *,
    const char *const *);
static int check_git(const struct guard_ctx *, char *const *, size_t, char *,
    size_t);
static int check_rm(const struct guard_ctx *, char *const *, size_t, char *,
    size_t);
static int check_kill(const char *, char *const *, size_t, char *, size_t);
static int one_of(const char *, const char *const *);
static int check_tmux(char *const *, size_t, char *, size_t);
static int check_docker(const char *, char *const *, size_t, char *, size_t);
static int check_tea(char *const *, size_t, char *, size_t);
static int factory_word(const struct guard_ctx *, const char *, char *, size_t);
static int check_factory(const struct guard_ctx *, const struct guard_cmd *,
    size_t, char *, size_t);
static const char *shell_script(const char *, char *const *, size_t);
static int check_cmd(const struct guard_ctx *, const struct guard_cmd *, int,
    char *, size_t);
static int matches(const char *, const char *);
static int writes(const char *);
static int check_judging(const char *, char *, size_t);
static int check_api(const char *, char *, size_t);
static int check_text(const struct guard_ctx *, const char *, int, char *,
    size_t);
static void ctx_path(const char *, char *, size_t);

static void
strs_push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

/* The word read so far goes to the command (or is dropped). */
static void
lex_end_word(struct guard_lex *l)
{
	char *w;

	if (!l->have_word)
		return;
	w = xstrdup(buf_str(&l->word));
	if (l->dropped)
		free(w);
	else if (l->redirect)
		strs_push(&l->cur.redirs, &l->cur.nredirs, w);
	else
		strs_push(&l->cur.words, &l->cur.nwords, w);
	buf_reset(&l->word);
	l->have_word = l->redirect = l->dropped = 0;
}

static void
lex_end_cmd(struct guard_lex *l)
{
	lex_end_word(l);
	if (l->cur.nwords == 0 && l->cur.nredirs == 0)
		return;
	l->out->cmds = xreallocarray(l->out->cmds, l->out->ncmds + 1,
	    sizeof(*l->out->cmds));
	l->out->cmds[l->out->ncmds++] = l->cur;
	memset(&l->cur, 0, sizeof(l->cur));
}

/*
 * The index of the close that ends what open started just before i, with
 * quotes inside skipped; the end of s when there is none.
 */
static size_t
lex_closing(const char *s, size_t i, char open, char close)
{
	int depth = 1;
	char q = 0;

	for (; s[i] != '\0'; i++) {
		if (q != 0) {
			if (s[i] == '\\' && q == '"' && s[i + 1] != '\0')
				i++;
			else if (s[i] == q)
				q = 0;
		} else if (s[i] == '\\' && s[i + 1] != '\0')
			i++;
		else if (s[i] == '\'' || s[i] == '"')
			q = s[i];
		else if (s[i] == open && open != close)
			depth++;
		else if (s[i] == close && --depth == 0)
			break;
	}
	return i;
}

/*
 * A command substitution s[from, to): its text is a command of its own;
 * in the word it stands for something unknown ("$()").
 */
static void
lex_subst(struct guard_lex *l, size_t from, size_t to)
{
	strs_push(&l->out->subs, &l->out->nsubs,
	    xstrndup(l->s + from, to - from));
	buf_puts(&l->word, "$()");
	l->have_word = 1;
	l->i = l->s[to] != '\0' ? to + 1 : to;
}

/*
 * At a '$': a command substitution, an arithmetic expansion or a
 * ${...}.  Returns 1 when one was consumed, 0 for a plain '$'.
 */
static int
lex_dollar(struct guard_lex *l)
{
	const char *s = l->s;
	size_t i = l->i, end;

	if (s[i + 1] == '(' && s[i + 2] == '(') {
		end = lex_closing(s, i + 3, '(', ')');
		end = s[end] != '\0' ? lex_closing(s, end + 1, '(', ')') : end;
	} else if (s[i + 1] == '(') {
		lex_subst(l, i + 2, lex_closing(s, i + 2, '(', ')'));
		return 1;
	} else if (s[i + 1] == '{')
		end = lex_closing(s, i + 2, '{', '}');
	else
		return 0;
	if (s[end] != '\0')
		end++;
	buf_append(&l->word, s + i, end - i);
	l->have_word = 1;
	l->i = end;
	return 1;
}

/* A quoted part of a word, l->i just past the opening quote q. */
static void
lex_quoted(struct guard_lex *l, char q)
{
	const char *s = l->s;
	size_t end;

	l->have_word = 1;
	while (s[l->i] != '\0' && s[l->i] != q) {
		if (q == '"' && s[l->i] == '\\' && s[l->i + 1] != '\0' &&
		    strchr("\"\\$`\n", s[l->i + 1]) != NULL) {
			if (s[l->i + 1] != '\n')
				buf_append(&l->word, s + l->i + 1, 1);
			l->i += 2;
		} else if (q == '"' && s[l->i] == '`') {
			end = lex_closing(s, l->i + 1, '`', '`');
			lex_subst(l, l->i + 1, end);
		} else if (q == '"' && s[l->i] == '$' && lex_dollar(l))
			;
		else
			buf_append(&l->word, s + l->i++, 1);
	}
	if (s[l->i] == q)
		l->i++;
}

/*
 * At '<' or '>' (an fd number may be the word before): what follows is a
 * target, a here-document, a process substitution or a descriptor.
 */
static void
lex_redirect(struct guard_lex *l)
{
	const char *s = l->s, *w = buf_str(&l->word);
	size_t i = l->i;

	if (l->have_word && w[strspn(w, "0123456789")] == '\0') {
		buf_reset(&l->word);
		l->have_word = 0;
	}
	lex_end_word(l);
	if (s[i] == '<' && s[i + 1] == '<' && s[i + 2] != '<') {
		l->i = i + 2;
		lex_heredoc(l);
		return;
	}
	if (s[i + 1] == '(') {
		/* <(cmd) and >(cmd): a command of its own. */
		lex_subst(l, i + 2, lex_closing(s, i + 2, '(', ')'));
		lex_end_word(l);
		return;
	}
	l->dropped = s[i] == '<' && s[i + 1] == '<';
	for (i++; s[i] == '>' || s[i] == '<' || s[i] == '|'; i++)
		;
	if (s[i] == '&') {
		i++;
		l->dropped = 1; /* >&2, <&-: a descriptor */
	}
	l->redirect = 1;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	l->i = i;
}

/* After "<<": the delimiter of a here-document whose text is data. */
static void
lex_heredoc(struct guard_lex *l)
{
	const char *s = l->s;
	struct buf d;
	char q = 0;

	if (s[l->i] == '-')
		l->i++;
	while (s[l->i] == ' ' || s[l->i] == '\t')
		l->i++;
	buf_init(&d, 0);
	for (; s[l->i] != '\0'; l->i++) {
		if (q != 0 && s[l->i] == q)
			q = 0;
		else if (q == 0 && (s[l->i] == '\'' || s[l->i] == '"'))
			q = s[l->i];
		else if (q == 0 && (strchr(" \t\n;&|<>()", s[l->i]) != NULL))
			break;
		else if (q == 0 && s[l->i] == '\\' && s[l->i + 1] != '\0')
			buf_append(&d, s + ++l->i, 1);
		else
			buf_append(&d, s + l->i, 1);
	}
	strs_push(&l->docs, &l->ndocs, buf_steal(&d));
}

/* At a newline: the bodies of the pending here-documents are skipped. */
static void
lex_skip_docs(struct guard_lex *l)
{
	const char *line, *eol;
	size_t k, len;

	for (k = 0; k < l->ndocs; k++) {
		while (l->s[l->i] != '\0') {
			line = l->s + l->i;
			eol = strchr(line, '\n');
			len = eol != NULL ? (size_t)(eol - line) : strlen(line);
			l->i += len + (eol != NULL);
			while (len > 0 && *line == '\t') {
				line++;
				len--;
			}
			if (len == strlen(l->docs[k]) &&
			    strncmp(line, l->docs[k], len) == 0)
				break;
		}
	}
	strv_free_n(l->docs, l->ndocs);
	l->docs = NULL;
	l->ndocs = 0;
}

/*
 * An unquoted character that ends a word or a command.  Returns 1 when it
 * was one (and consumed), 0 when it belongs to a word.
 */
static int
lex_operator(struct guard_lex *l)
{
	char c = l->s[l->i];

	if (c == ' ' || c == '\t') {
		lex_end_word(l);
		l->i++;
	} else if (c == '\n') {
		lex_end_cmd(l);
		l->i++;
		lex_skip_docs(l);
	} else if (c == '<' || c == '>' ||
	    (c == '&' && l->s[l->i + 1] == '>')) {
		if (c == '&')
			l->i++;
		lex_redirect(l);
	} else if (strchr(";&|()", c) != NULL) {
		lex_end_cmd(l);
		l->i++;
	} else if (c == '#' && !l->have_word) {
		while (l->s[l->i] != '\0' && l->s[l->i] != '\n')
			l->i++;
	} else
		return 0;
	return 1;
}

/* Split text into simple commands and command substitutions. */
static void
guard_split(const char *text, struct guard_split *out)
{
	struct guard_lex l;
	char c;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	l.s = text;
	l.out = out;
	buf_init(&l.word, 0);
	while ((c = text[l.i]) != '\0') {
		if (lex_operator(&l))
			continue;
		if (c == '\'' || c == '"') {
			l.i++;
			lex_quoted(&l, c);
		} else if (c == '`') {
			lex_subst(&l, l.i + 1,
			    lex_closing(text, l.i + 1, '`', '`'));
		} else if (c == '$' && lex_dollar(&l))
			;
		else if (c == '\\' && text[l.i + 1] != '\0') {
			if (text[l.i + 1] != '\n') {
				buf_append(&l.word, text + l.i + 1, 1);
				l.have_word = 1;
			}
			l.i += 2;
		} else {
			buf_append(&l.word, text + l.i++, 1);
			l.have_word = 1;
		}
	}
	lex_end_cmd(&l);
	strv_free_n(l.cur.words, l.cur.nwords);
	strv_free_n(l.cur.redirs, l.cur.nredirs);
	strv_free_n(l.docs, l.ndocs);
	buf_free(&l.word);
}

static void
guard_split_free(struct guard_split *sp)
{
	size_t i;

	for (i = 0; i < sp->ncmds; i++) {
		strv_free_n(sp->cmds[i].words, sp->cmds[i].nwords);
		strv_free_n(sp->cmds[i].redirs, sp->cmds[i].nredirs);
	}
	free(sp->cmds);
	strv_free_n(sp->subs, sp->nsubs);
}

static const char *
base_name(const char *word)
{
	const char *slash = strrchr(word, '/');

	return slash != NULL ? slash + 1 : word;
}

/* NAME=value, as a shell takes it before a command. */
static int
is_assignment(const char *w)
{
	size_t n = 0;

	if (!isalpha((unsigned char)w[0]) && w[0] != '_')
		return 0;
	while (isalnum((unsigned char)w[n]) || w[n] == '_')
		n++;
	return w[n] == '=';
}

/*
 * Commands that run another one, each with its options that take a
 * value ("valued" options are skipped with their value).
 */
static const struct guard_runner {
	const char *name;
	const char *const *valued;
} guard_runners[] = {
    {"sudo",
	(const char *const[]) {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t",
	    "-U", "-T", NULL}},
    {"doas", (const char *const[]) {"-u", "-C", NULL}},
    {"env",
	(const char *const[]) {"-u", "-C", "-S", "--unset", "--chdir", NULL}},
    {"xargs",
	(const char *const[]) {"-I", "-n", "-P", "-L", "-d", "-a", "-s", "-E",
	    NULL}},
    {"nice", (const char *const[]) {"-n", "--adjustment", NULL}},
    {"timeout",
	(const char *const[]) {"-s", "-k", "--signal", "--kill-after", NULL}},
    {"ionice", (const char *const[]) {"-c", "-n", "-p", NULL}},
    {"stdbuf", (const char *const[]) {"-i", "-o", "-e", NULL}},
    {"setsid", NULL},
    {"nohup", NULL},
    {"command", NULL},
    {"builtin", NULL},
    {"exec", (const char *const[]) {"-a", NULL}},
    {"time", NULL},
    {"!", NULL},
    {"{", NULL},
    {"}", NULL},
    {"if", NULL},
    {"then", NULL},
    {"else", NULL},
    {"elif", NULL},
    {"while", NULL},
    {"until", NULL},
    {"do", NULL},
};

/*
 * The index of the word that names the command really run, past
 * assignments, reserved words and the commands that run another one
 * (with their options).
 */
static size_t
skip_runners(char *const *w, size_t n, size_t i)
{
	const struct guard_runner *r;
	const char *name;
	size_t k;

	while (i < n) {
		if (is_assignment(w[i])) {
			i++;
			continue;
		}
		name = base_name(w[i]);
		r = NULL;
		for (k = 0; k < sizeof(guard_runners) / sizeof(*guard_runners);
		     k++)
			if (strcmp(name, guard_runners[k].name) == 0)
				r = &guard_runners[k];
		if (r == NULL)
			break;
		for (i++; i < n && (w[i][0] == '-' || is_assignment(w[i])); i++)
			if (r->valued != NULL && one_of(w[i], r->valued))
				i++;
		/* timeout DURATION COMMAND */
		if (strcmp(name, "timeout") == 0 && i < n)
			i++;
	}
	return i;
}

static int
refuse(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	return 1;
}

/* The absolute path p with ".", ".." and repeated slashes resolved. */
static int
normalize(const char *p, char *out, size_t outsz)
{
	size_t len = 0, n;
	const char *seg;

	if (*p != '/' || outsz < 2)
		return -1;
	out[0] = '\0';
	while (*p != '\0') {
		while (*p == '/')
			p++;
		seg = p;
		n = strcspn(seg, "/");
		p += n;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (len > 0 && out[--len] != '/')
				;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + n + 1 > outsz)
			return -1;
		out[len++] = '/';
		memcpy(out + len, seg, n);
		len += n;
		out[len] = '\0';
	}
	if (len == 0)
		snprintf(out, outsz, "/");
	return 0;
}

/*
 * The value of word when it starts with $name or ${name} followed by '/'
 * or its end: the rest of word after the variable; else NULL.
 */
static const char *
var_prefix(const char *w, const char *name)
{
	size_t n = strlen(name);

	if (w[0] != '$')
		return NULL;
	if (w[1] == '{' && strncmp(w + 2, name, n) == 0 && w[2 + n] == '}')
		w += 3 + n;
	else if (strncmp(w + 1, name, n) == 0)
		w += 1 + n;
	else
		return NULL;
	return *w == '/' || *w == '\0' ? w : NULL;
}

/*
 * The path word names, absolute and normal, into out: 1; or 0 when it
 * names nothing this guard can tell (an option, a URL, another variable,
 * a relative path with no directory to start from).
 */
static int
resolve(const struct guard_ctx *x, const char *w, char *out, size_t outsz)
{
	char joined[GUARD_PATH_MAX * 2];
	const char *base = "", *rest;

	if (w[0] == '~' && (w[1] == '/' || w[1] == '\0')) {
		base = x->home;
		rest = w + 1;
	} else if ((rest = var_prefix(w, "HOME")) != NULL)
		base = x->home;
	else if ((rest = var_prefix(w, "FACTORY_ROOT")) != NULL)
		base = x->factory;
	else if (w[0] == '/')
		rest = w;
	else if (w[0] == '$' || w[0] == '-' || w[0] == '\0' ||
	    strstr(w, "://") != NULL)
		return 0;
	else {
		base = x->cwd;
		rest = w;
	}
	if (rest != w && base[0] == '\0')
		return 0;
	if (rest == w && w[0] != '/' && base[0] == '\0')
		return 0;
	snprintf(joined, sizeof(joined), "%s/%s", base, rest);
	return normalize(joined, out, outsz) == 0;
}

/* Whether path is dir or below it ("" is nothing; "/" is everything). */
static int
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 0)
		return 0;
	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

/*
 * Scratch space an agent may remove: strictly below /tmp, not a glob of
 * its entries, neither the run directory nor anything holding it, nor
 * (when the run directory is not /tmp itself) anything in it.
 */
static int
in_scratch(const struct guard_ctx *x, const char *path)
{
	const char *first = path + 5;

	if (strncmp(path, "/tmp/", 5) != 0 || *first == '\0' ||
	    strchr("*?[", *first) != NULL)
		return 0;
	if (x->run_dir[0] != '\0' && under(x->run_dir, path))
		return 0;
	return strcmp(x->run_dir, "/tmp") == 0 || !under(path, x->run_dir);
}

/* Whether a push refspec's destination is the primary branch. */
static int
names_primary(const struct guard_ctx *x, const char *ref)
{
	const char *dst = strrchr(ref, ':');

	dst = dst != NULL ? dst + 1 : ref + (ref[0] == '+');
	if (strncmp(dst, "refs/heads/", 11) == 0)
		dst += 11;
	return strcmp(dst, x->primary) == 0;
}

/*
 * Whether a checkout target is the primary branch: itself, its full ref,
 * or a remote's copy of it (origin/master, refs/remotes/origin/master).
 */
static int
names_primary_ref(const struct guard_ctx *x, const char *a)
{
	size_t n = strlen(a), p = strlen(x->primary);
	const char *remote;

	if (strcmp(a, x->primary) == 0 ||
	    (strncmp(a, "refs/heads/", 11) == 0 &&
		strcmp(a + 11, x->primary) == 0))
		return 1;
	if (n <= p + 1 || a[n - p - 1] != '/' ||
	    strcmp(a + n - p, x->primary) != 0)
		return 0;
	remote = a;
	if (strncmp(remote, "refs/remotes/", 13) == 0)
		remote += 13;
	else if (strncmp(remote, "remotes/", 8) == 0)
		remote += 8;
	return memchr(remote, '/', (size_t)(a + n - p - 1 - remote)) == NULL;
}

/* git push (w[0] is "push"). */
static int
check_push(const struct guard_ctx *x, char *const *w, size_t n, char *why,
    size_t whysz)
{
	int force = 0, all = 0, del = 0, dashdash = 0, refs = 0;
	size_t i, pos = 0;
	const char *c;

	for (i = 1; i < n; i++) {
		if (!dashdash && strcmp(w[i], "--") == 0)
			dashdash = 1;
		else if (!dashdash && strncmp(w[i], "--", 2) == 0) {
			force |= strcmp(w[i], "--force") == 0 ||
			    strncmp(w[i], "--force-with-lease", 18) == 0;
			all |= strcmp(w[i], "--mirror") == 0 ||
			    strcmp(w[i], "--all") == 0;
			del |= strcmp(w[i], "--delete") == 0;
			if (strchr(w[i], '=') == NULL &&
			    (strcmp(w[i], "--push-option") == 0 ||
				strcmp(w[i], "--repo") == 0 ||
				strcmp(w[i], "--receive-pack") == 0 ||
				strcmp(w[i], "--exec") == 0))
				i++;
		} else if (!dashdash && w[i][0] == '-' && w[i][1] != '\0') {
			for (c = w[i] + 1; *c != '\0' && *c != 'o'; c++) {
				force |= *c == 'f';
				del |= *c == 'd';
			}
			if (*c == 'o' && c[1] == '\0')
				i++;
		} else if (pos++ > 0) {
			refs++;
			if ((del || w[i][0] == ':') && names_primary(x, w[i]))
				return refuse(why, whysz,
				    "BLOCKED: deleting the primary branch '%s' "
				    "is not allowed",
				    x->primary);
			if ((force || w[i][0] == '+') && names_primary(x, w[i]))
				goto primary;
		}
	}
	if (force && all)
		goto primary;
	if (force && refs == 0)
		return refuse(why, whysz,
		    "BLOCKED: a force push without a branch is not allowed "
		    "(its upstream may be '%s'); name your feature branch: "
		    "git push --force-with-lease origin <branch>",
		    x->primary);
	return 0;
primary:
	return refuse(why, whysz,
	    "BLOCKED: force-pushing to the primary branch '%s' is not "
	    "allowed; push your feature branch instead",
	    x->primary);
}

/* git checkout / git switch (w[0]). */
static int
check_checkout(const struct guard_ctx *x, char *const *w, size_t n, char *why,
    size_t whysz)
{
	static const char *const makes[] = {"-b", "-B", "-c", "-C", "--orphan",
	    NULL};
	size_t i, k;

	for (i = 1; i < n; i++) {
		if (strcmp(w[i], "--") == 0 ||
		    strncmp(w[i], "--orphan=", 9) == 0)
			return 0; /* paths, or a new branch */
		for (k = 0; makes[k] != NULL; k++)
			if (strncmp(w[i], makes[k], strlen(makes[k])) == 0 &&
			    (w[i][1] != '-' || w[i][strlen(makes[k])] == '\0'))
				return 0;
	}
	for (i = 1; i < n; i++)
		if (w[i][0] != '-' && names_primary_ref(x, w[i]))
			return refuse(why, whysz,
			    "BLOCKED: switching to the primary branch '%s' is "
			    "not allowed; stay on your feature branch",
			    x->primary);
	return 0;
}

/*
 * The first word of w[1..n) that is not an option (skipping the value of
 * the options listed in valued), with its index in *at; NULL when none.
 */
static const char *
subcommand(char *const *w, size_t n, size_t *at, const char *const *valued)
{
	size_t i, k;

	for (i = 1; i < n; i++) {
		if (w[i][0] != '-') {
			*at = i;
			return w[i];
		}
		for (k = 0; valued != NULL && valued[k] != NULL; k++)
			if (strcmp(w[i], valued[k]) == 0)
				i++;
	}
	*at = n;
	return NULL;
}

static int
check_git(const struct guard_ctx *x, char *const *w, size_t n, char *why,
    size_t whysz)
{
	static const char *const valued[] = {"-C", "-c", "--git-dir",
	    "--work-tree", "--namespace", "--config-env", NULL};
	const char *sub;
	size_t at;

	if ((sub = subcommand(w, n, &at, valued)) == NULL)
		return 0;
	if (strcmp(sub, "push") == 0)
		return check_push(x, w + at, n - at, why, whysz);
	if (strcmp(sub, "checkout") == 0 || strcmp(sub, "switch") == 0)
		return check_checkout(x, w + at, n - at, why, whysz);
	return 0;
}

/* rm (w[0]): recursive removal only inside the worktree or scratch. */
static int
check_rm(const struct guard_ctx *x, char *const *w, size_t n, char *why,
    size_t whysz)
{
	char path[GUARD_PATH_MAX];
	int recursive = 0, dashdash = 0;
	size_t i;

	for (i = 1; i < n && !dashdash; i++) {
		if (strcmp(w[i], "--") == 0)
			dashdash = 1;
		else if (strcmp(w[i], "--recursive") == 0)
			recursive = 1;
		else if (w[i][0] == '-' && w[i][1] != '-')
			recursive |= strpbrk(w[i], "rR") != NULL;
	}
	for (i = 1, dashdash = 0; recursive && i < n; i++) {
		if (!dashdash && strcmp(w[i], "--") == 0) {
			dashdash = 1;
			continue;
		}
		if ((!dashdash && w[i][0] == '-') ||
		    !resolve(x, w[i], path, sizeof(path)))
			continue;
		if (!under(path, x->worktree) && !in_scratch(x, path))
			return refuse(why, whysz,
			    "BLOCKED: 'rm -r %s' reaches '%s', outside your "
			    "worktree '%s'; only remove files inside it (or "
			    "your own scratch files below /tmp)",
			    w[i], path, x->worktree);
	}
	return 0;
}

/* kill with a PID or a signal, pkill, killall (w[0]). */
static int
check_kill(const char *name, char *const *w, size_t n, char *why, size_t whysz)
{
	size_t i;
	int bad = strcmp(name, "kill") != 0;

	for (i = 1; i < n && !bad; i++)
		bad = isdigit((unsigned char)w[i][0]) ||
		    (w[i][0] == '-' &&
			(isdigit((unsigned char)w[i][1]) ||
			    isupper((unsigned char)w[i][1]))) ||
		    strcmp(w[i], "-s") == 0 || strcmp(w[i], "-n") == 0 ||
		    strncmp(w[i], "--signal", 8) == 0;
	if (!bad)
		return 0;
	return refuse(why, whysz,
	    "BLOCKED: '%s' can reach the factory's own processes (tmux, the "
	    "agent, the pollers); agents may only stop their own jobs (kill "
	    "%%N)",
	    name);
}

/* Whether word is one of list. */
static int
one_of(const char *word, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(word, *list) == 0)
			return 1;
	return 0;
}

/* tmux commands that end or type into sessions, anywhere in the line. */
static int
check_tmux(char *const *w, size_t n, char *why, size_t whysz)
{
	static const char *const valued[] = {"-L", "-S", "-f", "-T", "-c",
	    NULL};
	static const char *const bad[] = {"kill-session", "kill-server",
	    "kill-window", "kill-pane", "killp", "killw", "send-keys", "send",
	    "respawn-pane", "respawnp", "respawn-window", "respawnw", NULL};
	size_t i;

	if (subcommand(w, n, &i, valued) == NULL)
		return 0;
	for (; i < n; i++)
		if (one_of(w[i], bad))
			return refuse(why, whysz,
			    "BLOCKED: 'tmux %s' reaches the factory's agent "
			    "sessions; only the orchestrator manages them",
			    w[i]);
	return 0;
}

/* docker, podman, docker-compose: stopping or removing containers. */
static int
check_docker(const char *name, char *const *w, size_t n, char *why,
    size_t whysz)
{
	static const char *const valued[] = {"-H", "--host", "-c", "--context",
	    "--config", "-l", "--log-level", "-f", "--file", "-p",
	    "--project-name", "--env-file", "--profile", NULL};
	static const char *const bad[] = {"rm", "rmi", "stop", "kill",
	    "restart", "pause", "prune", "down", NULL};
	static const char *const groups[] = {"system", "container", "image",
	    "volume", "network", "builder", "compose", NULL};
	const char *sub;
	size_t at;

	if ((sub = subcommand(w, n, &at, valued)) == NULL)
		return 0;
	if (one_of(sub, groups) &&
	    (sub = subcommand(w + at, n - at, &at, valued)) == NULL)
		return 0;
	if (!one_of(sub, bad) ||
	    (strcmp(sub, "down") == 0 && strcmp(name, "docker") == 0 &&
		strcmp(w[1], "compose") != 0))
		return 0;
	return refuse(why, whysz,
	    "BLOCKED: '%s %s' stops or removes containers the factory may run "
	    "on; only the operator does that",
	    name, sub);
}

/*
 * tea (the forge's CLI): merging or closing is the orchestrator's job,
 * reviewing the review bot's.
 */
static int
check_tea(char *const *w, size_t n, char *why, size_t whysz)
{
	static const char *const judging[] = {"approve", "lgtm", "reject",
	    "review", NULL};
	const char *sub, *verb;
	size_t at;

	if ((sub = subcommand(w, n, &at, NULL)) == NULL ||
	    (verb = subcommand(w + at, n - at, &at, NULL)) == NULL)
		return 0;
	if (one_of(verb, judging))
		return refuse(why, whysz,
		    "BLOCKED: reviewing or approving a pull request is the "
		    "review bot's job, never the developer's; push your "
		    "branch and write PHASE:awaiting_ci instead");
	if (strcmp(verb, "merge") == 0 || strcmp(verb, "m") == 0)
		return refuse(why, whysz,
		    "BLOCKED: merging is the orchestrator's job; push and "
		    "write PHASE:awaiting_ci instead");
	if (strcmp(verb, "close") == 0)
		return refuse(why, whysz,
		    "BLOCKED: closing issues and PRs is the orchestrator's "
		    "job; write PHASE:done instead");
	return 0;
}

/*
 * Whether a word names a path under the factory's root outside the
 * worktree and the run directory (the resolved path into path).
 */
static int
factory_word(const struct guard_ctx *x, const char *w, char *path,
    size_t pathsz)
{
	const char *eq;

	if (strncmp(w, "--", 2) == 0 && (eq = strchr(w, '=')) != NULL)
		w = eq + 1;
	if (w[0] != '/' && w[0] != '~' && w[0] != '$' &&
	    strstr(w, "..") == NULL)
		return 0;
	if (!resolve(x, w, path, pathsz))
		return 0;
	return under(path, x->factory) && !under(path, x->worktree) &&
	    !under(path, x->run_dir);
}

/*
 * A command whose words name a path under the factory's root; of the
 * commands whose words are text (echo, printf, git commit and tag), only
 * the redirection targets count.
 */
static int
check_factory(const struct guard_ctx *x, const struct guard_cmd *c, size_t at,
    char *why, size_t whysz)
{
	static const char *const text[] = {"echo", "printf", "true", "false",
	    ":", NULL};
	char path[GUARD_PATH_MAX];
	const char *name = at < c->nwords ? base_name(c->words[at]) : "";
	size_t i, sub;
	int words = !one_of(name, text);

	if (x->factory[0] == '\0' || strcmp(x->factory, "/") == 0)
		return 0;
	if (words && strcmp(name, "git") == 0 &&
	    subcommand(c->words + at, c->nwords - at, &sub, NULL) != NULL)
		words = strcmp(c->words[at + sub], "commit") != 0 &&
		    strcmp(c->words[at + sub], "tag") != 0;
	for (i = at; words && i < c->nwords; i++)
		if (factory_word(x, c->words[i], path, sizeof(path)))
			goto refused;
	for (i = 0; i < c->nredirs; i++)
		if (factory_word(x, c->redirs[i], path, sizeof(path)))
			goto refused;
	return 0;
refused:
	return refuse(why, whysz,
	    "BLOCKED: '%s' is in the factory's own directory '%s', which "
	    "agents may not touch; work with the files of your worktree '%s'",
	    path, x->factory, x->worktree);
}

/* A shell's -c script (sh -c, bash -lc, ...), or NULL. */
static const char *
shell_script(const char *name, char *const *w, size_t n)
{
	static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh",
	    "ash", NULL};
	size_t i;

	if (!one_of(name, shells))
		return NULL;
	for (i = 1; i + 1 < n && w[i][0] == '-'; i++)
		if (w[i][1] != '-' && strchr(w[i], 'c') != NULL)
			return w[i + 1];
	return NULL;
}

/* One simple command. */
static int
check_cmd(const struct guard_ctx *x, const struct guard_cmd *c, int depth,
    char *why, size_t whysz)
{
	char *const *w = c->words;
	size_t n = c->nwords, at = skip_runners(w, n, 0);
	const char *name, *script;
	struct buf text;
	size_t i;
	int r;

	if (check_factory(x, c, at, why, whysz))
		return 1;
	if (at >= n)
		return 0;
	name = base_name(w[at]);
	if ((script = shell_script(name, w + at, n - at)) != NULL)
		return check_text(x, script, depth + 1, why, whysz);
	if (strcmp(name, "eval") == 0) {
		buf_init(&text, 0);
		for (i = at + 1; i < n; i++)
			buf_printf(&text, "%s ", w[i]);
		r = check_text(x, buf_str(&text), depth + 1, why, whysz);
		buf_free(&text);
		return r;
	}
	if (strcmp(name, "git") == 0)
		return check_git(x, w + at, n - at, why, whysz);
	if (strcmp(name, "rm") == 0)
		return check_rm(x, w + at, n - at, why, whysz);
	if (strcmp(name, "kill") == 0 || strcmp(name, "pkill") == 0 ||
	    strcmp(name, "killall") == 0)
		return check_kill(name, w + at, n - at, why, whysz);
	if (strcmp(name, "tmux") == 0)
		return check_tmux(w + at, n - at, why, whysz);
	if (strcmp(name, "docker") == 0 || strcmp(name, "podman") == 0 ||
	    strcmp(name, "docker-compose") == 0)
		return check_docker(name, w + at, n - at, why, whysz);
	if (strcmp(name, "tea") == 0)
		return check_tea(w + at, n - at, why, whysz);
	return 0;
}

/* Whether the extended regular expression re matches text. */
static int
matches(const char *re, const char *text)
{
	regex_t rx;
	int r;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
		return 0;
	r = regexec(&rx, text, 0, NULL, 0) == 0;
	regfree(&rx);
	return r;
}

/*
 * Whether the text sends something rather than reads: an HTTP method
 * that writes (curl -X, also among other short options, wget --method,
 * httpie's first word, a client library's post() or method=), or a
 * request body (curl -d or -F, also among other short options, --data,
 * --json, --form, wget --post-data, --body-data).  A text that only
 * reads may look like one (cut -d ','): it is refused all the same when
 * it names a judging call.
 */
static int
writes(const char *text)
{
	return matches("(^|[[:space:]])(-[[:alpha:]]*X|--request|--method)"
		       "[[:space:]=]*['\"]?(POST|PUT|PATCH|DELETE)",
		   text) ||
	    matches("(^|[[:space:]])(-[[:alpha:]]*[dF]|--data[-a-z]*|--json|"
		    "--form[-a-z]*|--post-data|--post-file|--body-data|"
		    "--body-file)([[:space:]=]|$)",
		text) ||
	    matches("(^|[[:space:]])(http|https|xh|xhs)[[:space:]]+"
		    "(POST|PUT|PATCH|DELETE)[[:space:]]",
		text) ||
	    matches("\\.(post|put|patch|delete|request)[[:space:]]*\\(",
		text) ||
	    matches("method[\"']?[[:space:]]*[=:][[:space:]]*['\"]?"
		    "(POST|PUT|PATCH|DELETE|post|put|patch|delete)",
		text);
}

/*
 * The forge API calls that judge work instead of doing it, anywhere in
 * the text: a review (an approval, a request for changes, the submission
 * of a pending one, its dismissal or deletion), a commit status (CI's
 * verdict), the branch protection (what a merge needs).  Reading them
 * stays allowed.
 */
static int
check_judging(const char *text, char *why, size_t whysz)
{
	if (matches("/pulls/[0-9]+/(files/)?reviews/[0-9]+/(un)?dismissals",
		text) ||
	    (matches("/pulls/[0-9]+/(files/)?reviews", text) && writes(text)))
		return refuse(why, whysz,
		    "BLOCKED: reviewing, approving or dismissing a review of a "
		    "pull request is the review bot's job, never the "
		    "developer's; push your branch and write PHASE:awaiting_ci "
		    "instead");
	if (matches("/statuses/[0-9a-fA-F$]", text) && writes(text))
		return refuse(why, whysz,
		    "BLOCKED: setting a commit status is CI's job; push and "
		    "let CI run");
	if (matches("/branch_protections", text) && writes(text))
		return refuse(why, whysz,
		    "BLOCKED: the branch protection (the reviews and checks a "
		    "merge needs) is the operator's");
	return 0;
}

/* Merge, close and review calls to the forge API, anywhere in the text. */
static int
check_api(const char *text, char *why, size_t whysz)
{
	if (matches("/pulls/[0-9]+/merge", text))
		return refuse(why, whysz,
		    "BLOCKED: merging through the forge API is the "
		    "orchestrator's job; push your branch and write "
		    "PHASE:awaiting_ci instead");
	if (check_judging(text, why, whysz))
		return 1;
	if (matches("/(issues|pulls)/[0-9]+.*state.*closed", text))
		return refuse(why, whysz,
		    "BLOCKED: closing issues and PRs through the forge API is "
		    "the orchestrator's job; write PHASE:done instead");
	return 0;
}

static int
check_text(const struct guard_ctx *x, const char *text, int depth, char *why,
    size_t whysz)
{
	struct guard_split sp;
	size_t i;
	int r = 0;

	if (depth > GUARD_DEPTH)
		return refuse(why, whysz,
		    "BLOCKED: the command nests shells too deeply to be "
		    "checked; run its parts directly");
	guard_split(text, &sp);
	for (i = 0; r == 0 && i < sp.nsubs; i++)
		r = check_text(x, sp.subs[i], depth + 1, why, whysz);
	for (i = 0; r == 0 && i < sp.ncmds; i++)
		r = check_cmd(x, &sp.cmds[i], depth, why, whysz);
	guard_split_free(&sp);
	return r;
}

/* An absolute path of the guard's, normalized into out ("" when none). */
static void
ctx_path(const char *p, char *out, size_t outsz)
{
	if (p == NULL || normalize(p, out, outsz) == -1)
		out[0] = '\0';
}

int
agent_guard_check(const struct agent_guard *g, const char *command, char *why,
    size_t whysz)
{
	struct guard_ctx x;

	why[0] = '\0';
	memset(&x, 0, sizeof(x));
	x.primary = g->primary_branch != NULL && *g->primary_branch != '\0' ?
	    g->primary_branch :
	    "master";
	ctx_path(g->worktree, x.worktree, sizeof(x.worktree));
	ctx_path(g->factory_root, x.factory, sizeof(x.factory));
	ctx_path(g->run_dir, x.run_dir, sizeof(x.run_dir));
	ctx_path(g->home, x.home, sizeof(x.home));
	ctx_path(g->cwd != NULL ? g->cwd : g->worktree, x.cwd, sizeof(x.cwd));
	if (check_api(command, why, whysz))
		return 1;
	return check_text(&x, command, 0, why, whysz);
}
