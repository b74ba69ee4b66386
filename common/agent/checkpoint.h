/*
 * The JSON checkpoint an agent run of protocol "checkpoint" writes before
 * it exits (seeds/003), validated field by field: "version" (a string,
 * default "1"), "status" (DONE, BLOCKED_NEEDS_INPUT or FAILED),
 * "session_id" (a string), "timestamp" (an ISO 8601 date-time or a number
 * of seconds, optional), "summary", "question", "error" (strings or
 * null), "question_context" and "outputs" (objects or null),
 * "recoverable" (a boolean, default true).  BLOCKED_NEEDS_INPUT needs a
 * non-empty question, FAILED a non-empty error.  Fields beyond these are
 * accepted and ignored.
 */
#ifndef CHECKPOINT_H
#define CHECKPOINT_H

#include <stddef.h>

/* The largest checkpoint file read; a longer one is invalid. */
#define CHECKPOINT_MAX (256 * 1024)

enum checkpoint_status {
	CHECKPOINT_DONE,
	CHECKPOINT_BLOCKED, /* BLOCKED_NEEDS_INPUT */
	CHECKPOINT_FAILED
};

/* A valid checkpoint; strings are "" when absent.  Free with _free(). */
struct checkpoint {
	enum checkpoint_status status;
	char *version;
	char *session_id;
	char *timestamp; /* as written, "" when absent */
	char *summary;
	char *question;
	char *question_context; /* the object as compact JSON, or "" */
	char *error;
	int recoverable;
	long long pr_number; /* outputs.pr_number, 0 when none */
	char *pr_url;	     /* outputs.pr_url, or "" */
};

/*
 * Validate len bytes of text as a checkpoint into *out.  0, or -1 with
 * why in err (nothing to free then).
 */
int checkpoint_parse(const char *text, size_t len, struct checkpoint *out,
    char *err, size_t errsz);
/*
 * Read and validate the checkpoint file at path.  0, 1 when there is no
 * such file, or -1 with why in err (unreadable, too long, invalid).
 */
int checkpoint_load(const char *path, struct checkpoint *out, char *err,
    size_t errsz);
void checkpoint_free(struct checkpoint *);
/* "DONE", "BLOCKED_NEEDS_INPUT" or "FAILED". */
const char *checkpoint_status_name(enum checkpoint_status);
/*
 * The agent's own session id from the JSON its run printed on stdout
 * (its "session_id"), or NULL when there is none.  Caller frees.
 */
char *checkpoint_agent_session(const char *text, size_t len);

#endif
