/*
 * Unit tests for the CI rules: state mapping, passed/failed, non-code
 * paths, infrastructure classification and Woodpecker log decoding.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "ci.h"
#include "json.h"
#include "woodpecker.h"

static cJSON *parse(const char *);
static cJSON *statuses(const char *);

static cJSON *
parse(const char *text)
{
	char err[128];

	return json_parse(text, strlen(text), err, sizeof(err));
}

static void
test_woodpecker_mapping(void)
{
	static const struct {
		const char *status;
		int r;
		enum ci_state state;
	} t[] = {
	    /* Every status of Woodpecker 2.x and 3.x (server/model/const.go).
	     */
	    {"success", 0, CI_SUCCESS},
	    {"failure", 0, CI_FAILURE},
	    {"error", 0, CI_FAILURE},
	    {"running", 0, CI_PENDING},
	    {"pending", 0, CI_PENDING},
	    {"blocked", 0, CI_PENDING},
	    {"created", 0, CI_PENDING},
	    {"killed", 0, CI_CANCELED},
	    {"canceled", 0, CI_CANCELED},
	    {"declined", 0, CI_CANCELED},
	    {"skipped", 0, CI_CANCELED},
	    {"", -1, CI_UNKNOWN},
	    {"cancelled", -1, CI_UNKNOWN},
	    {"SUCCESS", -1, CI_UNKNOWN},
	};
	enum ci_state s;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s = CI_UNKNOWN;
		CHECK_INT(ci_state_from_woodpecker(t[i].status, &s), t[i].r);
		CHECK_INT(s, t[i].state);
	}
	CHECK_INT(ci_state_from_woodpecker(NULL, &s), -1);
}

static void
test_forge_mapping(void)
{
	CHECK_INT(ci_state_from_forge("success"), CI_SUCCESS);
	CHECK_INT(ci_state_from_forge("pending"), CI_PENDING);
	CHECK_INT(ci_state_from_forge("failure"), CI_FAILURE);
	CHECK_INT(ci_state_from_forge("error"), CI_FAILURE);
	CHECK_INT(ci_state_from_forge("warning"), CI_FAILURE);
	CHECK_INT(ci_state_from_forge(""), CI_NONE);
	CHECK_INT(ci_state_from_forge(NULL), CI_NONE);
}

/* The statuses "CTX:STATE:ID ..." as Gitea lists them. */
static cJSON *
statuses(const char *spec)
{
	cJSON *a = cJSON_CreateArray();
	char ctx[32], st[32];
	int id, n;

	while (sscanf(spec, " %31[^:]:%31[^:]:%d%n", ctx, st, &id, &n) == 3) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "context", ctx);
		cJSON_AddStringToObject(o, "status", st);
		cJSON_AddNumberToObject(o, "id", id);
		cJSON_AddItemToArray(a, o);
		spec += n;
	}
	return a;
}

static void
test_combine(void)
{
	static const struct {
		const char *spec;
		enum ci_state worst; /* Gitea 1.22, Forgejo */
		int worst_final;
		enum ci_state all; /* Gitea 1.23 and later */
		int all_final;
	} t[] = {
	    {"", CI_NONE, 0, CI_NONE, 0},
	    {"a:success:1 b:success:2", CI_SUCCESS, 1, CI_SUCCESS, 1},
	    {"a:success:1 b:warning:2", CI_FAILURE, 1, CI_SUCCESS, 1},
	    {"a:success:1 b:skipped:2", CI_SUCCESS, 1, CI_SUCCESS, 1},
	    {"a:skipped:1", CI_PENDING, 0, CI_SUCCESS, 1},
	    {"a:warning:1 b:skipped:2", CI_FAILURE, 1, CI_SUCCESS, 1},
	    {"a:warning:1 b:pending:2", CI_FAILURE, 1, CI_PENDING, 0},
	    {"a:success:1 b:pending:2", CI_PENDING, 0, CI_PENDING, 0},
	    {"a:pending:1 b:failure:2", CI_FAILURE, 1, CI_FAILURE, 1},
	    {"a:warning:1 b:error:2", CI_FAILURE, 1, CI_FAILURE, 1},
	    /* A context's latest status (the highest id) alone counts. */
	    {"a:success:3 a:failure:1 b:success:2", CI_SUCCESS, 1, CI_SUCCESS,
		1},
	    {"a:pending:1 a:failure:4 b:success:2", CI_FAILURE, 1, CI_FAILURE,
		1},
	};
	size_t i;
	int final;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cJSON *a = statuses(t[i].spec);

		final = -1;
		CHECK_INT(ci_combine(a, CI_RULE_WORST, &final), t[i].worst);
		CHECK_INT(final, t[i].worst_final);
		final = -1;
		CHECK_INT(ci_combine(a, CI_RULE_ALL, &final), t[i].all);
		CHECK_INT(final, t[i].all_final);
		cJSON_Delete(a);
	}
	CHECK_INT(ci_combine(NULL, CI_RULE_ALL, NULL), CI_NONE);
}

