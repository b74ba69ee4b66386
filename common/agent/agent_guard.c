/*
 * The guard of an agent's commands (see agent_guard.h).  The text is
 * split by guard_shell.c; its commands are then followed in order with
 * a state (where they run, the variables assigned so far, the files
 * written so far), each command's words expanded against it, and each
 * judged by its name, past the words that only run another command
 * (sudo, env, xargs, timeout, ...).  API calls are judged by
 * guard_http.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_guard.h"
#include "buf.h"
#include "file.h"
#include "guard_http.h"
#include "guard_shell.h"
#include "json.h"
#include "runfiles.h"
#include "strv.h"
#include "xmalloc.h"

/* `sh -c 'eval "..."'` and the like are followed this deep. */
#define GUARD_DEPTH 6
#define GUARD_PATH_MAX 4096
/* A text longer than this is refused whole (a hook reads 1 MiB). */
#define GUARD_TEXT_MAX AGENT_GUARD_INPUT_MAX
/* Bindings, subshells, directories and files remembered, at most. */
#define GUARD_VARS_MAX 512
#define GUARD_SCOPES_MAX 64
#define GUARD_DIRS_MAX 16
#define GUARD_FILES_MAX 64
/* The most of a file read for a request body or a program. */
#define GUARD_READ_MAX (256 * 1024)

/* A variable's value; NULL: unknown. */
struct guard_var {
	char *name;
	char *value;
};

/* A file this text wrote: its content, NULL when unknown. */
struct guard_file {
	char *path;
	char *text;
};

/* The guard's places, normalized ("" when unknown), and what it learnt. */
struct guard_ctx {
	const char *primary;
	char worktree[GUARD_PATH_MAX];
	char factory[GUARD_PATH_MAX];
	char run_dir[GUARD_PATH_MAX];
	char home[GUARD_PATH_MAX];
	const char *forge_url;
	const char *forge_api;
	char **own;
	size_t nown;
	int limited; /* writes into the run directory are limited to own */
	struct guard_file files[GUARD_FILES_MAX];
	size_t nfiles;
	/*
	 * Bytes that values may still add to the text (variables expanded,
	 * files read): past it, what they hold is unknown.  It keeps the
	 * work linear in the text's length (A=$A$A doubles).
	 */
	size_t budget;
};

/* Where the commands run and what the text assigned. */
struct guard_state {
	char *cwd; /* NULL: unknown */
	char *oldpwd;
	struct guard_var *vars; /* later bindings win */
	size_t nvars;
	int tainted; /* a sourced file may have changed anything */
	char *dirs[GUARD_DIRS_MAX];
	size_t ndirs;
};

/* A state to go back to when a subshell ends. */
struct guard_mark {
	char *cwd;
	char *oldpwd;
	size_t nvars;
	int tainted;
	char *dirs[GUARD_DIRS_MAX];
	size_t ndirs;
};

/* A simple command, expanded. */
struct guard_cmd {
	char **w;
	size_t n;
	char **outs; /* files written by redirections */
	size_t nouts;
	char **ins; /* files read by redirections */
	size_t nins;
	char *input; /* its standard input's text, NULL: unknown or none */
};

/* What the words before a command's name say (sudo, env, xargs, ...). */
struct guard_run {
	size_t at;	   /* the name's index */
	int xargs;	   /* run by xargs: words come from its input */
	const char *repl;  /* xargs -I: the words' placeholder */
	const char *chdir; /* env -C: where it runs */
	const char *text;  /* flock -c, su -c: a shell text */
	int join;	   /* watch: its words, joined, are a shell text */
};

struct guard_runner;

static const char *base_name(const char *);
static int one_of(const char *, const char *const *);
static int is_assignment(const char *);
static int is_assignment_name(const char *);
static char *dup_or_null(const char *);
static void push(char ***, size_t *, char *);
static size_t skip_runner(const struct guard_runner *, char *const *, size_t,
    size_t, struct guard_run *);
static int normalize(const char *, char *, size_t);
static int under(const char *, const char *);
static int in_scratch(const struct guard_ctx *, const char *);
static int resolve(const struct guard_state *, const char *, char *, size_t);
static void state_init(struct guard_state *, const char *);
static void state_free(struct guard_state *);
static void state_mark(const struct guard_state *, struct guard_mark *);
static void state_back(struct guard_state *, struct guard_mark *);
static void state_bind(struct guard_state *, const char *, size_t,
    const char *);
static const char *state_var(const struct guard_ctx *,
    const struct guard_state *, const char *, size_t);
static void state_cd(struct guard_state *, const char *);
static const char *sub_value(const struct guard_ctx *,
    const struct guard_state *, const char *);
static char *expand(struct guard_ctx *, const struct guard_state *,
    const struct guard_shell *, const char *);
static void files_set(struct guard_ctx *, const char *, const char *);
static char *files_read(struct guard_ctx *, const struct guard_state *,
    const char *, int);
static char *io_read(void *, const char *, int);
static void cmd_free(struct guard_cmd *);
static void cmd_expand(struct guard_ctx *, const struct guard_state *,
    const struct guard_shell *, size_t, struct guard_cmd *);
static char *producer_text(struct guard_ctx *, const struct guard_state *,
    const struct guard_shell *, size_t);
static size_t producer_roots(const struct guard_state *,
    const struct guard_shell *, size_t, char ***);
static void skip_runners(char *const *, size_t, size_t, struct guard_run *);
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
static int check_removal(const struct guard_ctx *, const struct guard_state *,
    const char *, const char *, char *, size_t);
static int check_rm(const struct guard_ctx *, const struct guard_state *,
    char *const *, size_t, char *, size_t);
static int check_kill(const char *, char *const *, size_t, char *, size_t);
static int check_tmux(char *const *, size_t, char *, size_t);
static int check_docker(const char *, char *const *, size_t, char *, size_t);
static size_t path_span(const char *);
static int factory_path(const struct guard_ctx *, const char *);
static int text_path(const struct guard_ctx *, const char *, const char *, int,
    int (*)(const struct guard_ctx *, const char *), char *, size_t);
static int factory_in_text(const struct guard_ctx *, const char *, char *,
    size_t);
static int factory_word(const struct guard_ctx *, const struct guard_state *,
    const char *, char *, size_t);
static int check_factory(const struct guard_ctx *, const struct guard_state *,
    const struct guard_cmd *, size_t, char *, size_t);
static int run_protected(const struct guard_ctx *, const char *);
static int run_refuse(const struct guard_ctx *, const char *, char *, size_t);
static int run_word(const struct guard_ctx *, const struct guard_state *,
    const char *, char *, size_t);
static int sed_in_place(const struct guard_cmd *, size_t);
static int check_run_dir(const struct guard_ctx *, const struct guard_state *,
    const struct guard_cmd *, size_t, char *, size_t);
static const char *shell_script(const char *, char *const *, size_t, int *);
static int check_state(const struct guard_ctx *, struct guard_state *,
    const struct guard_cmd *, size_t);
static void state_dir(const struct guard_ctx *, struct guard_state *,
    const struct guard_cmd *, size_t);
static int check_find(struct guard_ctx *, struct guard_state *,
    const struct guard_cmd *, size_t, int, char *, size_t);
static int check_shell(struct guard_ctx *, struct guard_state *,
    const struct guard_cmd *, size_t, int, char *, size_t);
static int check_named(struct guard_ctx *, struct guard_state *,
    const struct guard_cmd *, size_t, int, char *, size_t);
static int check_simple(struct guard_ctx *, struct guard_state *,
    struct guard_cmd *, int, char *, size_t);
static void writes_record(struct guard_ctx *, const struct guard_state *,
    const struct guard_cmd *);
