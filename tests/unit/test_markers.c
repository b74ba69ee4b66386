/*
 * Unit tests for common/agent/markers.c, the session directory of the markers
 * protocol: made fresh and private, never through a planted symlink,
 * removed whole without following one; markers seen and cleared; the
 * agent's status.json read with its types checked and its text made
 * printable; the delivery record kept across ticks.  And the seam's rule
 * for a stale progress report (agent_progress_stale()).
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "check.h"
#include "markers.h"
#include "runfiles.h"

static char dir[] = "/tmp/test-markers-XXXXXX";
static char run[PATH_MAX];

static const char *
at(const char *rel)
{
	static char path[4][2 * PATH_MAX];
	static int next;

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[next]), "%s/%s", run, rel);
	return path[next];
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp != NULL) {
		fputs(text, fp);
		fclose(fp);
	}
}

static int
mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* A fresh run directory under dir for each test. */
static void
fresh_run(const char *name)
{
	snprintf(run, sizeof(run), "%s/%s", dir, name);
	mkdir(run, 0755);
	runfiles_init(run, run);
}

static void
test_prepare_fresh(void)
{
	fresh_run("prepare");
	CHECK_INT(markers_prepare("dev-p-1"), 0);
	CHECK_INT(mode_of(at("sessions/active/dev-p-1")), 0700);
	CHECK_INT(mode_of(at("sessions/active/dev-p-1/markers")), 0700);
	/* What an earlier session of the name left is gone. */
	put(at("sessions/active/dev-p-1/markers/ack.marker"), "");
	put(at("sessions/active/dev-p-1/prompt.txt"), "old");
	CHECK(markers_has("dev-p-1", RUNFILES_ACK_MARKER));
	CHECK_INT(markers_prepare("dev-p-1"), 0);
	CHECK(!markers_has("dev-p-1", RUNFILES_ACK_MARKER));
	CHECK_INT(access(at("sessions/active/dev-p-1/prompt.txt"), F_OK), -1);
	CHECK_INT(mode_of(at("sessions/active/dev-p-1/markers")), 0700);
}

static void
test_prepare_planted(void)
{
	char elsewhere[2 * PATH_MAX];

	fresh_run("planted");
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", dir);
	mkdir(elsewhere, 0755);
	/* A symlink where the sessions directory goes is refused. */
	CHECK_INT(symlink(elsewhere, at("sessions")), 0);
	CHECK_INT(markers_prepare("dev-p-1"), -1);
	CHECK_INT(access(at("../elsewhere/active"), F_OK), -1);
	unlink(at("sessions"));
	/* So is one at the session's own name: replaced, not followed. */
	mkdir(at("sessions"), 0700);
	mkdir(at("sessions/active"), 0700);
	put(at("../elsewhere/keep"), "keep");
	CHECK_INT(symlink(elsewhere, at("sessions/active/dev-p-2")), 0);
	CHECK_INT(markers_prepare("dev-p-2"), 0);
	CHECK_INT(mode_of(at("sessions/active/dev-p-2")), 0700);
	CHECK_INT(access(at("../elsewhere/keep"), F_OK), 0);
	unlink(at("../elsewhere/keep"));
	rmdir(elsewhere);
}

static void
test_remove(void)
{
	char outside[2 * PATH_MAX];

	fresh_run("remove");
	snprintf(outside, sizeof(outside), "%s/outside", dir);
	put(outside, "precious");
	CHECK_INT(markers_prepare("s"), 0);
	put(at("sessions/active/s/chat_history.jsonl"), "{}\n");
	mkdir(at("sessions/active/s/extra"), 0755);
	put(at("sessions/active/s/extra/f"), "x");
	CHECK_INT(symlink(outside, at("sessions/active/s/markers/link")), 0);
	put(at("sessions/active/s/dev-session-p-1.phase"), "PHASE:escalate\n");
	CHECK_INT(markers_remove("s"), 0);
	CHECK_INT(access(at("sessions/active/s/markers"), F_OK), -1);
	CHECK_INT(access(at("sessions/active/s/chat_history.jsonl"), F_OK), -1);
	/* What is not the markers protocol's stays: the phase file. */
	CHECK_INT(access(at("sessions/active/s/dev-session-p-1.phase"), F_OK),
	    0);
	/* The symlink went, not what it named. */
	CHECK_INT(access(outside, F_OK), 0);
	/* Gone already: still removed. */
	CHECK_INT(markers_remove("s"), 0);
	unlink(outside);
}

