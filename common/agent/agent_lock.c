/*
 * The factory's Claude session lock, both sides of it: the ticks that
 * start sessions and type into them, and the wrapper that holds the
 * lock for a session (see agent_lock.h).
 */
/* accept4(2), struct ucred (SO_PEERCRED). */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent_lock.h"
#include "buf.h"
#include "file.h"
#include "lock.h"
#include "phase.h"
#include "xmalloc.h"

/* How often the files are looked at. */
#define AGENT_LOCK_POLL_MS 100
/* Polls between asking whether the session still lives. */
#define AGENT_LOCK_ALIVE_EVERY 10
/*
 * What a tick gives a wrapper beyond the lock's own wait: to start (the
 * session's programs loading) and to answer a request.
 */
#define AGENT_LOCK_START_SLACK_S 10
/*
 * How long a tick waits for a wrapper's answer to a request: the wrapper
 * answers at once (it tries the lock, never waits for it), so this is
 * only its polling and a busy machine, never the lock's wait.
 */
#define AGENT_LOCK_ANSWER_S 3
/* A stopped session's wrapper ends within its agent's grace period. */
#define AGENT_LOCK_END_WAIT_MS 8000

/* What a state file says. */
enum agent_lock_state {
	AGENT_LOCK_NONE, /* no file (no wrapper, or it ended) */
	AGENT_LOCK_HELD,
	AGENT_LOCK_FREE,
	AGENT_LOCK_BUSY,
	AGENT_LOCK_ERROR
};

static char *agent_lock_file;
static int agent_lock_wait_s = 300;
static int agent_lock_reserved = -1;
static int agent_lock_away;

static long long agent_lock_now_ms(void);
static void agent_lock_sleep_ms(int);
static int agent_lock_mkdir(const char *);
static enum agent_lock_state agent_lock_state_read(const char *);
static void agent_lock_state_write(const char *, const char *);
static void agent_lock_state_mine(struct agent_lock_holder *, const char *);
static int agent_lock_take(struct agent_lock_holder *, int, int (*)(void *),
    void *);
static int agent_lock_phase_changed(struct agent_lock_holder *);
static int agent_lock_waiting(const char *);
static int agent_lock_sockaddr(const char *, struct sockaddr_un *);
static int agent_lock_peer_is_me(int);
static int agent_lock_wait_in(int, long long);
static int agent_lock_accept(int, long long, const char *,
    int (*)(const char *));
static int agent_lock_send(int, int);
static int agent_lock_receive(struct agent_lock_holder *);
static int agent_lock_take_fd(int, const char *);

/* The byte sent with the descriptor, and the wrapper's answer. */
#define AGENT_LOCK_HANDOVER_SEND 'L'
#define AGENT_LOCK_HANDOVER_ACK 'K'

void
agent_lock_configure(const char *path, int wait_s)
{
	free(agent_lock_file);
	agent_lock_file = path != NULL && *path != '\0' ? xstrdup(path) : NULL;
	agent_lock_wait_s = wait_s > 0 ? wait_s : 0;
}

const char *
agent_lock_path(void)
{
	return agent_lock_file;
}

int
agent_lock_wait(void)
{
	return agent_lock_wait_s;
}

static long long
agent_lock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void
agent_lock_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	(void)nanosleep(&ts, NULL);
}

/* The lock's directory (~/.claude), made private when it is new. */
static int
agent_lock_mkdir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int r;

	if (slash == NULL || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	r = file_mkdirs(dir, 0700);
	free(dir);
	return r;
}

int
agent_lock_reserve(void)
{
	int r;

	if (agent_lock_file == NULL || agent_lock_reserved != -1)
		return 0;
	if (agent_lock_mkdir(agent_lock_file) == -1)
		return -1;
	r = lock_wait(agent_lock_file, &agent_lock_reserved, agent_lock_wait_s);
	if (r != 0)
		agent_lock_reserved = -1;
	if (r != -1)
		agent_lock_away = r == 1;
	return r;
}

int
agent_lock_turned_away(void)
{
	return agent_lock_away;
}

int
agent_lock_free(void)
{
	int fd = -1, r;

	if (agent_lock_file == NULL || agent_lock_reserved != -1)
		return 0;
	if ((r = lock_take(agent_lock_file, &fd)) == -1)
		return errno == ENOENT ? 1 : -1;
	if (r == 0)
		lock_release(fd);
	return r == 0;
}

void
agent_lock_unreserve(void)
{
	lock_release(agent_lock_reserved);
	agent_lock_reserved = -1;
}

/* A socket address for path: 0, or -1 (ENAMETOOLONG) when it is long. */
static int
agent_lock_sockaddr(const char *path, struct sockaddr_un *sa)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof(*sa));
	if (n >= sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n + 1);
	return 0;
}

