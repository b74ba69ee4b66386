/*
 * Tests for the project-file reader: what tomllib accepts is read with
 * the same values, what it refuses is refused with file:line.  (The
 * comparison against tomllib itself is tests/integration/
 * test_config_compat.sh.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "buf.h"
#include "toml.h"
#include "xmalloc.h"

/* Every key seen, as "line:path=type<text>;". */
struct seen {
	struct buf text;
	int count;
};

static void
put_value(struct buf *b, const struct toml_value *v)
{
	static const char types[] = "sifbdat";
	size_t i;

	buf_printf(b, "%c<", types[v->type]);
	if (v->type == TOML_ARRAY || v->type == TOML_TABLE) {
		for (i = 0; i < v->nitems; i++) {
			if (v->keys != NULL)
				buf_printf(b, "%s=", v->keys[i]);
			put_value(b, &v->items[i]);
			buf_puts(b, "|");
		}
	} else
		buf_puts(b, v->str);
	buf_puts(b, ">");
}

static int
record(void *arg, const struct toml_item *it, char *err, size_t errsz)
{
	struct seen *s = arg;
	char *path = toml_path_str(it->path, it->depth);

	(void)err;
	(void)errsz;
	s->count++;
	buf_printf(&s->text, "%d:%s%s=", it->lineno, it->in_array ? "@" : "",
	    path);
	put_value(&s->text, it->value);
	buf_puts(&s->text, ";");
	free(path);
	return 0;
}

/* Parse text; the record in s (free with buf_free), err set on -1. */
static int
parse(const char *text, size_t len, struct seen *s, char *err, size_t errsz)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->text, 0);
	err[0] = '\0';
	return toml_parse("x.toml", text, len, record, s, err, errsz);
}

