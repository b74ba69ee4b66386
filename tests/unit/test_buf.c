/*
 * Tests for the buffer, allocation and file helpers.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "buf.h"
#include "file.h"
#include "xmalloc.h"

static void
test_buf_cap(void)
{
	struct buf b;

	buf_init(&b, 8);
	CHECK_INT(buf_puts(&b, "12345"), 0);
	CHECK_INT(buf_puts(&b, "6789"), -1);
	CHECK_STR(buf_str(&b), "12345");
	CHECK_INT(buf_printf(&b, "%d", 678), 0);
	CHECK_STR(buf_str(&b), "12345678");
	CHECK_INT(b.len, 8);
	buf_free(&b);
	CHECK_STR(buf_str(&b), "");
}

static void
test_buf_grow_steal(void)
{
	struct buf b;
	char *s;
	int i;

	buf_init(&b, 0);
	for (i = 0; i < 1000; i++)
		buf_printf(&b, "%03d", i);
	CHECK_INT(b.len, 3000);
	CHECK(strncmp(buf_str(&b) + 2997, "999", 3) == 0);
	s = buf_steal(&b);
	CHECK_INT(strlen(s), 3000);
	CHECK(b.data == NULL);
	free(s);
}

static void
test_file_atomic(void)
{
	char dir[] = "/tmp/test_buf.XXXXXX", *path, *link;
	struct buf b;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/f", dir);
	link = xasprintf("%s/l", dir);
	buf_init(&b, 0);
	CHECK_INT(file_write_atomic(path, "hello\n", 6, 0600, 1), 0);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "hello\n");
	buf_reset(&b);
	CHECK_INT(file_read(path, 3, &b), 1);
	CHECK_STR(buf_str(&b), "hel");
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	/* A symlink at the destination is refused, never followed. */
	CHECK_INT(symlink(path, link), 0);
	CHECK_INT(file_write_atomic(link, "x", 1, 0644, 0), -1);
	buf_reset(&b);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "hello\n");
	CHECK_INT(file_create_excl(path, "y", 0600), 1);
	CHECK_INT(file_remove(path), 0);
	CHECK_INT(file_remove(path), 0);
	CHECK_INT(file_exists(path), 0);
	CHECK_INT(file_create_excl(path, "y", 0600), 0);
	CHECK_INT(file_exists(path), 1);
	buf_reset(&b);
	CHECK_INT(file_read(link, 10, &b), -1);
	CHECK_STR(buf_str(&b), "");
	unlink(path);
	unlink(link);
	rmdir(dir);
	buf_free(&b);
	free(path);
	free(link);
}

static void
test_mkdirs(void)
{
	char dir[] = "/tmp/test_buf.XXXXXX", *deep;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	deep = xasprintf("%s/a/b/c", dir);
	CHECK_INT(file_mkdirs(deep, 0755), 0);
	CHECK_INT(file_mkdirs(deep, 0755), 0);
	CHECK_INT(stat(deep, &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	rmdir(deep);
	free(deep);
	deep = xasprintf("%s/a/b", dir);
	rmdir(deep);
	free(deep);
	deep = xasprintf("%s/a", dir);
	rmdir(deep);
	free(deep);
	rmdir(dir);
}

static void
test_append_line(void)
{
	char dir[] = "/tmp/test_buf.XXXXXX", *path, *link;
	struct buf b;

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/a/b/log.jsonl", dir);
	link = xasprintf("%s/link", dir);
	buf_init(&b, 0);
	CHECK_INT(file_append_line(path, "{\"n\": 1}"), 0);
	CHECK_INT(file_append_line(path, "{\"n\": 2}"), 0);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_STR(buf_str(&b), "{\"n\": 1}\n{\"n\": 2}\n");
	/* A symlink in place of the file is refused, its target untouched. */
	CHECK_INT(symlink(path, link), 0);
	CHECK_INT(file_append_line(link, "x"), -1);
	buf_reset(&b);
	CHECK_INT(file_read(path, 100, &b), 0);
	CHECK_INT(b.len, 18);
	unlink(link);
	unlink(path);
	free(path);
	path = xasprintf("%s/a/b", dir);
	rmdir(path);
	free(path);
	path = xasprintf("%s/a", dir);
	rmdir(path);
	rmdir(dir);
	free(path);
	free(link);
	buf_free(&b);
}

int
main(void)
{
	RUN(test_buf_cap);
	RUN(test_buf_grow_steal);
	RUN(test_file_atomic);
	RUN(test_mkdirs);
	RUN(test_append_line);
	return check_main();
}
