/*
 * Tests for the .env reader: the values `set -a; . ./.env` gives, and the
 * lines it refuses, with file:line.  (The comparison against bash itself
 * is tests/integration/test_config_compat.sh.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "buf.h"
#include "envfile.h"
#include "xmalloc.h"

/* The assignments made, "K=<V>;" each, and a fake environment. */
struct seen {
	struct buf text;
	char *key[64], *value[64];
	size_t n;
};

static const char *
get(void *arg, const char *name)
{
	struct seen *s = arg;
	size_t i;

	for (i = s->n; i > 0; i--)
		if (strcmp(s->key[i - 1], name) == 0)
			return s->value[i - 1];
	if (strcmp(name, "HOME") == 0)
		return "/home/op";
	if (strcmp(name, "SPACED") == 0)
		return "a  b";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	return NULL;
}

static int
set(void *arg, const char *name, const char *value, int line, char *err,
    size_t errsz)
{
	struct seen *s = arg;

	if (strcmp(name, "REFUSED") == 0) {
		snprintf(err, errsz, "REFUSED is not allowed");
		return -1;
	}
	buf_printf(&s->text, "%d:%s=<%s>;", line, name, value);
	if (s->n < 64) {
		s->key[s->n] = xstrdup(name);
		s->value[s->n++] = xstrdup(value);
	}
	return 0;
}

static int
parse(const char *text, size_t len, struct seen *s, char *err, size_t errsz)
{
	struct envfile_ops ops = {get, set, s};

	memset(s, 0, sizeof(*s));
	buf_init(&s->text, 0);
	err[0] = '\0';
	return envfile_parse(".env", text, len, &ops, err, errsz);
}

static void
done(struct seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->key[i]);
		free(s->value[i]);
	}
	buf_free(&s->text);
}