static void xargs_words(struct guard_cmd *, const struct guard_run *, char **,
    size_t);
static int check_one(struct guard_ctx *, struct guard_state *,
    const struct guard_shell *, size_t, int, char *, size_t);
struct guard_sub;
static int sub_cmp(const void *, const void *);
static int check_subs(struct guard_ctx *, struct guard_state *,
    const struct guard_shell *, const struct guard_sub *, size_t *, size_t, int,
    char *, size_t);
static int check_text(struct guard_ctx *, struct guard_state *, const char *,
    int, char *, size_t);
static void ctx_path(const char *, char *, size_t);
static void ctx_init(struct guard_ctx *, const struct agent_guard *);
static void ctx_free(struct guard_ctx *);

static const char *
base_name(const char *word)
{
	const char *slash = strrchr(word, '/');

	return slash != NULL ? slash + 1 : word;
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

/* NAME=value, as a shell takes it before a command. */
static int
is_assignment(const char *w)
{
	size_t n = 0;

	if (!isalpha((unsigned char)w[0]) && w[0] != '_')
		return 0;
	while (isalnum((unsigned char)w[n]) || w[n] == '_')
		n++;
	return w[n] == '=' || (w[n] == '+' && w[n + 1] == '=');
}

/* A variable's name alone. */
static int
is_assignment_name(const char *w)
{
	return w[strspn(w,
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_")] == '\0';
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

/*
 * The path an expanded word names, absolute and normal, into out: 1; or
 * 0 when it cannot be told (an unknown part, a relative path where the
 * directory is unknown).
 */
static int
resolve(const struct guard_state *st, const char *w, char *out, size_t outsz)
{
	char joined[GUARD_PATH_MAX * 2];

	if (guard_shell_has_unknown(w) || w[0] == '\0')
		return 0;
	if (w[0] == '/')
		return normalize(w, out, outsz) == 0;
	if (st->cwd == NULL)
		return 0;
	snprintf(joined, sizeof(joined), "%s/%s", st->cwd, w);
	return normalize(joined, out, outsz) == 0;
}

static void
state_init(struct guard_state *st, const char *cwd)
{
	memset(st, 0, sizeof(*st));
	st->cwd = cwd != NULL && *cwd != '\0' ? xstrdup(cwd) : NULL;
}

static void
state_free(struct guard_state *st)
{
	size_t i;

	free(st->cwd);
	free(st->oldpwd);
	for (i = 0; i < st->nvars; i++) {
		free(st->vars[i].name);
		free(st->vars[i].value);
	}
	free(st->vars);
	for (i = 0; i < st->ndirs; i++)
		free(st->dirs[i]);
	memset(st, 0, sizeof(*st));
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* Remember the state (a subshell starts). */
static void
state_mark(const struct guard_state *st, struct guard_mark *m)
{
	size_t i;

	m->cwd = dup_or_null(st->cwd);
	m->oldpwd = dup_or_null(st->oldpwd);
	m->nvars = st->nvars;
	m->tainted = st->tainted;
	m->ndirs = st->ndirs;
	for (i = 0; i < st->ndirs; i++)
		m->dirs[i] = xstrdup(st->dirs[i]);
}

/* Go back to the remembered state (the subshell ends); m is used up. */
static void
state_back(struct guard_state *st, struct guard_mark *m)
{
	size_t i;

	free(st->cwd);
	free(st->oldpwd);
	st->cwd = m->cwd;
	st->oldpwd = m->oldpwd;
	for (i = m->nvars; i < st->nvars; i++) {
		free(st->vars[i].name);
		free(st->vars[i].value);
	}
	st->nvars = m->nvars < st->nvars ? m->nvars : st->nvars;
	st->tainted = m->tainted;
	for (i = 0; i < st->ndirs; i++)
		free(st->dirs[i]);
	st->ndirs = m->ndirs;
	memcpy(st->dirs, m->dirs, sizeof(st->dirs));
}

/* NAME (n bytes) = value (NULL: unknown). */
static void
state_bind(struct guard_state *st, const char *name, size_t n,
    const char *value)
{
	if (st->nvars >= GUARD_VARS_MAX) {
		st->tainted = 1;
		return;
	}
	st->vars = xreallocarray(st->vars, st->nvars + 1, sizeof(*st->vars));
	st->vars[st->nvars].name = xstrndup(name, n);
	st->vars[st->nvars++].value = dup_or_null(value);
}

/* The value of the variable name (n bytes), or NULL when unknown. */
static const char *
state_var(const struct guard_ctx *x, const struct guard_state *st,
    const char *name, size_t n)
{
	static const struct {
		const char *name;
		size_t off;
	} fixed[] = {{"HOME", offsetof(struct guard_ctx, home)},
	    {"FACTORY_ROOT", offsetof(struct guard_ctx, factory)}};
	const char *v;
	size_t i;

	if (st->tainted)
		return NULL;
	for (i = st->nvars; i > 0; i--)
		if (strlen(st->vars[i - 1].name) == n &&
		    strncmp(st->vars[i - 1].name, name, n) == 0)
			return st->vars[i - 1].value;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strlen(fixed[i].name) == n &&
		    strncmp(fixed[i].name, name, n) == 0) {
			v = (const char *)x + fixed[i].off;
			return *v != '\0' ? v : NULL;
		}
	if (n == 3 && strncmp(name, "PWD", 3) == 0)
		return st->cwd;
	if (n == 6 && strncmp(name, "OLDPWD", 6) == 0)
		return st->oldpwd;
	if (n == 9 && strncmp(name, "FORGE_URL", 9) == 0)
		return x->forge_url;
	if (n == 9 && strncmp(name, "FORGE_API", 9) == 0)
		return x->forge_api;
	return NULL;
}

/* Move to dir (NULL: somewhere unknown). */
static void
state_cd(struct guard_state *st, const char *dir)
{
	char *to = dup_or_null(dir);

	free(st->oldpwd);
	st->oldpwd = st->cwd;
	st->cwd = to;
}

/*
 * What a command substitution stands for when the guard can tell:
 * $(pwd), $(git rev-parse --show-toplevel) in the worktree, and a new
 * name of mktemp in /tmp; else NULL.
 */
static const char *
sub_value(const struct guard_ctx *x, const struct guard_state *st,
    const char *text)
{
	static const char *const temp[] = {"mktemp", "mktemp -d", "mktemp -u",
	    "mktemp -d -u", NULL};
	char t[64];
	size_t n;

	text += strspn(text, " \t\n");
	n = strlen(text);
	while (n > 0 && strchr(" \t\n", text[n - 1]) != NULL)
		n--;
	if (n >= sizeof(t))
		return NULL;
	memcpy(t, text, n);
	t[n] = '\0';
	if (strcmp(t, "pwd") == 0)
		return st->cwd;
	if (strcmp(t, "git rev-parse --show-toplevel") == 0)
		return st->cwd != NULL && under(st->cwd, x->worktree) ?
		    x->worktree :
		    NULL;
	if (one_of(t, temp))
		return "/tmp/tmp.XXXXXXXXXX";
	return NULL;
}

/*
 * An encoded word (guard_shell.h) with what is known put in, as long as
 * the budget lasts; runs of unknown parts are one.  Caller frees.
 */
static char *
expand(struct guard_ctx *x, const struct guard_state *st,
    const struct guard_shell *sp, const char *w)
{
	struct buf b;
	const char *end, *v;
	unsigned long k;

	buf_init(&b, 0);
	for (; *w != '\0'; w++) {
		if (*w != GUARD_SHELL_VAR && *w != GUARD_SHELL_SUB) {
			buf_append(&b, w, 1);
			continue;
		}
		if ((end = strchr(w, GUARD_SHELL_END)) == NULL)
			break;
		if (*w == GUARD_SHELL_VAR)
			v = state_var(x, st, w + 1, (size_t)(end - w - 1));
		else {
			k = strtoul(w + 1, NULL, 10);
			v = k < sp->nsubs ? sub_value(x, st, sp->subs[k].text) :
					    NULL;
		}
		if (v != NULL && strlen(v) <= x->budget) {
			x->budget -= strlen(v);
			buf_puts(&b, v);
		} else if (b.len == 0 ||
		    b.data[b.len - 1] != GUARD_SHELL_UNKNOWN)
			buf_append(&b, (char[]) {GUARD_SHELL_UNKNOWN}, 1);
		w = end;
	}
	return buf_steal(&b);
}

/* The text written to path (NULL: unknown) by a command of the text. */
static void
files_set(struct guard_ctx *x, const char *path, const char *text)
{
	struct guard_file *f;
	size_t i;

	for (i = 0; i < x->nfiles; i++)
		if (strcmp(x->files[i].path, path) == 0) {
			free(x->files[i].text);
			x->files[i].text = dup_or_null(text);
			return;
		}
	if (x->nfiles == GUARD_FILES_MAX) {
		free(x->files[0].path);
		free(x->files[0].text);
		memmove(x->files, x->files + 1,
		    (GUARD_FILES_MAX - 1) * sizeof(*x->files));
		x->nfiles--;
	}
	f = &x->files[x->nfiles++];
	f->path = xstrdup(path);
	f->text = dup_or_null(text);
}

/*
 * The text of the file word names: what this text wrote there, else
 * (not for a program: the text's own are the ones judged) what is on
 * disk now.  Caller frees; NULL when unknown.
 */
static char *
files_read(struct guard_ctx *x, const struct guard_state *st, const char *word,
    int script)
{
	char path[GUARD_PATH_MAX];
	struct buf b;
	size_t i;

	if (!resolve(st, word, path, sizeof(path)))
		return NULL;
	for (i = 0; i < x->nfiles; i++)
		if (strcmp(x->files[i].path, path) == 0)
			return dup_or_null(x->files[i].text);
	if (script || x->budget < GUARD_READ_MAX)
		return NULL;
	buf_init(&b, 0);
	if (file_read(path, GUARD_READ_MAX, &b) != 0) {
		buf_free(&b);
		return NULL;
	}
	x->budget -= b.len;
	return buf_steal(&b);
}

/* The reader guard_http.h asks for files. */
struct guard_io_arg {
	struct guard_ctx *x;
	const struct guard_state *st;
};

static char *
io_read(void *arg, const char *word, int script)
{
	struct guard_io_arg *a = arg;

	return files_read(a->x, a->st, word, script);
}

static void
cmd_free(struct guard_cmd *c)
{
	strv_free_n(c->w, c->n);
	strv_free_n(c->outs, c->nouts);
	strv_free_n(c->ins, c->nins);
	free(c->input);
	memset(c, 0, sizeof(*c));
}

static void
push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

/*
 * Command i of sp expanded into c: its words, its redirections' files,
 * and its input (a here-document, a here-string, a file read with '<',
 * or what the command before it in a pipeline prints, when known).
 */
static void
cmd_expand(struct guard_ctx *x, const struct guard_state *st,
    const struct guard_shell *sp, size_t i, struct guard_cmd *c)
{
	const struct guard_shell_cmd *s = &sp->cmds[i];
	size_t k;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < s->nwords; k++)
		push(&c->w, &c->n, expand(x, st, sp, s->words[k]));
	for (k = 0; k < s->nredirs; k++) {
		if (s->redirs[k].out)
			push(&c->outs, &c->nouts,
			    expand(x, st, sp, s->redirs[k].target));
		else
			push(&c->ins, &c->nins,
			    expand(x, st, sp, s->redirs[k].target));
	}
	if (s->input != NULL)
		c->input = expand(x, st, sp, s->input);
	else if (c->nins > 0)
		c->input = files_read(x, st, c->ins[c->nins - 1], 0);
	else if (i > 0 && sp->cmds[i - 1].op == GUARD_SHELL_PIPE)
		c->input = producer_text(x, st, sp, i - 1);
}

/* What command i prints when the guard can tell (echo, printf, cat). */
static char *
producer_text(struct guard_ctx *x, const struct guard_state *st,
    const struct guard_shell *sp, size_t i)
{
	struct guard_cmd c;
	struct guard_run run;
	struct buf b;
	const char *name;
	char *text = NULL;
	size_t k;

	memset(&c, 0, sizeof(c));
	for (k = 0; k < sp->cmds[i].nwords; k++)
		push(&c.w, &c.n, expand(x, st, sp, sp->cmds[i].words[k]));
	skip_runners(c.w, c.n, 0, &run);
	if (run.at >= c.n || run.xargs) {
		cmd_free(&c);
		return NULL;
	}
	name = base_name(c.w[run.at]);
	buf_init(&b, 0);
	if (strcmp(name, "echo") == 0 || strcmp(name, "printf") == 0) {
		for (k = run.at + 1; k < c.n; k++)
			if (c.w[k][0] != '-' || strcmp(name, "printf") == 0)
				buf_printf(&b, "%s%s", b.len ? " " : "",
				    c.w[k]);
		text = buf_steal(&b);
	} else if (strcmp(name, "cat") == 0 && run.at + 2 == c.n)
		text = files_read(x, st, c.w[run.at + 1], 0);
	else if (strcmp(name, "cat") == 0 && run.at + 1 == c.n &&
	    sp->cmds[i].input != NULL)
		text = expand(x, st, sp, sp->cmds[i].input);
	buf_free(&b);
	cmd_free(&c);
	return text;
}

/*
 * When command i is find (feeding xargs): its start directories,
 * resolved, into *roots.  Their count; 0 when not find or unknown.
 */
static size_t
producer_roots(const struct guard_state *st, const struct guard_shell *sp,
    size_t i, char ***roots)
{
	const struct guard_shell_cmd *s = &sp->cmds[i];
	char path[GUARD_PATH_MAX];
	size_t k, n = 0;

	*roots = NULL;
	if (s->nwords == 0 || strcmp(base_name(s->words[0]), "find") != 0)
		return 0;
	for (k = 1; k < s->nwords && strchr("-(!", s->words[k][0]) == NULL;
	     k++) {
		if (strchr(s->words[k], GUARD_SHELL_VAR) != NULL ||
		    strchr(s->words[k], GUARD_SHELL_SUB) != NULL ||
		    !resolve(st, s->words[k], path, sizeof(path)))
			goto unknown;
		push(roots, &n, xstrdup(path));
	}
	if (n == 0 && resolve(st, ".", path, sizeof(path)))
		push(roots, &n, xstrdup(path));
	return n;
unknown:
	strv_free_n(*roots, n);
	*roots = NULL;
	return 0;
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
	    "--replace", "--max-args", "--max-procs", "--delimiter", NULL}},
    {"nice", (const char *const[]) {"-n", "--adjustment", NULL}},
    {"timeout",
	(const char *const[]) {"-s", "-k", "--signal", "--kill-after", NULL}},
    {"ionice", (const char *const[]) {"-c", "-n", "-p", NULL}},
    {"stdbuf", (const char *const[]) {"-i", "-o", "-e", NULL}},
    {"flock", (const char *const[]) {"-w", "-E", "--timeout", NULL}},
    {"watch", (const char *const[]) {"-n", "-d", "--interval", NULL}},
    {"su", (const char *const[]) {"-s", "-g", "-G", NULL}},
    {"setsid", NULL},
    {"nohup", NULL},
    {"chronic", NULL},
    {"unbuffer", NULL},
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

/* One runner's words from w[i] (its name): what they say into run. */
static size_t
skip_runner(const struct guard_runner *r, char *const *w, size_t n, size_t i,
    struct guard_run *run)
{
	const char *name = r->name;

	for (i++; i < n && (w[i][0] == '-' || is_assignment(w[i])); i++) {
		if (strcmp(name, "xargs") == 0 &&
		    (strncmp(w[i], "-I", 2) == 0 || strcmp(w[i], "-i") == 0 ||
			strncmp(w[i], "--replace", 9) == 0))
			run->repl = w[i][2] != '\0'   ? w[i] + 2 :
			    strchr(w[i], '=') != NULL ? strchr(w[i], '=') + 1 :
			    strcmp(w[i], "-i") == 0   ? "{}" :
			    i + 1 < n		      ? w[i + 1] :
							"{}";
		if (strcmp(name, "env") == 0 &&
		    (strcmp(w[i], "-C") == 0 || strcmp(w[i], "--chdir") == 0) &&
		    i + 1 < n)
			run->chdir = w[i + 1];
		if ((strcmp(name, "flock") == 0 || strcmp(name, "su") == 0) &&
		    strcmp(w[i], "-c") == 0 && i + 1 < n) {
			run->text = w[i + 1];
			return n;
		}
		if (r->valued != NULL && one_of(w[i], r->valued))
			i++;
	}
	if (strcmp(name, "xargs") == 0)
		run->xargs = 1;
	/* timeout DURATION COMMAND, flock FILE COMMAND, su USER */
	if ((strcmp(name, "timeout") == 0 || strcmp(name, "flock") == 0 ||
		strcmp(name, "su") == 0) &&
	    i < n)
		i++;
	if (strcmp(name, "flock") == 0 && i + 1 < n &&
	    strcmp(w[i], "-c") == 0) {
		run->text = w[i + 1];
		return n;
	}
	if (strcmp(name, "watch") == 0 && i < n)
		run->join = 1;
	return i;
}

/*
 * The index of the word that names the command really run, past
 * assignments, reserved words and the commands that run another one
 * (with their options), and what those said.
 */
static void
skip_runners(char *const *w, size_t n, size_t i, struct guard_run *run)
{
	const struct guard_runner *r;
	const char *name;
	size_t k;

	memset(run, 0, sizeof(*run));
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
		i = skip_runner(r, w, n, i, run);
		if (run->text != NULL || run->join)
			break;
	}
	run->at = i;
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
	int force = 0, all = 0, del = 0, dashdash = 0, refs = 0, unknown = 0;
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
			unknown |= guard_shell_has_unknown(w[i]);
			if ((del || w[i][0] == ':') && names_primary(x, w[i]))
				return guard_shell_refuse(why, whysz,
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
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: a force push without a branch is not allowed "
		    "(its upstream may be '%s'); name your feature branch: "
		    "git push --force-with-lease origin <branch>",
		    x->primary);
	if ((force || del) && unknown)
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: a force push or a deletion to a branch the guard "
		    "cannot tell (a variable or a command's output) may reach "
		    "the primary branch '%s'; name your feature branch",
		    x->primary);
	return 0;
primary:
	return guard_shell_refuse(why, whysz,
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
			return guard_shell_refuse(why, whysz,
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

/*
 * A recursive removal of target (what: the command, for the reason):
 * only inside the worktree or scratch space, and only where the guard
 * can tell.
 */
static int
check_removal(const struct guard_ctx *x, const struct guard_state *st,
    const char *what, const char *target, char *why, size_t whysz)
{
	char path[GUARD_PATH_MAX], *known;
	size_t n;

	if (!resolve(st, target, path, sizeof(path)) &&
	    guard_shell_has_unknown(target)) {
		/* /var/$X: outside, whatever $X is. */
		n = strcspn(target, (char[]) {GUARD_SHELL_UNKNOWN, 0});
		while (n > 0 && target[n - 1] != '/')
			n--;
		known = xstrndup(target, n);
		if (n > 0 && resolve(st, known, path, sizeof(path)) &&
		    !under(path, x->worktree) && !under(path, "/tmp")) {
			free(known);
			return guard_shell_refuse(why, whysz,
			    "BLOCKED: '%s' reaches below '%s', outside your "
			    "worktree '%s'; only remove files inside it (or "
			    "your own scratch files below /tmp)",
			    what, path, x->worktree);
		}
		free(known);
	}
	if (!resolve(st, target, path, sizeof(path)))
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: the guard cannot tell what '%s' removes (%s); "
		    "remove by a path it can resolve: a literal one, inside "
		    "your worktree '%s'",
		    what,
		    guard_shell_has_unknown(target) ?
			"its target comes from a variable or "
			"a command's output" :
			"the directory it runs in is unknown",
		    x->worktree);
	if (!under(path, x->worktree) && !in_scratch(x, path))
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: '%s %s' reaches '%s', outside your worktree "
		    "'%s'; only remove files inside it (or your own scratch "
		    "files below /tmp)",
		    what, target, path, x->worktree);
	return 0;
}

/* rm (w[0]): recursive removal only inside the worktree or scratch. */
static int
check_rm(const struct guard_ctx *x, const struct guard_state *st,
    char *const *w, size_t n, char *why, size_t whysz)
{
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
		if (!dashdash && w[i][0] == '-')
			continue;
		if (check_removal(x, st, "rm -r", w[i], why, whysz))
			return 1;
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
		    guard_shell_has_unknown(w[i]) ||
		    (w[i][0] == '-' &&
			(isdigit((unsigned char)w[i][1]) ||
			    isupper((unsigned char)w[i][1]))) ||
		    strcmp(w[i], "-s") == 0 || strcmp(w[i], "-n") == 0 ||
		    strncmp(w[i], "--signal", 8) == 0;
	if (!bad)
		return 0;
	return guard_shell_refuse(why, whysz,
	    "BLOCKED: '%s' can reach the factory's own processes (tmux, the "
	    "agent, the pollers); agents may only stop their own jobs (kill "
	    "%%N)",
	    name);
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
			return guard_shell_refuse(why, whysz,
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
	return guard_shell_refuse(why, whysz,
	    "BLOCKED: '%s %s' stops or removes containers the factory may run "
	    "on; only the operator does that",
	    name, sub);
}

/*
 * Whether path (absolute, normal) is under the factory's root outside
 * the worktree and the run directory.
 */
static int
factory_path(const struct guard_ctx *x, const char *path)
{
	return x->factory[0] != '\0' && strcmp(x->factory, "/") != 0 &&
	    under(path, x->factory) && !under(path, x->worktree) &&
	    !under(path, x->run_dir);
}

/* The length of the path at p in a text: up to GUARD_PATH_MAX. */
static size_t
path_span(const char *p)
{
	size_t n = 0;

	while (n < GUARD_PATH_MAX && p[n] != '\0' &&
	    strchr("'\" \t\n;)]}`,", p[n]) == NULL)
		n++;
	return n;
}

/*
 * A path under the factory's root written inside a word (a program's
 * text, an option's value): the first one, into path.
 */
static int
factory_in_text(const struct guard_ctx *x, const char *w, char *path,
    size_t pathsz)
{
	return strlen(x->factory) > 1 &&
	    text_path(x, w, x->factory, 1, factory_path, path, pathsz);
}

/*
 * A path that starts with root inside the word w (root whole: after no
 * path character, and followed by a '/', or with ends_ok also by the
 * end or a character that ends a path in a program's text) for which
 * pred holds, normalised into path: 1, else 0.  Each character of w is
 * looked at once.
 */
static int
text_path(const struct guard_ctx *x, const char *w, const char *root,
    int ends_ok, int (*pred)(const struct guard_ctx *, const char *),
    char *path, size_t pathsz)
{
	size_t n = strlen(root), len;
	const char *p;
	char *cand;
	int hit;

	for (p = w; (p = strstr(p, root)) != NULL; p++) {
		if ((p > w &&
			(isalnum((unsigned char)p[-1]) ||
			    strchr("/._-", p[-1]) != NULL)) ||
		    (p[n] != '/' &&
			(!ends_ok ||
			    (p[n] != '\0' &&
				strchr("'\" \t\n;)]}`,:", p[n]) == NULL))))
			continue;
		len = path_span(p);
		cand = xstrndup(p, len);
		hit = normalize(cand, path, pathsz) == 0 && pred(x, path);
		free(cand);
		if (hit)
			return 1;
		p += len - 1;
	}
	return 0;
}

/* Whether a word names a path under the factory's root (into path). */
static int
factory_word(const struct guard_ctx *x, const struct guard_state *st,
    const char *w, char *path, size_t pathsz)
{
	const char *eq;

	if (strncmp(w, "--", 2) == 0 && (eq = strchr(w, '=')) != NULL)
		w = eq + 1;
	if (w[0] != '-' && resolve(st, w, path, pathsz) &&
	    factory_path(x, path))
		return 1;
	return factory_in_text(x, w, path, pathsz);
}

/*
 * A command whose words name a path under the factory's root; of the
 * commands whose words are text (echo, printf, git commit and tag), only
 * the redirection targets count.
 */
static int
check_factory(const struct guard_ctx *x, const struct guard_state *st,
    const struct guard_cmd *c, size_t at, char *why, size_t whysz)
{
	static const char *const text[] = {"echo", "printf", "true", "false",
	    ":", NULL};
	char path[GUARD_PATH_MAX];
	const char *name = at < c->n ? base_name(c->w[at]) : "";
	size_t i, sub;
	int words = !one_of(name, text);

	if (x->factory[0] == '\0' || strcmp(x->factory, "/") == 0)
		return 0;
	if (words && strcmp(name, "git") == 0 &&
	    subcommand(c->w + at, c->n - at, &sub, NULL) != NULL)
		words = strcmp(c->w[at + sub], "commit") != 0 &&
		    strcmp(c->w[at + sub], "tag") != 0;
	if (st->cwd != NULL && factory_path(x, st->cwd) && at < c->n) {
		snprintf(path, sizeof(path), "%s", st->cwd);
		goto refused;
	}
	for (i = at; words && i < c->n; i++)
		if (factory_word(x, st, c->w[i], path, sizeof(path)))
			goto refused;
	for (i = 0; i < c->nouts; i++)
		if (factory_word(x, st, c->outs[i], path, sizeof(path)))
			goto refused;
	for (i = 0; i < c->nins; i++)
		if (factory_word(x, st, c->ins[i], path, sizeof(path)))
			goto refused;
	return 0;
refused:
	return guard_shell_refuse(why, whysz,
	    "BLOCKED: '%s' is in the factory's own directory '%s', which "
	    "agents may not touch; work with the files of your worktree '%s'",
	    path, x->factory, x->worktree);
}

/*
 * Whether path (absolute, normal) is in the run directory and not the
 * session's own: not its worktree, not one of its files.  With the run
 * directory /tmp itself, which is scratch space too, only the names the
 * tools use there count.
 */
static int
run_protected(const struct guard_ctx *x, const char *path)
{
	char first[GUARD_PATH_MAX];
	size_t i, n;

	if (!x->limited || x->run_dir[0] == '\0' || !under(path, x->run_dir) ||
	    under(path, x->worktree))
		return 0;
	for (i = 0; i < x->nown; i++) {
		n = strlen(x->own[i]);
		if (n > 1 && x->own[i][n - 1] == '/' ?
			(strncmp(path, x->own[i], n - 1) == 0 &&
			    (path[n - 1] == '\0' || path[n - 1] == '/')) :
			strcmp(path, x->own[i]) == 0)
			return 0;
	}
	if (strcmp(x->run_dir, "/tmp") != 0)
		return 1;
	snprintf(first, sizeof(first), "%s", path + 5);
	first[strcspn(first, "/")] = '\0';
	return first[0] == '\0' || runfiles_is_run_name(first);
}

static int
run_refuse(const struct guard_ctx *x, const char *path, char *why, size_t whysz)
{
	return guard_shell_refuse(why, whysz,
	    "BLOCKED: '%s' belongs to the run directory '%s' and is not "
	    "this session's: an agent writes only its own phase file, "
	    "summary and session files there (never another session's "
	    "phase or a review's files)",
	    path, x->run_dir);
}

/* Whether a word names (or a program's text holds) a protected path. */
static int
run_word(const struct guard_ctx *x, const struct guard_state *st, const char *w,
    char *path, size_t pathsz)
{
	size_t n = strlen(x->run_dir);
	const char *eq;

	if (strncmp(w, "--", 2) == 0 && (eq = strchr(w, '=')) != NULL)
		w = eq + 1;
	if (w[0] != '-' && resolve(st, w, path, pathsz) &&
	    run_protected(x, path))
		return 1;
	return n > 1 &&
	    text_path(x, w, x->run_dir, 0, run_protected, path, pathsz);
}

/* Whether sed (c->w[at]) edits files in place (-i, -Ei, --in-place). */
static int
sed_in_place(const struct guard_cmd *c, size_t at)
{
	size_t i;

	for (i = at + 1; i < c->n; i++)
		if (strncmp(c->w[i], "--in-place", 10) == 0 ||
		    (c->w[i][0] == '-' && c->w[i][1] != '-' &&
			strchr(c->w[i], 'i') != NULL))
			return 1;
	return 0;
}

/*
 * Writes into the run directory: the redirections' files, and the words
 * of a command that may write (not a reader; of cp, ln, rsync, scp and
 * install, only the destination).
 */
static int
check_run_dir(const struct guard_ctx *x, const struct guard_state *st,
    const struct guard_cmd *c, size_t at, char *why, size_t whysz)
{
	static const char *const readers[] = {"cat", "less", "more", "head",
	    "tail", "grep", "egrep", "fgrep", "rg", "ag", "ls", "stat", "wc",
	    "diff", "cmp", "file", "test", "[", "[[", "jq", "readlink",
	    "realpath", "du", "df", "md5sum", "sha1sum", "sha256sum",
	    "sha512sum", "xxd", "od", "hexdump", "strings", "tree", "basename",
	    "dirname", "echo", "printf", "true", "false", ":", "cd", "pushd",
	    "popd", "git", "find", "cut", "tr", "column", "nl", "fold", NULL};
	static const char *const copiers[] = {"cp", "ln", "rsync", "scp",
	    "install", NULL};
	char path[GUARD_PATH_MAX];
	const char *name = at < c->n ? base_name(c->w[at]) : "";
	size_t i, last = 0;

	if (!x->limited)
		return 0;
	for (i = 0; i < c->nouts; i++)
		if (run_word(x, st, c->outs[i], path, sizeof(path)))
			return run_refuse(x, path, why, whysz);
	if (at >= c->n || one_of(name, readers) ||
	    (strcmp(name, "sed") == 0 && !sed_in_place(c, at)))
		return 0;
	for (i = at + 1; i < c->n; i++)
		if (c->w[i][0] != '-')
			last = i;
	for (i = at + 1; i < c->n; i++) {
		if (one_of(name, copiers) && i != last &&
		    !(i > at + 1 &&
			(strcmp(c->w[i - 1], "-t") == 0 ||
			    strcmp(c->w[i - 1], "--target-directory") == 0)))
			continue;
		if (run_word(x, st, c->w[i], path, sizeof(path)))
			return run_refuse(x, path, why, whysz);
	}
	return 0;
}

/*
 * A shell's script: the text of -c (sh -c, bash -lc, ...), with *known
 * 1; else NULL (*known 0 when it reads its input or a file).
 */
static const char *
shell_script(const char *name, char *const *w, size_t n, int *is_shell)
{
	static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh",
	    "ash", "busybox", NULL};
	size_t i;

	*is_shell = one_of(name, shells);
	if (!*is_shell)
		return NULL;
	for (i = 1; i + 1 < n && w[i][0] == '-'; i++)
		if (w[i][1] != '-' && strchr(w[i], 'c') != NULL)
			return w[i + 1];
	return NULL;
}

/*
 * The commands that change the state for what follows: assignments
 * (alone, or by export, declare, local, readonly, typeset), cd, pushd,
 * popd, unset, read and mapfile, for, source and '.'.  1 when c (its
 * name at at; at c->n: assignments only) was one.
 */
static int
check_state(const struct guard_ctx *x, struct guard_state *st,
    const struct guard_cmd *c, size_t at)
{
	static const char *const binders[] = {"export", "declare", "local",
	    "readonly", "typeset", NULL};
	static const char *const unbinders[] = {"unset", "read", "mapfile",
	    "readarray", "for", "select", NULL};
	const char *name = at < c->n ? base_name(c->w[at]) : "", *eq;
	size_t i;

	if (at >= c->n || one_of(name, binders)) {
		for (i = at >= c->n ? 0 : at + 1; i < c->n; i++)
			if (is_assignment(c->w[i])) {
				eq = strchr(c->w[i], '=');
				state_bind(st, c->w[i], strcspn(c->w[i], "+="),
				    eq[-1] == '+' ? NULL : eq + 1);
			}
		return 1;
	}
	if (strcmp(name, "cd") == 0 || strcmp(name, "pushd") == 0 ||
	    strcmp(name, "popd") == 0) {
		state_dir(x, st, c, at);
		return 1;
	}
	if (one_of(name, unbinders)) {
		for (i = at + 1; i < c->n; i++)
			if (c->w[i][0] != '\0' &&
			    (isalpha((unsigned char)c->w[i][0]) ||
				c->w[i][0] == '_') &&
			    is_assignment_name(c->w[i])) {
				state_bind(st, c->w[i], strlen(c->w[i]),
				    strcmp(name, "unset") == 0 ? "" : NULL);
				if (strcmp(name, "for") == 0 ||
				    strcmp(name, "select") == 0)
					break;
			}
		return 1;
	}
	if (strcmp(name, "source") == 0 || strcmp(name, ".") == 0) {
		st->tainted = 1;
		state_cd(st, NULL);
		return 1;
	}
	return 0;
}

/* cd, pushd, popd (c->w[at]): where the commands after it run. */
static void
state_dir(const struct guard_ctx *x, struct guard_state *st,
    const struct guard_cmd *c, size_t at)
{
	char path[GUARD_PATH_MAX], *d;
	const char *name = base_name(c->w[at]), *arg = NULL;
	size_t i;

	if (strcmp(name, "popd") == 0) {
		if (st->ndirs == 0) {
			state_cd(st, NULL);
			return;
		}
		d = st->dirs[--st->ndirs];
		state_cd(st, strcmp(d, "") != 0 ? d : NULL);
		free(d);
		return;
	}
	for (i = at + 1; i < c->n && arg == NULL; i++)
		if (c->w[i][0] != '-' || strcmp(c->w[i], "-") == 0)
			arg = c->w[i];
	if (strcmp(name, "pushd") == 0 && st->ndirs < GUARD_DIRS_MAX)
		st->dirs[st->ndirs++] = xstrdup(st->cwd != NULL ? st->cwd : "");
	if (arg == NULL)
		state_cd(st, x->home[0] != '\0' ? x->home : NULL);
	else if (strcmp(arg, "-") == 0)
		state_cd(st, st->oldpwd);
	else
		state_cd(st,
		    resolve(st, arg, path, sizeof(path)) ? path : NULL);
}

/* find: -delete and -exec reach what is below its start directories. */
static int
check_find(struct guard_ctx *x, struct guard_state *st,
    const struct guard_cmd *c, size_t at, int depth, char *why, size_t whysz)
{
	struct guard_cmd sub;
	size_t i, k, start, nroots = 0;
	const char *roots[32];
	int deletes = 0, r = 0;

	if (depth >= GUARD_DEPTH)
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: the command nests commands too deeply to be "
		    "checked; run its parts directly");
	for (i = at + 1;
	     i < c->n && strchr("-(!", c->w[i][0]) == NULL && nroots < 32; i++)
		roots[nroots++] = c->w[i];
	if (nroots == 0)
		roots[nroots++] = ".";
	for (; i < c->n; i++) {
		if (strcmp(c->w[i], "-delete") == 0)
			deletes = 1;
		if (strncmp(c->w[i], "-exec", 5) != 0 &&
		    strncmp(c->w[i], "-ok", 3) != 0)
			continue;
		start = ++i;
		while (i < c->n && strcmp(c->w[i], ";") != 0 &&
		    strcmp(c->w[i], "+") != 0)
			i++;
		for (k = 0; k < nroots && r == 0 && start < i; k++) {
			size_t j;

			memset(&sub, 0, sizeof(sub));
			for (j = start; j < i; j++)
				push(&sub.w, &sub.n,
				    xstrdup(strcmp(c->w[j], "{}") == 0 ?
					    roots[k] :
					    c->w[j]));
			r = check_simple(x, st, &sub, depth + 1, why, whysz);
			cmd_free(&sub);
		}
	}
	for (k = 0; deletes && r == 0 && k < nroots; k++)
		r = check_removal(x, st, "find -delete", roots[k], why, whysz);
	return r;
}

