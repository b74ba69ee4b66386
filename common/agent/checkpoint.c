/*
 * The checkpoint of an agent run: read, check every field's type and the
 * rules of its status, keep what the reactions need.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "checkpoint.h"
#include "file.h"
#include "json.h"
#include "valid.h"
#include "xmalloc.h"

static int checkpoint_bad(char *, size_t, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static int checkpoint_str(const cJSON *, const char *, int, const char *,
    char **, char *, size_t);
static int checkpoint_digits(const char **, int);
static int checkpoint_iso_time(const char *);
static int checkpoint_timestamp(const cJSON *, char **, char *, size_t);
static int checkpoint_status(const cJSON *, enum checkpoint_status *, char *,
    size_t);
static int checkpoint_bool_text(const char *, int *);
static int checkpoint_recoverable(const cJSON *, int *, char *, size_t);
static int checkpoint_context(const cJSON *, char **, char *, size_t);
static int checkpoint_outputs(const cJSON *, struct checkpoint *, char *,
    size_t);
static int checkpoint_rules(const struct checkpoint *, char *, size_t);
static int checkpoint_fields(const cJSON *, struct checkpoint *, char *,
    size_t);

static int
checkpoint_bad(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * obj[key] as a string into *out: absent (or null, when nullable) is
 * def; any other type is an error.
 */
static int
checkpoint_str(const cJSON *obj, const char *key, int nullable, const char *def,
    char **out, char *err, size_t errsz)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL || (nullable && cJSON_IsNull(v))) {
		*out = xstrdup(def);
		return 0;
	}
	if (!cJSON_IsString(v))
		return checkpoint_bad(err, errsz, "'%s': expected a string%s",
		    key, nullable ? " or null" : "");
	*out = xstrdup(v->valuestring);
	return 0;
}

/* Exactly n digits at *p, stepped over: 1, else 0. */
static int
checkpoint_digits(const char **p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)(*p)[i]))
			return 0;
	*p += n;
	return 1;
}

/*
 * An ISO 8601 date, or date-time: YYYY-MM-DD[(T| )HH:MM[:SS[.F]][Z|+HH:MM
 * |-HH:MM|+HHMM]].  1 when s is one, else 0.
 */
static int
checkpoint_iso_time(const char *s)
{
	const char *p = s;

	if (!checkpoint_digits(&p, 4) || *p++ != '-' ||
	    !checkpoint_digits(&p, 2) || *p++ != '-' ||
	    !checkpoint_digits(&p, 2))
		return 0;
	if (*p == '\0')
		return 1;
	if ((*p != 'T' && *p != 't' && *p != ' ') ||
	    (p++, !checkpoint_digits(&p, 2)) || *p++ != ':' ||
	    !checkpoint_digits(&p, 2))
		return 0;
	if (*p == ':' && (p++, !checkpoint_digits(&p, 2)))
		return 0;
	if (*p == '.' || *p == ',') {
		p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'Z' || *p == 'z')
		return p[1] == '\0';
	if (*p == '+' || *p == '-') {
		p++;
		if (!checkpoint_digits(&p, 2))
			return 0;
		if (*p == ':')
			p++;
		return checkpoint_digits(&p, 2) && *p == '\0';
	}
	return *p == '\0';
}

static int
checkpoint_timestamp(const cJSON *obj, char **out, char *err, size_t errsz)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "timestamp");
	char num[64];

	if (v == NULL) {
		*out = xstrdup("");
		return 0;
	}
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		snprintf(num, sizeof(num), "%.0f", v->valuedouble);
		*out = xstrdup(num);
		return 0;
	}
	if (!cJSON_IsString(v) || !checkpoint_iso_time(v->valuestring))
		return checkpoint_bad(err, errsz,
		    "'timestamp': expected an ISO 8601 date-time or a number");
	*out = xstrdup(v->valuestring);
	return 0;
}