static void
check_parse(const char *text, const char *want)
{
	struct seen s;
	char err[256];

	CHECK_INT(parse(text, strlen(text), &s, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(buf_str(&s.text), want);
	buf_free(&s.text);
}

static void
check_refused(const char *text, size_t len, const char *want)
{
	struct seen s;
	char err[256];

	CHECK_INT(parse(text, len, &s, err, sizeof(err)), -1);
	CHECK_STR(err, want);
	buf_free(&s.text);
}

/* The project files of the bash factory, as they are. */
static void
test_toml_project(void)
{
	check_parse("# comment\n"
		    "name            = \"harb\"\n"
		    "   repo = 'johba/harb' # trailing\n"
		    "\n"
		    "[ci]\n"
		    "woodpecker_repo_id = 0\n"
		    "stale_minutes = 1_000\n"
		    "[services]\n"
		    "containers = [\"ponder\", 'x;y' , ]\n"
		    "[monitoring]\n"
		    "check_prs = true\r\n"
		    "check_dev_agent = false\n"
		    "[mirrors]\n"
		    "github = \"git@github.com:a/b.git\"\n"
		    "semi = \"a ; b\\t\\\"q\\\" \\u00e9\"\n",
	    "2:name=s<harb>;3:repo=s<johba/harb>;"
	    "6:ci.woodpecker_repo_id=i<0>;7:ci.stale_minutes=i<1000>;"
	    "9:services.containers=a<s<ponder>|s<x;y>|>;"
	    "11:monitoring.check_prs=b<true>;"
	    "12:monitoring.check_dev_agent=b<false>;"
	    "14:mirrors.github=s<git@github.com:a/b.git>;"
	    "15:mirrors.semi=s<a ; b\t\"q\" \xc3\xa9>;");
}

/* What the subset reader of before refused and tomllib accepts. */
static void
test_toml_beyond_subset(void)
{
	/* Multi-line arrays with comments, quoted numbers. */
	check_parse("[services]\ncontainers = [\n  \"a\", # one\n\n  'b',\n]\n"
		    "[ci]\nwoodpecker_repo_id = \"7\"\n",
	    "2:services.containers=a<s<a>|s<b>|>;"
	    "8:ci.woodpecker_repo_id=s<7>;");
	/* Inline tables and dotted keys read like tables. */
	check_parse("ci = { woodpecker_repo_id = 7, x.y = 'z' }\n"
		    "monitoring.check_prs = false\n",
	    "1:ci.woodpecker_repo_id=i<7>;1:ci.x.y=s<z>;"
	    "2:monitoring.check_prs=b<false>;");
	/* Multi-line strings, upstream's formulas. */
	check_parse("d = \"\"\"\nline 1\n  line \\\n   2\"\"\"\n"
		    "e = '''\nraw \\n ''''\n",
	    "1:d=s<line 1\n  line 2>;5:e=s<raw \\n '>;");
	/* Arrays of tables, other sections, numbers and dates. */
	check_parse("[[steps]]\nid = 'a'\n[[steps]]\nid = 'b'\n"
		    "[\"quoted key\".x]\nhex = 0xff\noct = 0o17\nbin = 0b11\n"
		    "f = -1_0.5e2\nn = +inf\nt = 1979-05-27T07:32:00Z\n"
		    "d = 1979-05-27\nlt = 07:32:00.5\n",
	    "2:@steps.id=s<a>;4:@steps.id=s<b>;"
	    "6:\"quoted key\".x.hex=i<255>;7:\"quoted key\".x.oct=i<15>;"
	    "8:\"quoted key\".x.bin=i<3>;9:\"quoted key\".x.f=f<-10.5e2>;"
	    "10:\"quoted key\".x.n=f<inf>;"
	    "11:\"quoted key\".x.t=d<1979-05-27T07:32:00Z>;"
	    "12:\"quoted key\".x.d=d<1979-05-27>;"
	    "13:\"quoted key\".x.lt=d<07:32:00.5>;");
	/* Arrays of anything, and a table after its sub-table. */
	check_parse("a = [[1, 2], {x = 1}, 'm']\n[t.u]\nk = 1\n[t]\nj = 2\n",
	    "1:a=a<a<i<1>|i<2>|>|t<x=i<1>|>|s<m>|>;3:t.u.k=i<1>;5:t.j=i<2>;");
}

/* Lines longer than inih's 199 bytes are fine. */
static void
test_toml_long_line(void)
{
	char text[1100], want[1100];

	memset(text, 'a', sizeof(text));
	memcpy(text, "x = \"", 5);
	memcpy(text + 1000, "\"\n", 3);
	snprintf(want, sizeof(want), "1:x=s<%.995s>;", text + 5);
	check_parse(text, want);
}

/*
 * What inih would misread is read as tomllib reads it: ';' starts inih's
 * comments and '#' its comment lines, it splits a key at '=' or ':' and
 * ends a table name at ']', takes an indented line for the continuation
 * of the value before and strips blanks at the ends of its lines.
 */
static void
test_toml_protected(void)
{
	/* ';' and '#' in strings, and after a value. */
	check_parse("a = \"x ; y # z\" # c ; d\nb = 'p ;q #r'\n"
		    "c = \"\"\";\n # ;\"\"\"\nd = 1\n",
	    "1:a=s<x ; y # z>;2:b=s<p ;q #r>;3:c=s<;\n # ;>;5:d=i<1>;");
	/* '=' and ':' in quoted keys, ']' in quoted table names. */
	check_parse("\"a=b\" = 1\n'c:d' = 2\n\"e = f\".g = 3\nx . \"y:z\" = 4\n"
		    "[\"s=t:u\"]\n\"k;l\" = 5\n",
	    "1:\"a=b\"=i<1>;2:\"c:d\"=i<2>;3:\"e = f\".g=i<3>;"
	    "4:x.\"y:z\"=i<4>;6:\"s=t:u\".\"k;l\"=i<5>;");
	check_parse("[\"a]b\"]\nk = 1\n[[\"c]]d\" . 'e]']]\nk = 2\n",
	    "2:\"a]b\".k=i<1>;4:@\"c]]d\".\"e]\".k=i<2>;");
	/* A multi-line array with comments that hold brackets and quotes. */
	check_parse("a = [ # open [ {\n  1, # one ] \"\n# whole ; line ]\n\n"
		    "  2 # '\n] # end\nb = 3\n",
	    "1:a=a<i<1>|i<2>|>;7:b=i<3>;");
	/* Multi-line strings with blank lines and blanks at the ends. */
	check_parse("d = \"\"\"\n\nfirst\n\n\n  last  \n\"\"\"\n"
		    "e = '''\n\n; x\n\n'''\nf = 1\n",
	    "1:d=s<\nfirst\n\n\n  last  \n>;8:e=s<\n; x\n\n>;13:f=i<1>;");
	/* CRLF line ends, in a string too. */
	check_parse("a = [\r\n  1,\r\n]\r\ns = \"\"\"\r\nx\r\n\r\ny\"\"\"\r\n"
		    "b = 2\r\n",
	    "1:a=a<i<1>|>;4:s=s<x\n\ny>;8:b=i<2>;");
	/* Indented keys and tables are not continuations. */
	check_parse("a = 1\n  b = 2\n\tc = [\n 3 ]\n   [t]\n    d = 4\n",
	    "1:a=i<1>;2:b=i<2>;3:c=a<i<3>|>;6:t.d=i<4>;");
}

/* Refused where inih would have read something, at the right line. */
static void
test_toml_protected_refused(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"; comment\n", "x.toml:1: invalid statement"},
	    {"a = \"x\"\n  ; b = 1\n", "x.toml:2: invalid statement"},
	    {"a = 1 ; c\n",
		"x.toml:1: expected the end of the line after the statement"},
	    {"[t] ; c\n",
		"x.toml:1: expected the end of the line after the statement"},
	    {"a : 1\n", "x.toml:1: expected '=' after the key"},
	    {"a\f= 1\n", "x.toml:1: expected '=' after the key"},
	    {"\xef\xbb\xbf"
	     "a = 1\n",
		"x.toml:1: invalid statement"},
	    {"a = [\n1,\n2,\n]\nb = 1\nb = 2\n",
		"x.toml:6: a key is defined twice"},
	    {"d = \"\"\"\n\n\n\"\"\"\nx = ?\n", "x.toml:5: invalid value"},
	    {"a = 1\r\n\r\nb = [\r\n1]\r\nc = @\r\n",
		"x.toml:5: invalid value"},
	    {"a = \"x;y\"\nb = ;\n", "x.toml:2: invalid value"},
	    {"[\"a]b\"]\n[\"a]b\"]\n",
		"x.toml:2: table [\"a]b\"] is defined twice"},
	    /* The first problem is the one told, in a line inih refused. */
	    {"just text\na = 1\na = 2\n",
		"x.toml:1: expected '=' after the key"},
	    {"[t\na = 1\na = 2\n",
		"x.toml:1: expected ']' at the end of a table header"},
	};
	const char *text;
	struct seen s;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_refused(cases[i].text, strlen(cases[i].text),
		    cases[i].want);
	/* Nothing after a refused line reaches the callback. */
	text = "a = 1\nb\nc = 2\n";
	CHECK_INT(parse(text, strlen(text), &s, err, sizeof(err)), -1);
	CHECK_STR(err, "x.toml:2: expected '=' after the key");
	CHECK_INT(s.count, 1);
	buf_free(&s.text);
}