/*
 * Shells and eval: their text is checked in turn (sh -c, a script this
 * text wrote, their input; eval in the same state).  1 when refused,
 * else 0; -1 when c is not one of them.
 */
static int
check_shell(struct guard_ctx *x, struct guard_state *st,
    const struct guard_cmd *c, size_t at, int depth, char *why, size_t whysz)
{
	const char *name = base_name(c->w[at]), *script;
	struct guard_mark m;
	struct buf text;
	char *owned = NULL;
	size_t i;
	int is_shell, r;

	if (strcmp(name, "eval") == 0) {
		buf_init(&text, 0);
		for (i = at + 1; i < c->n; i++)
			buf_printf(&text, "%s ", c->w[i]);
		r = check_text(x, st, buf_str(&text), depth + 1, why, whysz);
		buf_free(&text);
		return r;
	}
	script = shell_script(name, c->w + at, c->n - at, &is_shell);
	if (!is_shell)
		return -1;
	if (script == NULL) {
		for (i = at + 1; i < c->n && c->w[i][0] == '-'; i++)
			;
		owned = i < c->n     ? files_read(x, st, c->w[i], 1) :
		    c->input != NULL ? xstrdup(c->input) :
				       NULL;
		if (owned == NULL)
			return 0; /* a script of its own: not seen here */
		script = owned;
	}
	state_mark(st, &m);
	r = check_text(x, st, script, depth + 1, why, whysz);
	state_back(st, &m);
	free(owned);
	return r;
}

