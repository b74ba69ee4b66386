/*
 * Unit tests for common/tick/wake.c: a wake written is taken once with
 * its reason (cleaned, bounded); none is taken when there is none; a wake
 * written while one is being taken stays; the wake file's name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "file.h"
#include "runfiles.h"
#include "wake.h"
#include "xmalloc.h"

static char dir[] = "/tmp/test_wake.XXXXXX";

static void
test_wake_note_take(void)
{
	char *path = xasprintf("%s/dev-poll-harb.wake", dir), reason[200];

	CHECK_INT(wake_pending(path), 0);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 0);
	CHECK_INT(wake_note(path, "stop hook dev-harb-42"), 0);
	CHECK_INT(wake_pending(path), 1);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 1);
	CHECK_STR(reason, "stop hook dev-harb-42");
	CHECK_INT(wake_pending(path), 0);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 0);
	/* Coalesced: the last reason of many is the one taken, once. */
	CHECK_INT(wake_note(path, "one"), 0);
	CHECK_INT(wake_note(path, "two"), 0);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 1);
	CHECK_STR(reason, "two");
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 0);
	free(path);
}

static void
test_wake_reason_clean(void)
{
	char *path = xasprintf("%s/w.wake", dir), reason[300], longer[400];

	CHECK_INT(wake_note(path, "a\nb\x1b[31mc\td"), 0);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 1);
	CHECK_STR(reason, "ab[31mcd");
	CHECK_INT(wake_note(path, NULL), 0);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 1);
	CHECK_STR(reason, "wake");
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	CHECK_INT(wake_note(path, longer), 0);
	CHECK_INT(wake_take(path, reason, sizeof(reason)), 1);
	CHECK_INT(strlen(reason), WAKE_REASON_MAX);
	/* A small buffer is never overrun. */
	CHECK_INT(wake_note(path, "abcdefgh"), 0);
	CHECK_INT(wake_take(path, reason, 4), 1);
	CHECK_STR(reason, "abc");
	free(path);
}

static void
test_wake_names(void)
{
	char *s;

	runfiles_init("/run/d", "/factory");
	s = runfiles_wake("dev-poll", "harb");
	CHECK_STR(s, "/run/d/dev-poll-harb.wake");
	free(s);
	s = runfiles_wake("supervisor-poll", NULL);
	CHECK_STR(s, "/run/d/supervisor-poll.wake");
	free(s);
	s = runfiles_wake("review-poll", "");
	CHECK_STR(s, "/run/d/review-poll.wake");
	free(s);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_wake_note_take);
	RUN(test_wake_reason_clean);
	RUN(test_wake_names);
	(void)rmdir(dir);
	return check_main();
}
