/*
 * The wrapper an agent runs under (see agent_exec.h): its command line,
 * the private file of the agent's variables, and the process that holds
 * the session lock while the agent runs as its child.
 */
/* mkostemp(3) and pipe2(2) are GNU extensions in glibc. */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_exec.h"
#include "agent_hooks.h"
#include "agent_lock.h"
#include "buf.h"
#include "config.h"
#include "crashpoint.h"
#include "file.h"
#include "log.h"
#include "redact.h"
#include "runfiles.h"
#include "strv.h"
#include "xmalloc.h"

/* The largest variables file a wrapper reads. */
#define AGENT_EXEC_ENV_MAX (1024 * 1024)
#define AGENT_EXEC_POLL_MS 100
/* From SIGTERM or SIGHUP passed on to SIGKILL. */
#define AGENT_EXEC_GRACE_MS 5000

/* Between looks at the mailbox while messages wait, by what the last did. */
#define AGENT_EXEC_MAIL_NEXT_MS 0
#define AGENT_EXEC_MAIL_WAIT_MS 1000
#define AGENT_EXEC_MAIL_ERROR_MS 10000

/* The wrapper's delivery of the session's mailbox. */
struct agent_exec_mail {
	char *path;	   /* the mailbox file (owned), or NULL: none */
	pid_t child;	   /* the child typing a message, or 0 */
	long long next_ms; /* no look before */
	/* The lock was taken for the mailbox, and nothing typed since. */
	int took;
};

/* The agent, as the wrapper watches it. */
struct agent_exec_child {
	pid_t pid;
	int status;
	int done;
	long long signaled_ms; /* when a signal was passed on, or 0 */
};

/* The marks of the agent's hooks, watched for the wake. */
#define AGENT_EXEC_NMARKS 4
/* Which is which in agent_exec_marks. */
#define AGENT_EXEC_MARK_STOP 0
#define AGENT_EXEC_MARK_PHASE 2
/* After the idle grace, this much more: the tick finds it over. */
#define AGENT_EXEC_IDLE_SLACK_S 1
struct agent_exec_marks {
	char *path[AGENT_EXEC_NMARKS];
	struct timespec seen[AGENT_EXEC_NMARKS];
	long long idle_s;	    /* the idle grace (0: no idle wake) */
	long long idle_due_ms;	    /* the idle wake is due (monotonic), or 0 */
	struct timespec idle_stop;  /* the stop mark it is for */
	struct timespec idle_phase; /* the phase mark then */
};

static volatile sig_atomic_t agent_exec_signal;
static void agent_exec_marks_init(const struct agent_exec *,
    struct agent_exec_marks *);
static void agent_exec_marks_look(const struct agent_exec *,
    struct agent_exec_marks *);
static void agent_exec_marks_end(struct agent_exec_marks *);
static void agent_exec_idle_arm(struct agent_exec_marks *,
    const struct timespec *);
static void agent_exec_idle_look(const struct agent_exec *,
    struct agent_exec_marks *);
static int agent_exec_same_time(const struct timespec *,
    const struct timespec *);
static void agent_exec_lock_let_go(const struct agent_exec *);

static void agent_exec_push(char ***, size_t *, const char *);
static void agent_exec_push_mailbox(char ***, size_t *,
    const struct agent_exec *);
static int agent_exec_seconds(const char *);
static int agent_exec_parse(int, char *[], struct agent_exec *, char ***,
    char *, size_t);
static int agent_exec_env_read(const char *, struct buf *);
static void agent_exec_env_scrub(void);
static void agent_exec_env_apply(struct buf *);
static void agent_exec_on_signal(int);
static void agent_exec_signals(int);
static pid_t agent_exec_spawn(char *const *);
static long long agent_exec_now_ms(void);
static void agent_exec_poll(struct agent_exec_child *);
static int agent_exec_stop(void *);
static int agent_exec_status(int);
static int agent_exec_mail_init(const struct agent_exec *,
    struct agent_exec_mail *);
static void agent_exec_mail_child(const struct agent_exec *);
static void agent_exec_mail_reap(struct agent_exec_mail *, int);
static void agent_exec_mail(const struct agent_exec *, struct agent_exec_mail *,
    struct agent_lock_holder *);
static void agent_exec_mail_end(struct agent_exec_mail *);
static int agent_exec_supervise(const struct agent_exec *, char *const *,
    char *, size_t);
