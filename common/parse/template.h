/*
 * Prompt templates: plain text with {{NAME}} placeholders.  The templates
 * of this source tree's formulas/ (*.md) are compiled in; a file of the
 * same name in the factory's formulas directory overrides one, so an
 * operator can edit a prompt without a build, and a missing file is never
 * an error.  This module is the one place a template name is resolved.
 * Every placeholder must be given a value; an unknown one is an error, so
 * no template text ever reaches an agent half filled.
 */
#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stddef.h>

struct buf;

/* One placeholder and its value. */
struct template_var {
	const char *name;
	const char *value;
};

/*
 * Fill tmpl with vars (n of them) into *out (caller frees).  Returns 0, or
 * -1 with err naming the unknown or unterminated placeholder.
 */
int template_fill(const char *tmpl, const struct template_var *vars, size_t n,
    char **out, char *err, size_t errsz);
/* Where the text of a template came from. */
enum template_source {
	TEMPLATE_FAILED = -1, /* there is no text: err says why */
	TEMPLATE_FILE = 0,    /* the override dir/name */
	TEMPLATE_BUILTIN = 1  /* the compiled-in text */
};

/*
 * The compiled-in text of the template name ("dev-initial.md"), or NULL
 * when there is none.  Static storage: never freed.
 */
const char *template_builtin(const char *name);
/*
 * The text of the template name, appended to out: the regular file
 * dir/name when it exists (dir NULL: none is looked for), else the
 * compiled-in text.  A file that exists but cannot be read is a failure,
 * never silently replaced: err says "cannot read 'dir/name': ...";
 * neither a file nor a compiled-in text gives "no template 'name'".
 */
enum template_source template_load(const char *dir, const char *name,
    struct buf *out, char *err, size_t errsz);
/*
 * Load the template name as template_load() does and fill it.  Returns
 * 0, or -1 with err set (the load error, or the fill error prefixed with
 * the file name or "built-in 'name'").
 */
int template_render(const char *dir, const char *name,
    const struct template_var *vars, size_t n, char **out, char *err,
    size_t errsz);

#endif