static void
test_rule_of_version(void)
{
	CHECK_INT(ci_rule_of_version("1.22.3"), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version("1.22.6"), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version("1.21.11"), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version("1.23.0"), CI_RULE_ALL);
	CHECK_INT(ci_rule_of_version("1.24.2"), CI_RULE_ALL);
	CHECK_INT(ci_rule_of_version("v1.23.1"), CI_RULE_ALL);
	CHECK_INT(ci_rule_of_version("1.25.0+dev-12-gabcdef"), CI_RULE_ALL);
	CHECK_INT(ci_rule_of_version("7.0.5+gitea-1.21.11"), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version("11.0.1+gitea-1.22.0"), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version("development"), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version(""), CI_RULE_WORST);
	CHECK_INT(ci_rule_of_version(NULL), CI_RULE_WORST);
}

static void
test_state_names(void)
{
	CHECK_STR(ci_state_name(CI_UNKNOWN), "unknown");
	CHECK_STR(ci_state_name(CI_NONE), "none");
	CHECK_STR(ci_state_name(CI_PENDING), "pending");
	CHECK_STR(ci_state_name(CI_SUCCESS), "success");
	CHECK_STR(ci_state_name(CI_FAILURE), "failure");
	CHECK_STR(ci_state_name(CI_CANCELED), "canceled");
}

/* ci_state_parse() reads back every name but "unknown". */
static void
test_state_parse(void)
{
	static const enum ci_state all[] = {CI_NONE, CI_PENDING, CI_SUCCESS,
	    CI_FAILURE, CI_CANCELED};
	enum ci_state st;
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		st = CI_UNKNOWN;
		CHECK_INT(ci_state_parse(ci_state_name(all[i]), &st), 0);
		CHECK_INT(st, all[i]);
	}
	CHECK_INT(ci_state_parse("unknown", &st), -1);
	CHECK_INT(ci_state_parse("error", &st), -1);
	CHECK_INT(ci_state_parse("", &st), -1);
}

static void
test_passed_failed(void)
{
	static const struct {
		enum ci_state s;
		int configured, passed, failed;
	} t[] = {
	    {CI_SUCCESS, 1, 1, 0},
	    {CI_FAILURE, 1, 0, 1},
	    {CI_PENDING, 1, 0, 0},
	    {CI_NONE, 1, 0, 0},
	    {CI_UNKNOWN, 1, 0, 0},
	    {CI_SUCCESS, 0, 1, 0},
	    {CI_FAILURE, 0, 0, 1},
	    {CI_PENDING, 0, 1, 0},
	    {CI_NONE, 0, 1, 0},
	    {CI_UNKNOWN, 0, 0, 0},
	    /* A canceled pipeline: neither passed nor failed. */
	    {CI_CANCELED, 1, 0, 0},
	    {CI_CANCELED, 0, 0, 0},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_INT(ci_passed(t[i].s, t[i].configured), t[i].passed);
		CHECK_INT(ci_failed(t[i].s, t[i].configured), t[i].failed);
	}
}

/* CI over for the CI loop (and its watcher): passed or failed only. */
static void
test_final(void)
{
	CHECK_INT(ci_final(CI_SUCCESS), 1);
	CHECK_INT(ci_final(CI_FAILURE), 1);
	CHECK_INT(ci_final(CI_PENDING), 0);
	CHECK_INT(ci_final(CI_NONE), 0);
	CHECK_INT(ci_final(CI_UNKNOWN), 0);
	CHECK_INT(ci_final(CI_CANCELED), 0);
}