static int agent_exec_run(const struct agent_exec *, char *const *, char *,
    size_t);

int
agent_exec_inherits(const char *name)
{
	if (strncmp(name, "ANTHROPIC_", 10) == 0 ||
	    strncmp(name, "CLAUDE_", 7) == 0)
		return 1;
	return !redact_secret_name(name);
}

int
agent_exec_self(char *buf, size_t bufsz)
{
	ssize_t n;

	if (bufsz < 2 ||
	    (n = readlink("/proc/self/exe", buf, bufsz - 1)) <= 0 ||
	    (size_t)n >= bufsz - 1 || buf[0] != '/')
		return -1;
	buf[n] = '\0';
	return 0;
}

int
agent_exec_env_write(const char *template_path, const char *const *env,
    char **path)
{
	struct buf b;
	size_t i, off = 0, len;
	ssize_t n;
	int fd, saved;

	*path = xstrdup(template_path);
	if ((fd = mkostemp(*path, O_CLOEXEC)) == -1)
		goto fail;
	buf_init(&b, 0);
	for (i = 0; env != NULL && env[i] != NULL; i++)
		buf_append(&b, env[i], strlen(env[i]) + 1);
	len = b.len;
	while (off < len) {
		if ((n = write(fd, b.data + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)n;
	}
	if (b.data != NULL)
		explicit_bzero(b.data, b.len);
	buf_free(&b);
	if (close(fd) == 0 && off == len)
		return 0;
	saved = errno;
	(void)unlink(*path);
	errno = saved;
fail:
	saved = errno;
	free(*path);
	*path = NULL;
	errno = saved;
	return -1;
}

static void
agent_exec_push(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

/* The options of the mailbox, when there is one. */
static void
agent_exec_push_mailbox(char ***v, size_t *n, const struct agent_exec *x)
{
	const char *names[] = {"--session", "--run-dir", "--protocol",
	    "--socket", "--glyph", "--crash", "--log", "--ack"};
	const char *values[] = {x->session, x->run_dir, x->protocol, x->socket,
	    x->glyph, x->crash, x->log, x->ack};
	size_t i;

	if (x->session == NULL || x->run_dir == NULL)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (values[i] == NULL)
			continue;
		agent_exec_push(v, n, names[i]);
		agent_exec_push(v, n, values[i]);
	}
}

char *
agent_exec_wake_project(const char *project)
{
	char abs[PATH_MAX];

	if (project == NULL)
		return xstrdup("");
	if (realpath(project, abs) == NULL)
		return xstrdup(project);
	return xstrdup(abs);
}

char **
agent_exec_argv(const char *exe, const struct agent_exec *x, char *const *cmd)
{
	char **v = NULL, wait[32];
	size_t n = 0, i;

	agent_exec_push(&v, &n, exe);
	agent_exec_push(&v, &n, AGENT_EXEC_MODE);
	if (x->env_file != NULL) {
		agent_exec_push(&v, &n, "--env");
		agent_exec_push(&v, &n, x->env_file);
	}
	if (x->state != NULL) {
		agent_exec_push(&v, &n, "--state");
		agent_exec_push(&v, &n, x->state);
	}
	if (x->lock != NULL) {
		snprintf(wait, sizeof(wait), "%d", x->wait_s);
		agent_exec_push(&v, &n, "--lock");
		agent_exec_push(&v, &n, x->lock);
		agent_exec_push(&v, &n, "--wait");
		agent_exec_push(&v, &n, wait);
		agent_exec_push(&v, &n, "--request");
		agent_exec_push(&v, &n, x->request);
		if (x->watch != NULL) {
			agent_exec_push(&v, &n, "--watch");
			agent_exec_push(&v, &n, x->watch);
		}
		if (x->handover != NULL) {
			agent_exec_push(&v, &n, "--handover");
			agent_exec_push(&v, &n, x->handover);
		}
		agent_exec_push_mailbox(&v, &n, x);
	}
	if (x->wake != NULL && x->session != NULL && x->run_dir != NULL) {
		if (x->lock == NULL) {
			agent_exec_push(&v, &n, "--session");
			agent_exec_push(&v, &n, x->session);
			agent_exec_push(&v, &n, "--run-dir");
			agent_exec_push(&v, &n, x->run_dir);
		}
		agent_exec_push(&v, &n, "--wake");
		agent_exec_push(&v, &n, x->wake);
		if (x->idle != NULL) {
			agent_exec_push(&v, &n, "--idle");
			agent_exec_push(&v, &n, x->idle);
		}
	}
	agent_exec_push(&v, &n, "--");
	for (i = 0; cmd[i] != NULL; i++)
		agent_exec_push(&v, &n, cmd[i]);
	return v;
}

/* Whether s is a number of seconds (a day at most). */
static int
agent_exec_seconds(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && v >= 0 && v <= 86400;
}

/* The wrapper's options into x, the command into *cmd: 0 or -1. */
static int
agent_exec_parse(int argc, char *argv[], struct agent_exec *x, char ***cmd,
    char *err, size_t errsz)
{
	static const char *const names[] = {"--env", "--lock", "--wait",
	    "--state", "--request", "--watch", "--handover", "--session",
	    "--run-dir", "--protocol", "--socket", "--glyph", "--crash",
	    "--log", "--wake", "--idle", "--ack"};
	const char **fields[] = {&x->env_file, &x->lock, NULL, &x->state,
	    &x->request, &x->watch, &x->handover, &x->session, &x->run_dir,
	    &x->protocol, &x->socket, &x->glyph, &x->crash, &x->log, &x->wake,
	    &x->idle, &x->ack};
	char *end;
	size_t k;
	int i;

	memset(x, 0, sizeof(*x));
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(argv[i], names[k]) == 0)
				break;
		if (k == sizeof(names) / sizeof(names[0]) || i + 1 >= argc) {
			snprintf(err, errsz, "%s: bad argument '%s'",
			    AGENT_EXEC_MODE, argv[i]);
			return -1;
		}
		if (fields[k] != NULL)
			*fields[k] = argv[i + 1];
		else if ((x->wait_s = (int)strtol(argv[i + 1], &end, 10)) < 0 ||
		    *end != '\0') {
			snprintf(err, errsz, "%s: bad --wait '%s'",
			    AGENT_EXEC_MODE, argv[i + 1]);
			return -1;
		}
	}
	*cmd = i + 1 < argc ? argv + i + 1 : NULL;
	if (*cmd == NULL ||
	    (x->lock != NULL && (x->state == NULL || x->request == NULL)) ||
	    ((x->session == NULL) != (x->run_dir == NULL)) ||
	    (x->wake != NULL && x->session == NULL) ||
	    (x->idle != NULL &&
		(x->wake == NULL || !agent_exec_seconds(x->idle))) ||
	    (x->ack != NULL &&
		(x->session == NULL || !agent_exec_seconds(x->ack)))) {
		snprintf(err, errsz,
		    "usage: %s [--env FILE] [--state FILE] [--lock PATH "
		    "--wait SECONDS --request FILE [--watch FILE] "
		    "[--handover SOCKET] [--session NAME --run-dir DIR "
		    "[--protocol NAME] [--socket NAME] [--glyph TEXT] "
		    "[--crash POINTS] [--log FILE] [--ack SECONDS]]] "
		    "[--wake PROJECT_TOML "
		    "[--idle SECONDS]] -- COMMAND...",
		    AGENT_EXEC_MODE);
		return -1;
	}
	return 0;
}