/*
 * Lines longer than inih's buffer: a value with blanks, '#' and ';'
 * where it is cut, a long comment, a key that does not fit, a table name
 * past the 49 bytes inih keeps, a long line in a multi-line string; the
 * lines after them keep their numbers.
 */
static void
test_toml_long_pieces(void)
{
	static const char mix[] = " \t#;a=";
	struct buf text, want;
	char run[600];
	size_t i;

	for (i = 0; i < sizeof(run) - 1; i++)
		run[i] = mix[(i * 7 + i / 5) % (sizeof(mix) - 1)];
	memset(run + 190, ' ', 250); /* blanks across a cut */
	run[sizeof(run) - 1] = '\0';
	buf_init(&text, 0);
	buf_init(&want, 0);
	buf_printf(&text, "x = \"%s\"\n# %s\n", run, run);
	buf_printf(&want, "1:x=s<%s>;", run);
	buf_printf(&text, "\"%.300s\" = [\n'%.250s', # %s\n]\n", run, run, run);
	buf_printf(&want, "3:\"%.300s\"=a<s<%.250s>|>;", run, run);
	buf_printf(&text, "[\"%.120s\" . t]\ny = 1\n", run);
	buf_printf(&want, "7:\"%.120s\".t.y=i<1>;", run);
	buf_printf(&text, "z = \"\"\"\n%s  \n\n\"\"\"   \n", run);
	buf_printf(&want, "8:\"%.120s\".t.z=s<%s  \n\n>;", run, run);
	check_parse(buf_str(&text), buf_str(&want));
	buf_puts(&text, "bad\n");
	check_refused(buf_str(&text), text.len,
	    "x.toml:12: expected '=' after the key");
	buf_free(&text);
	buf_free(&want);
}

