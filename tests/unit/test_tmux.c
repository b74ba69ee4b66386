/*
 * Unit tests for common/agent/tmux.c against a private tmux server
 * (-L test-tmux-PID, killed at the end).  The panes run this same program
 * in a helper mode ("pane-app"): a raw-mode reader that records every
 * byte it is sent, so an injection can be compared byte for byte.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "spawn.h"
#include "tmux.h"

#define RULE20                                                         \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80" \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80" \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80" \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"
#define BOX RULE20 "\r\nREADY>\r\n" RULE20 "\r\n"

static char tmpdir[] = "/tmp/test-tmux-XXXXXX";
static char sock[64];
static char self[PATH_MAX];

/* ---- helper modes, run inside panes ---- */

/*
 * Record stdin (raw) into outfile.  Modes: "echo" prints a line for every
 * CR; "bracket" also enables bracketed paste and ignores CRs inside a
 * paste; "silent" prints nothing at all, so the pane never changes.
 */
static int
pane_app(const char *mode, const char *outfile)
{
	static const char start[] = "\033[200~", end[] = "\033[201~";
	int fd, silent = strcmp(mode, "silent") == 0, inpaste = 0, enters = 0;
	int bracket = strcmp(mode, "bracket") == 0;
	char win[6] = {0}, c, line[32];
	struct termios t;

	if (tcgetattr(0, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(0, TCSANOW, &t);
	}
	fd = open(outfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd == -1)
		return 1;
	if (bracket && write(1, "\033[?2004h", 8) != 8)
		return 1;
	/* The agent's input box: the prompt line between two rules. */
	if (!silent && write(1, BOX, strlen(BOX)) != (ssize_t)strlen(BOX))
		return 1;
	while (read(0, &c, 1) == 1) {
		if (write(fd, &c, 1) != 1)
			return 1;
		memmove(win, win + 1, sizeof(win) - 1);
		win[sizeof(win) - 1] = c;
		if (memcmp(win, start, 6) == 0)
			inpaste = 1;
		else if (memcmp(win, end, 6) == 0)
			inpaste = 0;
		if (c != '\r' || silent || (bracket && inpaste))
			continue;
		snprintf(line, sizeof(line), "[enter %d]\r\n", ++enters);
		if (write(1, line, strlen(line)) < 0)
			return 1;
	}
	return 0;
}

/* Write our arguments (one per line), $TT_VAR and the cwd to outfile. */
static int
pane_dump(int argc, char **argv)
{
	char cwd[PATH_MAX];
	FILE *fp;
	int i;

	if ((fp = fopen(argv[2], "w")) == NULL)
		return 1;
	for (i = 3; i < argc; i++)
		fprintf(fp, "arg=%s\n", argv[i]);
	fprintf(fp, "TT_VAR=%s\n", getenv("TT_VAR") ? getenv("TT_VAR") : "");
	fprintf(fp, "cwd=%s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	fclose(fp);
	return 0;
}

/* ---- test helpers ---- */

static char *
tmp_path(const char *name)
{
	static char path[4][PATH_MAX];
	static int next;

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[next]), "%s/%s", tmpdir, name);
	return path[next];
}

/* The contents of path (up to 64 kB); static storage. */
static const char *
slurp(const char *path)
{
	static char data[65536];
	ssize_t n;
	int fd;

	data[0] = '\0';
	if ((fd = open(path, O_RDONLY)) == -1)
		return NULL;
	n = read(fd, data, sizeof(data) - 1);
	data[n > 0 ? n : 0] = '\0';
	close(fd);
	return data;
}

/* Wait up to 3 s for path to hold at least len bytes. */
static const char *
slurp_wait(const char *path, size_t len)
{
	const char *d = NULL;
	int i;

	for (i = 0; i < 60; i++) {
		if ((d = slurp(path)) != NULL && strlen(d) >= len)
			break;
		usleep(50000);
	}
	return d;
}

static char *
cr_to_lf(const char *s)
{
	char *d = strdup(s), *p;

	for (p = d; *p != '\0'; p++)
		if (*p == '\r')
			*p = '\n';
	return d;
}