/*
 * Read the variables file (a regular file of this user that no one else
 * may read) into b, and remove it.  0, or -1 with errno set.
 */
static int
agent_exec_env_read(const char *path, struct buf *b)
{
	int fd, r;

	if ((fd = file_open_read(path)) == -1)
		return -1;
	(void)unlink(path);
	r = file_read_private(fd, b);
	(void)close(fd);
	return r;
}

/* 1 when name is one of the comma-separated names in list (or NULL). */
static int
agent_exec_listed(const char *list, const char *name)
{
	size_t len = strlen(name), k;

	while (list != NULL && *list != '\0') {
		k = strcspn(list, ",");
		if (k == len && strncmp(list, name, len) == 0)
			return 1;
		list += k + (list[k] == ',');
	}
	return 0;
}

/*
 * Drop the inherited variables an agent may not have: secrets by their
 * names, and whatever a tmux server started by the tools holds of the
 * factory's .env (the names CONFIG_SERVER_ENV_NAMES lists, with it).
 */
static void
agent_exec_env_scrub(void)
{
	extern char **environ;
	const char *listed = getenv(CONFIG_SERVER_ENV_NAMES);
	char *server = listed != NULL ? xstrdup(listed) : NULL;
	char **drop = NULL, *name;
	size_t n = 0, i;

	for (i = 0; environ[i] != NULL; i++) {
		name = xstrndup(environ[i], strcspn(environ[i], "="));
		if (agent_exec_inherits(name) &&
		    !agent_exec_listed(server, name) &&
		    strcmp(name, CONFIG_SERVER_ENV_NAMES) != 0) {
			free(name);
			continue;
		}
		drop = xreallocarray(drop, n + 1, sizeof(*drop));
		drop[n++] = name;
	}
	for (i = 0; i < n; i++) {
		(void)unsetenv(drop[i]);
		free(drop[i]);
	}
	free(drop);
	free(server);
}

