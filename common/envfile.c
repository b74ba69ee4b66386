/*
 * .env parsing with shell quoting rules but no evaluation.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "envfile.h"
#include "xmalloc.h"

static const char *skip_blank(const char *);
static int parse_key(const char **, char *, size_t);
static int parse_value(const char **, struct buf *, const char **);
static int parse_line(const char *, struct buf *, char *, size_t,
    const char **);

static const char *
skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static int
parse_key(const char **sp, char *key, size_t keysz)
{
	const char *s = *sp;
	size_t n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return -1;
	while (isalnum((unsigned char)*s) || *s == '_') {
		if (n + 1 >= keysz)
			return -1;
		key[n++] = *s++;
	}
	key[n] = '\0';
	if (*s != '=')
		return -1;
	*sp = s + 1;
	return 0;
}

/*
 * The value up to unquoted white space: quoted and unquoted pieces
 * joined, as the shell does.  Returns 0 or -1 with *why set.
 */
static int
parse_value(const char **sp, struct buf *out, const char **why)
{
	const char *s = *sp;

	while (
	    *s != '\0' && *s != '\n' && *s != ' ' && *s != '\t' && *s != '\r') {
		if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');

			if (end == NULL ||
			    memchr(s + 1, '\n', (size_t)(end - s - 1)) !=
				NULL) {
				*why = "unterminated single quote";
				return -1;
			}
			buf_append(out, s + 1, (size_t)(end - s - 1));
			s = end + 1;
		} else if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (*s == '\0' || *s == '\n') {
					*why = "unterminated double quote";
					return -1;
				}
				if (*s == '\\' && strchr("\"\\$`", s[1]) &&
				    s[1] != '\0')
					s++;
				buf_append(out, s, 1);
			}
			s++;
		} else if (*s == '\\' && s[1] != '\0' && s[1] != '\n') {
			buf_append(out, s + 1, 1);
			s += 2;
		} else if (*s == ';' || *s == '&' || *s == '|' || *s == '`' ||
		    *s == '(' || *s == ')' || *s == '<' || *s == '>') {
			*why = "shell syntax in value (quote it)";
			return -1;
		} else {
			buf_append(out, s, 1);
			s++;
		}
	}
	*sp = s;
	return 0;
}

static int
parse_line(const char *line, struct buf *value, char *key, size_t keysz,
    const char **why)
{
	const char *s = skip_blank(line);

	if (*s == '\0' || *s == '\n' || *s == '#')
		return 1;
	if (strncmp(s, "export", 6) == 0 && (s[6] == ' ' || s[6] == '\t'))
		s = skip_blank(s + 6);
	if (parse_key(&s, key, keysz) == -1) {
		*why = "expected KEY=value";
		return -1;
	}
	if (parse_value(&s, value, why) == -1)
		return -1;
	s = skip_blank(s);
	if (*s != '\0' && *s != '\n' && *s != '#') {
		*why = "unexpected text after the value (quote it)";
		return -1;
	}
	return 0;
}

int
envfile_parse(const char *name, const char *text, envfile_cb *cb, void *arg,
    char *err, size_t errsz)
{
	struct buf value;
	const char *line = text, *why = NULL;
	char key[128];
	int lineno = 0, r = 0;

	buf_init(&value, 0);
	while (r == 0 && line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		int pr;

		lineno++;
		buf_reset(&value);
		pr = parse_line(line, &value, key, sizeof(key), &why);
		if (pr == -1) {
			snprintf(err, errsz, "%s:%d: %s", name, lineno, why);
			r = -1;
		} else if (pr == 0 && cb(arg, key, buf_str(&value)) == -1) {
			snprintf(err, errsz, "%s:%d: rejected '%s'", name,
			    lineno, key);
			r = -1;
		}
		line = nl ? nl + 1 : NULL;
	}
	buf_free(&value);
	return r;
}
