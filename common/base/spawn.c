/*
 * Process spawning without a shell, in the manner of tmux's job.c and
 * OpenSSH's subprocess(): fork, wire the standard descriptors, close every
 * other one, execvp an argv array and _exit on failure.
 */
/* pipe2(2) and execvpe(3) are GNU extensions in glibc. */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "spawn.h"
#include "xmalloc.h"

/* Captured output is bounded even when the caller's buffer is not. */
#define SPAWN_OUT_MAX (16 * 1024 * 1024)
#define SPAWN_GRACE_MS 2000
/* How often a child whose output is still open is checked for exit. */
#define SPAWN_SLICE_MS 100

/* One child being supervised by spawn_run(). */
struct child {
	pid_t pid;
	int fd; /* read end of its output, or -1 */
	struct buf *out;
	long long deadline; /* monotonic ms; 0 = none */
	int grace_ms;
	int stage; /* 0 running, 1 TERM sent, 2 KILL sent */
	int reaped;
	int wstatus;
};

/* Programs started by this process, for the tick summaries. */
static unsigned long spawned;

static char **spawn_env_build(const char *const *, int (*)(const char *), int);
static const char **spawn_env_merge(const char *const *);
static int spawn_env_kept(const char *, int (*)(const char *));
static int spawn_env_key_matches(const char *, const char *);
static int spawn_fd_above_stdio(int);
static void spawn_child_exec(char *const[], const struct spawn_opts *, char **,
    int) __attribute__((noreturn));
static long long spawn_now_ms(void);
static int spawn_supervise(struct child *);
static void spawn_escalate(struct child *);
static void spawn_read_some(struct child *, int);
static void spawn_keep(struct child *, const char *, size_t);
static void spawn_drain(struct child *);
static void spawn_sleep_ms(int);
static int spawn_try_reap(struct child *);
static int spawn_exit_code(int);
static int spawn_out_fd(const char *, int);
static int spawn_in_fd(const char *, int);
static void spawn_detached_ex_exec(char *const[],
    const struct spawn_detached_opts *, char **, int) __attribute__((noreturn));
static int spawn_read_full(int, void *, size_t);
static int spawn_wait_pid(pid_t);

extern char **environ;

/* spawn_set_child_env()'s copy ("K=V", NULL-ended), or NULL. */
static char **spawn_child_env;

void
spawn_set_child_env(const char *const *env)
{
	size_t i, n = 0;

	for (i = 0; spawn_child_env != NULL && spawn_child_env[i]; i++) {
		explicit_bzero(spawn_child_env[i], strlen(spawn_child_env[i]));
		free(spawn_child_env[i]);
	}
	free(spawn_child_env);
	spawn_child_env = NULL;
	if (env == NULL)
		return;
	while (env[n] != NULL)
		n++;
	spawn_child_env = xcalloc(n + 1, sizeof(*spawn_child_env));
	for (i = 0; i < n; i++)
		spawn_child_env[i] = xstrdup(env[i]);
}

/*
 * The tool's child environment with each "K=V" of add replacing or
 * extending it: a NULL-ended array the caller frees (strings borrowed).
 */
static const char **
spawn_env_merge(const char *const *add)
{
	const char **all;
	size_t n = 0, nadd = 0, i, j, k = 0;

	while (spawn_child_env[n] != NULL)
		n++;
	while (add != NULL && add[nadd] != NULL)
		nadd++;
	all = xcalloc(n + nadd + 1, sizeof(*all));
	for (i = 0; i < n; i++) {
		for (j = 0; j < nadd; j++)
			if (spawn_env_key_matches(spawn_child_env[i], add[j]))
				break;
		if (j == nadd)
			all[k++] = spawn_child_env[i];
	}
	for (j = 0; j < nadd; j++)
		all[k++] = add[j];
	all[k] = NULL;
	return all;
}

/*
 * The child's environment: ours (the variables keep takes, all when it
 * is NULL) with each "K=V" of add (on top of the tool's child
 * environment when child is 1 and one is set) replacing or extending
 * it.  Returns environ itself when there is nothing to add or drop;
 * otherwise an array the caller frees (the strings are borrowed).
 */
