/*
 * The effect layer: every side effect a tick takes goes through one of
 * these functions, in all three executables: forge writes, CI restarts,
 * run files, agent sessions, processes, and git commands that change a
 * repository.  Under dry-run each is logged ("dry-run: would ...") and not
 * taken.  A failure is logged here with its reason and counted in the
 * struct, so a tool can tell at the end of a tick whether any write it
 * meant to make failed; callers only test the result.
 *
 * Each function returns 0 when the effect was taken (or would be, under
 * dry-run) and -1 when it failed, unless it says otherwise.
 */
#ifndef ACT_H
#define ACT_H

#include <sys/types.h>

#include <stddef.h>

#include "phase.h"

struct agent_spec;
struct buf;
struct forge;
struct forge_merge;
struct spawn_opts;
struct woodpecker;

/* One tick's effects. */
struct act {
	struct forge *forge;   /* forge writes go here (its token) */
	struct woodpecker *wp; /* pipeline restarts; NULL without CI */
	int dry_run;
	unsigned failed;      /* effects that failed this tick */
	char first_fail[256]; /* the log line of the first of them */
};

/* What act_pull_create() did. */
enum act_pull {
	ACT_PULL_OPENED,
	ACT_PULL_EXISTS, /* one for this head and base is open already */
	ACT_PULL_DRY,	 /* dry-run: nothing was opened */
	ACT_PULL_FAILED
};

/* What act_pull_merge() did. */
enum act_merge {
	ACT_MERGED,	   /* merged now, or found merged */
	ACT_MERGE_REFUSED, /* the forge said no (405, 409, 422) */
	ACT_MERGE_DRY,	   /* dry-run: nothing was merged */
	ACT_MERGE_FAILED   /* no answer, or an error: a later tick again */
};

/* What act_review_create() did. */
enum act_review {
	ACT_REVIEW_POSTED,  /* or would be, under dry-run */
	ACT_REVIEW_REFUSED, /* refused for good (400, 403, 422) */
	ACT_REVIEW_FAILED
};

/* What act_inject() did. */
enum act_inject {
	ACT_INJECTED,	  /* the agent has the text, or its mailbox */
	ACT_INJECT_LATER, /* not delivered: try again on a later tick */
	ACT_INJECT_DRY,	  /* dry-run: nothing was typed */
	ACT_INJECT_FAILED
};

/*
 * Forge writes, with the token of a->forge.  A write whose answer is lost
 * (a timeout, a cut-off or malformed answer, a 5xx after the retries) may
 * have been applied: comments and labels are read back before such a
 * write counts as failed.
 */
/*
 * Comment on issue or PR number, once.  key names the comment (what kind,
 * about what: "ci-exhausted #42", "review 42 SHA"); the body is posted
 * with the hidden marker "<!-- disinto: KEY -->" after it, and when a
 * comment of the issue carries that marker already (an earlier tick's,
 * whose answer was lost), nothing is posted.  The comment's ID in *id
 * (may be NULL; 0 under dry-run).  Characters of key that cannot stand in
 * an HTML comment become '_'.
 */
int act_comment(struct act *, long long number, const char *key,
    const char *body, long long *id);
/*
 * Make the labels of issue or PR number include every name of on and
 * none of off (NULL-ended lists; either may be NULL).  Labels missing
 * from the repository are created.  When a change is not confirmed by its
 * answer, the labels are read back: what is still not as intended is sent
 * once more and read back again, and only a read-back that shows a change
 * undone (or no read-back at all) counts as a failure.  So a 404 on a
 * removal is "already absent" only when the read-back says so.
 */
int act_labels(struct act *, long long number, const char *const *on,
    const char *const *off);
/* act_labels() for one label to add. */
int act_label_add(struct act *, long long number, const char *name);
/* act_labels() for one label to remove. */
int act_label_remove(struct act *, long long number, const char *name);
/*
 * Make sure the repository has the label called name (created, in the
 * color the forge module gives it, when missing; no request when the
 * run already read the label list and found it): 0 with *id set, or -1
 * (a warning logged, not counted as a failed effect).  Under dry-run a
 * missing label is logged, *id 0.
 */
int act_label_ensure(struct act *, const char *name, long long *id);
/* Close an issue. */
int act_issue_close(struct act *, long long number);
/* Open a PR from head into base; its number in *number. */
enum act_pull act_pull_create(struct act *, const char *title, const char *body,
    const char *head, const char *base, long long *number);
/*
 * Merge PR number only while its head is sha, deleting its branch; the
 * forge's answer in *m (status 0 under dry-run).
 */
enum act_merge act_pull_merge(struct act *, long long number, const char *sha,
    struct forge_merge *m);
/* Submit a formal review (APPROVED, REQUEST_CHANGES, COMMENT) of sha. */
enum act_review act_review_create(struct act *, long long pr, const char *event,
    const char *sha, const char *body);
