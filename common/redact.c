/*
 * Secret redaction, the rules of secret-scan.sh's redact_secrets()
 * applied one after another, each a hand-written scan:
 *
 * 1. AKIA followed by 16 of [0-9A-Z] (AWS access key IDs);
 * 2. 0x followed by 64 hex digits (private keys);
 * 3. every maximal run of 32 or more hex digits, except one right after
 *    "$" or "${" (a variable reference) and a 40-digit lowercase SHA right
 *    after "commit " or "Merge ";
 * 4. in an http:// or https:// URL (up to the next white space), every
 *    maximal run of 20 or more hex digits;
 * 5. NAME=value where NAME ends in API_KEY, SECRET, TOKEN, PRIVATE_KEY,
 *    PASSWORD, INFURA or ALCHEMY and the value (after an optional opening
 *    quote, which is kept) has 16 or more characters other than white
 *    space and quotes, unless it is exactly $VAR or ${VAR};
 * 6. "Bearer " followed by 20 or more of [A-Za-z0-9_/+=-].
 *
 * Deliberate differences from the sed version: whole hex runs are
 * replaced (sed's greedy URL prefix left the first digits of a long run
 * visible, and "$" followed by 33+ hex digits lost all but its first
 * digit), git SHAs in commit context are kept as the scanner's safe list
 * intends, and double-quoted values are redacted too.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "redact.h"
#include "xmalloc.h"

#define REDACTED "[REDACTED]"

static char *redact_run_pass(const char *,
    size_t (*)(const char *, size_t, struct buf *));
static size_t redact_span(const char *, size_t, int (*)(int));
static int redact_is_hex(int);
static int redact_is_upper_digit(int);
static int redact_is_value_char(int);
static int redact_is_bearer_char(int);
static int redact_is_name_char(int);
static int redact_is_var_ref(const char *, size_t);
static int redact_is_commit_sha(const char *, size_t, size_t);
static size_t redact_match_akia(const char *, size_t, struct buf *);
static size_t redact_match_0x(const char *, size_t, struct buf *);
static size_t redact_match_hex_run(const char *, size_t, struct buf *);
static size_t redact_match_url(const char *, size_t, struct buf *);
static size_t redact_match_assignment(const char *, size_t, struct buf *);
static size_t redact_match_bearer(const char *, size_t, struct buf *);

/*
 * Copy in, letting match() consume and rewrite the text at each position
 * (it returns how many input bytes it consumed, 0 for no match).  Caller
 * frees.
 */
static char *
redact_run_pass(const char *in,
    size_t (*match)(const char *, size_t, struct buf *))
{
	struct buf out;
	size_t i = 0, n;

	buf_init(&out, 0);
	buf_append(&out, "", 0);
	while (in[i] != '\0') {
		if ((n = match(in, i, &out)) == 0) {
			buf_append(&out, in + i, 1);
			n = 1;
		}
		i += n;
	}
	return buf_steal(&out);
}

/* How many characters from in[i] satisfy pred. */
static size_t
redact_span(const char *in, size_t i, int (*pred)(int))
{
	size_t n = 0;

	while (in[i + n] != '\0' && pred((unsigned char)in[i + n]))
		n++;
	return n;
}

static int
redact_is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static int
redact_is_upper_digit(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}

static int
redact_is_value_char(int c)
{
	return c != '"' && c != '\'' && !isspace(c);
}

static int
redact_is_bearer_char(int c)
{
	return redact_is_name_char(c) || c == '/' || c == '+' || c == '=' ||
	    c == '-';
}

static int
redact_is_name_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '_';
}

/* Is in[0..len) exactly $NAME or ${NAME}? */
static int
redact_is_var_ref(const char *in, size_t len)
{
	size_t braced, n;

	if (len < 2 || in[0] != '$')
		return 0;
	braced = in[1] == '{';
	n = redact_span(in, 1 + braced, redact_is_name_char);
	if (n == 0 || (in[1 + braced] >= '0' && in[1 + braced] <= '9'))
		return 0;
	return braced ? len == n + 3 && in[n + 2] == '}' : len == n + 1;
}