/* Put every "K=V" of the file's text into the environment, then wipe it. */
static void
agent_exec_env_apply(struct buf *b)
{
	char *p = b->data, *end = b->data + b->len, *eq;

	while (p != NULL && p < end) {
		if ((eq = strchr(p, '=')) != NULL && eq != p) {
			*eq = '\0';
			(void)setenv(p, eq + 1, 1);
			*eq = '=';
		}
		p += strlen(p) + 1;
	}
	if (b->data != NULL)
		explicit_bzero(b->data, b->len);
}

static void
agent_exec_on_signal(int sig)
{
	agent_exec_signal = sig;
}

/*
 * The wrapper's signals (on): SIGHUP and SIGTERM are caught to be passed
 * on, the terminal's interrupt keys are the agent's alone.  off: all back
 * to their defaults, for the agent.
 */
static void
agent_exec_signals(int on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? agent_exec_on_signal : SIG_DFL;
	(void)sigaction(SIGHUP, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on ? SIG_IGN : SIG_DFL;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGQUIT, &sa, NULL);
	(void)sigaction(SIGTSTP, &sa, NULL);
}

/*
 * Start the agent as a child in this process group (the terminal's).
 * Its PID, or -1 with errno set (from execvp(3) when that failed).
 */
static pid_t
agent_exec_spawn(char *const *cmd)
{
	int p[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		(void)close(p[0]);
		agent_exec_signals(0);
		execvp(cmd[0], cmd);
		e = errno;
		(void)write(p[1], &e, sizeof(e));
		_exit(127);
	}
	e = errno;
	(void)close(p[1]);
	if (pid == -1) {
		(void)close(p[0]);
		errno = e;
		return -1;
	}
	while ((n = read(p[0], &e, sizeof(e))) == -1 && errno == EINTR)
		;
	(void)close(p[0]);
	if (n == (ssize_t)sizeof(e)) {
		(void)waitpid(pid, NULL, 0);
		errno = e;
		return -1;
	}
	return pid;
}

static long long
agent_exec_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Has the agent ended?  A signal the wrapper got is passed on to it; one
 * that outlives the grace period after it gets SIGKILL.
 */
static void
agent_exec_poll(struct agent_exec_child *c)
{
	pid_t r;

	if (c->done)
		return;
	r = waitpid(c->pid, &c->status, WNOHANG);
	if (r == c->pid || (r == -1 && errno == ECHILD)) {
		c->done = 1;
		return;
	}
	if (agent_exec_signal != 0) {
		(void)kill(c->pid, agent_exec_signal);
		agent_exec_signal = 0;
		c->signaled_ms = agent_exec_now_ms();
	} else if (c->signaled_ms != 0 &&
	    agent_exec_now_ms() - c->signaled_ms > AGENT_EXEC_GRACE_MS)
		(void)kill(c->pid, SIGKILL);
}

/* For the lock's waits: stop waiting once the agent ends or is told to. */
static int
agent_exec_stop(void *arg)
{
	struct agent_exec_child *c = arg;

	agent_exec_poll(c);
	return c->done || c->signaled_ms != 0;
}

/* A wait status as an exit status. */
static int
agent_exec_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/*
 * Set the mailbox up (x->session): the run files, the backend as the
 * ticks use it, but without the lock (the wrapper holds it itself).
 * 0, or -1 when the backend cannot be had (no mailbox, m->path NULL).
 */
