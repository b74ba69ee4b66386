/*
 * Opens of run, state, log and configuration files (see file.h).
 *
 * A refusal is logged here, once per path and process, rather than by
 * each caller: the helper is the one place that knows what was found
 * (a symlink, a FIFO, another user's file), every caller is covered,
 * and a tick that looks at a planted file five times logs it once.
 */
/* mkostemp(3) is a GNU extension in glibc. */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "log.h"
#include "xmalloc.h"

/* Paths refused so far; each is logged once per process. */
#define FILE_REFUSED_MAX 64
static char *refused[FILE_REFUSED_MAX];
static size_t nrefused;

/* The private directory with its '/' (file_private_dir()), or NULL. */
static char *private_dir;
/* file_claims(): the directory of claims with its '/', and their owner. */
static char *claims_dir;
static uid_t claims_uid;

/* Who may have written a file that is accepted. */
enum file_rule {
	FILE_ANYONE, /* any regular file */
	FILE_MINE,   /* a regular file of the effective user */
	FILE_ALONE   /* ... that neither group nor others can write */
};

/* How open_checked() opens. */
#define OPEN_QUIET 0x1	 /* log nothing, allocate nothing */
#define OPEN_MISSING 0x2 /* others' file in the private dir: ENOENT */

static int write_all(int, const void *, size_t);
static int file_is_private(const char *);
static enum file_rule rule_for(const char *, enum file_rule);
static int file_in_claims(const char *);
static int file_is_claim(const char *, const struct stat *);
static int file_ours(const char *, const struct stat *);
static const char *unfit_owner(const char *, const struct stat *,
    enum file_rule, int *);
static const char *unfit(const char *, const struct stat *, enum file_rule,
    int *);
static int refuse(const char *, const char *, int, int);
static int open_checked(const char *, int, int, enum file_rule, int);
static int lstat_regular(const char *, struct stat *, enum file_rule, int);
static int create_linked(const char *, const char *, int);

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

void
file_private_dir(const char *dir)
{
	free(private_dir);
	private_dir = NULL;
	if (dir != NULL && dir[0] != '\0')
		private_dir = xasprintf("%s/", dir);
}

void
file_claims(const char *run_dir, uid_t uid)
{
	free(claims_dir);
	claims_dir = NULL;
	if (run_dir != NULL) {
		claims_dir = xasprintf("%s/", run_dir);
		claims_uid = uid;
	}
}

/*
 * Whether path is where the agents' user writes (file_claims()): below
 * a session directory, RUN/sessions/active/NAME/..., or a worktree,
 * RUN/NAME-worktree-N[/...]; with no ".." on the way.
 */
static int
file_in_claims(const char *path)
{
	const char *rest, *s = "sessions/active/";
	char first[NAME_MAX + 1];
	size_t n;

	if (claims_dir == NULL ||
	    strncmp(path, claims_dir, strlen(claims_dir)) != 0)
		return 0;
	rest = path + strlen(claims_dir);
	if (strstr(rest, "..") != NULL)
		return 0;
	if (strncmp(rest, s, strlen(s)) == 0) {
		rest += strlen(s);
		return rest[0] != '/' && rest[0] != '\0' &&
		    strchr(rest, '/') != NULL;
	}
	if ((n = strcspn(rest, "/")) > NAME_MAX)
		return 0;
	memcpy(first, rest, n);
	first[n] = '\0';
	return fnmatch("?*-worktree-[0-9]*", first, 0) == 0;
}

/* Whether st, at path, is a claim: the claims' owner's, where they are. */
static int
file_is_claim(const char *path, const struct stat *st)
{
	return st->st_uid == claims_uid && file_in_claims(path);
}

/* Whether st, at path, is the effective user's, or a claim. */
static int
file_ours(const char *path, const struct stat *st)
{
	return st->st_uid == geteuid() || file_is_claim(path, st);
}

/* Whether path is below the private directory. */
static int
file_is_private(const char *path)
{
	return private_dir != NULL &&
	    strncmp(path, private_dir, strlen(private_dir)) == 0;
}

