/*
 * The one place that names the run files through which the executables,
 * the agents and the operators coordinate (DESIGN section 3), and the
 * factory's state, log and metrics files.  Every function returning a
 * path returns a string the caller frees.  runfiles_init() must be called
 * first with the configured directories.
 */
#ifndef RUNFILES_H
#define RUNFILES_H

#include <stddef.h>
#include <time.h>

struct buf;

/* Set the run directory ($DISINTO_RUN_DIR) and the factory root. */
void runfiles_init(const char *run_dir, const char *factory_root);

/* Run directory files.  P = project, N = issue, R = PR, S = session. */
char *runfiles_phase(const char *project, long long issue);
char *runfiles_summary(const char *project, long long issue);
char *runfiles_ci_result(const char *project, long long issue);
char *runfiles_renotify(const char *project, long long issue);
char *runfiles_escalation_reply(void);
char *runfiles_dev_poll_lock(const char *project);
char *runfiles_dev_agent_lock(const char *project);
char *runfiles_dev_status(const char *project);
/*
 * dev-poll's record of its recent ticks, read by supervisor-poll's health
 * checks: "TICK:" (when the last tick ended), "OUTCOME:" (one of the
 * words below), "STREAK:" (ticks in a row with that outcome), "SINCE:"
 * (when that streak began) and "WORKED:" (the last tick that merged,
 * launched or found an agent at work; the first tick recorded when none
 * did yet).  Times are seconds since the epoch.
 */
char *runfiles_dev_ticks(const char *project);
/*
 * dev-poll's open PRs whose reviews it read and found without a verdict
 * (no APPROVED, no REQUEST_CHANGES in force): one line "PR HEAD-SHA
 * UPDATED" each (UPDATED: the PR's updated_at, seconds since the epoch).
 * A review submitted or dismissed changes the PR's updated_at and a push
 * its head, so a PR listed with both unchanged has no verdict still, and
 * its reviews are not read again (a deleted review only takes one away).
 */
char *runfiles_dev_quiet(const char *project);
/*
 * dev-poll's note that the repository has its `priority` label (the ID
 * inside, for operators): while it is younger than an hour, a backlog
 * scan does not look for the label again.
 */
char *runfiles_dev_priority_label(const char *project);
/*
 * The outcomes: a PR was merged; a session was started; an agent holds
 * the slot; too little memory to start one; in-progress work waits (for
 * CI, a review); backlog issues wait but none can start; no backlog; the
 * tick failed.
 */
#define RUNFILES_TICK_MERGED "merged"
#define RUNFILES_TICK_LAUNCHED "launched"
#define RUNFILES_TICK_BUSY "busy"
#define RUNFILES_TICK_LOW_MEMORY "low-memory"
#define RUNFILES_TICK_WAITING "waiting"
#define RUNFILES_TICK_NOTHING_READY "nothing-ready"
#define RUNFILES_TICK_NO_BACKLOG "no-backlog"
#define RUNFILES_TICK_FAILED "failed"
/* The project is paused by an API error (apipause.h): nothing starts. */
#define RUNFILES_TICK_PAUSED "paused"
char *runfiles_idle_marker(const char *session);
char *runfiles_exited_marker(const char *session);
char *runfiles_phase_marker(const char *session);
char *runfiles_ready_marker(const char *session);
/*
 * The API error that stopped a session (apipause.h: its StopFailure
 * hook's, or one a tick read on its screen), and the project's pause
 * with the lock its read-modify-write holds.
 */
char *runfiles_api_error(const char *session);
/*
 * The API error a session was last told is over (the error's record, AT:
 * when it was resumed): the same error again after it is the issue's.
 */
char *runfiles_api_resumed(const char *session);
char *runfiles_api_pause(const char *project);
char *runfiles_api_pause_lock(const char *project);
/*
 * A session's wrapper (agent_exec.h, agent_lock.h): the state it
 * writes (the Claude session lock held or not, or why it failed), and
 * the request for the lock a tick makes before typing into the session.
 */
char *runfiles_agent_state(const char *session);
char *runfiles_lock_request(const char *session);
/*
 * The template (mkostemp(3), "XXXXXX" at its end) of the private file
 * that hands a session's variables to its wrapper.
 */
char *runfiles_agent_env(const char *session);
/*
 * The markers protocol (seeds/004): a directory per session,
 * sessions/active/S/ under the run directory, the agent's markers under
 * its markers/, and the files below in it.  runfiles_session_file()
 * joins the directory and one of these names.
 */
