/*
 * Tests for the TOML subset, the .env reader and the merged configuration.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "config.h"
#include "envfile.h"
#include "file.h"
#include "toml.h"
#include "xmalloc.h"

struct seen {
	char text[2048];
	int count;
};

static char tmpdir[64];

static int
record(void *arg, const char *section, const char *key,
    const struct toml_value *v, int lineno, char *err, size_t errsz)
{
	struct seen *s = arg;
	size_t n = strlen(s->text), i;

	(void)err;
	(void)errsz;
	s->count++;
	switch (v->type) {
	case TOML_STRING:
		snprintf(s->text + n, sizeof(s->text) - n, "%d:%s.%s=s<%s>;",
		    lineno, section, key, v->str);
		break;
	case TOML_INT:
		snprintf(s->text + n, sizeof(s->text) - n, "%d:%s.%s=i<%lld>;",
		    lineno, section, key, v->num);
		break;
	case TOML_BOOL:
		snprintf(s->text + n, sizeof(s->text) - n, "%d:%s.%s=b<%lld>;",
		    lineno, section, key, v->num);
		break;
	case TOML_ARRAY:
		snprintf(s->text + n, sizeof(s->text) - n, "%d:%s.%s=a<",
		    lineno, section, key);
		for (i = 0; i < v->nitems; i++) {
			n = strlen(s->text);
			snprintf(s->text + n, sizeof(s->text) - n, "%s|",
			    v->items[i]);
		}
		n = strlen(s->text);
		snprintf(s->text + n, sizeof(s->text) - n, ">;");
		break;
	}
	return 0;
}

static int
parse(const char *text, struct seen *s, char *err, size_t errsz)
{
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return toml_parse_string("x.toml", text, record, s, err, errsz);
}

static void
test_toml_good(void)
{
	struct seen s;
	char err[256];

	CHECK_INT(parse("# comment\n"
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
		      &s, err, sizeof(err)),
	    0);
	CHECK_STR(err, "");
	CHECK_STR(s.text,
	    "2:.name=s<harb>;3:.repo=s<johba/harb>;"
	    "6:ci.woodpecker_repo_id=i<0>;7:ci.stale_minutes=i<1000>;"
	    "9:services.containers=a<ponder|x;y|>;"
	    "11:monitoring.check_prs=b<1>;12:monitoring.check_dev_agent=b<0>;"
	    "14:mirrors.github=s<git@github.com:a/b.git>;"
	    "15:mirrors.semi=s<a ; b\t\"q\" \xc3\xa9>;");
}

static void
test_toml_bad(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"name = harb\n",
		"x.toml:1: expected a quoted string, an "
		"integer, true, false or a one-line [array]"},
	    {"a = \"x\"\nname = \"unterminated\n",
		"x.toml:2: "
		"unterminated string"},
	    {"\n\ncontainers = [\n  \"a\",\n]\n",
		"x.toml:3: multi-line "
		"arrays are not supported"},
	    {"t = { a = 1 }\n",
		"x.toml:1: inline tables are not "
		"supported"},
	    {"[ci\nx = 1\n",
		"x.toml:1: expected '[section]' or "
		"'key = value'"},
	    {"just text\n",
		"x.toml:1: expected '[section]' or "
		"'key = value'"},
	    {"key: \"v\"\n", "x.toml:1: expected '=' after the key"},
	    {"a = \"x\" trailing\n",
		"x.toml:1: unexpected text after the "
		"value: 'trailing'"},
	    {"a = \"\\q\"\n", "x.toml:1: unknown escape '\\q'"},
	    {"a = \"\"\"x\"\"\"\n",
		"x.toml:1: multi-line strings are not "
		"supported"},
	    {"a = 99999999999999999999\n",
		"x.toml:1: expected a quoted "
		"string, an integer, true, false or a one-line [array]"},
	    {"a = [1, 2]\n",
		"x.toml:1: expected a quoted string in the "
		"array"},
	    {"a = \"x\x01\"\n", "x.toml:1: control character in line"},
	};
	struct seen s;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(parse(cases[i].text, &s, err, sizeof(err)), -1);
		CHECK_STR(err, cases[i].want);
	}
}

static void
test_toml_long_line(void)
{
	char text[400], err[256];
	struct seen s;

	memset(text, 'a', sizeof(text));
	memcpy(text, "x = \"", 5);
	memcpy(text + 250, "\"\n", 3);
	CHECK_INT(parse(text, &s, err, sizeof(err)), -1);
	CHECK_STR(err,
	    "x.toml:1: line too long (inih reads at most 199 "
	    "bytes)");
	/* 198 bytes and a newline is the longest line inih takes. */
	memset(text, 'a', sizeof(text));
	memcpy(text, "x = \"", 5);
	memcpy(text + 197, "\"\n", 3);
	CHECK_INT(parse(text, &s, err, sizeof(err)), 0);
	CHECK_INT(s.count, 1);
}

