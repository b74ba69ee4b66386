/*
 * Tests for a session's mailbox (common/run/mailbox.c): messages queue in
 * order, a key is queued once, removal keeps the order and the file goes
 * when it empties, text of any bytes but NUL survives the round trip, a
 * file that is not a mailbox is an error, a busy lock is reported.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "file.h"
#include "lock.h"
#include "mailbox.h"
#include "runfiles.h"

static char dir[] = "/tmp/test_mailbox.XXXXXX";

static void
test_mailbox_order(void)
{
	struct mailbox mb;
	char path[300];
	struct stat st;

	CHECK_INT(mailbox_count("s"), 0);
	CHECK_INT(
	    mailbox_add("s", "ci abc failure 1", "CI failed.\n\nMSG 1 2\n"), 0);
	CHECK_INT(mailbox_add("s", "review abc", "Changes requested"), 0);
	CHECK_INT(mailbox_add("s", "ci abc failure 1", "another text"), 1);
	CHECK_INT(mailbox_add("s", "empty", ""), 0);
	CHECK_INT(mailbox_count("s"), 3);
	snprintf(path, sizeof(path), "%s/agent-s.mailbox", dir);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(mailbox_load("s", &mb), 0);
	CHECK_INT(mb.n, 3);
	CHECK_STR(mb.msgs[0].key, "ci abc failure 1");
	CHECK_STR(mb.msgs[0].text, "CI failed.\n\nMSG 1 2\n");
	CHECK_STR(mb.msgs[1].key, "review abc");
	CHECK_STR(mb.msgs[1].text, "Changes requested");
	CHECK_STR(mb.msgs[2].text, "");
	CHECK_INT(mailbox_find(&mb, "review abc"), 1);
	CHECK_INT(mailbox_find(&mb, "nope"), -1);
	mailbox_free(&mb);
	/* The middle one goes; the order of the others stays. */
	CHECK_INT(mailbox_remove("s", "review abc"), 0);
	CHECK_INT(mailbox_remove("s", "not there"), 0);
	CHECK_INT(mailbox_load("s", &mb), 0);
	CHECK_INT(mb.n, 2);
	CHECK_STR(mb.msgs[0].key, "ci abc failure 1");
	CHECK_STR(mb.msgs[1].key, "empty");
	mailbox_free(&mb);
	CHECK_INT(mailbox_remove("s", "ci abc failure 1"), 0);
	CHECK_INT(mailbox_remove("s", "empty"), 0);
	CHECK_INT(access(path, F_OK), -1);
	CHECK_INT(mailbox_count("s"), 0);
	CHECK_INT(mailbox_forget("s"), 0);
}

static void
test_mailbox_key_line(void)
{
	struct mailbox mb;

	/* A key is one line, as the record of messages keeps it. */
	CHECK_INT(mailbox_add("k", "two\nlines", "t"), 0);
	CHECK_INT(mailbox_add("k", "two", "t"), 1);
	CHECK_INT(mailbox_add("k", "\nno key", "t"), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(mailbox_load("k", &mb), 0);
	CHECK_INT(mb.n, 1);
	CHECK_STR(mb.msgs[0].key, "two");
	mailbox_free(&mb);
	CHECK_INT(mailbox_forget("k"), 0);
}

static void
test_mailbox_garbage(void)
{
	struct mailbox mb;
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/agent-g.mailbox", dir);
	CHECK_INT(file_write_atomic(path, "hello\n", 6, 0600, 0), 0);
	CHECK_INT(mailbox_load("g", &mb), -1);
	CHECK_INT(errno, EINVAL);
	mailbox_free(&mb);
	CHECK_INT(mailbox_count("g"), -1);
	CHECK_INT(mailbox_add("g", "k", "t"), -1);
	/* Lengths past the end of the file. */
	CHECK_INT(file_write_atomic(path, "MSG 1 50\nk\nshort\n", 17, 0600, 0),
	    0);
	CHECK_INT(mailbox_load("g", &mb), -1);
	mailbox_free(&mb);
	unlink(path);
	/* Another process holds the lock: reported, nothing queued. */
	snprintf(path, sizeof(path), "%s/agent-g.mailbox-lock", dir);
	CHECK_INT(lock_take(path, &fd), 0);
	CHECK_INT(mailbox_add("g", "k", "t"), -1);
	CHECK_INT(errno, EWOULDBLOCK);
	lock_release(fd);
	CHECK_INT(mailbox_count("g"), 0);
	CHECK_INT(mailbox_forget("g"), 0);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	runfiles_init(dir, dir);
	RUN(test_mailbox_order);
	RUN(test_mailbox_key_line);
	RUN(test_mailbox_garbage);
	rmdir(dir);
	return check_main();
}