static int
checkpoint_status(const cJSON *obj, enum checkpoint_status *out, char *err,
    size_t errsz)
{
	static const enum checkpoint_status all[] = {CHECKPOINT_DONE,
	    CHECKPOINT_BLOCKED, CHECKPOINT_FAILED};
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "status");
	size_t i;

	if (v == NULL)
		return checkpoint_bad(err, errsz, "'status' is missing");
	for (i = 0; cJSON_IsString(v) && i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(v->valuestring, checkpoint_status_name(all[i])) ==
		    0) {
			*out = all[i];
			return 0;
		}
	return checkpoint_bad(err, errsz,
	    "'status': expected \"DONE\", \"BLOCKED_NEEDS_INPUT\" or "
	    "\"FAILED\"");
}

/* The words a lax boolean takes: 0 or 1 into *out, else -1. */
static int
checkpoint_bool_text(const char *s, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1", "t", "y",
	    NULL};
	static const char *const no[] = {"false", "no", "off", "0", "f", "n",
	    NULL};
	size_t i;

	for (i = 0; yes[i] != NULL; i++)
		if (strcasecmp(s, yes[i]) == 0)
			return *out = 1, 0;
	for (i = 0; no[i] != NULL; i++)
		if (strcasecmp(s, no[i]) == 0)
			return *out = 0, 0;
	return -1;
}

/* true/false, 0/1 or a boolean word; absent is true. */
static int
checkpoint_recoverable(const cJSON *obj, int *out, char *err, size_t errsz)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "recoverable");

	*out = 1;
	if (v == NULL)
		return 0;
	if (cJSON_IsBool(v)) {
		*out = cJSON_IsTrue(v);
		return 0;
	}
	if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1)) {
		*out = v->valuedouble == 1;
		return 0;
	}
	if (cJSON_IsString(v) && checkpoint_bool_text(v->valuestring, out) == 0)
		return 0;
	return checkpoint_bad(err, errsz, "'recoverable': expected a boolean");
}

static int
checkpoint_context(const cJSON *obj, char **out, char *err, size_t errsz)
{
	const cJSON *v =
	    cJSON_GetObjectItemCaseSensitive(obj, "question_context");

	if (v == NULL || cJSON_IsNull(v)) {
		*out = xstrdup("");
		return 0;
	}
	if (!cJSON_IsObject(v))
		return checkpoint_bad(err, errsz,
		    "'question_context': expected an object or null");
	*out = json_print(v);
	return 0;
}

/* outputs: an object (absent: empty), free-form; its PR when it names one. */
static int
checkpoint_outputs(const cJSON *obj, struct checkpoint *c, char *err,
    size_t errsz)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "outputs");
	const cJSON *n;
	const char *url;
	long long pr;

	c->pr_url = xstrdup("");
	if (v == NULL)
		return 0;
	if (!cJSON_IsObject(v))
		return checkpoint_bad(err, errsz,
		    "'outputs': expected an object");
	n = cJSON_GetObjectItemCaseSensitive(v, "pr_number");
	if (json_item_int(n, &pr) == 0 && valid_number(pr) == NULL)
		c->pr_number = pr;
	else if (cJSON_IsString(n) &&
	    valid_number_text(n->valuestring, &pr) == NULL)
		c->pr_number = pr;
	if ((url = json_str(v, "pr_url")) != NULL) {
		free(c->pr_url);
		c->pr_url = xstrdup(url);
	}
	return 0;
}

/* What each status needs besides the common fields. */
static int
checkpoint_rules(const struct checkpoint *c, char *err, size_t errsz)
{
	if (c->status == CHECKPOINT_BLOCKED && *c->question == '\0')
		return checkpoint_bad(err, errsz,
		    "'question' is required when status is "
		    "BLOCKED_NEEDS_INPUT");
	if (c->status == CHECKPOINT_FAILED && *c->error == '\0')
		return checkpoint_bad(err, errsz,
		    "'error' is required when status is FAILED");
	return 0;
}

