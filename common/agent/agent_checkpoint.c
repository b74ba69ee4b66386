/*
 * The agent backend of protocol "checkpoint" (seeds/003): each prompt is
 * one run of the agent, `COMMAND -p --output-format json
 * --dangerously-skip-permissions [--resume ID]` with the prompt on its
 * standard input (`claude -p` reads it there when no prompt argument is
 * given: a command line is readable by every local user, and one
 * argument is at most 128 KiB), detached in its own process group, which
 * ends by writing a JSON checkpoint (checkpoint.h) to
 * $CTRLRELAY_STATE_FILE.  Between runs no agent process exists.
 *
 * A session is a directory under the state directory,
 * "checkpoint-SESSION/", holding
 *   spec.json        what agent_start() was given: the command, the
 *                    working directory, the phase file, the variables
 *                    (secrets among them: 0600, removed with the session)
 *   state.json       the runs started and read, the agent's session id,
 *                    the counters of the reactions
 *   run.lock         flock(2)ed by every run for as long as it lives (the
 *                    run inherits the descriptor): a tick that takes it
 *                    with LOCK_NB knows no run is going, and holds it
 *                    while it reads an ended run or starts the next, so
 *                    two ticks never start two runs
 *   checkpoint.json  the run's checkpoint; out.json and err.txt its
 *                    standard output and error
 *   prompt.txt       the prompt of the run being started (0600), its
 *                    standard input, removed once it runs
 *
 * The pollers see the checkpoint as phases: once a run has ended, the
 * first tick that looks (agent_read_signal(), agent_alive(),
 * agent_inject()) reads it, once per run, and writes the phase file:
 * DONE is PHASE:awaiting_ci (unless the agent wrote a phase itself during
 * the run), BLOCKED_NEEDS_INPUT is PHASE:escalate with the question as
 * its reason (after CHECKPOINT_BLOCKED_MAX rounds PHASE:failed, reason
 * blocked_rounds), FAILED recoverable is one resume run with the error,
 * FAILED again or not recoverable is PHASE:failed with the error.  A run
 * that ended without a valid checkpoint, or was killed past its timeout,
 * leaves a session that is not alive: the pollers' crash recovery.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "agent_exec.h"
#include "agent_lock.h"
#include "buf.h"
#include "checkpoint.h"
#include "file.h"
#include "json.h"
#include "lock.h"
#include "log.h"
#include "phase.h"
#include "redact.h"
#include "runfiles.h"
#include "sandbox.h"
#include "spawn.h"
#include "strv.h"
#include "utf8.h"
#include "valid.h"
#include "xmalloc.h"

/* A run's longest time unless configured. */
#define CK_TIMEOUT_DEFAULT 1800
/*
 * A run that wrote its checkpoint is ending (its hooks, then its exit):
 * the tick its hooks started waits this long (seconds) for its run lock.
 */
#define CK_END_WAIT_S 3
/* BLOCKED_NEEDS_INPUT rounds a session may have. */
#define CK_BLOCKED_MAX 5
/* Bytes of spec.json and state.json read. */
#define CK_FILE_MAX (1024 * 1024)
/* The directory of a session: this, then its name. */
#define CK_DIR_PREFIX "checkpoint-"
/* The tail of a run's output kept in a reason or a capture. */
#define CK_TAIL_MAX 2000

/* What was started and read of a session (state.json). */
struct agent_checkpoint_state {
	long long runs;	     /* runs started */
	long long read;	     /* the last run whose end was read */
	long long started;   /* when the last run started */
	long long pgid;	     /* its process group */
	long long timed_out; /* the run killed past its timeout, or 0 */
	long long blocked;   /* BLOCKED_NEEDS_INPUT rounds */
	long long resumed;   /* FAILED recoverable runs resumed */
	long long phase_ns;  /* the phase file's mtime as the run started */
	char outcome[16];    /* of run `read`: done, blocked, failed, lost */
	char agent[256];     /* the agent's own session id, or "" */
	char msg[24]; /* the last run's message (agent_checkpoint_hash()), or ""
		       */
};

/* What agent_start() was given (spec.json). */
struct agent_checkpoint_spec {
	char *workdir;
	char *signal;
	char **argv;
	char **env;
};

static char *agent_checkpoint_dir; /* the state directory */
/* The project file the runs' wrapper wakes the tool with, or NULL. */
static char *agent_checkpoint_wake;
static int agent_checkpoint_dry_run; /* reading changes nothing */
static long long agent_checkpoint_timeout_s = CK_TIMEOUT_DEFAULT;

/* The text the first prompt of a session ends with. */
static const char agent_checkpoint_protocol_text[] =
    "\n\n## How this run ends: the checkpoint\n\n"
    "You run as a one-shot process: when you stop, this run ends and no "
    "one is waiting at a prompt. Wherever the instructions above say to "
    "wait, stop instead: you are resumed with the next message (a CI "
    "result, a review, a person's answer). Before you stop, every time, "
    "write one JSON object to the file named by $CTRLRELAY_STATE_FILE "
    "(the same as $DISINTO_STATE_FILE) with \"version\": \"1\", "
    "\"session_id\": the value of $CTRLRELAY_SESSION_ID, \"timestamp\" "
    "(UTC, ISO 8601) and a \"status\":\n"
    "- \"DONE\" when your changes are committed and pushed, with "
    "\"summary\" and, when you opened a pull request, \"outputs\": "
    "{\"pr_number\": N, \"pr_url\": \"...\"};\n"
    "- \"BLOCKED_NEEDS_INPUT\" when you need a decision from a person, "
    "with \"question\" and, optionally, \"question_context\" (an "
    "object);\n"
    "- \"FAILED\" when you cannot go on, with \"error\" and "
    "\"recoverable\" (false when trying again cannot help).\n"
    "For example:\n"
    "  printf '{\"version\":\"1\",\"status\":\"DONE\",\"session_id\":"
    "\"%s\",\"timestamp\":\"%s\",\"summary\":\"%s\"}' "
    "\"$CTRLRELAY_SESSION_ID\" \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\" "
    "\"what you did\" > \"$CTRLRELAY_STATE_FILE\"\n";

