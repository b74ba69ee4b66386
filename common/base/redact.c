/*
 * Secret redaction.  First the values the tools know (redact_add()), in
 * every form they were registered in, and the patterns that cannot be
 * ordinary text: a URL's password (scheme://user:PASS@) or a long token
 * given as its user (scheme://TOKEN@), and age secret keys.  Then, for
 * redact_secrets(), the rules of secret-scan.sh's redact_secrets()
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
#include <strings.h>

#include "base64.h"
#include "buf.h"
#include "redact.h"
#include "xmalloc.h"

#define REDACTED REDACT_MARK
/* A URL's user without a password counts as a token from this length. */
#define REDACT_USER_TOKEN_MIN 20
/* "AGE-SECRET-KEY-1" and at least this many characters of its key. */
#define REDACT_AGE_MIN 10

/* The forms of the registered values, longest first. */
struct redact_forms {
	char **v;
	size_t n;
	size_t cap;
};

static struct redact_forms redact_known;

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
static int redact_ends_with_word(const char *, size_t, const char *);
static void redact_form_add(const char *);
static char *redact_url_encode(const char *, const char *);
static void redact_add_base64(const char *);
static void redact_add_tails(const char *);
static size_t redact_match_value(const char *, size_t, struct buf *);
static size_t redact_match_userinfo(const char *, size_t, struct buf *);
static size_t redact_match_age(const char *, size_t, struct buf *);
static char *redact_passes(const char *,
    size_t (*const[])(const char *, size_t, struct buf *), size_t);

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

/*
 * Whether name[0..len) is word, or ends in "_" word, in any case.
 */
static int
redact_ends_with_word(const char *name, size_t len, const char *word)
{
	size_t w = strlen(word);

	if (len < w || strncasecmp(name + len - w, word, w) != 0)
		return 0;
	return len == w || name[len - w - 1] == '_';
}

int
redact_secret_name(const char *name)
{
	static const char *const words[] = {"TOKEN", "KEY", "SECRET",
	    "PASSWORD", "PASSWD", "CREDENTIALS", "INFURA", "ALCHEMY"};
	size_t k, len = name != NULL ? strlen(name) : 0;

	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (redact_ends_with_word(name, len, words[k]))
			return 1;
	return 0;
}

/* Keep form (a copy) among the known ones, longest first, once. */
static void
redact_form_add(const char *form)
{
	struct redact_forms *f = &redact_known;
	size_t i, len = strlen(form);

	if (len < REDACT_VALUE_MIN)
		return;
	for (i = 0; i < f->n; i++)
		if (strcmp(f->v[i], form) == 0)
			return;
	f->v = xgrow(f->v, f->n, &f->cap, sizeof(*f->v));
	for (i = f->n; i > 0 && strlen(f->v[i - 1]) < len; i--)
		f->v[i] = f->v[i - 1];
	f->v[i] = xstrdup(form);
	f->n++;
}

/*
 * value with every byte but RFC 3986's unreserved ones as %XX, the hex
 * digits from digits.  Caller frees.
 */
static char *
redact_url_encode(const char *value, const char *digits)
{
	struct buf b;
	const unsigned char *p;
	char pct[3];

	buf_init(&b, 0);
	buf_append(&b, "", 0);
	for (p = (const unsigned char *)value; *p != '\0'; p++) {
		if (isalnum(*p) || strchr("-._~", *p) != NULL) {
			buf_append(&b, p, 1);
			continue;
		}
		pct[0] = '%';
		pct[1] = digits[*p >> 4];
		pct[2] = digits[*p & 15];
		buf_append(&b, pct, 3);
	}
	return buf_steal(&b);
}

/*
 * The base64 forms of value: inside a longer base64 text it starts at
 * byte offset 0, 1 or 2 of a group of three, and only the characters
 * made of its bits alone are the same whatever surrounds it (those of
 * enc(align zero bytes + value) from ceil(8 align / 6) to
 * floor(8 (align + len) / 6)); each in the standard and the URL-safe
 * alphabet.
 */
static void
redact_add_base64(const char *value)
{
	size_t len = strlen(value), align, from, to;
	char *padded, *enc, *p;

	padded = xcalloc(len + 3, 1);
	for (align = 0; align < 3; align++) {
		memcpy(padded + align, value, len);
		enc = base64_encode(padded, align + len);
		from = (8 * align + 5) / 6;
		to = 8 * (align + len) / 6;
		enc[to] = '\0';
		redact_form_add(enc + from);
		for (p = enc; *p != '\0'; p++)
			*p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
		redact_form_add(enc + from);
		explicit_bzero(enc, strlen(enc));
		free(enc);
		memset(padded, 0, len + 3);
	}
	free(padded);
}

