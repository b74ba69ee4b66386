/*
 * A parked escalation (DESIGN section 6, the escalate row): an escalated
 * dev session whose agent was ended while it waits for a person, its
 * conversation kept by its Claude session id, and the person's reply
 * that waits for the conversation's resume.  The records' names are
 * runfiles_escalation_parked() and runfiles_escalation_resume().
 */
#ifndef PARKED_H
#define PARKED_H

#include <stddef.h>

/* The largest reply record read (the reply and its instructions). */
#define PARKED_REPLY_MAX (64 * 1024)

/* What a parked record holds. */
struct parked {
	char id[136]; /* the Claude session id */
	long long at; /* the escalation: its phase file's mtime */
	char worktree[2048];
	char reason[256]; /* one line; "" when none was given */
};

/*
 * Read the parked record at path into *p: 1, 0 when there is none, -1
 * when it cannot be read or is not in that form.
 */
int parked_read(const char *path, struct parked *p);
/* The text of a parked record.  Caller frees. */
char *parked_text(const struct parked *p);
/*
 * The reply waiting at path for the escalation at: 1 with its key and
 * text in *key and *text (caller frees both), 0 when there is none (or
 * it answers another escalation), -1 when it cannot be read.
 */
int parked_reply_read(const char *path, long long at, char **key, char **text);
/* The text of a reply record.  Caller frees. */
char *parked_reply_text(const char *key, long long at, const char *text);

#endif
