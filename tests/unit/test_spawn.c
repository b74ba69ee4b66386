/*
 * Unit tests for common/base/spawn.c: exit codes, capture and its cap,
 * timeouts, cwd, environment, literal argv and descriptor hygiene.
 */
#include <sys/stat.h>

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
#include "spawn.h"

static char tmpdir[] = "/tmp/test-spawn-XXXXXX";

static long long
elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000LL +
	    (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void
test_exit_codes(void)
{
	char *t[] = {"true", NULL};
	char *f[] = {"sh", "-c", "exit 3", NULL};
	char *sig[] = {"sh", "-c", "kill -TERM $$", NULL};
	char *missing[] = {"/nonexistent/program", NULL};
	unsigned long before = spawn_count();
	int st;

	CHECK_INT(spawn_run(t, NULL, NULL, &st), 0);
	CHECK_INT(st, 0);
	CHECK_INT((long)(spawn_count() - before), 1);
	CHECK_INT(spawn_run(f, NULL, NULL, &st), 0);
	CHECK_INT(st, 3);
	CHECK_INT(spawn_run(sig, NULL, NULL, &st), 0);
	CHECK_INT(st, 128 + SIGTERM);
	CHECK_INT(spawn_run(missing, NULL, NULL, &st), 0);
	CHECK_INT(st, 127);
	CHECK_INT(spawn_run(missing + 1, NULL, NULL, &st), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(spawn_detached(missing + 1, NULL, NULL, NULL), -1);
	CHECK_INT(errno, EINVAL);
}

static void
test_capture(void)
{
	char *both[] = {"sh", "-c", "echo out; echo err >&2; echo out2", NULL};
	struct buf b;
	int st;

	buf_init(&b, 0);
	CHECK_INT(spawn_run(both, NULL, &b, &st), 0);
	CHECK_INT(st, 0);
	CHECK_STR(buf_str(&b), "out\nerr\nout2\n");
	buf_free(&b);
}

static void
test_literal_argv(void)
{
	static const char *args[] = {
	    "two words",
	    "it's \"quoted\"",
	    "$(touch /tmp/pwned)",
	    "`id`",
	    "$HOME ${PATH}",
	    "a;b|c&d>e",
	    "tab\there\nnewline",
	    "",
	    "*",
	};
	char *argv[] = {"printf", "%s", NULL, NULL};
	struct buf b;
	size_t i;
	int st;

	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		buf_init(&b, 0);
		argv[2] = (char *)args[i];
		CHECK_INT(spawn_run(argv, NULL, &b, &st), 0);
		CHECK_INT(st, 0);
		CHECK_STR(buf_str(&b), args[i]);
		buf_free(&b);
	}
}

static void
test_cap(void)
{
	char *p[] = {"printf", "%s", "0123456789abcdef", NULL};
	char *big[] = {"head", "-c", "1000000", "/dev/zero", NULL};
	struct buf b;
	int st;

	buf_init(&b, 10);
	CHECK_INT(spawn_run(p, NULL, &b, &st), 0);
	CHECK_STR(buf_str(&b), "0123456789");
	buf_free(&b);
	/* The child must not block on a full pipe once the cap is hit. */
	buf_init(&b, 100);
	CHECK_INT(spawn_run(big, NULL, &b, &st), 0);
	CHECK_INT(st, 0);
	CHECK_INT(b.len, 100);
	buf_free(&b);
}

static void
test_timeout(void)
{
	char *s[] = {"sleep", "30", NULL};
	struct spawn_opts o = {.timeout_s = 1};
	struct timespec t0;
	struct buf b;
	int st;

	buf_init(&b, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	CHECK_INT(spawn_run(s, &o, &b, &st), -1);
	CHECK_INT(errno, ETIMEDOUT);
	CHECK_INT(st, 128 + SIGTERM);
	CHECK(elapsed_ms(&t0) < 3000);
	CHECK(elapsed_ms(&t0) >= 1000);
	buf_free(&b);
}

static void
test_timeout_kill(void)
{
	/* Ignores SIGTERM (and so does its sleep): needs the SIGKILL. */
	char *s[] = {"sh", "-c", "trap '' TERM; sleep 30; echo survived", NULL};
	struct spawn_opts o = {.timeout_s = 1, .grace_ms = 300};
	struct timespec t0;
	struct buf b;
	int st;

	buf_init(&b, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(spawn_run(s, &o, &b, &st), -1);
	CHECK_INT(errno, ETIMEDOUT);
	CHECK_INT(st, 128 + SIGKILL);
	CHECK_STR(buf_str(&b), "");
	CHECK(elapsed_ms(&t0) < 3000);
	buf_free(&b);
}

static void
test_grandchild_holds_pipe(void)
{
	/* The child exits at once; its background sleep keeps the pipe. */
	char *s[] = {"sh", "-c", "sleep 3 & echo hi", NULL};
	struct timespec t0;
	struct buf b;
	int st;

	buf_init(&b, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(spawn_run(s, NULL, &b, &st), 0);
	CHECK_INT(st, 0);
	CHECK_STR(buf_str(&b), "hi\n");
	CHECK(elapsed_ms(&t0) < 1500);
	buf_free(&b);
}

static void
test_cwd(void)
{
	char *pwd[] = {"pwd", "-P", NULL};
	struct spawn_opts o = {.cwd = tmpdir};
	char real[PATH_MAX], *want;
	struct buf b;
	int st;

	CHECK(realpath(tmpdir, real) != NULL);
	want = malloc(strlen(real) + 2);
	sprintf(want, "%s\n", real);
	buf_init(&b, 0);
	CHECK_INT(spawn_run(pwd, &o, &b, &st), 0);
	CHECK_INT(st, 0);
	CHECK_STR(buf_str(&b), want);
	buf_free(&b);
	/* A missing cwd is a failure to start. */
	o.cwd = "/nonexistent/dir";
	CHECK_INT(spawn_run(pwd, &o, NULL, &st), 0);
	CHECK_INT(st, 127);
	free(want);
}

static void
test_env(void)
{
	const char *add[] = {"SPAWN_TEST_A=hello world", "HOME=/elsewhere",
	    NULL};
	char *pe[] = {"printenv", "SPAWN_TEST_A", NULL};
	char *home[] = {"sh", "-c", "env | grep -c '^HOME='; echo $HOME", NULL};
	struct spawn_opts o = {.env_add = add};
	struct buf b;
	int st;

	buf_init(&b, 0);
	CHECK_INT(spawn_run(pe, &o, &b, &st), 0);
	CHECK_INT(st, 0);
	CHECK_STR(buf_str(&b), "hello world\n");
	buf_reset(&b);
	CHECK_INT(spawn_run(home, &o, &b, &st), 0);
	CHECK_STR(buf_str(&b), "1\n/elsewhere\n");
	buf_reset(&b);
	/* Not set in our own environment. */
	CHECK(getenv("SPAWN_TEST_A") == NULL);
	CHECK_INT(spawn_run(pe, NULL, &b, &st), 0);
	CHECK_INT(st, 1);
	buf_free(&b);
}

static void
test_no_fd_leak(void)
{
	char *ls[] = {"ls", "/proc/self/fd", NULL};
	struct buf b;
	int fd, st;

	/* Deliberately not O_CLOEXEC. */
	fd = open("/dev/null", O_RDONLY);
	CHECK(fd != -1);
	CHECK(dup2(fd, 42) == 42);
	buf_init(&b, 0);
	CHECK_INT(spawn_run(ls, NULL, &b, &st), 0);
	/* 0-2 and ls's own handle on the directory, nothing else. */
	CHECK_STR(buf_str(&b), "0\n1\n2\n3\n");
	buf_free(&b);
	close(42);
	close(fd);
}

static void
test_stdin_devnull(void)
{
	char *cat[] = {"cat", NULL};
	struct buf b;
	int st;

	buf_init(&b, 0);
	CHECK_INT(spawn_run(cat, NULL, &b, &st), 0);
	CHECK_INT(st, 0);
	CHECK_STR(buf_str(&b), "");
	buf_free(&b);
}

/* Wait until path contains needle (up to 5 s); returns the contents. */
static char *
wait_for(const char *path, const char *needle)
{
	char *data = NULL;
	int i;

	for (i = 0; i < 100; i++) {
		FILE *fp = fopen(path, "r");
		size_t n;

		if (fp != NULL) {
			free(data);
			data = calloc(1, 65536);
			n = fread(data, 1, 65535, fp);
			data[n] = '\0';
			fclose(fp);
			if (strstr(data, needle) != NULL)
				return data;
		}
		usleep(50000);
	}
	return data;
}

static void
test_detached(void)
{
	char *argv[] = {"sh", "-c",
	    "cat /proc/self/stat; echo; grep SigIgn /proc/self/status; "
	    "ls /proc/self/fd | tr '\\n' ' '; echo; pwd -P; echo end",
	    NULL};
	char log[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 8], *data, *p;
	long ppid = -1, sid = -1;
	unsigned long long ign = 0;
	pid_t pid = 0;
	FILE *fp;
	int fd;

	snprintf(log, sizeof(log), "%s/detached.log", tmpdir);
	fp = fopen(log, "w");
	fputs("old line\n", fp);
	fclose(fp);
	fd = open("/dev/null", O_RDONLY);
	CHECK(dup2(fd, 43) == 43);
	CHECK_INT(spawn_detached(argv, tmpdir, log, &pid), 0);
	CHECK(pid > 0);
	data = wait_for(log, "end\n");
	CHECK(data != NULL && strncmp(data, "old line\n", 9) == 0);
	p = data != NULL ? strrchr(data, ')') : NULL;
	CHECK(p != NULL && sscanf(p, ") %*c %ld %*d %ld", &ppid, &sid) == 2);
	CHECK(ppid != (long)getpid());
	CHECK(sid != (long)getsid(0));
	p = data != NULL ? strstr(data, "SigIgn:") : NULL;
	CHECK(p != NULL && sscanf(p, "SigIgn: %llx", &ign) == 1);
	CHECK((ign & (1ULL << (SIGHUP - 1))) != 0);
	CHECK(data != NULL && strstr(data, "\n0 1 2 3 \n") != NULL);
	CHECK(realpath(tmpdir, real) != NULL);
	snprintf(want, sizeof(want), "\n%s\nend\n", real);
	CHECK(data != NULL && strstr(data, want) != NULL);
	free(data);
	close(43);
	close(fd);
}

static void
test_detached_failures(void)
{
	char *missing[] = {"/nonexistent/program", NULL};
	char *t[] = {"true", NULL};
	pid_t pid = 0;

	errno = 0;
	CHECK_INT(spawn_detached(missing, NULL, NULL, &pid), -1);
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK_INT(spawn_detached(t, "/nonexistent/dir", NULL, &pid), -1);
	CHECK_INT(errno, ENOENT);
	errno = 0;
	CHECK_INT(spawn_detached(t, NULL, "/nonexistent/dir/log", &pid), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_INT(spawn_detached(t, NULL, NULL, NULL), 0);
}

static void
cleanup(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/detached.log", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_exit_codes);
	RUN(test_capture);
	RUN(test_literal_argv);
	RUN(test_cap);
	RUN(test_timeout);
	RUN(test_timeout_kill);
	RUN(test_grandchild_holds_pipe);
	RUN(test_cwd);
	RUN(test_env);
	RUN(test_no_fd_leak);
	RUN(test_stdin_devnull);
	RUN(test_detached);
	RUN(test_detached_failures);
	cleanup();
	return check_main();
}
