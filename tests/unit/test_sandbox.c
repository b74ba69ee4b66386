/*
 * The confinement's command line (sandbox.h): what bubblewrap is told
 * for a session, in which order, and the choice that refuses a launch
 * when nothing can confine the agent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "sandbox.h"
#include "strv.h"

/* The index of the first "a b c" run of words in v from, or -1. */
static long
find3(char **v, size_t from, const char *a, const char *b, const char *c)
{
	size_t i;

	for (i = from; v[i] != NULL; i++)
		if (strcmp(v[i], a) == 0 &&
		    (b == NULL ||
			(v[i + 1] != NULL && strcmp(v[i + 1], b) == 0 &&
			    (c == NULL ||
				(v[i + 2] != NULL &&
				    strcmp(v[i + 2], c) == 0)))))
			return (long)i;
	return -1;
}

static const struct sandbox_conf conf = {.mode = "bwrap",
    .bwrap = "/usr/bin/bwrap",
    .factory_root = "/srv/factory",
    .run_dir = "/var/run/disinto",
    .ro = "/opt/ro",
    .rw = "/srv/origin.git:relative"};

static void
test_bwrap_argv(void)
{
	const char *env[] = {"HOME=/home/a", "PATH=/home/a/.local/bin:/usr/bin",
	    "FORGE_TOKEN=x", NULL};
	char *const cmd[] = {"claude", "--x", NULL};
	struct sandbox_target t = {.workdir = "/var/run/disinto/p-worktree-1",
	    .session_dir = "/var/run/disinto/sessions/active/dev-p-1",
	    .env = env};
	char **v;
	long run, rw, home, sess, set, ro;
	size_t n;

	sandbox_set(&conf);
	v = sandbox_argv(SANDBOX_KIND_BWRAP, &t, cmd);
	n = strv_len(v);
	CHECK_STR(v[0], "/usr/bin/bwrap");
	CHECK(find3(v, 0, "--die-with-parent", NULL, NULL) > 0);
	CHECK(find3(v, 0, "--unshare-pid", NULL, NULL) > 0);
	CHECK(find3(v, 0, "--unshare-ipc", NULL, NULL) > 0);
	CHECK(find3(v, 0, "--proc", "/proc", NULL) > 0);
	CHECK(find3(v, 0, "--ro-bind", "/", "/") > 0);
	/* A tmux session keeps its terminal. */
	CHECK_INT(find3(v, 0, "--new-session", NULL, NULL), -1);
	/* HOME from the agent's variables, emptied; its PATH dir back. */
	home = find3(v, 0, "--tmpfs", "/home/a", NULL);
	CHECK(home > 0);
	CHECK(find3(v, 0, "--ro-bind-try", "/home/a/.local", "/home/a/.local") >
	    home);
	CHECK(find3(v, 0, "--bind-try", "/home/a/.claude", "/home/a/.claude") >
	    home);
	/* The operator's additions, then the run directory emptied. */
	rw = find3(v, 0, "--bind-try", "/srv/origin.git", "/srv/origin.git");
	ro = find3(v, 0, "--ro-bind-try", "/opt/ro", "/opt/ro");
	run = find3(v, 0, "--tmpfs", "/var/run/disinto", NULL);
	CHECK(rw > 0 && ro > 0 && run > rw && run > ro);
	CHECK_INT(find3(v, 0, "--bind-try", "relative", NULL), -1);
	/* The session's places after it, read-write; settings read-only. */
	sess = find3(v, 0, "--bind", t.session_dir, t.session_dir);
	CHECK(sess > run);
	CHECK(find3(v, 0, "--bind", t.workdir, t.workdir) > run);
	set =
	    find3(v, 0, "--ro-bind-try", "/home/a/.claude/settings.json", NULL);
	CHECK(set > find3(v, 0, "--bind-try", "/home/a/.claude", NULL));
	CHECK(find3(v, 0, "--remount-ro", "/var/run/disinto", NULL) > sess);
	CHECK(
	    find3(v, 0, "--ro-bind-try", "/srv/factory", "/srv/factory") > run);
	/* The command last, after "--". */
	CHECK(n >= 3);
	CHECK_STR(v[n - 3], "--");
	CHECK_STR(v[n - 2], "claude");
	CHECK_STR(v[n - 1], "--x");
	strv_free(v);
	/* A one-shot run has no terminal: a session of its own. */
	t.oneshot = 1;
	v = sandbox_argv(SANDBOX_KIND_BWRAP, &t, cmd);
	CHECK(find3(v, 0, "--new-session", NULL, NULL) > 0);
	strv_free(v);
}