static void
test_code_paths(void)
{
	CHECK_INT(ci_path_is_code("src/main.c"), 1);
	CHECK_INT(ci_path_is_code("Makefile"), 1);
	CHECK_INT(ci_path_is_code("docs/guide.txt"), 0);
	CHECK_INT(ci_path_is_code("docs/"), 0);
	CHECK_INT(ci_path_is_code("formulas/review.toml"), 0);
	CHECK_INT(ci_path_is_code("evidence/run.log"), 0);
	CHECK_INT(ci_path_is_code("README.md"), 0);
	CHECK_INT(ci_path_is_code("src/notes.md"), 0);
	CHECK_INT(ci_path_is_code(".md"), 0);
	CHECK_INT(ci_path_is_code("src/docs/x.c"), 1);
	CHECK_INT(ci_path_is_code("docs"), 1);
	CHECK_INT(ci_path_is_code("README.MD"), 1);
	CHECK_INT(ci_path_is_code("notes.mdx"), 1);
	CHECK_INT(ci_path_is_code("md"), 1);
	CHECK_INT(ci_path_is_code(""), 0);
	CHECK_INT(ci_path_is_code(NULL), 0);
}

static void
test_files_need_ci(void)
{
	cJSON *docs = parse("[{\"filename\":\"docs/a.txt\"},"
			    "{\"filename\":\"README.md\"}]");
	cJSON *mixed = parse("[{\"filename\":\"docs/a.txt\"},"
			     "{\"filename\":\"src/a.c\"}]");
	cJSON *empty = parse("[]");
	cJSON *odd = parse("[{\"filename\":\"a.md\"},{\"filename\":5}]");
	cJSON *obj = parse("{\"filename\":\"a.md\"}");

	CHECK_INT(ci_files_need_ci(docs), 0);
	CHECK_INT(ci_files_need_ci(mixed), 1);
	CHECK_INT(ci_files_need_ci(empty), 1);
	CHECK_INT(ci_files_need_ci(odd), 1);
	CHECK_INT(ci_files_need_ci(obj), 1);
	CHECK_INT(ci_files_need_ci(NULL), 1);
	cJSON_Delete(docs);
	cJSON_Delete(mixed);
	cJSON_Delete(empty);
	cJSON_Delete(odd);
	cJSON_Delete(obj);
}

static void
test_infra_cases(void)
{
	char reason[256];

	CHECK_INT(ci_step_is_infra("clone", 128, NULL, reason, sizeof(reason)),
	    1);
	CHECK(strstr(reason, "'clone'") != NULL);
	CHECK(strstr(reason, "128") != NULL);
	CHECK_INT(
	    ci_step_is_infra("git-fetch", 128, NULL, reason, sizeof(reason)),
	    1);
	CHECK_INT(ci_step_is_infra("pre-clone-setup", 128, NULL, reason,
		      sizeof(reason)),
	    1);
	CHECK_INT(ci_step_is_infra("test", 137, NULL, reason, sizeof(reason)),
	    1);
	CHECK(strstr(reason, "137") != NULL);
	CHECK_INT(ci_step_is_infra("build", 1,
		      "step 1\ncurl: (7) FAILED TO CONNECT to host\n", reason,
		      sizeof(reason)),
	    1);
	CHECK(strstr(reason, "log") != NULL);
	CHECK_INT(ci_step_is_infra("build", 1,
		      "dial tcp: Connection timed "
		      "out",
		      reason, sizeof(reason)),
	    1);
	CHECK_INT(ci_step_is_infra("build", 1,
		      "Error: docker pull alpine: "
		      "i/o Timeout while reading",
		      reason, sizeof(reason)),
	    1);
	CHECK_INT(ci_step_is_infra("build", 2,
		      "net/http: TLS handshake "
		      "timeout",
		      reason, sizeof(reason)),
	    1);
}

static void
test_infra_non_cases(void)
{
	char reason[256] = "junk";

	CHECK_INT(ci_step_is_infra("test", 128, NULL, reason, sizeof(reason)),
	    0);
	CHECK_STR(reason, "");
	CHECK_INT(ci_step_is_infra("clone", 1, NULL, reason, sizeof(reason)),
	    0);
	CHECK_INT(ci_step_is_infra("Clone", 128, NULL, reason, sizeof(reason)),
	    0);
	CHECK_INT(ci_step_is_infra("build", 1, "assertion failed\n", reason,
		      sizeof(reason)),
	    0);
	/* The pull and the timeout must be on the same line, in order. */
	CHECK_INT(ci_step_is_infra("build", 1,
		      "docker pull alpine\n"
		      "test timeout exceeded\n",
		      reason, sizeof(reason)),
	    0);
	CHECK_INT(ci_step_is_infra("build", 1, "timeout in docker pull\n",
		      reason, sizeof(reason)),
	    0);
	CHECK_INT(ci_step_is_infra("build", 1, "connection timed\nout\n",
		      reason, sizeof(reason)),
	    0);
	CHECK_INT(ci_step_is_infra("build", 1, "", reason, sizeof(reason)), 0);
	CHECK_INT(ci_step_is_infra(NULL, 0, NULL, reason, sizeof(reason)), 0);
}

