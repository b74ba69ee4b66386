/*
 * Unit tests for the typed cJSON accessors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "json.h"

static cJSON *parse(const char *);

static cJSON *
parse(const char *text)
{
	char err[128];

	return json_parse(text, strlen(text), err, sizeof(err));
}

static void
test_parse_valid(void)
{
	cJSON *j = parse(" {\"a\": [1, 2]}\n");

	CHECK(j != NULL);
	CHECK(cJSON_IsObject(j));
	cJSON_Delete(j);
}

static void
test_parse_malformed(void)
{
	char err[128] = "";
	const char *bad = "{\"x\":";

	CHECK(json_parse(bad, strlen(bad), err, sizeof(err)) == NULL);
	CHECK(strstr(err, "malformed JSON") != NULL);
	CHECK(json_parse("", 0, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "empty") != NULL);
	CHECK(json_parse(NULL, 0, err, sizeof(err)) == NULL);
	CHECK(parse("[1] x") == NULL);
	CHECK(parse("<html>") == NULL);
}

static void
test_parse_length_bound(void)
{
	char err[128];
	const char *text = "[1][2]";
	cJSON *j;

	/* Only the first len bytes count: "[1]" alone is valid. */
	j = json_parse(text, 3, err, sizeof(err));
	CHECK(j != NULL);
	CHECK_INT(cJSON_GetArraySize(j), 1);
	cJSON_Delete(j);
	CHECK(json_parse(text, 2, err, sizeof(err)) == NULL);
}

static void
test_str(void)
{
	cJSON *j = parse("{\"s\":\"v\",\"n\":5,\"b\":true,\"z\":null,"
			 "\"a\":[\"x\"],\"o\":{}}");

	CHECK_STR(json_str(j, "s"), "v");
	CHECK(json_str(j, "n") == NULL);
	CHECK(json_str(j, "b") == NULL);
	CHECK(json_str(j, "z") == NULL);
	CHECK(json_str(j, "a") == NULL);
	CHECK(json_str(j, "o") == NULL);
	CHECK(json_str(j, "missing") == NULL);
	CHECK(json_str(NULL, "s") == NULL);
	CHECK(json_str(json_arr(j, "a"), "s") == NULL);
	cJSON_Delete(j);
}

static void
test_int(void)
{
	cJSON *j =
	    parse("{\"i\":42,\"neg\":-7,\"f\":1.5,\"s\":\"5\","
		  "\"huge\":1e300,\"edge\":9223372036854775808,"
		  "\"big\":9007199254740992,\"b\":true,\"z\":null,\"e\":2e3}");
	long long v = 99;

	CHECK_INT(json_int(j, "i", &v), 0);
	CHECK_INT(v, 42);
	CHECK_INT(json_int(j, "neg", &v), 0);
	CHECK_INT(v, -7);
	v = 99;
	CHECK_INT(json_int(j, "f", &v), -1);
	CHECK_INT(v, 99);
	CHECK_INT(json_int(j, "s", &v), -1);
	CHECK_INT(json_int(j, "huge", &v), -1);
	CHECK_INT(json_int(j, "edge", &v), -1);
	CHECK_INT(json_int(j, "big", &v), 0);
	CHECK_INT(v, 9007199254740992LL);
	CHECK_INT(json_int(j, "b", &v), -1);
	CHECK_INT(json_int(j, "z", &v), -1);
	CHECK_INT(json_int(j, "missing", &v), -1);
	CHECK_INT(json_int(j, "e", &v), 0);
	CHECK_INT(v, 2000);
	CHECK_INT(json_int(NULL, "i", &v), -1);
	cJSON_Delete(j);
}

static void
test_bool(void)
{
	cJSON *j = parse("{\"t\":true,\"f\":false,\"s\":\"true\",\"n\":1}");
	int b = 7;

	CHECK_INT(json_bool(j, "t", &b), 0);
	CHECK_INT(b, 1);
	CHECK_INT(json_bool(j, "f", &b), 0);
	CHECK_INT(b, 0);
	b = 7;
	CHECK_INT(json_bool(j, "s", &b), -1);
	CHECK_INT(json_bool(j, "n", &b), -1);
	CHECK_INT(json_bool(j, "missing", &b), -1);
	CHECK_INT(b, 7);
	cJSON_Delete(j);
}

static void
test_arr_obj(void)
{
	cJSON *j = parse("{\"a\":[1],\"o\":{\"k\":1},\"s\":\"x\"}");

	CHECK(json_arr(j, "a") != NULL);
	CHECK(json_arr(j, "o") == NULL);
	CHECK(json_arr(j, "s") == NULL);
	CHECK(json_obj(j, "o") != NULL);
	CHECK(json_obj(j, "a") == NULL);
	CHECK(json_obj(j, "missing") == NULL);
	CHECK(json_arr(NULL, "a") == NULL);
	cJSON_Delete(j);
}

