/*
 * tmux, driven through spawn_run() with argv arrays, never a shell.
 *
 * Targets are written "=NAME" (session) and "=NAME:" (its current pane)
 * so tmux matches the name exactly: a bare "dev-p-1" would also find
 * "dev-p-12" by prefix.  Literal text goes through a named paste buffer
 * loaded from a private file.  A one-word command is run through env(1),
 * since tmux hands a single command argument to the shell.
 */
/* mkostemp(3) is a GNU extension in glibc. */
#define _GNU_SOURCE
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "file.h"
#include "redact.h"
#include "screen.h"
#include "spawn.h"
#include "strv.h"
#include "termsafe.h"
#include "tmux.h"
#include "xmalloc.h"

/* No tmux command should take long; a wedged server must not hang us. */
#define TMUX_TIMEOUT_S 10
#define TMUX_OUT_MAX (64 * 1024)
#define TMUX_CAPTURE_MAX (4 * 1024 * 1024)
#define TMUX_POLL_MS 100
/* Waiting for the pane to show the Enter, per attempt. */
#define TMUX_VERIFY_MS 2000
/* Waiting for the pasted text to finish drawing. */
#define TMUX_SETTLE_MS 1000
#define TMUX_ENTER_TRIES 3
/* tmux_type(): between the paste and its Enter. */
#define TMUX_TYPE_GAP_MS 300
#define TMUX_READY_POLL_MS 250
/* Attempts when the server was exiting as we connected. */
#define TMUX_RACE_TRIES 5

/* A growing NULL-terminated argv. */
struct argvec {
	char **v;
	size_t n;
	size_t cap;
};

static char *tmux_socket;
static char *tmux_tmpdir;
/* tmux_set_server_env()'s copy ("K=V", NULL-ended), or NULL. */
static char **tmux_server_env;

static void av_push(struct argvec *, const char *);
static void av_free(struct argvec *);
static void av_start(struct argvec *);
static int tmux_env_public(const char *);
static int av_run(struct argvec *, struct buf *, size_t);
static int av_run_env(struct argvec *, struct buf *, size_t,
    const char *const *);
static int run_cmd(struct buf *, size_t, ...);
static char *session_target(const char *);
static int session_verb(const char *, const char *);
static char *pane_target(const char *);
static int no_server(const struct buf *);
static int env_ok(const char *const *);
static void split_names(const char *, const char *, char ***, size_t *);
static void last_lines(const char *, size_t, int, struct buf *);
static int display(const char *, const char *, long long *);
static int write_private(const char *, char **);
static int paste_text(const char *, const char *);
static int capture_screen(const char *, struct buf *);
static int settle(const char *, struct buf *);
static int changed_within(const char *, const struct buf *, int);
static void sleep_ms(int);

void
tmux_set_socket(const char *name)
{
	free(tmux_socket);
	tmux_socket = name != NULL ? xstrdup(name) : NULL;
}

void
tmux_set_tmpdir(const char *dir)
{
	free(tmux_tmpdir);
	tmux_tmpdir = dir != NULL ? xstrdup(dir) : NULL;
}

void
tmux_set_server_env(char *const *env)
{
	size_t i, n = 0;

	config_env_free(tmux_server_env); /* wiped: it holds secrets */
	tmux_server_env = NULL;
	while (env != NULL && env[n] != NULL)
		n++;
	if (n == 0)
		return;
	tmux_server_env = xcalloc(n + 1, sizeof(*tmux_server_env));
	for (i = 0; i < n; i++)
		tmux_server_env[i] = xstrdup(env[i]);
}

int
tmux_valid_name(const char *name)
{
	const char *p;

	if (name == NULL || *name == '\0')
		return 0;
	for (p = name; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
			*p == '-'))
			return 0;
	return 1;
}

static void
av_push(struct argvec *av, const char *s)
{
	if (av->n + 2 > av->cap) {
		av->cap = av->cap ? av->cap * 2 : 16;
		av->v = xreallocarray(av->v, av->cap, sizeof(*av->v));
	}
	av->v[av->n++] = xstrdup(s);
	av->v[av->n] = NULL;
}

static void
av_free(struct argvec *av)
{
	size_t i;

	for (i = 0; i < av->n; i++)
		free(av->v[i]);
	free(av->v);
	av->v = NULL;
	av->n = av->cap = 0;
}