/* The rule for path: FILE_ALONE below the private directory, else base. */
static enum file_rule
rule_for(const char *path, enum file_rule base)
{
	return file_is_private(path) ? FILE_ALONE : base;
}

/*
 * What is wrong with the owner or mode of st under rule: NULL when
 * nothing, else what, with the errno to report (EPERM) in *err.  (A
 * symlink's mode means nothing: only its owner counts.)
 */
static const char *
unfit_owner(const char *path, const struct stat *st, enum file_rule rule,
    int *err)
{
	/*
	 * The group of a session directory given to the agents' user is
	 * its and the tools' user's: its files group-writable (umask 002),
	 * and any of them the agent may replace anyway.
	 */
	mode_t w = file_in_claims(path) ? S_IWOTH : S_IWGRP | S_IWOTH;

	*err = EPERM;
	if (rule != FILE_ANYONE && st->st_uid != geteuid() &&
	    !file_is_claim(path, st))
		return "a file of another user";
	if (rule == FILE_ALONE && !S_ISLNK(st->st_mode) &&
	    (st->st_mode & w) != 0)
		return "writable by group or others";
	return NULL;
}

/*
 * What is wrong with st as a file to open: NULL when it is a regular
 * file that rule accepts, else what it is, with the errno to report in
 * *err: EPERM for whatever another user (or anyone, under FILE_ALONE)
 * may have written, whatever its type; else what its type calls for.
 */
static const char *
unfit(const char *path, const struct stat *st, enum file_rule rule, int *err)
{
	const char *what;

	if (rule == FILE_ALONE &&
	    (what = unfit_owner(path, st, rule, err)) != NULL)
		return what;
	*err = EINVAL;
	if (S_ISREG(st->st_mode))
		return unfit_owner(path, st, rule, err);
	if (S_ISLNK(st->st_mode)) {
		*err = ELOOP;
		return "a symlink (never followed)";
	}
	if (S_ISDIR(st->st_mode)) {
		*err = EISDIR;
		return "a directory";
	}
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "a device";
}

/*
 * Refuse path, which is what (unless quiet, logged once per path in this
 * process: one planted file, one line, however often a tick looks at it).
 * Returns -1 with errno err.
 */
static int
refuse(const char *path, const char *what, int err, int quiet)
{
	size_t i;

	for (i = 0; !quiet && i < nrefused; i++)
		if (strcmp(refused[i], path) == 0)
			quiet = 1;
	if (!quiet) {
		log_err("refusing '%s': %s, not a regular file of ours", path,
		    what);
		if (nrefused < FILE_REFUSED_MAX)
			refused[nrefused++] = xstrdup(path);
	}
	errno = err;
	return -1;
}

/*
 * open(2) path with flags plus O_NOFOLLOW, O_NONBLOCK and O_CLOEXEC (a
 * symlink is never followed, a FIFO never blocks), and refuse() what is
 * not a regular file that rule (made FILE_ALONE below the private
 * directory) accepts.  how: OPEN_QUIET allocates and logs nothing (safe
 * between fork and exec), OPEN_MISSING reports what another user (or
 * anyone) may have written below the private directory as missing
 * (ENOENT).  The descriptor, or -1 with errno set.
 */
static int
open_checked(const char *path, int flags, int mode, enum file_rule rule,
    int how)
{
	const char *what;
	struct stat st;
	int fd, err, saved;

	rule = rule_for(path, rule);
	fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	    (mode_t)mode);
	if (fd == -1) {
		/* ELOOP, ENXIO, EISDIR...: say what is there instead. */
		saved = errno;
		if (lstat(path, &st) == -1 ||
		    (what = unfit(path, &st, rule, &err)) == NULL) {
			errno = saved;
			return -1;
		}
	} else if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	} else if ((what = unfit(path, &st, rule, &err)) == NULL)
		return fd;
	else
		close(fd);
	if ((how & OPEN_MISSING) && rule == FILE_ALONE && err == EPERM)
		err = ENOENT;
	return refuse(path, what, err, how & OPEN_QUIET);
}

