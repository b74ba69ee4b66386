/*
 * Unit tests for common/base/termsafe.c: what reaches a terminal, what a log
 * line shows, and that the output is always clean, valid UTF-8.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "check.h"
#include "termsafe.h"

#define FFFD "\xef\xbf\xbd"

/* termsafe_text() of len bytes at in compared with want. */
static int
text_is(const char *in, size_t len, const char *want)
{
	struct buf b;
	int ok;

	buf_init(&b, 0);
	termsafe_text(in, len, &b);
	ok = b.len == strlen(want) && memcmp(buf_str(&b), want, b.len) == 0;
	if (!ok)
		printf("#   got \"%s\", want \"%s\"\n", buf_str(&b), want);
	buf_free(&b);
	return ok;
}

#define TEXT_IS(lit, want) CHECK(text_is(lit, sizeof(lit) - 1, want))

/* termsafe_line() with max compared with want. */
static int
line_is(const char *in, size_t max, const char *want)
{
	struct buf b;
	int ok;

	buf_init(&b, 0);
	termsafe_line(in, strlen(in), max, &b);
	ok = strcmp(buf_str(&b), want) == 0;
	if (!ok)
		printf("#   got \"%s\", want \"%s\"\n", buf_str(&b), want);
	buf_free(&b);
	return ok;
}

/*
 * 1 if s[0..len) is valid UTF-8 holding no control character other than
 * LF and TAB (checked here independently of the module).
 */
static int
clean(const unsigned char *s, size_t len)
{
	size_t i = 0, k, j;
	unsigned long cp;

	while (i < len) {
		unsigned char c = s[i];

		if (c < 0x80) {
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				return 0;
			i++;
			continue;
		}
		k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
		if (k == 0 || c > 0xf4 || i + k > len)
			return 0;
		cp = c & (0xff >> (k + 1));
		for (j = 1; j < k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + j] & 0x3f);
		}
		if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) ||
		    (k == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) ||
		    (cp >= 0x80 && cp <= 0x9f))
			return 0;
		i += k;
	}
	return 1;
}

static void
test_plain_kept(void)
{
	TEXT_IS("", "");
	TEXT_IS("Fix the parser.\n\tIndented $(id) `x` 'q' \"d\"\n",
	    "Fix the parser.\n\tIndented $(id) `x` 'q' \"d\"\n");
	TEXT_IS("caf\xc3\xa9 \xe2\x9d\xaf \xf0\x9f\x98\x80 \xef\xbf\xbd",
	    "caf\xc3\xa9 \xe2\x9d\xaf \xf0\x9f\x98\x80 \xef\xbf\xbd");
	/* The highest code point and the last one below the surrogates. */
	TEXT_IS("\xf4\x8f\xbf\xbf\xed\x9f\xbf", "\xf4\x8f\xbf\xbf\xed\x9f\xbf");
}

static void
test_escapes_dropped(void)
{
	/* The end of a bracketed paste and a CR: the attack itself. */
	TEXT_IS("a\x1b[201~\rrm -rf ~\r", "a[201~\nrm -rf ~\n");
	TEXT_IS("\x1b[200~x\x1b]0;title\x07y", "[200~x]0;titley");
	TEXT_IS("bell\x07 bs\x08 vt\x0b ff\x0c so\x0e us\x1f del\x7f.",
	    "bell bs vt ff so us del.");
	/* NUL inside the text is dropped, not an end. */
	TEXT_IS("before\0after", "beforeafter");
	/* C1 controls encoded as characters: NEL, CSI, OSC, ST. */
	TEXT_IS("x\xc2\x85y\xc2\x9b"
		"31mz\xc2\x9d\xc2\x9c.",
	    "xy31mz.");
	TEXT_IS("\xc2\xa0nbsp", "\xc2\xa0nbsp");
}

static void
test_line_breaks(void)
{
	TEXT_IS("one\r\ntwo\r\n", "one\ntwo\n");
	TEXT_IS("one\rtwo\r", "one\ntwo\n");
	TEXT_IS("a\r\r\nb\n\rc", "a\n\nb\n\nc");
	TEXT_IS("\r", "\n");
}