/* "tmux" and the socket option, if any. */
static void
av_start(struct argvec *av)
{
	av_push(av, "tmux");
	if (tmux_socket != NULL) {
		av_push(av, "-L");
		av_push(av, tmux_socket);
	}
}

/*
 * 1 when the tool's variable name may reach a tmux client: a client that
 * starts the server makes its whole environment the server's global one,
 * which anyone who reaches the socket reads, so no secret by its name
 * (redact_secret_name()) goes there, whatever the tool inherited.
 */
static int
tmux_env_public(const char *name)
{
	return !redact_secret_name(name);
}

/*
 * Run the assembled command; its output goes to out (or is dropped),
 * capped at max.  A client that reached a server in the middle of exiting
 * (its last session just ended) is run again: nothing was done.  Returns
 * tmux's exit status, or -1 when it could not be run to completion.
 */
static int
av_run(struct argvec *av, struct buf *out, size_t max)
{
	return av_run_env(av, out, max, NULL);
}

/* av_run() with env ("K=V", NULL-ended, or NULL) added for tmux. */
static int
av_run_env(struct argvec *av, struct buf *out, size_t max,
    const char *const *env)
{
	struct spawn_opts o = {.timeout_s = TMUX_TIMEOUT_S,
	    .env_add = env,
	    .env_keep = tmux_env_public};
	struct buf tmp;
	int st, try;

	if (tmux_socket != NULL && !tmux_valid_name(tmux_socket)) {
		errno = EINVAL;
		return -1;
	}
	buf_init(&tmp, max);
	for (try = 0; try < TMUX_RACE_TRIES; try++) {
		buf_reset(&tmp);
		if (spawn_run(av->v, &o, &tmp, &st) == -1)
			st = -1;
		if (st == 0 ||
		    strstr(buf_str(&tmp), "server exited unexpectedly") == NULL)
			break;
		sleep_ms(TMUX_POLL_MS);
	}
	if (out != NULL && st != -1)
		buf_append(out, tmp.data != NULL ? tmp.data : "", tmp.len);
	buf_free(&tmp);
	return st;
}

/* Run "tmux [-L sock] args..." (NULL-terminated); as av_run(). */
static int
run_cmd(struct buf *out, size_t max, ...)
{
	struct argvec av = {NULL, 0, 0};
	const char *arg;
	va_list ap;
	int st;

	av_start(&av);
	va_start(ap, max);
	while ((arg = va_arg(ap, const char *)) != NULL)
		av_push(&av, arg);
	va_end(ap);
	st = av_run(&av, out, max);
	av_free(&av);
	return st;
}

/* "=NAME": the session named exactly so.  Caller frees. */
static char *
session_target(const char *name)
{
	return xasprintf("=%s", name);
}

/* "=NAME:": the current pane of that session.  Caller frees. */
static char *
pane_target(const char *name)
{
	return xasprintf("=%s:", name);
}

/* Did tmux fail only because no server is running? */
static int
no_server(const struct buf *out)
{
	return strstr(buf_str(out), "no server running") != NULL ||
	    strstr(buf_str(out), "error connecting to") != NULL;
}

/*
 * Run "tmux VERB -t =NAME:": tmux's exit status, or -2 (errno EINVAL)
 * for an invalid name.
 */
static int
session_verb(const char *verb, const char *name)
{
	char *t;
	int st;

	if (!tmux_valid_name(name)) {
		errno = EINVAL;
		return -2;
	}
	t = session_target(name);
	st = run_cmd(NULL, TMUX_OUT_MAX, verb, "-t", t, NULL);
	free(t);
	return st;
}

int
tmux_has_session(const char *name)
{
	int st = session_verb("has-session", name);

	if (st == 0 || st == 1)
		return st == 0;
	return -1;
}

/* Append the lines of text starting with prefix to *names. */
static void
split_names(const char *text, const char *prefix, char ***names, size_t *n)
{
	size_t plen, len;
	const char *eol;

	if (prefix == NULL)
		prefix = "";
	plen = strlen(prefix);

	for (; *text != '\0'; text = *eol != '\0' ? eol + 1 : eol) {
		eol = strchr(text, '\n');
		if (eol == NULL)
			eol = text + strlen(text);
		len = (size_t)(eol - text);
		if (len == 0 || len < plen || strncmp(text, prefix, plen) != 0)
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof(**names));
		(*names)[(*n)++] = xstrndup(text, len);
	}
}