static void
test_paths(void)
{
	cJSON *j = parse("{\"head\":{\"sha\":\"abc\",\"repo\":{\"id\":3,"
			 "\"private\":false,\"tags\":[]}},\"flat\":\"x\"}");
	long long v = 0;
	int b = 1;

	CHECK_STR(json_str_at(j, "head.sha"), "abc");
	CHECK_STR(json_str_at(j, "flat"), "x");
	CHECK(json_str_at(j, "head.repo") == NULL);
	CHECK(json_str_at(j, "head.missing") == NULL);
	CHECK(json_str_at(j, "flat.deeper") == NULL);
	CHECK(json_str_at(j, "head..sha") == NULL);
	CHECK(json_str_at(j, ".head") == NULL);
	CHECK(json_str_at(j, "head.") == NULL);
	CHECK(json_str_at(j, "") == NULL);
	CHECK_INT(json_int_at(j, "head.repo.id", &v), 0);
	CHECK_INT(v, 3);
	CHECK_INT(json_int_at(j, "head.sha", &v), -1);
	CHECK_INT(json_bool_at(j, "head.repo.private", &b), 0);
	CHECK_INT(b, 0);
	CHECK(json_arr_at(j, "head.repo.tags") != NULL);
	CHECK(json_obj_at(j, "head.repo") != NULL);
	CHECK(json_obj_at(j, "head.repo.tags") == NULL);
	CHECK(json_at(j, "head.repo.id") != NULL);
	CHECK(json_at(NULL, "head") == NULL);
	cJSON_Delete(j);
}

static void
test_has_label(void)
{
	cJSON *j = parse(
	    "{\"labels\":[{\"id\":1,\"name\":\"backlog\"},"
	    "{\"id\":2,\"name\":7},\"in-progress\",{\"name\":\"priority\"}]}");
	cJSON *bad = parse("{\"labels\":{\"name\":\"backlog\"}}");

	CHECK_INT(json_has_label(j, "backlog"), 1);
	CHECK_INT(json_has_label(j, "priority"), 1);
	CHECK_INT(json_has_label(j, "in-progress"), 0);
	CHECK_INT(json_has_label(j, "back"), 0);
	CHECK_INT(json_has_label(bad, "backlog"), 0);
	CHECK_INT(json_has_label(NULL, "backlog"), 0);
	cJSON_Delete(j);
	cJSON_Delete(bad);
}

static void
test_print(void)
{
	cJSON *j = parse("{ \"a\" : [ 1 , \"x\\n\" ] }");
	char *s = json_print(j);

	CHECK_STR(s, "{\"a\":[1,\"x\\n\"]}");
	free(s);
	cJSON_Delete(j);
}

static void
test_time(void)
{
	cJSON *o = cJSON_Parse("{\"a\": \"2024-01-02T10:00:00Z\", "
			       "\"b\": \"2024-01-02T12:30:00.123+02:30\", "
			       "\"c\": \"2024-01-02 10:00:00\", "
			       "\"d\": \"2024-13-02T10:00:00Z\", "
			       "\"e\": \"2024-01-02T10:00\", \"f\": 7}");
	time_t t = 0;

	CHECK_INT(json_time(o, "a", &t), 0);
	CHECK_INT(t, 1704189600);
	CHECK_INT(json_time(o, "b", &t), 0);
	CHECK_INT(t, 1704189600);
	CHECK_INT(json_time(o, "c", &t), 0);
	CHECK_INT(t, 1704189600);
	CHECK_INT(json_time(o, "d", &t), -1);
	CHECK_INT(json_time(o, "e", &t), -1);
	CHECK_INT(json_time(o, "f", &t), -1);
	CHECK_INT(json_time(o, "missing", &t), -1);
	CHECK_INT(json_time(NULL, "a", &t), -1);
	cJSON_Delete(o);
}

/* An object file, a missing file (empty object), and what is refused. */
static void
test_load_object(void)
{
	char dir[] = "/tmp/test-json-XXXXXX", path[128], err[128];
	cJSON *o;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/x.json", dir);
	o = json_load_object(path, 64, err, sizeof(err));
	CHECK(o != NULL && cJSON_IsObject(o) && o->child == NULL);
	cJSON_Delete(o);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f != NULL) {
		fputs("{\"7\": 2}", f);
		fclose(f);
	}
	o = json_load_object(path, 64, err, sizeof(err));
	CHECK(o != NULL && cJSON_GetObjectItem(o, "7") != NULL);
	cJSON_Delete(o);
	CHECK(json_load_object(path, 4, err, sizeof(err)) == NULL);
	CHECK_STR(err, "too large");
	f = fopen(path, "w");
	if (f != NULL) {
		fputs("[1]", f);
		fclose(f);
	}
	CHECK(json_load_object(path, 64, err, sizeof(err)) == NULL);
	CHECK_STR(err, "not a JSON object");
	unlink(path);
	rmdir(dir);
}

