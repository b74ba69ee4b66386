/*
 * Unit tests for common/run/wakecmd.c and common/run/tickenv.c: the wake's
 * command line (its operands after "--", so a reason that starts with '-'
 * is never an option; the run directory; no reason without a project
 * operand for a tool of the environment's project); a wake that cannot be
 * started; a record of the environment's settings written and read back,
 * a record others could write refused, the waker's settings dropped and
 * the recorded ones taken, git's hook variables unset, and the run
 * directories a wake may name.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "file.h"
#include "runfiles.h"
#include "strv.h"
#include "tickenv.h"
#include "wakecmd.h"
#include "xmalloc.h"

static char dir[] = "/tmp/test_wakecmd.XXXXXX";

/* The argv as one line, its elements separated by '|'.  Caller frees. */
static char *
joined(char **v)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; v[i] != NULL; i++)
		buf_printf(&b, "%s%s", i > 0 ? "|" : "", v[i]);
	strv_free(v);
	return buf_steal(&b);
}

static void
test_wakecmd_argv(void)
{
	char *s;

	s = joined(wakecmd_argv("/x/dev-poll", "/run/d", "/f/p.toml",
	    "stop hook dev-p-1"));
	CHECK_STR(s,
	    "/x/dev-poll|--wake|--run-dir|/run/d|--|/f/p.toml|"
	    "stop hook dev-p-1");
	free(s);
	s = joined(wakecmd_argv("dev-poll", NULL, "p.toml", "--dry-run"));
	CHECK_STR(s, "dev-poll|--wake|--|p.toml|--dry-run");
	free(s);
	s = joined(wakecmd_argv("dev-poll", "/r", "", "why"));
	CHECK_STR(s, "dev-poll|--wake|--run-dir|/r");
	free(s);
	s = joined(wakecmd_argv("supervisor-poll", "/r", NULL, "-v"));
	CHECK_STR(s, "supervisor-poll|--wake|--run-dir|/r|--|-v");
	free(s);
	s = joined(wakecmd_argv("supervisor-poll", NULL, NULL, ""));
	CHECK_STR(s, "supervisor-poll|--wake");
	free(s);
	CHECK_INT(wakecmd_spawn(NULL, NULL, "p.toml", "x"), -1);
	CHECK_INT(wakecmd_spawn("", NULL, "p.toml", "x"), -1);
	CHECK_INT(wakecmd_spawn("/nonexistent/dev-poll", NULL, "p.toml", "x"),
	    -1);
}

static void
test_tickenv_record(void)
{
	char *path = xasprintf("%s/dev-poll-p.settings", dir);
	struct buf rec;
	struct stat st;

	setenv("DISINTO_RUN_DIR", "/run/scheduled", 1);
	setenv("TEST_NOT_A_SETTING", "x", 1);
	CHECK_INT(tickenv_record(path, NULL), 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT((int)(st.st_mode & 0777), 0600);
	buf_init(&rec, TICKENV_MAX);
	CHECK_INT(tickenv_load(path, &rec), 1);
	CHECK_STR(tickenv_get(&rec, "DISINTO_RUN_DIR"), "/run/scheduled");
	CHECK(tickenv_get(&rec, "TEST_NOT_A_SETTING") == NULL);
	/* The waker's values go, the recorded ones come. */
	setenv("DISINTO_RUN_DIR", "/run/waker", 1);
	setenv("CLAUDE_WAKER", "1", 1);
	tickenv_adopt(NULL, &rec);
	CHECK_STR(getenv("DISINTO_RUN_DIR"), "/run/scheduled");
	CHECK(getenv("CLAUDE_WAKER") == NULL);
	CHECK_STR(getenv("TEST_NOT_A_SETTING"), "x");
	buf_free(&rec);
	/* A record group or others could write is no record. */
	CHECK_INT(chmod(path, 0620), 0);
	buf_init(&rec, TICKENV_MAX);
	CHECK_INT(tickenv_load(path, &rec), -1);
	buf_free(&rec);
	(void)unlink(path);
	buf_init(&rec, TICKENV_MAX);
	CHECK_INT(tickenv_load(path, &rec), 0);
	buf_free(&rec);
	free(path);
}

static void
test_tickenv_git(void)
{
	setenv("GIT_DIR", "/nonexistent", 1);
	setenv("GIT_PUSH_OPTION_0", "x", 1);
	setenv("GIT_CONFIG_KEY_0", "core.bare", 1);
	setenv("GIT_AUTHOR_NAME", "someone", 1);
	setenv("GIT_CONFIG_GLOBAL", "/g", 1);
	tickenv_scrub_git();
	CHECK(getenv("GIT_DIR") == NULL);
	CHECK(getenv("GIT_PUSH_OPTION_0") == NULL);
	CHECK(getenv("GIT_CONFIG_KEY_0") == NULL);
	CHECK_STR(getenv("GIT_AUTHOR_NAME"), "someone");
	CHECK_STR(getenv("GIT_CONFIG_GLOBAL"), "/g");
}

static void
test_tickenv_run_dir(void)
{
	char why[512], *sub = xasprintf("%s/open", dir);
	char *sess = xasprintf("%s/sessions/active/dev-p-1", dir);
	char *wt = xasprintf("%s/p-worktree-3", dir);

	CHECK_INT(tickenv_run_dir_bad(dir, why, sizeof(why)), 0);
	CHECK_INT(tickenv_run_dir_bad("run", why, sizeof(why)), -1);
	CHECK(strstr(why, "not an absolute path") != NULL);
	CHECK_INT(tickenv_run_dir_bad("/nonexistent/run", why, sizeof(why)),
	    -1);
	CHECK_INT(mkdir(sub, 0777), 0);
	CHECK_INT(chmod(sub, 0777), 0);
	CHECK_INT(tickenv_run_dir_bad(sub, why, sizeof(why)), -1);
	CHECK_INT(file_mkdirs(sess, 0700), 0);
	CHECK_INT(tickenv_run_dir_bad(sess, why, sizeof(why)), -1);
	CHECK(strstr(why, "agents write") != NULL);
	CHECK_INT(mkdir(wt, 0700), 0);
	CHECK_INT(tickenv_run_dir_bad(wt, why, sizeof(why)), -1);
	(void)rmdir(wt);
	(void)rmdir(sess);
	free(sess);
	sess = xasprintf("%s/sessions/active", dir);
	(void)rmdir(sess);
	free(sess);
	sess = xasprintf("%s/sessions", dir);
	(void)rmdir(sess);
	(void)rmdir(sub);
	free(sess);
	free(wt);
	free(sub);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_wakecmd_argv);
	RUN(test_tickenv_record);
	RUN(test_tickenv_git);
	RUN(test_tickenv_run_dir);
	(void)rmdir(dir);
	return check_main();
}
