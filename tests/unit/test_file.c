/*
 * Unit tests for common/base/file.c: reads and writes of run files never
 * follow a symlink, never block on a FIFO, refuse what is not a regular
 * file, and stay within their limits.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "file.h"
#include "log.h"

static char dir[] = "/tmp/test-file-XXXXXX";
/* What every planted kind of file is, in turn. */
enum plant { P_LINK_FILE, P_LINK_DIR, P_DANGLING, P_FIFO, P_DIR, P_SOCKET };
#define NPLANTS 6
static const char *const plant_names[NPLANTS] = {"symlink to a file",
    "symlink to a directory", "dangling symlink", "FIFO", "directory",
    "socket"};
static int sock_fd = -1;

static char *
at(const char *name)
{
	static char path[4][PATH_MAX];
	static int next;

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[next]), "%s/%s", dir, name);
	return path[next];
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp != NULL) {
		fputs(text, fp);
		fclose(fp);
	}
}

/* The contents of path as a string (static), or "(none)". */
static const char *
contents(const char *path)
{
	static char data[256];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) == -1)
		return "(none)";
	n = read(fd, data, sizeof(data) - 1);
	data[n > 0 ? n : 0] = '\0';
	close(fd);
	return data;
}

/* Put a thing of kind k at path; "victim" is a file outside it. */
static int
plant(enum plant k, const char *path)
{
	struct sockaddr_un sa;

	put(at("victim"), "precious\n");
	mkdir(at("victim-dir"), 0755);
	switch (k) {
	case P_LINK_FILE:
		return symlink(at("victim"), path);
	case P_LINK_DIR:
		return symlink(at("victim-dir"), path);
	case P_DANGLING:
		return symlink(at("nowhere"), path);
	case P_FIFO:
		return mkfifo(path, 0644);
	case P_DIR:
		return mkdir(path, 0755);
	case P_SOCKET:
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		if (strlen(path) >= sizeof(sa.sun_path))
			return -1;
		memcpy(sa.sun_path, path, strlen(path) + 1);
		sock_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		return bind(sock_fd, (struct sockaddr *)&sa, sizeof(sa));
	}
	return -1;
}

/* Remove the planted thing and check nothing outside it changed. */
static int
unplant(const char *path)
{
	struct stat st;
	int ok = 1;

	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		rmdir(path);
	else
		unlink(path);
	if (sock_fd != -1)
		close(sock_fd);
	sock_fd = -1;
	ok &= strcmp(contents(at("victim")), "precious\n") == 0;
	ok &= access(at("nowhere"), F_OK) == -1;
	ok &= rmdir(at("victim-dir")) == 0; /* still empty */
	unlink(at("victim"));
	return ok;
}

static void
test_read_regular(void)
{
	struct buf b;

	buf_init(&b, 0);
	put(at("f"), "0123456789");
	CHECK_INT(file_read(at("f"), 100, &b), 0);
	CHECK_STR(buf_str(&b), "0123456789");
	buf_reset(&b);
	/* The cap: the first max bytes, and 1 saying there was more. */
	CHECK_INT(file_read(at("f"), 4, &b), 1);
	CHECK_STR(buf_str(&b), "0123");
	buf_reset(&b);
	CHECK_INT(file_read(at("missing"), 4, &b), -1);
	CHECK_INT(errno, ENOENT);
	/* /proc files are regular files of size 0: read to the end. */
	CHECK_INT(file_read("/proc/self/stat", 4096, &b), 0);
	CHECK(b.len > 10);
	buf_free(&b);
	unlink(at("f"));
}

