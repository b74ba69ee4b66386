/*
 * Project files: TOML 1.0 as Python's tomllib reads it, because the bash
 * scripts read them with tomllib (load-project.sh).  A file tomllib
 * accepts is accepted (multi-line strings and arrays, inline tables,
 * dotted and quoted keys, [[arrays of tables]], dates, any number form);
 * a file tomllib refuses is refused with "file:line: message" (a key or
 * table defined twice, invalid UTF-8, a NUL byte, ...).  One exception:
 * the escape \u0000, which no C string can hold, is refused.  inih reads
 * the lines, [tables] and key names; this module's decoder reads the keys
 * and values (see toml.c).
 *
 * The parser reports every key whose value is a scalar or an array, in
 * document order, with its full path: the keys of an inline table are
 * reported one by one, as if written with dotted keys, so `ci = { a = 1 }`
 * and `[ci]` + `a = 1` read alike.  What the keys mean is the caller's.
 */
#ifndef TOML_H
#define TOML_H

#include <stddef.h>

enum toml_type {
	TOML_STRING,
	TOML_INT,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME, /* also dates and times alone */
	TOML_ARRAY,
	TOML_TABLE /* only as an array item or inside another table */
};

/*
 * A value.  str holds every scalar as the text load-project.sh exported
 * for it: a string's contents, an integer in decimal, "true" or "false",
 * a float or a date as written (without '_').
 */
struct toml_value {
	enum toml_type type;
	char *str;		  /* scalars */
	long long num;		  /* TOML_INT, TOML_BOOL (0 or 1) */
	int overflow;		  /* TOML_INT: does not fit num */
	struct toml_value *items; /* TOML_ARRAY, TOML_TABLE */
	char **keys;		  /* TOML_TABLE: the key of each item */
	size_t nitems;
};

/* One key of the document and its value (never a TOML_TABLE). */
struct toml_item {
	const char *const *path; /* the table names, then the key */
	size_t depth;		 /* elements in path, at least 1 */
	int in_array;		 /* inside an [[array of tables]] */
	const struct toml_value *value;
	int lineno; /* where the key is */
};

/*
 * Called for every key.  Return 0 to go on, or -1 after writing the
 * problem (without file and line) into err.  The item is valid only
 * during the call.
 */
typedef int toml_cb(void *arg, const struct toml_item *item, char *err,
    size_t errsz);

/*
 * Parse len bytes of text, calling cb for each key; name is used in
 * messages.  Returns 0, or -1 with err set to "name:line: message".
 */
int toml_parse(const char *name, const char *text, size_t len, toml_cb *cb,
    void *arg, char *err, size_t errsz);
/*
 * The same for the file at path (read with file_read(), at most 256 KiB).
 * Returns 0, or -1 with err set ("path: cannot read: ..." when the file
 * cannot be read).
 */
int toml_parse_file(const char *path, toml_cb *cb, void *arg, char *err,
    size_t errsz);
/* A key path as TOML writes it, "a.b.\"c d\"".  Caller frees. */
char *toml_path_str(const char *const *path, size_t depth);
void toml_value_free(struct toml_value *);

#endif
