/*
 * Tests for the agent CLI's API errors (common/agent/api_error.c) and the
 * project's pause (common/run/apipause.c): the table holds every error
 * Claude Code's StopFailure names, each with its class (only the issue's
 * own work counts against the issue; "unknown" and a value the table
 * does not have are either's, judged by evidence; a vague name gives way
 * to the project's error its words name);
 * the screen's lines name their error, and an error the agent went on
 * from, or one it still retries, is no end; a rate limit's reset time;
 * the pause's schedule (5 minutes doubled to 2 hours, never before the
 * reset), its recurrence and resume, and the records read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_error.h"
#include "apipause.h"
#include "check.h"
#include "file.h"

static char dir[] = "/tmp/test_api_error.XXXXXX";

/* The names Claude Code 2.1 gives StopFailure, as its docs list them. */
static const char *const cli_names[] = {"rate_limit", "overloaded",
    "authentication_failed", "oauth_org_not_allowed", "account_on_hold",
    "verification_required", "billing_error", "invalid_request",
    "model_not_found", "server_error", "max_output_tokens",
    "cloud_credential_error", "unknown"};

static void
test_api_error_table(void)
{
	const struct api_error *t;
	size_t i, n, issue = 0;

	for (i = 0; i < sizeof(cli_names) / sizeof(cli_names[0]); i++)
		CHECK(api_error_find(cli_names[i]) != NULL);
	t = api_error_table(&n);
	CHECK_INT(n, sizeof(cli_names) / sizeof(cli_names[0]) + 1);
	for (i = 0; i < n; i++) {
		CHECK(t[i].what != NULL && *t[i].what != '\0');
		issue += t[i].cls == API_ERROR_ISSUE;
	}
	CHECK_INT(issue, 2);
	CHECK_INT(api_error_class("max_output_tokens"), API_ERROR_ISSUE);
	CHECK_INT(api_error_class("invalid_request"), API_ERROR_ISSUE);
	CHECK_INT(api_error_class("rate_limit"), API_ERROR_PROJECT);
	CHECK_INT(api_error_class("model_not_found"), API_ERROR_PROJECT);
	CHECK_INT(api_error_class("server_error"), API_ERROR_PROJECT);
	/* Claude Code 2.1 names a plain 400 "unknown": either's. */
	CHECK_INT(api_error_class("unknown"), API_ERROR_EITHER);
	/* A later CLI's name: either's too. */
	CHECK(api_error_find("quota_exhausted") == NULL);
	CHECK_INT(api_error_class("quota_exhausted"), API_ERROR_EITHER);
	CHECK_INT(api_error_class(NULL), API_ERROR_EITHER);
	CHECK_STR(api_error_class_name(API_ERROR_ISSUE), "issue");
	CHECK_STR(api_error_class_name(API_ERROR_EITHER), "either");
	CHECK_STR(api_error_class_name(API_ERROR_PROJECT), "project");
	CHECK_STR(API_ERROR_MATCHER, "*");
}

/* A vague name and the CLI's words for it (Claude Code 2.1.197 runs). */
static void
test_api_error_refine(void)
{
	/* A 529 named server_error: overloaded. */
	CHECK_STR(api_error_refine("server_error",
		      "API Error: 529 {\"type\":\"error\",\"error\":{"
		      "\"type\":\"overloaded_error\"}}"),
	    "overloaded");
	CHECK_STR(api_error_refine("server_error",
		      "API Error: 500 Internal server error"),
	    "server_error");
	/* A plain 400 named unknown stays unknown: no issue from words. */
	CHECK_STR(api_error_refine("unknown", "API Error: 400 scripted error"),
	    "unknown");
	CHECK_STR(api_error_refine("unknown",
		      "API Error: 400 {\"type\":\"error\",\"error\":{"
		      "\"type\":\"invalid_request_error\"}}"),
	    "unknown");
	CHECK_STR(api_error_refine("unknown",
		      "API Error: Request rejected (429) · scripted error"),
	    "rate_limit");
	CHECK_STR(api_error_refine("quota_exhausted",
		      "API Error: 401 invalid x-api-key"),
	    "authentication_failed");
	/* A precise name is kept whatever the words. */
	CHECK_STR(api_error_refine("invalid_request", "API Error: 529 x"),
	    "invalid_request");
	CHECK_STR(api_error_refine("rate_limit", "API Error: 500 x"),
	    "rate_limit");
	CHECK_STR(api_error_refine("unknown", NULL), "unknown");
	CHECK_STR(api_error_refine("unknown", ""), "unknown");
}

