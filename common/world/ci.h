/*
 * CI decisions: the state of a commit (Woodpecker first, then the
 * forge's combined status), the passed/failed rules of the bash tools,
 * which changed files need CI at all, and the classification of a failed
 * pipeline as infrastructure trouble or a real failure.
 */
#ifndef CI_H
#define CI_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct config;
struct forge;
struct woodpecker;

/*
 * How long CI gets after a session says its PR waits for it
 * (PHASE:awaiting_ci) before the session is told CI timed out; a CI
 * watcher (ciwake.h) lives no longer.
 */
#define CI_TIMEOUT_S (30 * 60)

enum ci_state {
	CI_UNKNOWN, /* the state could not be read: take no action */
	CI_NONE,    /* no CI status at all for the commit */
	CI_PENDING,
	CI_SUCCESS,
	CI_FAILURE,
	CI_CANCELED /* ended without a verdict on the code (canceled, killed,
		       declined, skipped): neither passed nor failed */
};

/* What ci_classify_pipeline() found out about a failed pipeline. */
struct ci_failure {
	int found;	   /* a failed step was found */
	char step[128];	   /* its name */
	long long step_id; /* its "id" (the log key) */
	long long exit_code;
	int infra;	  /* infrastructure, not the code */
	char reason[256]; /* why infra, or "" */
	char *log_tail;	  /* owned; NULL when no log was read */
};

/* The lower-case name of a state ("unknown", "none", "success", ...). */
const char *ci_state_name(enum ci_state);
/* A state by its ci_state_name() (never "unknown"): 0, or -1. */
int ci_state_parse(const char *name, enum ci_state *out);
/*
 * Map a Woodpecker pipeline status, every one of 2.x and 3.x
 * (server/model/const.go, StatusValue): success; failure and error as a
 * failure; pending, running, blocked (waiting for approval) and created
 * as pending; killed (canceled while it ran: 2.x names every cancel so),
 * canceled (3.14 on: canceled before it ran), declined (its approval
 * refused) and skipped as CI_CANCELED, which is neither success nor a
 * failure, and never an infrastructure failure to restart.  Returns 0
 * with *out set, or -1 for any other status (the forge is asked
 * instead).
 */
int ci_state_from_woodpecker(const char *status, enum ci_state *out);
/*
 * Map a forge combined state: "success", "pending", "" (or NULL) as none,
 * and anything else ("failure", "error", "warning") as a failure, as the
 * bash tools did.
 */
enum ci_state ci_state_from_forge(const char *state);
/*
 * The CI state of commit sha in *out, and the pipeline number behind it in
 * *pipeline (may be NULL; 0 when unknown): the newest Woodpecker pipeline
 * for the commit when w is given and has one with a known status, else
 * (no such pipeline, or Woodpecker could not be read, as bash's
 * ci_commit_status fell back) the forge's combined status (pipeline
 * number from a status target_url ".../pipeline/N").  Returns 0, or -1
 * with *out CI_UNKNOWN when the forge's status could not be read
 * (forge_error() says why).
 */
int ci_commit_state(struct forge *f, struct woodpecker *w, const char *sha,
    enum ci_state *out, long long *pipeline);
/*
 * ci_commit_state(), and in *wp_failed (may be NULL) whether Woodpecker
 * failed to answer (woodpecker_error() says why), so that a caller can
 * say so once and leave Woodpecker alone for the rest of its run.
 */
int ci_commit_read(struct forge *f, struct woodpecker *w, const char *sha,
    enum ci_state *out, long long *pipeline, int *wp_failed);
/*
 * The CI state of sha read as ci_commit_read() reads it, with handles
 * of cfg's forge and Woodpecker (when it is set up) opened for this read
 * alone, so that nothing an earlier read saw is taken again.  0, or -1
 * with *out CI_UNKNOWN (said in why, whysz bytes).
 */
int ci_read_fresh(const struct config *cfg, const char *sha, enum ci_state *out,
    char *why, size_t whysz);
