/*
 * The .env reader: any bytes are refused with ".env:LINE: message" or
 * assign variables whose names are shell names, on lines of the input;
 * a NUL byte is always refused; an assignment the callback refuses stops
 * the reading with the callback's message; reading twice assigns the
 * same values.  (No command can run: the reader has no way to start one.)
 */
#include <ctype.h>

#include "buf.h"
#include "envfile.h"
#include "fuzz.h"

#define FUZZ_VARS 64

struct fuzz_env {
	struct buf text; /* "line:NAME=<value>;" per assignment */
	char *name[FUZZ_VARS], *value[FUZZ_VARS];
	size_t n;
	int lines;   /* lines of the input */
	int stopped; /* the callback refused an assignment */
};

static const char *
fuzz_get(void *arg, const char *name)
{
	struct fuzz_env *e = arg;
	size_t i;

	for (i = e->n; i > 0; i--)
		if (strcmp(e->name[i - 1], name) == 0)
			return e->value[i - 1];
	if (strcmp(name, "HOME") == 0)
		return "/home/op";
	if (strcmp(name, "FACTORY_ROOT") == 0)
		return "/srv/factory";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	return NULL;
}

static int
fuzz_is_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (*++s != '\0')
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static int
fuzz_set(void *arg, const char *name, const char *value, int lineno, char *err,
    size_t errsz)
{
	struct fuzz_env *e = arg;
	size_t i;

	FUZZ_ASSERT(!e->stopped);
	FUZZ_ASSERT(name != NULL && fuzz_is_name(name));
	FUZZ_ASSERT(value != NULL);
	FUZZ_ASSERT(lineno >= 1 && lineno <= e->lines);
	buf_printf(&e->text, "%d:%s=<%s>;", lineno, name, value);
	if (strcmp(name, "STOP") == 0) {
		snprintf(err, errsz, "stopped");
		e->stopped = 1;
		return -1;
	}
	for (i = 0; i < e->n && strcmp(e->name[i], name) != 0; i++)
		;
	if (i == e->n && e->n == FUZZ_VARS)
		return 0;
	if (i == e->n)
		e->name[e->n++] = strdup(name);
	else
		free(e->value[i]);
	e->value[i] = strdup(value);
	FUZZ_ASSERT(e->name[i] != NULL && e->value[i] != NULL);
	return 0;
}

static int
fuzz_parse(const uint8_t *data, size_t size, struct fuzz_env *e, char *err,
    size_t errsz)
{
	struct envfile_ops ops = {fuzz_get, fuzz_set, e};
	size_t i;

	memset(e, 0, sizeof(*e));
	buf_init(&e->text, 0);
	e->lines = 1;
	for (i = 0; i < size; i++)
		e->lines += data[i] == '\n';
	err[0] = '\0';
	return envfile_parse(".env", (const char *)data, size, &ops, err,
	    errsz);
}

static void
fuzz_free(struct fuzz_env *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		free(e->name[i]);
		free(e->value[i]);
	}
	buf_free(&e->text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_env a, b;
	char err[256], err2[256];
	int r, line;

	r = fuzz_parse(data, size, &a, err, sizeof(err));
	FUZZ_ASSERT(r == 0 || r == -1);
	if (r == -1) {
		FUZZ_ASSERT(sscanf(err, ".env:%d: ", &line) == 1);
		FUZZ_ASSERT(line >= 1 && line <= a.lines);
	} else {
		FUZZ_ASSERT(err[0] == '\0');
		FUZZ_ASSERT(memchr(data, '\0', size) == NULL);
	}
	if (a.stopped)
		FUZZ_ASSERT(r == -1 && strlen(err) > 9 &&
		    strcmp(err + strlen(err) - 9, ": stopped") == 0);
	FUZZ_ASSERT(fuzz_parse(data, size, &b, err2, sizeof(err2)) == r);
	FUZZ_ASSERT(strcmp(err, err2) == 0);
	FUZZ_ASSERT(strcmp(buf_str(&a.text), buf_str(&b.text)) == 0);
	fuzz_free(&a);
	fuzz_free(&b);
	return 0;
}
