/*
 * Typed reads over cJSON trees.  Every item returned is borrowed from the
 * tree it came from (valid until its root is freed with cJSON_Delete());
 * no accessor trusts a field's type: a field of the wrong type reads as
 * missing.
 */
#ifndef JSON_H
#define JSON_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

/*
 * Parse len bytes of text.  Returns a tree the caller frees with
 * cJSON_Delete(), or NULL with the reason (and the offset) in err.
 */
cJSON *json_parse(const char *text, size_t len, char *err, size_t errsz);
/*
 * The JSON object in the file at path (at most max bytes), or a new empty
 * object when there is no such file.  NULL, with the reason in err, when
 * it cannot be read, is longer than max, or holds no JSON object.  Caller
 * frees with cJSON_Delete().
 */
cJSON *json_load_object(const char *path, size_t max, char *err, size_t errsz);
/* Serialise compactly.  Caller frees with free(3). */
char *json_print(const cJSON *);

/* obj[key] when it is a string, else NULL (also for a NULL obj). */
const char *json_str(const cJSON *obj, const char *key);
/*
 * obj[key] into *out when it is a number holding an integer that fits a
 * long long.  Returns 0, or -1 (missing, other type, fraction, too big).
 */
int json_int(const cJSON *obj, const char *key, long long *out);
/* obj[key] into *out (0 or 1) when it is true or false: 0, else -1. */
int json_bool(const cJSON *obj, const char *key, int *out);
/* obj[key] when it is an array, else NULL. */
const cJSON *json_arr(const cJSON *obj, const char *key);
/* obj[key] when it is an object, else NULL. */
const cJSON *json_obj(const cJSON *obj, const char *key);
/* The item as an integer, as json_int() does for a field: 0 or -1. */
int json_item_int(const cJSON *item, long long *out);

/*
 * The item at a dotted path of object keys ("head.sha"), any type, or
 * NULL when some step is missing or not an object.
 */
const cJSON *json_at(const cJSON *obj, const char *path);
/* Typed reads at a dotted path, with the rules of the functions above. */
const char *json_str_at(const cJSON *obj, const char *path);
int json_int_at(const cJSON *obj, const char *path, long long *out);
int json_bool_at(const cJSON *obj, const char *path, int *out);
const cJSON *json_arr_at(const cJSON *obj, const char *path);
const cJSON *json_obj_at(const cJSON *obj, const char *path);

/*
 * obj[key] as a forge timestamp ("2024-01-02T10:00:00Z", with an optional
 * fraction and a "Z" or "+HH:MM" offset; none means UTC) into *out.
 * Returns 0, or -1 when it is missing or not such a time.
 */
int json_time(const cJSON *obj, const char *key, time_t *out);

/*
 * 1 when the Gitea issue or PR object has a label called name in its
 * "labels" array, else 0.
 */
int json_has_label(const cJSON *issue, const char *name);

/* The types a field of a schema may be required to have. */
enum json_type {
	JSON_STRING,
	JSON_INT, /* a number holding an integer that fits a long long */
	JSON_ID,  /* such an integer numbering an issue, PR, comment,
		     review or label: 1 to 2^53-1 (valid_number()) */
	JSON_BOOL,
	JSON_OBJECT,
	JSON_ARRAY
};

/*
 * One row of an object's schema; a table of them ends with a NULL path.
 * A field present with another type is always an error (null counts as
 * absent); an absent one only when it is required.  For an array, each
 * (may be NULL) is the schema every element must be an object of.
 */
struct json_field {
	const char *path; /* a dotted path, as json_at() takes */
	enum json_type type;
	int required;
	const struct json_field *each;
};

/*
 * Check obj (an object) against schema.  Returns 0, or -1 with the first
 * fault in err: "no 'head.sha'", "'title' is an array, not a string",
 * "'labels[2].name' is a number, not a string".
 */
int json_check(const cJSON *obj, const struct json_field *schema, char *err,
    size_t errsz);

#endif
