/*
 * The checkpoint backend with a stand-in agent (a shell script): a
 * session without a run yet, two racing injections starting one run,
 * liveness while it runs, its checkpoint read into the phase file once,
 * the resume by the agent's session id, the timeout killing the run, the
 * session removed by kill.
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "buf.h"
#include "check.h"
#include "file.h"
#include "phase.h"
#include "runfiles.h"
#include "xmalloc.h"

static char dir[] = "/tmp/test-agent-checkpoint.XXXXXX";

/*
 * The stand-in: logs its arguments and standard input, sleeps $NAP,
 * checkpoints, prints.
 */
static const char agent_sh[] =
    "#!/bin/sh\n"
    "echo run >>\"$LOG\"\n"
    "echo \"$*\" >>\"$LOG.args\"\n"
    "echo \"stdin: $(cat)\" >>\"$LOG.args\"\n"
    "sleep \"$NAP\"\n"
    "printf '{\"status\":\"DONE\",\"session_id\":\"%s\"}' "
    "\"$CTRLRELAY_SESSION_ID\" >\"$CTRLRELAY_STATE_FILE\"\n"
    "echo '{\"type\":\"result\",\"session_id\":\"agent-42\"}'\n";

static void
sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Wait at most secs seconds until the session's phase is ph. */
static int
wait_phase(const char *session, enum phase ph, int secs)
{
	struct phase_info pi;
	char *path = xasprintf("%s/p.phase", dir);
	int i;

	for (i = 0; i < secs * 20; i++) {
		if (agent_read_signal(session, path, &pi) == 0 &&
		    pi.phase == ph)
			break;
		sleep_ms(50);
	}
	free(path);
	return i < secs * 20 ? 0 : -1;
}

/* The runs the stand-in logged; their arguments in b. */
static int
calls(struct buf *b)
{
	char *path = xasprintf("%s/calls", dir);
	const char *p;
	int n = 0;

	buf_reset(b);
	(void)file_read(path, 65536, b);
	for (p = buf_str(b); *p != '\0'; p++)
		n += *p == '\n';
	buf_reset(b);
	free(path);
	path = xasprintf("%s/calls.args", dir);
	(void)file_read(path, 65536, b);
	free(path);
	return n;
}

static void
start(const char *session, const char *nap)
{
	char *script = xasprintf("%s/agent.sh", dir);
	char *log = xasprintf("LOG=%s/calls", dir);
	char *napv = xasprintf("NAP=%s", nap);
	char *phase = xasprintf("%s/p.phase", dir);
	char *argv[] = {script, "--model", "m", NULL};
	const char *env[] = {log, napv, NULL};
	struct agent_spec s = {.session = session,
	    .workdir = dir,
	    .argv = argv,
	    .env = env,
	    .signal_path = phase};
	char err[256];

	CHECK_INT(file_write_atomic(phase, "", 0, 0644, 0), 0);
	CHECK_INT(agent_start(&s, err, sizeof(err)), 0);
	free(script);
	free(log);
	free(napv);
	free(phase);
}

