/*
 * Unit tests for common/lock.c: exclusion across processes, release,
 * death of the holder, descriptor hygiene, lock_wait() and PID files.
 */
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

#include "buf.h"
#include "check.h"
#include "lock.h"
#include "spawn.h"

static char tmpdir[] = "/tmp/test-lock-XXXXXX";
static char lockpath[PATH_MAX];

/* Fork a child that reports lock_take()'s result as its exit code. */
static int
take_in_child(void)
{
	pid_t pid;
	int fd, ws;

	if ((pid = fork()) == 0)
		_exit(lock_take(lockpath, &fd) + 10);
	if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws))
		return -100;
	return WEXITSTATUS(ws) - 10;
}

/*
 * Fork a child that takes the lock, says so on a pipe and then holds it
 * for hold_ms (or until killed when hold_ms is 0).
 */
static pid_t
hold_in_child(int hold_ms)
{
	int p[2], fd;
	pid_t pid;
	char c;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (lock_take(lockpath, &fd) != 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		if (hold_ms == 0)
			for (;;)
				pause();
		usleep((useconds_t)hold_ms * 1000);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static void
reap(pid_t pid, int sig)
{
	if (pid <= 0)
		return;
	if (sig != 0)
		kill(pid, sig);
	waitpid(pid, NULL, 0);
}

static void
test_take_exclusive(void)
{
	char line[64];
	FILE *fp;
	int fd = -1;

	CHECK_INT(lock_take(lockpath, &fd), 0);
	CHECK(fd >= 0);
	CHECK_INT(take_in_child(), 1);
	fp = fopen(lockpath, "r");
	CHECK(fp != NULL && fgets(line, sizeof(line), fp) != NULL);
	CHECK_INT(strtol(line, NULL, 10), getpid());
	if (fp != NULL)
		fclose(fp);
	lock_release(fd);
	CHECK_INT(take_in_child(), 0);
	/* The file stays for the next taker. */
	CHECK_INT(access(lockpath, F_OK), 0);
}

static void
test_holder_death(void)
{
	pid_t pid;
	int fd = -1;

	pid = hold_in_child(0);
	CHECK(pid > 0);
	CHECK_INT(lock_take(lockpath, &fd), 1);
	CHECK_INT(fd, -1);
	reap(pid, SIGKILL);
	CHECK_INT(lock_take(lockpath, &fd), 0);
	lock_release(fd);
}

static void
test_not_inherited(void)
{
	char fdpath[64], fdnum[16];
	char *argv[] = {"test", "-e", fdpath, NULL};
	char *sh[] = {"sh", "-c", "test -e /proc/$$/fd/$0", fdnum, NULL};
	int fd = -1, st, flags;

	CHECK_INT(lock_take(lockpath, &fd), 0);
	flags = fcntl(fd, F_GETFD);
	CHECK(flags != -1 && (flags & FD_CLOEXEC) != 0);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	/* Sanity: the path names our own descriptor here. */
	CHECK_INT(access(fdpath, F_OK), 0);
	CHECK_INT(spawn_run(argv, NULL, NULL, &st), 0);
	CHECK_INT(st, 1);
	snprintf(fdnum, sizeof(fdnum), "%d", fd);
	CHECK_INT(spawn_run(sh, NULL, NULL, &st), 0);
	CHECK_INT(st, 1);
	lock_release(fd);
}

static void
test_wait_timeout(void)
{
	struct timespec t0, t1;
	long long ms;
	pid_t pid;
	int fd = -1;

	pid = hold_in_child(0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(lock_wait(lockpath, &fd, 1), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000LL +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CHECK(ms >= 900 && ms < 3000);
	CHECK_INT(fd, -1);
	reap(pid, SIGKILL);
}

static void
test_wait_success(void)
{
	pid_t pid;
	int fd = -1;

	pid = hold_in_child(300);
	CHECK(pid > 0);
	CHECK_INT(lock_wait(lockpath, &fd, 5), 0);
	CHECK(fd >= 0);
	lock_release(fd);
	reap(pid, 0);
	CHECK_INT(lock_wait(lockpath, &fd, 0), 0);
	lock_release(fd);
}

static void
test_errors(void)
{
	int fd = 7;

	CHECK_INT(lock_take("/nonexistent/dir/x.lock", &fd), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(fd, -1);
	lock_release(-1);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	fputs(text, fp);
	fclose(fp);
}

static void
test_pid_alive(void)
{
	char path[PATH_MAX], text[64];
	pid_t pid = -1, dead;

	snprintf(path, sizeof(path), "%s/agent.lock", tmpdir);
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	CHECK_INT(pid, 0);
	write_file(path, "");
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	write_file(path, "garbage\n");
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	write_file(path, "123abc\n");
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	CHECK_INT(pid, 0);
	write_file(path, "0\n");
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	write_file(path, "-1\n");
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	write_file(path, "99999999999999999999\n");
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	snprintf(text, sizeof(text), "  %ld \r\n", (long)getpid());
	write_file(path, text);
	CHECK_INT(lock_pid_alive(path, &pid), 1);
	CHECK_INT(pid, getpid());
	/* PID 1 belongs to another user, maybe: EPERM still means alive. */
	write_file(path, "1");
	CHECK_INT(lock_pid_alive(path, &pid), 1);
	if ((dead = fork()) == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(text, sizeof(text), "%ld\n", (long)dead);
	write_file(path, text);
	CHECK_INT(lock_pid_alive(path, &pid), 0);
	CHECK_INT(pid, dead);
	unlink(path);
	/* A directory cannot be read: an error, not "dead". */
	CHECK_INT(lock_pid_alive(tmpdir, &pid), -1);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(lockpath, sizeof(lockpath), "%s/test.lock", tmpdir);
	RUN(test_take_exclusive);
	RUN(test_holder_death);
	RUN(test_not_inherited);
	RUN(test_wait_timeout);
	RUN(test_wait_success);
	RUN(test_errors);
	RUN(test_pid_alive);
	unlink(lockpath);
	rmdir(tmpdir);
	return check_main();
}
