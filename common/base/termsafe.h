/*
 * Untrusted text made safe for a terminal or a log line.  Forge text
 * (issue bodies, comments, titles, review text), CI logs and pane
 * captures reach an agent's terminal and the operators' logs; a byte the
 * terminal takes as a key or a command (ESC ending a bracketed paste, a
 * CR submitting a line, a C1 CSI) must never get there.
 *
 * Both forms decode UTF-8 and replace every invalid sequence with U+FFFD
 * (one per maximal ill-formed subpart, as Unicode recommends and Python's
 * "replace" does), so the output is always valid UTF-8.
 */
#ifndef TERMSAFE_H
#define TERMSAFE_H

#include <stddef.h>

struct buf;

/*
 * Append len bytes of text to out as terminal text: CRLF and a lone CR
 * become LF; TAB and LF are kept; every other C0 control (NUL and ESC
 * included), DEL and every C1 control (U+0080 to U+009F) is dropped.
 * Everything else, bidirectional formatting characters included, is kept
 * as written (see termsafe.c for why).
 */
void termsafe_text(const char *text, size_t len, struct buf *out);
/* termsafe_text() of a C string, as a new string.  Caller frees. */
char *termsafe_dup(const char *text);
/*
 * Append len bytes of text to out as one printable log line of at most
 * max bytes (0: no limit): LF, CR and TAB become "\n", "\r", "\t", the
 * other C0 controls and DEL "\xNN", C1 controls and the bidirectional
 * formatting characters "\uNNNN".  Text past max is cut at a character
 * boundary and "...[N bytes cut]" is added (the marker may pass max by
 * its own length).
 */
void termsafe_line(const char *text, size_t len, size_t max, struct buf *out);

#endif
