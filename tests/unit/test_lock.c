/*
 * Unit tests for common/base/lock.c: exclusion across processes, release,
 * death of the holder, descriptor hygiene, lock_wait() and PID files.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

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

#include "buf.h"
#include "check.h"
#include "file.h"
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

/* 1 when path names the file open on fd. */
static int
same_file(const char *path, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/*
 * A holder that removes the file as it lets go: the waiter that took the
 * lock on the removed file opens the name again, so it holds the file
 * the name is, and a later taker agrees with it.
 */
static void
test_release_remove(void)
{
	int fd = -1, fd2 = -1, p[2];
	pid_t pid;
	char c;

	CHECK_INT(lock_take(lockpath, &fd), 0);
	lock_release_remove(lockpath, fd);
	CHECK(access(lockpath, F_OK) == -1 && errno == ENOENT);
	lock_release_remove(lockpath, -1);
	/* A holder in a child, which removes the file after 300 ms. */
	CHECK(pipe(p) == 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (lock_take(lockpath, &fd) != 0 || write(p[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		lock_release_remove(lockpath, fd);
		_exit(0);
	}
	close(p[1]);
	CHECK(read(p[0], &c, 1) == 1);
	close(p[0]);
	CHECK_INT(lock_wait(lockpath, &fd, 5), 0);
	CHECK(fd >= 0 && same_file(lockpath, fd));
	CHECK_INT(lock_take(lockpath, &fd2), 1);
	reap(pid, 0);
	/* The file replaced under a holder: the name's file is free. */
	CHECK_INT(unlink(lockpath), 0);
	CHECK_INT(lock_take(lockpath, &fd2), 0);
	CHECK(same_file(lockpath, fd2));
	/* The first holder's removal leaves the other's file alone. */
	lock_release_remove(lockpath, fd);
	CHECK(same_file(lockpath, fd2));
	lock_release_remove(lockpath, fd2);
	CHECK(access(lockpath, F_OK) == -1);
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

/* A UNIX socket bound at path (left open on purpose), or -1. */
static int
bind_socket(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		close(fd);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd != -1 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* lock_take() on what is at lockpath: its result, errno in *err. */
static int
take_planted(int *err)
{
	int fd = 7, r;

	r = lock_take(lockpath, &fd);
	*err = errno;
	if (r == 0)
		lock_release(fd);
	else
		CHECK_INT(fd, -1);
	return r;
}

static void
test_planted(void)
{
	char victim[PATH_MAX], gone[PATH_MAX];
	struct buf b;
	int err, sock;

	/* A tick that hangs holds its lock forever: fail the test instead. */
	alarm(20);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	snprintf(gone, sizeof(gone), "%s/gone", tmpdir);
	write_file(victim, "precious\n");
	unlink(lockpath);
	/* A symlink to a file: refused, the file untouched. */
	CHECK_INT(symlink(victim, lockpath), 0);
	CHECK_INT(take_planted(&err), -1);
	CHECK_INT(err, ELOOP);
	buf_init(&b, 0);
	CHECK_INT(file_read(victim, 100, &b), 0);
	CHECK_STR(buf_str(&b), "precious\n");
	buf_free(&b);
	unlink(lockpath);
	/* A dangling symlink: refused, nothing created at its target. */
	CHECK_INT(symlink(gone, lockpath), 0);
	CHECK_INT(take_planted(&err), -1);
	CHECK_INT(err, ELOOP);
	CHECK_INT(access(gone, F_OK), -1);
	unlink(lockpath);
	/* A symlink to a directory, a directory, a FIFO, a socket. */
	CHECK_INT(symlink(tmpdir, lockpath), 0);
	CHECK_INT(take_planted(&err), -1);
	CHECK_INT(err, ELOOP);
	unlink(lockpath);
	CHECK_INT(mkdir(lockpath, 0755), 0);
	CHECK_INT(take_planted(&err), -1);
	CHECK_INT(err, EISDIR);
	rmdir(lockpath);
	CHECK_INT(mkfifo(lockpath, 0644), 0);
	CHECK_INT(take_planted(&err), -1);
	CHECK_INT(err, EINVAL);
	CHECK_INT(lock_pid_alive(lockpath, &(pid_t) {0}), -1);
	unlink(lockpath);
	CHECK((sock = bind_socket(lockpath)) != -1);
	CHECK_INT(take_planted(&err), -1);
	close(sock);
	unlink(lockpath);
	/* Another user's file (only root can make one here). */
	if (geteuid() == 0) {
		write_file(lockpath, "1\n");
		CHECK_INT(chown(lockpath, 65534, 65534), 0);
		CHECK_INT(take_planted(&err), -1);
		CHECK_INT(err, EPERM);
		unlink(lockpath);
	}
	unlink(victim);
	alarm(0);
}

/* lock_held(): a holder seen, nothing written, the lock left free. */
static void
test_held(void)
{
	struct stat a, b;
	pid_t pid;
	int fd = -1;

	unlink(lockpath);
	CHECK_INT(lock_held(lockpath), 0);
	CHECK_INT(access(lockpath, F_OK), -1);
	pid = hold_in_child(0);
	CHECK(pid > 0);
	CHECK_INT(stat(lockpath, &a), 0);
	CHECK_INT(lock_held(lockpath), 1);
	CHECK_INT(stat(lockpath, &b), 0);
	CHECK(a.st_mtime == b.st_mtime && a.st_size == b.st_size);
	reap(pid, SIGKILL);
	CHECK_INT(lock_held(lockpath), 0);
	CHECK_INT(lock_take(lockpath, &fd), 0);
	lock_release(fd);
	CHECK_INT(lock_held(tmpdir), -1);
}

static void
test_created_whole(void)
{
	char text[32];
	struct buf b;
	struct dirent *de;
	DIR *d;
	int fd, others = 0;

	unlink(lockpath);
	CHECK_INT(lock_take(lockpath, &fd), 0);
	buf_init(&b, 0);
	CHECK_INT(file_read(lockpath, 100, &b), 0);
	snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	CHECK_STR(buf_str(&b), text);
	buf_free(&b);
	lock_release(fd);
	/* No temporary name is left behind. */
	if ((d = opendir(tmpdir)) != NULL) {
		while ((de = readdir(d)) != NULL)
			others += de->d_name[0] != '.' &&
			    strcmp(de->d_name, "test.lock") != 0;
		closedir(d);
	}
	CHECK_INT(others, 0);
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
	RUN(test_release_remove);
	RUN(test_pid_alive);
	RUN(test_planted);
	RUN(test_created_whole);
	RUN(test_held);
	unlink(lockpath);
	rmdir(tmpdir);
	return check_main();
}