/* A value's tails, longest first (redact_form_add() keeps that order). */
static void
redact_add_tails(const char *value)
{
	size_t len = strlen(value), n;

	for (n = REDACT_TAIL_MIN; n <= REDACT_TAIL_MAX && n < len; n++)
		redact_form_add(value + len - n);
}

void
redact_add(const char *value)
{
	char *enc;

	if (value == NULL || strlen(value) < REDACT_VALUE_MIN)
		return;
	redact_form_add(value);
	redact_add_tails(value);
	enc = redact_url_encode(value, "0123456789ABCDEF");
	redact_form_add(enc);
	free(enc);
	enc = redact_url_encode(value, "0123456789abcdef");
	redact_form_add(enc);
	free(enc);
	redact_add_base64(value);
}

void
redact_add_url(const char *url)
{
	const char *p = url != NULL ? strstr(url, "://") : NULL;
	size_t len;
	char *info, *colon;

	if (p == NULL)
		return;
	p += 3;
	len = strcspn(p, "/?#@ \t\r\n");
	if (p[len] != '@' || len == 0)
		return;
	info = xstrndup(p, len);
	if ((colon = strchr(info, ':')) != NULL)
		redact_add(colon + 1);
	else
		redact_add(info);
	explicit_bzero(info, len);
	free(info);
}

void
redact_clear(void)
{
	size_t i;

	for (i = 0; i < redact_known.n; i++) {
		explicit_bzero(redact_known.v[i], strlen(redact_known.v[i]));
		free(redact_known.v[i]);
	}
	free(redact_known.v);
	memset(&redact_known, 0, sizeof(redact_known));
}

/* A registered value (its longest form that matches) at in[i]. */
static size_t
redact_match_value(const char *in, size_t i, struct buf *out)
{
	size_t k, len;

	for (k = 0; k < redact_known.n; k++) {
		if (in[i] != redact_known.v[k][0])
			continue;
		len = strlen(redact_known.v[k]);
		if (strncmp(in + i, redact_known.v[k], len) == 0) {
			buf_puts(out, REDACTED);
			return len;
		}
	}
	return 0;
}

/*
 * At "://": the URL's user information, up to an '@' before the host
 * ends, with its password masked, or a long user without one.
 */
static size_t
redact_match_userinfo(const char *in, size_t i, struct buf *out)
{
	const char *info = in + i + 3, *colon;
	size_t len;

	if (strncmp(in + i, "://", 3) != 0)
		return 0;
	len = strcspn(info, "/?#@ \t\r\n\"'<>`");
	if (info[len] != '@' || len == 0)
		return 0;
	colon = memchr(info, ':', len);
	if (colon == NULL && len < REDACT_USER_TOKEN_MIN)
		return 0;
	buf_puts(out, "://");
	if (colon != NULL)
		buf_append(out, info, (size_t)(colon - info) + 1);
	buf_puts(out, REDACTED "@");
	return 3 + len + 1;
}

/* AGE-SECRET-KEY-1 and its key (bech32, upper case). */
static size_t
redact_match_age(const char *in, size_t i, struct buf *out)
{
	static const char prefix[] = "AGE-SECRET-KEY-1";
	size_t n = sizeof(prefix) - 1, len;

	if (strncmp(in + i, prefix, n) != 0 ||
	    (len = redact_span(in, i + n, redact_is_upper_digit)) <
		REDACT_AGE_MIN)
		return 0;
	buf_puts(out, REDACTED);
	return n + len;
}

/* text through the n passes, one after another.  Caller frees. */
static char *
redact_passes(const char *text,
    size_t (*const passes[])(const char *, size_t, struct buf *), size_t n)
{
	char *cur, *next;
	size_t k;

	cur = xstrdup(text != NULL ? text : "");
	for (k = 0; k < n; k++) {
		if (passes[k] == redact_match_value && redact_known.n == 0)
			continue;
		next = redact_run_pass(cur, passes[k]);
		free(cur);
		cur = next;
	}
	return cur;
}

char *
redact_values(const char *text)
{
	static size_t (*const passes[])(const char *, size_t, struct buf *) = {
	    redact_match_value,
	    redact_match_userinfo,
	    redact_match_age,
	};

	return redact_passes(text, passes, sizeof(passes) / sizeof(passes[0]));
}

char *
redact_secrets(const char *text)
{
	static size_t (*const passes[])(const char *, size_t, struct buf *) = {
	    redact_match_value,
	    redact_match_userinfo,
	    redact_match_age,
	    redact_match_akia,
	    redact_match_0x,
	    redact_match_hex_run,
	    redact_match_url,
	    redact_match_assignment,
	    redact_match_bearer,
	};

	return redact_passes(text, passes, sizeof(passes) / sizeof(passes[0]));
}