static void
test_read_refused(void)
{
	static const int want[NPLANTS] = {ELOOP, ELOOP, ELOOP, EINVAL, EISDIR,
	    EINVAL};
	struct buf b;
	int k, fd;

	alarm(20);
	buf_init(&b, 0);
	for (k = 0; k < NPLANTS; k++) {
		printf("#   %s\n", plant_names[k]);
		CHECK_INT(plant((enum plant)k, at("run")), 0);
		CHECK_INT(file_read(at("run"), 100, &b), -1);
		CHECK_INT(errno, want[k]);
		CHECK_INT(b.len, 0);
		CHECK_INT(file_open_read(at("run")), -1);
		CHECK(unplant(at("run")));
	}
	/* A FIFO with a writer on it is refused just the same. */
	CHECK_INT(mkfifo(at("run"), 0644), 0);
	fd = open(at("run"), O_RDWR);
	CHECK_INT(file_read(at("run"), 100, &b), -1);
	CHECK_INT(errno, EINVAL);
	close(fd);
	unlink(at("run"));
	buf_free(&b);
	alarm(0);
}

static void
test_writes_refused(void)
{
	int k;

	alarm(20);
	for (k = 0; k < NPLANTS; k++) {
		printf("#   %s\n", plant_names[k]);
		CHECK_INT(plant((enum plant)k, at("run")), 0);
		CHECK_INT(file_touch(at("run")), -1);
		CHECK_INT(file_truncate(at("run")), -1);
		CHECK_INT(file_append_line(at("run"), "x"), -1);
		CHECK_INT(file_open_append(at("run"), 0644), -1);
		CHECK_INT(file_open_lock(at("run"), "1\n"), -1);
		CHECK_INT(file_create_excl(at("run"), "x", 0644), -1);
		CHECK(unplant(at("run")));
	}
	/* The atomic writer and the clock refuse them too. */
	for (k = 0; k < NPLANTS; k++) {
		time_t t = 0;

		CHECK_INT(plant((enum plant)k, at("run")), 0);
		CHECK_INT(file_write_atomic(at("run"), "new\n", 4, 0644, 0),
		    -1);
		CHECK_INT(file_mtime(at("run"), &t), -1);
		CHECK(unplant(at("run")));
	}
	CHECK_INT(file_write_atomic(at("run"), "new\n", 4, 0644, 0), 0);
	CHECK_STR(contents(at("run")), "new\n");
	unlink(at("run"));
	alarm(0);
}

static void
test_owner(void)
{
	/* Only root can make a file of another user here. */
	if (geteuid() != 0)
		return;
	put(at("theirs"), "1\n");
	CHECK_INT(chown(at("theirs"), 65534, 65534), 0);
	CHECK_INT(file_open_lock(at("theirs"), "2\n"), -1);
	CHECK_INT(errno, EPERM);
	CHECK_INT(file_touch(at("theirs")), -1);
	CHECK_INT(file_truncate(at("theirs")), -1);
	CHECK_STR(contents(at("theirs")), "1\n");
	unlink(at("theirs"));
}

