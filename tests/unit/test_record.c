/*
 * Unit tests for common/run/record.c: "KEY: value" headers as the CI result,
 * the review launch record and the escalation state files use them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "record.h"

static void
test_get(void)
{
	const char *text = "SHA: abc123\nSTATE:failure \r\nEMPTY:\n"
			   "ATTEMPT: 2\n\nSHA: injected text\n";
	char v[16];
	long long n;

	CHECK_INT(record_get(text, "SHA:", v, sizeof(v)), 0);
	CHECK_STR(v, "abc123");
	CHECK_INT(record_get(text, "STATE:", v, sizeof(v)), 0);
	CHECK_STR(v, "failure");
	CHECK_INT(record_get(text, "EMPTY:", v, sizeof(v)), 0);
	CHECK_STR(v, "");
	CHECK_INT(record_get_ll(text, "ATTEMPT:", &n), 0);
	CHECK_INT(n, 2);
	/* Missing, not at a line start, after the header, too long. */
	CHECK_INT(record_get(text, "PIPELINE:", v, sizeof(v)), -1);
	CHECK_INT(record_get("X SHA: 1\n", "SHA:", v, sizeof(v)), -1);
	CHECK_INT(record_get("\nSHA: 1\n", "SHA:", v, sizeof(v)), -1);
	CHECK_INT(record_get("SHA: 0123456789abcdef\n", "SHA:", v, 8), -1);
	/* Numbers. */
	CHECK_INT(record_get_ll("N: 12x\n", "N:", &n), -1);
	CHECK_INT(record_get_ll("N:\n", "N:", &n), -1);
	CHECK_INT(record_get_ll("N: -3\n", "N:", &n), 0);
	CHECK_INT(n, -3);
	/* A key needs its whole name: "SHA:" is not "SHAX:". */
	CHECK_INT(record_get("SHAX: 1\n", "SHA:", v, sizeof(v)), -1);
}

static void
test_read(void)
{
	char path[] = "/tmp/test-record-XXXXXX", v[64];
	struct buf b;
	FILE *f;
	int fd, i;

	fd = mkstemp(path);
	CHECK(fd != -1);
	f = fdopen(fd, "w");
	fprintf(f, "SHA: feedface\nSTATE: success\n\n");
	/* A record longer than RECORD_MAX still has its header. */
	for (i = 0; i < RECORD_MAX; i++)
		fputc('x', f);
	fclose(f);
	CHECK_INT(record_read(path, "STATE:", v, sizeof(v)), 0);
	CHECK_STR(v, "success");
	buf_init(&b, 0);
	CHECK_INT(record_load(path, &b), 0);
	CHECK_INT(record_get(buf_str(&b), "SHA:", v, sizeof(v)), 0);
	CHECK_STR(v, "feedface");
	buf_free(&b);
	unlink(path);
	CHECK_INT(record_read(path, "SHA:", v, sizeof(v)), -1);
}

int
main(void)
{
	RUN(test_get);
	RUN(test_read);
	return check_main();
}
