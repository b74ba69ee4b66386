/*
 * The TOML reader of project files: any bytes are refused with
 * "fuzz.toml:LINE: message" or give keys on lines of the input, each with
 * a non-empty path of valid UTF-8 names and a well-formed value (every
 * scalar has its text, an integer's text is its number, a table appears
 * only inside an array or a table, strings are valid UTF-8); a NUL byte
 * or invalid UTF-8 is always refused; a key the callback refuses stops
 * the parse with the callback's message; parsing twice gives the same
 * keys.
 */
#include "buf.h"
#include "fuzz.h"
#include "fuzz_utf8.h"
#include "toml.h"

struct fuzz_seen {
	struct buf text;
	int lines;   /* lines of the input */
	int stopped; /* the callback refused a key */
};

static int
fuzz_str_ok(const char *s)
{
	return s != NULL &&
	    fuzz_utf8_valid((const unsigned char *)s, strlen(s));
}

static void
fuzz_value(const struct toml_value *v, struct buf *b)
{
	char num[32];
	size_t i;

	FUZZ_ASSERT(v->type >= TOML_STRING && v->type <= TOML_TABLE);
	if (v->type == TOML_ARRAY || v->type == TOML_TABLE) {
		FUZZ_ASSERT(v->nitems == 0 || v->items != NULL);
		FUZZ_ASSERT((v->type == TOML_TABLE) == (v->keys != NULL) ||
		    v->nitems == 0);
		buf_puts(b, "[");
		for (i = 0; i < v->nitems; i++) {
			if (v->type == TOML_TABLE) {
				FUZZ_ASSERT(fuzz_str_ok(v->keys[i]));
				buf_printf(b, "%s=", v->keys[i]);
			}
			fuzz_value(&v->items[i], b);
			buf_puts(b, ",");
		}
		buf_puts(b, "]");
		return;
	}
	FUZZ_ASSERT(fuzz_str_ok(v->str));
	if (v->type == TOML_INT && !v->overflow) {
		snprintf(num, sizeof(num), "%lld", v->num);
		FUZZ_ASSERT(strcmp(num, v->str) == 0);
	}
	if (v->type == TOML_BOOL)
		FUZZ_ASSERT(strcmp(v->str, v->num ? "true" : "false") == 0);
	buf_printf(b, "%d<%s>", (int)v->type, v->str);
}

static int
fuzz_key(void *arg, const struct toml_item *it, char *err, size_t errsz)
{
	struct fuzz_seen *s = arg;
	char *path;
	size_t i;

	FUZZ_ASSERT(it->depth >= 1 && it->path != NULL && it->value != NULL);
	FUZZ_ASSERT(it->lineno >= 1 && it->lineno <= s->lines);
	FUZZ_ASSERT(it->value->type != TOML_TABLE);
	for (i = 0; i < it->depth; i++)
		FUZZ_ASSERT(fuzz_str_ok(it->path[i]));
	path = toml_path_str(it->path, it->depth);
	FUZZ_ASSERT(path != NULL && path[0] != '\0');
	buf_printf(&s->text, "%d:%d:%s=", it->lineno, it->in_array, path);
	free(path);
	fuzz_value(it->value, &s->text);
	buf_puts(&s->text, ";");
	FUZZ_ASSERT(!s->stopped);
	if (strcmp(it->path[it->depth - 1], "stop") == 0) {
		snprintf(err, errsz, "stopped");
		s->stopped = 1;
		return -1;
	}
	return 0;
}

/* Parse the input; the keys seen in s (free with buf_free). */
static int
fuzz_parse(const uint8_t *data, size_t size, struct fuzz_seen *s, char *err,
    size_t errsz)
{
	size_t i;

	buf_init(&s->text, 0);
	s->stopped = 0;
	s->lines = 1;
	for (i = 0; i < size; i++)
		s->lines += data[i] == '\n';
	err[0] = '\0';
	return toml_parse("fuzz.toml", (const char *)data, size, fuzz_key, s,
	    err, errsz);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_seen a, b;
	char err[256], err2[256];
	int r, line;

	r = fuzz_parse(data, size, &a, err, sizeof(err));
	FUZZ_ASSERT(r == 0 || r == -1);
	if (r == -1) {
		FUZZ_ASSERT(sscanf(err, "fuzz.toml:%d: ", &line) == 1);
		FUZZ_ASSERT(line >= 1 && line <= a.lines);
	} else {
		FUZZ_ASSERT(err[0] == '\0');
		FUZZ_ASSERT(memchr(data, '\0', size) == NULL);
		FUZZ_ASSERT(fuzz_utf8_valid(data, size));
	}
	if (a.stopped)
		FUZZ_ASSERT(r == -1 && strlen(err) > 9 &&
		    strcmp(err + strlen(err) - 9, ": stopped") == 0);
	FUZZ_ASSERT(fuzz_parse(data, size, &b, err2, sizeof(err2)) == r);
	FUZZ_ASSERT(strcmp(err, err2) == 0);
	FUZZ_ASSERT(strcmp(buf_str(&a.text), buf_str(&b.text)) == 0);
	buf_free(&a.text);
	buf_free(&b.text);
	return 0;
}
