/*
 * What `--status` shows, the same from every executable: for each
 * project, its agent sessions (dev and review) with their phase, its age
 * and whether the session lives, the CI-fix counts, the escalations
 * waiting for a person, the failures recorded for the supervisor; and
 * the lines of the tools' own files the caller lists (struct
 * status_file: the last word of each tool's status file and log, and
 * the time and exit status of its last tick, each project's and the
 * factory's).  Each session shows its PR and the CI state recorded for
 * the PR's head; each project what keeps its backlog from moving (the
 * agent slot and who holds it, the escalations waiting for a person).
 * Everything comes from the run files, the state files, the metrics and
 * the logs at the time of asking; the one outside call is one listing of
 * the agent sessions (agent_list(): `tmux list-sessions`).  Nothing is
 * written.  Only after status_use_forge() is the forge (and Woodpecker)
 * asked: each session's PR and its head's CI state, read fresh, and the
 * backlog: the next ready issue, or the dependency the first one waits
 * for.  runfiles_init() and agent_use() must have been called.
 */
#ifndef STATUS_H
#define STATUS_H

#include <stddef.h>
#include <time.h>

struct config;
struct status;

/*
 * A line of the report read from a tool's file: the first line of its
 * status file, or the last of its log.  A table of them ends with a NULL
 * label; the lines come in its order, a project's after its name, the
 * factory's at the end.
 */
struct status_file {
	const char *label;  /* the text's label, indent included */
	const char *member; /* the JSON member ("dev_status"); for the
			       factory's, "object.member" of the report */
	int per_project;    /* each project's file: path(its name); else
			       the factory's one: path(NULL) */
	int log;	    /* its last line (a log), else its first */
	int tick;	    /* a metrics file: its time and exit code */
	char *(*path)(const char *project); /* Caller frees. */
};

/*
 * A new report as of now, with the lines of files (a table that must
 * outlive the report).  With list_sessions set, the live sessions are
 * listed once (a failure leaves every session's liveness unknown).  Free
 * with status_free().
 */
struct status *status_new(time_t now, int list_sessions,
    const struct status_file *files);
void status_free(struct status *);
/*
 * Ask the forge for the projects added from now on (each with its own
 * configuration's URL and tokens).
 */
void status_use_forge(struct status *);
/* Gather the project of cfg into the report (a copy is kept). */
void status_add_project(struct status *, const struct config *cfg);
/*
 * A project whose file could not be loaded: its name (as config_load()
 * found it), the file, and why.
 */
void status_add_broken(struct status *, const char *name, const char *file,
    const char *why);
/* The report as text, for a terminal.  Caller frees. */
char *status_text(const struct status *);
/* The report as one JSON object (and a newline).  Caller frees. */
char *status_json(const struct status *);
/*
 * An age in seconds, short: "42s", "12m", "3h05m", "2d04h" (negative
 * ages, a clock step back, read as 0) into out (at least 16 bytes).
 */
void status_age(long long seconds, char *out, size_t outsz);

#endif