static int agent_checkpoint_init(const struct agent_conf *);
static char *agent_checkpoint_path(const char *, const char *);
static char **agent_checkpoint_wrapped(const char *,
    const struct agent_checkpoint_spec *, char **, char **, char **, char *,
    size_t);
static int agent_checkpoint_mkdir(const char *);
static int agent_checkpoint_state_load(const char *,
    struct agent_checkpoint_state *);
static int agent_checkpoint_state_save(const char *,
    const struct agent_checkpoint_state *);
static char **agent_checkpoint_strv_from(const cJSON *);
static void agent_checkpoint_strv_to(cJSON *, const char *, char *const *);
static int agent_checkpoint_spec_save(const char *, const struct agent_spec *);
static int agent_checkpoint_spec_load(const char *,
    struct agent_checkpoint_spec *);
static void agent_checkpoint_spec_free(struct agent_checkpoint_spec *);
static int agent_checkpoint_lock(const char *, int *);
static int agent_checkpoint_wait_end(const char *, int, int *);
static int agent_checkpoint_ending(const char *);
static int agent_checkpoint_overdue(const char *,
    struct agent_checkpoint_state *);
static char **agent_checkpoint_argv(const struct agent_checkpoint_spec *,
    const struct agent_checkpoint_state *);
static char **agent_checkpoint_env(const char *,
    const struct agent_checkpoint_spec *);
static void agent_checkpoint_markers_clear(const char *);
static int agent_checkpoint_launch(const char *, int,
    struct agent_checkpoint_state *, const struct agent_checkpoint_spec *,
    const char *);
static long long agent_checkpoint_phase_ns(const char *);
static int agent_checkpoint_phase_write(const struct agent_checkpoint_spec *,
    enum phase, const char *);
static char *agent_checkpoint_tail(const char *, size_t);
static char *agent_checkpoint_one_line(const char *);
static int agent_checkpoint_on_done(const char *,
    struct agent_checkpoint_state *, const struct agent_checkpoint_spec *,
    const struct checkpoint *);
static int agent_checkpoint_on_blocked(const char *,
    struct agent_checkpoint_state *, const struct agent_checkpoint_spec *,
    const struct checkpoint *);
static int agent_checkpoint_on_failed(const char *, int,
    struct agent_checkpoint_state *, const struct agent_checkpoint_spec *,
    const struct checkpoint *);
static int agent_checkpoint_read_end(const char *, int,
    struct agent_checkpoint_state *, const struct agent_checkpoint_spec *);
static int agent_checkpoint_settle(const char *,
    struct agent_checkpoint_state *, int *);
static int agent_checkpoint_start(const struct agent_spec *, char *, size_t);
static enum agent_delivery agent_checkpoint_inject(const char *, const char *);
static enum agent_delivery agent_checkpoint_answer(const char *, const char *,
    const char *);
static enum agent_delivery agent_checkpoint_advance(const char *, const char *,
    enum phase, const char *);
static int agent_checkpoint_alive(const char *);
static int agent_checkpoint_signal(const char *, const char *,
    struct phase_info *);
static int agent_checkpoint_kill(const char *);
static void agent_checkpoint_remove_all(const char *);
static int agent_checkpoint_valid_name(const char *);
static int agent_checkpoint_capture(const char *, int, struct buf *);
static int agent_checkpoint_list(const char *, char ***, size_t *);
static int agent_checkpoint_activity(const char *, time_t *);
static void agent_checkpoint_hash(const char *, char *, size_t);
static char *agent_checkpoint_answer_prompt(const char *);
static int agent_checkpoint_seen(const char *, const struct agent_msg *, time_t,
    long long);

const struct agent_backend agent_checkpoint_backend = {
    .protocol = AGENT_PROTOCOL_CHECKPOINT,
    .init = agent_checkpoint_init,
    .start = agent_checkpoint_start,
    .inject = agent_checkpoint_inject,
    .alive = agent_checkpoint_alive,
    .read_signal = agent_checkpoint_signal,
    .kill = agent_checkpoint_kill,
    .valid_name = agent_checkpoint_valid_name,
    .capture = agent_checkpoint_capture,
    .list = agent_checkpoint_list,
    .list_free = strv_free_n,
    .activity = agent_checkpoint_activity,
    .answer = agent_checkpoint_answer,
    .advance = agent_checkpoint_advance,
    .seen = agent_checkpoint_seen,
};

static int
agent_checkpoint_init(const struct agent_conf *conf)
{
	if (conf->state_dir == NULL || *conf->state_dir == '\0')
		return -1;
	free(agent_checkpoint_dir);
	agent_checkpoint_dir = xstrdup(conf->state_dir);
	agent_checkpoint_timeout_s =
	    conf->run_timeout_s > 0 ? conf->run_timeout_s : CK_TIMEOUT_DEFAULT;
	agent_checkpoint_dry_run = conf->dry_run;
	free(agent_checkpoint_wake);
	agent_checkpoint_wake =
	    conf->wake ? agent_exec_wake_project(conf->wake_project) : NULL;
	return 0;
}

/* The session's directory (leaf NULL) or a file in it.  Caller frees. */
static char *
agent_checkpoint_path(const char *session, const char *leaf)
{
	const char *dir =
	    agent_checkpoint_dir != NULL ? agent_checkpoint_dir : "/tmp";

	if (leaf == NULL)
		return xasprintf("%s/" CK_DIR_PREFIX "%s", dir, session);
	return xasprintf("%s/" CK_DIR_PREFIX "%s/%s", dir, session, leaf);
}

/* The session's directory, private, ours: 0 or -1 (errno set). */
static int
agent_checkpoint_mkdir(const char *session)
{
	char *dir = agent_checkpoint_path(session, NULL);
	struct stat st;
	int r = -1;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		goto out;
	if (lstat(dir, &st) == -1)
		goto out;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		errno = EPERM;
		goto out;
	}
	r = 0;
