/*
 * Tests for the merged configuration: precedence, defaults, the checks
 * that refuse, the review settings, the agent environment and PATH.
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "config.h"
#include "file.h"
#include "redact.h"
#include "xmalloc.h"

static char tmpdir[64];

static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	return remove(path);
}

static void
write_file(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, name);

	CHECK_INT(file_write_atomic(p, text, strlen(text), 0600, 0), 0);
	free(p);
}

static char *
tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
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
	    "DISINTO_TMUX_SOCKET", "DISINTO_FORMULAS_DIR", "REVIEW_MODEL",
	    "DISINTO_HTTP_TIMEOUT", "AGENT_ENV_PASS", "WOODPECKER_TOKEN",
	    "FORGE_AGENT_TOKEN", NULL};
	size_t i;

	for (i = 0; keys[i]; i++)
		unsetenv(keys[i]);
	setenv("FACTORY_ROOT", tmpdir, 1);
	setenv("USER", "op", 1);
	write_file(".env", "");
}

/* Load with the project file name (or NULL); returns config_load()'s. */
static int
load(struct config *c, const char *toml, char *err, size_t errsz)
{
	char *p = toml != NULL ? tmp(toml) : NULL;
	int r;

	err[0] = '\0';
	r = config_load(c, p, NULL, err, errsz);
	free(p);
	return r;
}

/* The error of loading, with the temporary directory as "T". */
static void
check_error(const char *toml, const char *want)
{
	struct config c;
	char err[512], *w = NULL;
	const char *at;

	CHECK_INT(load(&c, toml, err, sizeof(err)), -1);
	if ((at = strstr(want, "T/")) != NULL)
		w = xasprintf("%.*s%s/%s", (int)(at - want), want, tmpdir,
		    at + 2);
	CHECK_STR(err, w != NULL ? w : want);
	free(w);
	config_free(&c);
}