static char **
spawn_env_build(const char *const *add, int (*keep)(const char *), int child)
{
	const char **merged;
	char **env;
	size_t n = 0, nadd = 0, i, j, k = 0;

	if (child && spawn_child_env != NULL) {
		merged = spawn_env_merge(add);
		env = spawn_env_build(merged, keep, 0);
		free(merged);
		return env;
	}
	if ((add == NULL || add[0] == NULL) && keep == NULL)
		return environ;
	while (environ[n] != NULL)
		n++;
	while (add != NULL && add[nadd] != NULL)
		nadd++;
	env = xcalloc(n + nadd + 1, sizeof(*env));
	for (i = 0; i < n; i++) {
		for (j = 0; j < nadd; j++)
			if (spawn_env_key_matches(environ[i], add[j]))
				break;
		if (j == nadd && spawn_env_kept(environ[i], keep))
			env[k++] = environ[i];
	}
	for (j = 0; j < nadd; j++)
		env[k++] = (char *)add[j];
	env[k] = NULL;
	return env;
}

/* 1 when keep (NULL: everything) takes the variable of "K=V". */
static int
spawn_env_kept(const char *entry, int (*keep)(const char *))
{
	char *name;
	int r;

	if (keep == NULL)
		return 1;
	name = xstrndup(entry, strcspn(entry, "="));
	r = keep(name);
	free(name);
	return r;
}

/* 1 if the "K=V" strings a and b name the same variable. */
static int
spawn_env_key_matches(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");

	return la == lb && strncmp(a, b, la) == 0;
}

/* Move fd above the standard descriptors (as O_CLOEXEC) if it is one. */
static int
spawn_fd_above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/*
 * In the forked child: own process group, default signal handling,
 * stdin from o->in_path (or /dev/null), stdout and stderr to outfd (or
 * /dev/null), o->cwd, nothing open above 2, then exec.  Only
 * async-signal-safe calls here.
 */
static void
spawn_child_exec(char *const argv[], const struct spawn_opts *o, char **envp,
    int outfd)
{
	sigset_t none;
	int nullfd, infd;

	(void)setpgid(0, 0);
	(void)signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	nullfd = spawn_fd_above_stdio(open("/dev/null", O_RDWR | O_CLOEXEC));
	outfd = spawn_fd_above_stdio(outfd);
	infd = spawn_in_fd(o->in_path, nullfd);
	if (nullfd == -1 || infd == -1)
		_exit(127);
	if (outfd == -1)
		outfd = nullfd;
	if (dup2(infd, 0) == -1 || dup2(outfd, 1) == -1 || dup2(outfd, 2) == -1)
		_exit(127);
	if (o->cwd != NULL && chdir(o->cwd) == -1)
		_exit(127);
	closefrom(3);
	execvpe(argv[0], argv, envp);
	_exit(127);
}

static long long
spawn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
spawn_sleep_ms(int ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* The exit code of a wait status, or 128 + the signal that ended it. */
static int
spawn_exit_code(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 127;
}

/* Reap the child if it has exited: 1 reaped, 0 still running. */
static int
spawn_try_reap(struct child *c)
{
	pid_t w;

	if (c->reaped)
		return 1;
	do
		w = waitpid(c->pid, &c->wstatus, WNOHANG);
	while (w == -1 && errno == EINTR);
	if (w == c->pid || (w == -1 && errno == ECHILD))
		c->reaped = 1;
	return c->reaped;
}

/* Time is up: SIGTERM to the group, then SIGKILL after the grace. */
static void
spawn_escalate(struct child *c)
{
	if (c->stage == 0) {
		(void)kill(-c->pid, SIGTERM);
		c->stage = 1;
		c->deadline = spawn_now_ms() + c->grace_ms;
	} else if (c->stage == 1) {
		(void)kill(-c->pid, SIGKILL);
		c->stage = 2;
		c->deadline = 0;
	}
}

/*
 * Read what the child wrote, waiting at most wait_ms for it; keep what
 * fits under the cap and drop the rest.  Closes the descriptor at EOF.
 */
static void
spawn_read_some(struct child *c, int wait_ms)
{
	struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
	char chunk[8192];
	ssize_t n;

	if (poll(&pfd, 1, wait_ms) <= 0)
		return;
	n = read(c->fd, chunk, sizeof(chunk));
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(c->fd);
		c->fd = -1;
		return;
	}
	spawn_keep(c, chunk, (size_t)n);
}

/* Append what fits under the cap to the caller's buffer. */
static void
spawn_keep(struct child *c, const char *p, size_t n)
{
	size_t max, room;

	if (c->out == NULL)
		return;
	max = c->out->max != 0 ? c->out->max : SPAWN_OUT_MAX;
	room = c->out->len < max ? max - c->out->len : 0;
	if (room > n)
		room = n;
	if (room > 0)
		(void)buf_append(c->out, p, room);
}

