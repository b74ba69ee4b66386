/*
 * Unit tests for common/base/log.c: the line format, that whatever is logged
 * stays one printable line of bounded length, and that no secret the
 * masker knows is written.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "file.h"
#include "log.h"
#include "redact.h"

static char dir[] = "/tmp/test-log-XXXXXX";
static char path[64], status[64];

/* The log's lines with the "[timestamp] " cut off, each ending in LF. */
static char *
logged(const char *file)
{
	struct buf b, out;
	const char *p, *nl;

	buf_init(&b, 0);
	buf_init(&out, 0);
	(void)file_read(file, 1 << 20, &b);
	for (p = buf_str(&b); *p != '\0'; p = nl + 1) {
		const char *body = strstr(p, "] ");

		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if (body == NULL || body > nl || *p != '[')
			buf_puts(&out, "BAD LINE\n");
		else
			buf_append(&out, body + 2, (size_t)(nl - body - 1));
	}
	buf_free(&b);
	return buf_steal(&out);
}

static void
test_format(void)
{
	char *got;

	CHECK_INT(log_open(path, "poll: ", 0, 0), 0);
	log_msg("plain %d", 42);
	log_close();
	got = logged(path);
	CHECK_STR(got, "poll: plain 42\n");
	free(got);
	unlink(path);
}

/* No secret the masker knows reaches the log or the status file. */
static void
test_masked(void)
{
	char *got;

	redact_add("tok-0123456789abcdef");
	CHECK_INT(log_open(path, "", 0, 0), 0);
	log_msg("GET https://bot:pw-in-url@forge/x with tok-0123456789abcdef");
	log_err("%s", "tok-0123456789abcdef failed");
	CHECK_INT(log_status(status, "dev-poll", "a tok-0123456789abcdef"), 0);
	log_close();
	got = logged(path);
	CHECK_STR(got,
	    "GET https://bot:[REDACTED]@forge/x with [REDACTED]\n"
	    "[REDACTED] failed\na [REDACTED]\n");
	free(got);
	got = logged(status);
	CHECK_STR(got, "dev-poll: a [REDACTED]\n");
	free(got);
	redact_clear();
	unlink(path);
	unlink(status);
}

static void
test_printable(void)
{
	char *got;

	CHECK_INT(log_open(path, "", 0, 0), 0);
	/* A phase file's raw bytes, a forge title, a pane line. */
	log_msg("unknown phase '%s'", "PHASE:x\x1b]0;pwned\x07\r\nroot:x:0");
	log_msg("title '%s'",
	    "caf\xc3\xa9 \xff\xfe \xe2\x80\xae"
	    "evil");
	log_msg("tab\there, nel\xc2\x85, del\x7f");
	log_close();
	got = logged(path);
	CHECK_STR(got,
	    "unknown phase 'PHASE:x\\x1b]0;pwned\\x07\\r\\nroot:x:0'\n"
	    "title 'caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \\u202eevil'\n"
	    "tab\\there, nel\\u0085, del\\x7f\n");
	free(got);
	unlink(path);
}

static void
test_capped(void)
{
	size_t n = 100000;
	char *big = malloc(n + 1), *got;

	memset(big, 'a', n);
	big[n] = '\0';
	big[10] = '\n';
	CHECK_INT(log_open(path, "", 0, 0), 0);
	log_msg("body: %s", big);
	log_msg("next");
	log_close();
	got = logged(path);
	/* One line, cut at 4096 bytes of message, then "next". */
	CHECK(strchr(got, '\n') != NULL);
	CHECK_INT(strchr(got, '\n') - got,
	    4096 + strlen("...[95911 bytes cut]"));
	CHECK(strstr(got, "aaa...[95911 bytes cut]\nnext\n") != NULL);
	CHECK(strncmp(got, "body: aaaaaaaaaa\\naaa", 21) == 0);
	free(got);
	free(big);
	unlink(path);
}

static void
test_status(void)
{
	char *got;

	CHECK_INT(log_open(path, "", 0, 0), 0);
	CHECK_INT(log_status(status, "dev-poll", "#%d: %s", 3, "a\x1b[2Jb\nc"),
	    0);
	log_close();
	got = logged(status);
	CHECK_STR(got, "dev-poll: #3: a\\x1b[2Jb\\nc\n");
	free(got);
	got = logged(path);
	CHECK_STR(got, "#3: a\\x1b[2Jb\\nc\n");
	free(got);
	unlink(path);
	unlink(status);
}

/*
 * journald mode: the lines go to stderr with the priority prefix and no
 * timestamp, and the log file is not created.
 */
static void
test_stderr(void)
{
	char errpath[80];
	struct buf b;
	int fd, saved;

	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(STDERR_FILENO);
	CHECK(fd != -1 && saved != -1);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	log_use_stderr(1);
	CHECK_INT(log_open(path, "poll: ", 0, 1), 0);
	log_err("cannot merge #%d", 4);
	log_warn("skipped\na line");
	log_notice("merged #%d", 4);
	log_msg("tick done");
	log_close();
	log_use_stderr(0);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	buf_init(&b, 0);
	CHECK_INT(file_read(errpath, 4096, &b), 0);
	/* Once each, even with verbose set. */
	CHECK_STR(buf_str(&b),
	    "<3>poll: cannot merge #4\n"
	    "<4>poll: skipped\\na line\n"
	    "<5>poll: merged #4\n"
	    "<6>poll: tick done\n");
	CHECK(access(path, F_OK) == -1);
	buf_free(&b);
	unlink(errpath);
}

/*
 * A dry run: no log or status file is created, and the lines go to
 * stderr in the file's form, once each even with verbose set.
 */
static void
test_dry_run(void)
{
	char errpath[80], *got;
	int fd, saved;

	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(STDERR_FILENO);
	CHECK(fd != -1 && saved != -1);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	log_dry_run(1);
	CHECK(log_on_stderr());
	CHECK_INT(log_open(path, "poll: ", 0, 1), 0);
	log_msg("dry-run: would merge #%d", 4);
	CHECK_INT(log_status(status, "dev-poll", "#%d: claiming", 5), 0);
	log_close();
	log_dry_run(0);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	got = logged(errpath);
	CHECK_STR(got, "poll: dry-run: would merge #4\npoll: #5: claiming\n");
	free(got);
	CHECK(access(path, F_OK) == -1);
	CHECK(access(status, F_OK) == -1);
	CHECK(!log_on_stderr());
	unlink(errpath);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/test.log", dir);
	snprintf(status, sizeof(status), "%s/status", dir);
	RUN(test_format);
	RUN(test_masked);
	RUN(test_printable);
	RUN(test_capped);
	RUN(test_status);
	RUN(test_stderr);
	RUN(test_dry_run);
	rmdir(dir);
	return check_main();
}
