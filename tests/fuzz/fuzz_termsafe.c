/*
 * The terminal sanitiser: whatever the bytes, the terminal form is valid
 * UTF-8 with no control character but LF and TAB (no ESC, CR, NUL, DEL
 * or C1), sanitising it again changes nothing, and text that needed no
 * change comes out as it went in; the log form is valid UTF-8 without
 * any control or bidirectional formatting character, within its cap
 * plus the cut marker.
 */
#include "buf.h"
#include "fuzz.h"
#include "fuzz_utf8.h"
#include "termsafe.h"

/* The code point of the well-formed sequence at s (k bytes). */
static long
fuzz_cp(const unsigned char *s, size_t *k)
{
	if (s[0] < 0x80) {
		*k = 1;
		return s[0];
	}
	if (s[0] < 0xe0) {
		*k = 2;
		return ((long)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
	}
	if (s[0] < 0xf0) {
		*k = 3;
		return ((long)(s[0] & 0x0f) << 12) |
		    ((long)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	}
	*k = 4;
	return ((long)(s[0] & 0x07) << 18) | ((long)(s[1] & 0x3f) << 12) |
	    ((long)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
}

static int
fuzz_control(long cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

static int
fuzz_bidi(long cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Valid UTF-8 holding no control (but LF and TAB when terminal). */
static void
fuzz_check(const struct buf *b, int terminal)
{
	const unsigned char *s = (const unsigned char *)buf_str(b);
	size_t i, k;
	long cp;

	FUZZ_ASSERT(fuzz_utf8_valid(s, b->len));
	FUZZ_ASSERT(memchr(s, '\0', b->len) == NULL);
	for (i = 0; i < b->len; i += k) {
		cp = fuzz_cp(s + i, &k);
		if (terminal)
			FUZZ_ASSERT(
			    !fuzz_control(cp) || cp == '\n' || cp == '\t');
		else
			FUZZ_ASSERT(!fuzz_control(cp) && !fuzz_bidi(cp));
	}
}

/* 1 when termsafe_text() has nothing to change in the input. */
static int
fuzz_clean(const uint8_t *data, size_t size)
{
	size_t i, k;
	long cp;

	if (!fuzz_utf8_valid(data, size))
		return 0;
	for (i = 0; i < size; i += k) {
		cp = fuzz_cp(data + i, &k);
		if (fuzz_control(cp) && cp != '\n' && cp != '\t')
			return 0;
	}
	return 1;
}

static void
fuzz_terminal(const uint8_t *data, size_t size)
{
	struct buf a, b;
	char *s, *dup;

	buf_init(&a, 0);
	buf_init(&b, 0);
	termsafe_text((const char *)data, size, &a);
	fuzz_check(&a, 1);
	FUZZ_ASSERT(a.len <= 3 * size);
	termsafe_text(buf_str(&a), a.len, &b);
	FUZZ_ASSERT(
	    a.len == b.len && memcmp(buf_str(&a), buf_str(&b), a.len) == 0);
	if (fuzz_clean(data, size))
		FUZZ_ASSERT(
		    a.len == size && memcmp(buf_str(&a), data, size) == 0);
	s = fuzz_cstr(data, size);
	dup = termsafe_dup(s);
	buf_reset(&b);
	termsafe_text(s, strlen(s), &b);
	FUZZ_ASSERT(strcmp(dup, buf_str(&b)) == 0);
	free(dup);
	free(s);
	buf_free(&a);
	buf_free(&b);
}

/*
 * The log form: uncapped, never longer than four bytes per input byte
 * ("\xNN"); capped, longer than the cap only by a final "...[N bytes
 * cut]" naming some of the input's bytes.
 */
static void
fuzz_log(const uint8_t *data, size_t size, size_t max)
{
	struct buf a;
	const char *s, *m, *p;
	char *end;
	unsigned long long cut;

	buf_init(&a, 0);
	termsafe_line((const char *)data, size, max, &a);
	fuzz_check(&a, 0);
	FUZZ_ASSERT(max != 0 || a.len <= 4 * size);
	s = buf_str(&a);
	if (max != 0 && a.len > max) {
		m = NULL;
		for (p = s; (p = strstr(p, "...[")) != NULL; p++)
			m = p;
		FUZZ_ASSERT(m != NULL && (size_t)(m - s) <= max);
		cut = strtoull(m + 4, &end, 10);
		FUZZ_ASSERT(end != m + 4 && strcmp(end, " bytes cut]") == 0);
		FUZZ_ASSERT(cut >= 1 && cut <= size);
	}
	buf_free(&a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_terminal(data, size);
	fuzz_log(data, size, 0);
	fuzz_log(data, size, size > 0 ? data[0] % 64 : 0);
	return 0;
}