/* Whether the process at the other end of the socket fd is this user. */
static int
agent_lock_peer_is_me(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
	    cr.uid == geteuid();
}

/* Wait until fd can be read, until deadline (ms): 1, 0 time up, -1. */
static int
agent_lock_wait_in(int fd, long long deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	long long left;
	int r;

	while ((left = deadline - agent_lock_now_ms()) > 0) {
		r = poll(&p, 1,
		    left < AGENT_LOCK_POLL_MS ? (int)left : AGENT_LOCK_POLL_MS);
		if (r == 1)
			return 1;
		if (r == -1 && errno != EINTR)
			return -1;
		if (r == 0)
			return 0;
	}
	return 0;
}

int
agent_lock_handover_listen(const char *path, int *sfd)
{
	struct sockaddr_un sa;
	mode_t old;
	int fd, r, saved;

	*sfd = -1;
	if (agent_lock_reserved == -1) {
		errno = ENOLCK;
		return -1;
	}
	if (agent_lock_sockaddr(path, &sa) == -1 ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	(void)unlink(path);
	/* Only this user may connect: the socket is made 0600. */
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r == -1 || listen(fd, 4) == -1) {
		saved = errno;
		(void)close(fd);
		if (r == 0)
			(void)unlink(path);
		errno = saved;
		return -1;
	}
	*sfd = fd;
	return 0;
}

/*
 * A connection on the listening socket sfd from this user's process,
 * until deadline (ms) or session is gone: its descriptor, or -1.
 */
static int
agent_lock_accept(int sfd, long long deadline, const char *session,
    int (*alive)(const char *))
{
	int cfd, polls;

	for (polls = 1;; polls++) {
		switch (agent_lock_wait_in(sfd,
		    agent_lock_now_ms() + AGENT_LOCK_POLL_MS)) {
		case -1:
			return -1;
		case 1:
			if ((cfd = accept4(sfd, NULL, NULL, SOCK_CLOEXEC)) ==
			    -1)
				break;
			if (agent_lock_peer_is_me(cfd))
				return cfd;
			(void)close(cfd);
			break;
		default:
			break;
		}
		if (agent_lock_now_ms() >= deadline ||
		    (polls % AGENT_LOCK_ALIVE_EVERY == 0 && alive != NULL &&
			alive(session) == 0))
			return -1;
	}
}

