/*
 * Prompt templates from formulas/: plain text with {{NAME}} placeholders.
 * Every placeholder must be given a value; an unknown one is an error, so
 * no template text ever reaches an agent half filled.
 */
#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stddef.h>

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
/*
 * Read the template file name from dir and fill it.  Returns 0, or -1
 * with err set ("'dir/name': cannot read" or the fill error prefixed with
 * the file name).
 */
int template_render(const char *dir, const char *name,
    const struct template_var *vars, size_t n, char **out, char *err,
    size_t errsz);

#endif
