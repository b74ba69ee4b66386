/*
 * tmux-tool: a small command line over common/agent/tmux.c for integration
 * scripts.
 *
 *   tmux-tool [-L socket] [-T tmpdir] [-e K=V]... command args...
 *
 *   new NAME CWD CMD...             start a detached session
 *   inject NAME FILE                type FILE's text into the pane
 *   wait-ready NAME PATTERN TIMEOUT [MARKER]   until the input box shows
 *   capture NAME LINES              print the last LINES lines (0: screen)
 *   has NAME                        exit 0 if the session exists
 *   kill NAME
 *   list [PREFIX]                   print session names
 *   activity NAME / pane-pid NAME   print the number
 *
 * Exit status: 0 ok, 1 failure (or "no" for has, "not delivered" for
 * inject, timeout for wait-ready), 2 usage.
 */
#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "tmux.h"
#include "xmalloc.h"

#define INJECT_MAX (16 * 1024 * 1024)

static void usage(void) __attribute__((noreturn));
static int cmd_new(int, char **, const char *const *);
static int cmd_inject(int, char **);
static int cmd_wait_ready(int, char **);
static int cmd_capture(int, char **);
static int cmd_has(int, char **);
static int cmd_kill(int, char **);
static int cmd_list(int, char **);
static int cmd_number(int, char **);

static void
usage(void)
{
	fprintf(stderr,
	    "usage: tmux-tool [-L socket] [-T tmpdir] [-e K=V] "
	    "new|inject|wait-ready|capture|has|kill|list|activity|pane-pid "
	    "args...\n");
	exit(2);
}

static int
cmd_new(int argc, char **argv, const char *const *env)
{
	if (argc < 4)
		usage();
	if (tmux_new_session(argv[1], argv[2], argv + 3, env) == -1) {
		warnx("cannot start session '%s'", argv[1]);
		return 1;
	}
	return 0;
}

static int
cmd_inject(int argc, char **argv)
{
	struct buf text;
	int r;

	if (argc != 3)
		usage();
	buf_init(&text, 0);
	if (file_read(argv[2], INJECT_MAX, &text) != 0) {
		warn("cannot read '%s'", argv[2]);
		buf_free(&text);
		return 1;
	}
	r = tmux_inject(argv[1], buf_str(&text));
	buf_free(&text);
	if (r == 1)
		warnx("not delivered to '%s'", argv[1]);
	else if (r == -1)
		warnx("cannot inject into '%s'", argv[1]);
	return r == 0 ? 0 : 1;
}

static int
cmd_wait_ready(int argc, char **argv)
{
	const char *pattern;
	struct buf screen;
	int r;

	if (argc != 4 && argc != 5)
		usage();
	pattern = *argv[2] != '\0' ? argv[2] : NULL;
	buf_init(&screen, 0);
	r = tmux_wait_ready(argv[1], pattern, argc == 5 ? argv[4] : NULL,
	    atoi(argv[3]), &screen);
	if (r == TMUX_NOT_READY)
		warnx("timed out waiting for '%s'", argv[1]);
	else if (r == TMUX_DIALOG)
		warnx("'%s' shows a dialog:\n%s", argv[1], buf_str(&screen));
	else if (r == -1)
		warnx("cannot wait for '%s'", argv[1]);
	buf_free(&screen);
	return r == 0 ? 0 : 1;
}

static int
cmd_capture(int argc, char **argv)
{
	struct buf out;
	int r;

	if (argc != 3)
		usage();
	buf_init(&out, 0);
	r = tmux_capture(argv[1], atoi(argv[2]), &out);
	if (r == 0)
		fwrite(buf_str(&out), 1, out.len, stdout);
	else
		warnx("cannot capture '%s'", argv[1]);
	buf_free(&out);
	return r == 0 ? 0 : 1;
}

static int
cmd_has(int argc, char **argv)
{
	int r;

	if (argc != 2)
		usage();
	if ((r = tmux_has_session(argv[1])) == -1)
		warnx("cannot check session '%s'", argv[1]);
	return r == 1 ? 0 : 1;
}

static int
cmd_kill(int argc, char **argv)
{
	if (argc != 2)
		usage();
	if (tmux_kill_session(argv[1]) == -1) {
		warnx("cannot kill session '%s'", argv[1]);
		return 1;
	}
	return 0;
}

static int
cmd_list(int argc, char **argv)
{
	char **names;
	size_t n, i;

	if (argc > 2)
		usage();
	if (tmux_list_sessions(argc == 2 ? argv[1] : NULL, &names, &n) == -1) {
		warnx("cannot list sessions");
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	tmux_list_free(names, n);
	return 0;
}

/* activity NAME, pane-pid NAME. */
static int
cmd_number(int argc, char **argv)
{
	time_t when;
	pid_t pid;

	if (argc != 2)
		usage();
	if (strcmp(argv[0], "activity") == 0 &&
	    tmux_session_activity(argv[1], &when) == 0) {
		printf("%lld\n", (long long)when);
		return 0;
	}
	if (strcmp(argv[0], "pane-pid") == 0 &&
	    tmux_pane_pid(argv[1], &pid) == 0) {
		printf("%ld\n", (long)pid);
		return 0;
	}
	warnx("cannot read %s of '%s'", argv[0], argv[1]);
	return 1;
}

int
main(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR");
	const char **env = NULL;
	size_t nenv = 0;
	int ch, r;

	while ((ch = getopt(argc, argv, "+L:T:e:")) != -1) {
		switch (ch) {
		case 'L':
			tmux_set_socket(optarg);
			break;
		case 'T':
			tmpdir = optarg;
			break;
		case 'e':
			env = xreallocarray(env, nenv + 2, sizeof(*env));
			env[nenv++] = optarg;
			env[nenv] = NULL;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	tmux_set_tmpdir(tmpdir != NULL && *tmpdir != '\0' ? tmpdir : "/tmp");
	if (strcmp(argv[0], "new") == 0)
		r = cmd_new(argc, argv, env);
	else if (strcmp(argv[0], "inject") == 0)
		r = cmd_inject(argc, argv);
	else if (strcmp(argv[0], "wait-ready") == 0)
		r = cmd_wait_ready(argc, argv);
	else if (strcmp(argv[0], "capture") == 0)
		r = cmd_capture(argc, argv);
	else if (strcmp(argv[0], "has") == 0)
		r = cmd_has(argc, argv);
	else if (strcmp(argv[0], "kill") == 0)
		r = cmd_kill(argc, argv);
	else if (strcmp(argv[0], "list") == 0)
		r = cmd_list(argc, argv);
	else if (strcmp(argv[0], "activity") == 0 ||
	    strcmp(argv[0], "pane-pid") == 0)
		r = cmd_number(argc, argv);
	else
		usage();
	free(env);
	tmux_set_socket(NULL);
	tmux_set_tmpdir(NULL);
	return r;
}