/* The checks by the command's name. */
static int
check_named(struct guard_ctx *x, struct guard_state *st,
    const struct guard_cmd *c, size_t at, int depth, char *why, size_t whysz)
{
	struct guard_io_arg arg = {x, st};
	struct guard_http_io io = {c->input, io_read, &arg};
	const char *name = base_name(c->w[at]);
	char *const *w = c->w + at;
	size_t n = c->n - at;
	int r;

	if ((r = check_shell(x, st, c, at, depth, why, whysz)) != -1)
		return r;
	if (strcmp(name, "git") == 0)
		return check_git(x, w, n, why, whysz);
	if (strcmp(name, "rm") == 0)
		return check_rm(x, st, w, n, why, whysz);
	if (strcmp(name, "find") == 0)
		return check_find(x, st, c, at, depth, why, whysz);
	if (strcmp(name, "kill") == 0 || strcmp(name, "pkill") == 0 ||
	    strcmp(name, "killall") == 0)
		return check_kill(name, w, n, why, whysz);
	if (strcmp(name, "tmux") == 0)
		return check_tmux(w, n, why, whysz);
	if (strcmp(name, "docker") == 0 || strcmp(name, "podman") == 0 ||
	    strcmp(name, "docker-compose") == 0)
		return check_docker(name, w, n, why, whysz);
	return guard_http_command(name, w, n, &io, why, whysz);
}

