/*
 * The agent CLI's API errors (see api_error.h).  The names are those of
 * Claude Code's StopFailure hook (2.1: the hook input's "error", the
 * matcher's value); the screen texts are the lines it prints when a turn
 * ends on one ("API Error: 529 Overloaded. This is a server-side issue,
 * ...", "API Error: Request rejected (429) · ...", "API Error: 404
 * {"type":"error","error":{"type":"not_found_error",...}}", "You've hit
 * your session limit · resets 5:40pm (Europe/Berlin)").  While it still
 * retries it says so on the line ("Retrying in 4 seconds… (attempt
 * 4/10)") and shows "esc to interrupt": not an end.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_error.h"
#include "buf.h"
#include "termsafe.h"
#include "utf8.h"

/* A reset further away than this is not believed. */
#define API_ERROR_RESET_MAX (8 * 24 * 60 * 60)
/* The longest screen line looked at. */
#define API_ERROR_LINE_MAX 2048

static const struct api_error api_errors[] = {
    {"rate_limit", API_ERROR_PROJECT,
	"a rate or usage limit of the account (429)"},
    {"overloaded", API_ERROR_PROJECT, "the API is overloaded (529)"},
    {"authentication_failed", API_ERROR_PROJECT,
	"the login or the API key was refused (401)"},
    {"oauth_org_not_allowed", API_ERROR_PROJECT,
	"the login's organisation may not use the CLI"},
    {"account_on_hold", API_ERROR_PROJECT, "the account is on hold"},
    {"verification_required", API_ERROR_PROJECT,
	"the account must be verified"},
    {"billing_error", API_ERROR_PROJECT,
	"billing: no credit left, or a spend limit"},
    {"invalid_request", API_ERROR_ISSUE,
	"the request was invalid (400): the issue's prompt or context"},
    {"model_not_found", API_ERROR_PROJECT,
	"the configured model does not exist (404)"},
    {"server_error", API_ERROR_PROJECT, "the API failed (5xx)"},
    {"max_output_tokens", API_ERROR_ISSUE,
	"the answer went past the output token limit"},
    {"cloud_credential_error", API_ERROR_PROJECT,
	"the cloud provider's credentials were refused"},
    {"unknown", API_ERROR_EITHER,
	"an error the CLI could not name (a plain 400 among them)"},
    /* Not a name of the hook's: the screen's connection errors. */
    {"network", API_ERROR_PROJECT, "the API could not be reached"},
};

#define API_ERROR_N (sizeof(api_errors) / sizeof(api_errors[0]))

static int api_error_has(const char *, const char *);
static int api_error_status(const char *);
static const char *api_error_by_status(int);
static int api_error_is_line(const char *);
static int api_error_goes_on(const char *);
static const char *api_error_trim(const char *);
static time_t api_error_clock(const char *, time_t);

const struct api_error *
api_error_table(size_t *n)
{
	*n = API_ERROR_N;
	return api_errors;
}

const struct api_error *
api_error_find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < API_ERROR_N; i++)
		if (strcmp(api_errors[i].name, name) == 0)
			return &api_errors[i];
	return NULL;
}

enum api_error_class
api_error_class(const char *name)
{
	const struct api_error *e = api_error_find(name);

	return e != NULL ? e->cls : API_ERROR_EITHER;
}

const char *
api_error_refine(const char *name, const char *text)
{
	const char *by_text;

	if (name != NULL && api_error_find(name) != NULL &&
	    strcmp(name, "unknown") != 0 && strcmp(name, "server_error") != 0)
		return name;
	if (text == NULL || *text == '\0')
		return name;
	by_text = api_error_of_line(text);
	return api_error_class(by_text) == API_ERROR_PROJECT ? by_text : name;
}

const char *
api_error_class_name(enum api_error_class c)
{
	switch (c) {
	case API_ERROR_ISSUE:
		return "issue";
	case API_ERROR_EITHER:
		return "either";
	default:
		return "project";
	}
}