static void
test_invalid_utf8(void)
{
	/* One U+FFFD per maximal ill-formed subpart, as Python does. */
	TEXT_IS("a\xffz", "a" FFFD "z");
	TEXT_IS("\x80\xbf", FFFD FFFD);
	TEXT_IS("\xc0\xaf", FFFD FFFD);		 /* overlong '/' */
	TEXT_IS("\xe0\x80\xaf", FFFD FFFD FFFD); /* overlong */
	TEXT_IS("\xed\xa0\x80", FFFD FFFD FFFD); /* a surrogate */
	TEXT_IS("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);
	TEXT_IS("\xf5\xf8\xfe", FFFD FFFD FFFD);
	TEXT_IS("\xe2\x9d", FFFD);	/* cut short at the end */
	TEXT_IS("\xe2\x9dz", FFFD "z"); /* cut short by another char */
	TEXT_IS("\xf0\x9f\x98\x1b[201~", FFFD "[201~");
	/* A raw C1 byte is not UTF-8: replaced, never passed on. */
	TEXT_IS("\x9b"
		"2J",
	    FFFD "2J");
}

static void
test_bidi_kept(void)
{
	/* Right-to-left override and isolates: valid text, kept. */
	TEXT_IS("x\xe2\x80\xae"
		"cba\xe2\x80\xac \xe2\x81\xa6y\xe2\x81\xa9",
	    "x\xe2\x80\xae"
	    "cba\xe2\x80\xac \xe2\x81\xa6y\xe2\x81\xa9");
}

static void
test_dup(void)
{
	char *s = termsafe_dup("a\r\nb\x1b"
			       "c");

	CHECK_STR(s, "a\nbc");
	free(s);
	s = termsafe_dup("");
	CHECK_STR(s, "");
	free(s);
}

static void
test_random_is_clean(void)
{
	/* 1 MB of arbitrary bytes comes out clean, and cleaning is stable. */
	size_t len = 1024 * 1024, i;
	unsigned char *in = malloc(len);
	unsigned int x = 12345;
	struct buf once, twice;

	for (i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		in[i] = (unsigned char)(x >> 16);
		/* Bias toward the interesting bytes. */
		if (i % 7 == 0)
			in[i] = "\x1b\r\n\x00\x7f\xc2\x9b\xe2\x80\xae"[x % 10];
	}
	buf_init(&once, 0);
	buf_init(&twice, 0);
	termsafe_text((const char *)in, len, &once);
	CHECK(clean((const unsigned char *)once.data, once.len));
	CHECK(memchr(once.data, '\x1b', once.len) == NULL);
	CHECK(memchr(once.data, '\r', once.len) == NULL);
	termsafe_text(once.data, once.len, &twice);
	CHECK_INT(twice.len, once.len);
	CHECK(memcmp(once.data, twice.data, once.len) == 0);
	buf_free(&once);
	buf_free(&twice);
	free(in);
}

static void
test_line(void)
{
	CHECK(line_is("plain text", 0, "plain text"));
	CHECK(line_is("a\nb\r\tc", 0, "a\\nb\\r\\tc"));
	CHECK(line_is("\x1b[31mred\x07\x7f", 0, "\\x1b[31mred\\x07\\x7f"));
	CHECK(line_is("nel\xc2\x85"
		      "csi\xc2\x9b",
	    0, "nel\\u0085csi\\u009b"));
	CHECK(line_is("x\xe2\x80\xae"
		      "y\xe2\x81\xa6z\xd8\x9c",
	    0, "x\\u202ey\\u2066z\\u061c"));
	CHECK(line_is("bad\xff\xc0", 0, "bad" FFFD FFFD));
	CHECK(line_is("caf\xc3\xa9", 0, "caf\xc3\xa9"));
}

static void
test_line_cap(void)
{
	CHECK(line_is("abcdef", 6, "abcdef"));
	CHECK(line_is("abcdefgh", 6, "abcdef...[2 bytes cut]"));
	/* Never inside a character or an escape. */
	CHECK(line_is("ab\xc3\xa9\xc3\xa9", 3, "ab...[4 bytes cut]"));
	CHECK(line_is("ab\x1b"
		      "cd",
	    4, "ab...[3 bytes cut]"));
	CHECK(line_is("ab\x1b"
		      "cd",
	    6, "ab\\x1b...[2 bytes cut]"));
}

int
main(void)
{
	RUN(test_plain_kept);
	RUN(test_escapes_dropped);
	RUN(test_line_breaks);
	RUN(test_invalid_utf8);
	RUN(test_bidi_kept);
	RUN(test_dup);
	RUN(test_random_is_clean);
	RUN(test_line);
	RUN(test_line_cap);
	return check_main();
}