static void
test_config_env_layers(void)
{
	struct config c;
	char err[256];

	clear_env();
	/* .env is sourced after the environment: it wins. */
	write_file(".env",
	    "CODEBERG_TOKEN=filetok\nFORGE_REPO=env/file\n"
	    "CLAUDE_TIMEOUT=10\nREVIEW_BOT_TOKEN=rtok\n"
	    "CODEBERG_BOT_USERNAMES=bot1,bot2\nDISINTO_RUN_DIR=/from/env\n"
	    "PROJECT_REPO_ROOT=$FACTORY_ROOT/clone\n");
	setenv("CLAUDE_TIMEOUT", "20", 1);
	setenv("DISINTO_RUN_DIR", "/run/here", 1);
	CHECK_INT(load(&c, NULL, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(c.forge_token, "filetok");
	CHECK_STR(c.forge_review_token, "rtok");
	CHECK_STR(c.forge_repo, "env/file");
	CHECK_STR(c.project_name, "file");
	CHECK_STR(c.forge_api, "http://localhost:3000/api/v1/repos/env/file");
	CHECK_INT(c.claude_timeout, 10);
	/* ... but FACTORY_ROOT and DISINTO_RUN_DIR of the environment win. */
	CHECK_STR(c.run_dir, "/run/here");
	CHECK(strncmp(c.project_repo_root, tmpdir, strlen(tmpdir)) == 0);
	CHECK_STR(c.primary_branch, "master");
	/* Unset: CI required, from the forge's status; no Woodpecker. */
	CHECK_INT(c.woodpecker_repo_id, CONFIG_REPO_ID_UNSET);
	CHECK_INT(config_ci_configured(&c), 1);
	CHECK_INT(config_woodpecker_configured(&c), 0);
	CHECK_INT(config_is_bot(&c, "bot2"), 1);
	CHECK_INT(config_is_bot(&c, "bot"), 0);
	CHECK_STR(c.agent_cmd, "claude --dangerously-skip-permissions");
	CHECK_STR(c.supervisor_fix_cmd,
	    "claude -p --model sonnet --dangerously-skip-permissions");
	CHECK_INT(c.drop_caches, 1);
	CHECK_INT(c.docker_prune, 1);
	CHECK_INT(c.http_timeout_ms, 30000);
	CHECK_INT(c.nenv_vars, 7);
	config_free(&c);
	unsetenv("CLAUDE_TIMEOUT");
	unsetenv("DISINTO_RUN_DIR");
	/* Without the environment's value, .env's run dir is used. */
	CHECK_INT(load(&c, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.run_dir, "/from/env");
	CHECK_INT(c.claude_timeout, 10);
	config_free(&c);
	/* In a container the .env file is not read at all. */
	setenv("DISINTO_CONTAINER", "1", 1);
	setenv("FORGE_REPO", "c/d", 1);
	CHECK_INT(load(&c, NULL, err, sizeof(err)), 0);
	CHECK_STR(c.forge_repo, "c/d");
	CHECK_STR(c.forge_token, "");
	CHECK_INT(c.nenv_vars, 0);
	config_free(&c);
	unsetenv("DISINTO_CONTAINER");
	unsetenv("FORGE_REPO");
}

static void
test_config_project_layer(void)
{
	struct config c;
	char err[256];

	clear_env();
	write_file(".env",
	    "FORGE_URL=http://from-env\nPROJECT_NAME=other\n"
	    "CLAUDE_MODEL=opus\nSUPERVISOR_FIX_CMD=\n");
	/* The project file wins for the keys it sets, as tomllib reads it. */
	write_file("p.toml",
	    "name = \"harb\"\nrepo = \"johba/harb\"\n"
	    "forge_url = \"http://127.0.0.1:9\"\nprimary_branch = \"main\"\n"
	    "color = \"x\"\n[ci]\nwoodpecker_repo_id = \"7\"\n[services]\n"
	    "containers = [\n  \"a\",\n  \"b\", # two\n]\n"
	    "[monitoring]\ncheck_prs = false\n[services.db]\nimage = 'pg'\n"
	    "[mirrors]\ngithub = \"git@github.com:j/h.git\"\n"
	    "[[steps]]\nid = 1\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(c.forge_url, "http://127.0.0.1:9");
	CHECK_STR(c.forge_api, "http://127.0.0.1:9/api/v1/repos/johba/harb");
	CHECK_STR(c.forge_web, "http://127.0.0.1:9/johba/harb");
	CHECK_STR(c.project_name, "harb");
	CHECK_STR(c.project_repo_root, "/home/op/harb");
	CHECK_STR(c.primary_branch, "main");
	CHECK_INT(c.woodpecker_repo_id, 7);
	CHECK_INT(config_ci_configured(&c), 1);
	CHECK_INT(config_woodpecker_configured(&c), 1);
	CHECK_INT(c.ncontainers, 2);
	CHECK_STR(c.ncontainers == 2 ? c.containers[1] : NULL, "b");
	CHECK_INT(c.check_prs, 0);
	CHECK_INT(c.check_dev_agent, 1);
	CHECK_INT(c.nmirrors, 1);
	CHECK_STR(c.nmirrors ? c.mirrors[0].url : NULL,
	    "git@github.com:j/h.git");
	CHECK_STR(c.agent_cmd,
	    "claude --dangerously-skip-permissions --model opus");
	CHECK_STR(c.supervisor_fix_cmd, "");
	/* Keys the tools do not use are noted (logged with -v), not refused. */
	CHECK_INT(c.nwarnings, 0);
	CHECK_INT(c.nnotes, 3);
	if (c.nnotes == 3) {
		CHECK(strstr(c.notes[0], "p.toml:5: ignored 'color'"));
		CHECK(strstr(c.notes[1],
		    "p.toml:16: ignored 'services.db."
		    "image'"));
		CHECK(strstr(c.notes[2], "p.toml:20: ignored 'steps.id'"));
	}
	config_free(&c);
	/* Without name, the repository names the project (not .env). */
	write_file("p.toml", "repo = \"johba/harb\"\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.project_name, "harb");
	CHECK_STR(c.forge_url, "http://from-env");
	config_free(&c);
}

/*
 * WOODPECKER_REPO_ID as bash's ${WOODPECKER_REPO_ID:-2} read it: unset or
 * empty, CI is required (from the forge's status); only 0 means no CI.
 */
static void
test_config_ci_id(void)
{
	static const struct {
		const char *env; /* NULL: unset */
		long long id;
		int ci, wp;
	} t[] = {
	    {NULL, CONFIG_REPO_ID_UNSET, 1, 0},
	    {"", CONFIG_REPO_ID_UNSET, 1, 0},
	    {"0", 0, 0, 0},
	    {"3", 3, 1, 1},
	};
	struct config c;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		clear_env();
		if (t[i].env != NULL)
			setenv("WOODPECKER_REPO_ID", t[i].env, 1);
		CHECK_INT(load(&c, NULL, err, sizeof(err)), 0);
		CHECK_INT(c.woodpecker_repo_id, t[i].id);
		CHECK_INT(config_ci_configured(&c), t[i].ci);
		CHECK_INT(config_woodpecker_configured(&c), t[i].wp);
		config_free(&c);
	}
	clear_env();
	write_file("p.toml", "repo = 'o/p'\n[ci]\nwoodpecker_repo_id = 0\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_INT(config_ci_configured(&c), 0);
	config_free(&c);
	write_file("p.toml", "repo = 'o/p'\n[ci]\nwoodpecker_repo_id = -1\n");
	check_error("p.toml",
	    "T/p.toml:3: [ci] woodpecker_repo_id: expected a whole number >= "
	    "0, got '-1'");
}

static void
test_config_review_settings(void)
{
	struct config c;
	char err[256];

	clear_env();
	write_file("p.toml", "repo = \"o/p\"\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.review.model, "sonnet");
	CHECK_INT(c.review.max_diff, 25000);
	CHECK_INT(c.review.max_reviews, 3);
	CHECK_INT(c.review.idle_timeout_s, 4 * 3600);
	CHECK_INT(c.review.no_review_s, 3 * 3600);
	CHECK_INT(c.review.min_available_mb, 1500);
	CHECK_INT(c.review.ready_timeout_s, 120);
	CHECK_INT(c.review.pr_timeout_s, 1800);
	config_free(&c);
	write_file("p.toml",
	    "repo = \"o/p\"\n[review]\nmodel = 'opus'\nmax_diff_bytes = "
	    "5000\nmax_reviews_per_tick = 10\nidle_timeout_minutes = 2\n"
	    "no_review_escalate_minutes = 3\nmin_available_mb = 0\n"
	    "ready_timeout_seconds = 9\npr_timeout_seconds = 60\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.review.model, "opus");
	CHECK_INT(c.review.max_diff, 5000);
	CHECK_INT(c.review.max_reviews, 10);
	CHECK_INT(c.review.idle_timeout_s, 120);
	CHECK_INT(c.review.no_review_s, 180);
	CHECK_INT(c.review.min_available_mb, 0);
	CHECK_INT(c.review.ready_timeout_s, 9);
	CHECK_INT(c.review.pr_timeout_s, 60);
	config_free(&c);
	write_file("p.toml", "repo = \"o/p\"\n[review]\nmax_diff_bytes = 5\n");
	check_error("p.toml",
	    "T/p.toml:3: [review] max_diff_bytes: expected a whole number "
	    "from 1000 to 1000000, got '5'");
}

/* [agent]: the protocol and the marker waits. */
static void
test_config_agent_settings(void)
{
	struct config c;
	char err[256];

	clear_env();
	unsetenv("AGENT_PROTOCOL");
	unsetenv("AGENT_MARKER_READY_TIMEOUT");
	unsetenv("AGENT_MARKER_ACK_TIMEOUT");
	write_file("p.toml", "repo = \"o/p\"\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.agent_protocol, "phase");
	CHECK_INT(c.marker_ready_s, 30);
	CHECK_INT(c.marker_ack_s, 10);
	config_free(&c);
	write_file("p.toml",
	    "repo = \"o/p\"\n[agent]\nprotocol = \"markers\"\n"
	    "marker_ready_timeout = 5\nmarker_ack_timeout = 3\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.agent_protocol, "markers");
	CHECK_INT(c.marker_ready_s, 5);
	CHECK_INT(c.marker_ack_s, 3);
	config_free(&c);
	write_file("p.toml",
	    "repo = \"o/p\"\n[agent]\nprotocol = \"telepathy\"\n");
	check_error("p.toml",
	    "T/p.toml:3: [agent] protocol: expected \"phase\", "
	    "\"checkpoint\" or \"markers\", got 'telepathy'");
	unsetenv("AGENT_RUN_TIMEOUT");
	write_file("p.toml", "repo = \"o/p\"\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.agent_protocol, "phase");
	CHECK_INT(c.agent_run_timeout_s, 1800);
	config_free(&c);
	write_file("p.toml",
	    "repo = \"o/p\"\n[agent]\nprotocol = "
	    "\"checkpoint\"\nrun_timeout_seconds = 60\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.agent_protocol, "checkpoint");
	CHECK_INT(c.agent_run_timeout_s, 60);
	config_free(&c);
	write_file("p.toml",
	    "repo = \"o/p\"\n[agent]\nprotocol = \"markers\"\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK_STR(c.agent_protocol, "markers");
	config_free(&c);
	write_file("p.toml",
	    "repo = \"o/p\"\n\n[agent]\nprotocol = "
	    "\"pigeon\"\n");
	check_error("p.toml",
	    "T/p.toml:4: [agent] protocol: expected \"phase\", "
	    "\"checkpoint\" or \"markers\", got 'pigeon'");
	write_file("p.toml", "repo = \"o/p\"\n");
	setenv("AGENT_PROTOCOL", "Phase", 1);
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), -1);
	CHECK(strstr(err, "AGENT_PROTOCOL: expected") != NULL);
	config_free(&c);
	unsetenv("AGENT_PROTOCOL");
}

/* Each check that refuses, with where the value came from. */
static void
test_config_refused(void)
{
	clear_env();
	write_file("p.toml", "name = \"x\"\n[ci]\nwoodpecker_repo_id = 7\n");
	check_error("p.toml",
	    "T/p.toml: no 'repo' (`owner/name` of the forge repository)");
	write_file("p.toml", "repo = 'o/p?x=1#'\n");
	check_error("p.toml",
	    "T/p.toml:1: repo: the repository name has characters other "
	    "than letters, digits, '-', '_', '.', got 'o/p?x=1#'");
	write_file("p.toml", "repo = 'o/p'\n\nprimary_branch = \"a..b\"\n");
	check_error("p.toml",
	    "T/p.toml:3: primary_branch: contains '..', got 'a..b'");
	write_file("p.toml", "repo = 'o/p'\n[ci]\nstale_minutes = \"x\"\n");
	check_error("p.toml",
	    "T/p.toml:3: [ci] stale_minutes: expected a whole number >= 1, "
	    "got 'x'");
	write_file("p.toml", "repo = 'o/p'\n[ci.woodpecker_repo_id]\nx = 1\n");
	check_error("p.toml",
	    "T/p.toml:3: ci.woodpecker_repo_id: expected a value, not a "
	    "table");
	write_file("p.toml", "repo = 'o/p'\n[[ci]]\nstale_minutes = 1\n");
	check_error("p.toml", "T/p.toml:3: [[ci]]: expected a table [ci]");
	write_file("p.toml", "repo = ['o/p']\n");
	check_error("p.toml",
	    "T/p.toml:1: expected a single value, not an array");
	write_file("p.toml", "repo = 'o/p'\n[mirrors]\ngh = 1\n");
	check_error("p.toml",
	    "T/p.toml:3: [mirrors] gh: expected a quoted URL");
	check_error("none.toml",
	    "T/none.toml: cannot read: No such file or directory");
	/* .env values are checked too, named by their line. */
	write_file(".env", "FORGE_REPO=a/b\n# x\nCLAUDE_TIMEOUT=soon\n");
	check_error(NULL,
	    "T/.env:3: CLAUDE_TIMEOUT: expected a whole number >= 1, got "
	    "'soon'");
	write_file(".env", "FORGE_REPO=nodash\n");
	check_error(NULL,
	    "T/.env:1: FORGE_REPO: expected 'owner/name', got 'nodash'");
	write_file(".env", "FORGE_REPO=a/b\nPROJECT_NAME=../x\n");
	check_error(NULL,
	    "T/.env:2: PROJECT_NAME: starts with '.', got '../x'");
	write_file(".env", "FORGE_REPO=a/b\nbroken line\n");
	check_error(NULL,
	    "T/.env:2: 'broken' is a command: only variable assignments are "
	    "allowed");
	setenv("DISINTO_HTTP_TIMEOUT", "0", 1);
	write_file(".env", "");
	check_error(NULL,
	    "DISINTO_HTTP_TIMEOUT: expected a whole number from 1 to 3600, "
	    "got '0'");
	unsetenv("DISINTO_HTTP_TIMEOUT");
}

/* A failed load still says where to log: run dir and project name. */
static void
test_config_locate(void)
{
	struct config c;
	char err[256];

	clear_env();
	setenv("DISINTO_RUN_DIR", "/run/x", 1);
	write_file("p.toml", "  name = 'named'\nrepo = 'o/p'\n[ci]\nx = \n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), -1);
	CHECK_STR(c.project_name, "named");
	CHECK_STR(c.run_dir, "/run/x");
	CHECK_STR(c.factory_root, tmpdir);
	config_free(&c);
	write_file("base.toml", "name = 'no good'\nrepo = 'o/p'\n[x\n");
	CHECK_INT(load(&c, "base.toml", err, sizeof(err)), -1);
	CHECK_STR(c.project_name, "base");
	config_free(&c);
	/* A broken .env: the project file is not read, its name is. */
	write_file(".env", "A=$(x)\n");
	write_file("p.toml", "name = \"named\"\nrepo = 'o/p'\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), -1);
	CHECK_STR(c.project_name, "named");
	config_free(&c);
	unsetenv("DISINTO_RUN_DIR");
}

/* 1 when env holds the string kv. */
static int
has(char **env, const char *kv)
{
	size_t i;

	for (i = 0; env[i] != NULL; i++)
		if (strcmp(env[i], kv) == 0)
			return 1;
	return 0;
}

/* 1 when env sets key (to anything). */
static int
sets(char **env, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], key, n) == 0 && env[i][n] == '=')
			return 1;
	return 0;
}

static void
test_config_agent_env(void)
{
	struct config c;
	char err[256], **env, *want;

	clear_env();
	write_file(".env",
	    "FORGE_TOKEN=dev-secret\nFORGE_REVIEW_TOKEN=rev-secret\n"
	    "WOODPECKER_TOKEN=wp-secret\nEXTRA='x y'\n"
	    "ANTHROPIC_API_KEY=sk-key\nCLAUDE_CODE_USE_BEDROCK=1\n"
	    "DB_PASSWORD=pw\nFORGE_URL=http://old\n");
	write_file("p.toml",
	    "name = 'harb'\nrepo = 'o/harb'\n"
	    "forge_url = 'https://bot:pw@f:1'\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	env = config_agent_env(&c, CONFIG_ROLE_DEV);
	CHECK(has(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"));
	CHECK(has(env, "ANTHROPIC_API_KEY=sk-key"));
	CHECK(has(env, "CLAUDE_CODE_USE_BEDROCK=1"));
	CHECK(has(env, "PROJECT_NAME=harb"));
	/* No agents' token, not trusted with the dev bot's: none. */
	CHECK(!sets(env, "FORGE_TOKEN"));
	/* Only what an agent needs: no other .env variable, no other token. */
	CHECK(!sets(env, "FORGE_REVIEW_TOKEN"));
	CHECK(!sets(env, "WOODPECKER_TOKEN"));
	CHECK(!sets(env, "EXTRA"));
	CHECK(!sets(env, "DB_PASSWORD"));
	/* The forge's URLs without credentials. */
	CHECK(has(env, "FORGE_URL=https://f:1"));
	CHECK(has(env, "FORGE_API=https://f:1/api/v1/repos/o/harb"));
	CHECK(has(env, "FORGE_WEB=https://f:1/o/harb"));
	want = xasprintf("FACTORY_ROOT=%s", tmpdir);
	CHECK(has(env, want));
	free(want);
	want = xasprintf("PROJECT_TOML=%s/p.toml", tmpdir);
	CHECK(has(env, want));
	free(want);
	CHECK(sets(env, "PATH"));
	CHECK(sets(env, "HOME") == (getenv("HOME") != NULL));
	config_env_free(env);
	/* The review agent gets no forge token: review-poll posts. */
	env = config_agent_env(&c, CONFIG_ROLE_REVIEW);
	CHECK(!sets(env, "FORGE_REVIEW_TOKEN"));
	CHECK(!sets(env, "FORGE_TOKEN"));
	CHECK(!sets(env, "WOODPECKER_TOKEN"));
	CHECK(has(env, "ANTHROPIC_API_KEY=sk-key"));
	config_env_free(env);
	config_free(&c);
	/* AGENT_ENV_PASS names more, from .env or else the environment. */
	setenv("FROM_ENV", "e v", 1);
	write_file(".env",
	    "CODEBERG_TOKEN=legacy\nEXTRA='x y'\nAGENT_ENV_PASS='EXTRA, "
	    "FROM_ENV,UNSET_ONE'\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	env = config_agent_env(&c, CONFIG_ROLE_REVIEW);
	CHECK(has(env, "EXTRA=x y"));
	CHECK(has(env, "FROM_ENV=e v"));
	CHECK(!sets(env, "UNSET_ONE"));
	CHECK(!sets(env, "FORGE_TOKEN"));
	CHECK(!sets(env, "FORGE_REVIEW_TOKEN"));
	config_env_free(env);
	env = config_agent_env(&c, CONFIG_ROLE_DEV);
	CHECK(!sets(env, "FORGE_TOKEN"));
	config_env_free(env);
	config_free(&c);
	/* The operator trusts the agents with the dev bot's token. */
	write_file(".env",
	    "CODEBERG_TOKEN=legacy\nAGENT_TRUST_DEV_BOT_TOKEN=true\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	env = config_agent_env(&c, CONFIG_ROLE_DEV);
	CHECK(has(env, "FORGE_TOKEN=legacy"));
	config_env_free(env);
	env = config_agent_env(&c, CONFIG_ROLE_OTHER);
	CHECK(!sets(env, "FORGE_TOKEN") && !sets(env, "FORGE_REVIEW_TOKEN"));
	config_env_free(env);
	config_free(&c);
	unsetenv("FROM_ENV");
	/*
	 * With the agents' own token, a dev agent gets it as FORGE_TOKEN,
	 * never the dev bot's; the review agent is left as it was.
	 */
	write_file(".env",
	    "FORGE_TOKEN=dev-secret\nFORGE_REVIEW_TOKEN=rev-secret\n"
	    "FORGE_AGENT_TOKEN=agent-secret\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	env = config_agent_env(&c, CONFIG_ROLE_DEV);
	CHECK(has(env, "FORGE_TOKEN=agent-secret"));
	CHECK(!has(env, "FORGE_TOKEN=dev-secret"));
	CHECK(!sets(env, "FORGE_AGENT_TOKEN"));
	config_env_free(env);
	env = config_agent_env(&c, CONFIG_ROLE_REVIEW);
	CHECK(!sets(env, "FORGE_REVIEW_TOKEN"));
	CHECK(!sets(env, "FORGE_TOKEN"));
	config_env_free(env);
	CHECK(strcmp(c.forge_token, "dev-secret") == 0);
	config_free(&c);
	write_file(".env", "AGENT_ENV_PASS=FORGE_AGENT_TOKEN\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), -1);
	CHECK(strstr(err, "never get") != NULL);
	config_free(&c);
	/* It never names the factory's tokens, and names only variables. */
	write_file(".env", "AGENT_ENV_PASS=EXTRA,WOODPECKER_TOKEN\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), -1);
	CHECK(strstr(err, "AGENT_ENV_PASS") != NULL &&
	    strstr(err, "never get") != NULL);
	config_free(&c);
	write_file(".env", "AGENT_ENV_PASS='A-B'\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), -1);
	CHECK(strstr(err, "variable names") != NULL);
	config_free(&c);
	write_file(".env", "");
}

/*
 * The tmux server's environment is the non-secret part of .env: no
 * variable whose name says it is a secret, none whose value carries one
 * (an expanded token, a URL's credentials); the tools' children still get
 * everything bash's did.
 */
static void
test_config_server_env(void)
{
	struct config c;
	char err[256], **env;

	clear_env();
	redact_clear();
	write_file(".env",
	    "FORGE_TOKEN=dev-secret-0123\nFORGE_REVIEW_TOKEN=rev-secret-0123\n"
	    "FORGE_AGENT_TOKEN=agent-secret-0123\nANTHROPIC_API_KEY=sk-key-0123\n"
	    "WOODPECKER_TOKEN=wp-secret-0123\nDB_PASSWORD=pw-secret-0123\n"
	    "COPY=\"${FORGE_TOKEN}\"\nMIRROR_URL=https://bot:pw-url-0123@m/x\n"
	    "GARDENER_SETTING=compost\nGITHUB_TOKEN=gh-0123456789\n");
	write_file("p.toml", "name = 'harb'\nrepo = 'o/harb'\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	env = config_server_env(&c);
	CHECK(has(env, "GARDENER_SETTING=compost"));
	CHECK(has(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"));
	CHECK(sets(env, "FACTORY_ROOT"));
	CHECK(!sets(env, "FORGE_TOKEN"));
	CHECK(!sets(env, "FORGE_REVIEW_TOKEN"));
	CHECK(!sets(env, "FORGE_AGENT_TOKEN"));
	CHECK(!sets(env, "ANTHROPIC_API_KEY"));
	CHECK(!sets(env, "WOODPECKER_TOKEN"));
	CHECK(!sets(env, "DB_PASSWORD"));
	CHECK(!sets(env, "COPY"));
	CHECK(!sets(env, "MIRROR_URL"));
	CHECK(!sets(env, "GITHUB_TOKEN"));
	CHECK(has(env,
	    "DISINTO_SERVER_ENV=GARDENER_SETTING,FACTORY_ROOT,"
	    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"));
	config_env_free(env);
	/* The children (git, the fix command): .env whole, as bash's. */
	env = config_child_env(&c);
	CHECK(has(env, "FORGE_TOKEN=dev-secret-0123"));
	CHECK(has(env, "ANTHROPIC_API_KEY=sk-key-0123"));
	CHECK(has(env, "MIRROR_URL=https://bot:pw-url-0123@m/x"));
	CHECK(has(env, "GARDENER_SETTING=compost"));
	CHECK(!sets(env, "GITHUB_TOKEN"));
	CHECK(sets(env, "DISINTO_SERVER_ENV"));
	config_env_free(env);
	config_free(&c);
	redact_clear();
	write_file(".env", "");
}

/* redact_values(in) is want. */
static int
masked(const char *in, const char *want)
{
	char *got = redact_values(in);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("#   got \"%s\", want \"%s\"\n", got, want);
	free(got);
	return ok;
}

/*
 * Loading hands the masker every secret read: the token settings (legacy
 * names too), .env and environment variables with secret names, and the
 * credentials of the configured URLs; nothing else.
 */
static void
test_config_secrets_masked(void)
{
	struct config c;
	char err[256];

	clear_env();
	redact_clear();
	setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-123", 1);
	write_file(".env",
	    "CODEBERG_TOKEN=legacy-dev-token\nFORGE_REVIEW_TOKEN=rev-token-42\n"
	    "WOODPECKER_TOKEN=wp-token-4242\nDB_PASSWORD=correct-horse\n"
	    "PLAIN_SETTING=not-a-secret-value\n");
	write_file("p.toml",
	    "name = 'harb'\nrepo = 'o/harb'\n"
	    "forge_url = 'https://bot:url-password@f:1'\n"
	    "[mirrors]\nbackup = 'https://mirror-token-0123456789@m/x.git'\n");
	CHECK_INT(load(&c, "p.toml", err, sizeof(err)), 0);
	CHECK(masked("legacy-dev-token rev-token-42 wp-token-4242",
	    "[REDACTED] [REDACTED] [REDACTED]"));
	CHECK(masked("pw correct-horse key sk-ant-from-env-123",
	    "pw [REDACTED] key [REDACTED]"));
	CHECK(masked("url-password mirror-token-0123456789",
	    "[REDACTED] [REDACTED]"));
	CHECK(masked("not-a-secret-value harb bot",
	    "not-a-secret-value harb bot"));
	config_free(&c);
	unsetenv("ANTHROPIC_API_KEY");
	redact_clear();
	write_file(".env", "");
}

static void
test_config_path(void)
{
	char *home = tmp("home"), *p, *want;
	const char *vers[] = {"v9.1.0", "v22.2.0", "v9.10.0"};
	size_t i;

	for (i = 0; i < 3; i++) {
		p = xasprintf("%s/.nvm/versions/node/%s/bin", home, vers[i]);
		CHECK_INT(file_mkdirs(p, 0755), 0);
		free(p);
	}
	p = config_path(home, "/usr/bin:/opt/x::/bin:/opt/x");
	want = xasprintf("%s/.local/bin:%s/.foundry/bin:"
			 "%s/.nvm/versions/node/v22.2.0/bin:"
			 "%s/.nvm/versions/node/v9.10.0/bin:"
			 "%s/.nvm/versions/node/v9.1.0/bin:"
			 "/usr/local/bin:/usr/bin:/bin:/opt/x",
	    home, home, home, home, home);
	CHECK_STR(p, want);
	free(want);
	free(p);
	/* Applying it twice changes nothing. */
	setenv("HOME", home, 1);
	setenv("PATH", "/usr/bin:/opt/y", 1);
	CHECK_INT(config_apply_path(), 0);
	p = xstrdup(getenv("PATH"));
	CHECK_INT(config_apply_path(), 0);
	CHECK_STR(getenv("PATH"), p);
	CHECK(strstr(p, ":/opt/y") != NULL);
	free(p);
	p = config_path(NULL, NULL);
	CHECK_STR(p, "/usr/local/bin:/usr/bin:/bin");
	free(p);
	free(home);
}

/* --help and docs/CONFIG.md list every setting of the table. */
static void
test_config_docs(void)
{
	char *help = config_help(), *md = config_markdown();

	CHECK(strstr(help, "FORGE_TOKEN ") != NULL);
	CHECK(strstr(help, "[ci] woodpecker_repo_id") != NULL);
	CHECK(strstr(help, "REVIEW_MAX_REVIEWS_PER_TICK") != NULL);
	CHECK(
	    strstr(md, "| `FORGE_TOKEN` (legacy `CODEBERG_TOKEN`) |") != NULL);
	CHECK(strstr(md, "`[review] max_diff_bytes` | `25000` |") != NULL);
	CHECK(strstr(md, "`[mirrors] NAME`") != NULL);
	free(help);
	free(md);
}

int
main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_config.XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return 1;
	RUN(test_config_env_layers);
	RUN(test_config_agent_settings);
	RUN(test_config_project_layer);
	RUN(test_config_ci_id);
	RUN(test_config_review_settings);
	RUN(test_config_refused);
	RUN(test_config_locate);
	RUN(test_config_agent_env);
	RUN(test_config_server_env);
	RUN(test_config_secrets_masked);
	RUN(test_config_path);
	RUN(test_config_docs);
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return check_main();
}
