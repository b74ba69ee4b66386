/*
 * The redactor: any text gives a string in which no AWS key, no 0x key,
 * no "Bearer" token, no long hex run in a URL, no age secret key and no
 * URL password is left, and every run
 * of 32 or more hex digits kept (a variable or a commit SHA) was in the
 * input.  (Redacting twice is not always the same as once: a later rule
 * may replace the "commit " before a SHA that an earlier rule kept.)
 */
#include <ctype.h>

#include "fuzz.h"
#include "redact.h"

static size_t
fuzz_span(const char *s, int (*pred)(int))
{
	size_t n = 0;

	while (s[n] != '\0' && pred((unsigned char)s[n]))
		n++;
	return n;
}

static int
fuzz_upper_digit(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int
fuzz_bearer_char(int c)
{
	return isalnum(c) || c == '_' || c == '/' || c == '+' || c == '=' ||
	    c == '-';
}

/*
 * No URL in out holds a run of 20 or more hex digits (each maximal run
 * looked at once: the check stays linear in the text).
 */
static void
fuzz_urls(const char *out)
{
	const char *p;
	size_t n;

	for (p = out; *p != '\0'; p++) {
		if (strncmp(p, "http://", 7) != 0 &&
		    strncmp(p, "https://", 8) != 0)
			continue;
		for (; *p != '\0' && !isspace((unsigned char)*p); p++) {
			n = fuzz_span(p, isxdigit);
			FUZZ_ASSERT(n < 20);
			if (n > 0)
				p += n - 1;
		}
		if (*p == '\0')
			break;
	}
}

/*
 * At "://": user information with a password (up to an '@' before the
 * host ends) has it masked.
 */
static void
fuzz_userinfo(const char *p)
{
	const char *colon;
	size_t len = strcspn(p + 3, "/?#@ \t\r\n\"'<>`");

	if (p[3 + len] != '@' || (colon = memchr(p + 3, ':', len)) == NULL)
		return;
	FUZZ_ASSERT(strncmp(colon + 1, "[REDACTED]@", 11) == 0);
}

static void
fuzz_check(const char *in, const char *out)
{
	const char *p;
	size_t n;
	char *run;

	for (p = out; *p != '\0'; p++) {
		if (strncmp(p, "AKIA", 4) == 0)
			FUZZ_ASSERT(fuzz_span(p + 4, fuzz_upper_digit) < 16);
		if (strncmp(p, "0x", 2) == 0)
			FUZZ_ASSERT(fuzz_span(p + 2, isxdigit) < 64);
		if (strncmp(p, "Bearer ", 7) == 0)
			FUZZ_ASSERT(fuzz_span(p + 7, fuzz_bearer_char) < 20);
		if (strncmp(p, "AGE-SECRET-KEY-1", 16) == 0)
			FUZZ_ASSERT(fuzz_span(p + 16, fuzz_upper_digit) < 10);
		if (strncmp(p, "://", 3) == 0)
			fuzz_userinfo(p);
		if ((p == out || !isxdigit((unsigned char)p[-1])) &&
		    (n = fuzz_span(p, isxdigit)) >= 32) {
			run = fuzz_cstr((const uint8_t *)p, n);
			FUZZ_ASSERT(strstr(in, run) != NULL);
			free(run);
		}
	}
	fuzz_urls(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *once;

	once = redact_secrets(text);
	FUZZ_ASSERT(once != NULL);
	fuzz_check(text, once);
	free(once);
	free(text);
	return 0;
}
