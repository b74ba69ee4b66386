/*
 * Base64 encoding, RFC 4648 section 4: every three bytes become four
 * characters of the alphabet, the last group padded with '='.
 */
#include <stdlib.h>

#include "base64.h"
#include "xmalloc.h"

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
base64_encode(const void *data, size_t len)
{
	const unsigned char *in = data;
	char *out = xmalloc((len + 2) / 3 * 4 + 1), *p = out;
	unsigned long v;
	size_t i;

	for (i = 0; i < len; i += 3) {
		v = (unsigned long)in[i] << 16;
		if (i + 1 < len)
			v |= (unsigned long)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*p++ = base64_alphabet[(v >> 18) & 63];
		*p++ = base64_alphabet[(v >> 12) & 63];
		*p++ = i + 1 < len ? base64_alphabet[(v >> 6) & 63] : '=';
		*p++ = i + 2 < len ? base64_alphabet[v & 63] : '=';
	}
	*p = '\0';
	return out;
}