/*
 * The child has exited: take what is already in the pipe without waiting
 * for writers it left behind, and close it.
 */
static void
spawn_drain(struct child *c)
{
	char chunk[8192];
	ssize_t n;

	if (c->fd == -1)
		return;
	(void)fcntl(c->fd, F_SETFL, O_NONBLOCK);
	while ((n = read(c->fd, chunk, sizeof(chunk))) > 0 ||
	    (n == -1 && errno == EINTR))
		if (n > 0)
			spawn_keep(c, chunk, (size_t)n);
	close(c->fd);
	c->fd = -1;
}

/*
 * Collect output until the child exits, enforcing the deadline.  Once it
 * has exited, whatever is already in the pipe is taken and the rest (a
 * grandchild holding the pipe open) is not waited for.  Returns 0, or -1
 * with errno ETIMEDOUT when the child had to be killed.
 */
static int
spawn_supervise(struct child *c)
{
	int nap = 1, wait_ms;
	long long left;

	while (!spawn_try_reap(c)) {
		wait_ms = SPAWN_SLICE_MS;
		if (c->deadline != 0) {
			left = c->deadline - spawn_now_ms();
			if (left <= 0) {
				spawn_escalate(c);
				continue;
			}
			if (left < wait_ms)
				wait_ms = (int)left;
		}
		if (c->fd != -1) {
			spawn_read_some(c, wait_ms);
			continue;
		}
		/* Output closed: the exit is usually imminent. */
		spawn_sleep_ms(nap < wait_ms ? nap : wait_ms);
		if (nap < SPAWN_SLICE_MS)
			nap *= 2;
	}
	spawn_drain(c);
	if (c->stage == 0)
		return 0;
	(void)kill(-c->pid, SIGKILL);
	errno = ETIMEDOUT;
	return -1;
}

