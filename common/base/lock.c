/*
 * flock(2) locks held on an O_CLOEXEC descriptor, as s6-setlock does: the
 * kernel drops the lock when the holder dies, so liveness is the lock
 * itself, never a PID read back from the file.
 */
#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "lock.h"

#define LOCK_POLL_MS 50
/* Opens of a name whose file its holder removed as we took it. */
#define LOCK_STALE_TRIES 8
/* A PID file holds a few digits; anything longer is not one. */
#define LOCK_PID_MAX 64

static int lock_try(const char *, int *, int *);
static int lock_is_file(const char *, int);
static void pid_line(char *, size_t);
static void write_pid(int);
static pid_t parse_pid(const char *);

/*
 * Open path (file_open_lock(): never through a symlink, only a regular
 * file of ours, a new one created whole) and try flock once.  Returns 0
 * and *fd when taken, 1 when held elsewhere, -1 on error.  *fd is -1
 * unless taken.  The open descriptor is cached in *openfd between
 * attempts of lock_wait().
 */
static int
lock_try(const char *path, int *openfd, int *fd)
{
	char line[32];
	int tries;

	*fd = -1;
	for (tries = 0; tries < LOCK_STALE_TRIES; tries++) {
		if (*openfd == -1) {
			pid_line(line, sizeof(line));
			if ((*openfd = file_open_lock(path, line)) == -1)
				return -1;
		}
		if (flock(*openfd, LOCK_EX | LOCK_NB) == -1)
			return errno == EWOULDBLOCK ? 1 : -1;
		if (lock_is_file(path, *openfd)) {
			write_pid(*openfd);
			*fd = *openfd;
			*openfd = -1;
			return 0;
		}
		/* Its holder removed it as it let go: open the name again. */
		(void)flock(*openfd, LOCK_UN);
		close(*openfd);
		*openfd = -1;
	}
	return 1;
}

/* 1 when path still names the file open on fd, else 0. */
static int
lock_is_file(const char *path, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* "PID\n" of this process into line. */
static void
pid_line(char *line, size_t size)
{
	snprintf(line, size, "%ld\n", (long)getpid());
}

/* Replace the file's contents with "PID\n" (for operators; best effort). */
static void
write_pid(int fd)
{
	char line[32];
	size_t len;

	pid_line(line, sizeof(line));
	len = strlen(line);
	if (ftruncate(fd, 0) == 0 && pwrite(fd, line, len, 0) == (ssize_t)len)
		return;
}

void
lock_note_pid(int fd)
{
	if (fd != -1)
		write_pid(fd);
}

int
lock_take(const char *path, int *fd)
{
	int openfd = -1, r, saved;

	r = lock_try(path, &openfd, fd);
	saved = errno;
	if (openfd != -1)
		close(openfd);
	errno = saved;
	return r;
}

int
lock_held(const char *path)
{
	int fd, r, saved;

	if ((fd = file_open_read(path)) == -1)
		return errno == ENOENT ? 0 : -1;
	/* A shared lock taken is let go of by close(). */
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		r = 0;
	else
		r = errno == EWOULDBLOCK ? 1 : -1;
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

int
lock_wait(const char *path, int *fd, int timeout_s)
{
	struct timespec nap = {0, LOCK_POLL_MS * 1000000L};
	long waited = 0, limit = (long)timeout_s * 1000;
	int openfd = -1, r, saved;

	while ((r = lock_try(path, &openfd, fd)) == 1 && waited < limit) {
		nanosleep(&nap, NULL);
		waited += LOCK_POLL_MS;
	}
	saved = errno;
	if (openfd != -1)
		close(openfd);
	errno = saved;
	return r;
}

void
lock_release(int fd)
{
	if (fd == -1)
		return;
	(void)flock(fd, LOCK_UN);
	close(fd);
}

void
lock_release_remove(const char *path, int fd)
{
	if (fd == -1)
		return;
	if (path != NULL && lock_is_file(path, fd))
		(void)unlink(path);
	lock_release(fd);
}

/* The PID in s (surrounding whitespace allowed), or 0 if it is not one. */
static pid_t
parse_pid(const char *s)
{
	long long v = 0;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return 0;
	}
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return *s == '\0' ? (pid_t)v : 0;
}

int
lock_pid_alive(const char *path, pid_t *pid)
{
	struct buf b;
	int r;

	*pid = 0;
	buf_init(&b, 0);
	r = file_read(path, LOCK_PID_MAX, &b);
	if (r == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	if (r == 1 || strlen(buf_str(&b)) != b.len ||
	    (*pid = parse_pid(buf_str(&b))) == 0) {
		r = 0;
		goto out;
	}
	r = kill(*pid, 0) == 0 || errno == EPERM;
out:
	buf_free(&b);
	return r;
}