out:
	free(dir);
	return r;
}

/* 0, 1 when the session has no state (no such session), or -1. */
static int
agent_checkpoint_state_load(const char *session,
    struct agent_checkpoint_state *st)
{
	char *path = agent_checkpoint_path(session, "state.json"), err[256];
	const char *s;
	cJSON *j;

	memset(st, 0, sizeof(*st));
	if (!file_exists(path)) {
		free(path);
		return 1;
	}
	j = json_load_object(path, CK_FILE_MAX, err, sizeof(err));
	if (j == NULL)
		log_msg("cannot read '%s': %s", path, err);
	free(path);
	if (j == NULL)
		return -1;
	(void)json_int(j, "runs", &st->runs);
	(void)json_int(j, "read", &st->read);
	(void)json_int(j, "started", &st->started);
	(void)json_int(j, "pgid", &st->pgid);
	(void)json_int(j, "timed_out", &st->timed_out);
	(void)json_int(j, "blocked", &st->blocked);
	(void)json_int(j, "resumed", &st->resumed);
	/* Text: nanoseconds do not fit a JSON number's double. */
	if ((s = json_str(j, "phase_ns")) != NULL)
		st->phase_ns = strtoll(s, NULL, 10);
	if ((s = json_str(j, "outcome")) != NULL)
		snprintf(st->outcome, sizeof(st->outcome), "%s", s);
	if ((s = json_str(j, "agent_session")) != NULL)
		snprintf(st->agent, sizeof(st->agent), "%s", s);
	if ((s = json_str(j, "msg")) != NULL)
		snprintf(st->msg, sizeof(st->msg), "%s", s);
	cJSON_Delete(j);
	return 0;
}

/* Written (and synced) before what it counts is done: 0 or -1 (logged). */
static int
agent_checkpoint_state_save(const char *session,
    const struct agent_checkpoint_state *st)
{
	char *path = agent_checkpoint_path(session, "state.json"), *text,
	     ns[32];
	cJSON *j = cJSON_CreateObject();
	int r;

	cJSON_AddNumberToObject(j, "runs", (double)st->runs);
	cJSON_AddNumberToObject(j, "read", (double)st->read);
	cJSON_AddNumberToObject(j, "started", (double)st->started);
	cJSON_AddNumberToObject(j, "pgid", (double)st->pgid);
	cJSON_AddNumberToObject(j, "timed_out", (double)st->timed_out);
	cJSON_AddNumberToObject(j, "blocked", (double)st->blocked);
	cJSON_AddNumberToObject(j, "resumed", (double)st->resumed);
	snprintf(ns, sizeof(ns), "%lld", st->phase_ns);
	cJSON_AddStringToObject(j, "phase_ns", ns);
	cJSON_AddStringToObject(j, "outcome", st->outcome);
	cJSON_AddStringToObject(j, "agent_session", st->agent);
	cJSON_AddStringToObject(j, "msg", st->msg);
	text = json_print(j);
	if ((r = file_write_atomic(path, text, strlen(text), 0600, 1)) == -1)
		log_msg("cannot write '%s': %s", path, strerror(errno));
	free(text);
	cJSON_Delete(j);
	free(path);
	return r;
}

/* The strings of a JSON array, NULL-ended.  Free with strv_free(). */
static char **
agent_checkpoint_strv_from(const cJSON *arr)
{
	const cJSON *it;
	char **v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	size_t n = 0;

	cJSON_ArrayForEach (it, arr)
		if (cJSON_IsString(it))
			v[n++] = xstrdup(it->valuestring);
	return v;
}

static void
agent_checkpoint_strv_to(cJSON *obj, const char *key, char *const *v)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, key);

	for (; v != NULL && *v != NULL; v++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(*v));
}

/* spec.json, private (it holds the role's tokens): 0 or -1 (errno). */
static int
agent_checkpoint_spec_save(const char *session, const struct agent_spec *s)
{
	char *path = agent_checkpoint_path(session, "spec.json"), *text;
	cJSON *j = cJSON_CreateObject();
	int r;

	cJSON_AddStringToObject(j, "workdir", s->workdir);
	cJSON_AddStringToObject(j, "signal_path",
	    s->signal_path != NULL ? s->signal_path : "");
	agent_checkpoint_strv_to(j, "argv", s->argv);
	agent_checkpoint_strv_to(j, "env", (char *const *)s->env);
	text = json_print(j);
	r = file_write_atomic(path, text, strlen(text), 0600, 0);
	explicit_bzero(text, strlen(text));
	free(text);
	cJSON_Delete(j);
	free(path);
	return r;
}

/* 0, 1 when there is no such session, -1 when it cannot be read. */
static int
agent_checkpoint_spec_load(const char *session,
    struct agent_checkpoint_spec *sp)
{
	char *path = agent_checkpoint_path(session, "spec.json"), err[256];
	const char *s;
	cJSON *j;
	int r = -1;

	memset(sp, 0, sizeof(*sp));
	if (!file_exists(path)) {
		r = 1;
		goto out;
	}
	if ((j = json_load_object(path, CK_FILE_MAX, err, sizeof(err))) ==
	    NULL) {
		log_msg("cannot read '%s': %s", path, err);
		goto out;
	}
	s = json_str(j, "workdir");
	sp->workdir = xstrdup(s != NULL ? s : ".");
	s = json_str(j, "signal_path");
	sp->signal = xstrdup(s != NULL ? s : "");
	sp->argv = agent_checkpoint_strv_from(json_arr(j, "argv"));
	sp->env = agent_checkpoint_strv_from(json_arr(j, "env"));
	cJSON_Delete(j);
	r = sp->argv[0] != NULL ? 0 : -1;
	if (r == -1)
		log_msg("'%s' names no agent command", path);
out:
	free(path);
	return r;
}