/* Wait up to 5 s for the screen of session name to show text. */
static int
wait_text(const char *name, const char *text)
{
	struct buf b;
	int i, found = 0;

	buf_init(&b, 0);
	for (i = 0; i < 50 && !found; i++) {
		buf_reset(&b);
		if (tmux_capture(name, 0, &b) == 0 &&
		    strstr(buf_str(&b), text) != NULL)
			found = 1;
		else
			usleep(100000);
	}
	buf_free(&b);
	return found ? 0 : -1;
}

/* Start session name running pane-app mode, recording to file. */
static int
start_app(const char *name, const char *mode, const char *file)
{
	char *argv[] = {self, "pane-app", (char *)mode, (char *)file, NULL};

	if (tmux_new_session(name, tmpdir, argv, NULL) != 0)
		return -1;
	if (strcmp(mode, "silent") == 0) {
		usleep(300000);
		return 0;
	}
	return tmux_wait_ready(name, "READY>", NULL, 5, NULL);
}

static int
tmux_raw(const char *cmd, struct buf *out)
{
	char *argv[] = {"tmux", "-L", sock, (char *)cmd, NULL};
	int st;

	if (spawn_run(argv, NULL, out, &st) == -1)
		return -1;
	return st;
}

/* Stop the private server and remove its socket, which tmux leaves. */
static void
kill_server(void)
{
	char *argv[] = {"tmux", "-L", sock, "start-server", ";",
	    "display-message", "-p", "#{socket_path}", NULL};
	struct buf path;
	int st;

	buf_init(&path, 0);
	if (spawn_run(argv, NULL, &path, &st) == 0 && st == 0 && path.len > 1) {
		path.data[path.len - 1] = '\0';
		tmux_raw("kill-server", NULL);
		unlink(path.data);
	}
	buf_free(&path);
}

/* ---- tests ---- */

static void
test_names(void)
{
	char *argv[] = {"sleep", "100", NULL};
	struct buf b;
	time_t when;
	pid_t pid;

	CHECK_INT(tmux_valid_name("dev-harb-12"), 1);
	CHECK_INT(tmux_valid_name("a.b_c-D9"), 1);
	CHECK_INT(tmux_valid_name(""), 0);
	CHECK_INT(tmux_valid_name(NULL), 0);
	CHECK_INT(tmux_valid_name("a:b"), 0);
	CHECK_INT(tmux_valid_name("a b"), 0);
	CHECK_INT(tmux_valid_name("a/b"), 0);
	CHECK_INT(tmux_valid_name("$(x)"), 0);
	CHECK_INT(tmux_valid_name("caf\xc3\xa9"), 0);
	buf_init(&b, 0);
	CHECK_INT(tmux_has_session("a:b"), -1);
	CHECK_INT(tmux_kill_session("a b"), -1);
	CHECK_INT(tmux_new_session("a;b", NULL, argv, NULL), -1);
	CHECK_INT(tmux_has_session("a;b"), -1);
	CHECK_INT(tmux_capture("x:0", 0, &b), -1);
	CHECK_INT(tmux_inject("", "hi"), -1);
	CHECK_INT(tmux_wait_ready("a.b:", "x", NULL, 0, NULL), -1);
	CHECK_INT(tmux_session_activity("=x", &when), -1);
	CHECK_INT(tmux_pane_pid("x y", &pid), -1);
	CHECK_INT(b.len, 0);
	buf_free(&b);
}

