/*
 * Tests for the agent seam (common/agent/agent.c): the calls reach the backend
 * in use, optional calls of a backend that lacks them fail, the default
 * backend is chosen by its protocol name and reads phase files; a
 * message is delivered once (agent_deliver()): typed after its intent
 * is recorded, never again once delivered, and a message recorded but
 * not confirmed is settled by the backend's look (seen); a message that
 * cannot be typed now is queued in the session's mailbox and typed from
 * it, in order and once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "buf.h"
#include "check.h"
#include "cli.h"
#include "config.h"
#include "intent.h"
#include "runfiles.h"

static int fake_injected, fake_killed;
static char fake_signal_of[64];

static int
fake_start(const struct agent_spec *s, char *err, size_t errsz)
{
	snprintf(err, errsz, "no start for %s", s->session);
	return -1;
}

static enum agent_delivery
fake_inject(const char *session, const char *text)
{
	(void)session;
	fake_injected++;
	return strcmp(text, "late") == 0 ? AGENT_NOT_DELIVERED :
					   AGENT_DELIVERED;
}

static int
fake_alive(const char *session)
{
	return strcmp(session, "live") == 0;
}

static int
fake_signal(const char *session, const char *path, struct phase_info *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(fake_signal_of, sizeof(fake_signal_of), "%s", session);
	out->phase = strcmp(path, "done") == 0 ? PHASE_DONE : PHASE_NONE;
	return 0;
}

static int
fake_kill(const char *session)
{
	(void)session;
	fake_killed++;
	return 0;
}

static int
fake_valid(const char *name)
{
	return strchr(name, ' ') == NULL;
}

/* What fake_seen() answers, and how often it was asked. */
static int fake_seen_says, fake_seen_asked;

static int
fake_seen(const char *session, const struct agent_msg *m, time_t at,
    long long stamp)
{
	(void)session;
	(void)m;
	(void)at;
	(void)stamp;
	fake_seen_asked++;
	return fake_seen_says;
}

static const struct agent_backend fake_looks = {.protocol = "fake",
    .start = fake_start,
    .inject = fake_inject,
    .alive = fake_alive,
    .read_signal = fake_signal,
    .kill = fake_kill,
    .valid_name = fake_valid,
    .seen = fake_seen};

/* The lock is held elsewhere (busy), and whether the agent waits. */
static int fake_busy, fake_prompt, fake_typed_n;
static char fake_typed[4][64];

static enum agent_delivery
fake_busy_inject(const char *session, const char *text)
{
	(void)session;
	if (fake_busy)
		return AGENT_QUEUED;
	if (fake_typed_n < 4)
		snprintf(fake_typed[fake_typed_n], sizeof(fake_typed[0]), "%s",
		    text);
	fake_typed_n++;
	return AGENT_DELIVERED;
}

static int
fake_at_prompt(const char *session, time_t since)
{
	(void)session;
	(void)since;
	return fake_prompt;
}

static const struct agent_backend fake_mailbox = {.protocol = "fake",
    .start = fake_start,
    .inject = fake_busy_inject,
    .alive = fake_alive,
    .read_signal = fake_signal,
    .kill = fake_kill,
    .valid_name = fake_valid,
    .seen = fake_seen,
    .at_prompt = fake_at_prompt};

static const struct agent_backend fake = {.protocol = "fake",
    .start = fake_start,
    .inject = fake_inject,
    .alive = fake_alive,
    .read_signal = fake_signal,
    .kill = fake_kill,
    .valid_name = fake_valid};

static void
test_dispatch(void)
{
	struct agent_spec spec = {.session = "s1"};
	struct phase_info sig;
	char err[64];

	agent_set_backend(&fake);
	CHECK_INT(agent_start(&spec, err, sizeof(err)), -1);
	CHECK_STR(err, "no start for s1");
	CHECK_INT(agent_inject("s1", "hello"), AGENT_DELIVERED);
	CHECK_INT(agent_inject("s1", "late"), AGENT_NOT_DELIVERED);
	CHECK_INT(fake_injected, 2);
	CHECK_INT(agent_alive("live"), 1);
	CHECK_INT(agent_alive("dead"), 0);
	CHECK_INT(agent_read_signal("s1", "done", &sig), 0);
	CHECK_INT(sig.phase, PHASE_DONE);
	CHECK_STR(fake_signal_of, "s1");
	CHECK_INT(agent_kill("s1"), 0);
	CHECK_INT(fake_killed, 1);
	CHECK_INT(agent_valid_name("a b"), 0);
	CHECK_INT(agent_valid_name("ab"), 1);
	agent_set_backend(NULL);
}

/* Capture, listing and activity are optional in a backend. */
static void
test_optional(void)
{
	char **names = (char **)&fake;
	struct buf b;
	size_t n = 9;
	time_t when;

	agent_set_backend(&fake);
	buf_init(&b, 0);
	CHECK_INT(agent_capture("s1", 10, &b), -1);
	CHECK_INT(b.len, 0);
	buf_free(&b);
	CHECK_INT(agent_list("dev-", &names, &n), -1);
	CHECK(names == NULL);
	CHECK_INT(n, 0);
	agent_list_free(names, n);
	CHECK_INT(agent_activity("s1", &when), -1);
	agent_set_backend(NULL);
}

