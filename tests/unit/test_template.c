/*
 * Tests for prompt templates, string vectors and the agent seam's
 * dispatch to its backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "agent.h"
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

static int fake_injected, fake_killed;

static int
fake_start(const struct agent_spec *s, char *err, size_t errsz)
{
	snprintf(err, errsz, "no start for %s", s->session);
	return -1;
}

static int
fake_inject(const char *session, const char *text)
{
	(void)session;
	fake_injected++;
	return strcmp(text, "late") == 0 ? AGENT_NOT_DELIVERED :
					   AGENT_DELIVERED;
}

static int
fake_alive(const char *session)
{
	return strcmp(session, "live") == 0;
}

static int
fake_signal(const char *path, struct agent_signal *out)
{
	memset(out, 0, sizeof(*out));
	out->phase = strcmp(path, "done") == 0 ? PHASE_DONE : PHASE_NONE;
	return 0;
}

static int
fake_kill(const char *session)
{
	(void)session;
	fake_killed++;
	return 0;
}

static void
test_agent_backend(void)
{
	static const struct agent_backend fake = {.start = fake_start,
	    .inject = fake_inject,
	    .alive = fake_alive,
	    .read_signal = fake_signal,
	    .kill = fake_kill};
	struct agent_spec spec = {.session = "s1"};
	struct agent_signal sig;
	char err[64];

	agent_set_backend(&fake);
	CHECK_INT(agent_start(&spec, err, sizeof(err)), -1);
	CHECK_STR(err, "no start for s1");
	CHECK_INT(agent_inject("s1", "hello"), AGENT_DELIVERED);
	CHECK_INT(agent_inject("s1", "late"), AGENT_NOT_DELIVERED);
	CHECK_INT(fake_injected, 2);
	CHECK_INT(agent_alive("live"), 1);
	CHECK_INT(agent_alive("dead"), 0);
	CHECK_INT(agent_read_signal("done", &sig), 0);
	CHECK_INT(sig.phase, PHASE_DONE);
	CHECK_INT(agent_kill("s1"), 0);
	CHECK_INT(fake_killed, 1);
	/* Listing and activity are optional in a backend. */
	{
		char **names = (char **)&spec;
		size_t n = 9;
		time_t when;

		CHECK_INT(agent_list("dev-", &names, &n), -1);
		CHECK(names == NULL);
		CHECK_INT(n, 0);
		agent_list_free(names, n);
		CHECK_INT(agent_activity("s1", &when), -1);
	}
	agent_set_backend(NULL);
	/* The default backend reads phase files. */
	CHECK_INT(agent_read_signal("/nonexistent/x.phase", &sig), 0);
	CHECK_INT(sig.phase, PHASE_NONE);
	CHECK_INT(sig.since, 0);
}

int
main(void)
{
	RUN(test_fill);
	RUN(test_render);
	RUN(test_strv);
	RUN(test_agent_backend);
	return check_main();
}
