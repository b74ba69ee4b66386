/*
 * Tests for the Claude session lock (common/agent/agent_lock.c), in one
 * process: flock(2) locks belong to open file descriptions, so a second
 * open of the lock file stands for another holder.  The wrapper's side
 * takes, gives up and takes again the lock as the phase file and the
 * requests say; the tick's side reserves it and reads the state.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_lock.h"
#include "buf.h"
#include "check.h"
#include "file.h"
#include "lock.h"

static char dir[] = "/tmp/test_agent_lock.XXXXXX";
static char lockp[256], state[256], request[256], phase[256];

/* 1 when another holder could take the lock now (and it is let go). */
static int
lock_free(void)
{
	int fd, r = lock_take(lockp, &fd);

	if (r == 0)
		lock_release(fd);
	return r == 0;
}

/* The state file says WORD and this process's id (the wrapper's). */
static void
state_is(const char *word, int line)
{
	char want[64];
	struct buf b;

	snprintf(want, sizeof(want), "%s %ld\n", word, (long)getpid());
	buf_init(&b, 0);
	(void)file_read(state, 64, &b);
	if (strcmp(buf_str(&b), want) != 0) {
		printf("#   line %d: state '%s', want '%s'\n", line,
		    buf_str(&b), want);
		check_test_failed = 1;
	}
	buf_free(&b);
}

static void
write_phase(const char *text)
{
	/* A new file each time, as the agents write it (rename). */
	CHECK_INT(file_write_atomic(phase, text, strlen(text), 0644, 0), 0);
}

static int
never_stop(void *arg)
{
	(void)arg;
	return 0;
}

static void
test_lock_hold(void)
{
	struct agent_lock_holder h = {.path = lockp,
	    .wait_s = 1,
	    .state = state,
	    .request = request,
	    .watch = phase};

	write_phase("");
	CHECK_INT(agent_lock_hold_start(&h, never_stop, NULL), 0);
	state_is("held", __LINE__);
	CHECK(!lock_free());
	/* Working: nothing changes. */
	agent_lock_serve(&h, never_stop, NULL);
	CHECK(!lock_free());
	/* A waiting phase: let go. */
	write_phase("PHASE:awaiting_ci\n");
	agent_lock_serve(&h, never_stop, NULL);
	state_is("free", __LINE__);
	CHECK(lock_free());
	/* A request: taken again, answered. */
	CHECK_INT(file_create_excl(request, NULL, 0644), 0);
	agent_lock_serve(&h, never_stop, NULL);
	state_is("held", __LINE__);
	CHECK(!file_exists(request));
	CHECK(!lock_free());
	/* The same waiting phase is no reason to let go again. */
	agent_lock_serve(&h, never_stop, NULL);
	CHECK(!lock_free());
	/* A phase that is not a waiting one neither. */
	write_phase("PHASE:whatever\n");
	agent_lock_serve(&h, never_stop, NULL);
	CHECK(!lock_free());
	write_phase("PHASE:done\n");
	agent_lock_serve(&h, never_stop, NULL);
	CHECK(lock_free());
	agent_lock_hold_end(&h);
	CHECK(!file_exists(state));
}

static void
test_lock_busy(void)
{
	struct agent_lock_holder h = {.path = lockp,
	    .wait_s = 1,
	    .state = state,
	    .request = request,
	    .watch = phase};
	int other;

	CHECK_INT(lock_take(lockp, &other), 0);
	CHECK_INT(agent_lock_hold_start(&h, never_stop, NULL), 1);
	state_is("busy", __LINE__);
	/* The tick that started it reads that at once, and cleans up. */
	CHECK_INT(agent_lock_await_start(state, "s", NULL), 1);
	CHECK(!file_exists(state));
	/* A request the wrapper cannot serve within the wait: free. */
	CHECK_INT(file_create_excl(request, NULL, 0644), 0);
	agent_lock_serve(&h, never_stop, NULL);
	state_is("free", __LINE__);
	CHECK(!file_exists(request));
	lock_release(other);
	agent_lock_hold_end(&h);
}

/*
 * A wrapper ending late, after its session was started again under the
 * same name: the successor's state file (a new file, maybe under the
 * same inode number) stays.
 */
static void
test_lock_late_end(void)
{
	static const char other[] = "held 1\n";
	struct agent_lock_holder h = {.path = lockp,
	    .wait_s = 1,
	    .state = state,
	    .request = request,
	    .watch = phase};
	struct buf b;

	write_phase("");
	CHECK_INT(agent_lock_hold_start(&h, never_stop, NULL), 0);
	CHECK_INT(file_remove(state), 0);
	CHECK_INT(file_write_atomic(state, other, strlen(other), 0644, 0), 0);
	agent_lock_hold_end(&h);
	CHECK(lock_free());
	buf_init(&b, 0);
	CHECK_INT(file_read(state, 64, &b), 0);
	CHECK_STR(buf_str(&b), other);
	buf_free(&b);
	CHECK_INT(file_remove(state), 0);
}