static void
agent_checkpoint_spec_free(struct agent_checkpoint_spec *sp)
{
	char **e;

	free(sp->workdir);
	free(sp->signal);
	strv_free(sp->argv);
	for (e = sp->env; e != NULL && *e != NULL; e++)
		explicit_bzero(*e, strlen(*e));
	strv_free(sp->env);
	memset(sp, 0, sizeof(*sp));
}

/*
 * Take the session's run lock without waiting: 0 taken (*fd), 1 a run
 * holds it, -1 on error (errno; ENOENT: no such session).
 */
static int
agent_checkpoint_lock(const char *session, int *fd)
{
	char *dir = agent_checkpoint_path(session, NULL),
	     *path = agent_checkpoint_path(session, "run.lock");
	int r = -1;

	*fd = -1;
	if (!file_exists(dir))
		errno = ENOENT;
	else
		r = lock_take(path, fd);
	free(dir);
	free(path);
	return r;
}

/*
 * Wait at most secs seconds until no run holds the lock: 0 with it taken
 * (*fd), 1 still held, -1 on error.
 */
static int
agent_checkpoint_wait_end(const char *session, int secs, int *fd)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	int i, r = 1;

	for (i = 0;
	     i <= secs * 20 && (r = agent_checkpoint_lock(session, fd)) == 1;
	     i++)
		nanosleep(&ts, NULL);
	return r;
}

/*
 * A run going past its timeout has its process group killed: 1 killed
 * (the run counts as lost), 0 it may go on, -1 on error.
 */
static int
agent_checkpoint_overdue(const char *session, struct agent_checkpoint_state *st)
{
	time_t now = time(NULL);
	int fd;

	if (st->pgid <= 1 || now - st->started <= agent_checkpoint_timeout_s)
		return 0;
	log_msg("session %s: run %lld passed its timeout (%lld s) — killing "
		"its process group",
	    session, st->runs, agent_checkpoint_timeout_s);
	st->timed_out = st->runs;
	if (agent_checkpoint_state_save(session, st) == -1)
		return -1;
	(void)kill(-(pid_t)st->pgid, SIGKILL);
	if (agent_checkpoint_wait_end(session, 5, &fd) != 0)
		return -1;
	close(fd);
	return 1;
}

/*
 * The run's command line: the agent command, the permission flag when it
 * lacks it, print mode with JSON output, the agent's session to resume.
 * The prompt is not on it: it is the run's standard input.
 */
static char **
agent_checkpoint_argv(const struct agent_checkpoint_spec *sp,
    const struct agent_checkpoint_state *st)
{
	static const char skip[] = "--dangerously-skip-permissions";
	size_t n = strv_len(sp->argv), i, k = 0;
	char **v = xcalloc(n + 8, sizeof(*v));
	int has_skip = 0;

	for (i = 0; i < n; i++) {
		has_skip |= strcmp(sp->argv[i], skip) == 0;
		v[k++] = xstrdup(sp->argv[i]);
	}
	v[k++] = xstrdup("-p");
	v[k++] = xstrdup("--output-format");
	v[k++] = xstrdup("json");
	if (!has_skip)
		v[k++] = xstrdup(skip);
	if (st->agent[0] != '\0') {
		v[k++] = xstrdup("--resume");
		v[k++] = xstrdup(st->agent);
	}
	return v;
}

/*
 * The run's variables: the role's, and where the checkpoint goes, under
 * the reference's names and ours.  Free with strv_free().
 */
static char **
agent_checkpoint_env(const char *session,
    const struct agent_checkpoint_spec *sp)
{
	char *state =
	    runfiles_session_file(session, RUNFILES_SESSION_CHECKPOINT);
	size_t n = strv_len(sp->env), i, k = 0;
	char **v = xcalloc(n + 5, sizeof(*v));

	for (i = 0; i < n; i++)
		v[k++] = xstrdup(sp->env[i]);
	v[k++] = xasprintf("CTRLRELAY_SESSION_ID=%s", session);
	v[k++] = xasprintf("CTRLRELAY_STATE_FILE=%s", state);
	v[k++] = xasprintf("DISINTO_SESSION_ID=%s", session);
	v[k++] = xasprintf("DISINTO_STATE_FILE=%s", state);
	free(state);
	return v;
}

/*
 * The run's command line: confined (sandbox.h), and with wakes under the
 * wrapper outside the sandbox, which watches the hooks' marks; the
 * variables env then reach it in a private file (*envfile, which the
 * caller removes when the run did not start).  NULL when the agent
 * cannot be confined (logged, why in why).  Free with strv_free().
 */
static char **
agent_checkpoint_wrapped(const char *session,
    const struct agent_checkpoint_spec *sp, char **cmd, char **env,
    char **envfile, char *why, size_t whysz)
{
	struct agent_exec x = {0};
	char exe[PATH_MAX], **argv, **v, *tmpl;
	int r;

	*envfile = NULL;
	if ((argv = sandbox_session_argv(session, sp->workdir, cmd,
		 (const char *const *)sp->env, 1, why, whysz)) == NULL)
		return NULL;
	if (agent_checkpoint_wake == NULL ||
	    agent_exec_self(exe, sizeof(exe)) == -1)
		return argv;
	tmpl = runfiles_agent_env(session);
	r = agent_exec_env_write(tmpl, (const char *const *)env, envfile);
	free(tmpl);
	if (r == -1) {
		log_msg("session %s: cannot write its variables: %s", session,
		    strerror(errno));
		return argv;
	}
	x.env_file = *envfile;
	x.session = session;
	x.run_dir = agent_checkpoint_dir;
	x.wake = agent_checkpoint_wake;
	x.log = log_path();
	v = agent_exec_argv(exe, &x, argv);
	strv_free(argv);
	return v;
}

/*
 * A run that ends is not a session that ends: the markers its hooks
 * leave (SessionEnd, Stop) go, so that the pollers read the checkpoint
 * instead.
 */
static void
agent_checkpoint_markers_clear(const char *session)
{
	char *exited = runfiles_exited_marker(session);
	char *idle = runfiles_idle_marker(session);

	(void)file_remove(exited);
	(void)file_remove(idle);
	free(exited);
	free(idle);
}