int
tmux_list_sessions(const char *prefix, char ***names, size_t *n)
{
	struct buf out;
	int st, r = -1;

	*names = NULL;
	*n = 0;
	buf_init(&out, 0);
	st = run_cmd(&out, TMUX_OUT_MAX, "list-sessions", "-F",
	    "#{session_name}", NULL);
	if (st == 0)
		split_names(buf_str(&out), prefix, names, n);
	if (st == 0 || (st == 1 && no_server(&out)))
		r = 0;
	buf_free(&out);
	return r;
}

void
tmux_list_free(char **names, size_t n)
{
	strv_free_n(names, n);
}

/* Is every entry "K=V" with a non-empty K? */
static int
env_ok(const char *const *env)
{
	for (; env != NULL && *env != NULL; env++)
		if (**env == '=' || strchr(*env, '=') == NULL)
			return 0;
	return 1;
}

int
tmux_new_session(const char *name, const char *cwd, char *const argv[],
    const char *const *env)
{
	struct argvec av = {NULL, 0, 0};
	size_t i;
	int st;

	if (!tmux_valid_name(name) || argv == NULL || argv[0] == NULL ||
	    !env_ok(env) || (argv[1] == NULL && strchr(argv[0], '=') != NULL)) {
		errno = EINVAL;
		return -1;
	}
	av_start(&av);
	av_push(&av, "new-session");
	av_push(&av, "-d");
	av_push(&av, "-s");
	av_push(&av, name);
	av_push(&av, "-x");
	av_push(&av, "200");
	av_push(&av, "-y");
	av_push(&av, "50");
	if (cwd != NULL) {
		av_push(&av, "-c");
		av_push(&av, cwd);
	}
	for (i = 0; env != NULL && env[i] != NULL; i++) {
		av_push(&av, "-e");
		av_push(&av, env[i]);
	}
	av_push(&av, "--");
	if (argv[1] == NULL) {
		av_push(&av, "env");
		av_push(&av, "--");
	}
	for (i = 0; argv[i] != NULL; i++)
		av_push(&av, argv[i]);
	st = av_run_env(&av, NULL, TMUX_OUT_MAX,
	    (const char *const *)tmux_server_env);
	av_free(&av);
	return st == 0 ? 0 : -1;
}

int
tmux_start_server(struct buf *err)
{
	struct argvec av = {NULL, 0, 0};
	int st;

	av_start(&av);
	av_push(&av, "start-server");
	av_push(&av, ";");
	av_push(&av, "set-option");
	av_push(&av, "-g");
	av_push(&av, "exit-empty");
	av_push(&av, "off");
	st = av_run_env(&av, err, TMUX_OUT_MAX,
	    (const char *const *)tmux_server_env);
	av_free(&av);
	return st == 0 ? 0 : -1;
}

int
tmux_kill_session(const char *name)
{
	int st = session_verb("kill-session", name);

	if (st == -2)
		return -1;
	if (st == 0)
		return 0;
	return tmux_has_session(name) == 0 ? 0 : -1;
}

/*
 * Append the last n lines of text to out, ignoring the blank lines that
 * fill the bottom of a screen that is not full.
 */
static void
last_lines(const char *text, size_t len, int n, struct buf *out)
{
	size_t start;
	int seen = 0;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	start = len;
	while (start > 0) {
		if (text[start - 1] == '\n' && ++seen == n)
			break;
		start--;
	}
	buf_append(out, text + start, len - start);
	if (len > start)
		buf_append(out, "\n", 1);
}

int
tmux_capture(const char *name, int lines, struct buf *out)
{
	struct buf tmp;
	char *t, from[32];
	int st;

	if (!tmux_valid_name(name)) {
		errno = EINVAL;
		return -1;
	}
	if (lines <= 0)
		return capture_screen(name, out);
	t = pane_target(name);
	snprintf(from, sizeof(from), "-%d", lines);
	buf_init(&tmp, 0);
	/* -J: a line the terminal wrapped comes back whole, so a token it
	 * split is seen (and masked) as one word. */
	st = run_cmd(&tmp, TMUX_CAPTURE_MAX, "capture-pane", "-p", "-J", "-t",
	    t, "-S", from, NULL);
	if (st == 0)
		last_lines(buf_str(&tmp), tmp.len, lines, out);
	buf_free(&tmp);
	free(t);
	return st == 0 ? 0 : -1;
}