/* The default backend: chosen by name, reads phase files. */
static void
test_default_backend(void)
{
	struct agent_conf conf = {.protocol = "no-such-protocol"};
	struct phase_info sig;

	CHECK_INT(agent_use(&conf), -1);
	conf.protocol = AGENT_PROTOCOL_CHECKPOINT;
	conf.state_dir = "/tmp";
	CHECK_INT(agent_use(&conf), 0);
	CHECK_INT(agent_valid_name("dev-x-1"), 1);
	conf.protocol = NULL;
	CHECK_INT(agent_use(&conf), 0);
	conf.protocol = AGENT_PROTOCOL_DEFAULT;
	CHECK_INT(agent_use(&conf), 0);
	CHECK_INT(agent_read_signal("dev-x-1", "/nonexistent/x.phase", &sig),
	    0);
	CHECK_INT(sig.phase, PHASE_NONE);
	CHECK_INT(sig.mtime, 0);
	CHECK_INT(agent_valid_name("dev-x-1"), 1);
	CHECK_INT(agent_valid_name("a:b"), 0);
}

/* A protocol no backend has is a configuration error naming the file. */
static void
test_cli_agent_use(void)
{
	struct config cfg;
	char err[256];

	memset(&cfg, 0, sizeof(cfg));
	cfg.agent_protocol = "pigeon";
	cfg.run_dir = "/tmp";
	cfg.project_toml = "projects/x.toml";
	CHECK_INT(cli_agent_use(&cfg, err, sizeof(err)), -1);
	CHECK_STR(err,
	    "projects/x.toml: [agent] protocol 'pigeon': not "
	    "available");
	cfg.agent_protocol = AGENT_PROTOCOL_CHECKPOINT;
	CHECK_INT(cli_agent_use(&cfg, err, sizeof(err)), 0);
	cfg.agent_protocol = NULL;
	CHECK_INT(cli_agent_use(&cfg, err, sizeof(err)), 0);
	agent_set_backend(NULL);
}

/* A message, once: recorded first, then typed, then never again. */
static void
test_deliver(void)
{
	char dir[] = "/tmp/test_agent.XXXXXX", *key, *text, path[300];
	struct agent_msg m = {.key = "k1", .text = "hello there"};
	struct intent in;

	if (mkdtemp(dir) == NULL) {
		CHECK(0);
		return;
	}
	runfiles_init(dir, dir);
	agent_set_backend(&fake_looks);
	fake_injected = fake_seen_asked = 0;
	CHECK_INT(agent_deliver("s2", &m), AGENT_DELIVERED);
	CHECK_INT(fake_injected, 1);
	CHECK_INT(agent_deliver("s2", &m), AGENT_DELIVERED);
	CHECK_INT(fake_injected, 1);
	CHECK_INT(fake_seen_asked, 0);
	/* Not confirmed: recorded, tried once. */
	m.key = "k2";
	m.text = "late";
	CHECK_INT(agent_deliver("s2", &m), AGENT_NOT_DELIVERED);
	CHECK_INT(fake_injected, 2);
	CHECK_INT(agent_pending("s2", "k", &key, &text), 1);
	CHECK_STR(key, "k2");
	CHECK_STR(text, "late");
	free(key);
	free(text);
	/* The backend cannot tell yet: nothing typed. */
	fake_seen_says = -1;
	CHECK_INT(agent_deliver("s2", &m), AGENT_NOT_DELIVERED);
	CHECK_INT(fake_injected, 2);
	/* The session has it: recorded as delivered, nothing typed. */
	fake_seen_says = 1;
	CHECK_INT(agent_deliver("s2", &m), AGENT_DELIVERED);
	CHECK_INT(fake_injected, 2);
	CHECK_INT(agent_pending("s2", "k", &key, &text), 0);
	CHECK(key == NULL && text == NULL);
	CHECK_INT(intent_load("s2", &in), 0);
	CHECK_INT(intent_was_delivered(&in, "k2"), 1);
	intent_free(&in);
	/* It has not and can take it: typed again. */
	fake_seen_says = 0;
	m.key = "k3";
	CHECK_INT(agent_deliver("s2", &m), AGENT_NOT_DELIVERED);
	CHECK_INT(agent_deliver("s2", &m), AGENT_NOT_DELIVERED);
	CHECK_INT(fake_injected, 4);
	CHECK_INT(intent_load("s2", &in), 0);
	CHECK_INT(in.tries, 2);
	intent_free(&in);
	/* A new message, and k3 has arrived meanwhile: it is settled first. */
	fake_seen_says = 1;
	m.key = "k4";
	m.text = "hello again";
	CHECK_INT(agent_deliver("s2", &m), AGENT_DELIVERED);
	CHECK_INT(fake_injected, 5);
	CHECK_INT(intent_load("s2", &in), 0);
	CHECK_INT(intent_was_delivered(&in, "k3"), 1);
	CHECK_INT(intent_was_delivered(&in, "k4"), 1);
	intent_free(&in);
	/* Killed: its messages are forgotten. */
	CHECK_INT(agent_kill("s2"), 0);
	snprintf(path, sizeof(path), "%s/agent-s2.intent", dir);
	CHECK_INT(access(path, F_OK), -1);
	agent_set_backend(NULL);
	runfiles_init("/tmp", ".");
	CHECK_INT(rmdir(dir), 0);
}

