/*
 * Phase file reading with "first line, all white space removed" semantics.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "phase.h"

/* Only the head of the file matters; a huge file is not read whole. */
#define PHASE_READ_MAX 4096

static const char *const names[] = {[PHASE_NONE] = "",
    [PHASE_AWAITING_CI] = "PHASE:awaiting_ci",
    [PHASE_AWAITING_REVIEW] = "PHASE:awaiting_review",
    [PHASE_ESCALATE] = "PHASE:escalate",
    [PHASE_DONE] = "PHASE:done",
    [PHASE_FAILED] = "PHASE:failed",
    [PHASE_AWAITING_CHANGES] = "PHASE:awaiting_changes",
    [PHASE_UNKNOWN] = ""};

static void parse_reason(const char *, size_t, struct phase_info *);

const char *
phase_name(enum phase p)
{
	if ((size_t)p >= sizeof(names) / sizeof(names[0]))
		return "";
	return names[p];
}

int
phase_is_terminal(enum phase p)
{
	return p == PHASE_DONE || p == PHASE_FAILED;
}

/* Line 2 "Reason: text" (leading and trailing blanks trimmed). */
static void
parse_reason(const char *s, size_t len, struct phase_info *out)
{
	size_t n;

	if (len < 7 || strncasecmp(s, "Reason:", 7) != 0)
		return;
	s += 7;
	len -= 7;
	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	n = len < sizeof(out->reason) - 1 ? len : sizeof(out->reason) - 1;
	memcpy(out->reason, s, n);
	out->reason[n] = '\0';
}

void
phase_parse(const char *text, size_t len, struct phase_info *out)
{
	const char *nl;
	size_t i, n = 0, p, line;
	int overflow = 0;

	out->phase = PHASE_NONE;
	out->raw[0] = out->reason[0] = '\0';
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	nl = memchr(text, '\n', len);
	line = nl ? (size_t)(nl - text) : len;
	for (i = 0; i < line; i++) {
		if (isspace((unsigned char)text[i]))
			continue;
		if (n + 1 >= sizeof(out->raw))
			overflow = 1;
		else
			out->raw[n++] = text[i];
	}
	out->raw[n] = '\0';
	if (nl != NULL) {
		const char *rest = nl + 1, *nl2;
		size_t restlen = len - line - 1;

		nl2 = memchr(rest, '\n', restlen);
		parse_reason(rest, nl2 ? (size_t)(nl2 - rest) : restlen, out);
	}
	if (n == 0 && !overflow)
		return;
	out->phase = PHASE_UNKNOWN;
	if (overflow)
		return;
	for (p = PHASE_AWAITING_CI; p < PHASE_UNKNOWN; p++)
		if (strcmp(out->raw, names[p]) == 0)
			out->phase = (enum phase)p;
	/* agent-session.sh ends a session on PHASE:merged as on done. */
	if (strcmp(out->raw, "PHASE:merged") == 0)
		out->phase = PHASE_DONE;
}

int
phase_read(const char *path, struct phase_info *out)
{
	struct buf b;
	int r;

	memset(out, 0, sizeof(*out));
	out->phase = PHASE_NONE;
	if (file_mtime(path, &out->mtime) == -1) {
		out->mtime = 0;
		return errno == ENOENT ? 0 : -1;
	}
	buf_init(&b, 0);
	r = file_read(path, PHASE_READ_MAX, &b);
	if (r == -1) {
		buf_free(&b);
		return errno == ENOENT ? 0 : -1;
	}
	phase_parse(buf_str(&b), b.len, out);
	/* A first line longer than what was read is junk, not a phase. */
	if (r == 1 && memchr(buf_str(&b), '\n', b.len) == NULL)
		out->phase = PHASE_UNKNOWN;
	buf_free(&b);
	return 0;
}