/*
 * The words xargs adds from its input: the start directories of a find
 * before it, else one unknown word (in place of -I's placeholder).
 */
static void
xargs_words(struct guard_cmd *c, const struct guard_run *run, char **roots,
    size_t nroots)
{
	const char *value =
	    nroots > 0 ? roots[0] : (char[]) {GUARD_SHELL_UNKNOWN, 0};
	struct buf b;
	const char *p;
	size_t i, k, len;

	if (run->repl == NULL || *run->repl == '\0') {
		for (k = 0; k < nroots; k++)
			push(&c->w, &c->n, xstrdup(roots[k]));
		if (nroots == 0)
			push(&c->w, &c->n, xstrdup(value));
		return;
	}
	len = strlen(run->repl);
	for (i = run->at; i < c->n; i++) {
		if (strstr(c->w[i], run->repl) == NULL)
			continue;
		buf_init(&b, 0);
		for (p = c->w[i]; *p != '\0';)
			if (strncmp(p, run->repl, len) == 0) {
				buf_puts(&b, value);
				p += len;
			} else
				buf_append(&b, p++, 1);
		free(c->w[i]);
		c->w[i] = buf_steal(&b);
	}
}

/*
 * A simple command, expanded: the factory, the run directory, a name it
 * cannot tell, the state it changes, then the checks by its name.
 */