static const struct json_field test_label_schema[] = {{"id", JSON_INT, 1, NULL},
    {"name", JSON_STRING, 1, NULL}, {NULL, JSON_STRING, 0, NULL}};
static const struct json_field test_pr_schema[] = {{"number", JSON_ID, 1, NULL},
    {"title", JSON_STRING, 1, NULL}, {"head.sha", JSON_STRING, 1, NULL},
    {"merged", JSON_BOOL, 0, NULL}, {"body", JSON_STRING, 0, NULL},
    {"base", JSON_OBJECT, 0, NULL},
    {"labels", JSON_ARRAY, 0, test_label_schema}, {NULL, JSON_STRING, 0, NULL}};

/* The fault json_check() finds in text, or "" when there is none. */
static const char *
check_text(const char *text)
{
	static char err[256];
	cJSON *j = parse(text);

	err[0] = '\0';
	if (j == NULL)
		return "unparsed";
	if (json_check(j, test_pr_schema, err, sizeof(err)) == -1)
		CHECK(err[0] != '\0');
	cJSON_Delete(j);
	return err;
}

static void
test_check_good(void)
{
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": {\"sha\": \"abc\"}}"),
	    "");
	/* Optional fields may be absent or null. */
	CHECK_STR(check_text(
		      "{\"number\": 3, \"title\": \"\", \"head\": "
		      "{\"sha\": \"a\"}, \"body\": null, \"merged\": "
		      "true, \"labels\": [{\"id\": 1, \"name\": \"x\"}], "
		      "\"base\": null}"),
	    "");
}

static void
test_check_bad(void)
{
	CHECK_STR(check_text("{\"title\": \"t\", \"head\": {\"sha\": "
			     "\"a\"}}"),
	    "no 'number'");
	CHECK_STR(check_text("{\"number\": \"3\", \"title\": \"t\"}"),
	    "'number' is a string, not an integer from 1 to 2^53-1");
	CHECK_STR(check_text("{\"number\": 3.5, \"title\": \"t\"}"),
	    "'number' is a number, not an integer from 1 to 2^53-1");
	CHECK_STR(check_text("{\"number\": -3, \"title\": \"t\"}"),
	    "'number' is a number, not an integer from 1 to 2^53-1");
	CHECK_STR(check_text("{\"number\": 0, \"title\": \"t\"}"),
	    "'number' is a number, not an integer from 1 to 2^53-1");
	CHECK_STR(
	    check_text("{\"number\": 9007199254740994, \"title\": \"t\"}"),
	    "'number' is a number, not an integer from 1 to 2^53-1");
	/* 2^53 + 1 is read as 2^53: neither is taken. */
	CHECK_STR(
	    check_text("{\"number\": 9007199254740993, \"title\": \"t\"}"),
	    "'number' is a number, not an integer from 1 to 2^53-1");
	CHECK_STR(
	    check_text("{\"number\": 9007199254740992, \"title\": \"t\"}"),
	    "'number' is a number, not an integer from 1 to 2^53-1");
	CHECK_STR(check_text("{\"number\": 9007199254740991, \"title\": "
			     "\"t\", \"head\": {\"sha\": \"a\"}}"),
	    "");
	CHECK_STR(check_text("{\"number\": 3, \"title\": [\"t\"], "
			     "\"head\": {\"sha\": \"a\"}}"),
	    "'title' is an array, not a string");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": {\"sha\": 7}}"),
	    "'head.sha' is a number, not a string");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": {}}"),
	    "no 'head.sha'");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": \"x\"}"),
	    "'head' is a string, not an object");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": null}"),
	    "no 'head.sha'");
	CHECK_STR(check_text(
		      "{\"number\": 3, \"title\": \"t\", "
		      "\"head\": {\"sha\": \"a\"}, \"merged\": \"false\"}"),
	    "'merged' is a string, not a boolean");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": {\"sha\": \"a\"}, \"labels\": {}}"),
	    "'labels' is an object, not an array");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": {\"sha\": \"a\"}, \"labels\": "
			     "[{\"id\": 1, \"name\": \"a\"}, 5]}"),
	    "'labels[1]' is a number, not an object");
	CHECK_STR(check_text("{\"number\": 3, \"title\": \"t\", "
			     "\"head\": {\"sha\": \"a\"}, \"labels\": "
			     "[{\"id\": 1, \"name\": \"a\"}, {\"id\": 2, "
			     "\"name\": [\"b\"]}]}"),
	    "'labels[1].name' is an array, not a string");
	CHECK_STR(check_text("[1]"), "an array, not an object");
}

int
main(void)
{
	RUN(test_parse_valid);
	RUN(test_parse_malformed);
	RUN(test_parse_length_bound);
	RUN(test_str);
	RUN(test_int);
	RUN(test_bool);
	RUN(test_arr_obj);
	RUN(test_paths);
	RUN(test_has_label);
	RUN(test_print);
	RUN(test_time);
	RUN(test_load_object);
	RUN(test_check_good);
	RUN(test_check_bad);
	return check_main();
}
