/*
 * Base64 (RFC 4648 section 4, with padding): the forms of a secret the
 * masker looks for (redact.c) and HTTP Basic credentials (git.c).
 */
#ifndef BASE64_H
#define BASE64_H

#include <stddef.h>

/* The base64 text of the len bytes at data.  Caller frees. */
char *base64_encode(const void *data, size_t len);

#endif