static int
check_simple(struct guard_ctx *x, struct guard_state *st, struct guard_cmd *c,
    int depth, char *why, size_t whysz)
{
	struct guard_run run;
	struct guard_state *use = st, here;
	int r;

	skip_runners(c->w, c->n, 0, &run);
	if (run.text != NULL || run.join) {
		struct buf text;
		size_t i;

		buf_init(&text, 0);
		if (run.text != NULL)
			buf_puts(&text, run.text);
		for (i = run.at; run.join && i < c->n; i++)
			buf_printf(&text, "%s ", c->w[i]);
		r = check_text(x, st, buf_str(&text), depth + 1, why, whysz);
		buf_free(&text);
		return r;
	}
	if (check_factory(x, st, c, run.at, why, whysz))
		return 1;
	if (run.at >= c->n) {
		if (check_run_dir(x, st, c, run.at, why, whysz))
			return 1;
		(void)check_state(x, st, c, run.at);
		return 0;
	}
	if (guard_shell_has_unknown(base_name(c->w[run.at])))
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: the guard cannot tell which command this runs "
		    "(its name comes from a variable or a command's output); "
		    "run the command by its name");
	if (run.at == 0 && check_state(x, st, c, run.at))
		return check_run_dir(x, st, c, run.at, why, whysz);
	if (run.chdir != NULL) {
		char path[GUARD_PATH_MAX];

		state_init(&here,
		    resolve(st, run.chdir, path, sizeof(path)) ? path : NULL);
		here.vars = st->vars;
		here.nvars = st->nvars;
		here.tainted = st->tainted;
		use = &here;
	}
	r = check_named(x, use, c, run.at, depth, why, whysz);
	if (r == 0)
		r = check_run_dir(x, use, c, run.at, why, whysz);
	if (use == &here) {
		free(here.cwd);
		free(here.oldpwd);
	}
	return r;
}