/* The visible screen of the session's pane, appended to out. */
static int
capture_screen(const char *name, struct buf *out)
{
	char *t = pane_target(name);
	int st;

	st =
	    run_cmd(out, TMUX_CAPTURE_MAX, "capture-pane", "-p", "-t", t, NULL);
	free(t);
	return st == 0 ? 0 : -1;
}

/* Expand a tmux format for the session into a number. */
static int
display(const char *name, const char *format, long long *value)
{
	struct buf out;
	char *t, *end;
	int st, r = -1;

	if (!tmux_valid_name(name)) {
		errno = EINVAL;
		return -1;
	}
	t = pane_target(name);
	buf_init(&out, 0);
	st = run_cmd(&out, TMUX_OUT_MAX, "display-message", "-p", "-t", t,
	    format, NULL);
	if (st == 0 && out.len > 0) {
		errno = 0;
		*value = strtoll(buf_str(&out), &end, 10);
		if (errno == 0 && end != buf_str(&out) &&
		    (*end == '\n' || *end == '\0'))
			r = 0;
	}
	if (r == -1)
		errno = EINVAL;
	buf_free(&out);
	free(t);
	return r;
}

int
tmux_session_activity(const char *name, time_t *when)
{
	long long v;

	if (display(name, "#{session_activity}", &v) == -1)
		return -1;
	*when = (time_t)v;
	return 0;
}