static void
test_log_decode(void)
{
	/* "hello", "wor\nld\n" and not-base64 text taken as it is. */
	cJSON *e =
	    parse("[{\"data\":\"aGVsbG8=\"},{\"data\":\"d29yCmxkCg==\"},"
		  "{\"data\":\"plain text!\"},{\"data\":null},{\"line\":3}]");
	char *t;

	t = woodpecker_log_text(e, 0, 0);
	CHECK_STR(t, "hello\nwor\nld\nplain text!\n\n\n");
	free(t);
	t = woodpecker_log_text(e, 0, 3);
	CHECK_STR(t, "plain text!\n\n\n");
	free(t);
	t = woodpecker_log_text(e, 0, 100);
	CHECK_STR(t, "hello\nwor\nld\nplain text!\n\n\n");
	free(t);
	cJSON_Delete(e);
}

static void
test_log_wrong_types(void)
{
	/* Data that is not a string is no line at all, not an empty one. */
	cJSON *e = parse("[{\"data\":\"aGVsbG8=\"},{\"data\":42},"
			 "{\"data\":[\"x\"]},7,{\"data\":\"d29ybGQ=\"}]");
	char *t;

	t = woodpecker_log_text(e, 0, 0);
	CHECK_STR(t, "hello\nworld\n");
	free(t);
	cJSON_Delete(e);
}

static void
test_log_decode_nul_and_padding(void)
{
	/* "a\0b" (NUL made a space), "ab" with one "=", "abc" with none. */
	cJSON *e = parse("[{\"data\":\"YQBi\"},{\"data\":\"YWI=\"},"
			 "{\"data\":\"YWJj\"},{\"data\":\"YW=j\"}]");
	char *t;

	t = woodpecker_log_text(e, 0, 0);
	CHECK_STR(t, "a b\nab\nabc\nYW=j\n");
	free(t);
	cJSON_Delete(e);
}

static void
test_log_tail_bytes(void)
{
	cJSON *e = parse("[{\"data\":\"b25l\"},{\"data\":\"dHdv\"},"
			 "{\"data\":\"dGhyZWU=\"}]");
	char *t;

	/* "one\ntwo\nthree\n": 8 bytes keep "three\n" (whole lines only). */
	t = woodpecker_log_text(e, 8, 0);
	CHECK_STR(t, "three\n");
	free(t);
	t = woodpecker_log_text(e, 10, 0);
	CHECK_STR(t, "two\nthree\n");
	free(t);
	/* A single line longer than the cap is cut at its front. */
	t = woodpecker_log_text(e, 4, 0);
	CHECK_STR(t, "ree\n");
	free(t);
	cJSON_Delete(e);
}

/*
 * Freeing releases the log tail (counted: the heap in use is back where it
 * was), forgets it, and is safe on a zeroed, a freed and a NULL struct.
 */
static void
test_failure_free(void)
{
	struct ci_failure f;
	size_t before;

	memset(&f, 0, sizeof(f));
	ci_failure_free(&f);
	before = check_heap();
	f.log_tail = malloc(64 * 1024);
	CHECK(f.log_tail != NULL);
	ci_failure_free(&f);
	CHECK(f.log_tail == NULL);
	if (check_heap_counted())
		CHECK_INT(check_heap(), before);
	ci_failure_free(&f);
	ci_failure_free(NULL);
}

int
main(void)
{
	RUN(test_woodpecker_mapping);
	RUN(test_forge_mapping);
	RUN(test_combine);
	RUN(test_rule_of_version);
	RUN(test_state_names);
	RUN(test_state_parse);
	RUN(test_passed_failed);
	RUN(test_final);
	RUN(test_code_paths);
	RUN(test_files_need_ci);
	RUN(test_infra_cases);
	RUN(test_infra_non_cases);
	RUN(test_log_decode);
	RUN(test_log_wrong_types);
	RUN(test_log_decode_nul_and_padding);
	RUN(test_log_tail_bytes);
	RUN(test_failure_free);
	return check_main();
}