static void
test_lifecycle(void)
{
	char *argv[] = {"sleep", "100", NULL};
	char **names = NULL;
	size_t n = 0, i;
	int found = 0;

	CHECK_INT(tmux_new_session("tt-12", tmpdir, argv, NULL), 0);
	CHECK_INT(tmux_new_session("other-1", NULL, argv, NULL), 0);
	/* Same name twice: tmux refuses. */
	CHECK_INT(tmux_new_session("tt-12", tmpdir, argv, NULL), -1);
	CHECK_INT(tmux_has_session("tt-12"), 1);
	/* Exact names only: no prefix match. */
	CHECK_INT(tmux_has_session("tt-1"), 0);
	CHECK_INT(tmux_kill_session("tt-1"), 0);
	CHECK_INT(tmux_has_session("tt-12"), 1);
	CHECK_INT(tmux_list_sessions("tt-", &names, &n), 0);
	for (i = 0; i < n; i++)
		found += strcmp(names[i], "tt-12") == 0;
	CHECK_INT(n, 1);
	CHECK_INT(found, 1);
	tmux_list_free(names, n);
	CHECK_INT(tmux_list_sessions(NULL, &names, &n), 0);
	CHECK_INT(n, 2);
	tmux_list_free(names, n);
	CHECK_INT(tmux_kill_session("tt-12"), 0);
	CHECK_INT(tmux_has_session("tt-12"), 0);
	CHECK_INT(tmux_kill_session("tt-12"), 0);
	CHECK_INT(tmux_list_sessions("tt-", &names, &n), 0);
	CHECK_INT(n, 0);
	CHECK(names == NULL);
	CHECK_INT(tmux_kill_session("other-1"), 0);
}

static void
test_no_server(void)
{
	char other[80], **names = (char **)1;
	size_t n = 7;

	snprintf(other, sizeof(other), "%s-none", sock);
	tmux_set_socket(other);
	CHECK_INT(tmux_list_sessions("", &names, &n), 0);
	CHECK_INT(n, 0);
	CHECK(names == NULL);
	CHECK_INT(tmux_has_session("x"), 0);
	CHECK_INT(tmux_kill_session("x"), 0);
	/* An unusable socket name is refused, not passed on. */
	tmux_set_socket("bad/sock");
	CHECK_INT(tmux_list_sessions("", &names, &n), -1);
	tmux_set_socket(sock);
}

static void
test_argv_literal(void)
{
	char *out = tmp_path("dump.txt");
	char *argv[] = {self, "pane-dump", out, "a $(touch pwned) `id`",
	    "two  words", "'quoted' \"too\"", "", NULL};
	const char *env[] = {"TT_VAR=x y;$(z)", NULL};
	const char *bad_env[] = {"NOEQUALS", NULL};
	char real[PATH_MAX], want[2 * PATH_MAX];
	const char *d;

	CHECK_INT(tmux_new_session("tt-argv", tmpdir, argv, env), 0);
	CHECK(realpath(tmpdir, real) != NULL);
	snprintf(want, sizeof(want),
	    "arg=a $(touch pwned) `id`\n"
	    "arg=two  words\narg='quoted' \"too\"\narg=\nTT_VAR=x y;$(z)\n"
	    "cwd=%s\n",
	    real);
	d = slurp_wait(out, strlen(want));
	CHECK_STR(d, want);
	CHECK_INT(access(tmp_path("pwned"), F_OK), -1);
	CHECK_INT(tmux_new_session("tt-bad", NULL, argv, bad_env), -1);
	unlink(out);
}

static void
test_single_word_no_shell(void)
{
	/* A one-word command must not go to the shell tmux would use. */
	char *prog = tmp_path("odd name;$(touch pwned)");
	char *argv[] = {prog, NULL};
	char *eq[] = {"A=B", NULL};
	const char *d;
	FILE *fp;

	fp = fopen(prog, "w");
	fprintf(fp, "#!/bin/sh\necho ran > '%s/ran.txt'\n", tmpdir);
	fclose(fp);
	chmod(prog, 0755);
	CHECK_INT(tmux_new_session("tt-one", tmpdir, argv, NULL), 0);
	d = slurp_wait(tmp_path("ran.txt"), 4);
	CHECK_STR(d, "ran\n");
	CHECK_INT(access(tmp_path("pwned"), F_OK), -1);
	CHECK_INT(tmux_new_session("tt-eq", tmpdir, eq, NULL), -1);
	unlink(prog);
	unlink(tmp_path("ran.txt"));
}