/* Is the len-digit run at in[i] a lowercase SHA after "commit "/"Merge "? */
static int
redact_is_commit_sha(const char *in, size_t i, size_t len)
{
	size_t k;

	if (len != 40)
		return 0;
	for (k = 0; k < len; k++)
		if (in[i + k] >= 'A' && in[i + k] <= 'F')
			return 0;
	return (i >= 7 && strncmp(in + i - 7, "commit ", 7) == 0) ||
	    (i >= 6 && strncmp(in + i - 6, "Merge ", 6) == 0);
}

static size_t
redact_match_akia(const char *in, size_t i, struct buf *out)
{
	if (strncmp(in + i, "AKIA", 4) != 0 ||
	    redact_span(in, i + 4, redact_is_upper_digit) < 16)
		return 0;
	buf_puts(out, REDACTED);
	return 20;
}

static size_t
redact_match_0x(const char *in, size_t i, struct buf *out)
{
	if (strncmp(in + i, "0x", 2) != 0 ||
	    redact_span(in, i + 2, redact_is_hex) < 64)
		return 0;
	buf_puts(out, REDACTED);
	return 66;
}

static size_t
redact_match_hex_run(const char *in, size_t i, struct buf *out)
{
	size_t len;

	if (i > 0 && redact_is_hex((unsigned char)in[i - 1]))
		return 0;
	if ((len = redact_span(in, i, redact_is_hex)) < 32)
		return 0;
	if ((i >= 1 && in[i - 1] == '$') ||
	    (i >= 2 && in[i - 1] == '{' && in[i - 2] == '$') ||
	    redact_is_commit_sha(in, i, len))
		buf_append(out, in + i, len);
	else
		buf_puts(out, REDACTED);
	return len;
}

static size_t
redact_match_url(const char *in, size_t i, struct buf *out)
{
	size_t start = i, len;

	if (strncmp(in + i, "http://", 7) != 0 &&
	    strncmp(in + i, "https://", 8) != 0)
		return 0;
	while (in[i] != '\0' && !isspace((unsigned char)in[i])) {
		len = redact_span(in, i, redact_is_hex);
		if (len >= 20)
			buf_puts(out, REDACTED);
		else
			buf_append(out, in + i, len > 0 ? len : 1);
		i += len > 0 ? len : 1;
	}
	return i - start;
}

static size_t
redact_match_assignment(const char *in, size_t i, struct buf *out)
{
	static const char *const names[] = {
	    "API_KEY=",
	    "SECRET=",
	    "TOKEN=",
	    "PRIVATE_KEY=",
	    "PASSWORD=",
	    "INFURA=",
	    "ALCHEMY=",
	};
	size_t k, nl = 0, q, len;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		nl = strlen(names[k]);
		if (strncmp(in + i, names[k], nl) == 0)
			break;
	}
	if (k == sizeof(names) / sizeof(names[0]))
		return 0;
	q = in[i + nl] == '"' || in[i + nl] == '\'';
	len = redact_span(in, i + nl + q, redact_is_value_char);
	if (len < 16 || redact_is_var_ref(in + i + nl + q, len))
		return 0;
	buf_append(out, in + i, nl + q);
	buf_puts(out, REDACTED);
	return nl + q + len;
}

static size_t
redact_match_bearer(const char *in, size_t i, struct buf *out)
{
	size_t len;

	if (strncmp(in + i, "Bearer ", 7) != 0 ||
	    (len = redact_span(in, i + 7, redact_is_bearer_char)) < 20)
		return 0;
	buf_puts(out, "Bearer " REDACTED);
	return 7 + len;
}

char *
redact_secrets(const char *text)
{
	static size_t (*const passes[])(const char *, size_t, struct buf *) = {
	    redact_match_akia,
	    redact_match_0x,
	    redact_match_hex_run,
	    redact_match_url,
	    redact_match_assignment,
	    redact_match_bearer,
	};
	char *cur, *next;
	size_t k;

	cur = xstrdup(text != NULL ? text : "");
	for (k = 0; k < sizeof(passes) / sizeof(passes[0]); k++) {
		next = redact_run_pass(cur, passes[k]);
		free(cur);
		cur = next;
	}
	return cur;
}