static void
test_markers_seen(void)
{
	time_t t0;

	fresh_run("seen");
	CHECK_INT(markers_prepare("s"), 0);
	CHECK(!markers_has("s", RUNFILES_READY_MARKER));
	CHECK_INT(markers_wait("s", RUNFILES_READY_MARKER, 0, NULL), 0);
	t0 = time(NULL);
	CHECK_INT(markers_wait("s", RUNFILES_READY_MARKER, 200, NULL), 0);
	CHECK(time(NULL) - t0 < 3);
	put(at("sessions/active/s/markers/ready.marker"), "");
	CHECK(markers_has("s", RUNFILES_READY_MARKER));
	CHECK_INT(markers_wait("s", RUNFILES_READY_MARKER, 1000, NULL), 1);
	/* A directory by the marker's name is no marker. */
	mkdir(at("sessions/active/s/markers/ack.marker"), 0755);
	CHECK(!markers_has("s", RUNFILES_ACK_MARKER));
	rmdir(at("sessions/active/s/markers/ack.marker"));
	put(at("sessions/active/s/markers/ack.marker"), "");
	CHECK_INT(markers_clear("s", RUNFILES_ACK_MARKER), 0);
	CHECK(!markers_has("s", RUNFILES_ACK_MARKER));
	CHECK_INT(markers_clear("s", RUNFILES_ACK_MARKER), 0);
	CHECK_INT(markers_write("s", RUNFILES_SESSION_PROMPT, "hello\n"), 0);
	CHECK_INT(mode_of(at("sessions/active/s/prompt.txt")), 0600);
}

static void
test_status(void)
{
	struct agent_progress p;
	const char *path;
	char *big;
	FILE *fp;

	fresh_run("status");
	CHECK_INT(markers_prepare("s"), 0);
	path = at("sessions/active/s/status.json");
	CHECK_INT(markers_status("s", &p), 1);
	CHECK_INT(p.progress, -1);
	put(path,
	    "{\"state\": \"processing\", \"progress\": 40, "
	    "\"message\": \"running tests\", \"phase\": \"executing\", "
	    "\"updated_at\": \"2026-01-25T12:34:56Z\", \"extra\": 1}");
	CHECK_INT(markers_status("s", &p), 0);
	CHECK_STR(p.state, "processing");
	CHECK_INT(p.progress, 40);
	CHECK_STR(p.message, "running tests");
	CHECK_STR(p.phase, "executing");
	CHECK_INT(p.updated_at, 1769344496);
	/* Wrong types and out-of-range values are left unset. */
	put(path,
	    "{\"state\": 3, \"progress\": 140, \"message\": [], "
	    "\"updated_at\": \"yesterday\"}");
	CHECK_INT(markers_status("s", &p), 0);
	CHECK_STR(p.state, "");
	CHECK_INT(p.progress, -1);
	CHECK_STR(p.message, "");
	CHECK_INT(p.updated_at, 0);
	/* Terminal escapes never reach a screen. */
	put(path, "{\"state\": \"ready\", \"message\": \"a\\u001b[2Jb\\nc\"}");
	CHECK_INT(markers_status("s", &p), 0);
	CHECK(strchr(p.message, 0x1b) == NULL);
	CHECK(strchr(p.message, '\n') == NULL);
	/* Not an object, not JSON, too long: cannot be read. */
	put(path, "[1, 2]");
	CHECK_INT(markers_status("s", &p), -1);
	put(path, "{\"state\": ");
	CHECK_INT(markers_status("s", &p), -1);
	big = malloc(MARKERS_STATUS_MAX + 2);
	memset(big, ' ', MARKERS_STATUS_MAX + 1);
	big[0] = '{';
	big[MARKERS_STATUS_MAX] = '}';
	big[MARKERS_STATUS_MAX + 1] = '\0';
	if ((fp = fopen(path, "w")) != NULL) {
		fputs(big, fp);
		fclose(fp);
	}
	free(big);
	CHECK_INT(markers_status("s", &p), -1);
	/* A symlink is refused, not followed. */
	unlink(path);
	CHECK_INT(symlink("/etc/hostname", path), 0);
	CHECK_INT(markers_status("s", &p), -1);
}