static void
test_checkpoint_session(void)
{
	char *phase = xasprintf("%s/p.phase", dir), **names = NULL;
	char *prompt_file = xasprintf("%s/checkpoint-dev-x-1/prompt.txt", dir);
	struct phase_info pi;
	struct buf b;
	size_t n = 0;
	pid_t kid[2];
	int st, i, fds[2], delivered = 0, later = 0;
	char got;

	buf_init(&b, 0);
	start("dev-x-1", "1");
	CHECK_INT(agent_alive("dev-x-1"), 1);
	CHECK_INT(agent_list("dev-x-", &names, &n), 0);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_STR(names[0], "dev-x-1");
	agent_list_free(names, n);
	CHECK_INT(agent_alive("dev-x-2"), 0);
	/*
	 * Two ticks at once: one run.  Each tells what it got on a pipe (an
	 * exit status would be valgrind's under TEST_WRAP).
	 */
	CHECK_INT(pipe(fds), 0);
	for (i = 0; i < 2; i++)
		if ((kid[i] = fork()) == 0) {
			got = (char)agent_inject("dev-x-1", "do it");
			_exit(write(fds[1], &got, 1) == 1 ? 0 : 1);
		}
	close(fds[1]);
	for (i = 0; i < 2; i++) {
		waitpid(kid[i], &st, 0);
		if (read(fds[0], &got, 1) != 1)
			got = -2;
		delivered += got == AGENT_DELIVERED;
		later += got == AGENT_NOT_DELIVERED;
	}
	close(fds[0]);
	CHECK_INT(delivered, 1);
	CHECK_INT(later, 1);
	sleep_ms(300);
	CHECK_INT(calls(&b), 1);
	/* The prompt is the run's standard input, never an argument. */
	CHECK(strstr(buf_str(&b),
		  "--model m -p --output-format json "
		  "--dangerously-skip-permissions\nstdin: do it") != NULL);
	CHECK(strstr(buf_str(&b), "CTRLRELAY_STATE_FILE") != NULL);
	CHECK(strstr(buf_str(&b), "--resume") == NULL);
	CHECK(!file_exists(prompt_file));
	CHECK_INT(agent_alive("dev-x-1"), 1);
	CHECK_INT(agent_inject("dev-x-1", "more"), AGENT_NOT_DELIVERED);
	CHECK_INT(agent_read_signal("dev-x-1", phase, &pi), 0);
	CHECK_INT(pi.phase, PHASE_NONE);
	/* Ended: DONE is awaiting_ci, read once. */
	CHECK_INT(wait_phase("dev-x-1", PHASE_AWAITING_CI, 5), 0);
	CHECK_INT(agent_alive("dev-x-1"), 1);
	/* The next prompt resumes the agent's session. */
	CHECK_INT(agent_inject("dev-x-1", "again"), AGENT_DELIVERED);
	sleep_ms(300);
	CHECK_INT(calls(&b), 2);
	CHECK(strstr(buf_str(&b),
		  "-p --output-format json --dangerously-skip-permissions "
		  "--resume agent-42\nstdin: again") != NULL);
	/* Kill: the run ends, the session is gone. */
	CHECK_INT(agent_kill("dev-x-1"), 0);
	CHECK_INT(agent_alive("dev-x-1"), 0);
	CHECK_INT(agent_kill("dev-x-1"), 0);
	buf_free(&b);
	free(prompt_file);
	free(phase);
}

/* A run past its timeout is killed; the session is gone. */
static void
test_checkpoint_timeout(void)
{
	struct agent_conf conf = {.protocol = AGENT_PROTOCOL_CHECKPOINT,
	    .state_dir = dir,
	    .run_timeout_s = 1};
	time_t t0;

	CHECK_INT(agent_use(&conf), 0);
	start("dev-x-3", "30");
	CHECK_INT(agent_inject("dev-x-3", "slow"), AGENT_DELIVERED);
	CHECK_INT(agent_alive("dev-x-3"), 1);
	sleep_ms(2100);
	t0 = time(NULL);
	CHECK_INT(agent_alive("dev-x-3"), 0);
	CHECK(time(NULL) - t0 < 5);
	CHECK_INT(agent_kill("dev-x-3"), 0);
}

int
main(void)
{
	struct agent_conf conf = {.protocol = AGENT_PROTOCOL_CHECKPOINT};
	char *script;

	if (mkdtemp(dir) == NULL)
		return 1;
	runfiles_init(dir, dir);
	conf.state_dir = dir;
	script = xasprintf("%s/agent.sh", dir);
	if (file_write_atomic(script, agent_sh, strlen(agent_sh), 0755, 0) ==
	    -1)
		return 1;
	free(script);
	if (agent_use(&conf) != 0)
		return 1;
	RUN(test_checkpoint_session);
	RUN(test_checkpoint_timeout);
	agent_set_backend(NULL);
	return check_main();
}
