/*
 * Tests for the CI watcher's schedule (common/tick/ciwake.c: never more
 * often than the interval, a look of several requests paid for, failed
 * reads backed off to a bound) and its run files (common/run/ciwatch.c:
 * no watcher, one holding the lock with its record, a record of a dead
 * holder not taken for the new one's, everything gone at its end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ciwake.h"
#include "ciwatch.h"
#include "file.h"
#include "runfiles.h"

static char dir[] = "/tmp/test_ciwake.XXXXXX";

static void
test_delay(void)
{
	CHECK_INT(ciwake_delay(15, 1, 0), 15);
	CHECK_INT(ciwake_delay(15, 0, 0), 15);
	CHECK_INT(ciwake_delay(15, 2, 0), 30);
	CHECK_INT(ciwake_delay(15, 1, 1), 30);
	CHECK_INT(ciwake_delay(15, 1, 2), 60);
	CHECK_INT(ciwake_delay(15, 1, 3), 15 * CIWAKE_BACKOFF_MAX);
	CHECK_INT(ciwake_delay(15, 1, 100), 15 * CIWAKE_BACKOFF_MAX);
	CHECK_INT(ciwake_delay(1, 1, 0), 1);
	/* The budget's default: one request every 15 s at most. */
	CHECK_INT(CIWAKE_INTERVAL_S, 15);
}

static void
test_record(void)
{
	const char *sha = "0123456789abcdef0123456789abcdef01234567";
	char *path = runfiles_ci_watch("p", 7);
	char *lock = runfiles_ci_watch_lock("p", 7);
	struct ciwatch w;
	int fd = -1;

	CHECK_INT(ciwatch_find("p", 7, &w), 0);
	CHECK_INT(access(lock, F_OK), -1);
	CHECK_INT(ciwatch_take("p", 7, 0, &fd), 0);
	/* Held, its record not written yet: starting. */
	CHECK_INT(ciwatch_find("p", 7, &w), 1);
	CHECK_INT(w.pid, 0);
	CHECK_INT(ciwatch_note("p", 7, 12, sha, 1700000000), 0);
	CHECK_INT(ciwatch_find("p", 7, &w), 1);
	CHECK_INT(w.pid, getpid());
	CHECK_INT(w.pr, 12);
	CHECK_STR(w.sha, sha);
	CHECK_INT(w.since, 1700000000);
	CHECK_INT(ciwatch_is(&w, 12, sha), 1);
	CHECK_INT(ciwatch_is(&w, 13, sha), 0);
	CHECK_INT(ciwatch_is(&w, 12, "0123"), 0);
	ciwatch_release("p", 7, fd);
	CHECK_INT(access(path, F_OK), -1);
	CHECK_INT(access(lock, F_OK), -1);
	CHECK_INT(ciwatch_find("p", 7, &w), 0);
	free(lock);
	free(path);
}

/* A record left by a watcher that died names another PID. */
static void
test_stale_record(void)
{
	const char *old = "PID: 1\nPR: 3\nSHA: abcdef1\nSINCE: 5\n";
	char *path = runfiles_ci_watch("p", 8);
	struct ciwatch w;
	int fd = -1;

	CHECK_INT(file_write_atomic(path, old, strlen(old), 0644, 0), 0);
	CHECK_INT(ciwatch_find("p", 8, &w), 0);
	CHECK_INT(ciwatch_take("p", 8, 0, &fd), 0);
	CHECK_INT(ciwatch_find("p", 8, &w), 1);
	CHECK_INT(w.pid, 0);
	CHECK_INT(ciwatch_is(&w, 3, "abcdef1"), 0);
	ciwatch_release("p", 8, fd);
	CHECK_INT(access(path, F_OK), -1);
	free(path);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	runfiles_init(dir, dir);
	RUN(test_delay);
	RUN(test_record);
	RUN(test_stale_record);
	/* Every file the tests made is removed by them. */
	if (rmdir(dir) == -1)
		printf("#   files left in %s\n", dir);
	return check_main();
}