static int
env_record(void *arg, const char *key, const char *value)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s=<%s>;", key, value);
	return 0;
}

static void
test_envfile(void)
{
	struct seen s;
	char err[256];

	memset(&s, 0, sizeof(s));
	CHECK_INT(
	    envfile_parse(".env",
		"# c\n\nA=1\nexport B='two words'\n"
		"  C=\"q \\\"x\\\" $HOME \\$y\"\nD=\nE=a'b c'\"d\" # comment\n"
		"F=$(rm -rf /)x\n",
		env_record, &s, err, sizeof(err)),
	    -1);
	CHECK_STR(err, ".env:8: shell syntax in value (quote it)");
	memset(&s, 0, sizeof(s));
	CHECK_INT(
	    envfile_parse(".env",
		"# c\n\nA=1\nexport B='two words'\n"
		"  C=\"q \\\"x\\\" $HOME \\$y\"\nD=\nE=a'b c'\"d\" # comment\n"
		"F='$(rm -rf /)'\r\n",
		env_record, &s, err, sizeof(err)),
	    0);
	CHECK_STR(s.text,
	    "A=<1>;B=<two words>;C=<q \"x\" $HOME $y>;D=<>;"
	    "E=<ab cd>;F=<$(rm -rf /)>;");
	CHECK_INT(envfile_parse(".env", "A=1\nB = 2\n", env_record, &s, err,
		      sizeof(err)),
	    -1);
	CHECK_STR(err, ".env:2: expected KEY=value");
	CHECK_INT(
	    envfile_parse(".env", "A='x\n", env_record, &s, err, sizeof(err)),
	    -1);
	CHECK_STR(err, ".env:1: unterminated single quote");
	CHECK_INT(
	    envfile_parse(".env", "A=x y\n", env_record, &s, err, sizeof(err)),
	    -1);
	CHECK_STR(err, ".env:1: unexpected text after the value (quote it)");
}

static void
write_file(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, name);

	CHECK_INT(file_write_atomic(p, text, strlen(text), 0600, 0), 0);
	free(p);
}

static void
clear_env(void)
{
	static const char *const keys[] = {"FORGE_TOKEN", "CODEBERG_TOKEN",
	    "FORGE_REPO", "CODEBERG_REPO", "FORGE_URL", "FORGE_API",
	    "PROJECT_NAME", "PRIMARY_BRANCH", "WOODPECKER_REPO_ID",
	    "CLAUDE_TIMEOUT", "DISINTO_CONTAINER", "REVIEW_BOT_TOKEN",
	    "FORGE_REVIEW_TOKEN", "FORGE_BOT_USERNAMES",
	    "CODEBERG_BOT_USERNAMES", "DISINTO_RUN_DIR", "AGENT_CMD",
	    "CLAUDE_MODEL", "SUPERVISOR_FIX_CMD", "PROJECT_REPO_ROOT",
	    "DISINTO_TMUX_SOCKET", NULL};
	size_t i;

	for (i = 0; keys[i]; i++)
		unsetenv(keys[i]);
	setenv("FACTORY_ROOT", tmpdir, 1);
	setenv("USER", "op", 1);
}