/* What a command wrote into files, for the commands after it. */
static void
writes_record(struct guard_ctx *x, const struct guard_state *st,
    const struct guard_cmd *c)
{
	char path[GUARD_PATH_MAX], *text = NULL;
	const char *name = c->n > 0 ? base_name(c->w[0]) : "";
	struct buf b;
	size_t i;

	if (strcmp(name, "cat") == 0 && c->n == 1)
		text = dup_or_null(c->input);
	else if (strcmp(name, "echo") == 0 || strcmp(name, "printf") == 0) {
		buf_init(&b, 0);
		for (i = 1; i < c->n; i++)
			buf_printf(&b, "%s%s", i > 1 ? " " : "", c->w[i]);
		text = buf_steal(&b);
	}
	for (i = 0; i < c->nouts; i++)
		if (resolve(st, c->outs[i], path, sizeof(path)))
			files_set(x, path, text);
	if (strcmp(name, "tee") == 0)
		for (i = 1; i < c->n; i++)
			if (c->w[i][0] != '-' &&
			    resolve(st, c->w[i], path, sizeof(path)))
				files_set(x, path, c->input);
	free(text);
}

/* Command i of sp, with the state as it is before it. */
static int
check_one(struct guard_ctx *x, struct guard_state *st,
    const struct guard_shell *sp, size_t i, int depth, char *why, size_t whysz)
{
	struct guard_cmd c;
	struct guard_run run;
	char **roots = NULL;
	size_t nroots = 0;
	int r;

	cmd_expand(x, st, sp, i, &c);
	skip_runners(c.w, c.n, 0, &run);
	if (run.xargs) {
		if (i > 0 && sp->cmds[i - 1].op == GUARD_SHELL_PIPE)
			nroots = producer_roots(st, sp, i - 1, &roots);
		xargs_words(&c, &run, roots, nroots);
		strv_free_n(roots, nroots);
	}
	r = check_simple(x, st, &c, depth, why, whysz);
	if (r == 0)
		writes_record(x, st, &c);
	cmd_free(&c);
	return r;
}

/* A substitution by the command it runs before, for sorting. */
struct guard_sub {
	size_t cmd;
	size_t k;
};