/*
 * The lock held elsewhere: queued, in order, once; a message finding
 * others queued goes behind them; the mailbox is typed oldest first only
 * when the agent waits at its prompt, once each.
 */
static void
test_mailbox(void)
{
	char dir[] = "/tmp/test_agent.XXXXXX", path[300];
	struct agent_msg m1 = {.key = "ci a success 0", .text = "CI passed"};
	struct agent_msg m2 = {.key = "review a", .text = "Changes wanted"};
	struct intent in;

	if (mkdtemp(dir) == NULL) {
		CHECK(0);
		return;
	}
	runfiles_init(dir, dir);
	agent_set_backend(&fake_mailbox);
	fake_busy = 1;
	fake_prompt = 0;
	fake_typed_n = 0;
	CHECK_INT(agent_queued("s3"), 0);
	CHECK_INT(agent_deliver("s3", &m1), AGENT_QUEUED);
	CHECK_INT(agent_deliver("s3", &m1), AGENT_QUEUED);
	CHECK_INT(agent_queued("s3"), 1);
	/* Not typed: the record holds no try of it. */
	CHECK_INT(intent_load("s3", &in), 0);
	CHECK_STR(in.key, "");
	intent_free(&in);
	/* The lock is free now, but m2 goes behind m1. */
	fake_busy = 0;
	CHECK_INT(agent_deliver("s3", &m2), AGENT_QUEUED);
	CHECK_INT(agent_queued("s3"), 2);
	CHECK_INT(fake_typed_n, 0);
	/* The agent is at work: nothing typed. */
	CHECK_INT(agent_mailbox_deliver("s3"), 0);
	CHECK_INT(fake_typed_n, 0);
	fake_prompt = 1;
	CHECK_INT(agent_mailbox_deliver("s3"), 1);
	CHECK_INT(agent_mailbox_deliver("s3"), 1);
	CHECK_INT(agent_mailbox_deliver("s3"), 0);
	CHECK_INT(fake_typed_n, 2);
	CHECK_STR(fake_typed[0], "CI passed");
	CHECK_STR(fake_typed[1], "Changes wanted");
	CHECK_INT(agent_queued("s3"), 0);
	/* Delivered: asked again, nothing typed or queued. */
	CHECK_INT(agent_deliver("s3", &m1), AGENT_DELIVERED);
	CHECK_INT(fake_typed_n, 2);
	/*
	 * Queued, then typed by the wrapper's child, which died before it
	 * recorded the delivery: a sender asking again queues nothing, and
	 * the next child settles it by the backend's look, typing nothing.
	 */
	fake_busy = 1;
	m1.key = "ci c success 0";
	m1.text = "typed, not recorded";
	CHECK_INT(agent_deliver("s3", &m1), AGENT_QUEUED);
	CHECK_INT(intent_load("s3", &in), 0);
	intent_pend(&in, m1.key, m1.text, 0);
	in.tries = 1;
	CHECK_INT(intent_save("s3", &in), 0);
	intent_free(&in);
	CHECK_INT(agent_deliver("s3", &m1), AGENT_QUEUED);
	CHECK_INT(agent_queued("s3"), 1);
	fake_busy = 0;
	fake_prompt = 0;
	fake_seen_says = -1;
	CHECK_INT(agent_mailbox_deliver("s3"), 0);
	fake_seen_says = 1;
	CHECK_INT(agent_mailbox_deliver("s3"), 2);
	CHECK_INT(fake_typed_n, 2);
	CHECK_INT(agent_queued("s3"), 0);
	CHECK_INT(agent_deliver("s3", &m1), AGENT_DELIVERED);
	CHECK_INT(fake_typed_n, 2);
	CHECK_INT(agent_kill("s3"), 0);
	snprintf(path, sizeof(path), "%s/agent-s3.mailbox", dir);
	CHECK_INT(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/agent-s3.mailbox-lock", dir);
	(void)unlink(path);
	agent_set_backend(NULL);
	runfiles_init("/tmp", ".");
	CHECK_INT(rmdir(dir), 0);
}

int
main(void)
{
	RUN(test_dispatch);
	RUN(test_optional);
	RUN(test_default_backend);
	RUN(test_cli_agent_use);
	RUN(test_deliver);
	RUN(test_mailbox);
	return check_main();
}