static void
test_delivery(void)
{
	struct markers_delivery d = {.hash = markers_hash("CI failed"),
	    .sent = 1,
	    .acked = 0,
	    .at = 1700000000};
	struct markers_delivery got;

	fresh_run("delivery");
	CHECK_INT(markers_prepare("s"), 0);
	CHECK_INT(markers_delivery_read("s", &got), 1);
	CHECK_INT(markers_delivery_write("s", &d), 0);
	CHECK_INT(markers_delivery_read("s", &got), 0);
	CHECK(got.hash == d.hash);
	CHECK_INT(got.sent, 1);
	CHECK_INT(got.acked, 0);
	CHECK_INT(got.at, 1700000000);
	CHECK_INT(mode_of(at("agent-s.delivery")), 0600);
	CHECK(markers_hash("CI failed") != markers_hash("CI failed."));
	put(at("agent-s.delivery"), "HASH: zz\n");
	CHECK_INT(markers_delivery_read("s", &got), -1);
}

static void
test_stale(void)
{
	struct agent_progress p = {.progress = -1};

	snprintf(p.state, sizeof(p.state), "processing");
	/* No time given: never stale. */
	CHECK_INT(agent_progress_stale(&p, 100000, 10), 0);
	p.updated_at = 1000;
	CHECK_INT(agent_progress_stale(&p, 1010, 10), 0);
	CHECK_INT(agent_progress_stale(&p, 1011, 10), 1);
	/* A clock that went back is no age. */
	CHECK_INT(agent_progress_stale(&p, 900, 10), 0);
	/* Finished work waits as long as it must. */
	snprintf(p.state, sizeof(p.state), "completed");
	CHECK_INT(agent_progress_stale(&p, 100000, 10), 0);
	snprintf(p.state, sizeof(p.state), "error");
	CHECK_INT(agent_progress_stale(&p, 100000, 10), 1);
}

static void
test_backend_row(void)
{
	struct agent_conf conf = {.protocol = "markers",
	    .state_dir = "/tmp",
	    .marker_ack_s = 1};
	struct agent_progress p;

	fresh_run("row");
	CHECK_INT(agent_use(&conf), 0);
	CHECK_INT(markers_prepare("dev-p-3"), 0);
	put(at("sessions/active/dev-p-3/status.json"),
	    "{\"state\": \"processing\", \"progress\": 5}");
	CHECK_INT(agent_progress("dev-p-3", &p), 0);
	CHECK_INT(p.progress, 5);
	CHECK_INT(agent_progress("dev-p-4", &p), 1);
	/* An injection into a session without its directory goes nowhere. */
	CHECK_INT(agent_inject("dev-p-4", "hello"), AGENT_INJECT_ERROR);
	agent_set_backend(NULL);
	/* The default backend reports no progress. */
	CHECK_INT(agent_progress("dev-p-3", &p), 1);
	CHECK_INT(markers_remove("dev-p-3"), 0);
}

static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_prepare_fresh);
	RUN(test_prepare_planted);
	RUN(test_remove);
	RUN(test_markers_seen);
	RUN(test_status);
	RUN(test_delivery);
	RUN(test_stale);
	RUN(test_backend_row);
	if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1)
		printf("# cannot remove %s\n", dir);
	return check_main();
}