static void
test_user_argv(void)
{
	const char *env[] = {"HOME=/home/a", "FORGE_TOKEN=x", "PATH=/usr/bin",
	    NULL};
	char *const cmd[] = {"claude", NULL};
	struct sandbox_conf c = conf;
	struct sandbox_target t = {.workdir = "/w",
	    .session_dir = "/s",
	    .env = env};
	char **v;

	c.user = "agent";
	sandbox_set(&c);
	v = sandbox_argv(SANDBOX_KIND_USER, &t, cmd);
	CHECK_STR(v[0], "sudo");
	CHECK(find3(v, 0, "-n", NULL, NULL) > 0);
	CHECK(find3(v, 0, "-u", "agent", NULL) > 0);
	/* Its variables kept by name, never by value; not HOME. */
	CHECK(find3(v, 0, "--preserve-env=FORGE_TOKEN,PATH", NULL, NULL) > 0);
	/* Under umask 002, the command line as words, never as text. */
	CHECK(find3(v, 0, "--", "env", "GIT_CONFIG_COUNT=1") > 0);
	CHECK(find3(v, 0, "GIT_CONFIG_KEY_0=safe.directory",
		  "GIT_CONFIG_VALUE_0=/w", "sh") > 0);
	CHECK(find3(v, 0, "sh", "-c", "umask 002; exec \"$@\"") > 0);
	CHECK(find3(v, 0, "umask 002; exec \"$@\"", "sh", "claude") > 0);
	CHECK_STR(v[strv_len(v) - 1], "claude");
	strv_free(v);
}

static void
test_choose(void)
{
	struct sandbox_conf c = conf;
	enum sandbox_kind k = SANDBOX_KIND_BWRAP;
	char why[1024];

	/* Trusted by name: unconfined, the command alone. */
	c.mode = SANDBOX_TRUST;
	sandbox_set(&c);
	CHECK_INT(sandbox_choose(&k, why, sizeof(why)), 0);
	CHECK_INT(k, SANDBOX_KIND_NONE);
	/* No bubblewrap and no user: refused, with the reason. */
	c.mode = SANDBOX_AUTO;
	c.bwrap = "/nonexistent/bwrap";
	sandbox_set(&c);
	CHECK_INT(sandbox_choose(&k, why, sizeof(why)), -1);
	CHECK(strstr(why, "cannot be confined") != NULL);
	CHECK(strstr(why, "no AGENT_USER") != NULL);
	CHECK(strstr(why, SANDBOX_TRUST) != NULL);
	/* bwrap asked for and missing: refused too. */
	c.mode = SANDBOX_BWRAP;
	sandbox_set(&c);
	CHECK_INT(sandbox_probe(SANDBOX_KIND_BWRAP, why, sizeof(why)), -1);
	CHECK(strstr(why, "/nonexistent/bwrap") != NULL);
	sandbox_set(NULL);
	CHECK_INT(sandbox_choose(&k, why, sizeof(why)), 0);
	CHECK_INT(k, SANDBOX_KIND_NONE);
}

int
main(void)
{
	RUN(test_bwrap_argv);
	RUN(test_user_argv);
	RUN(test_choose);
	return check_main();
}
