/*
 * Masking of credentials in text that leaves the host (pane captures
 * posted to issues, diagnostics).
 */
#ifndef REDACT_H
#define REDACT_H

/*
 * Return a copy of text with likely secrets replaced by "[REDACTED]":
 * AWS access keys, 0x-prefixed 64-hex keys, runs of 32 or more hex digits
 * (except $VAR references and 40-hex SHAs after "commit " or "Merge "),
 * 20+ hex digit runs inside http(s) URLs, NAME=value assignments whose
 * name ends in a secret word, and Bearer tokens.  Caller frees.
 */
char *redact_secrets(const char *text);

#endif