static void
test_capture(void)
{
	char *argv[] = {"sh", "-c", "seq 1 300; sleep 100", NULL};
	struct buf b;

	CHECK_INT(tmux_new_session("tt-cap", NULL, argv, NULL), 0);
	CHECK_INT(wait_text("tt-cap", "300"), 0);
	buf_init(&b, 0);
	CHECK_INT(tmux_capture("tt-cap", 10, &b), 0);
	CHECK_STR(buf_str(&b),
	    "291\n292\n293\n294\n295\n296\n297\n298\n299\n"
	    "300\n");
	buf_reset(&b);
	CHECK_INT(tmux_capture("tt-cap", 0, &b), 0);
	/* The visible screen: 50 rows, the last 49 numbers and the cursor. */
	CHECK(strncmp(buf_str(&b), "252\n253\n", 8) == 0);
	CHECK(strstr(buf_str(&b), "\n300\n") != NULL);
	buf_reset(&b);
	CHECK_INT(tmux_capture("tt-nonexistent", 10, &b), -1);
	CHECK_INT(b.len, 0);
	buf_free(&b);
	tmux_kill_session("tt-cap");
}

static void
test_activity_pid(void)
{
	char *argv[] = {"sleep", "100", NULL};
	char path[64], cmd[64] = "";
	time_t when = 0;
	pid_t pid = 0;
	FILE *fp;
	int i;

	CHECK_INT(tmux_new_session("tt-act", NULL, argv, NULL), 0);
	CHECK_INT(tmux_session_activity("tt-act", &when), 0);
	CHECK(when > time(NULL) - 60 && when <= time(NULL) + 1);
	CHECK_INT(tmux_pane_pid("tt-act", &pid), 0);
	CHECK(pid > 0);
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	/* The pane's process may not have reached exec yet. */
	for (i = 0; i < 40 && strcmp(cmd, "sleep") != 0; i++) {
		if ((fp = fopen(path, "r")) != NULL) {
			if (fgets(cmd, sizeof(cmd), fp) == NULL)
				cmd[0] = '\0';
			fclose(fp);
		}
		usleep(50000);
	}
	CHECK_STR(cmd, "sleep");
	tmux_kill_session("tt-act");
	CHECK_INT(tmux_session_activity("tt-act", &when), -1);
	CHECK_INT(tmux_pane_pid("tt-act", &pid), -1);
}

static void
test_inject_literal(void)
{
	static const char text[] =
	    "Fix \"it\" and 'that': $(rm -rf /) `id` ${HOME} $PATH\n"
	    "\ttabbed line; a | b && c > /tmp/x\n"
	    "unicode \xe2\x9d\xaf caf\xc3\xa9 \\ backslash\n"
	    "last line without newline";
	char *file = tmp_path("echo.txt"), *got;
	char want[sizeof(text) + 1];
	const char *d;

	CHECK_INT(start_app("tt-echo", "echo", file), 0);
	CHECK_INT(tmux_inject("tt-echo", text), 0);
	snprintf(want, sizeof(want), "%s\n", text);
	d = slurp_wait(file, strlen(want));
	got = cr_to_lf(d != NULL ? d : "");
	CHECK_STR(got, want);
	free(got);
	/* The app appends: emptying the file starts it afresh. */
	CHECK_INT(truncate(file, 0), 0);
	/* CRLF arrives as a single line break. */
	CHECK_INT(tmux_inject("tt-echo", "one\r\ntwo\r\n"), 0);
	d = slurp_wait(file, 9);
	got = cr_to_lf(d != NULL ? d : "");
	CHECK_STR(got, "one\ntwo\n\n");
	free(got);
	CHECK_INT(truncate(file, 0), 0);
	/* Empty text: just Enter. */
	CHECK_INT(tmux_inject("tt-echo", ""), 0);
	CHECK_STR(slurp_wait(file, 1), "\r");
	unlink(file);
	tmux_kill_session("tt-echo");
}

static void
test_inject_bracketed(void)
{
	char *file = tmp_path("bracket.txt");

	CHECK_INT(start_app("tt-brk", "bracket", file), 0);
	CHECK_INT(tmux_inject("tt-brk", "a\nb \"c\""), 0);
	CHECK_STR(slurp_wait(file, 19), "\033[200~a\rb \"c\"\033[201~\r");
	tmux_kill_session("tt-brk");
	unlink(file);
}

