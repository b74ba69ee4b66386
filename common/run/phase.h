/*
 * The phase protocol: what an agent's phase file says.  The first line,
 * with every white-space character removed, names the phase; an optional
 * second line "Reason: ..." says why ("PHASE:merged" is PHASE_DONE, as
 * agent-session.sh read it).  Anything else is PHASE_UNKNOWN, logged by
 * the caller and never acted on.
 */
#ifndef PHASE_H
#define PHASE_H

#include <stddef.h>
#include <time.h>

enum phase {
	PHASE_NONE, /* no file, or an empty first line */
	PHASE_AWAITING_CI,
	PHASE_AWAITING_REVIEW,
	PHASE_ESCALATE,
	PHASE_DONE,
	PHASE_FAILED,
	PHASE_AWAITING_CHANGES, /* review sessions only */
	PHASE_UNKNOWN
};

#define PHASE_RAW_MAX 64
#define PHASE_REASON_MAX 512

struct phase_info {
	enum phase phase;
	char raw[PHASE_RAW_MAX];       /* the first line, squeezed */
	char reason[PHASE_REASON_MAX]; /* after "Reason:", or "" */
	time_t mtime;		       /* 0 when missing */
};

/*
 * Read the phase file at path.  A missing file is PHASE_NONE and returns
 * 0; -1 only when it exists but cannot be read.
 */
int phase_read(const char *path, struct phase_info *out);
/* Parse text as phase_read() would. */
void phase_parse(const char *text, size_t len, struct phase_info *out);
/* "PHASE:awaiting_ci" etc. for a known phase, "" for NONE/UNKNOWN. */
const char *phase_name(enum phase);
/* Whether the agent's work on the issue has ended (done or failed). */
int phase_is_terminal(enum phase);

#endif