static void
test_config_layers(void)
{
	struct config c;
	char err[256], *toml = xasprintf("%s/p.toml", tmpdir);

	clear_env();
	write_file(".env",
	    "CODEBERG_TOKEN=filetok\nFORGE_REPO=env/file\n"
	    "CLAUDE_TIMEOUT=10\nREVIEW_BOT_TOKEN=rtok\n"
	    "CODEBERG_BOT_USERNAMES=bot1,bot2\n");
	setenv("CLAUDE_TIMEOUT", "20", 1);
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.forge_token, "filetok");
	CHECK_STR(c.forge_review_token, "rtok");
	CHECK_STR(c.forge_repo, "env/file");
	CHECK_STR(c.project_name, "file");
	CHECK_STR(c.forge_api, "http://localhost:3000/api/v1/repos/env/file");
	CHECK_STR(c.project_repo_root, "/home/op/file");
	CHECK_STR(c.primary_branch, "master");
	CHECK_STR(c.run_dir, "/tmp");
	CHECK_INT(c.claude_timeout, 20);
	CHECK_INT(c.woodpecker_repo_id, 0);
	CHECK_INT(config_ci_configured(&c), 0);
	CHECK_INT(config_is_bot(&c, "bot2"), 1);
	CHECK_INT(config_is_bot(&c, "bot"), 0);
	CHECK_STR(c.agent_cmd, "claude --dangerously-skip-permissions");
	CHECK_STR(c.supervisor_fix_cmd, "claude -p --model sonnet");
	config_free(&c);

	/* The project file wins for the keys it sets. */
	write_file("p.toml",
	    "name = \"harb\"\nrepo = \"johba/harb\"\n"
	    "forge_url = \"http://127.0.0.1:9\"\nprimary_branch = \"main\"\n"
	    "color = \"x\"\n[ci]\nwoodpecker_repo_id = 7\n[services]\n"
	    "containers = [\"a\", \"b\"]\n[monitoring]\ncheck_prs = false\n"
	    "[mirrors]\ngithub = \"git@github.com:j/h.git\"\n");
	setenv("FORGE_URL", "http://ignored", 1);
	setenv("CLAUDE_MODEL", "opus", 1);
	setenv("SUPERVISOR_FIX_CMD", "", 1);
	CHECK_INT(config_load(&c, toml, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.forge_url, "http://127.0.0.1:9");
	CHECK_STR(c.forge_api, "http://127.0.0.1:9/api/v1/repos/johba/harb");
	CHECK_STR(c.project_name, "harb");
	CHECK_STR(c.primary_branch, "main");
	CHECK_INT(c.woodpecker_repo_id, 7);
	CHECK_INT(c.ncontainers, 2);
	CHECK_INT(c.check_prs, 0);
	CHECK_INT(c.check_dev_agent, 1);
	CHECK_INT(c.nmirrors, 1);
	CHECK_STR(c.nmirrors ? c.mirrors[0].url : NULL,
	    "git@github.com:j/h.git");
	CHECK_STR(c.agent_cmd,
	    "claude --dangerously-skip-permissions --model opus");
	CHECK_STR(c.supervisor_fix_cmd, "");
	CHECK_INT(c.nwarnings, 1);
	if (c.nwarnings == 1)
		CHECK(strstr(c.warnings[0], "p.toml:5: unknown key 'color'"));
	config_free(&c);
	unsetenv("FORGE_URL");
	unsetenv("CLAUDE_MODEL");
	unsetenv("SUPERVISOR_FIX_CMD");
	free(toml);
}