/* Whether s holds needle, ASCII case ignored. */
static int
api_error_has(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s != '\0'; s++)
		if (strncasecmp(s, needle, n) == 0)
			return 1;
	return 0;
}

/*
 * The HTTP status a line names right after "API Error: ", "API Error (",
 * or "rejected (", or 0.
 */
static int
api_error_status(const char *line)
{
	static const char *const leads[] = {"API Error: ", "API Error (",
	    "rejected (", NULL};
	const char *const *l;
	const char *p;

	for (l = leads; *l != NULL; l++) {
		for (p = line; (p = strstr(p, *l)) != NULL; p++) {
			p += strlen(*l);
			if (isdigit((unsigned char)p[0]) &&
			    isdigit((unsigned char)p[1]) &&
			    isdigit((unsigned char)p[2]) &&
			    !isdigit((unsigned char)p[3]))
				return atoi(p);
			p--;
		}
	}
	return 0;
}

/* The error of an HTTP status alone, or NULL. */
static const char *
api_error_by_status(int status)
{
	switch (status) {
	case 429:
		return "rate_limit";
	case 529:
		return "overloaded";
	case 401:
	case 403:
		return "authentication_failed";
	case 404:
		return "model_not_found";
	case 400:
	case 413:
	case 422:
		return "invalid_request";
	default:
		return status >= 500 && status < 600 ? "server_error" : NULL;
	}
}

const char *
api_error_of_line(const char *line)
{
	static const struct {
		const char *text, *name;
	} words[] = {
	    {"credit balance", "billing_error"},
	    {"billing", "billing_error"},
	    {"rate_limit", "rate_limit"},
	    {"rate limit", "rate_limit"},
	    {"usage limit", "rate_limit"},
	    {"session limit", "rate_limit"},
	    {"weekly limit", "rate_limit"},
	    {"hit your limit", "rate_limit"},
	    {"overloaded", "overloaded"},
	    {"authentication", "authentication_failed"},
	    {"invalid api key", "authentication_failed"},
	    {"oauth token", "authentication_failed"},
	    {"/login", "authentication_failed"},
	    {"not_found_error", "model_not_found"},
	    {"output token maximum", "max_output_tokens"},
	    {"max_tokens", "max_output_tokens"},
	    {"invalid_request", "invalid_request"},
	    {"prompt is too long", "invalid_request"},
	    {"internal server error", "server_error"},
	    {"connection error", "network"},
	    {"timed out", "network"},
	    {"unable to connect", "network"},
	    {"fetch failed", "network"},
	    {"econnre", "network"},
	    {"enotfound", "network"},
	};
	const char *by_status = api_error_by_status(api_error_status(line));
	size_t i;

	/* A 400 may be billing's ("Your credit balance is too low"). */
	for (i = 0; i < 2; i++)
		if (api_error_has(line, words[i].text))
			return words[i].name;
	if (by_status != NULL)
		return by_status;
	for (; i < sizeof(words) / sizeof(words[0]); i++)
		if (api_error_has(line, words[i].text))
			return words[i].name;
	return "unknown";
}

/* Whether a (trimmed) line is one of the CLI's API error lines. */
static int
api_error_is_line(const char *s)
{
	return strncmp(s, "API Error", 9) == 0 ||
	    api_error_has(s, "usage limit reached") ||
	    (strncmp(s, "You've hit your", 15) == 0 &&
		api_error_has(s, "limit")) ||
	    api_error_has(s, "Unable to connect to Anthropic") ||
	    api_error_has(s, "Credit balance is too low") ||
	    api_error_has(s, "Invalid API key");
}

/*
 * Whether a (trimmed) line after the error shows the agent at work or
 * taken further: a message typed into it ("> ...", "❯ ..."), an answer
 * or a tool's ("⏺", "●"), its spinner's "esc to interrupt".
 */