static int
agent_exec_mail_init(const struct agent_exec *x, struct agent_exec_mail *m)
{
	struct agent_conf conf;

	memset(m, 0, sizeof(*m));
	if (x->session == NULL || x->run_dir == NULL)
		return 0;
	memset(&conf, 0, sizeof(conf));
	conf.protocol = x->protocol;
	conf.state_dir = x->run_dir;
	conf.tmux_socket = x->socket;
	conf.ready_pattern = x->glyph;
	if (x->ack != NULL)
		conf.marker_ack_s = (int)strtol(x->ack, NULL, 10);
	runfiles_init(x->run_dir, x->run_dir);
	if (agent_use(&conf) == -1)
		return -1;
	/* What the wrapper did is told in the log of the tool it serves. */
	if (x->log != NULL)
		(void)log_open(x->log, "agent: ", 0, 0);
	m->path = runfiles_mailbox(x->session);
	return 0;
}

/*
 * The child: type the oldest message.  Exits 0 typed, 3 found delivered
 * before, 1 not now, 2 on an error.
 */
static void
agent_exec_mail_child(const struct agent_exec *x)
{
	int r;

	agent_exec_signals(0);
	crashpoint_set(x->crash);
	r = agent_mailbox_deliver(x->session);
	_exit(r == 1 ? 0 : r == 2 ? 3 : r == 0 ? 1 : 2);
}

/* Has the typing child ended (wait: wait for it)?  The next look by it. */
static void
agent_exec_mail_reap(struct agent_exec_mail *m, int wait)
{
	int status = 0;
	pid_t r;

	if (m->child <= 0)
		return;
	while ((r = waitpid(m->child, &status, wait ? 0 : WNOHANG)) == -1 &&
	    errno == EINTR)
		;
	if (r == 0)
		return;
	m->child = 0;
	if (r == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 2) {
		m->next_ms = agent_exec_now_ms() + AGENT_EXEC_MAIL_ERROR_MS;
		return;
	}
	/* Typed: the agent works on it, and the lock is its turn's. */
	if (WEXITSTATUS(status) == 0)
		m->took = 0;
	m->next_ms = agent_exec_now_ms() +
	    (WEXITSTATUS(status) == 1 ? AGENT_EXEC_MAIL_WAIT_MS :
					AGENT_EXEC_MAIL_NEXT_MS);
}

/*
 * One look at the mailbox: while messages wait (the file is there), take
 * the lock when it is free and start a child to type the oldest one; one
 * child at a time, so they arrive in order.
 */
static void
agent_exec_mail(const struct agent_exec *x, struct agent_exec_mail *m,
    struct agent_lock_holder *h)
{
	struct stat st;
	pid_t pid;

	agent_exec_mail_reap(m, 0);
	if (m->path == NULL || m->child != 0 ||
	    agent_exec_now_ms() < m->next_ms)
		return;
	if (lstat(m->path, &st) == -1) {
		/*
		 * Emptied with nothing typed (found delivered before): the
		 * agent still waits, and the lock it had let go goes again.
		 */
		if (m->took)
			agent_lock_hold_free(h);
		m->took = 0;
		return;
	}
	m->next_ms = agent_exec_now_ms() + AGENT_EXEC_MAIL_WAIT_MS;
	if (h->fd == -1 && agent_lock_hold_try(h))
		m->took = 1;
	if (h->fd == -1)
		return;
	if ((pid = fork()) == 0)
		agent_exec_mail_child(x);
	if (pid > 0)
		m->child = pid;
}

/* The session ends: the typing child, if any, is stopped. */
static void
agent_exec_mail_end(struct agent_exec_mail *m)
{
	if (m->child > 0)
		(void)kill(m->child, SIGKILL);
	agent_exec_mail_reap(m, 1);
	free(m->path);
	m->path = NULL;
}

/*
 * Hold the lock, run the agent, serve the lock and deliver the mailbox
 * until the agent ends.  Returns the exit status.
 */
