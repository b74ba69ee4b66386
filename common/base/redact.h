/*
 * Masking of credentials in text that leaves the host (forge comments,
 * PR bodies, pane captures, diagnostics) or reaches a log.
 *
 * Two kinds of masking.  The values of the secrets the tools hold or
 * pass on (registered with redact_add() as configuration is read) are
 * masked wherever they appear, raw, URL-encoded or in base64 (at each of
 * the three alignments a value can have inside a longer base64 text).
 * Patterns catch secrets the tools never knew: redact_values() applies
 * those that cannot be mistaken for ordinary text (credentials in URLs,
 * age secret keys), redact_secrets() also the wider ones of
 * secret-scan.sh (long hex runs, NAME=value assignments, Bearer tokens).
 */
#ifndef REDACT_H
#define REDACT_H

#include <stddef.h>

/* What replaces a secret. */
#define REDACT_MARK "[REDACTED]"
/*
 * The shortest value redact_add() takes: shorter values ("1", "true")
 * are settings, not credentials, and masking them would mangle text.
 */
#define REDACT_VALUE_MIN 8
/*
 * A value's tails of REDACT_TAIL_MIN to REDACT_TAIL_MAX bytes are masked
 * too (raw form only): programs show a key by its last characters (the
 * agent CLI's API key dialog shows its last 20).
 */
#define REDACT_TAIL_MIN 12
#define REDACT_TAIL_MAX 40

/*
 * 1 when a variable called name holds a secret by its name: it ends in
 * TOKEN, KEY, SECRET, PASSWORD, PASSWD or CREDENTIALS (alone or after
 * an underscore, any case), or is one of the legacy token names.
 */
int redact_secret_name(const char *name);
/*
 * From now on, mask value (when it has REDACT_VALUE_MIN bytes or more)
 * in every form above, and its tails (REDACT_TAIL_MIN).  The value is copied;
 * adding one twice is a no-op.
 */
void redact_add(const char *value);
/*
 * The credentials of a URL's user information (scheme://user:pass@host):
 * the password, or a user without a password (a token), added as
 * redact_add() does.
 */
void redact_add_url(const char *url);
/* Forget every value (wiped), as before the first redact_add(). */
void redact_clear(void);
/*
 * A copy of text with every registered value masked, and the passwords
 * of URLs (scheme://user:[REDACTED]@host), long tokens given as a URL's
 * user, and age secret keys (AGE-SECRET-KEY-1...).  For logs and every
 * text sent to the forge.  Caller frees.
 */
char *redact_values(const char *text);
/*
 * redact_values(), then what looks like a secret: AWS access keys,
 * 0x-prefixed 64-hex keys, runs of 32 or more hex digits (except $VAR
 * references and 40-hex SHAs after "commit " or "Merge "), 20+ hex
 * digit runs inside http(s) URLs, NAME=value assignments whose name
 * ends in a secret word, and Bearer tokens.  For text from a pane, a
 * run's output or an agent that is about to leave the host.  Caller
 * frees.
 */
char *redact_secrets(const char *text);

#endif