/*
 * lstat(2) path into *st and refuse() what is not a regular file that
 * rule accepts there.  With private set, the rule below the private
 * directory is FILE_ALONE, and what another user (or anyone) may have
 * written there is reported as missing (ENOENT).  0, or -1 with errno
 * set (ENOENT when nothing is there).
 */
static int
lstat_regular(const char *path, struct stat *st, enum file_rule rule,
    int private)
{
	const char *what;
	int err;

	if (private)
		rule = rule_for(path, rule);
	if (lstat(path, st) == -1)
		return -1;
	if ((what = unfit(path, st, rule, &err)) == NULL)
		return 0;
	if (private && rule == FILE_ALONE && err == EPERM)
		err = ENOENT;
	return refuse(path, what, err, 0);
}

/*
 * Create path holding contents, whole from its first moment: written to
 * a temporary name in the same directory, then hard-linked into place
 * (link(2) never follows a symlink at the destination and fails with
 * EEXIST when anything is there).  Returns a read-write descriptor of the
 * new file, or -1 with errno set; the temporary name is always removed.
 */
static int
create_linked(const char *path, const char *contents, int mode)
{
	char *tmp = xasprintf("%s.new.XXXXXX", path);
	int fd, saved, r = -1;

	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		goto out;
	if (fchmod(fd, (mode_t)mode) == -1 ||
	    (contents != NULL &&
		write_all(fd, contents, strlen(contents)) == -1) ||
	    link(tmp, path) == -1) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		goto out;
	}
	unlink(tmp);
	r = fd;
out:
	saved = errno;
	free(tmp);
	errno = saved;
	return r;
}

int
file_write_atomic(const char *path, const void *data, size_t len, int mode,
    int sync)
{
	struct stat st;
	char *tmp;
	int fd, saved, r = -1;

	/*
	 * rename(2) would replace a planted symlink or FIFO without following
	 * it; refusing instead tells the operator someone put it there.
	 */
	if (lstat_regular(path, &st, FILE_ANYONE, 0) == -1 && errno != ENOENT)
		return -1;
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

	if ((fd = file_open_read(path)) == -1)
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
file_load(const char *path, size_t max,
    int (*parse)(void *ctx, const char *text, size_t len), void *ctx)
{
	struct buf b;
	int r = 0, rd;

	buf_init(&b, 0);
	if ((rd = file_read(path, max, &b)) == -1)
		r = errno == ENOENT ? 0 : -1;
	else if (rd == 1 || parse(ctx, buf_str(&b), b.len) == -1) {
		errno = EINVAL;
		r = -1;
	}
	buf_free(&b);
	return r;
}

int
file_create_excl(const char *path, const char *contents, int mode)
{
	struct stat st;
	int fd;

	if ((fd = create_linked(path, contents, mode)) != -1)
		return close(fd) == -1 ? -1 : 0;
	if (errno != EEXIST)
		return -1;
	/*
	 * A planted symlink or FIFO, or another user's file below the
	 * private directory, is not "already done".
	 */
	if (lstat_regular(path, &st, rule_for(path, FILE_ANYONE), 0) == -1 &&
	    errno != ENOENT)
		return -1;
	return 1;
}

int
file_open_read(const char *path)
{
	return open_checked(path, O_RDONLY, 0, FILE_ANYONE, OPEN_MISSING);
}

int
file_open_append(const char *path, int mode)
{
	return open_checked(path, O_WRONLY | O_APPEND | O_CREAT, mode,
	    FILE_ANYONE, OPEN_QUIET);
}

int
file_open_lock(const char *path, const char *contents)
{
	int fd, try;

	/* Created and removed by others meanwhile: a few tries settle it. */
	for (try = 0; try < 3; try++) {
		if ((fd = open_checked(path, O_RDWR, 0, FILE_MINE, 0)) != -1 ||
		    errno != ENOENT)
			return fd;
		if ((fd = create_linked(path, contents, 0644)) != -1 ||
		    errno != EEXIST)
			return fd;
	}
	return -1;
}

int
file_touch(const char *path)
{
	int fd, r;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644);
	if (fd == -1 && errno == EEXIST)
		fd = open_checked(path, O_WRONLY, 0, FILE_MINE, 0);
	if (fd == -1)
		return -1;
	r = futimens(fd, NULL);
	if (close(fd) == -1)
		r = -1;
	return r;
}