static int
agent_exec_supervise(const struct agent_exec *x, char *const *cmd, char *err,
    size_t errsz)
{
	struct agent_lock_holder h = {.path = x->lock,
	    .handover = x->handover,
	    .wait_s = x->wait_s,
	    .state = x->state,
	    .request = x->request,
	    .watch = x->watch};
	struct agent_exec_child c = {0};
	struct agent_exec_mail mail;
	struct agent_exec_marks marks;
	int held;

	memset(&mail, 0, sizeof(mail));
	if (x->lock != NULL && agent_exec_mail_init(x, &mail) == -1) {
		snprintf(err, errsz, "no agent backend '%s'", x->protocol);
		return 2;
	}
	agent_exec_marks_init(x, &marks);
	agent_exec_signals(1);
	switch (x->lock == NULL ? 0 : agent_lock_hold_start(&h, NULL, NULL)) {
	case 1:
		snprintf(err, errsz,
		    "the Claude session lock '%s' stayed busy for %d s",
		    x->lock, x->wait_s);
		return AGENT_EXEC_BUSY;
	case -1:
		snprintf(err, errsz, "cannot take the lock '%s': %s", x->lock,
		    strerror(errno));
		return 1;
	}
	if ((c.pid = agent_exec_spawn(cmd)) == -1) {
		snprintf(err, errsz, "cannot run '%s': %s", cmd[0],
		    strerror(errno));
		if (x->lock != NULL)
			agent_lock_hold_end(&h);
		agent_exec_marks_end(&marks);
		return 127;
	}
	for (;;) {
		agent_exec_poll(&c);
		if (c.done)
			break;
		/*
		 * Told to end: the lock goes now and no request is served,
		 * since a session started again under the same name sends
		 * its requests to its own wrapper.
		 */
		held = h.fd != -1;
		if (x->lock == NULL)
			;
		else if (c.signaled_ms != 0)
			agent_lock_hold_end(&h);
		else {
			agent_lock_serve(&h, agent_exec_stop, &c);
			agent_exec_mail(x, &mail, &h);
		}
		if (held && h.fd == -1)
			agent_exec_lock_let_go(x);
		agent_exec_marks_look(x, &marks);
		agent_exec_idle_look(x, &marks);
		if (!c.done) {
			struct timespec ts = {0, AGENT_EXEC_POLL_MS * 1000000L};

			(void)nanosleep(&ts, NULL);
		}
	}
	/* The marks of its end (SessionEnd) wake the tool too. */
	agent_exec_marks_look(x, &marks);
	agent_exec_mail_end(&mail);
	held = h.fd != -1;
	if (x->lock != NULL)
		agent_lock_hold_end(&h);
	if (held)
		agent_exec_lock_let_go(x);
	agent_exec_marks_end(&marks);
	return agent_exec_status(c.status);
}

/*
 * The marks to watch (with --wake), and when each was last written
 * before the agent started: only a newer one wakes.
 */
static void
agent_exec_marks_init(const struct agent_exec *x, struct agent_exec_marks *mk)
{
	struct stat st;
	size_t i;

	memset(mk, 0, sizeof(*mk));
	if (x->wake == NULL || x->session == NULL || x->run_dir == NULL)
		return;
	runfiles_init(x->run_dir, x->run_dir);
	if (x->lock == NULL && x->log != NULL)
		(void)log_open(x->log, "agent: ", 0, 0);
	mk->path[0] = runfiles_idle_marker(x->session);
	mk->path[1] = runfiles_exited_marker(x->session);
	mk->path[2] = runfiles_phase_marker(x->session);
	mk->path[3] = runfiles_api_error(x->session);
	for (i = 0; i < AGENT_EXEC_NMARKS; i++)
		if (lstat(mk->path[i], &st) == 0)
			mk->seen[i] = st.st_mtim;
	if (x->idle != NULL)
		mk->idle_s = strtoll(x->idle, NULL, 10);
}

static int
agent_exec_same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/*
 * A new stop mark, written at *at: the agent's turn ended.  The idle
 * wake is due when the grace since then is over (by the wall clock the
 * mark was written with, on the monotonic one the wrapper waits on).
 */
static void
agent_exec_idle_arm(struct agent_exec_marks *mk, const struct timespec *at)
{
	long long left;

	if (mk->idle_s <= 0)
		return;
	left = (long long)at->tv_sec + mk->idle_s + AGENT_EXEC_IDLE_SLACK_S -
	    (long long)time(NULL);
	if (left < 0)
		left = 0;
	mk->idle_due_ms = agent_exec_now_ms() + left * 1000;
	mk->idle_stop = *at;
	mk->idle_phase = mk->seen[AGENT_EXEC_MARK_PHASE];
}

/*
 * The idle wake is due: when the agent is still idle (no turn ended and
 * no phase written since the stop mark it is for), wake the tool, whose
 * tick ends the idle session; else a newer mark armed it anew, or the
 * agent went on and its own marks wake the tool.
 */