static void
test_create_and_touch(void)
{
	struct stat st;
	int fd;

	/* Created whole, once. */
	CHECK_INT(file_create_excl(at("once"), "first\n", 0600), 0);
	CHECK_INT(file_create_excl(at("once"), "second\n", 0600), 1);
	CHECK_STR(contents(at("once")), "first\n");
	CHECK_INT(stat(at("once"), &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	/* A lock file: created holding its contents, then reopened. */
	fd = file_open_lock(at("l"), "123\n");
	CHECK(fd != -1);
	CHECK_STR(contents(at("l")), "123\n");
	close(fd);
	fd = file_open_lock(at("l"), "456\n");
	CHECK(fd != -1);
	CHECK_STR(contents(at("l")), "123\n");
	close(fd);
	/* Touch: created empty, then its time moves. */
	CHECK_INT(file_touch(at("m")), 0);
	CHECK_INT(stat(at("m"), &st), 0);
	CHECK_INT(st.st_size, 0);
	CHECK_INT(utimensat(AT_FDCWD, at("m"),
		      (struct timespec[2]) {{1000, 0}, {1000, 0}}, 0),
	    0);
	CHECK_INT(file_touch(at("m")), 0);
	CHECK_INT(stat(at("m"), &st), 0);
	CHECK(st.st_mtime > 1000);
	/* Truncate and append. */
	CHECK_INT(file_append_line(at("once"), "more"), 0);
	CHECK_STR(contents(at("once")), "first\nmore\n");
	CHECK_INT(file_truncate(at("once")), 0);
	CHECK_STR(contents(at("once")), "");
	CHECK_INT(file_truncate(at("missing")), -1);
	unlink(at("once"));
	unlink(at("l"));
	unlink(at("m"));
}

static void
test_refusal_logged_once(void)
{
	char want[3 * PATH_MAX], log[PATH_MAX];
	struct buf b;

	snprintf(log, sizeof(log), "%s", at("test.log"));
	CHECK_INT(log_open(log, "", 0, 0), 0);
	CHECK_INT(mkfifo(at("fifo"), 0644), 0);
	CHECK_INT(symlink("/etc/passwd", at("link")), 0);
	buf_init(&b, 0);
	CHECK_INT(file_read(at("fifo"), 10, &b), -1);
	CHECK_INT(file_read(at("fifo"), 10, &b), -1);
	CHECK_INT(file_touch(at("fifo")), -1);
	CHECK_INT(file_read(at("link"), 10, &b), -1);
	CHECK_INT(file_read(at("missing"), 10, &b), -1);
	log_close();
	CHECK_INT(file_read(log, 4096, &b), 0);
	snprintf(want, sizeof(want),
	    "refusing '%s': a FIFO, not a regular file of ours\n", at("fifo"));
	CHECK(strstr(buf_str(&b), want) != NULL);
	snprintf(want, sizeof(want),
	    "refusing '%s': a symlink (never followed), not a regular file "
	    "of ours\n",
	    at("link"));
	CHECK(strstr(buf_str(&b), want) != NULL);
	/* Two lines: one per path, none for a missing file. */
	CHECK_INT(strchr(strchr(buf_str(&b), '\n') + 1, '\n') - buf_str(&b) + 1,
	    (long long)b.len);
	CHECK(strstr(buf_str(&b), "root:") == NULL);
	buf_free(&b);
	unlink(at("fifo"));
	unlink(at("link"));
	unlink(log);
}

/*
 * Below the private directory only files of this user alone are read:
 * one that group or others can write, or of another user, or anything
 * but a regular file reads as missing (refused, logged), and another
 * user's file is left in place by file_remove().  Outside it, nothing
 * changes.
 */
static void
test_private_dir(void)
{
	char sub[PATH_MAX], path[PATH_MAX + 8];
	struct buf b;
	time_t t;

	snprintf(sub, sizeof(sub), "%s", at("priv"));
	snprintf(path, sizeof(path), "%s/f", sub);
	CHECK_INT(mkdir(sub, 0700), 0);
	file_private_dir(sub);
	buf_init(&b, 0);
	put(path, "ours\n");
	CHECK_INT(chmod(path, 0644), 0);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "ours\n");
	CHECK_INT(file_exists(path), 1);
	CHECK_INT(file_trusted(path), 1);
	buf_reset(&b);
	/* Writable by group, then by others: missing. */
	CHECK_INT(chmod(path, 0664), 0);
	CHECK_INT(file_read(path, 100, &b), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(b.len, 0);
	CHECK_INT(file_mtime(path, &t), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(file_exists(path), 0);
	CHECK_INT(file_trusted(path), 0);
	CHECK_INT(file_create_excl(path, "x", 0644), -1);
	CHECK_INT(chmod(path, 0646), 0);
	CHECK_INT(file_open_read(path), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(file_open_lock(path, "1\n"), -1);
	CHECK_INT(file_touch(path), -1);
	/* Ours: removed; replaced whole by the atomic writer. */
	CHECK_INT(file_write_atomic(path, "new\n", 4, 0644, 0), 0);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "new\n");
	CHECK_INT(file_remove(path), 0);
	CHECK_INT(file_exists(path), 0);
	/* A symlink of ours is there, unknown, as anywhere else. */
	CHECK_INT(symlink("/etc/passwd", path), 0);
	CHECK_INT(file_read(path, 100, &b), -1);
	CHECK_INT(errno, ELOOP);
	CHECK_INT(file_exists(path), 1);
	CHECK_INT(file_trusted(path), 0);
	CHECK_INT(unlink(path), 0);
	/* Directories: ours alone count, others do not. */
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(file_exists(path), 1);
	CHECK_INT(chmod(path, 0777), 0);
	CHECK_INT(file_exists(path), 0);
	CHECK_INT(rmdir(path), 0);
	/* Outside it, a group-writable file is read as before. */
	put(at("shared"), "x\n");
	CHECK_INT(chmod(at("shared"), 0664), 0);
	buf_reset(&b);
	CHECK_INT(file_read(at("shared"), 100, &b), 0);
	/* Turned off, the rule no longer holds below it either. */
	put(path, "again\n");
	CHECK_INT(chmod(path, 0664), 0);
	CHECK_INT(file_exists(path), 0);
	file_private_dir(NULL);
	CHECK_INT(file_exists(path), 1);
	CHECK_INT(unlink(path), 0);
	unlink(at("shared"));
	buf_free(&b);
	CHECK_INT(rmdir(sub), 0);
}

/*
 * Another user's file below the private directory: missing for every
 * reader, never removed, not "already there" for a create-once marker,
 * and replaced by the atomic writer where the directory allows it.
 */
static void
test_private_other_user(void)
{
	char sub[PATH_MAX], path[PATH_MAX + 8];
	struct buf b;
	time_t t;

	if (geteuid() != 0) {
		printf("# skip: only root can make a file of another user\n");
		return;
	}
	snprintf(sub, sizeof(sub), "%s", at("priv"));
	snprintf(path, sizeof(path), "%s/theirs", sub);
	CHECK_INT(mkdir(sub, 0700), 0);
	file_private_dir(sub);
	buf_init(&b, 0);
	put(path, "PHASE:done\n");
	CHECK_INT(chmod(path, 0644), 0);
	CHECK_INT(chown(path, 65534, 65534), 0);
	CHECK_INT(file_read(path, 100, &b), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(b.len, 0);
	CHECK_INT(file_mtime(path, &t), -1);
	CHECK_INT(file_exists(path), 0);
	CHECK_INT(file_trusted(path), 0);
	CHECK_INT(file_create_excl(path, "x", 0644), -1);
	CHECK_INT(file_remove(path), 0);
	CHECK_STR(contents(path), "PHASE:done\n");
	CHECK_INT(file_write_atomic(path, "ours\n", 5, 0644, 0), 0);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "ours\n");
	CHECK_INT(unlink(path), 0);
	file_private_dir(NULL);
	buf_free(&b);
	CHECK_INT(rmdir(sub), 0);
}

/*
 * The claims of the agents' user: its files below a session directory
 * read as ours (group-writable too), nowhere else; another user's stay
 * refused there.
 */
static void
test_claims(void)
{
	char top[PATH_MAX], sess[PATH_MAX + 32], path[PATH_MAX + 64];
	char root[PATH_MAX + 32];
	struct buf b;

	if (geteuid() != 0) {
		printf("# skip: only root can make a file of another user\n");
		return;
	}
	snprintf(top, sizeof(top), "%s", at("rc"));
	snprintf(sess, sizeof(sess), "%s/sessions/active", top);
	snprintf(path, sizeof(path), "%s/S/x.phase", sess);
	snprintf(root, sizeof(root), "%s/ci-status-p", top);
	CHECK_INT(file_mkdirs(sess, 0700), 0);
	CHECK_INT(mkdir(at("rc/sessions/active/S"), 0770), 0);
	file_private_dir(top);
	file_claims(top, 65534);
	buf_init(&b, 0);
	put(path, "PHASE:done\n");
	put(root, "success\n");
	CHECK_INT(chmod(path, 0664), 0);
	CHECK_INT(chown(path, 65534, 65534), 0);
	CHECK_INT(chown(root, 65534, 65534), 0);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "PHASE:done\n");
	CHECK_INT(file_exists(path), 1);
	CHECK_INT(file_trusted(path), 1);
	/* Writable by others: refused still. */
	CHECK_INT(chmod(path, 0666), 0);
	CHECK_INT(file_trusted(path), 0);
	/* Its files in the run directory's root are no claims. */
	CHECK_INT(file_read(root, 100, &b), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(file_exists(root), 0);
	/* Another user's file in the session directory: refused. */
	CHECK_INT(chmod(path, 0644), 0);
	CHECK_INT(chown(path, 65533, 65533), 0);
	CHECK_INT(file_trusted(path), 0);
	CHECK_INT(chown(path, 65534, 65534), 0);
	CHECK_INT(file_remove(path), 0);
	CHECK_INT(access(path, F_OK), -1);
	/* A worktree, group-writable: there; not so elsewhere. */
	CHECK_INT(mkdir(at("rc/p-worktree-1"), 0770), 0);
	CHECK_INT(chmod(at("rc/p-worktree-1"), 02770), 0);
	CHECK_INT(file_exists(at("rc/p-worktree-1")), 1);
	CHECK_INT(mkdir(at("rc/other"), 0770), 0);
	CHECK_INT(chmod(at("rc/other"), 0770), 0);
	CHECK_INT(file_exists(at("rc/other")), 0);
	CHECK_INT(rmdir(at("rc/other")), 0);
	CHECK_INT(rmdir(at("rc/p-worktree-1")), 0);
	file_claims(NULL, 0);
	file_private_dir(NULL);
	buf_free(&b);
	CHECK_INT(unlink(root), 0);
	CHECK_INT(rmdir(at("rc/sessions/active/S")), 0);
	CHECK_INT(rmdir(sess), 0);
	CHECK_INT(rmdir(at("rc/sessions")), 0);
	CHECK_INT(rmdir(top), 0);
}

/* The run directory: made 0700, or refused with a reason. */
static void
test_mkdir_private(void)
{
	char sub[PATH_MAX], why[512];
	struct stat st;
	mode_t mask = umask(0);

	snprintf(sub, sizeof(sub), "%s", at("rd"));
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), 0);
	CHECK_INT(lstat(sub, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0700);
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), 0);
	CHECK_INT(chmod(sub, 0755), 0);
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), -1);
	CHECK(strstr(why, "has mode 0755") != NULL);
	/* Passed through only: AGENT_SANDBOX=user. */
	CHECK_INT(chmod(sub, 0711), 0);
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), 0);
	CHECK_INT(chmod(sub, 01777), 0);
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), -1);
	CHECK_INT(rmdir(sub), 0);
	CHECK_INT(symlink(dir, sub), 0);
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), -1);
	CHECK(strstr(why, "is a symlink") != NULL);
	CHECK_INT(unlink(sub), 0);
	put(sub, "x");
	CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), -1);
	CHECK(strstr(why, "not a directory") != NULL);
	CHECK_INT(unlink(sub), 0);
	if (geteuid() == 0) {
		CHECK_INT(mkdir(sub, 0700), 0);
		CHECK_INT(chown(sub, 65534, 65534), 0);
		CHECK_INT(file_mkdir_private(sub, why, sizeof(why)), -1);
		CHECK(strstr(why, "belongs to uid 65534") != NULL);
		CHECK_INT(rmdir(sub), 0);
	} else
		printf("# skip: only root can make a directory of another "
		       "user\n");
	umask(mask);
}

/* Nothing else may be left in the directory. */
static void
test_nothing_left(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int left = 0;

	while (d != NULL && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			printf("#   left: %s\n", de->d_name);
			left++;
		}
	if (d != NULL)
		closedir(d);
	CHECK_INT(left, 0);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_read_regular);
	RUN(test_read_refused);
	RUN(test_writes_refused);
	RUN(test_owner);
	RUN(test_create_and_touch);
	RUN(test_refusal_logged_once);
	RUN(test_private_dir);
	RUN(test_private_other_user);
	RUN(test_claims);
	RUN(test_mkdir_private);
	RUN(test_nothing_left);
	rmdir(dir);
	return check_main();
}
