/*
 * agent-tool: a small command line over the agent seam (common/agent/agent.c)
 * for integration scripts, with the backend of a protocol.
 *
 *   agent-tool [-P protocol] [-R rundir] [-L socket] [-r ready_s]
 *       [-a ack_s] [-l lockfile] command args...
 *
 *   start NAME CWD CMD...   start a session and wait until it is ready
 *   inject NAME FILE...     deliver each FILE's text as one prompt
 *   deliver NAME KEY FILE   deliver FILE's text once as message KEY, as a
 *                           tick does (agent_deliver(): queued in the
 *                           session's mailbox while the lock is busy)
 *   queued NAME             print the number of messages in its mailbox
 *   progress NAME           print "STATE PERCENT PHASE" of its report
 *   kill NAME
 *
 * It also serves as the agents' wrapper (--agent-exec), as the pollers
 * do.  Exit status: 0 ok, 1 failure, 2 usage, 3 not delivered (inject,
 * deliver) or no report (progress), 4 queued (deliver).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_exec.h"
#include "buf.h"
#include "file.h"
#include "runfiles.h"

#define INJECT_MAX (16 * 1024 * 1024)

static void usage(void) __attribute__((noreturn));
static int cmd_start(int, char **);
static int cmd_inject(int, char **);
static int cmd_progress(int, char **);
static int cmd_deliver(int, char **);

static void
usage(void)
{
	fprintf(stderr,
	    "usage: agent-tool [-P protocol] [-R rundir] "
	    "[-L socket] [-r ready_s] [-a ack_s] [-l lockfile] "
	    "start|inject|deliver|queued|progress|kill args...\n");
	exit(2);
}

static int
cmd_start(int argc, char **argv)
{
	struct agent_spec s = {0};
	char err[512];

	if (argc < 4)
		usage();
	s.session = argv[1];
	s.workdir = argv[2];
	s.argv = argv + 3;
	s.ready_timeout_s = 10;
	if (agent_start(&s, err, sizeof(err)) == -1) {
		warnx("%s", err);
		return 1;
	}
	return 0;
}

/* Each FILE in turn, in this one process (one tick). */
static int
cmd_inject(int argc, char **argv)
{
	enum agent_delivery r = AGENT_INJECT_ERROR;
	struct buf text;
	int i;

	if (argc < 3)
		usage();
	for (i = 2; i < argc; i++) {
		buf_init(&text, 0);
		if (file_read(argv[i], INJECT_MAX, &text) != 0) {
			warn("cannot read '%s'", argv[i]);
			buf_free(&text);
			return 1;
		}
		r = agent_inject(argv[1], buf_str(&text));
		buf_free(&text);
		if (r == AGENT_NOT_DELIVERED)
			warnx("not delivered to '%s'", argv[1]);
		else if (r == AGENT_INJECT_ERROR)
			warnx("cannot inject into '%s'", argv[1]);
	}
	return r == AGENT_DELIVERED ? 0 : r == AGENT_NOT_DELIVERED ? 3 : 1;
}

/* One message, as a tick sends it. */
static int
cmd_deliver(int argc, char **argv)
{
	struct agent_msg m = {.key = NULL, .kind = AGENT_MSG_INJECT};
	enum agent_delivery r;
	struct buf text;

	if (argc != 4)
		usage();
	buf_init(&text, 0);
	if (file_read(argv[3], INJECT_MAX, &text) != 0) {
		warn("cannot read '%s'", argv[3]);
		buf_free(&text);
		return 1;
	}
	m.key = argv[2];
	m.text = buf_str(&text);
	r = agent_deliver(argv[1], &m);
	buf_free(&text);
	switch (r) {
	case AGENT_DELIVERED:
		return 0;
	case AGENT_NOT_DELIVERED:
		return 3;
	case AGENT_QUEUED:
		return 4;
	default:
		return 1;
	}
}

static int
cmd_progress(int argc, char **argv)
{
	struct agent_progress p;
	int r;

	if (argc != 2)
		usage();
	if ((r = agent_progress(argv[1], &p)) != 0)
		return r == 1 ? 3 : 1;
	printf("%s %d %s\n", p.state, p.progress, p.phase);
	return 0;
}

int
main(int argc, char **argv)
{
	struct agent_conf conf = {.protocol = NULL, .state_dir = "/tmp"};
	char why[1024] = "";
	int ch, r;

	if (argc > 1 && strcmp(argv[1], AGENT_EXEC_MODE) == 0) {
		r = agent_exec_main(argc - 1, argv + 1, why, sizeof(why));
		if (why[0] != '\0')
			warnx("%s", why);
		return r;
	}
	while ((ch = getopt(argc, argv, "+P:R:L:r:a:l:")) != -1) {
		switch (ch) {
		case 'P':
			conf.protocol = optarg;
			break;
		case 'R':
			conf.state_dir = optarg;
			break;
		case 'L':
			conf.tmux_socket = optarg;
			break;
		case 'r':
			conf.marker_ready_s = atoi(optarg);
			break;
		case 'a':
			conf.marker_ack_s = atoi(optarg);
			break;
		case 'l':
			conf.session_lock = optarg;
			conf.session_lock_wait_s = 300;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	runfiles_init(conf.state_dir, conf.state_dir);
	if (agent_use(&conf) == -1)
		errx(2, "no agent protocol '%s'", conf.protocol);
	if (strcmp(argv[0], "start") == 0)
		r = cmd_start(argc, argv);
	else if (strcmp(argv[0], "inject") == 0)
		r = cmd_inject(argc, argv);
	else if (strcmp(argv[0], "deliver") == 0)
		r = cmd_deliver(argc, argv);
	else if (strcmp(argv[0], "queued") == 0 && argc == 2)
		r = printf("%ld\n", agent_queued(argv[1])) > 0 ? 0 : 1;
	else if (strcmp(argv[0], "progress") == 0)
		r = cmd_progress(argc, argv);
	else if (strcmp(argv[0], "kill") == 0 && argc == 2)
		r = agent_kill(argv[1]) == 0 ? 0 : 1;
	else
		usage();
	return r;
}