static void
agent_exec_idle_look(const struct agent_exec *x, struct agent_exec_marks *mk)
{
	if (mk->idle_due_ms == 0 || agent_exec_now_ms() < mk->idle_due_ms)
		return;
	mk->idle_due_ms = 0;
	if (!agent_exec_same_time(&mk->seen[AGENT_EXEC_MARK_STOP],
		&mk->idle_stop) ||
	    !agent_exec_same_time(&mk->seen[AGENT_EXEC_MARK_PHASE],
		&mk->idle_phase))
		return;
	log_msg("session %s: idle for %lld s since its stop mark — wakes the "
		"tool",
	    x->session, mk->idle_s);
	agent_hooks_wake("idle", x->wake, x->session, x->run_dir);
}

/*
 * A mark newer than the last seen: wake the tool once for this look,
 * named as the hook that writes it; of marks seen together, the phase
 * change, then the API error, then the end, then the stop that follows
 * every turn.
 */
static void
agent_exec_marks_look(const struct agent_exec *x, struct agent_exec_marks *mk)
{
	static const char *const names[AGENT_EXEC_NMARKS] = {"stop",
	    "session-end", "phase-change", "stop-failure"};
	static const size_t order[AGENT_EXEC_NMARKS] = {2, 3, 1, 0};
	const char *woke = NULL;
	struct stat st;
	size_t i, j;

	for (j = 0; j < AGENT_EXEC_NMARKS; j++) {
		i = order[j];
		if (mk->path[i] == NULL)
			continue;
		/* A claim of the agent's: a regular file, nothing else. */
		if (lstat(mk->path[i], &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (st.st_mtim.tv_sec == mk->seen[i].tv_sec &&
		    st.st_mtim.tv_nsec == mk->seen[i].tv_nsec)
			continue;
		mk->seen[i] = st.st_mtim;
		if (i == AGENT_EXEC_MARK_STOP)
			agent_exec_idle_arm(mk, &st.st_mtim);
		if (woke == NULL)
			woke = names[i];
	}
	if (woke != NULL) {
		log_msg("session %s: its %s mark wakes the tool", x->session,
		    woke);
		agent_hooks_wake(woke, x->wake, x->session, x->run_dir);
	}
}

/*
 * The wrapper let go of the Claude session lock: with ticks it turned
 * away waiting (lockwait.h), it wakes its own tool (with --wake), whose
 * tick finds the lock free and wakes them.
 */
static void
agent_exec_lock_let_go(const struct agent_exec *x)
{
	char **waiters;

	if (x->wake == NULL || x->session == NULL || x->run_dir == NULL)
		return;
	if ((waiters = runfiles_lock_waiters()) == NULL)
		return;
	if (waiters[0] != NULL) {
		log_msg("session %s: the Claude session lock let go with ticks "
			"waiting for it — wakes the tool",
		    x->session);
		agent_hooks_wake("lock-free", x->wake, x->session, x->run_dir);
	}
	strv_free(waiters);
}

static void
agent_exec_marks_end(struct agent_exec_marks *mk)
{
	size_t i;

	for (i = 0; i < AGENT_EXEC_NMARKS; i++) {
		free(mk->path[i]);
		mk->path[i] = NULL;
	}
}

/* The variables, then the agent (supervised or exec'd). */
static int
agent_exec_run(const struct agent_exec *x, char *const *cmd, char *err,
    size_t errsz)
{
	struct buf env;
	int r;

	buf_init(&env, AGENT_EXEC_ENV_MAX);
	if (x->env_file != NULL &&
	    agent_exec_env_read(x->env_file, &env) == -1) {
		snprintf(err, errsz, "cannot read '%s': %s", x->env_file,
		    strerror(errno));
		buf_free(&env);
		return 1;
	}
	agent_exec_env_scrub();
	agent_exec_env_apply(&env);
	buf_free(&env);
	if (x->lock != NULL || x->wake != NULL)
		return agent_exec_supervise(x, cmd, err, errsz);
	execvp(cmd[0], cmd);
	r = errno;
	snprintf(err, errsz, "cannot run '%s': %s", cmd[0], strerror(r));
	return 127;
}

int
agent_exec_main(int argc, char *argv[], char *err, size_t errsz)
{
	struct agent_exec x;
	char **cmd;
	int r;

	err[0] = '\0';
	if (agent_exec_parse(argc, argv, &x, &cmd, err, errsz) == -1)
		return 2;
	r = agent_exec_run(&x, cmd, err, errsz);
	/* The tick that started the session reads why it ended at once. */
	if (err[0] != '\0' && r != AGENT_EXEC_BUSY && x.state != NULL)
		agent_lock_state_failed(x.state, err);
	return r;
}