/*
 * Start the next run with prompt, holding the run lock (fd) and the
 * Claude session lock, which the run inherits.  0 started (fd closed
 * here), 1 the Claude session lock stayed busy, -1 on error (logged); fd
 * is the caller's still then.
 */
static int
agent_checkpoint_launch(const char *session, int fd,
    struct agent_checkpoint_state *st, const struct agent_checkpoint_spec *sp,
    const char *prompt)
{
	char *out = agent_checkpoint_path(session, "out.json"),
	     *err = agent_checkpoint_path(session, "err.txt");
	char *ckpt =
	    runfiles_session_file(session, RUNFILES_SESSION_CHECKPOINT);
	char *in = agent_checkpoint_path(session, "prompt.txt");
	char **cmd = agent_checkpoint_argv(sp, st), **argv = NULL,
	     **env = agent_checkpoint_env(session, sp), why[1024];
	struct spawn_detached_opts o = {.cwd = sp->workdir,
	    .env_add = (const char *const *)env,
	    .env_keep = agent_exec_inherits,
	    .in_path = in,
	    .out_path = out,
	    .err_path = err};
	int keep[3] = {fd, -1, -1}, r = -1, claude;
	char *envfile = NULL;
	pid_t pid;

	/* Where the run writes its checkpoint and its hooks their marks. */
	if (runfiles_session_mkdir(session) == -1) {
		log_msg("session %s: cannot create its session directory: %s",
		    session, strerror(errno));
		goto out;
	}
	/* Confined like every agent, or not run (logged). */
	if ((argv = agent_checkpoint_wrapped(session, sp, cmd, env, &envfile,
		 why, sizeof(why))) == NULL)
		goto out;
	if (envfile != NULL)
		o.env_add = NULL;
	if ((r = agent_lock_reserve()) != 0) {
		if (r == 1)
			log_msg("the Claude session lock '%s' stayed busy for "
				"%d s — no run of %s this tick",
			    agent_lock_path(), agent_lock_wait(), session);
		else
			log_msg("cannot take the Claude session lock '%s': %s",
			    agent_lock_path(), strerror(errno));
		goto out;
	}
	claude = agent_lock_hand_over();
	keep[1] = claude;
	o.keep_fds = keep;
	(void)file_remove(ckpt);
	agent_checkpoint_markers_clear(session);
	st->runs++;
	st->started = (long long)time(NULL);
	st->pgid = 0;
	st->phase_ns = agent_checkpoint_phase_ns(sp->signal);
	r = -1;
	if (file_write_atomic(in, prompt, strlen(prompt), 0600, 0) == -1)
		log_msg("session %s: cannot write '%s': %s", session, in,
		    strerror(errno));
	else if (agent_checkpoint_state_save(session, st) == 0) {
		if (spawn_detached_ex(argv, &o, &pid) == -1)
			log_msg("session %s: cannot start run %lld of '%s': %s",
			    session, st->runs, argv[0], strerror(errno));
		else {
			st->pgid = pid;
			(void)agent_checkpoint_state_save(session, st);
			log_msg("session %s: run %lld started%s%s", session,
			    st->runs, st->agent[0] ? ", resuming " : "",
			    st->agent);
			r = 0;
		}
	}
	/* The run has it open, or none will: it goes. */
	(void)file_remove(in);
	/* A run holds both locks now: close, never unlock. */
	if (claude != -1)
		close(claude);
	if (r == 0)
		close(fd);
out:
	/* Not started: no wrapper read and removed it. */
	if (r != 0 && envfile != NULL)
		(void)unlink(envfile);
	free(envfile);
	strv_free(env);
	strv_free(argv);
	strv_free(cmd);
	free(in);
	free(ckpt);
	free(out);
	free(err);
	return r;
}

