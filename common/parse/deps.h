/*
 * Dependencies declared in an issue body, as the bash parse-deps.sh reads
 * them.
 */
#ifndef DEPS_H
#define DEPS_H

#include <stddef.h>

/*
 * Collect the issue numbers body depends on: every #N in a "Dependencies",
 * "Depends on" or "Blocked by" section, and every #N on a line saying
 * "depends on" or "blocked by" outside fenced code.  *out receives them
 * sorted ascending, without duplicates and without self, and *n their
 * count; *out is NULL when there are none.  Caller frees *out.  Returns 0
 * (a NULL body counts as empty).
 */
int deps_parse(const char *body, long long self, long long **out, size_t *n);

#endif
