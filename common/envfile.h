/*
 * The factory's .env file: KEY=value lines as a shell would source them
 * (optional `export`, single or double quotes, `#` comments), read
 * without ever evaluating anything: `$VAR` stays literal text.
 */
#ifndef ENVFILE_H
#define ENVFILE_H

#include <stddef.h>

/* Called per assignment; return 0 to go on, -1 to stop. */
typedef int envfile_cb(void *arg, const char *key, const char *value);

/*
 * Parse text (name is used in messages).  Returns 0, or -1 with err set
 * to "name:line: message".
 */
int envfile_parse(const char *name, const char *text, envfile_cb *cb, void *arg,
    char *err, size_t errsz);

#endif
