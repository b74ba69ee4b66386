/*
 * Whole-file reads and atomic replacement.
 */
/* mkostemp(3) is a GNU extension in glibc. */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "xmalloc.h"

static int write_all(int, const void *, size_t);

static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
file_write_atomic(const char *path, const void *data, size_t len, int mode,
    int sync)
{
	char *tmp;
	int fd, saved, r = -1;

	tmp = xasprintf("%s.tmp.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		goto out;
	if (fchmod(fd, (mode_t)mode) == -1 || write_all(fd, data, len) == -1 ||
	    (sync && fsync(fd) == -1)) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		goto out;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		goto out;
	}
	r = 0;
out:
	saved = errno;
	free(tmp);
	errno = saved;
	return r;
}

int
file_read(const char *path, size_t max, struct buf *out)
{
	char chunk[8192];
	size_t total = 0;
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		size_t want = sizeof(chunk);
		ssize_t n;

		if (total >= max) {
			r = read(fd, chunk, 1) > 0 ? 1 : 0;
			break;
		}
		if (want > max - total)
			want = max - total;
		n = read(fd, chunk, want);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			r = -1;
			break;
		}
		if (n == 0)
			break;
		buf_append(out, chunk, (size_t)n);
		total += (size_t)n;
	}
	{
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return r;
}

int
file_create_excl(const char *path, const char *contents, int mode)
{
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
	    (mode_t)mode);
	if (fd == -1)
		return errno == EEXIST ? 1 : -1;
	if (contents != NULL && write_all(fd, contents, strlen(contents)) == -1)
		r = -1;
	if (close(fd) == -1)
		r = -1;
	return r;
}

int
file_mtime(const char *path, time_t *mtime)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return -1;
	*mtime = st.st_mtime;
	return 0;
}

int
file_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
file_remove(const char *path)
{
	if (unlink(path) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

int
file_mkdirs(const char *path, int mode)
{
	char tmp[PATH_MAX];
	size_t i, n;

	n = strlen(path);
	if (n == 0 || n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] != '/' && tmp[i] != '\0')
			continue;
		tmp[i] = '\0';
		if (mkdir(tmp, (mode_t)mode) == -1 && errno != EEXIST)
			return -1;
		if (i < n)
			tmp[i] = '/';
	}
	return 0;
}

int
file_mkdir_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int r = 0;

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		r = file_mkdirs(dir, 0755);
	}
	free(dir);
	return r;
}

int
file_append_line(const char *path, const char *line)
{
	char *text = xasprintf("%s\n", line);
	int fd, saved, r = -1;

	if (file_mkdir_parent(path) == -1)
		goto out;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd == -1)
		goto out;
	r = write_all(fd, text, strlen(text));
	saved = errno;
	if (close(fd) == -1 && r == 0)
		r = -1;
	else
		errno = saved;
out:
	free(text);
	return r;
}
