/*
 * Prompt templates: the compiled-in ones, a factory's overrides, and
 * {{NAME}} placeholder substitution.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "template.h"
#include "xmalloc.h"

/* Largest template file read. */
#define TEMPLATE_MAX (256 * 1024)

/* One compiled-in template: formulas/NAME of the source tree. */
struct template_builtin {
	const char *name;
	const char *text;
};

/*
 * template_builtins[], ending with a NULL name: generated at build time
 * by formulas/embed from the .md files of formulas/ (the Makefile puts
 * the generated file on the include path).
 */
#include "template_builtin.inc"

static const char *template_lookup(const struct template_var *, size_t,
    const char *, size_t);

static const char *
template_lookup(const struct template_var *vars, size_t n, const char *name,
    size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(vars[i].name) == len &&
		    strncmp(vars[i].name, name, len) == 0)
			return vars[i].value ? vars[i].value : "";
	return NULL;
}

int
template_fill(const char *tmpl, const struct template_var *vars, size_t n,
    char **out, char *err, size_t errsz)
{
	struct buf b;
	const char *p = tmpl, *open, *close, *value;

	*out = NULL;
	buf_init(&b, 0);
	while ((open = strstr(p, "{{")) != NULL) {
		buf_append(&b, p, (size_t)(open - p));
		close = strstr(open + 2, "}}");
		if (close == NULL) {
			snprintf(err, errsz,
			    "unterminated placeholder "
			    "'%.30s'",
			    open);
			buf_free(&b);
			return -1;
		}
		value = template_lookup(vars, n, open + 2,
		    (size_t)(close - open - 2));
		if (value == NULL) {
			snprintf(err, errsz, "unknown placeholder '%.*s'",
			    (int)(close - open + 2 > 60 ? 60 :
							  close - open + 2),
			    open);
			buf_free(&b);
			return -1;
		}
		buf_puts(&b, value);
		p = close + 2;
	}
	buf_puts(&b, p);
	*out = buf_steal(&b);
	return 0;
}

const char *
template_builtin(const char *name)
{
	const struct template_builtin *t;

	for (t = template_builtins; t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t->text;
	return NULL;
}

enum template_source
template_load(const char *dir, const char *name, struct buf *out, char *err,
    size_t errsz)
{
	enum template_source r = TEMPLATE_FAILED;
	char *path = NULL;
	const char *text;
	int rr;

	if (dir != NULL) {
		path = xasprintf("%s/%s", dir, name);
		rr = file_read(path, TEMPLATE_MAX, out);
		if (rr == 0) {
			r = TEMPLATE_FILE;
			goto out;
		}
		if (rr == 1 || errno != ENOENT) {
			snprintf(err, errsz, "cannot read '%s': %s", path,
			    rr == 1 ? "file too large" : strerror(errno));
			goto out;
		}
	}
	if ((text = template_builtin(name)) == NULL) {
		snprintf(err, errsz, "no template '%s'", name);
		goto out;
	}
	buf_puts(out, text);
	r = TEMPLATE_BUILTIN;
out:
	free(path);
	return r;
}

int
template_render(const char *dir, const char *name,
    const struct template_var *vars, size_t n, char **out, char *err,
    size_t errsz)
{
	char fill_err[160];
	struct buf text;
	enum template_source src;
	int r = -1;

	*out = NULL;
	buf_init(&text, 0);
	src = template_load(dir, name, &text, err, errsz);
	if (src == TEMPLATE_FAILED)
		goto out;
	if (template_fill(buf_str(&text), vars, n, out, fill_err,
		sizeof(fill_err)) == -1) {
		if (src == TEMPLATE_FILE)
			snprintf(err, errsz, "%s/%s: %s", dir, name, fill_err);
		else
			snprintf(err, errsz, "built-in '%s': %s", name,
			    fill_err);
		goto out;
	}
	r = 0;
out:
	buf_free(&text);
	return r;
}
