/*
 * Tests for prompt templates (filling, the compiled-in ones, a factory's
 * overrides) and string vectors.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "buf.h"
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
	CHECK_STR(err, "no template 'none.md'");
	/* A compiled-in template's fill error names it. */
	CHECK_INT(template_render(dir, "dev-prior-art.md", vars, 1, &out, err,
		      sizeof(err)),
	    -1);
	CHECK(strstr(err, "built-in 'dev-prior-art.md': unknown placeholder") ==
	    err);
	CHECK(out == NULL);
	unlink(path);
	rmdir(dir);
	free(path);
}

/*
 * Every template of the source tree's formulas/ is compiled in, byte for
 * byte; nothing else is.
 */
static void
test_builtin(void)
{
	const char *top = getenv("TOP") ? getenv("TOP") : ".";
	char *dir = xasprintf("%s/formulas", top), *path;
	struct dirent *e;
	struct buf text;
	DIR *d = opendir(dir);
	size_t len, n = 0;

	CHECK(d != NULL);
	while (d != NULL && (e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".md") != 0 ||
		    strcmp(e->d_name, "README.md") == 0)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		buf_init(&text, 0);
		CHECK_INT(file_read(path, 1 << 20, &text), 0);
		CHECK_STR(template_builtin(e->d_name), buf_str(&text));
		buf_free(&text);
		free(path);
		n++;
	}
	if (d != NULL)
		closedir(d);
	CHECK(n >= 10);
	CHECK(template_builtin("dev-initial.md") != NULL);
	CHECK(template_builtin("README.md") == NULL);
	CHECK(template_builtin("embed.c") == NULL);
	CHECK(template_builtin("review-pr.toml") == NULL);
	CHECK(template_builtin("") == NULL);
	free(dir);
}

/*
 * A file in the formulas directory overrides the compiled-in template; a
 * missing file or directory never is an error; one that cannot be read
 * is, and is never silently replaced by the compiled-in text.
 */
static void
test_load(void)
{
	char dir[] = "/tmp/test_template.XXXXXX", *path, *none, err[256];
	const char *builtin = template_builtin("dev-initial.md");
	struct buf b;

	CHECK(mkdtemp(dir) != NULL);
	none = xasprintf("%s/none", dir);
	buf_init(&b, 0);
	CHECK_INT(template_load(dir, "dev-initial.md", &b, err, sizeof(err)),
	    TEMPLATE_BUILTIN);
	CHECK_STR(buf_str(&b), builtin);
	buf_reset(&b);
	CHECK_INT(template_load(none, "dev-initial.md", &b, err, sizeof(err)),
	    TEMPLATE_BUILTIN);
	CHECK_STR(buf_str(&b), builtin);
	buf_reset(&b);
	CHECK_INT(template_load(NULL, "dev-initial.md", &b, err, sizeof(err)),
	    TEMPLATE_BUILTIN);
	CHECK_STR(buf_str(&b), builtin);
	buf_reset(&b);
	path = xasprintf("%s/dev-initial.md", dir);
	CHECK_INT(file_write_atomic(path, "edited {{ISSUE}}\n", 17, 0644, 0),
	    0);
	CHECK_INT(template_load(dir, "dev-initial.md", &b, err, sizeof(err)),
	    TEMPLATE_FILE);
	CHECK_STR(buf_str(&b), "edited {{ISSUE}}\n");
	buf_reset(&b);
	CHECK_INT(template_load(dir, "nope.md", &b, err, sizeof(err)),
	    TEMPLATE_FAILED);
	CHECK_STR(err, "no template 'nope.md'");
	/* A directory where the override would be: refused, not ignored. */
	unlink(path);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(template_load(dir, "dev-initial.md", &b, err, sizeof(err)),
	    TEMPLATE_FAILED);
	CHECK(strstr(err, "cannot read '") == err);
	CHECK(strstr(err, "/dev-initial.md': ") != NULL);
	rmdir(path);
	buf_free(&b);
	rmdir(dir);
	free(path);
	free(none);
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
	RUN(test_builtin);
	RUN(test_load);
	RUN(test_strv);
	return check_main();
}
