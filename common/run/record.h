/*
 * "KEY: value" records: the header lines of the run files that remember
 * what a tick did (a CI result, a review's launch, an escalation's
 * comments).  The header ends at the first empty line; anything after it
 * (the text that was injected, say) is never read as a key.  A key is
 * matched at the start of a line, colon included ("SHA:"); the value runs
 * from the first non-blank after it to the end of the line, trailing
 * blanks dropped.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stddef.h>

struct buf;

/* The bytes of a record file read (its header is at the start). */
#define RECORD_MAX 4096

/*
 * The value of key in the header of text into out (outsz bytes).  Returns
 * 0, or -1 when the key is missing or its value does not fit.
 */
int record_get(const char *text, const char *key, char *out, size_t outsz);
/* The same for a number; -1 also when the value is not one. */
int record_get_ll(const char *text, const char *key, long long *out);
/*
 * Read the start of the record file at path into out.  Returns 0, or -1
 * when it is missing or cannot be read (errno set).
 */
int record_load(const char *path, struct buf *out);
/* record_load() and record_get() in one. */
int record_read(const char *path, const char *key, char *out, size_t outsz);

#endif