static int
checkpoint_fields(const cJSON *j, struct checkpoint *c, char *err, size_t errsz)
{
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(j, "session_id");

	if (!cJSON_IsObject(j))
		return checkpoint_bad(err, errsz, "expected a JSON object");
	if (sid == NULL)
		return checkpoint_bad(err, errsz, "'session_id' is missing");
	if (checkpoint_status(j, &c->status, err, errsz) == -1 ||
	    checkpoint_str(j, "version", 0, "1", &c->version, err, errsz) ==
		-1 ||
	    checkpoint_str(j, "session_id", 0, "", &c->session_id, err,
		errsz) == -1 ||
	    checkpoint_timestamp(j, &c->timestamp, err, errsz) == -1 ||
	    checkpoint_str(j, "summary", 1, "", &c->summary, err, errsz) ==
		-1 ||
	    checkpoint_str(j, "question", 1, "", &c->question, err, errsz) ==
		-1 ||
	    checkpoint_context(j, &c->question_context, err, errsz) == -1 ||
	    checkpoint_str(j, "error", 1, "", &c->error, err, errsz) == -1 ||
	    checkpoint_recoverable(j, &c->recoverable, err, errsz) == -1 ||
	    checkpoint_outputs(j, c, err, errsz) == -1)
		return -1;
	return checkpoint_rules(c, err, errsz);
}

int
checkpoint_parse(const char *text, size_t len, struct checkpoint *out,
    char *err, size_t errsz)
{
	char why[256];
	cJSON *j;
	int r;

	memset(out, 0, sizeof(*out));
	if (len > CHECKPOINT_MAX)
		return checkpoint_bad(err, errsz, "longer than %d bytes",
		    CHECKPOINT_MAX);
	if ((j = json_parse(text, len, why, sizeof(why))) == NULL)
		return checkpoint_bad(err, errsz, "not JSON: %s", why);
	if ((r = checkpoint_fields(j, out, err, errsz)) == -1)
		checkpoint_free(out);
	cJSON_Delete(j);
	return r;
}

int
checkpoint_load(const char *path, struct checkpoint *out, char *err,
    size_t errsz)
{
	struct buf b;
	int r;

	memset(out, 0, sizeof(*out));
	buf_init(&b, 0);
	r = file_read(path, CHECKPOINT_MAX, &b);
	if (r == -1 && errno == ENOENT)
		r = 1;
	else if (r == -1)
		r = checkpoint_bad(err, errsz, "cannot read: %s",
		    strerror(errno));
	else if (r == 1)
		r = checkpoint_bad(err, errsz, "longer than %d bytes",
		    CHECKPOINT_MAX);
	else
		r = checkpoint_parse(buf_str(&b), b.len, out, err, errsz);
	buf_free(&b);
	return r;
}

void
checkpoint_free(struct checkpoint *c)
{
	free(c->version);
	free(c->session_id);
	free(c->timestamp);
	free(c->summary);
	free(c->question);
	free(c->question_context);
	free(c->error);
	free(c->pr_url);
	memset(c, 0, sizeof(*c));
}

const char *
checkpoint_status_name(enum checkpoint_status s)
{
	switch (s) {
	case CHECKPOINT_DONE:
		return "DONE";
	case CHECKPOINT_BLOCKED:
		return "BLOCKED_NEEDS_INPUT";
	case CHECKPOINT_FAILED:
		return "FAILED";
	}
	return "";
}

char *
checkpoint_agent_session(const char *text, size_t len)
{
	char why[128], *id = NULL;
	const char *s;
	cJSON *j;

	if (len > CHECKPOINT_MAX * 4 ||
	    (j = json_parse(text, len, why, sizeof(why))) == NULL)
		return NULL;
	if ((s = json_str(j, "session_id")) != NULL && *s != '\0')
		id = xstrdup(s);
	cJSON_Delete(j);
	return id;
}
