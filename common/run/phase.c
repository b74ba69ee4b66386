/*
 * The table of phases, and the phase file: read with "first line, all
 * white space removed" semantics, written whole by phase_write().
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "file.h"
#include "phase.h"
#include "record.h"
#include "runfiles.h"
#include "xmalloc.h"

/* Only the head of the file matters; a huge file is not read whole. */
#define PHASE_READ_MAX 4096

/*
 * One row per phase, indexed by the enum.  The sets:
 * - waiting: the agent has nothing to do until the factory moves (CI, a
 *   review, a person) or it has finished; the Claude session lock is let
 *   go (agent_lock.c), so another session may take it.
 * - crash clock: the agent is expected to be working (no phase yet, or
 *   fixing CI), so a phase file unchanged for CLAUDE_TIMEOUT means the
 *   session is stuck and dev-poll recovers it.  An unknown line is read
 *   as "no phase yet" for this clock.
 * - sweep-protected: a dev session waiting on the factory that dev-poll
 *   itself ends (when its PR is merged or closed); the supervisor never
 *   sweeps it, only reports it stuck.  That is the waiting set less the
 *   terminal phases: a session that is done or failed has ended its
 *   work, and when its issue or PR is gone it is a leftover the sweep
 *   cleans up.  (PHASE:awaiting_changes is a review session's, which the
 *   sweep of dev sessions never meets; it is protected as waiting.)
 */
static const struct phase_def phase_table[] = {
    [PHASE_NONE] = {.line = "",
	.label = "none",
	.writers = PHASE_BY_TOOLS,
	.crash_clock = 1},
    [PHASE_AWAITING_CI] = {.line = "PHASE:awaiting_ci",
	.label = "awaiting_ci",
	.writers = PHASE_BY_AGENT | PHASE_BY_TOOLS,
	.waiting = 1,
	.crash_clock = 1,
	.sweep_protected = 1},
    [PHASE_AWAITING_REVIEW] = {.line = "PHASE:awaiting_review",
	.label = "awaiting_review",
	.writers = PHASE_BY_AGENT | PHASE_BY_TOOLS,
	.waiting = 1,
	.sweep_protected = 1},
    [PHASE_AWAITING_CHANGES] = {.line = "PHASE:awaiting_changes",
	.label = "awaiting_changes",
	.writers = PHASE_BY_REVIEW,
	.waiting = 1,
	.sweep_protected = 1},
    [PHASE_ESCALATE] = {.line = "PHASE:escalate",
	.label = "escalate",
	.writers = PHASE_BY_AGENT | PHASE_BY_TOOLS,
	.waiting = 1,
	.sweep_protected = 1},
    /* agent-session.sh ended a session on PHASE:merged as on done. */
    [PHASE_DONE] = {.line = "PHASE:done",
	.alias = "PHASE:merged",
	.label = "done",
	.writers = PHASE_BY_AGENT | PHASE_BY_TOOLS,
	.terminal = 1,
	.waiting = 1},
    [PHASE_FAILED] = {.line = "PHASE:failed",
	.label = "failed",
	.writers = PHASE_BY_AGENT | PHASE_BY_TOOLS,
	.terminal = 1,
	.waiting = 1},
    [PHASE_UNKNOWN] = {.line = "", .label = "unknown", .crash_clock = 1},
};

_Static_assert(sizeof(phase_table) / sizeof(phase_table[0]) == PHASE_COUNT,
    "phase_table[] has one row per enum phase");

static void phase_parse_reason(const char *, size_t, struct phase_info *);
static void phase_parse_sha(const char *, size_t, struct phase_info *);
static enum phase phase_lookup(const char *);

const struct phase_def *
phase_def(enum phase p)
{
	if ((size_t)p >= PHASE_COUNT)
		p = PHASE_UNKNOWN;
	return &phase_table[p];
}

const char *
phase_name(enum phase p)
{
	return phase_def(p)->line;
}

int
phase_is_terminal(enum phase p)
{
	return phase_def(p)->terminal;
}

/* The phase whose line (or alias) raw is; PHASE_UNKNOWN when none. */
static enum phase
phase_lookup(const char *raw)
{
	size_t p;

	for (p = 0; p < PHASE_COUNT; p++) {
		if (*phase_table[p].line != '\0' &&
		    strcmp(raw, phase_table[p].line) == 0)
			return (enum phase)p;
		if (phase_table[p].alias != NULL &&
		    strcmp(raw, phase_table[p].alias) == 0)
			return (enum phase)p;
	}
	return PHASE_UNKNOWN;
}

/* Line 2 "Reason: text" (leading and trailing blanks trimmed). */
static void
phase_parse_reason(const char *s, size_t len, struct phase_info *out)
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

/* A "SHA:" line of the lines after the first (a record's header). */
static void
phase_parse_sha(const char *s, size_t len, struct phase_info *out)
{
	char head[PHASE_READ_MAX + 1];

	if (len > PHASE_READ_MAX)
		len = PHASE_READ_MAX;
	memcpy(head, s, len);
	head[len] = '\0';
	if (record_get(head, "SHA:", out->sha, sizeof(out->sha)) == -1)
		out->sha[0] = '\0';
}

void
phase_parse(const char *text, size_t len, struct phase_info *out)
{
	const char *nl;
	size_t i, n = 0, line;
	int overflow = 0;

	out->phase = PHASE_NONE;
	out->raw[0] = out->reason[0] = out->sha[0] = '\0';
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
		phase_parse_reason(rest, nl2 ? (size_t)(nl2 - rest) : restlen,
		    out);
		phase_parse_sha(rest, restlen, out);
	}
	if (n == 0 && !overflow)
		return;
	out->phase = overflow ? PHASE_UNKNOWN : phase_lookup(out->raw);
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

char *
phase_text(enum phase p, const char *reason, const char *sha)
{
	struct buf b;
	size_t i, n;

	buf_init(&b, 0);
	if (p == PHASE_NONE)
		return buf_steal(&b);
	buf_printf(&b, "%s\n", phase_name(p));
	if (reason != NULL && *reason != '\0') {
		buf_puts(&b, "Reason: ");
		for (i = 0; reason[i] != '\0'; i += n) {
			n = strcspn(reason + i, "\r\n");
			buf_append(&b, reason + i, n);
			if (reason[i + n] != '\0') {
				buf_puts(&b, " ");
				n++;
			}
		}
		buf_puts(&b, "\n");
	}
	if (sha != NULL)
		buf_printf(&b, "SHA:%s\n", sha);
	return buf_steal(&b);
}

int
phase_write(const char *path, enum phase p, const char *reason, const char *sha)
{
	char *text;
	int r, saved;

	if ((size_t)p >= PHASE_COUNT || p == PHASE_UNKNOWN) {
		errno = EINVAL;
		return -1;
	}
	text = phase_text(p, reason, sha);
	(void)runfiles_session_mkdir_for(path);
	r = file_write_atomic(path, text, strlen(text), 0644, 0);
	saved = errno;
	free(text);
	errno = saved;
	return r;
}