/* The host paths supervisor-poll reads, and the review-poll it starts. */
static void
test_config_supervisor_paths(void)
{
	struct config c;
	char err[256], *exe = xasprintf("%s/review", tmpdir);
	char *sh = xasprintf("%s/review/review-poll.sh", tmpdir);
	char *want = xasprintf("%s/review-poll/review-poll", tmpdir);

	clear_env();
	unlink(sh);
	/* No FORGE_REPO, no name: no project, which is not an error here. */
	write_file(".env", "# nothing\n");
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.project_name, "");
	CHECK_STR(c.forge_repo, "");
	CHECK_STR(c.proc_dir, "/proc");
	CHECK_STR(c.disk_path, "/");
	CHECK_STR(c.review_poll_path, want);
	config_free(&c);

	/* A drop-in factory holds review/review-poll.sh: that one is used. */
	mkdir(exe, 0755);
	CHECK_INT(file_write_atomic(sh, "", 0, 0755, 0), 0);
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.review_poll_path, sh);
	config_free(&c);

	setenv("DISINTO_PROC_DIR", "/x/proc", 1);
	setenv("DISINTO_DISK_PATH", "/x", 1);
	setenv("DISINTO_REVIEW_POLL", "/bin/true", 1);
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.proc_dir, "/x/proc");
	CHECK_STR(c.disk_path, "/x");
	CHECK_STR(c.review_poll_path, "/bin/true");
	config_free(&c);
	unsetenv("DISINTO_PROC_DIR");
	unsetenv("DISINTO_DISK_PATH");
	unsetenv("DISINTO_REVIEW_POLL");
	unlink(sh);
	rmdir(exe);
	free(exe);
	free(sh);
	free(want);
}

static void
test_config_errors(void)
{
	struct config c;
	char err[256], *toml = xasprintf("%s/bad.toml", tmpdir), *want;

	clear_env();
	write_file(".env", "FORGE_REPO=a/b\n");
	write_file("bad.toml",
	    "name = \"x\"\n[ci]\nwoodpecker_repo_id = "
	    "\"7\"\n");
	CHECK_INT(config_load(&c, toml, NULL, err, sizeof(err)), -1);
	want = xasprintf("%s:3: expected an integer", toml);
	CHECK_STR(err, want);
	free(want);
	config_free(&c);
	write_file("bad.toml", "[nope]\nx = 1\n");
	CHECK_INT(config_load(&c, toml, NULL, err, sizeof(err)), -1);
	want = xasprintf("%s:2: unknown section [nope]", toml);
	CHECK_STR(err, want);
	free(want);
	config_free(&c);
	write_file(".env", "FORGE_REPO=a/b\nbroken line\n");
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), -1);
	want = xasprintf("%s/.env:2: expected KEY=value", tmpdir);
	CHECK_STR(err, want);
	free(want);
	config_free(&c);
	/* In a container the .env file is not read at all. */
	setenv("DISINTO_CONTAINER", "1", 1);
	setenv("FORGE_REPO", "c/d", 1);
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), 0);
	config_free(&c);
	unsetenv("DISINTO_CONTAINER");
	write_file(".env", "FORGE_REPO=nodash\n");
	unsetenv("FORGE_REPO");
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err, "FORGE_REPO: expected 'owner/name', got 'nodash'");
	config_free(&c);
	write_file(".env", "FORGE_REPO=a/b\nCLAUDE_TIMEOUT=soon\n");
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), -1);
	CHECK_STR(err,
	    "CLAUDE_TIMEOUT: expected a whole number >= 1, got "
	    "'soon'");
	config_free(&c);
	write_file(".env", "FORGE_REPO=a/b\nPROJECT_NAME=../x\n");
	CHECK_INT(config_load(&c, NULL, NULL, err, sizeof(err)), -1);
	CHECK(strncmp(err, "PROJECT_NAME: '../x'", 20) == 0);
	config_free(&c);
	CHECK_INT(
	    config_load(&c, "/nonexistent/p.toml", NULL, err, sizeof(err)), -1);
	CHECK_STR(err,
	    "/nonexistent/p.toml: cannot read: No such file or "
	    "directory");
	config_free(&c);
	free(toml);
}

int
main(void)
{
	char *p;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_config.XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return 1;
	RUN(test_toml_good);
	RUN(test_toml_bad);
	RUN(test_toml_long_line);
	RUN(test_envfile);
	RUN(test_config_layers);
	RUN(test_config_supervisor_paths);
	RUN(test_config_errors);
	p = xasprintf("%s/.env", tmpdir);
	unlink(p);
	free(p);
	p = xasprintf("%s/p.toml", tmpdir);
	unlink(p);
	free(p);
	p = xasprintf("%s/bad.toml", tmpdir);
	unlink(p);
	free(p);
	rmdir(tmpdir);
	return check_main();
}