static void
test_inject_hostile(void)
{
	/*
	 * Text that ends the paste early and types keys: the escape and
	 * control characters never reach the pane, the CRs stay inside the
	 * paste, and Enter comes once, after it.
	 */
	char *file = tmp_path("hostile.txt");
	static const char want[] = "\033[200~ok[201~\rrm -rf ~\r"
				   "[A\xef\xbf\xbd end\033[201~\r";

	CHECK_INT(start_app("tt-hos", "bracket", file), 0);
	CHECK_INT(tmux_inject("tt-hos",
		      "ok\x1b[201~\rrm -rf ~\r\n\x03\x7f\x1b[A\xff end"),
	    0);
	CHECK_STR(slurp_wait(file, strlen(want)), want);
	tmux_kill_session("tt-hos");
	unlink(file);
}

static void
test_inject_not_delivered(void)
{
	/* The pane never changes: Enter is tried three times, then 1. */
	char *file = tmp_path("silent.txt");
	struct timespec t0, t1;

	CHECK_INT(start_app("tt-sil", "silent", file), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(tmux_inject("tt-sil", "hello"), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec >= 5 && t1.tv_sec - t0.tv_sec < 12);
	CHECK_STR(slurp_wait(file, 8), "hello\r\r\r");
	tmux_kill_session("tt-sil");
	unlink(file);
}

static void
test_inject_errors(void)
{
	struct buf b;

	CHECK_INT(tmux_inject("tt-missing", "text"), -1);
	tmux_set_tmpdir(NULL);
	CHECK_INT(start_app("tt-err", "echo", tmp_path("err.txt")), 0);
	CHECK_INT(tmux_inject("tt-err", "text"), -1);
	tmux_set_tmpdir("/nonexistent/dir");
	CHECK_INT(tmux_inject("tt-err", "text"), -1);
	tmux_set_tmpdir(tmpdir);
	CHECK_INT(tmux_inject("tt-err", NULL), -1);
	CHECK_INT(tmux_inject("tt-err", "delivered"), 0);
	/* Every paste buffer was deleted. */
	buf_init(&b, 0);
	CHECK_INT(tmux_raw("list-buffers", &b), 0);
	CHECK_STR(buf_str(&b), "");
	buf_free(&b);
	tmux_kill_session("tt-err");
	unlink(tmp_path("err.txt"));
}

static void
test_wait_ready(void)
{
	char *argv[] = {"sleep", "100", NULL};
	char *marker = tmp_path("ready.marker");
	struct timespec t0, t1;
	FILE *fp;

	CHECK_INT(tmux_new_session("tt-wait", NULL, argv, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(tmux_wait_ready("tt-wait", "NEVER-SHOWN", marker, 1, NULL),
	    TMUX_NOT_READY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec >= 1 && t1.tv_sec - t0.tv_sec < 4);
	fp = fopen(marker, "w");
	fclose(fp);
	CHECK_INT(tmux_wait_ready("tt-wait", "NEVER-SHOWN", marker, 5, NULL),
	    0);
	CHECK_INT(tmux_wait_ready("tt-wait", NULL, NULL, 0, NULL), 1);
	tmux_kill_session("tt-wait");
	CHECK_INT(tmux_wait_ready("tt-wait", "x", NULL, 5, NULL), -1);
	unlink(marker);
}

/* Start session name showing text (verbatim) and then nothing else. */
static int
show(const char *name, const char *text)
{
	char *argv[] = {"sh", "-c", "printf '%s' \"$1\"; exec sleep 100", "sh",
	    (char *)text, NULL};

	return tmux_new_session(name, NULL, argv, NULL);
}

static void
test_wait_ready_screens(void)
{
	static const char dialog[] =
	    RULE20 "\n"
		   "  WARNING: Claude Code running in Bypass Permissions mode\n"
		   "\n"
		   "  \xe2\x9d\xaf 1. No, exit\n"
		   "    2. Yes, I accept\n"
		   "\n"
		   "  Enter to confirm \xc2\xb7 Esc to cancel\n";
	char *link = tmp_path("ready-link.marker");
	struct timespec t0, t1;
	struct buf screen;

	buf_init(&screen, 0);
	/* A dialog whose selected line starts with the glyph: not ready. */
	CHECK_INT(show("tt-dialog", dialog), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(
	    tmux_wait_ready("tt-dialog", "\xe2\x9d\xaf", NULL, 10, &screen),
	    TMUX_DIALOG);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 3);
	CHECK(strstr(buf_str(&screen), "1. No, exit") != NULL);
	tmux_kill_session("tt-dialog");
	/* The glyph alone, with no box around it: not ready. */
	CHECK_INT(show("tt-bare", "\xe2\x9d\xaf \n"), 0);
	CHECK_INT(wait_text("tt-bare", "\xe2\x9d\xaf"), 0);
	CHECK_INT(tmux_wait_ready("tt-bare", "\xe2\x9d\xaf", NULL, 1, NULL),
	    TMUX_NOT_READY);
	/* A planted symlink is no ready marker. */
	CHECK_INT(symlink("/etc/passwd", link), 0);
	CHECK_INT(tmux_wait_ready("tt-bare", "\xe2\x9d\xaf", link, 1, NULL),
	    TMUX_NOT_READY);
	unlink(link);
	tmux_kill_session("tt-bare");
	/* The input box (the glyph, then a no-break space). */
	CHECK_INT(show("tt-box",
		      "banner\n\n" RULE20 "\n\xe2\x9d\xaf\xc2\xa0\n" RULE20
		      "\n  status line\n"),
	    0);
	CHECK_INT(tmux_wait_ready("tt-box", "\xe2\x9d\xaf", NULL, 5, NULL), 0);
	tmux_kill_session("tt-box");
	buf_free(&screen);
}

static void
test_server_exit_race(void)
{
	/*
	 * Each short session is the server's last, so the next client often
	 * reaches a server that is exiting ("server exited unexpectedly").
	 */
	char *quick[] = {"true", NULL};
	char *brief[] = {"sleep", "0.05", NULL};
	int i, fails = 0;

	for (i = 0; i < 10; i++) {
		fails += tmux_new_session("tt-race-a", NULL, quick, NULL) != 0;
		fails += tmux_new_session("tt-race-b", NULL, brief, NULL) != 0;
		usleep(100000);
	}
	CHECK_INT(fails, 0);
}

/* Nothing but what the tests removed may be left in the tmpdir. */
static void
test_no_temp_files_left(void)
{
	struct dirent *de;
	DIR *d = opendir(tmpdir);
	int left = 0;

	CHECK(d != NULL);
	while (d != NULL && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0) {
			printf("#   left: %s\n", de->d_name);
			left++;
		}
	if (d != NULL)
		closedir(d);
	CHECK_INT(left, 0);
}

int
main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 4 && strcmp(argv[1], "pane-app") == 0)
		return pane_app(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "pane-dump") == 0)
		return pane_dump(argc, argv);
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0 ||
	    mkdtemp(tmpdir) == NULL) {
		perror("setup");
		return 1;
	}
	self[n] = '\0';
	snprintf(sock, sizeof(sock), "test-tmux-%ld", (long)getpid());
	tmux_set_socket(sock);
	tmux_set_tmpdir(tmpdir);
	RUN(test_names);
	RUN(test_lifecycle);
	RUN(test_no_server);
	RUN(test_argv_literal);
	RUN(test_single_word_no_shell);
	RUN(test_capture);
	RUN(test_activity_pid);
	RUN(test_inject_literal);
	RUN(test_inject_bracketed);
	RUN(test_inject_hostile);
	RUN(test_inject_not_delivered);
	RUN(test_inject_errors);
	RUN(test_wait_ready);
	RUN(test_wait_ready_screens);
	RUN(test_server_exit_race);
	RUN(test_no_temp_files_left);
	kill_server();
	rmdir(tmpdir);
	tmux_set_socket(NULL);
	tmux_set_tmpdir(NULL);
	return check_main();
}
