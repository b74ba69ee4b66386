/*
 * The factory's .env, read as the bash scripts read it (`set -a; .
 * ./.env`) but without a shell: KEY=value and KEY+=value assignments,
 * `export`, several on a line or separated by ';', single and double
 * quotes (across lines too), $'...' strings, backslashes and line
 * continuations, `#` comments, ~ and ~/ in values, and the expansions
 * $VAR, ${VAR}, ${VAR-x}, ${VAR:-x}, ${VAR=x}, ${VAR:=x}, ${VAR+x},
 * ${VAR:+x}, ${VAR?x} and ${VAR:?x} of earlier assignments and of the
 * environment.  Every such file gives the values bash gives.
 *
 * Anything that would run a command or needs more of a shell is refused
 * with "file:line: message": a command word, $(...), backticks,
 * arithmetic, redirections, pipes, other expansions; so are a NUL byte
 * and a backslash (or a line continuation) at the very end of the file.
 */
#ifndef ENVFILE_H
#define ENVFILE_H

#include <stddef.h>

struct envfile_ops {
	/* The value of a variable, or NULL when it is not set. */
	const char *(*get)(void *arg, const char *name);
	/*
	 * Assign (and export) a variable, on line lineno: 0, or -1 to stop
	 * with err (without file and line) set.
	 */
	int (*set)(void *arg, const char *name, const char *value, int lineno,
	    char *err, size_t errsz);
	void *arg;
};

/*
 * Evaluate len bytes of text (name is used in messages) through ops.
 * Returns 0, or -1 with err set to "name:line: message".
 */
int envfile_parse(const char *name, const char *text, size_t len,
    const struct envfile_ops *ops, char *err, size_t errsz);

#endif