static void
check_env(const char *text, const char *want)
{
	struct seen s;
	char err[256];

	CHECK_INT(parse(text, strlen(text), &s, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(buf_str(&s.text), want);
	done(&s);
}

static void
check_refused(const char *text, size_t len, const char *want)
{
	struct seen s;
	char err[256];

	CHECK_INT(parse(text, len, &s, err, sizeof(err)), -1);
	CHECK_STR(err, want);
	done(&s);
}

/* Quotes, export, comments: what the bash .env files hold. */
static void
test_envfile_quoting(void)
{
	check_env(
	    "# c\n\nA=1\nexport B='two words'\n"
	    "  C=\"q \\\"x\\\" $HOME \\$y\"\nD=\nE=a'b c'\"d\" # comment\n"
	    "F='$(rm -rf /)'\nG=b#c #d\nH=\"\\a\\\\\"\n",
	    "3:A=<1>;4:B=<two words>;5:C=<q \"x\" /home/op $y>;6:D=<>;"
	    "7:E=<ab cd>;8:F=<$(rm -rf /)>;9:G=<b#c>;10:H=<\\a\\>;");
	/* Several on a line, ';', continuations, multi-line quotes. */
	check_env("A=1 B=$A;C=x\\\ny D='l1\nl2' E=\"$A\n\"\n",
	    "1:A=<1>;1:B=<1>;1:C=<xy>;2:D=<l1\nl2>;3:E=<1\n>;");
	/* $'...', $"...", a lone $, ~ and CR kept as bash keeps it. */
	check_env("A=$'a\\tb\\x41\\101\\q' B=$\"x\" C=a$ D=~/x:~ E=\"~\" "
		  "F=x\r\n",
	    "1:A=<a\tbAA\\q>;1:B=<x>;1:C=<a$>;1:D=</home/op/x:/home/op>;"
	    "1:E=<~>;1:F=<x\r>;");
}

/* Expansions of earlier lines and of the environment. */
static void
test_envfile_expansion(void)
{
	check_env(
	    "A=$SPACED B=${A}x C=$UNSET. D=${UNSET:-def} E=${EMPTY-x}\n"
	    "F=${EMPTY:-y} G=${A:+set} H=${UNSET+set} I=${N:=new}$N\n"
	    "J=${UNSET:-\"a b\"'c'} K=\"${UNSET:-'q'}\" L=${UNSET:-${A}}\n"
	    "M+=1 M+=2\n",
	    "1:A=<a  b>;1:B=<a  bx>;1:C=<.>;1:D=<def>;1:E=<>;2:F=<y>;"
	    "2:G=<set>;2:H=<>;2:N=<new>;2:I=<newnew>;3:J=<a bc>;"
	    "3:K=<'q'>;3:L=<a  b>;4:M=<1>;4:M=<12>;");
	/* export expands every word before assigning, as bash does. */
	check_env("export A=1 B=$A C\n", "1:A=<1>;1:B=<>;");
	/* An unused alternative is not evaluated (no assignment). */
	check_env("A=${HOME:-${X:=no}}\n", "1:A=</home/op>;");
}

/* Whatever needs a command or more of a shell: refused, with the line. */
static void
test_envfile_refused(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"A=1\nF=$(rm -rf /)x\n",
		".env:2: command substitution $(...) needs a shell"},
	    {"A=`id`\n", ".env:1: command substitution (`...`) needs a shell"},
	    {"A=\"`id`\"\n",
		".env:1: command substitution (`...`) needs a shell"},
	    {"A=$((1+2))\n",
		".env:1: arithmetic expansion $((...)) is not supported"},
	    {"A=1\nB = 2\n",
		".env:2: 'B' is a command: only variable assignments are "
		"allowed"},
	    {"A=x y\n",
		".env:1: 'y' is a command: only variable assignments are "
		"allowed"},
	    {"rm -rf /\n",
		".env:1: 'rm' is a command: only variable assignments are "
		"allowed"},
	    {"A=1 >/tmp/x\n", ".env:1: '>' needs a shell"},
	    {"A=1|x\n", ".env:1: '|' needs a shell"},
	    {"A='x\n\n", ".env:1: unterminated single quote"},
	    {"A=1\nB=\"x\n", ".env:2: unterminated double quote"},
	    {"A=${#HOME}\n", ".env:1: unsupported expansion '${#...}'"},
	    {"A=${HOME/x/y}\n", ".env:1: unsupported expansion '${HOME/...}'"},
	    {"A=$1\n", ".env:1: special parameter '$1' is not supported"},
	    {"A=${UNSET:?not set}\n", ".env:1: UNSET: not set"},
	    {"A=~root\n", ".env:1: '~root' is not supported"},
	    {"A=$'\\u00e9'\n",
		".env:1: unsupported escape '\\u' in a $'...' string"},
	    {"\r\n",
		".env:1: carriage return outside quotes (the file has DOS "
		"line ends)"},
	    {"A=1;;\n", ".env:1: syntax error near ';;'"},
	    {"export\n", ".env:1: 'export' without a name"},
	    {"A=1\nREFUSED=x\n", ".env:2: REFUSED is not allowed"},
	    {"A=abc\\",
		".env:1: backslash at the end of the file quotes "
		"nothing"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_refused(cases[i].text, strlen(cases[i].text),
		    cases[i].want);
	/* A NUL byte does not end the file early: it is refused. */
	check_refused("A=1\nB=2\0C=3\n", 12, ".env:2: NUL byte in the file");
}

/*
 * A line continuation that continues nothing (the file ends after it) is
 * dangling too; one that continues a line is not.
 */
static void
test_envfile_continuation_at_end(void)
{
	check_refused("A=abc\\\n", 7,
	    ".env:1: backslash at the end of the file continues nothing");
	check_refused("A=1 \\\n", 6,
	    ".env:1: backslash at the end of the file continues nothing");
	check_env("A=abc\\\nB=1\n", "1:A=<abcB=1>;");
}

int
main(void)
{
	RUN(test_envfile_quoting);
	RUN(test_envfile_expansion);
	RUN(test_envfile_refused);
	RUN(test_envfile_continuation_at_end);
	return check_main();
}
