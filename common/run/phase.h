/*
 * The phase protocol: what an agent's phase file says.  The first line,
 * with every white-space character removed, names the phase; an optional
 * "Reason: ..." line says why, and a review that asked for changes keeps
 * the head it reviewed in a "SHA:" line.  Anything else is PHASE_UNKNOWN,
 * logged by the caller and never acted on.
 *
 * Every phase is one row of one table (phase.c, phase_def()) with every
 * property the tools ask of it: its line in the file, its metrics label,
 * who writes it, and the sets it belongs to.  Adding a phase is a value
 * here, a row there, and the reaction of the tool it is for; nothing else
 * keeps a list of phases.  phase_write() alone writes the file.
 */
#ifndef PHASE_H
#define PHASE_H

#include <stddef.h>
#include <time.h>

/*
 * In the order of the metrics' "phase" label (promtick_sessions()).  A
 * new phase goes last, before PHASE_COUNT, so that the compile-time check
 * of phase.c fails until its row is there (tests/unit/test_phase.c finds
 * a row missing anywhere).
 */
enum phase {
	PHASE_NONE, /* no file, or an empty first line */
	PHASE_AWAITING_CI,
	PHASE_AWAITING_REVIEW,
	PHASE_AWAITING_CHANGES, /* review sessions only */
	PHASE_ESCALATE,
	PHASE_DONE,
	PHASE_FAILED,
	PHASE_UNKNOWN,
	PHASE_COUNT /* not a phase: the number of rows of the table */
};

/* Who writes a phase into the file (phase_def.writers). */
#define PHASE_BY_AGENT 0x1  /* the agent, as its prompt tells it */
#define PHASE_BY_REVIEW 0x2 /* a review tick: the review asked for changes */
#define PHASE_BY_TOOLS 0x4  /* a tick, a hook or a backend, for the agent */

/* One phase and every property of it. */
struct phase_def {
	const char *line;    /* the file's first line; "" for NONE, UNKNOWN */
	const char *alias;   /* another first line read as this, or NULL */
	const char *label;   /* the metrics' "phase" label */
	unsigned writers;    /* PHASE_BY_* */
	int terminal;	     /* the agent's work on the issue has ended */
	int waiting;	     /* the agent waits: it lets the session lock go */
	int crash_clock;     /* no change within CLAUDE_TIMEOUT is a crash */
	int sweep_protected; /* the supervisor never sweeps a session in it */
};

#define PHASE_RAW_MAX 64
#define PHASE_REASON_MAX 512
#define PHASE_SHA_MAX 72

struct phase_info {
	enum phase phase;
	char raw[PHASE_RAW_MAX];       /* the first line, squeezed */
	char reason[PHASE_REASON_MAX]; /* the second line's "Reason:", or "" */
	char sha[PHASE_SHA_MAX];       /* a "SHA:" line's value, or "" */
	time_t mtime;		       /* 0 when missing */
};

/* The row of phase p (PHASE_UNKNOWN's for a value out of range). */
const struct phase_def *phase_def(enum phase p);
/*
 * Read the phase file at path.  A missing file is PHASE_NONE and returns
 * 0; -1 only when it exists but cannot be read.
 */
int phase_read(const char *path, struct phase_info *out);
/* Parse text as phase_read() would. */
void phase_parse(const char *text, size_t len, struct phase_info *out);
/*
 * The text of a phase file: p's line, then "Reason: reason" when reason
 * is neither NULL nor empty (its line breaks become blanks), then
 * "SHA:sha" when sha is not NULL.  PHASE_NONE is the empty file a launch
 * writes (reason and sha are not written).  Caller frees.
 */
char *phase_text(enum phase p, const char *reason, const char *sha);
/*
 * Write phase_text() to the file at path, atomically (mode 0644).  0, or
 * -1 with errno set.  PHASE_UNKNOWN is never written (EINVAL).
 */
int phase_write(const char *path, enum phase p, const char *reason,
    const char *sha);
/* "PHASE:awaiting_ci" etc. for a known phase, "" for NONE/UNKNOWN. */
const char *phase_name(enum phase);
/* Whether the agent's work on the issue has ended (done or failed). */
int phase_is_terminal(enum phase);

#endif