static void
test_api_error_lines(void)
{
	static const struct {
		const char *line, *name;
	} cases[] = {
	    {"API Error: 529 Overloaded. This is a server-side issue, usually "
	     "temporary",
		"overloaded"},
	    {"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":"
	     "\"overloaded_error\",\"message\":\"Overloaded\"}}",
		"overloaded"},
	    {"API Error: Request rejected (429) · This request would exceed "
	     "your account's rate limit.",
		"rate_limit"},
	    {"You've hit your session limit · resets 5:40pm (Europe/Berlin)",
		"rate_limit"},
	    {"Claude usage limit reached. Your limit will reset at 9am.",
		"rate_limit"},
	    {"API Error: 404 {\"type\":\"error\",\"error\":{\"type\":"
	     "\"not_found_error\",\"message\":\"model: claude-x\"}}",
		"model_not_found"},
	    {"API Error: 400 {\"type\":\"error\",\"error\":{\"type\":"
	     "\"invalid_request_error\",\"message\":\"bad\"}}",
		"invalid_request"},
	    {"API Error: 400 {\"type\":\"error\",\"error\":{\"type\":"
	     "\"invalid_request_error\",\"message\":\"Your credit balance is "
	     "too low\"}}",
		"billing_error"},
	    {"API Error: 401 {\"type\":\"error\",\"error\":{\"type\":"
	     "\"authentication_error\"}} · Please run /login",
		"authentication_failed"},
	    {"API Error: 500 {\"type\":\"error\",\"error\":{\"type\":"
	     "\"api_error\",\"message\":\"Internal server error\"}}",
		"server_error"},
	    {"API Error: 503 upstream connect error", "server_error"},
	    {"API Error: Connection error.", "network"},
	    {"API Error: Request timed out.", "network"},
	    {"API Error: something new", "unknown"},
	    /* A request id's digits are no status. */
	    {"API Error: {\"request_id\":\"req_429529\"}", "unknown"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(api_error_of_line(cases[i].line), cases[i].name);
}

#define RULE                                                               \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2" \
	"\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
#define BOX RULE "\n\xe2\x9d\xaf\xc2\xa0\n" RULE "\n"

static void
test_api_error_screen(void)
{
	char type[64], line[256];

	/* The error, then the input box: the turn ended on it. */
	CHECK_INT(api_error_screen(BOX "> fix the parser\n\n  \xe2\x8e\xbf  "
				       "API Error: 404 {\"type\":\"error\"}\n"
				       "\n" BOX,
		      type, sizeof(type), line, sizeof(line)),
	    1);
	CHECK_STR(type, "model_not_found");
	CHECK_STR(line, "API Error: 404 {\"type\":\"error\"}");
	/* A message typed since: resumed, no end. */
	CHECK_INT(api_error_screen("  \xe2\x8e\xbf  API Error: 500 x\n"
				   "> continue where you stopped\n" BOX,
		      type, sizeof(type), line, sizeof(line)),
	    0);
	/* The agent answered since. */
	CHECK_INT(api_error_screen("API Error: 500 x\n\xe2\x8f\xba Done.\n" BOX,
		      type, sizeof(type), line, sizeof(line)),
	    0);
	/* Still retrying. */
	CHECK_INT(api_error_screen("  \xe2\x8e\xbf  API Error (529 "
				   "{\"type\":\"error\"}) · Retrying in 4 "
				   "seconds… (attempt 4/10)\n" BOX,
		      type, sizeof(type), line, sizeof(line)),
	    0);
	CHECK_INT(api_error_screen("API Error: 500 x\n\xe2\x9c\xbb "
				   "Thinking… (esc to interrupt)\n" BOX,
		      type, sizeof(type), line, sizeof(line)),
	    0);
	/* No error at all. */
	CHECK_INT(api_error_screen(BOX, type, sizeof(type), line, sizeof(line)),
	    0);
	CHECK_INT(api_error_screen("", type, sizeof(type), line, sizeof(line)),
	    0);
	/* The last of two errors counts; control bytes made printable. */
	CHECK_INT(
	    api_error_screen("API Error: 429 a\nAPI Error: 529 \x1b[31mb\n"
			     "\xe2\x9c\xbb Worked for 3s\n" BOX,
		type, sizeof(type), line, sizeof(line)),
	    1);
	CHECK_STR(type, "overloaded");
	CHECK(strchr(line, '\x1b') == NULL);
}

static void
test_api_error_reset(void)
{
	struct tm tm;
	time_t now, t;

	/* 10:00 local time today. */
	now = time(NULL);
	localtime_r(&now, &tm);
	tm.tm_hour = 10;
	tm.tm_min = 0;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	now = mktime(&tm);
	t = api_error_reset("You've hit your session limit · resets 5:40pm "
			    "(Europe/Berlin)",
	    now);
	localtime_r(&t, &tm);
	CHECK_INT(tm.tm_hour, 17);
	CHECK_INT(tm.tm_min, 40);
	CHECK(t > now && t - now < 24 * 3600);
	/* Earlier in the day than now: tomorrow's. */
	t = api_error_reset("Your limit will reset at 9am (America/Chicago).",
	    now);
	localtime_r(&t, &tm);
	CHECK_INT(tm.tm_hour, 9);
	CHECK(t > now && t - now > 22 * 3600 && t - now < 24 * 3600);
	t = api_error_reset("resets 12am", now);
	localtime_r(&t, &tm);
	CHECK_INT(tm.tm_hour, 0);
	CHECK_INT(api_error_reset("Claude AI usage limit reached|1000", 900),
	    1000);
	CHECK_INT(api_error_reset("Claude AI usage limit reached|800", 900), 0);
	CHECK_INT(api_error_reset("limit reached|99999999", 900), 0);
	CHECK_INT(api_error_reset("resets 13pm", now), 0);
	CHECK_INT(api_error_reset("resets soon", now), 0);
	CHECK_INT(api_error_reset("API Error: 500", now), 0);
	CHECK_INT(api_error_reset(NULL, now), 0);
}

static void
test_apipause_schedule(void)
{
	struct apipause p;
	struct apierr e;

	CHECK_INT(apipause_delay(1), 300);
	CHECK_INT(apipause_delay(2), 600);
	CHECK_INT(apipause_delay(5), 4800);
	CHECK_INT(apipause_delay(6), APIPAUSE_MAX_S);
	CHECK_INT(apipause_delay(100), APIPAUSE_MAX_S);
	memset(&p, 0, sizeof(p));
	memset(&e, 0, sizeof(e));
	snprintf(e.error, sizeof(e.error), "rate_limit");
	e.at = 1000;
	CHECK_INT(apipause_note(&p, &e, 1000), APIPAUSE_NEW);
	CHECK_INT(p.since, 1000);
	CHECK_INT(p.until, 1300);
	CHECK_INT(p.count, 1);
	CHECK_STR(p.reason, "rate_limit");
	CHECK(apipause_active(&p, 1299));
	CHECK(!apipause_active(&p, 1300));
	/* Another session stopped by it, its reset later: held longer. */
	e.reset = 2000;
	CHECK_INT(apipause_note(&p, &e, 1100), APIPAUSE_SAME);
	CHECK_INT(p.until, 2000);
	/* Over: the session's turn to go on. */
	CHECK_INT(apipause_note(&p, &e, 2000), APIPAUSE_RESUME);
	p.resumed = 2000;
	/* An error from before the resume: resumed too. */
	CHECK_INT(apipause_note(&p, &e, 2100), APIPAUSE_RESUME);
	/* One after it: a recurrence, twice the wait. */
	snprintf(e.error, sizeof(e.error), "server_error");
	e.at = 2000;
	e.reset = 0;
	CHECK_INT(apipause_note(&p, &e, 2050), APIPAUSE_RECURRENCE);
	CHECK_INT(p.count, 2);
	CHECK_INT(p.until, 2650);
	CHECK_INT(p.resumed, 0);
	CHECK_INT(p.since, 1000);
	CHECK_STR(p.reason, "server_error");
}

static void
test_apipause_records(void)
{
	char path[256], desc[256], *text;
	struct apipause p, r;
	struct apierr e, re;

	snprintf(path, sizeof(path), "%s/api-pause-p", dir);
	CHECK_INT(apipause_read(path, &r), 0);
	CHECK_INT(r.since, 0);
	memset(&p, 0, sizeof(p));
	p.since = 1700000000;
	p.until = 1700000300;
	p.count = 2;
	p.probed = 1700000001;
	p.probe = 429;
	p.retry_after = 3600;
	snprintf(p.reason, sizeof(p.reason), "overloaded");
	text = apipause_text(&p);
	CHECK_STR(text,
	    "SINCE: 1700000000\nUNTIL: 1700000300\nREASON: "
	    "overloaded\nCOUNT: 2\nRESUMED: 0\nPROBED: 1700000001\n"
	    "PROBE: 429\nRETRY_AFTER: 3600\n");
	CHECK_INT(file_write_atomic(path, text, strlen(text), 0644, 0), 0);
	free(text);
	CHECK_INT(apipause_read(path, &r), 0);
	CHECK_INT(r.until, 1700000300);
	CHECK_INT(r.count, 2);
	CHECK_INT(r.probed, 1700000001);
	CHECK_INT(r.probe, 429);
	CHECK_INT(r.retry_after, 3600);
	CHECK_STR(r.reason, "overloaded");
	apipause_describe(&r, desc, sizeof(desc));
	CHECK_STR(desc,
	    "overloaded since 2023-11-14T22:13:20Z until "
	    "2023-11-14T22:18:20Z (pause 2)");
	unlink(path);

	snprintf(path, sizeof(path), "%s/api-error-s", dir);
	CHECK_INT(apierr_read(path, &re), 0);
	memset(&e, 0, sizeof(e));
	snprintf(e.error, sizeof(e.error), "rate_limit\n; rm -rf /");
	snprintf(e.source, sizeof(e.source), "hook");
	e.at = 5;
	e.reset = 9;
	text = apierr_text(&e);
	CHECK_STR(text,
	    "ERROR: rate_limitrmrf\nAT: 5\nRESET: 9\nSOURCE: "
	    "hook\n");
	CHECK_INT(file_write_atomic(path, text, strlen(text), 0644, 0), 0);
	free(text);
	CHECK_INT(apierr_read(path, &re), 1);
	CHECK_STR(re.error, "rate_limitrmrf");
	CHECK_INT(re.at, 5);
	CHECK_INT(re.reset, 9);
	CHECK_STR(re.source, "hook");
	unlink(path);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_api_error_table);
	RUN(test_api_error_refine);
	RUN(test_api_error_lines);
	RUN(test_api_error_screen);
	RUN(test_api_error_reset);
	RUN(test_apipause_schedule);
	RUN(test_apipause_records);
	rmdir(dir);
	return check_main();
}