char *runfiles_sessions_dir(void);
char *runfiles_session_dir(const char *session);
char *runfiles_session_file(const char *session, const char *name);
#define RUNFILES_SESSION_MARKERS "markers"
#define RUNFILES_READY_MARKER "markers/ready.marker"
#define RUNFILES_ACK_MARKER "markers/ack.marker"
#define RUNFILES_COMPLETED_MARKER "markers/completed.marker"
#define RUNFILES_SESSION_STATUS "status.json"
#define RUNFILES_SESSION_PROMPT "prompt.txt"
#define RUNFILES_SYSTEM_PROMPT "system_prompt.txt"
#define RUNFILES_CHAT_HISTORY "chat_history.jsonl"
/*
 * The task a session was started with (its launch prompt), that its
 * SessionStart hook gives the agent again after a compaction.
 */
#define RUNFILES_SESSION_CONTEXT "context.md"
/*
 * The session directory is the agent's: the only place in the run
 * directory its sandbox lets it write (agent_exec.h).  Everything in it
 * is the agent's claim, read back by the tools as such: its phase file,
 * its summary or review output, its hooks' marks (idle, exited,
 * phase-changed, API error), its Claude session id, its checkpoint, the
 * markers protocol's files.  What the tools own lives beside it in the
 * run directory, out of the agent's reach, like the markers protocol's
 * injection awaiting its ack and its lock below.
 */
char *runfiles_session_delivery(const char *session);
char *runfiles_session_inject_lock(const char *session);
/* Create the session's directory (and those above it): 0 or -1. */
int runfiles_session_mkdir(const char *session);
/*
 * Create the session directory a path right inside it is in, before a
 * tool writes it; a path elsewhere is left alone.  0 or -1.
 */
int runfiles_session_mkdir_for(const char *path);
#define RUNFILES_SESSION_CHECKPOINT "checkpoint.json"
char *runfiles_review_phase(const char *project, long long pr);
char *runfiles_review_injected(const char *project, long long pr);
char *runfiles_worktree(const char *project, long long issue);
char *runfiles_review_worktree(const char *project, long long pr);
char *runfiles_review_output(const char *project, long long pr);
/* What a running review is about: "SHA:" and "PREV:" lines. */
char *runfiles_review_request(const char *project, long long pr);
/* How often the review of one head was tried: "SHA:" and "TRIES:". */
char *runfiles_review_tries(const char *project, long long pr);
char *runfiles_review_lock(const char *project);
char *runfiles_review_status(const char *project);
/*
 * review-poll's open PRs whose changed files it read: one line "PR
 * HEAD-SHA UPDATED FACT AT" each (common/world/prmemo.h), FACT "non-code" when
 * only non-code files changed, else "code".
 */
char *runfiles_review_files(const char *project);
/*
 * The forge's combined commit status of the project's open PR heads,
 * remembered by all three tools where no Woodpecker is set up: one line
 * "SHA STATE FINAL SINCE AT" each (common/world/cimemo.h).  The heads a
 * forge webhook delivery said their CI changed: one line "SHA AT" each,
 * written under the lock below, read by the ticks.
 */
char *runfiles_ci_memo(const char *project);
/*
 * The forge's version as its GET /version said it, one line, kept a day;
 * one file per API root (its characters outside a name's made '_').
 */
char *runfiles_forge_version(const char *api_root);
/*
 * supervisor-poll's note of the PRs the forge called not mergeable: "N SHA
 * SINCE" lines, so a PR being checked is no conflict (supervisor-poll/
 * prs.c).
 */
char *runfiles_supervisor_unmergeable(const char *project);
char *runfiles_ci_changed(const char *project);
char *runfiles_ci_changed_lock(const char *project);
/*
 * The CI watcher of an issue's session (common/run/ciwatch.h): the lock
 * it holds while it runs, and its record, who watches which PR head.
 */
char *runfiles_ci_watch(const char *project, long long issue);
char *runfiles_ci_watch_lock(const char *project, long long issue);
/*
 * The forge webhook deliveries taken lately (common/run/delivery.h): one
 * line "AT KEY" each, replaced under the lock of the same name with
 * ".lock" added.
 */
char *runfiles_webhook_seen(const char *project);
/* dev-poll's per-issue tick state: idle ticks, recoveries, the notice
 * sent for the current phase write. */
char *runfiles_idle_ticks(const char *project, long long issue);
char *runfiles_recoveries(const char *project, long long issue);
char *runfiles_phase_notice(const char *project, long long issue);
/*
 * The escalations' state (pollers/escalate.c, run by dev-poll and
 * supervisor-poll): the notice, the injected reply.
 */
