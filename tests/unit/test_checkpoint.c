/*
 * The checkpoint validator: every field's rule, wrong types, the rules
 * of each status, extra fields, huge files, the agent's session id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "checkpoint.h"
#include "file.h"
#include "xmalloc.h"

/* Parse text: 0 or -1, with the checkpoint freed and why in err. */
static int
parse(const char *text, char *err, size_t errsz)
{
	struct checkpoint c;
	int r;

	err[0] = '\0';
	r = checkpoint_parse(text, strlen(text), &c, err, errsz);
	if (r == 0)
		checkpoint_free(&c);
	return r;
}

/* text is refused, for a reason that contains want. */
static void
refused(const char *text, const char *want)
{
	char err[256];

	CHECK_INT(parse(text, err, sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		printf("#   '%s': got '%s', want '%s'\n", text, err, want);
	CHECK(strstr(err, want) != NULL);
}

static void
accepted(const char *text)
{
	char err[256];

	CHECK_INT(parse(text, err, sizeof(err)), 0);
	if (err[0] != '\0')
		printf("#   '%s': %s\n", text, err);
}

#define HEAD "{\"version\":\"1\",\"session_id\":\"dev-p-1\","

static void
test_checkpoint_done(void)
{
	struct checkpoint c;
	const char *t = HEAD "\"status\":\"DONE\",\"timestamp\":"
			     "\"2026-04-18T10:15:30Z\",\"summary\":\"PR "
			     "opened\",\"outputs\":{\"pr_url\":\"http://f/"
			     "pulls/57\",\"pr_number\":57}}";
	char err[128];

	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.status, CHECKPOINT_DONE);
	CHECK_STR(c.version, "1");
	CHECK_STR(c.session_id, "dev-p-1");
	CHECK_STR(c.timestamp, "2026-04-18T10:15:30Z");
	CHECK_STR(c.summary, "PR opened");
	CHECK_INT(c.pr_number, 57);
	CHECK_STR(c.pr_url, "http://f/pulls/57");
	CHECK_INT(c.recoverable, 1);
	CHECK_STR(c.question, "");
	CHECK_STR(checkpoint_status_name(c.status), "DONE");
	checkpoint_free(&c);
	/* Defaults: version "1", no timestamp, outputs empty. */
	t = "{\"status\":\"DONE\",\"session_id\":\"\"}";
	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_STR(c.version, "1");
	CHECK_STR(c.timestamp, "");
	CHECK_INT(c.pr_number, 0);
	CHECK_STR(c.pr_url, "");
	checkpoint_free(&c);
	/* outputs is free-form: a PR number as text, or none usable. */
	t = HEAD "\"status\":\"DONE\",\"outputs\":{\"pr_number\":\"12\"}}";
	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.pr_number, 12);
	checkpoint_free(&c);
	t = HEAD "\"status\":\"DONE\",\"outputs\":{\"pr_number\":[1],"
		 "\"x\":{}}}";
	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.pr_number, 0);
	checkpoint_free(&c);
}

static void
test_checkpoint_blocked(void)
{
	struct checkpoint c;
	const char *t = HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\",\"question\":"
			     "\"v1 or v2?\",\"question_context\":{\"issue\":"
			     "42}}";
	char err[128];

	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.status, CHECKPOINT_BLOCKED);
	CHECK_STR(c.question, "v1 or v2?");
	CHECK_STR(c.question_context, "{\"issue\":42}");
	checkpoint_free(&c);
	accepted(HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\",\"question\":\"q\","
		      "\"question_context\":null}");
	refused(HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\"}",
	    "'question' is required when status is BLOCKED_NEEDS_INPUT");
	refused(HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\",\"question\":\"\"}",
	    "'question' is required");
	refused(HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\",\"question\":null}",
	    "'question' is required");
	refused(HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\",\"question\":3}",
	    "'question': expected a string or null");
	refused(HEAD "\"status\":\"BLOCKED_NEEDS_INPUT\",\"question\":\"q\","
		     "\"question_context\":[1]}",
	    "'question_context': expected an object or null");
}

