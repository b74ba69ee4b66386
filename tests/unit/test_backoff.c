/*
 * Tests for the launch back-off record (common/run/backoff.c): the schedule
 * (10 minutes, doubled, at most 6 hours), the record's text read back,
 * and a reason made one printable line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backoff.h"
#include "check.h"
#include "file.h"

static char dir[] = "/tmp/test_backoff.XXXXXX";

static void
test_backoff_delay(void)
{
	CHECK_INT(backoff_delay(1), 600);
	CHECK_INT(backoff_delay(2), 1200);
	CHECK_INT(backoff_delay(3), 2400);
	CHECK_INT(backoff_delay(6), 19200);
	CHECK_INT(backoff_delay(7), BACKOFF_MAX_S);
	CHECK_INT(backoff_delay(1000000), BACKOFF_MAX_S);
	CHECK_INT(backoff_delay(0), 600);
}

static void
test_backoff_record(void)
{
	char path[256], *text;
	struct backoff b, r;

	snprintf(path, sizeof(path), "%s/dev-backoff-p-3", dir);
	CHECK_INT(backoff_read(path, &r), 0);
	CHECK_INT(r.failures, 0);
	memset(&b, 0, sizeof(b));
	backoff_fail(&b, 1000, "its comments\ncannot be read");
	CHECK_INT(b.failures, 1);
	CHECK_INT(b.next, 1600);
	CHECK_STR(b.reason, "its comments\\ncannot be read");
	backoff_fail(&b, 2000, "again");
	CHECK_INT(b.failures, 2);
	CHECK_INT(b.next, 3200);
	text = backoff_text(&b);
	CHECK_STR(text, "FAILURES: 2\nNEXT: 3200\nREASON: again\n");
	CHECK_INT(file_write_atomic(path, text, strlen(text), 0644, 0), 0);
	free(text);
	CHECK_INT(backoff_read(path, &r), 0);
	CHECK_INT(r.failures, 2);
	CHECK_INT(r.next, 3200);
	CHECK_STR(r.reason, "again");
	unlink(path);
}

static void
test_backoff_long_reason(void)
{
	char reason[1000];
	struct backoff b;

	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	memset(&b, 0, sizeof(b));
	backoff_fail(&b, 0, reason);
	CHECK(strlen(b.reason) < sizeof(b.reason));
	CHECK(strstr(b.reason, "bytes cut]") != NULL);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_backoff_delay);
	RUN(test_backoff_record);
	RUN(test_backoff_long_reason);
	rmdir(dir);
	return check_main();
}