/*
 * The forge's combined status of sha alone, in *out, and in *final
 * whether it is final (ci_combine()): the statuses combined here by the
 * server's rule (its version read at most once per handle and kept a day
 * in runfiles_forge_version()), every context read when the server's
 * answer held one page of them only.  Returns 0, or
 * -1 with *out CI_UNKNOWN (forge_error() says why).
 */
int ci_forge_read(struct forge *f, const char *sha, enum ci_state *out,
    int *final);
/*
 * How a server combines a commit's statuses (the latest of each context).
 * CI_RULE_WORST, Gitea up to 1.22 and Forgejo (models/git/commit_status.go
 * CalcCommitStatus over modules/structs/commit_status.go's priorities):
 * the worst state, error < failure < warning < pending < success; a
 * state it does not rank is passed over (none ranked: pending).  CI_RULE_ALL,
 * Gitea 1.23 and later (modules/commitstatus/commit_status.go
 * CommitStatusStates. Combine()): failure when one is error or failure, success
 * when every one is success, warning or skipped, else pending.
 */
enum ci_rule { CI_RULE_WORST, CI_RULE_ALL };
/*
 * The rule of a server by its version string: Forgejo's ("7.0.5+gitea-
 * 1.21.11") and Gitea's up to 1.22 combine by the worst state, Gitea's
 * from 1.23 by CI_RULE_ALL; an unknown or unreadable version by the worst.
 */
enum ci_rule ci_rule_of_version(const char *version);
/*
 * Combine the statuses (a JSON array of Gitea's status objects, state in
 * "status") by rule, each context's latest (highest "id") alone; *final
 * (may be NULL) whether the state is final.  A combined `warning` (only
 * by CI_RULE_WORST: the server shows the commit as not passed and a
 * branch protection that requires status checks refuses the merge) is
 * CI_FAILURE, final; by CI_RULE_ALL a warning or skipped context counts
 * as passed, as that server shows it.  No statuses is CI_NONE.
 */
enum ci_state ci_combine(const cJSON *statuses, enum ci_rule rule, int *final);
/*
 * 1 when CI counts as passed: success, or no CI configured and the
 * state none or pending.  Else 0.
 */
int ci_passed(enum ci_state, int ci_configured);
/*
 * 1 when the CI of a session's head is over for the CI loop (the
 * awaiting_ci reaction tells the agent): passed or failed.  Never for
 * unknown, none, pending, or canceled (which waits for a run again or
 * the timeout).
 */
int ci_final(enum ci_state);
/*
 * 1 when CI has definitively failed (a failure state that does not count
 * as passed).  Never for unknown, none or pending.
 */
int ci_failed(enum ci_state, int ci_configured);

/* 0 for paths that never need CI (docs/, formulas/, evidence/, *.md). */
int ci_path_is_code(const char *path);
/*
 * 1 when a PR's file list (Gitea objects with "filename") holds code or
 * is empty (CI required to be safe), 0 when every file is non-code.
 */
int ci_files_need_ci(const cJSON *files);

/*
 * 1 when a failed step looks like infrastructure trouble: a clone or git*
 * step that exited 128, any step killed with 137, or a log line matching
 * (case-insensitively) "failed to connect", "connection timed out",
 * "docker pull ... timeout" or "TLS handshake timeout".  reason gets a
 * short explanation.  0 otherwise.
 */
int ci_step_is_infra(const char *step_name, long long exit_code,
    const char *log_text, char *reason, size_t reasonsz);
/*
 * Read pipeline number and fill *out with its first failed step (name,
 * id, exit code, log tail of at most 200 lines) and whether any failed
 * step is infrastructure trouble.  A pipeline whose own status is
 * CI_CANCELED (killed by a cancel: its running steps exit 137) has no
 * failed step here.  Returns 0 (out->found is 0 when no step failed), or
 * -1 when the pipeline or a log could not be read.  Free with
 * ci_failure_free() in both cases.
 */
int ci_classify_pipeline(struct woodpecker *, long long number,
    struct ci_failure *out);
/* Free the log tail; safe on a zeroed or freed struct. */
void ci_failure_free(struct ci_failure *);

#endif
