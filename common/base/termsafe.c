/*
 * Terminal-safe and log-safe text.
 *
 * Bidirectional formatting characters (U+202A..U+202E, U+2066..U+2069,
 * U+200E, U+200F, U+061C) are kept in terminal text: they are valid text
 * that no terminal takes as a key or a command, right-to-left writers use
 * them legitimately, and the agent reads code points in logical order, so
 * an override cannot make it see something other than what was written
 * (the "Trojan Source" trick works on a human reading a rendered view,
 * not on the model).  Dropping them would change what the author wrote.
 * In a log line, read by a human in a terminal that may reorder text,
 * they are shown as "\uNNNN" instead.
 */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "termsafe.h"

/* What termsafe_utf8_next() reports for an ill-formed sequence. */
#define TERMSAFE_BAD (-1L)
static const char replacement[] = "\xef\xbf\xbd";

static size_t termsafe_utf8_next(const unsigned char *, size_t, long *);
static int is_control(long);
static int is_bidi(long);
static size_t line_piece(const char *, size_t, long, char *, size_t);

/*
 * Decode the character at s (n > 0 bytes left) into *cp and return its
 * length.  An ill-formed sequence sets *cp to TERMSAFE_BAD and returns the
 * length of its maximal ill-formed subpart (1 for a byte that cannot
 * start a character, else the lead byte and the valid continuation bytes
 * that followed it).  Overlong forms, surrogates and code points past
 * U+10FFFF are ill-formed.
 */
static size_t
termsafe_utf8_next(const unsigned char *s, size_t n, long *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need, i;
	long v;

	*cp = TERMSAFE_BAD;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		v = c & 0x0f;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		v = c & 0x07;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else
		return 1;
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return i;
		v = (v << 6) | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = v;
	return need + 1;
}

/* C0 controls, DEL and C1 controls. */
static int
is_control(long cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

/* The invisible characters that change the display order of text. */
static int
is_bidi(long cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

void
termsafe_text(const char *text, size_t len, struct buf *out)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, run = 0, k;
	long cp;

	/* Clean stretches are copied whole; [run, i) is the current one. */
	while (i < len) {
		k = termsafe_utf8_next(s + i, len - i, &cp);
		if (cp != TERMSAFE_BAD &&
		    (!is_control(cp) || cp == '\n' || cp == '\t')) {
			i += k;
			continue;
		}
		buf_append(out, text + run, i - run);
		if (cp == TERMSAFE_BAD)
			buf_append(out, replacement, 3);
		else if (cp == '\r') {
			buf_append(out, "\n", 1);
			if (i + 1 < len && s[i + 1] == '\n')
				k = 2;
		}
		i += k;
		run = i;
	}
	buf_append(out, text + run, i - run);
}

char *
termsafe_dup(const char *text)
{
	struct buf b;

	buf_init(&b, 0);
	termsafe_text(text, strlen(text), &b);
	return buf_steal(&b);
}

/*
 * The log form of the character cp (k bytes at s) into piece (at least
 * 16 bytes); returns its length.
 */
static size_t
line_piece(const char *s, size_t k, long cp, char *piece, size_t size)
{
	if (cp == TERMSAFE_BAD) {
		memcpy(piece, replacement, 3);
		return 3;
	}
	if (cp == '\n' || cp == '\r' || cp == '\t') {
		piece[0] = '\\';
		piece[1] = cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't';
		return 2;
	}
	if (cp < 0x20 || cp == 0x7f)
		return (size_t)snprintf(piece, size, "\\x%02lx", cp);
	if (is_control(cp) || is_bidi(cp))
		return (size_t)snprintf(piece, size, "\\u%04lx", cp);
	memcpy(piece, s, k);
	return k;
}

void
termsafe_line(const char *text, size_t len, size_t max, struct buf *out)
{
	const unsigned char *s = (const unsigned char *)text;
	char piece[16];
	size_t i = 0, k, n, used = 0;
	long cp;

	while (i < len) {
		k = termsafe_utf8_next(s + i, len - i, &cp);
		n = line_piece(text + i, k, cp, piece, sizeof(piece));
		if (max != 0 && used + n > max) {
			buf_printf(out, "...[%zu bytes cut]", len - i);
			return;
		}
		buf_append(out, piece, n);
		used += n;
		i += k;
	}
}
