/*
 * A strict UTF-8 check for the harnesses whose parsers promise valid
 * UTF-8 out (the terminal sanitiser, the TOML reader): written apart from
 * the code under test, from the Unicode table of well-formed byte
 * sequences (no overlong form, no surrogate, nothing past U+10FFFF).
 */
#ifndef FUZZ_UTF8_H
#define FUZZ_UTF8_H

#include <stddef.h>

/* 1 when the len bytes at s are well-formed UTF-8, else 0. */
static inline int
fuzz_utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0, need, k;
	unsigned char lo, hi;

	while (i < len) {
		lo = 0x80;
		hi = 0xbf;
		if (s[i] < 0x80)
			need = 0;
		else if (s[i] >= 0xc2 && s[i] <= 0xdf)
			need = 1;
		else if (s[i] >= 0xe0 && s[i] <= 0xef) {
			need = 2;
			lo = s[i] == 0xe0 ? 0xa0 : 0x80;
			hi = s[i] == 0xed ? 0x9f : 0xbf;
		} else if (s[i] >= 0xf0 && s[i] <= 0xf4) {
			need = 3;
			lo = s[i] == 0xf0 ? 0x90 : 0x80;
			hi = s[i] == 0xf4 ? 0x8f : 0xbf;
		} else
			return 0;
		for (k = 1; k <= need; k++) {
			if (i + k >= len || s[i + k] < lo || s[i + k] > hi)
				return 0;
			lo = 0x80;
			hi = 0xbf;
		}
		i += need + 1;
	}
	return 1;
}

#endif
