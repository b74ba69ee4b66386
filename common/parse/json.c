/*
 * Typed accessors over cJSON: fields of the wrong type read as missing,
 * numbers are integers only when they really are.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "file.h"
#include "json.h"
#include "valid.h"
#include "xmalloc.h"

#define JSON_KEY_MAX 128

/* 2^63: the first double that no longer fits a long long. */
#define JSON_LL_LIMIT 9223372036854775808.0

static const cJSON *json_field(const cJSON *, const char *);
static int json_digits(const char **, int, int *);
static const char *json_type_of(const cJSON *);
static const char *json_type_want(enum json_type);
static int json_is(const cJSON *, enum json_type);
static int json_walk(const cJSON *, const char *, const cJSON **, size_t *);
static int json_check_field(const cJSON *, const struct json_field *,
    const char *, char *, size_t);
static int json_check_each(const cJSON *, const struct json_field *,
    const char *, char *, size_t);
static int json_check_in(const cJSON *, const struct json_field *, const char *,
    char *, size_t);

cJSON *
json_parse(const char *text, size_t len, char *err, size_t errsz)
{
	const char *end = NULL;
	cJSON *root;
	size_t off;

	if (text == NULL || len == 0) {
		snprintf(err, errsz, "empty JSON text");
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (root == NULL) {
		off = end != NULL && end >= text ? (size_t)(end - text) : 0;
		snprintf(err, errsz, "malformed JSON at byte %zu of %zu", off,
		    len);
		return NULL;
	}
	for (off = (size_t)(end - text); off < len; off++) {
		if (strchr(" \t\r\n", text[off]) == NULL || text[off] == '\0')
			break;
	}
	if (off < len) {
		cJSON_Delete(root);
		snprintf(err, errsz, "trailing data after JSON at byte %zu",
		    off);
		return NULL;
	}
	return root;
}

cJSON *
json_load_object(const char *path, size_t max, char *err, size_t errsz)
{
	cJSON *obj = NULL;
	struct buf b;
	int r;

	buf_init(&b, 0);
	r = file_read(path, max, &b);
	if (r == -1 && errno == ENOENT)
		obj = cJSON_CreateObject();
	else if (r == 0)
		obj = json_parse(buf_str(&b), b.len, err, errsz);
	else
		snprintf(err, errsz, "%s",
		    r == 1 ? "too large" : strerror(errno));
	buf_free(&b);
	if (obj != NULL && !cJSON_IsObject(obj)) {
		snprintf(err, errsz, "not a JSON object");
		cJSON_Delete(obj);
		obj = NULL;
	}
	return obj;
}

char *
json_print(const cJSON *item)
{
	char *p, *s;

	if ((p = cJSON_PrintUnformatted(item)) == NULL)
		abort();
	s = xstrdup(p);
	cJSON_free(p);
	return s;
}

/* obj[key] of any type; NULL when obj is not an object. */
static const cJSON *
json_field(const cJSON *obj, const char *key)
{
	if (obj == NULL || !cJSON_IsObject(obj) || key == NULL)
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *
json_str(const cJSON *obj, const char *key)
{
	return cJSON_GetStringValue(json_field(obj, key));
}

int
json_item_int(const cJSON *item, long long *out)
{
	double v;
	long long n;

	if (item == NULL || !cJSON_IsNumber(item))
		return -1;
	v = item->valuedouble;
	if (!(v >= -JSON_LL_LIMIT && v < JSON_LL_LIMIT))
		return -1;
	n = (long long)v;
	if ((double)n != v)
		return -1;
	*out = n;
	return 0;
}

int
json_int(const cJSON *obj, const char *key, long long *out)
{
	return json_item_int(json_field(obj, key), out);
}

int
json_bool(const cJSON *obj, const char *key, int *out)
{
	const cJSON *item = json_field(obj, key);

	if (item == NULL || !cJSON_IsBool(item))
		return -1;
	*out = cJSON_IsTrue(item) ? 1 : 0;
	return 0;
}

const cJSON *
json_arr(const cJSON *obj, const char *key)
{
	const cJSON *item = json_field(obj, key);

	return cJSON_IsArray(item) ? item : NULL;
}

const cJSON *
json_obj(const cJSON *obj, const char *key)
{
	const cJSON *item = json_field(obj, key);

	return cJSON_IsObject(item) ? item : NULL;
}

const cJSON *
json_at(const cJSON *obj, const char *path)
{
	char key[JSON_KEY_MAX];
	const char *p = path;
	size_t n;

	if (path == NULL)
		return NULL;
	for (;;) {
		n = strcspn(p, ".");
		if (n == 0 || n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		if ((obj = json_field(obj, key)) == NULL)
			return NULL;
		if (p[n] == '\0')
			return obj;
		p += n + 1;
	}
}

const char *
json_str_at(const cJSON *obj, const char *path)
{
	return cJSON_GetStringValue(json_at(obj, path));
}

int
json_int_at(const cJSON *obj, const char *path, long long *out)
{
	return json_item_int(json_at(obj, path), out);
}

int
json_bool_at(const cJSON *obj, const char *path, int *out)
{
	const cJSON *item = json_at(obj, path);

	if (item == NULL || !cJSON_IsBool(item))
		return -1;
	*out = cJSON_IsTrue(item) ? 1 : 0;
	return 0;
}

const cJSON *
json_arr_at(const cJSON *obj, const char *path)
{
	const cJSON *item = json_at(obj, path);

	return cJSON_IsArray(item) ? item : NULL;
}

const cJSON *
json_obj_at(const cJSON *obj, const char *path)
{
	const cJSON *item = json_at(obj, path);

	return cJSON_IsObject(item) ? item : NULL;
}

int
json_has_label(const cJSON *issue, const char *name)
{
	const cJSON *labels, *l;
	const char *s;

	if ((labels = json_arr(issue, "labels")) == NULL || name == NULL)
		return 0;
	cJSON_ArrayForEach (l, labels) {
		if ((s = json_str(l, "name")) != NULL && strcmp(s, name) == 0)
			return 1;
	}
	return 0;
}

/* Read exactly n digits at *p into *out, advancing *p: 0 or -1. */
static int
json_digits(const char **p, int n, int *out)
{
	int v = 0;

	while (n-- > 0) {
		if (!isdigit((unsigned char)**p))
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	*out = v;
	return 0;
}

int
json_time(const cJSON *obj, const char *key, time_t *out)
{
	const char *text = json_str(obj, key), *p = text;
	struct tm tm;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;

	if (text == NULL || json_digits(&p, 4, &y) == -1 || *p++ != '-' ||
	    json_digits(&p, 2, &mo) == -1 || *p++ != '-' ||
	    json_digits(&p, 2, &d) == -1 || (*p != 'T' && *p != ' '))
		return -1;
	p++;
	if (json_digits(&p, 2, &h) == -1 || *p++ != ':' ||
	    json_digits(&p, 2, &mi) == -1 || *p++ != ':' ||
	    json_digits(&p, 2, &sec) == -1)
		return -1;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (json_digits(&p, 2, &oh) == -1)
			return -1;
		if (*p == ':')
			p++;
		if (json_digits(&p, 2, &om) == -1)
			return -1;
	} else if (*p == 'Z')
		p++;
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = timegm(&tm) - sign * (oh * 3600 + om * 60);
	return 0;
}

/* What item is, for a message: "a string", "an array", ... */
static const char *
json_type_of(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsObject(item))
		return "an object";
	if (cJSON_IsArray(item))
		return "an array";
	return "null";
}

static const char *
json_type_want(enum json_type t)
{
	switch (t) {
	case JSON_STRING:
		return "a string";
	case JSON_INT:
		return "an integer";
	case JSON_ID:
		return "an integer from 1 to 2^53-1";
	case JSON_BOOL:
		return "a boolean";
	case JSON_OBJECT:
		return "an object";
	default:
		return "an array";
	}
}

static int
json_is(const cJSON *item, enum json_type t)
{
	long long v;

	switch (t) {
	case JSON_STRING:
		return cJSON_IsString(item) && item->valuestring != NULL;
	case JSON_INT:
		return json_item_int(item, &v) == 0;
	case JSON_ID:
		return json_item_int(item, &v) == 0 && valid_number(v) == NULL;
	case JSON_BOOL:
		return cJSON_IsBool(item);
	case JSON_OBJECT:
		return cJSON_IsObject(item);
	default:
		return cJSON_IsArray(item);
	}
}

/*
 * Follow the dotted path from obj: 1 with the item in *out, 0 when a
 * step is absent or null, -1 when a step before the last is neither an
 * object nor null (*out that step, *len the length of path up to it).
 */
static int
json_walk(const cJSON *obj, const char *path, const cJSON **out, size_t *len)
{
	char key[JSON_KEY_MAX];
	const char *p = path;
	const cJSON *item;
	size_t n;

	for (;;) {
		n = strcspn(p, ".");
		if (n == 0 || n >= sizeof(key))
			return 0;
		memcpy(key, p, n);
		key[n] = '\0';
		item = json_field(obj, key);
		if (item == NULL || cJSON_IsNull(item))
			return 0;
		*out = item;
		*len = (size_t)(p - path) + n;
		if (p[n] == '\0')
			return 1;
		if (!cJSON_IsObject(item))
			return -1;
		obj = item;
		p += n + 1;
	}
}

/* One row of a schema, for obj whose own path is prefix. */
static int
json_check_field(const cJSON *obj, const struct json_field *f,
    const char *prefix, char *err, size_t errsz)
{
	const cJSON *item = NULL;
	size_t len = 0;

	switch (json_walk(obj, f->path, &item, &len)) {
	case -1:
		snprintf(err, errsz, "'%s%.*s' is %s, not an object", prefix,
		    (int)len, f->path, json_type_of(item));
		return -1;
	case 0:
		if (!f->required)
			return 0;
		snprintf(err, errsz, "no '%s%s'", prefix, f->path);
		return -1;
	default:
		break;
	}
	if (!json_is(item, f->type)) {
		snprintf(err, errsz, "'%s%s' is %s, not %s", prefix, f->path,
		    json_type_of(item), json_type_want(f->type));
		return -1;
	}
	if (f->type == JSON_ARRAY && f->each != NULL)
		return json_check_each(item, f, prefix, err, errsz);
	return 0;
}

/* Every element of the array item (the field f) against f->each. */
static int
json_check_each(const cJSON *item, const struct json_field *f,
    const char *prefix, char *err, size_t errsz)
{
	const cJSON *el;
	char *sub;
	int i = 0, r = 0;

	cJSON_ArrayForEach (el, item) {
		sub = xasprintf("%s%s[%d]", prefix, f->path, i++);
		if (!cJSON_IsObject(el)) {
			snprintf(err, errsz, "'%s' is %s, not an object", sub,
			    json_type_of(el));
			r = -1;
		} else
			r = json_check_in(el, f->each, sub, err, errsz);
		free(sub);
		if (r == -1)
			break;
	}
	return r;
}

/* The rows of schema for obj, whose path ("" at the top) is prefix. */
static int
json_check_in(const cJSON *obj, const struct json_field *schema,
    const char *prefix, char *err, size_t errsz)
{
	const struct json_field *f;
	char *dot;
	int r = 0;

	dot = xasprintf("%s%s", prefix, *prefix != '\0' ? "." : "");
	for (f = schema; f->path != NULL && r == 0; f++)
		r = json_check_field(obj, f, dot, err, errsz);
	free(dot);
	return r;
}

int
json_check(const cJSON *obj, const struct json_field *schema, char *err,
    size_t errsz)
{
	if (!cJSON_IsObject(obj)) {
		snprintf(err, errsz, "%s, not an object", json_type_of(obj));
		return -1;
	}
	return json_check_in(obj, schema, "", err, errsz);
}