static void
test_lock_reserve(void)
{
	char why[64];

	agent_lock_configure(lockp, 1);
	CHECK_INT(agent_lock_reserve(), 0);
	CHECK(!lock_free());
	/* Reserved already: no second wait. */
	CHECK_INT(agent_lock_reserve(), 0);
	agent_lock_unreserve();
	CHECK(lock_free());
	/* No wrapper (no state file): an injection goes ahead. */
	CHECK_INT(agent_lock_for_inject(state, request, "s", NULL), 0);
	CHECK(!file_exists(request));
	/* A wrapper that failed says why. */
	agent_lock_state_failed(state, "cannot run 'claude': No such file");
	CHECK_INT(agent_lock_state_why(state, why, sizeof(why)), 1);
	CHECK_STR(why, "cannot run 'claude': No such file");
	CHECK_INT(agent_lock_await_start(state, "s", NULL), -1);
	CHECK_INT(file_remove(state), 0);
	CHECK_INT(agent_lock_state_why(state, why, sizeof(why)), 0);
	/* No lock configured: nothing to wait for. */
	agent_lock_configure("", 5);
	CHECK(agent_lock_path() == NULL);
	CHECK_INT(agent_lock_reserve(), 0);
	CHECK_INT(agent_lock_await_start(state, "s", NULL), 0);
	agent_lock_configure(NULL, 0);
}

/*
 * The hand-over: the lock this process reserved goes to a wrapper (a
 * child here) over the socket, with no moment in which it is free; the
 * wrapper's end frees it.
 */
static void
test_lock_handover(void)
{
	char sock[300], pid_text[32];
	struct stat st;
	struct buf b;
	int sfd, status;
	pid_t pid;

	snprintf(sock, sizeof(sock), "%s/agent-s.handover", dir);
	agent_lock_configure(lockp, 0);
	/* Nothing reserved: nothing to hand over. */
	CHECK_INT(agent_lock_handover_listen(sock, &sfd), -1);
	CHECK_INT(sfd, -1);
	CHECK_INT(agent_lock_reserve(), 0);
	CHECK_INT(agent_lock_handover_listen(sock, &sfd), 0);
	CHECK_INT(lstat(sock, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		struct agent_lock_holder h = {.path = lockp,
		    .handover = sock,
		    .wait_s = 0,
		    .state = state,
		    .request = request};

		/* No wait of its own: only the hand-over can give it. */
		if (agent_lock_hold_start(&h, never_stop, NULL) != 0)
			_exit(1);
		while (!file_exists(request))
			usleep(10000);
		agent_lock_hold_end(&h);
		_exit(0);
	}
	CHECK_INT(agent_lock_handover(sfd, sock, "s", NULL), 0);
	CHECK(!lock_free());
	CHECK_INT(agent_lock_await_start(state, "s", NULL), 0);
	CHECK(!lock_free());
	CHECK(!file_exists(sock));
	buf_init(&b, 0);
	CHECK_INT(file_read(lockp, 64, &b), 0);
	snprintf(pid_text, sizeof(pid_text), "%ld\n", (long)pid);
	CHECK_STR(buf_str(&b), pid_text);
	buf_free(&b);
	/* This process holds nothing now: its unreserve changes nothing. */
	agent_lock_unreserve();
	CHECK(!lock_free());
	CHECK_INT(file_create_excl(request, NULL, 0644), 0);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(lock_free());
	CHECK_INT(file_remove(request), 0);
	agent_lock_configure(lockp, 1);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(lockp, sizeof(lockp), "%s/home/.claude/session.lock", dir);
	snprintf(state, sizeof(state), "%s/agent-s.state", dir);
	snprintf(request, sizeof(request), "%s/agent-s.lock-request", dir);
	snprintf(phase, sizeof(phase), "%s/s.phase", dir);
	agent_lock_configure(lockp, 1);
	RUN(test_lock_hold);
	RUN(test_lock_busy);
	RUN(test_lock_late_end);
	RUN(test_lock_reserve);
	RUN(test_lock_handover);
	(void)unlink(lockp);
	(void)unlink(phase);
	(void)rmdir(strcat(strcpy(state, dir), "/home/.claude"));
	(void)rmdir(strcat(strcpy(state, dir), "/home"));
	(void)rmdir(dir);
	return check_main();
}