/* The mtime of the phase file at path in nanoseconds, 0 when missing. */
static long long
agent_checkpoint_phase_ns(const char *path)
{
	struct stat st;

	if (*path == '\0' || stat(path, &st) == -1)
		return 0;
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* Write the phase file: phase, and a reason line when reason is not NULL. */
static int
agent_checkpoint_phase_write(const struct agent_checkpoint_spec *sp,
    enum phase phase, const char *reason)
{
	int r = 0;

	if (*sp->signal != '\0' &&
	    (r = phase_write(sp->signal, phase, reason, NULL)) == -1)
		log_msg("cannot write '%s': %s", sp->signal, strerror(errno));
	return r;
}

/* The last max bytes of the session's file leaf (redacted).  Caller frees. */
static char *
agent_checkpoint_tail(const char *session, size_t max)
{
	char *path = agent_checkpoint_path(session, "err.txt"), *red;
	struct buf b;
	size_t at;

	buf_init(&b, 0);
	(void)file_read(path, CK_FILE_MAX, &b);
	free(path);
	path = agent_checkpoint_path(session, "out.json");
	(void)file_read(path, CK_FILE_MAX, &b);
	free(path);
	at = utf8_suffix_start(buf_str(&b), b.len, max);
	red = redact_secrets(buf_str(&b) + at);
	buf_free(&b);
	return red;
}

/* text on one line (a phase file's reason).  Caller frees. */
static char *
agent_checkpoint_one_line(const char *text)
{
	char *s = utf8_cut(text, PHASE_REASON_MAX - 64, " […]"), *p;

	for (p = s; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return s;
}

/* DONE: awaiting_ci, unless the agent wrote a phase during the run. */
static int
agent_checkpoint_on_done(const char *session, struct agent_checkpoint_state *st,
    const struct agent_checkpoint_spec *sp, const struct checkpoint *c)
{
	struct phase_info pi;
	char *why;
	int r;

	if (agent_checkpoint_phase_ns(sp->signal) != st->phase_ns &&
	    phase_read(sp->signal, &pi) == 0 && pi.phase != PHASE_NONE) {
		log_msg("session %s: run %lld DONE, phase %s written by the "
			"agent",
		    session, st->runs, pi.raw);
		return 0;
	}
	why = agent_checkpoint_one_line(*c->summary ? c->summary : "DONE");
	log_msg("session %s: run %lld DONE%s — %s", session, st->runs,
	    c->pr_number > 0 ? " with a PR" : "",
	    phase_name(PHASE_AWAITING_CI));
	r = agent_checkpoint_phase_write(sp, PHASE_AWAITING_CI, why);
	free(why);
	return r;
}

/* BLOCKED_NEEDS_INPUT: an escalation with the question, or too many. */
static int
agent_checkpoint_on_blocked(const char *session,
    struct agent_checkpoint_state *st, const struct agent_checkpoint_spec *sp,
    const struct checkpoint *c)
{
	char *q, *why;
	int r;

	if (++st->blocked > CK_BLOCKED_MAX) {
		log_msg("session %s: blocked %lld times — %s", session,
		    st->blocked, phase_name(PHASE_FAILED));
		if (agent_checkpoint_state_save(session, st) == -1)
			return -1;
		return agent_checkpoint_phase_write(sp, PHASE_FAILED,
		    "blocked_rounds");
	}
	if (agent_checkpoint_state_save(session, st) == -1)
		return -1;
	q = *c->question_context ?
	    xasprintf("%s (context: %s)", c->question, c->question_context) :
	    xstrdup(c->question);
	why = agent_checkpoint_one_line(q);
	log_msg("session %s: run %lld BLOCKED_NEEDS_INPUT (round %lld/%d) — %s",
	    session, st->runs, st->blocked, CK_BLOCKED_MAX,
	    phase_name(PHASE_ESCALATE));
	r = agent_checkpoint_phase_write(sp, PHASE_ESCALATE, why);
	free(why);
	free(q);
	return r;
}

/*
 * FAILED: one resume run with the error when recoverable (1: fd handed
 * to it), else (or when it cannot start) PHASE:failed with the error
 * (secrets masked) as its reason, and the output's tail logged.
 */
static int
agent_checkpoint_on_failed(const char *session, int fd,
    struct agent_checkpoint_state *st, const struct agent_checkpoint_spec *sp,
    const struct checkpoint *c)
{
	char *err = redact_secrets(c->error), *tail, *why, *prompt;
	int r;

	if (c->recoverable && st->resumed == 0) {
		st->resumed = 1;
		prompt = xasprintf("Your last run ended with FAILED: %s\n\n"
				   "The worktree %s is as you left it. Find "
				   "out what went wrong, fix it and finish the "
				   "task; then write a new checkpoint as "
				   "before.",
		    c->error, sp->workdir);
		log_msg("session %s: run %lld FAILED (recoverable) — one "
			"resume run",
		    session, st->runs);
		r = agent_checkpoint_launch(session, fd, st, sp, prompt);
		free(prompt);
		if (r == 0) {
			free(err);
			return 1;
		}
		log_msg("session %s: the resume run did not start", session);
	}
	/* The output stays in the log: the reason is posted on the issue. */
	tail = agent_checkpoint_tail(session, 400);
	if (*tail != '\0')
		log_msg("session %s: run %lld output (tail): %s", session,
		    st->runs, tail);
	why = xasprintf("%s%s", err,
	    c->recoverable ? " (failed again)" : " (not recoverable)");
	free(err);
	free(tail);
	err = agent_checkpoint_one_line(why);
	log_msg("session %s: run %lld FAILED — %s", session, st->runs,
	    phase_name(PHASE_FAILED));
	r = agent_checkpoint_phase_write(sp, PHASE_FAILED, err);
	free(why);
	free(err);
	return r;
}

/*
 * Read the end of the last run, once, holding its lock (fd): the agent's
 * session id, the checkpoint, the reaction.  Returns 0 (fd still held),
 * 1 when a new run took fd over, -1 on error.
 */
static int
agent_checkpoint_read_end(const char *session, int fd,
    struct agent_checkpoint_state *st, const struct agent_checkpoint_spec *sp)
{
	char *out = agent_checkpoint_path(session, "out.json"),
	     *ckpt =
		 runfiles_session_file(session, RUNFILES_SESSION_CHECKPOINT);
	char err[256], *id;
	struct checkpoint c;
	struct buf b;
	int r = 0, v = 1;

	buf_init(&b, 0);
	if (file_read(out, CK_FILE_MAX, &b) == 0 &&
	    (id = checkpoint_agent_session(buf_str(&b), b.len)) != NULL) {
		snprintf(st->agent, sizeof(st->agent), "%s", id);
		free(id);
	}
	st->read = st->runs;
	if (st->timed_out == st->runs)
		snprintf(err, sizeof(err), "killed past its timeout");
	else if ((v = checkpoint_load(ckpt, &c, err, sizeof(err))) == 1)
		snprintf(err, sizeof(err), "no checkpoint");
	snprintf(st->outcome, sizeof(st->outcome), "%s",
	    v != 0			       ? "lost" :
		c.status == CHECKPOINT_DONE    ? "done" :
		c.status == CHECKPOINT_BLOCKED ? "blocked" :
						 "failed");
	if (agent_checkpoint_state_save(session, st) == -1) {
		r = -1;
	} else if (v != 0) {
		log_msg("session %s: run %lld ended without a valid "
			"checkpoint (%s): the session is gone",
		    session, st->runs, err);
	} else {
		agent_checkpoint_markers_clear(session);
		if (c.status == CHECKPOINT_DONE)
			r = agent_checkpoint_on_done(session, st, sp, &c);
		else if (c.status == CHECKPOINT_BLOCKED)
			r = agent_checkpoint_on_blocked(session, st, sp, &c);
		else
			r = agent_checkpoint_on_failed(session, fd, st, sp, &c);
	}
	if (v == 0)
		checkpoint_free(&c);
	buf_free(&b);
	free(ckpt);
	free(out);
	return r;
}

/* Whether the run going has written its checkpoint: it is ending. */
static int
agent_checkpoint_ending(const char *session)
{
	char *ckpt =
	    runfiles_session_file(session, RUNFILES_SESSION_CHECKPOINT);
	int r = file_exists(ckpt);

	free(ckpt);
	return r;
}

/*
 * Bring the session up to date: a run past its timeout killed, the end
 * of an ended run read (with --dry-run: neither, only looked at).  *running: 1
 * a run is going, 0 none.  Returns 0 (the state in *st), 1 when there is no
 * such session, -1 on error.
 */
static int
agent_checkpoint_settle(const char *session, struct agent_checkpoint_state *st,
    int *running)
{
	struct agent_checkpoint_spec sp;
	int fd = -1, r;

	*running = 0;
	if ((r = agent_checkpoint_state_load(session, st)) != 0)
		return r;
	if ((r = agent_checkpoint_lock(session, &fd)) == -1)
		return errno == ENOENT ? 1 : -1;
	if (agent_checkpoint_dry_run) {
		/* A run that ended unread counts as going until read. */
		*running = r == 1 || st->read < st->runs;
		if (r == 0)
			lock_release(fd);
		return 0;
	}
	/* The tick a run's hooks started as it ended: its end is read. */
	if (r == 1 && agent_checkpoint_ending(session))
		r = agent_checkpoint_wait_end(session, CK_END_WAIT_S, &fd);
	if (r == -1)
		return -1;
	if (r == 1) {
		if ((r = agent_checkpoint_overdue(session, st)) != 1) {
			*running = r == 0;
			return r;
		}
		if (agent_checkpoint_lock(session, &fd) != 0)
			return -1;
	}
	/* The lock is ours: no run is going, none starts meanwhile. */
	if ((r = agent_checkpoint_state_load(session, st)) == 0 &&
	    st->read < st->runs) {
		if ((r = agent_checkpoint_spec_load(session, &sp)) == 0 &&
		    (r = agent_checkpoint_read_end(session, fd, st, &sp)) ==
			1) {
			fd = -1;
			*running = 1;
			r = 0;
		}
		agent_checkpoint_spec_free(&sp);
	}
	if (fd != -1)
		lock_release(fd);
	return r;
}

/*
 * A session is its spec and state, no process yet: the first prompt
 * starts the first run.  A session of the name before is replaced.
 */
static int
agent_checkpoint_start(const struct agent_spec *s, char *err, size_t errsz)
{
	struct agent_checkpoint_state st;

	memset(&st, 0, sizeof(st));
	if (s->argv == NULL || s->argv[0] == NULL) {
		snprintf(err, errsz, "session '%s': no agent command",
		    s->session);
		return -1;
	}
	(void)agent_checkpoint_kill(s->session);
	if (agent_checkpoint_mkdir(s->session) == -1 ||
	    agent_checkpoint_spec_save(s->session, s) == -1 ||
	    agent_checkpoint_state_save(s->session, &st) == -1) {
		snprintf(err, errsz, "cannot set up session '%s' in '%s': %s",
		    s->session, agent_checkpoint_dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * text is the prompt of the next run (the first one's ends with the
 * checkpoint instructions).  While a run is going it waits for a later
 * tick.
 */
static enum agent_delivery
agent_checkpoint_inject(const char *session, const char *text)
{
	struct agent_checkpoint_state st;
	struct agent_checkpoint_spec sp;
	enum agent_delivery d = AGENT_INJECT_ERROR;
	char *prompt;
	int fd = -1, running, r;

	if ((r = agent_checkpoint_settle(session, &st, &running)) != 0 ||
	    running)
		return r == 0 ? AGENT_NOT_DELIVERED : AGENT_INJECT_ERROR;
	if ((r = agent_checkpoint_lock(session, &fd)) != 0)
		return r == 1 ? AGENT_NOT_DELIVERED : AGENT_INJECT_ERROR;
	/* Settled above; another tick may have started a run since. */
	if (agent_checkpoint_state_load(session, &st) != 0 ||
	    st.read < st.runs ||
	    agent_checkpoint_spec_load(session, &sp) != 0) {
		lock_release(fd);
		return st.read < st.runs ? AGENT_NOT_DELIVERED :
					   AGENT_INJECT_ERROR;
	}
	prompt = st.runs == 0 ?
	    xasprintf("%s%s", text, agent_checkpoint_protocol_text) :
	    xstrdup(text);
	/* Saved with the run's start: the message it was started for. */
	agent_checkpoint_hash(text, st.msg, sizeof(st.msg));
	switch (agent_checkpoint_launch(session, fd, &st, &sp, prompt)) {
	case 0:
		d = AGENT_DELIVERED;
		break;
	case 1:
		d = AGENT_NOT_DELIVERED;
		lock_release(fd);
		break;
	default:
		lock_release(fd);
		break;
	}
	free(prompt);
	agent_checkpoint_spec_free(&sp);
	return d;
}

/* The reference's prompt for a person's answer.  Caller frees. */
static char *
agent_checkpoint_answer_prompt(const char *reply)
{
	return xasprintf("User answered: %s\n\nContinue from where you left "
			 "off.",
	    reply);
}

/* The message text identifies, as it is kept in state.json. */
static void
agent_checkpoint_hash(const char *text, char *out, size_t outsz)
{
	unsigned long long h = 14695981039346656037ULL;

	for (; *text != '\0'; text++) {
		h ^= (unsigned char)*text;
		h *= 1099511628211ULL;
	}
	snprintf(out, outsz, "%016llx", h);
}

/*
 * A message recorded and not confirmed: the session has it when its last
 * run was started for it (a note of a phase: when the phase file says
 * it).  Otherwise it can take it (agent_checkpoint_inject() waits for a
 * run that is going).
 */
static int
agent_checkpoint_seen(const char *session, const struct agent_msg *m, time_t at,
    long long stamp)
{
	struct phase_info pi;
	struct agent_checkpoint_state st;
	char h[sizeof(st.msg)], *prompt;

	(void)at;
	(void)stamp;
	if (m->kind == AGENT_MSG_ADVANCE)
		return phase_read(m->signal_path, &pi) == 0 &&
		    pi.phase == m->next;
	if (agent_checkpoint_state_load(session, &st) != 0)
		return -1;
	if (m->kind == AGENT_MSG_ANSWER) {
		prompt = agent_checkpoint_answer_prompt(m->reply);
		agent_checkpoint_hash(prompt, h, sizeof(h));
		free(prompt);
	} else
		agent_checkpoint_hash(m->text, h, sizeof(h));
	return st.runs > 0 && strcmp(st.msg, h) == 0;
}

static enum agent_delivery
agent_checkpoint_answer(const char *session, const char *reply,
    const char *text)
{
	char *prompt = agent_checkpoint_answer_prompt(reply);
	enum agent_delivery d = agent_checkpoint_inject(session, prompt);

	(void)text;
	free(prompt);
	return d;
}

/*
 * No run is needed to note a phase: it is written here (not again when
 * the file says it already).
 */
static enum agent_delivery
agent_checkpoint_advance(const char *session, const char *signal_path,
    enum phase next, const char *text)
{
	struct agent_checkpoint_spec sp = {.signal = (char *)signal_path};
	struct phase_info pi;
	struct agent_checkpoint_state st;
	int running;

	(void)text;
	if (agent_checkpoint_settle(session, &st, &running) != 0)
		return AGENT_INJECT_ERROR;
	if (running)
		return AGENT_NOT_DELIVERED;
	if (phase_read(signal_path, &pi) == 0 && pi.phase == next)
		return AGENT_DELIVERED;
	log_msg("session %s: %s written for the agent", session,
	    phase_name(next));
	return agent_checkpoint_phase_write(&sp, next, NULL) == 0 ?
	    AGENT_DELIVERED :
	    AGENT_INJECT_ERROR;
}

/*
 * Alive: a run is going, or the session can take the next prompt (it
 * was started, or its last run ended in a checkpoint).  A run that ended
 * without one, or was killed past its timeout, leaves it gone.
 */
static int
agent_checkpoint_alive(const char *session)
{
	struct agent_checkpoint_state st;
	int running, r = agent_checkpoint_settle(session, &st, &running);

	if (r == -1)
		return -1;
	if (r == 1)
		return 0;
	return running || strcmp(st.outcome, "lost") != 0;
}

/* The phase file, once the end of the last run was read into it. */
static int
agent_checkpoint_signal(const char *session, const char *path,
    struct phase_info *out)
{
	struct agent_checkpoint_state st;
	int running;

	if (agent_checkpoint_settle(session, &st, &running) == -1)
		log_msg("session %s: cannot read its last run", session);
	return phase_read(path, out);
}

/*
 * Stop a run that is going (its process group: SIGTERM, SIGKILL after 3
 * s) and remove the session.  0, or -1 when the run would not end.
 */
static int
agent_checkpoint_kill(const char *session)
{
	struct agent_checkpoint_state st;
	int fd = -1, r;

	if ((r = agent_checkpoint_lock(session, &fd)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (r == 1 && agent_checkpoint_state_load(session, &st) == 0 &&
	    st.pgid > 1) {
		(void)kill(-(pid_t)st.pgid, SIGTERM);
		if ((r = agent_checkpoint_wait_end(session, 3, &fd)) == 1) {
			(void)kill(-(pid_t)st.pgid, SIGKILL);
			r = agent_checkpoint_wait_end(session, 3, &fd);
		}
	}
	if (r != 0) {
		log_msg("session %s: its run would not end", session);
		return -1;
	}
	agent_checkpoint_remove_all(session);
	lock_release(fd);
	return 0;
}

static void
agent_checkpoint_remove_all(const char *session)
{
	static const char *const leaves[] = {"spec.json", "state.json",
	    "out.json", "err.txt", "prompt.txt", "run.lock", NULL};
	char *path, *dir = agent_checkpoint_path(session, NULL);
	size_t i;

	/* The agent's checkpoint, in its session directory. */
	path = runfiles_session_file(session, RUNFILES_SESSION_CHECKPOINT);
	(void)file_remove(path);
	free(path);

	for (i = 0; leaves[i] != NULL; i++) {
		path = agent_checkpoint_path(session, leaves[i]);
		(void)file_remove(path);
		free(path);
	}
	(void)rmdir(dir);
	free(dir);
}

static int
agent_checkpoint_valid_name(const char *name)
{
	return valid_name(name) == NULL;
}

/* The last lines of the last run's output (error, then standard). */
static int
agent_checkpoint_capture(const char *session, int lines, struct buf *out)
{
	char *tail = agent_checkpoint_tail(session, CK_TAIL_MAX), *p;
	int n = 0;

	for (p = tail + strlen(tail); p > tail && n <= lines; p--)
		if (p[-1] == '\n')
			n++;
	buf_puts(out, n > lines ? p + 1 : p);
	free(tail);
	return 0;
}

/* The sessions (with a spec) whose name starts with prefix. */
static int
agent_checkpoint_list(const char *prefix, char ***names, size_t *n)
{
	size_t plen = strlen(CK_DIR_PREFIX), cap = 0;
	struct dirent *e;
	char *spec;
	DIR *d;

	if ((d = opendir(agent_checkpoint_dir != NULL ? agent_checkpoint_dir :
							"/tmp")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, CK_DIR_PREFIX, plen) != 0 ||
		    strncmp(e->d_name + plen, prefix, strlen(prefix)) != 0)
			continue;
		spec = agent_checkpoint_path(e->d_name + plen, "spec.json");
		if (file_exists(spec)) {
			if (*n + 1 >= cap) {
				cap = cap ? cap * 2 : 8;
				*names =
				    xreallocarray(*names, cap, sizeof(**names));
			}
			(*names)[(*n)++] = xstrdup(e->d_name + plen);
		}
		free(spec);
	}
	closedir(d);
	return 0;
}

/* When the session's last run started or was read. */
static int
agent_checkpoint_activity(const char *session, time_t *when)
{
	char *path = agent_checkpoint_path(session, "state.json");
	int r = file_mtime(path, when);

	free(path);
	return r;
}