/* Refused, as tomllib refuses them, with the line of the problem. */
static void
test_toml_refused(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"name = harb\n", "x.toml:1: invalid value"},
	    {"a = \"x\"\nname = \"unterminated\n",
		"x.toml:2: control character 0x0a in a string"},
	    {"a = 1\nb = \"\"\"\nopen\n", "x.toml:4: unterminated string"},
	    {"[ci\nx = 1\n",
		"x.toml:1: expected ']' at the end of a table header"},
	    {"just text\n", "x.toml:1: expected '=' after the key"},
	    {"a = \"x\" trailing\n",
		"x.toml:1: expected the end of the line after the statement"},
	    {"a = \"\\q\"\n", "x.toml:1: unescaped '\\' in a string"},
	    {"a = 1\na = 2\n", "x.toml:2: a key is defined twice"},
	    {"[t]\n[t]\n", "x.toml:2: table [t] is defined twice"},
	    {"[t]\nx.y = 1\n[t.x]\n", "x.toml:3: table [t.x] is defined twice"},
	    {"a = {}\n[a]\n", "x.toml:2: table [a] is defined twice"},
	    {"a = 1\n[a]\n", "x.toml:2: cannot overwrite a value"},
	    {"a = [\n1,\n2 3]\n", "x.toml:3: unclosed array"},
	    {"a = {x = 1,\n y = 2}\n",
		"x.toml:1: invalid character at the "
		"start of a key"},
	    {"d = 2023-02-30\n", "x.toml:1: invalid date or datetime"},
	    {"n = 012\n",
		"x.toml:1: expected the end of the line after the statement"},
	    {"a = \"x\x01\"\n", "x.toml:1: control character 0x01 in a string"},
	    {"# \x7f\n", "x.toml:1: control character 0x7f in a comment"},
	    {"a = 1\r\nb = \"\xff\"\n", "x.toml:2: invalid UTF-8"},
	    {"a = \"\\u0000\"\n",
		"x.toml:1: a NUL character (\\u0000) is not supported"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_refused(cases[i].text, strlen(cases[i].text),
		    cases[i].want);
	/* A NUL byte does not end the file early: it is refused. */
	check_refused("a = 1\n\nb = 2\0c = 3\n", 18,
	    "x.toml:3: NUL byte in the file");
}

static int
refuse(void *arg, const struct toml_item *it, char *err, size_t errsz)
{
	(void)arg;
	if (it->depth == 2 && strcmp(it->path[1], "bad") == 0) {
		snprintf(err, errsz, "not this one");
		return -1;
	}
	return 0;
}

/* The callback's refusal names the key's line. */
static void
test_toml_callback_error(void)
{
	char err[256];

	CHECK_INT(toml_parse("p.toml", "a = 1\n[s]\n\nbad = '''\nx'''\n", 25,
		      refuse, NULL, err, sizeof(err)),
	    -1);
	CHECK_STR(err, "p.toml:4: not this one");
	CHECK_INT(toml_parse_file("/nonexistent/p.toml", refuse, NULL, err,
		      sizeof(err)),
	    -1);
	CHECK_STR(err,
	    "/nonexistent/p.toml: cannot read: No such file or directory");
}

static void
test_toml_path_str(void)
{
	const char *path[] = {"a", "b c", "", "d-e_9"};
	char *s = toml_path_str(path, 4);

	CHECK_STR(s, "a.\"b c\".\"\".d-e_9");
	free(s);
}

int
main(void)
{
	RUN(test_toml_project);
	RUN(test_toml_beyond_subset);
	RUN(test_toml_long_line);
	RUN(test_toml_protected);
	RUN(test_toml_protected_refused);
	RUN(test_toml_long_pieces);
	RUN(test_toml_refused);
	RUN(test_toml_callback_error);
	RUN(test_toml_path_str);
	return check_main();
}