static void
test_checkpoint_failed(void)
{
	struct checkpoint c;
	const char *t = HEAD "\"status\":\"FAILED\",\"error\":\"push "
			     "refused\"}";
	char err[128];

	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.status, CHECKPOINT_FAILED);
	CHECK_STR(c.error, "push refused");
	CHECK_INT(c.recoverable, 1);
	checkpoint_free(&c);
	t = HEAD "\"status\":\"FAILED\",\"error\":\"e\",\"recoverable\":false}";
	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.recoverable, 0);
	checkpoint_free(&c);
	/* Lax booleans, as the reference's model takes them. */
	t = HEAD
	    "\"status\":\"FAILED\",\"error\":\"e\",\"recoverable\":\"no\"}";
	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.recoverable, 0);
	checkpoint_free(&c);
	t = HEAD "\"status\":\"FAILED\",\"error\":\"e\",\"recoverable\":1}";
	CHECK_INT(checkpoint_parse(t, strlen(t), &c, err, sizeof(err)), 0);
	CHECK_INT(c.recoverable, 1);
	checkpoint_free(&c);
	refused(HEAD "\"status\":\"FAILED\"}",
	    "'error' is required when status is FAILED");
	refused(HEAD "\"status\":\"FAILED\",\"error\":\"\"}",
	    "'error' is required");
	refused(HEAD "\"status\":\"FAILED\",\"error\":{}}",
	    "'error': expected a string or null");
	refused(HEAD "\"status\":\"FAILED\",\"error\":\"e\",\"recoverable\":"
		     "\"maybe\"}",
	    "'recoverable': expected a boolean");
	refused(HEAD "\"status\":\"FAILED\",\"error\":\"e\",\"recoverable\":2}",
	    "'recoverable': expected a boolean");
	refused(HEAD "\"status\":\"FAILED\",\"error\":\"e\",\"recoverable\":"
		     "null}",
	    "'recoverable': expected a boolean");
}

/* The common fields: presence, types, values. */
static void
test_checkpoint_fields(void)
{
	refused("{\"session_id\":\"s\"}", "'status' is missing");
	refused("{\"status\":\"DONE\"}", "'session_id' is missing");
	refused("{\"status\":\"done\",\"session_id\":\"s\"}",
	    "'status': expected \"DONE\"");
	refused("{\"status\":1,\"session_id\":\"s\"}", "'status': expected");
	refused("{\"status\":\"DONE\",\"session_id\":7}",
	    "'session_id': expected a string");
	refused("{\"status\":\"DONE\",\"session_id\":null}",
	    "'session_id': expected a string");
	refused("{\"status\":\"DONE\",\"session_id\":\"s\",\"version\":1}",
	    "'version': expected a string");
	refused("{\"status\":\"DONE\",\"session_id\":\"s\",\"summary\":[]}",
	    "'summary': expected a string or null");
	refused("{\"status\":\"DONE\",\"session_id\":\"s\",\"outputs\":[]}",
	    "'outputs': expected an object");
	refused("{\"status\":\"DONE\",\"session_id\":\"s\",\"outputs\":null}",
	    "'outputs': expected an object");
	accepted("{\"status\":\"DONE\",\"session_id\":\"s\",\"summary\":null}");
	/* Timestamps: ISO 8601 or a number. */
	accepted(HEAD "\"status\":\"DONE\",\"timestamp\":\"2026-04-18\"}");
	accepted(HEAD "\"status\":\"DONE\",\"timestamp\":"
		      "\"2026-04-18T10:15\"}");
	accepted(HEAD "\"status\":\"DONE\",\"timestamp\":"
		      "\"2026-04-18 10:15:30.123456+02:00\"}");
	accepted(HEAD "\"status\":\"DONE\",\"timestamp\":"
		      "\"2026-04-18T10:15:30-0500\"}");
	accepted(HEAD "\"status\":\"DONE\",\"timestamp\":1776507330}");
	refused(HEAD "\"status\":\"DONE\",\"timestamp\":\"yesterday\"}",
	    "'timestamp': expected an ISO 8601");
	refused(HEAD "\"status\":\"DONE\",\"timestamp\":\"2026-04-18T10\"}",
	    "'timestamp'");
	refused(HEAD "\"status\":\"DONE\",\"timestamp\":\"2026-04-18Z\"}",
	    "'timestamp'");
	refused(HEAD "\"status\":\"DONE\",\"timestamp\":null}", "'timestamp'");
	refused(HEAD "\"status\":\"DONE\",\"timestamp\":true}", "'timestamp'");
	/* Not an object, not JSON. */
	refused("[1,2]", "expected a JSON object");
	refused("\"DONE\"", "expected a JSON object");
	refused("{\"status\":", "not JSON");
	refused("", "not JSON");
	refused("{\"status\":\"DONE\",\"session_id\":\"s\"} trailing",
	    "not JSON");
}