char *runfiles_escalation_notified(const char *project, long long issue);
char *runfiles_escalation_injected(const char *project, long long issue);
/*
 * A parked escalation (its agent ended, its conversation kept): "ID:"
 * the Claude session id, "AT:" the escalation's phase time, "WORKTREE:",
 * "REASON:"; written by the escalation pass, removed by the resume
 * (dev-poll) or the 24 h timeout.
 */
char *runfiles_escalation_parked(const char *project, long long issue);
/*
 * A person's reply waiting for the parked conversation's resume: "KEY:"
 * (the message's key), "AT:", then after an empty line the text to
 * deliver first.  The escalation pass writes it, dev-poll delivers it.
 */
char *runfiles_escalation_resume(const char *project, long long issue);
/*
 * The lock of a project's escalation pass: dev-poll's and
 * supervisor-poll's passes never run at once.
 */
char *runfiles_escalation_lock(const char *project);
/*
 * The agent's Claude session id, written by its Stop and SessionEnd
 * hooks: runfiles_claude_id() for a session, runfiles_claude_id_beside()
 * for the hook, which knows only its marker's path (claude-idle-S.ts or
 * claude-exited-S.ts): the id file beside it, or NULL when the path is
 * not such a marker.  Caller frees.
 */
char *runfiles_claude_id(const char *session);
char *runfiles_claude_id_beside(const char *marker);
char *runfiles_supervisor_status(void);
/* The fix command's prompt (0600), its standard input while it runs. */
char *runfiles_supervisor_fix_prompt(void);
char *runfiles_supervisor_lock(void);
char *runfiles_infra_retries_dir(void);
/*
 * A wake of tool prog ("dev-poll") for project (NULL: a tool of no one
 * project): "TIME REASON", written by `prog --wake` and consumed by the
 * tick holding the tool's tick lock (common/tick/wake.h).
 */
char *runfiles_wake(const char *prog, const char *project);
/*
 * The settings a scheduled tick of tool prog for project (NULL: a tool
 * of no one project) took from its environment (0600; "NAME=VALUE" each
 * ended by a NUL byte, secrets too), written by that tick and read by the
 * wakes of the tool and the ticks they start, which take them in the
 * place of their own environment's (common/run/tickenv.h).
 */
char *runfiles_tick_settings(const char *prog, const char *project);
/*
 * Whether dir (an absolute path, ".." resolved) is or lies below a place
 * where the agents write: a session directory (.../sessions/active/S) or
 * a worktree (.../NAME-worktree-N) of any run directory.  1 or 0.
 */
int runfiles_agent_area(const char *dir);
/* The retry count of a Woodpecker pipeline, inside the directory above. */
char *runfiles_infra_retry(long long repo_id, long long pipeline);
/*
 * The issue numbers of the project's phase files (the PR numbers of its
 * review phase files), *n of them into *nums, a new array the caller
 * frees.  0, or -1 when the run directory cannot be listed.
 */
int runfiles_phase_issues(const char *project, long long **nums, size_t *n);
int runfiles_review_phase_prs(const char *project, long long **nums, size_t *n);
int runfiles_review_tries_prs(const char *project, long long **nums, size_t *n);

/*
 * The review bot's login by its token, learnt from the forge
 * (common/world/reviewers.h): "KHASH: LOGIN" lines, HASH the hex FNV-1a hash
 * of the forge's URL and the token.
 */
char *runfiles_forge_logins(void);

/* Agent session names ("dev-P-N", "review-P-R"). */
char *runfiles_dev_session(const char *project, long long issue);
char *runfiles_review_session(const char *project, long long pr);
/* What every session name of the project starts with ("dev-P-"). */
char *runfiles_dev_session_prefix(const char *project);
char *runfiles_review_session_prefix(const char *project);
/*
 * Whether name has the shape of a dev session name of any project
 * ("dev-" and session name characters): 1 or 0.
 */
int runfiles_dev_session_like(const char *name);

/*
 * Whether name (a file's name in the run directory) has the shape of one
 * of the names above, of any project or session: 1 or 0.  For the guard
 * of agent commands, when the run directory is /tmp and shared with
 * scratch files.
 */
int runfiles_is_run_name(const char *name);

/* The branch an issue is worked on ("fix/issue-N"). */
#define RUNFILES_BRANCH_PREFIX "fix/issue-"
char *runfiles_branch(long long issue);

/*
 * Names read back: the number N for which the name function above gives
 * exactly this name (of a path, its last component), or -1.
 */
long long runfiles_phase_issue(const char *project, const char *path);
long long runfiles_review_phase_pr(const char *project, const char *path);
long long runfiles_review_tries_pr(const char *project, const char *path);
long long runfiles_dev_session_issue(const char *project, const char *name);
long long runfiles_review_session_pr(const char *project, const char *name);
long long runfiles_worktree_issue(const char *project, const char *path);
long long runfiles_review_worktree_pr(const char *project, const char *path);
long long runfiles_branch_issue(const char *branch);

