/*
 * UTF-8-safe cuts: a byte 10xxxxxx continues a character, so a cut point
 * moves back (prefix) or forward (suffix) past such bytes.
 */
#include <string.h>

#include "utf8.h"
#include "xmalloc.h"

static int utf8_continues(unsigned char);

static int
utf8_continues(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t
utf8_prefix_len(const char *s, size_t len, size_t max)
{
	size_t keep;

	if (len <= max)
		return len;
	keep = max;
	while (keep > 0 && utf8_continues((unsigned char)s[keep]))
		keep--;
	return keep;
}

size_t
utf8_suffix_start(const char *s, size_t len, size_t max)
{
	size_t start;

	if (len <= max)
		return 0;
	start = len - max;
	while (start < len && utf8_continues((unsigned char)s[start]))
		start++;
	return start;
}

char *
utf8_cut(const char *s, size_t max, const char *mark)
{
	size_t len, keep;

	if (s == NULL)
		s = "";
	len = strlen(s);
	keep = utf8_prefix_len(s, len, max);
	if (keep == len)
		return xstrdup(s);
	return xasprintf("%.*s%s", (int)keep, s, mark != NULL ? mark : "");
}

char *
utf8_tail(const char *s, size_t max)
{
	size_t len;

	if (s == NULL)
		s = "";
	len = strlen(s);
	return xstrdup(s + utf8_suffix_start(s, len, max));
}
