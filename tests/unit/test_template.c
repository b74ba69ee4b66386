/*
 * Tests for prompt templates and string vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "file.h"
#include "strv.h"
#include "template.h"
#include "xmalloc.h"

static void
test_fill(void)
{
	const struct template_var vars[] = {
	    {"ISSUE", "42"},
	    {"TITLE", "fix {{ISSUE}} $(x)"},
	    {"EMPTY", NULL},
	};
	char *out = NULL, err[128];

	CHECK_INT(template_fill("#{{ISSUE}}: {{TITLE}}{{EMPTY}}.", vars, 3,
		      &out, err, sizeof(err)),
	    0);
	/* Values are inserted as they are, never expanded again. */
	CHECK_STR(out, "#42: fix {{ISSUE}} $(x).");
	free(out);
	CHECK_INT(template_fill("no placeholders { } }}", vars, 3, &out, err,
		      sizeof(err)),
	    0);
	CHECK_STR(out, "no placeholders { } }}");
	free(out);
	CHECK_INT(
	    template_fill("a {{NOPE}} b", vars, 3, &out, err, sizeof(err)), -1);
	CHECK_STR(err, "unknown placeholder '{{NOPE}}'");
	CHECK(out == NULL);
	CHECK_INT(template_fill("a {{ISSUE", vars, 3, &out, err, sizeof(err)),
	    -1);
	CHECK_STR(err, "unterminated placeholder '{{ISSUE'");
}

static void
test_render(void)
{
	char dir[] = "/tmp/test_template.XXXXXX", *path, *out = NULL;
	char err[256];
	const struct template_var vars[] = {{"X", "1"}};

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/t.md", dir);
	CHECK_INT(file_write_atomic(path, "x={{X}} {{Y}}\n", 14, 0644, 0), 0);
	CHECK_INT(template_render(dir, "t.md", vars, 1, &out, err, sizeof(err)),
	    -1);
	CHECK(strstr(err, "t.md: unknown placeholder '{{Y}}'") != NULL);
	CHECK_INT(file_write_atomic(path, "x={{X}}\n", 8, 0644, 0), 0);
	CHECK_INT(template_render(dir, "t.md", vars, 1, &out, err, sizeof(err)),
	    0);
	CHECK_STR(out, "x=1\n");
	free(out);
	CHECK_INT(
	    template_render(dir, "none.md", vars, 1, &out, err, sizeof(err)),
	    -1);
	CHECK(strstr(err, "cannot read") != NULL);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void
test_strv(void)
{
	size_t n = 99;
	char **v = strv_split("  claude  --model\topus ", &n);

	CHECK_INT(n, 3);
	CHECK_INT(strv_len(v), 3);
	CHECK_STR(v[0], "claude");
	CHECK_STR(v[2], "opus");
	CHECK(v[3] == NULL);
	strv_free(v);
	v = strv_split("", &n);
	CHECK_INT(n, 0);
	CHECK(v != NULL && v[0] == NULL);
	strv_free(v);
	strv_free(NULL);
}

int
main(void)
{
	RUN(test_fill);
	RUN(test_render);
	RUN(test_strv);
	return check_main();
}