/*
 * Factory files.  The CI-fix counts and the logs are below DISINTO_LOG_DIR
 * instead when it is set (log_dir(), as upstream's newer main has them);
 * review-poll's log is then review/review-poll.log.
 */
char *runfiles_active_flag(const char *agent); /* "dev", "reviewer" */
char *runfiles_ci_fixes(const char *project);
char *runfiles_escalations(const char *project);
char *runfiles_metrics(void);
/* $FACTORY_ROOT/metrics: the Prometheus textfiles (promtick.h). */
char *runfiles_metrics_dir(void);
char *runfiles_dev_log(const char *project);
/*
 * The dev log upstream's readers (the AI supervisor's preflight, the
 * dashboard's metrics) look at: a hard link to the dev log of the
 * project that ticked last (dev-poll's devlog.c).
 */
char *runfiles_dev_log_shared(void);
char *runfiles_review_log(void);
char *runfiles_supervisor_log(void);
/* The operator's preamble for the supervisor's fix command. */
char *runfiles_supervisor_prompt(void);
/*
 * The project files (every .toml file in $FACTORY_ROOT/projects), sorted,
 * as a new NULL-ended vector (free with strv_free(), whatever the
 * result), *n of them.  0, or -1 when the directory cannot be read.
 */
int runfiles_project_files(char ***paths, size_t *n);

/* Write a run file atomically (temp + rename, mode 0644): 0 or -1. */
int runfiles_write(const char *path, const char *text);
/* Create or refresh a marker's mtime: 0 or -1. */
int runfiles_touch(const char *path);
/*
 * Seconds since path was last modified in *age: 0, or -1 when it does
 * not exist or cannot be read.
 */
int runfiles_age(const char *path, time_t now, long long *age);
/*
 * Claim a file that others may race for by renaming it to a name unique
 * to this process, then read it (at most max bytes) into out and remove
 * it.  Returns 1 claimed, 0 nothing to claim (missing, not a file of
 * this user alone (file.h), or taken by another process first), -1 on
 * error.
 */
int runfiles_claim(const char *path, size_t max, struct buf *out);

/*
 * dev-poll's memory of an issue across ticks ("KEY: value" lines): its
 * PR, a merge whose after-merge steps are not all done, a refused merge,
 * the last unknown phase logged.  Its name read back, and the issues of
 * the project that have one (as runfiles_phase_issues()).
 */
char *runfiles_dev_state(const char *project, long long issue);
long long runfiles_dev_state_issue(const char *project, const char *path);
int runfiles_dev_state_issues(const char *project, long long **nums, size_t *n);

/*
 * Launch back-off, exactly-once delivery and the lock's hand-over.
 *
 * dev-poll's back-off of an issue whose launch failed for a reason of
 * its own (backoff.h): its name, read back, and the issues that have one.
 */
char *runfiles_launch_backoff(const char *project, long long issue);
long long runfiles_launch_backoff_issue(const char *project, const char *path);
int runfiles_launch_backoff_issues(const char *project, long long **nums,
    size_t *n);
/* A session's record of the messages typed into it (intent.h). */
char *runfiles_intent(const char *session);
/* The lock taken while a message is typed into the session. */
char *runfiles_intent_lock(const char *session);
/*
 * A session's mailbox (mailbox.h): the messages queued for its wrapper
 * to type when the session can take them, and the lock its
 * read-modify-write holds.
 */
char *runfiles_mailbox(const char *session);
char *runfiles_mailbox_lock(const char *session);
/*
 * The socket through which a tick hands the Claude session lock to the
 * wrapper of the session it starts (agent_lock.h).
 */
char *runfiles_lock_handover(const char *session);
/*
 * A tick of tool prog ("dev-poll") for project (NULL: a tool of no one
 * project) that the Claude session lock turned away, written by that
 * tick alone: "EXE\nPROJECT_TOML\n", the tool's executable and the
 * project file it is woken with ("" for none); removed by the tick that
 * wakes it once the lock is let go (common/tick/lockwait.h).  All of
 * them: a NULL-ended list (free with strv_free()), or NULL when the run
 * directory cannot be listed.
 */
char *runfiles_lock_waiter(const char *prog, const char *project);
/*
 * The lock that the wake of tool prog at the end of project's API pause
 * holds while it sleeps (one per tool and project; common/act/apistop.c).
 */
char *runfiles_pause_wake_lock(const char *prog, const char *project);
char **runfiles_lock_waiters(void);

#endif
