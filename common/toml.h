/*
 * The TOML subset of the project files, read with inih: `[section]`
 * headers, `key = value` lines with a basic or literal string, a decimal
 * integer, true/false, or a one-line array of strings, and `#` comment
 * lines.  Anything else is an error naming the file and line.
 */
#ifndef TOML_H
#define TOML_H

#include <stddef.h>

enum toml_type { TOML_STRING, TOML_INT, TOML_BOOL, TOML_ARRAY };

struct toml_value {
	enum toml_type type;
	char *str;     /* TOML_STRING */
	long long num; /* TOML_INT, TOML_BOOL (0 or 1) */
	char **items;  /* TOML_ARRAY of strings */
	size_t nitems;
};

/*
 * Called for every key.  Return 0 to go on, or -1 after writing the
 * problem (without file and line) into err.  The value is valid only
 * during the call.
 */
typedef int toml_cb(void *arg, const char *section, const char *key,
    const struct toml_value *value, int lineno, char *err, size_t errsz);

/*
 * Parse path, calling cb for each key.  Returns 0, or -1 with err set to
 * "path:line: message" (or "path: message" when the file cannot be read).
 */
int toml_parse_file(const char *path, toml_cb *cb, void *arg, char *err,
    size_t errsz);
/* The same over a string; name is used in messages. */
int toml_parse_string(const char *name, const char *text, toml_cb *cb,
    void *arg, char *err, size_t errsz);
/* Decode one value as it appears after '='.  0, or -1 with err set. */
int toml_decode(const char *raw, struct toml_value *out, char *err,
    size_t errsz);
void toml_value_free(struct toml_value *);

#endif
