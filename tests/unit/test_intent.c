/*
 * Tests for a session's record of messages (common/run/intent.c): written
 * and read back (key, tries, time, stamp, delivered keys, the text), a
 * delivered key joins the list (the oldest go past INTENT_DONE_MAX), a
 * key is one line, a record that is not one is an error, the lock.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "file.h"
#include "intent.h"
#include "runfiles.h"

static char dir[] = "/tmp/test_intent.XXXXXX";

static void
test_intent_roundtrip(void)
{
	struct intent in, back;
	char path[300];
	struct stat st;

	CHECK_INT(intent_load("s", &in), 0);
	CHECK_STR(in.key, "");
	CHECK(in.text == NULL);
	CHECK_INT(in.ndone, 0);
	intent_pend(&in, "ci abc success 0", "CI passed.\n\nline 2\n", 1000);
	in.tries = 2;
	in.stamp = 3;
	CHECK_INT(intent_save("s", &in), 0);
	snprintf(path, sizeof(path), "%s/agent-s.intent", dir);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(intent_load("s", &back), 0);
	CHECK_STR(back.key, "ci abc success 0");
	CHECK_INT(back.tries, 2);
	CHECK_INT(back.at, 1000);
	CHECK_INT(back.stamp, 3);
	CHECK_STR(back.text, "CI passed.\n\nline 2\n");
	CHECK_INT(intent_was_delivered(&back, "ci abc success 0"), 0);
	intent_delivered(&back);
	CHECK_STR(back.key, "");
	CHECK_INT(intent_was_delivered(&back, "ci abc success 0"), 1);
	CHECK_INT(intent_save("s", &back), 0);
	intent_free(&back);
	CHECK_INT(intent_load("s", &back), 0);
	CHECK_INT(intent_was_delivered(&back, "ci abc success 0"), 1);
	CHECK(back.text == NULL);
	intent_free(&back);
	intent_free(&in);
	CHECK_INT(intent_forget("s"), 0);
	CHECK_INT(intent_load("s", &in), 0);
	CHECK_INT(in.ndone, 0);
	intent_free(&in);
	CHECK_INT(intent_forget("s"), 0);
}

static void
test_intent_done_max(void)
{
	struct intent in;
	char key[32];
	int i;

	memset(&in, 0, sizeof(in));
	for (i = 0; i < INTENT_DONE_MAX + 5; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		intent_pend(&in, key, "t", 0);
		intent_delivered(&in);
	}
	CHECK_INT(in.ndone, INTENT_DONE_MAX);
	CHECK_INT(intent_was_delivered(&in, "k4"), 0);
	CHECK_INT(intent_was_delivered(&in, "k5"), 1);
	CHECK_INT(intent_was_delivered(&in, "k36"), 1);
	/* A key is one line. */
	intent_pend(&in, "two\nlines", "t", 0);
	CHECK_STR(in.key, "two");
	intent_free(&in);
}

static void
test_intent_garbage(void)
{
	char path[300];
	struct intent in;
	int fd, fd2;

	snprintf(path, sizeof(path), "%s/agent-g.intent", dir);
	CHECK_INT(file_write_atomic(path, "hello\n\n", 7, 0600, 0), 0);
	CHECK_INT(intent_load("g", &in), -1);
	CHECK_INT(errno, EINVAL);
	intent_free(&in);
	unlink(path);
	CHECK_INT(intent_lock("g", &fd), 0);
	CHECK_INT(intent_lock("g", &fd2), 1);
	intent_unlock(fd);
	CHECK_INT(intent_lock("g", &fd2), 0);
	intent_unlock(fd2);
	snprintf(path, sizeof(path), "%s/agent-g.intent-lock", dir);
	unlink(path);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	runfiles_init(dir, dir);
	RUN(test_intent_roundtrip);
	RUN(test_intent_done_max);
	RUN(test_intent_garbage);
	rmdir(dir);
	return check_main();
}