/* Send fd over the connected socket cfd (SCM_RIGHTS): 0 or -1. */
static int
agent_lock_send(int cfd, int fd)
{
	char byte = AGENT_LOCK_HANDOVER_SEND;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	while ((n = sendmsg(cfd, &msg, MSG_NOSIGNAL)) == -1 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

int
agent_lock_handover(int sfd, const char *path, const char *session,
    int (*alive)(const char *))
{
	long long deadline;
	char ack = 0;
	int cfd = -1, r = -1;

	if (sfd == -1)
		goto out;
	deadline = agent_lock_now_ms() + AGENT_LOCK_START_SLACK_S * 1000LL;
	if (agent_lock_reserved == -1 ||
	    (cfd = agent_lock_accept(sfd, deadline, session, alive)) == -1 ||
	    agent_lock_send(cfd, agent_lock_reserved) == -1)
		goto out;
	/*
	 * Sent: the wrapper shares the lock's open file description now (or
	 * it will go with the message, should the wrapper die first).  It
	 * is closed here, never unlocked, which would unlock it for both.
	 */
	(void)close(agent_lock_reserved);
	agent_lock_reserved = -1;
	r = 0;
	if (agent_lock_wait_in(cfd, deadline) == 1)
		(void)read(cfd, &ack, 1);
out:
	if (cfd != -1)
		(void)close(cfd);
	if (sfd != -1) {
		(void)close(sfd);
		(void)unlink(path);
	}
	return r;
}

/*
 * The wrapper's side: fd, received, must be the lock file itself (it is
 * then held: the tick held it on the same open file description).  0,
 * or -1 (fd closed).
 */
static int
agent_lock_take_fd(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && S_ISREG(b.st_mode) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	(void)close(fd);
	return -1;
}

/*
 * Take the lock from the tick that started the session (h->handover):
 * connect, receive the descriptor, answer.  0 with h->fd holding it, or
 * -1 (the wrapper takes the lock itself).
 */
static int
agent_lock_receive(struct agent_lock_holder *h)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte = 0, ack = AGENT_LOCK_HANDOVER_ACK;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct sockaddr_un sa;
	struct cmsghdr *cm;
	struct msghdr msg;
	int sfd, fd = -1;

	if (agent_lock_sockaddr(h->handover, &sa) == -1 ||
	    (sfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	if (connect(sfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    !agent_lock_peer_is_me(sfd) ||
	    agent_lock_wait_in(sfd,
		agent_lock_now_ms() + AGENT_LOCK_START_SLACK_S * 1000LL) != 1 ||
	    recvmsg(sfd, &msg, MSG_CMSG_CLOEXEC) != 1 ||
	    byte != AGENT_LOCK_HANDOVER_SEND)
		goto out;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm == NULL || cm->cmsg_level != SOL_SOCKET ||
	    cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		goto out;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (agent_lock_take_fd(fd, h->path) == -1) {
		fd = -1;
		goto out;
	}
	(void)write(sfd, &ack, 1);
	h->fd = fd;
	lock_note_pid(fd);
out:
	(void)close(sfd);
	return fd != -1 ? 0 : -1;
}

int
agent_lock_hand_over(void)
{
	int fd = agent_lock_reserved;

	agent_lock_reserved = -1;
	return fd;
}

static enum agent_lock_state
agent_lock_state_read(const char *state)
{
	static const struct {
		const char *word;
		enum agent_lock_state st;
	} words[] = {{"held", AGENT_LOCK_HELD}, {"free", AGENT_LOCK_FREE},
	    {"busy", AGENT_LOCK_BUSY}, {"error", AGENT_LOCK_ERROR}};
	enum agent_lock_state st = AGENT_LOCK_NONE;
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	if (file_read(state, 1024, &b) != -1)
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strncmp(buf_str(&b), words[i].word,
				strlen(words[i].word)) == 0)
				st = words[i].st;
	buf_free(&b);
	return st;
}

static void
agent_lock_state_write(const char *state, const char *word)
{
	char line[1100];

	snprintf(line, sizeof(line), "%s\n", word);
	(void)file_write_atomic(state, line, strlen(line), 0644, 0);
}

/*
 * The wrapper writes its state with its process id after the word: a
 * wrapper ending late (its session was killed and started again) must
 * not remove its successor's (an inode number is no proof, it is reused
 * at once).
 */
static void
agent_lock_state_mine(struct agent_lock_holder *h, const char *word)
{
	char line[64];

	snprintf(line, sizeof(line), "%s %ld", word, (long)getpid());
	agent_lock_state_write(h->state, line);
}

/* Whether the state file is this process's (see agent_lock_state_mine()). */
static int
agent_lock_state_is_mine(const char *state)
{
	struct buf b;
	const char *sp;
	int mine = 0;

	buf_init(&b, 0);
	if (file_read(state, 1024, &b) != -1 &&
	    (sp = strchr(buf_str(&b), ' ')) != NULL)
		mine = strtol(sp + 1, NULL, 10) == (long)getpid();
	buf_free(&b);
	return mine;
}

void
agent_lock_state_failed(const char *state, const char *why)
{
	char line[1024];

	snprintf(line, sizeof(line), "error: %s", why);
	agent_lock_state_write(state, line);
}

int
agent_lock_state_why(const char *state, char *why, size_t whysz)
{
	struct buf b;
	const char *text;
	int r = 0;

	buf_init(&b, 0);
	if (file_read(state, 1024, &b) != -1 &&
	    strncmp(text = buf_str(&b), "error: ", 7) == 0) {
		snprintf(why, whysz, "%.*s", (int)strcspn(text + 7, "\n"),
		    text + 7);
		r = 1;
	}
	buf_free(&b);
	return r;
}

int
agent_lock_await_start(const char *state, const char *session,
    int (*alive)(const char *))
{
	long long deadline;
	int polls;

	if (agent_lock_file == NULL)
		return 0;
	deadline = agent_lock_now_ms() +
	    (agent_lock_wait_s + AGENT_LOCK_START_SLACK_S) * 1000LL;
	for (polls = 1;; polls++) {
		switch (agent_lock_state_read(state)) {
		case AGENT_LOCK_HELD:
			return 0;
		case AGENT_LOCK_BUSY:
			(void)file_remove(state);
			return 1;
		case AGENT_LOCK_ERROR:
			return -1;
		default:
			break;
		}
		if (agent_lock_now_ms() >= deadline ||
		    (polls % AGENT_LOCK_ALIVE_EVERY == 0 &&
			alive(session) == 0))
			return -1;
		agent_lock_sleep_ms(AGENT_LOCK_POLL_MS);
	}
}

int
agent_lock_for_inject(const char *state, const char *request,
    const char *session, int (*alive)(const char *))
{
	long long deadline;
	int polls;

	if (agent_lock_file == NULL || !file_exists(state))
		return 0;
	if (file_create_excl(request, NULL, 0644) == -1)
		return -1;
	deadline = agent_lock_now_ms() + AGENT_LOCK_ANSWER_S * 1000LL;
	for (polls = 1; agent_lock_now_ms() < deadline; polls++) {
		if (!file_exists(request)) {
			switch (agent_lock_state_read(state)) {
			case AGENT_LOCK_HELD:
				return 0;
			case AGENT_LOCK_NONE:
				return -1;
			default:
				return 1;
			}
		}
		if (polls % AGENT_LOCK_ALIVE_EVERY == 0 && alive(session) == 0)
			break;
		agent_lock_sleep_ms(AGENT_LOCK_POLL_MS);
	}
	(void)file_remove(request);
	return agent_lock_now_ms() < deadline ? -1 : 1;
}

/*
 * Take the lock for h, trying until wait_s seconds are over (0: once) or
 * stop(arg) says to give up.  0 taken, 1 not, -1 error.
 */
static int
agent_lock_take(struct agent_lock_holder *h, int wait_s, int (*stop)(void *),
    void *arg)
{
	long long deadline = agent_lock_now_ms() + wait_s * 1000LL;
	int r;

	for (;;) {
		if ((r = lock_take(h->path, &h->fd)) != 1) {
			if (r == -1)
				h->fd = -1;
			return r;
		}
		h->fd = -1;
		if (agent_lock_now_ms() >= deadline ||
		    (stop != NULL && stop(arg)))
			return 1;
		agent_lock_sleep_ms(AGENT_LOCK_POLL_MS);
	}
}

int
agent_lock_hold_start(struct agent_lock_holder *h, int (*stop)(void *),
    void *arg)
{
	int r, saved;

	h->fd = -1;
	h->seen_valid = 0;
	(void)agent_lock_phase_changed(h);
	if (h->handover != NULL && agent_lock_receive(h) == 0)
		r = 0;
	else if (agent_lock_mkdir(h->path) == -1)
		r = -1;
	else
		r = agent_lock_take(h, h->wait_s, stop, arg);
	saved = errno;
	if (r != -1)
		agent_lock_state_mine(h, r == 0 ? "held" : "busy");
	errno = saved;
	return r;
}

/* Whether the phase file changed since the last look (now remembered). */
static int
agent_lock_phase_changed(struct agent_lock_holder *h)
{
	struct stat st;
	int changed;

	if (h->watch == NULL)
		return 0;
	if (lstat(h->watch, &st) == -1) {
		h->seen_valid = 0;
		return 0;
	}
	changed = !h->seen_valid || st.st_ino != h->seen.st_ino ||
	    st.st_size != h->seen.st_size ||
	    st.st_mtim.tv_sec != h->seen.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != h->seen.st_mtim.tv_nsec;
	h->seen = st;
	h->seen_valid = 1;
	return changed;
}

/* Whether the phase file at path says the agent waits. */
static int
agent_lock_waiting(const char *path)
{
	struct phase_info pi;

	if (phase_read(path, &pi) == -1)
		return 0;
	return phase_def(pi.phase)->waiting;
}

void
agent_lock_serve(struct agent_lock_holder *h, int (*stop)(void *), void *arg)
{
	if (agent_lock_phase_changed(h) && h->fd != -1 &&
	    agent_lock_waiting(h->watch)) {
		lock_release(h->fd);
		h->fd = -1;
		agent_lock_state_mine(h, "free");
	}
	if (!file_exists(h->request))
		return;
	/* Answered at once: what cannot be typed now goes to the mailbox. */
	if (h->fd == -1)
		(void)agent_lock_take(h, 0, stop, arg);
	agent_lock_state_mine(h, h->fd != -1 ? "held" : "free");
	(void)file_remove(h->request);
}

void
agent_lock_hold_free(struct agent_lock_holder *h)
{
	if (h->fd == -1)
		return;
	lock_release(h->fd);
	h->fd = -1;
	agent_lock_state_mine(h, "free");
}

int
agent_lock_hold_try(struct agent_lock_holder *h)
{
	if (h->fd != -1)
		return 1;
	if (agent_lock_take(h, 0, NULL, NULL) != 0)
		return 0;
	agent_lock_state_mine(h, "held");
	return 1;
}

void
agent_lock_hold_end(struct agent_lock_holder *h)
{
	lock_release(h->fd);
	h->fd = -1;
	if (agent_lock_state_is_mine(h->state))
		(void)file_remove(h->state);
}

int
agent_lock_await_end(const char *state)
{
	long long deadline;

	deadline = agent_lock_now_ms() + AGENT_LOCK_END_WAIT_MS;
	while (agent_lock_now_ms() < deadline) {
		switch (agent_lock_state_read(state)) {
		case AGENT_LOCK_HELD:
		case AGENT_LOCK_FREE:
			agent_lock_sleep_ms(AGENT_LOCK_POLL_MS);
			continue;
		default:
			return 0;
		}
	}
	return -1;
}