/* Dismiss review id of PR pr, saying why. */
int act_review_dismiss(struct act *, long long pr, long long id,
    const char *why);

/* Restart a Woodpecker pipeline; the new one's number in *new_number. */
int act_pipeline_restart(struct act *, long long pipeline,
    long long *new_number);

/* Run files and other files. */
/* Replace a file atomically (mode 0644); sync: fsync before the rename. */
int act_write(struct act *, const char *path, const char *text, int sync);
/*
 * Write a phase file: phase p, its reason and sha (NULL: none), in the
 * one format of phase_write().
 */
int act_phase(struct act *, const char *path, enum phase p, const char *reason,
    const char *sha);
/* Remove a file; a missing one is no change. */
int act_remove(struct act *, const char *path);
/* Remove a directory tree, never following a symbolic link. */
int act_remove_tree(struct act *, const char *path);
/*
 * Remove the session directory of session (runfiles.h) with all the
 * agent left in it, once the session is over; a missing one is no
 * change.
 */
int act_remove_session(struct act *, const char *session);
/* mkdir -p. */
int act_mkdir(struct act *, const char *path);
/* Create a marker, or refresh its mtime. */
int act_touch(struct act *, const char *path);
/* Write text into an existing file in place (a kernel switch). */
int act_write_in_place(struct act *, const char *path, const char *text);
/* Append one line to a file (its directory made when missing). */
int act_append(struct act *, const char *path, const char *line);
/* Empty a file in place (a log too large to keep). */
int act_truncate(struct act *, const char *path);
/* Rename a file (a log rotated). */
int act_rename(struct act *, const char *from, const char *to);
/* Replace the operators' status file with one line, "who: message". */
int act_status(struct act *, const char *path, const char *who, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));
/* What act_claim() did. */
enum act_claim {
	ACT_CLAIMED,	 /* the file's first bytes are in out; it is gone */
	ACT_CLAIM_NONE,	 /* nothing to claim, or dry-run */
	ACT_CLAIM_FAILED /* logged */
};
/*
 * Take a file others may race for (runfiles_claim()): its first max bytes
 * into out.  Under dry-run, logs for whom it would be claimed.
 */
enum act_claim act_claim(struct act *, const char *path, size_t max,
    struct buf *out, const char *whom);

/* Processes.  what names the program for the log (never a URL's secrets). */
/* Send SIGTERM to pid; a process already gone counts as stopped. */
int act_signal(struct act *, pid_t pid);
/*
 * Start argv detached (spawn_detached()), its output appended to log_path
 * (NULL: dropped); its process ID in *pid (may be NULL).
 */
int act_spawn(struct act *, char *const *argv, const char *log_path,
    const char *what, pid_t *pid);
/* The same with env ("K=V", NULL-ended) added to its environment. */
int act_spawn_env(struct act *, char *const *argv, const char *const *env,
    const char *log_path, const char *what, pid_t *pid);
/*
 * Run argv to its end (spawn_run(): output into out, exit status in
 * *status).  Returns spawn_run()'s result; 0 under dry-run with *status 0.
 */
int act_run(struct act *, char *const *argv, const struct spawn_opts *opts,
    struct buf *out, int *status, const char *what);
/*
 * Run "git -C dir args..." (NULL-ended), a command that changes a
 * repository: 0 when git exited 0, else -1 with git's last words logged.
 * Not counted as a failed write: callers run commands that may fail by
 * design (removing a worktree git no longer knows).
 */
int act_git(struct act *, const char *dir, const char *const *args);

/*
 * The end of a tick: when effects failed, log how many and what failed
 * first (the start of its log line, up to the reason), also into the
 * status file at path (NULL: none): "who: tick failed: 2 writes failed,
 * the first: cannot comment on #3".  Returns 1 when any effect failed
 * (the tick exits 1), else 0; a tick without failures replaces a "tick
 * failed" line an earlier tick left in the status file with "who: tick
 * ok (the last failed tick is in the log)".
 */
int act_tick_failed(struct act *, const char *path, const char *who);

/*
 * Agent sessions (the agent seam).  Every message is delivered once
 * across crashes by agent_deliver(): key names it (what, about what:
 * "ci SHA success 0"), and a key delivered before is not typed again.
 */
/* Start a session and wait until it is ready for a prompt. */
int act_agent_start(struct act *, const struct agent_spec *);
/* Type text into a session as one prompt. */
enum act_inject act_inject(struct act *, const char *session, const char *key,
    const char *text);
/* A person's reply to the agent's question (agent_answer()). */
enum act_inject act_answer(struct act *, const char *session, const char *key,
    const char *reply, const char *text);
/* The work moves on to phase next (agent_advance()). */
enum act_inject act_advance(struct act *, const char *session, const char *key,
    const char *signal_path, enum phase next, const char *text);
/* Stop a session; one already gone counts as stopped. */
int act_kill(struct act *, const char *session);

#endif