int
file_truncate(const char *path)
{
	int fd, r;

	if ((fd = open_checked(path, O_WRONLY, 0, FILE_MINE, 0)) == -1)
		return -1;
	r = ftruncate(fd, 0);
	if (close(fd) == -1)
		r = -1;
	return r;
}

int
file_mtime(const char *path, time_t *mtime)
{
	struct stat st;

	if (lstat_regular(path, &st, FILE_ANYONE, 1) == -1)
		return -1;
	*mtime = st.st_mtime;
	return 0;
}

int
file_trusted(const char *path)
{
	struct stat st;

	return lstat_regular(path, &st, FILE_ANYONE, 1) == 0;
}

int
file_foreign(const char *path)
{
	struct stat st;
	int saved = errno, r = 0;

	if (file_is_private(path) && lstat(path, &st) == 0 &&
	    !file_ours(path, &st)) {
		(void)refuse(path, "a file of another user", EPERM, 0);
		r = 1;
	}
	errno = saved;
	return r;
}

int
file_exists(const char *path)
{
	const char *what;
	struct stat st;
	int err;

	if (lstat(path, &st) == -1)
		return 0;
	/*
	 * Below the private directory, what another user (or anyone) may
	 * have written is not there for us; anything else is, whatever it
	 * is (a reader refuses what is not a regular file: "unknown").
	 */
	if (!file_is_private(path) ||
	    (what = unfit_owner(path, &st, FILE_ALONE, &err)) == NULL)
		return 1;
	(void)refuse(path, what, err, 0);
	return 0;
}

int
file_remove(const char *path)
{
	struct stat st;

	/* Another user's file is not ours to remove, nor ever read. */
	if (file_is_private(path) && lstat(path, &st) == 0 &&
	    !file_ours(path, &st)) {
		(void)refuse(path, "a file of another user", EPERM, 0);
		return 0;
	}
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
file_mkdir_private(const char *dir, char *why, size_t whysz)
{
	struct stat st;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		snprintf(why, whysz, "cannot create the run directory '%s': %s",
		    dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) == -1) {
		snprintf(why, whysz, "cannot stat the run directory '%s': %s",
		    dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		snprintf(why, whysz, "the run directory '%s' is %s", dir,
		    S_ISLNK(st.st_mode) ? "a symlink" : "not a directory");
	else if (st.st_uid != geteuid())
		snprintf(why, whysz,
		    "the run directory '%s' belongs to uid %lu, not to this "
		    "user (uid %lu)",
		    dir, (unsigned long)st.st_uid, (unsigned long)geteuid());
	/* 0711: a session directory given to the agents' user is reached. */
	else if ((st.st_mode & 066) != 0)
		snprintf(why, whysz,
		    "the run directory '%s' has mode %04o; only its owner "
		    "may use it (0700, or 0711 for AGENT_SANDBOX=user)",
		    dir, (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return -1;
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
	fd = open_checked(path, O_WRONLY | O_APPEND | O_CREAT, 0644,
	    FILE_ANYONE, 0);
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

int
file_read_private(int fd, struct buf *out)
{
	struct stat st;
	char chunk[4096];
	ssize_t n;
	int r = -1;

	if (fstat(fd, &st) == -1)
		goto out;
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		errno = EPERM;
		goto out;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || buf_append(out, chunk, (size_t)n) == -1)
			goto out;
	}
	r = 0;
out:
	explicit_bzero(chunk, sizeof(chunk));
	return r;
}