static int
api_error_goes_on(const char *s)
{
	return s[0] == '>' || strncmp(s, "\xe2\x9d\xaf", 3) == 0 ||
	    strncmp(s, "\xe2\x8f\xba", 3) == 0 ||
	    strncmp(s, "\xe2\x97\x8f", 3) == 0 ||
	    api_error_has(s, "esc to interrupt");
}

/* s without leading blanks and the transcript's "⎿" (U+23BF). */
static const char *
api_error_trim(const char *s)
{
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, "\xe2\x8e\xbf", 3) != 0)
			return s;
		s += 3;
	}
}

int
api_error_screen(const char *screen, char *type, size_t typesz, char *line,
    size_t linesz)
{
	char text[API_ERROR_LINE_MAX];
	const char *p, *nl, *s;
	struct buf clean;
	size_t len;
	int found = 0, rule = 0;

	for (p = screen; p != NULL && *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof(text))
			len = sizeof(text) - 1;
		memcpy(text, p, len);
		text[len] = '\0';
		s = api_error_trim(text);
		/* A rule, and the input box's line below one, are drawing. */
		if (strncmp(s, "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80", 9) ==
		    0) {
			rule = 1;
		} else if (rule && strncmp(s, "\xe2\x9d\xaf", 3) == 0) {
			rule = 0;
		} else if (api_error_is_line(s) &&
		    !api_error_has(s, "Retrying in")) {
			rule = 0;
			found = 1;
			snprintf(type, typesz, "%s", api_error_of_line(s));
			buf_init(&clean, 0);
			termsafe_line(s, strlen(s),
			    linesz > 48 ? linesz - 48 : 0, &clean);
			len = utf8_prefix_len(buf_str(&clean), clean.len,
			    linesz - 1);
			memcpy(line, buf_str(&clean), len);
			line[len] = '\0';
			buf_free(&clean);
		} else {
			rule = 0;
			if (found && api_error_goes_on(s))
				found = 0;
		}
		if (nl == NULL)
			break;
	}
	return found;
}

/*
 * The next time after now the host's clock shows the "H[:MM]am|pm" at
 * s, or 0 when s is no such time.
 */
static time_t
api_error_clock(const char *s, time_t now)
{
	char *end;
	long h, m = 0;
	struct tm tm;
	time_t t;

	if (!isdigit((unsigned char)*s))
		return 0;
	h = strtol(s, &end, 10);
	if (*end == ':') {
		if (!isdigit((unsigned char)end[1]))
			return 0;
		m = strtol(end + 1, &end, 10);
	}
	if (h < 1 || h > 12 || m < 0 || m > 59)
		return 0;
	if (strncasecmp(end, "pm", 2) == 0)
		h = h % 12 + 12;
	else if (strncasecmp(end, "am", 2) == 0)
		h = h % 12;
	else
		return 0;
	localtime_r(&now, &tm);
	tm.tm_hour = (int)h;
	tm.tm_min = (int)m;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) != (time_t)-1 && t <= now) {
		tm.tm_mday++;
		tm.tm_isdst = -1;
		t = mktime(&tm);
	}
	return t == (time_t)-1 ? 0 : t;
}

time_t
api_error_reset(const char *text, time_t now)
{
	const char *p, *q;
	time_t t = 0;
	long long v;

	for (p = text; t == 0 && p != NULL && (p = strstr(p, "reset")) != NULL;
	     p++) {
		q = p + 5;
		if (*q == 's')
			q++;
		while (*q == ' ')
			q++;
		if (strncmp(q, "at ", 3) == 0)
			q += 3;
		t = api_error_clock(q, now);
	}
	/* The older CLI's "Claude AI usage limit reached|1766502000". */
	if (t == 0 && text != NULL && (p = strstr(text, "limit reached|")) &&
	    isdigit((unsigned char)p[14])) {
		v = strtoll(p + 14, NULL, 10);
		t = (time_t)v;
	}
	if (t <= now || t - now > API_ERROR_RESET_MAX)
		return 0;
	return t;
}