/* Fields the schema does not name are accepted and ignored. */
static void
test_checkpoint_extra(void)
{
	accepted(HEAD "\"status\":\"DONE\",\"colour\":\"blue\",\"n\":[1,{}],"
		      "\"nested\":{\"a\":null}}");
	accepted(HEAD "\"status\":\"FAILED\",\"error\":\"e\",\"extra\":1}");
}

/* A file: missing, too long, valid, invalid. */
static void
test_checkpoint_file(void)
{
	char dir[] = "/tmp/test-checkpoint.XXXXXX", *path, err[128];
	struct checkpoint c;
	struct buf b;
	size_t i;

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/state.json", dir);
	CHECK_INT(checkpoint_load(path, &c, err, sizeof(err)), 1);
	CHECK_INT(file_write_atomic(path, "{\"status\":\"DONE\"}", 17, 0600, 0),
	    0);
	CHECK_INT(checkpoint_load(path, &c, err, sizeof(err)), -1);
	CHECK_STR(err, "'session_id' is missing");
	buf_init(&b, 0);
	buf_printf(&b, "%s\"status\":\"DONE\",\"pad\":\"", HEAD);
	for (i = 0; i < CHECKPOINT_MAX; i++)
		buf_printf(&b, "x");
	buf_printf(&b, "\"}");
	CHECK_INT(file_write_atomic(path, buf_str(&b), b.len, 0600, 0), 0);
	CHECK_INT(checkpoint_load(path, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "longer than") != NULL);
	CHECK_INT(checkpoint_parse(buf_str(&b), b.len, &c, err, sizeof(err)),
	    -1);
	CHECK(strstr(err, "longer than") != NULL);
	buf_free(&b);
	CHECK_INT(file_write_atomic(path, HEAD "\"status\":\"DONE\"}",
		      strlen(HEAD "\"status\":\"DONE\"}"), 0600, 0),
	    0);
	CHECK_INT(checkpoint_load(path, &c, err, sizeof(err)), 0);
	CHECK_STR(c.session_id, "dev-p-1");
	checkpoint_free(&c);
	unlink(path);
	CHECK_INT(checkpoint_load(dir, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "cannot read") != NULL);
	rmdir(dir);
	free(path);
}

/* The session id the agent's run printed. */
static void
test_checkpoint_agent_session(void)
{
	const char *out = "{\"type\":\"result\",\"session_id\":\"a-b-c\"}\n";
	char *id = checkpoint_agent_session(out, strlen(out));

	CHECK_STR(id, "a-b-c");
	free(id);
	CHECK(checkpoint_agent_session("{}", 2) == NULL);
	CHECK(checkpoint_agent_session("{\"session_id\":\"\"}", 17) == NULL);
	CHECK(checkpoint_agent_session("{\"session_id\":5}", 16) == NULL);
	CHECK(checkpoint_agent_session("oops", 4) == NULL);
	CHECK(checkpoint_agent_session("", 0) == NULL);
}

int
main(void)
{
	RUN(test_checkpoint_done);
	RUN(test_checkpoint_blocked);
	RUN(test_checkpoint_failed);
	RUN(test_checkpoint_fields);
	RUN(test_checkpoint_extra);
	RUN(test_checkpoint_file);
	RUN(test_checkpoint_agent_session);
	return check_main();
}
