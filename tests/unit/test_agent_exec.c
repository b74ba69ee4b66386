/*
 * Tests for the agent's wrapper (common/agent/agent_exec.c): the private
 * variables file, the command line, and the wrapper itself run in a
 * child: the variables reach the command and the file is gone, the lock
 * is held while the command runs and the state says so, the command's
 * exit status comes back, and failures are told in the state file.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_exec.h"
#include "agent_lock.h"
#include "buf.h"
#include "check.h"
#include "file.h"
#include "lock.h"
#include "strv.h"

static char dir[] = "/tmp/test_agent_exec.XXXXXX";

/* dir/name, in one of 32 buffers: each name gets its own, for good. */
static char *
path_of(const char *name)
{
	static char p[32][256];
	static int n;
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(p[i] + strlen(dir) + 1, name) == 0)
			return p[i];
	if (n == 32)
		abort();
	snprintf(p[n], sizeof(p[n]), "%s/%s", dir, name);
	return p[n++];
}

static char *
slurp(const char *path)
{
	struct buf b;

	buf_init(&b, 0);
	(void)file_read(path, 4096, &b);
	return buf_steal(&b);
}

/* Run the wrapper with args in a child; its exit status, its message. */
static int
run_wrapper(char *const *args, char *msg, size_t msgsz)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(p) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		char err[512];
		int argc = 0, rc;

		close(p[0]);
		while (args[argc] != NULL)
			argc++;
		rc = agent_exec_main(argc, (char **)args, err, sizeof(err));
		(void)write(p[1], err, strlen(err));
		_exit(rc);
	}
	close(p[1]);
	n = read(p[0], msg, msgsz - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
test_exec_env_file(void)
{
	const char *env[] = {"A=1", "B=two words", "C=line\nbreak", NULL};
	char *path = NULL, *tmpl = path_of("env.XXXXXX");
	struct stat st;
	struct buf b;

	CHECK_INT(agent_exec_env_write(tmpl, env, &path), 0);
	CHECK(path != NULL && strcmp(path, tmpl) != 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	buf_init(&b, 0);
	CHECK_INT(file_read(path, 4096, &b), 0);
	CHECK_INT(b.len, 29);
	CHECK(memcmp(b.data, "A=1\0B=two words\0C=line\nbreak\0", 29) == 0);
	buf_free(&b);
	unlink(path);
	free(path);
}

static void
test_exec_argv(void)
{
	char *cmd[] = {"claude", "--model", "x", NULL};
	struct agent_exec x = {.env_file = "/r/e",
	    .state = "/r/s",
	    .lock = "/h/l",
	    .wait_s = 300,
	    .request = "/r/q",
	    .watch = "/r/p"};
	char **v = agent_exec_argv("/bin/dev-poll", &x, cmd);
	const char *want[] = {"/bin/dev-poll", "--agent-exec", "--env", "/r/e",
	    "--state", "/r/s", "--lock", "/h/l", "--wait", "300", "--request",
	    "/r/q", "--watch", "/r/p", "--", "claude", "--model", "x", NULL};
	size_t i;

	for (i = 0; want[i] != NULL; i++)
		CHECK_STR(v[i], want[i]);
	CHECK(v[i] == NULL);
	strv_free(v);
	memset(&x, 0, sizeof(x));
	v = agent_exec_argv("/e", &x, cmd);
	CHECK_STR(v[1], "--agent-exec");
	CHECK_STR(v[2], "--");
	strv_free(v);
}

static void
test_exec_runs(void)
{
	const char *env[] = {"PROBE=it works", NULL};
	char *envfile = NULL, msg[512], *out;
	char script[512];
	char *args[] = {"--agent-exec", "--env", NULL, "--", "sh", "-c", script,
	    NULL};

	CHECK_INT(agent_exec_env_write(path_of("e.XXXXXX"), env, &envfile), 0);
	args[2] = envfile;
	snprintf(script, sizeof(script), "printf '%%s' \"$PROBE\" >%s",
	    path_of("out"));
	CHECK_INT(run_wrapper(args, msg, sizeof(msg)), 0);
	CHECK_STR(out = slurp(path_of("out")), "it works");
	free(out);
	CHECK(!file_exists(envfile));
	/* Read once: a second run finds no file. */
	CHECK_INT(run_wrapper(args, msg, sizeof(msg)), 1);
	CHECK(strstr(msg, "cannot read") != NULL);
	free(envfile);
}

static void
test_exec_refuses(void)
{
	char msg[512], *st;
	char *args[] = {"--agent-exec", "--env", path_of("open"), "--state",
	    path_of("st"), "--", "true", NULL};
	char *bad[] = {"--agent-exec", "--state", path_of("st"), "--",
	    path_of("missing"), NULL};
	char *usage[] = {"--agent-exec", "--lock", "/x", "--", "true", NULL};

	/* Variables others could read are not used. */
	CHECK_INT(file_write_atomic(path_of("open"), "A=1", 4, 0644, 0), 0);
	CHECK_INT(run_wrapper(args, msg, sizeof(msg)), 1);
	CHECK(strstr(msg, "Operation not permitted") != NULL);
	CHECK(!file_exists(path_of("open")));
	CHECK((st = slurp(path_of("st"))) != NULL &&
	    strncmp(st, "error: cannot read", 18) == 0);
	free(st);
	CHECK_INT(run_wrapper(bad, msg, sizeof(msg)), 127);
	CHECK(strstr(msg, "cannot run") != NULL);
	CHECK_INT(run_wrapper(usage, msg, sizeof(msg)), 2);
	CHECK(strstr(msg, "usage:") != NULL);
}

static void
test_exec_lock(void)
{
	char msg[512], script[512], wait[8] = "1", *out;
	char *args[] = {"--agent-exec", "--state", path_of("st2"), "--lock",
	    path_of("l/session.lock"), "--wait", wait, "--request",
	    path_of("rq"), "--", "sh", "-c", script, NULL};
	int fd;

	/* While the command runs, the state says held. */
	snprintf(script, sizeof(script), "cat %s >%s; exit 7", path_of("st2"),
	    path_of("seen"));
	CHECK_INT(run_wrapper(args, msg, sizeof(msg)), 7);
	/* The word, then the wrapper's process id. */
	CHECK(strncmp(out = slurp(path_of("seen")), "held ", 5) == 0);
	free(out);
	CHECK(!file_exists(path_of("st2")));
	/* Another holder: the command never runs. */
	CHECK_INT(lock_take(path_of("l/session.lock"), &fd), 0);
	unlink(path_of("seen"));
	CHECK_INT(run_wrapper(args, msg, sizeof(msg)), AGENT_EXEC_BUSY);
	CHECK(!file_exists(path_of("seen")));
	CHECK(strncmp(out = slurp(path_of("st2")), "busy ", 5) == 0);
	free(out);
	CHECK(strstr(msg, "stayed busy for 1 s") != NULL);
	lock_release(fd);
}

int
main(void)
{
	int r;

	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_exec_env_file);
	RUN(test_exec_argv);
	RUN(test_exec_runs);
	RUN(test_exec_refuses);
	RUN(test_exec_lock);
	r = check_main();
	if (fork() == 0) {
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
		_exit(127);
	}
	wait(NULL);
	return r;
}
