/*
 * Unit tests for common/run/parked.c: a parked record and a reply record
 * written and read back, a reply for another escalation not taken, and
 * records that are missing or not in their form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "file.h"
#include "parked.h"

static char dir[] = "/tmp/test_parked.XXXXXX";

static char *
path_of(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void
put(const char *name, const char *text)
{
	CHECK_INT(file_write_atomic(path_of(name), text, strlen(text), 0644, 0),
	    0);
}

static void
test_parked_round_trip(void)
{
	struct parked p, q;
	char *text;

	memset(&p, 0, sizeof(p));
	snprintf(p.id, sizeof(p.id), "0b5c-42");
	p.at = 1700000000;
	snprintf(p.worktree, sizeof(p.worktree), "/run/harb-worktree-4");
	snprintf(p.reason, sizeof(p.reason), "two\nlines");
	text = parked_text(&p);
	put("parked", text);
	free(text);
	CHECK_INT(parked_read(path_of("parked"), &q), 1);
	CHECK_STR(q.id, "0b5c-42");
	CHECK_INT(q.at, 1700000000);
	CHECK_STR(q.worktree, "/run/harb-worktree-4");
	/* The reason is kept on one line: it cannot add a key. */
	CHECK_STR(q.reason, "two lines");
}

static void
test_parked_bad(void)
{
	struct parked q;

	CHECK_INT(parked_read(path_of("missing"), &q), 0);
	put("noid", "AT: 5\nWORKTREE: /w\n");
	CHECK_INT(parked_read(path_of("noid"), &q), -1);
	put("noat", "ID: x\nAT: soon\nWORKTREE: /w\n");
	CHECK_INT(parked_read(path_of("noat"), &q), -1);
	put("noreason", "ID: x\nAT: 5\nWORKTREE: /w\n");
	CHECK_INT(parked_read(path_of("noreason"), &q), 1);
	CHECK_STR(q.reason, "");
}

static void
test_reply(void)
{
	char *text, *key, *body;

	text = parked_reply_text("reply 7 5 00ff", 5, "Use sqlite.\n\nThanks.");
	put("reply", text);
	free(text);
	CHECK_INT(parked_reply_read(path_of("reply"), 5, &key, &body), 1);
	CHECK_STR(key, "reply 7 5 00ff");
	CHECK_STR(body, "Use sqlite.\n\nThanks.");
	free(key);
	free(body);
	/* A reply to another escalation of the issue is not this one's. */
	CHECK_INT(parked_reply_read(path_of("reply"), 6, &key, &body), 0);
	CHECK(key == NULL && body == NULL);
	CHECK_INT(parked_reply_read(path_of("missing"), 5, &key, &body), 0);
	put("nobody", "KEY: k\nAT: 5\n");
	CHECK_INT(parked_reply_read(path_of("nobody"), 5, &key, &body), -1);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_parked_round_trip);
	RUN(test_parked_bad);
	RUN(test_reply);
	(void)unlink(path_of("parked"));
	(void)unlink(path_of("noid"));
	(void)unlink(path_of("noat"));
	(void)unlink(path_of("noreason"));
	(void)unlink(path_of("reply"));
	(void)unlink(path_of("nobody"));
	(void)rmdir(dir);
	return check_main();
}