static int
sub_cmp(const void *a, const void *b)
{
	const struct guard_sub *x = a, *y = b;

	if (x->cmd != y->cmd)
		return x->cmd < y->cmd ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * The substitutions run before command i (those after the last command
 * with i == sp->ncmds), each in a subshell; order holds them sorted by
 * command, *next the first not run yet.
 */
static int
check_subs(struct guard_ctx *x, struct guard_state *st,
    const struct guard_shell *sp, const struct guard_sub *order, size_t *next,
    size_t i, int depth, char *why, size_t whysz)
{
	struct guard_mark m;
	int r = 0;

	for (; *next < sp->nsubs && r == 0 &&
	     (order[*next].cmd <= i || i == sp->ncmds);
	     ++*next) {
		state_mark(st, &m);
		r = check_text(x, st, sp->subs[order[*next].k].text, depth + 1,
		    why, whysz);
		state_back(st, &m);
	}
	return r;
}

static int
check_text(struct guard_ctx *x, struct guard_state *st, const char *text,
    int depth, char *why, size_t whysz)
{
	struct guard_mark marks[GUARD_SCOPES_MAX], pipe;
	struct guard_shell sp;
	struct guard_sub *order;
	size_t i, k, nmarks = 0, next = 0;
	int r = 0, piped;

	if (depth > GUARD_DEPTH)
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: the command nests shells too deeply to be "
		    "checked; run its parts directly");
	guard_shell_parse(text, &sp);
	order = xcalloc(sp.nsubs + 1, sizeof(*order));
	for (k = 0; k < sp.nsubs; k++)
		order[k] = (struct guard_sub) {sp.subs[k].cmd, k};
	qsort(order, sp.nsubs, sizeof(*order), sub_cmp);
	for (i = 0; r == 0 && i < sp.ncmds; i++) {
		const struct guard_shell_cmd *c = &sp.cmds[i];

		for (k = 0; k < c->opens && nmarks < GUARD_SCOPES_MAX; k++)
			state_mark(st, &marks[nmarks++]);
		piped = c->op == GUARD_SHELL_PIPE || c->op == GUARD_SHELL_BG ||
		    (i > 0 && sp.cmds[i - 1].op == GUARD_SHELL_PIPE);
		if (piped)
			state_mark(st, &pipe);
		r = check_subs(x, st, &sp, order, &next, i, depth, why, whysz);
		if (r == 0)
			r = check_one(x, st, &sp, i, depth, why, whysz);
		if (piped)
			state_back(st, &pipe);
		for (k = 0; k < c->closes && nmarks > 0; k++)
			state_back(st, &marks[--nmarks]);
	}
	if (r == 0)
		r = check_subs(x, st, &sp, order, &next, sp.ncmds, depth, why,
		    whysz);
	free(order);
	while (nmarks > 0)
		state_back(st, &marks[--nmarks]);
	guard_shell_free(&sp);
	return r;
}

/* An absolute path of the guard's, normalized into out ("" when none). */
static void
ctx_path(const char *p, char *out, size_t outsz)
{
	if (p == NULL || normalize(p, out, outsz) == -1)
		out[0] = '\0';
}

static void
ctx_init(struct guard_ctx *x, const struct agent_guard *g)
{
	char path[GUARD_PATH_MAX];
	size_t i, n;

	memset(x, 0, sizeof(*x));
	x->primary = g->primary_branch != NULL && *g->primary_branch != '\0' ?
	    g->primary_branch :
	    "master";
	ctx_path(g->worktree, x->worktree, sizeof(x->worktree));
	ctx_path(g->factory_root, x->factory, sizeof(x->factory));
	ctx_path(g->run_dir, x->run_dir, sizeof(x->run_dir));
	ctx_path(g->home, x->home, sizeof(x->home));
	x->forge_url =
	    g->forge_url != NULL && *g->forge_url ? g->forge_url : NULL;
	x->forge_api =
	    g->forge_api != NULL && *g->forge_api ? g->forge_api : NULL;
	x->limited = g->own != NULL;
	for (i = 0; g->own != NULL && g->own[i] != NULL; i++) {
		if (normalize(g->own[i], path, sizeof(path)) == -1)
			continue;
		n = strlen(g->own[i]);
		push(&x->own, &x->nown,
		    n > 0 && g->own[i][n - 1] == '/' ?
			xasprintf("%s%s", path, strcmp(path, "/") ? "/" : "") :
			xstrdup(path));
	}
}

static void
ctx_free(struct guard_ctx *x)
{
	size_t i;

	strv_free_n(x->own, x->nown);
	for (i = 0; i < x->nfiles; i++) {
		free(x->files[i].path);
		free(x->files[i].text);
	}
}

int
agent_guard_check(const struct agent_guard *g, const char *command, char *why,
    size_t whysz)
{
	struct guard_ctx x;
	struct guard_state st;
	char cwd[GUARD_PATH_MAX];
	int r;

	why[0] = '\0';
	if (strlen(command) > GUARD_TEXT_MAX)
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: the command is too long to be checked; split it "
		    "or put it in a script");
	ctx_init(&x, g);
	x.budget = 4 * strlen(command) + 2 * GUARD_READ_MAX;
	ctx_path(g->cwd != NULL ? g->cwd : g->worktree, cwd, sizeof(cwd));
	state_init(&st, cwd);
	r = check_text(&x, &st, command, 0, why, whysz);
	state_free(&st);
	ctx_free(&x);
	return r;
}

int
agent_guard_check_write(const struct agent_guard *g, const char *path,
    char *why, size_t whysz)
{
	struct guard_ctx x;
	struct guard_state st;
	char cwd[GUARD_PATH_MAX], abs[GUARD_PATH_MAX];
	int r = 0;

	why[0] = '\0';
	ctx_init(&x, g);
	ctx_path(g->cwd != NULL ? g->cwd : g->worktree, cwd, sizeof(cwd));
	state_init(&st, cwd);
	if (resolve(&st, path, abs, sizeof(abs))) {
		if (factory_path(&x, abs))
			r = guard_shell_refuse(why, whysz,
			    "BLOCKED: '%s' is in the factory's own directory "
			    "'%s', which agents may not touch; work with the "
			    "files of your worktree '%s'",
			    abs, x.factory, x.worktree);
		else if (run_protected(&x, abs))
			r = run_refuse(&x, abs, why, whysz);
	}
	state_free(&st);
	ctx_free(&x);
	return r;
}

/* The file tools whose writes are judged, by tool_name. */
static const char *const guard_file_tools[] = {"Write", "Edit", "MultiEdit",
    "NotebookEdit", NULL};

int
agent_guard_hook(const struct agent_guard *g, const char *input, size_t len,
    int whole, char *why, size_t whysz)
{
	struct agent_guard at = *g;
	const char *tool, *cmd, *file;
	char err[128];
	cJSON *in = NULL;
	int r;

	why[0] = '\0';
	if (!whole || len > AGENT_GUARD_INPUT_MAX) {
		r = guard_shell_refuse(why, whysz,
		    "BLOCKED: the tool's input is longer than the guard reads "
		    "(%d bytes); split the command, or write the file in "
		    "smaller parts",
		    AGENT_GUARD_INPUT_MAX);
		goto out;
	}
	if ((in = json_parse(input, len, err, sizeof(err))) == NULL ||
	    !cJSON_IsObject(in)) {
		r = guard_shell_refuse(why, whysz,
		    "BLOCKED: the guard cannot read the tool's input (%s)",
		    in == NULL ? err : "not a JSON object");
		goto out;
	}
	if (at.cwd == NULL)
		at.cwd = json_str(in, "cwd");
	if ((tool = json_str(in, "tool_name")) == NULL)
		r = guard_shell_refuse(why, whysz,
		    "BLOCKED: the tool's input names no tool");
	else if (strcmp(tool, "Bash") == 0) {
		if ((cmd = json_str_at(in, "tool_input.command")) == NULL)
			r = guard_shell_refuse(why, whysz,
			    "BLOCKED: the Bash tool's input has no command");
		else
			r = agent_guard_check(&at, cmd, why, whysz);
	} else if (one_of(tool, guard_file_tools)) {
		if ((file = json_str_at(in, "tool_input.file_path")) == NULL)
			file = json_str_at(in, "tool_input.notebook_path");
		if (file == NULL)
			r = guard_shell_refuse(why, whysz,
			    "BLOCKED: the %s tool's input has no file path",
			    tool);
		else
			r = agent_guard_check_write(&at, file, why, whysz);
	} else
		r = guard_shell_refuse(why, whysz,
		    "BLOCKED: the guard does not know the tool '%.64s'; only "
		    "Bash and the file tools (Write, Edit, MultiEdit, "
		    "NotebookEdit) are judged",
		    tool);
out:
	cJSON_Delete(in);
	return r;
}