int
spawn_run(char *const argv[], const struct spawn_opts *opts, struct buf *out,
    int *status)
{
	struct spawn_opts defaults = {0};
	struct child c = {.pid = -1, .fd = -1, .out = out};
	char **envp = NULL;
	int p[2] = {-1, -1}, r = -1, saved;

	if (opts == NULL)
		opts = &defaults;
	if (status != NULL)
		*status = -1;
	if (argv == NULL || argv[0] == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (out != NULL && pipe2(p, O_CLOEXEC) == -1)
		return -1;
	envp = spawn_env_build(opts->env_add, opts->env_keep, opts->child_env);
	if ((c.pid = fork()) == -1)
		goto out;
	spawned++;
	if (c.pid == 0)
		spawn_child_exec(argv, opts, envp, p[1]);
	/* Also set here, so a timeout can never miss the group. */
	(void)setpgid(c.pid, c.pid);
	if (p[1] != -1)
		close(p[1]);
	p[1] = -1;
	c.fd = p[0];
	p[0] = -1;
	c.grace_ms = opts->grace_ms > 0 ? opts->grace_ms : SPAWN_GRACE_MS;
	if (opts->timeout_s > 0)
		c.deadline = spawn_now_ms() + (long long)opts->timeout_s * 1000;
	r = spawn_supervise(&c);
	if (status != NULL)
		*status = spawn_exit_code(c.wstatus);
out:
	saved = errno;
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	if (envp != environ)
		free(envp);
	errno = saved;
	return r;
}

/* read(2) exactly len bytes: 0, or -1 at EOF or error. */
static int
spawn_read_full(int fd, void *p, size_t len)
{
	char *cp = p;
	ssize_t n;

	while (len > 0) {
		n = read(fd, cp, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		cp += n;
		len -= (size_t)n;
	}
	return 0;
}

/* waitpid(2) for one child, retrying on EINTR; its status or -1. */
static int
spawn_wait_pid(pid_t pid)
{
	int ws;

	while (waitpid(pid, &ws, 0) == -1)
		if (errno != EINTR)
			return -1;
	return ws;
}
int
spawn_detached(char *const argv[], const char *cwd, const char *log_path,
    pid_t *pid)
{
	struct spawn_detached_opts o = {.cwd = cwd, .log_path = log_path};

	return spawn_detached_ex(argv, &o, pid);
}

/* path truncated for writing (0600), above stdio; /dev/null's nullfd. */
static int
spawn_out_fd(const char *path, int nullfd)
{
	if (path == NULL)
		return nullfd;
	return spawn_fd_above_stdio(open(path,
	    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
}

/* path opened for reading, above stdio (no symbolic link); nullfd. */
static int
spawn_in_fd(const char *path, int nullfd)
{
	if (path == NULL)
		return nullfd;
	return spawn_fd_above_stdio(
	    open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
}

/*
 * In the grandchild of spawn_detached_ex(): report our PID on errfd, lead
 * a process group, set up the descriptors, exec with envp; on failure
 * report errno on errfd (O_CLOEXEC: a successful exec closes it).
 */
static void
spawn_detached_ex_exec(char *const argv[], const struct spawn_detached_opts *o,
    char **envp, int errfd)
{
	pid_t self = getpid();
	int nullfd, infd, outfd, efd, keep[SPAWN_KEEP_MAX], nkeep = 0, i, e;

	if (write(errfd, &self, sizeof(self)) != sizeof(self))
		_exit(127);
	(void)setpgid(0, 0);
	(void)signal(SIGHUP, SIG_IGN);
	(void)signal(SIGPIPE, SIG_DFL);
	errfd = spawn_fd_above_stdio(errfd);
	nullfd = spawn_fd_above_stdio(open("/dev/null", O_RDWR | O_CLOEXEC));
	if (o->log_path != NULL)
		outfd = efd =
		    spawn_fd_above_stdio(file_open_append(o->log_path, 0644));
	else {
		outfd = spawn_out_fd(o->out_path, nullfd);
		efd = spawn_out_fd(o->err_path, nullfd);
	}
	infd = spawn_in_fd(o->in_path, nullfd);
	if (errfd == -1 || nullfd == -1 || infd == -1 || outfd == -1 ||
	    efd == -1)
		goto fail;
	/* Out of the way of the numbers they get below. */
	for (; o->keep_fds != NULL && nkeep < SPAWN_KEEP_MAX &&
	     o->keep_fds[nkeep] >= 0;
	     nkeep++)
		if ((keep[nkeep] = fcntl(o->keep_fds[nkeep], F_DUPFD_CLOEXEC,
			 16)) == -1)
			goto fail;
	if ((errfd = fcntl(errfd, F_DUPFD_CLOEXEC, 16)) == -1)
		goto fail;
	if (dup2(infd, 0) == -1 || dup2(outfd, 1) == -1 || dup2(efd, 2) == -1)
		goto fail;
	if (o->cwd != NULL && chdir(o->cwd) == -1)
		goto fail;
	for (i = 0; i < nkeep; i++)
		if (dup2(keep[i], 3 + i) == -1)
			goto fail;
	if (dup2(errfd, 3 + nkeep) == -1 ||
	    fcntl(3 + nkeep, F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
	errfd = 3 + nkeep;
	closefrom(errfd + 1);
	execvpe(argv[0], argv, envp);
fail:
	e = errno;
	if (errfd != -1 && write(errfd, &e, sizeof(e)) == -1)
		_exit(127);
	_exit(127);
}

int
spawn_detached_ex(char *const argv[], const struct spawn_detached_opts *o,
    pid_t *pid)
{
	char **envp;
	pid_t mid, gpid;
	int p[2], e, r = -1;

	if (argv == NULL || argv[0] == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	envp = spawn_env_build(o->env_add, o->env_keep, o->child_env);
	if ((mid = fork()) == -1)
		goto out;
	spawned++;
	if (mid == 0) {
		sigset_t none;

		sigemptyset(&none);
		(void)sigprocmask(SIG_SETMASK, &none, NULL);
		(void)setsid();
		close(p[0]);
		if ((gpid = fork()) == 0)
			spawn_detached_ex_exec(argv, o, envp, p[1]);
		_exit(gpid == -1 ? 1 : 0);
	}
	close(p[1]);
	p[1] = -1;
	(void)spawn_wait_pid(mid);
	errno = EAGAIN;
	if (spawn_read_full(p[0], &gpid, sizeof(gpid)) == -1)
		goto out;
	if (spawn_read_full(p[0], &e, sizeof(e)) == 0) {
		errno = e;
		goto out;
	}
	if (pid != NULL)
		*pid = gpid;
	r = 0;
out:
	e = errno;
	if (envp != environ)
		free(envp);
	close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	errno = e;
	return r;
}

unsigned long
spawn_count(void)
{
	return spawned;
}