int
tmux_pane_pid(const char *name, pid_t *pid)
{
	long long v;

	if (display(name, "#{pane_pid}", &v) == -1 || v <= 0 || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Write text to a new 0600 file in the tmpdir; *path receives its name
 * (caller frees and unlinks).  Returns 0 or -1.
 */
static int
write_private(const char *text, char **path)
{
	size_t len = strlen(text), off = 0;
	ssize_t n;
	int fd, saved;

	*path = NULL;
	if (tmux_tmpdir == NULL) {
		errno = EINVAL;
		return -1;
	}
	*path = xasprintf("%s/tmux-inject-XXXXXX", tmux_tmpdir);
	if ((fd = mkostemp(*path, O_CLOEXEC)) == -1)
		goto fail;
	while (off < len) {
		if ((n = write(fd, text + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) == 0 && off == len)
		return 0;
	saved = errno;
	unlink(*path);
	errno = saved;
fail:
	saved = errno;
	free(*path);
	*path = NULL;
	errno = saved;
	return -1;
}

/*
 * Paste text into the session's pane as one paste (bracketed when the
 * application asked for it).  Returns 0 or -1.
 */
static int
paste_text(const char *name, const char *text)
{
	char *path = NULL, *bufname = NULL, *t = NULL;
	int st, r = -1;

	if (write_private(text, &path) == -1)
		return -1;
	/* The file name's random part makes the buffer name unique too. */
	bufname = xasprintf("disinto-%ld-%s", (long)getpid(),
	    path + strlen(path) - 6);
	st = run_cmd(NULL, TMUX_OUT_MAX, "load-buffer", "-b", bufname, path,
	    NULL);
	unlink(path);
	if (st != 0)
		goto out;
	t = pane_target(name);
	st = run_cmd(NULL, TMUX_OUT_MAX, "paste-buffer", "-p", "-d", "-t", t,
	    "-b", bufname, NULL);
	if (st != 0) {
		(void)run_cmd(NULL, TMUX_OUT_MAX, "delete-buffer", "-b",
		    bufname, NULL);
		goto out;
	}
	r = 0;
out:
	free(t);
	free(bufname);
	free(path);
	return r;
}

/*
 * Capture the screen into base once it has stopped changing (the pasted
 * text is drawn), or after TMUX_SETTLE_MS anyway.  Returns 0 or -1.
 */
static int
settle(const char *name, struct buf *base)
{
	struct buf next;
	int waited, r = 0;

	if (capture_screen(name, base) == -1)
		return -1;
	buf_init(&next, 0);
	for (waited = 0; waited < TMUX_SETTLE_MS; waited += TMUX_POLL_MS) {
		sleep_ms(TMUX_POLL_MS);
		buf_reset(&next);
		if ((r = capture_screen(name, &next)) == -1)
			break;
		if (next.len == base->len &&
		    memcmp(buf_str(&next), buf_str(base), next.len) == 0)
			break;
		buf_free(base);
		*base = next;
		buf_init(&next, 0);
	}
	buf_free(&next);
	return r;
}

/* 1 if the screen differs from base within ms, 0 if not, -1 on error. */
static int
changed_within(const char *name, const struct buf *base, int ms)
{
	struct buf now;
	int waited, r = 0;

	buf_init(&now, 0);
	for (waited = 0; waited <= ms && r == 0; waited += TMUX_POLL_MS) {
		sleep_ms(TMUX_POLL_MS);
		buf_reset(&now);
		if (capture_screen(name, &now) == -1)
			r = -1;
		else if (now.len != base->len ||
		    memcmp(buf_str(&now), buf_str(base), now.len) != 0)
			r = 1;
	}
	buf_free(&now);
	return r;
}

int
tmux_inject(const char *name, const char *text)
{
	struct buf base;
	char *norm, *t = NULL;
	int try, r = -1, c;

	if (!tmux_valid_name(name) || text == NULL) {
		errno = EINVAL;
		return -1;
	}
	buf_init(&base, 0);
	/* Here, so that no caller can forget it: see termsafe.h. */
	norm = termsafe_dup(text);
	if (*norm != '\0' && paste_text(name, norm) == -1)
		goto out;
	if (settle(name, &base) == -1)
		goto out;
	t = pane_target(name);
	for (try = 0; try < TMUX_ENTER_TRIES; try++) {
		if (run_cmd(NULL, TMUX_OUT_MAX, "send-keys", "-t", t, "Enter",
			NULL) != 0)
			goto out;
		if ((c = changed_within(name, &base, TMUX_VERIFY_MS)) != 0) {
			r = c == 1 ? 0 : -1;
			goto out;
		}
	}
	r = 1;
out:
	free(t);
	free(norm);
	buf_free(&base);
	return r;
}

int
tmux_type(const char *name, const char *text)
{
	char *norm, *t = NULL;
	int r = -1;

	if (!tmux_valid_name(name) || text == NULL) {
		errno = EINVAL;
		return -1;
	}
	norm = termsafe_dup(text);
	if (*norm != '\0' && paste_text(name, norm) == -1)
		goto out;
	/* Time to take the paste in, so that Enter is not part of it. */
	sleep_ms(TMUX_TYPE_GAP_MS);
	t = pane_target(name);
	if (run_cmd(NULL, TMUX_OUT_MAX, "send-keys", "-t", t, "Enter", NULL) ==
	    0)
		r = 0;
out:
	free(t);
	free(norm);
	return r;
}

int
tmux_wait_ready(const char *name, const char *pattern, const char *marker_path,
    int timeout_s, struct buf *out)
{
	struct buf screen, last;
	time_t mtime;
	long waited;
	int r = TMUX_NOT_READY;

	if (!tmux_valid_name(name)) {
		errno = EINVAL;
		return -1;
	}
	buf_init(&screen, 0);
	buf_init(&last, 0);
	for (waited = 0;; waited += TMUX_READY_POLL_MS) {
		if (marker_path != NULL &&
		    file_mtime(marker_path, &mtime) == 0) {
			r = 0;
			break;
		}
		buf_reset(&screen);
		if (capture_screen(name, &screen) == -1) {
			r = -1;
			break;
		}
		buf_reset(&last);
		buf_append(&last, buf_str(&screen), screen.len);
		if (screen_input_box(buf_str(&screen), pattern)) {
			r = 0;
			break;
		}
		if (screen_dialog(buf_str(&screen)) != SCREEN_NO_DIALOG) {
			if (out != NULL)
				buf_append(out, buf_str(&screen), screen.len);
			r = TMUX_DIALOG;
			break;
		}
		if (waited >= (long)timeout_s * 1000)
			break;
		sleep_ms(TMUX_READY_POLL_MS);
	}
	/* Gone or never ready: what it showed last says why. */
	if ((r == -1 || r == TMUX_NOT_READY) && out != NULL)
		buf_append(out, buf_str(&last), last.len);
	buf_free(&last);
	buf_free(&screen);
	return r;
}
