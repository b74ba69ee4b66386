/*
 * The markers protocol's files in the session directory: created fresh
 * per session, read with the limits of file.h, removed at cleanup.
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "buf.h"
#include "file.h"
#include "json.h"
#include "markers.h"
#include "runfiles.h"
#include "termsafe.h"
#include "xmalloc.h"

/* How often a wait looks for a marker. */
#define MARKERS_POLL_MS 50

static int markers_own_dir(const char *);
static int markers_mkdir(const char *);
static int markers_rm_entry(const char *, const struct stat *, int,
    struct FTW *);
static int markers_rmtree(const char *);
static void markers_copy(const cJSON *, const char *, char *, size_t);
static void markers_fill(const cJSON *, struct agent_progress *);
static void markers_sleep_ms(int);

/* 0 when path is a directory of this user (not a symlink), else -1. */
static int
markers_own_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		errno = S_ISDIR(st.st_mode) ? EPERM : ENOTDIR;
		return -1;
	}
	return 0;
}

/*
 * Create the directory path (0700) unless there is one, then make sure
 * it is a directory of this user: 0, or -1 with errno set.
 */
static int
markers_mkdir(const char *path)
{
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		return -1;
	return markers_own_dir(path);
}

/* nftw(3) callback: remove one entry, children before their directory. */
static int
markers_rm_entry(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) == -1 && errno != ENOENT ? -1 : 0;
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

/* Remove path and all under it; missing is fine.  0 or -1. */
static int
markers_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, markers_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
markers_prepare(const char *session)
{
	char *top = runfiles_sessions_dir(), *dir = NULL, *sub = NULL;
	int r = -1;

	/* The two levels under the run directory: ours, not planted. */
	*strrchr(top, '/') = '\0';
	if (markers_mkdir(top) == -1)
		goto out;
	top[strlen(top)] = '/';
	if (markers_mkdir(top) == -1)
		goto out;
	dir = runfiles_session_dir(session);
	sub = runfiles_session_file(session, RUNFILES_SESSION_MARKERS);
	/* Anything but a directory of ours at the name goes. */
	if (markers_own_dir(dir) == -1 && markers_rmtree(dir) == -1)
		goto out;
	if (markers_remove(session) == -1 || markers_mkdir(dir) == -1 ||
	    mkdir(sub, 0700) == -1)
		goto out;
	r = 0;
out:
	free(sub);
	free(dir);
	free(top);
	return r;
}

int
markers_remove(const char *session)
{
	static const char *const files[] = {RUNFILES_SESSION_MARKERS,
	    RUNFILES_SESSION_STATUS, RUNFILES_SESSION_PROMPT,
	    RUNFILES_SYSTEM_PROMPT, RUNFILES_CHAT_HISTORY, NULL};
	char *path;
	size_t i;
	int r = 0;

	for (i = 0; files[i] != NULL; i++) {
		path = runfiles_session_file(session, files[i]);
		if (markers_rmtree(path) == -1)
			r = -1;
		free(path);
	}
	/* The orchestrator's record of the injection awaiting its ack. */
	path = runfiles_session_delivery(session);
	if (markers_rmtree(path) == -1)
		r = -1;
	free(path);
	/* Nothing else left in it (no phase file): the directory goes. */
	path = runfiles_session_dir(session);
	(void)rmdir(path);
	free(path);
	return r;
}

int
markers_has(const char *session, const char *name)
{
	char *path = runfiles_session_file(session, name);
	time_t t;
	int r = file_mtime(path, &t) == 0;

	free(path);
	return r;
}

int
markers_clear(const char *session, const char *name)
{
	char *path = runfiles_session_file(session, name);
	int r = file_remove(path);

	free(path);
	return r;
}

static void
markers_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

int
markers_wait(const char *session, const char *name, int timeout_ms,
    int (*alive)(const char *))
{
	int waited;

	for (waited = 0;; waited += MARKERS_POLL_MS) {
		if (markers_has(session, name))
			return 1;
		if (waited >= timeout_ms)
			return 0;
		/* Every second: a session that ended sends nothing more. */
		if (alive != NULL && waited % 1000 == 0 && waited > 0 &&
		    alive(session) == 0)
			return markers_has(session, name);
		markers_sleep_ms(MARKERS_POLL_MS);
	}
}

int
markers_write(const char *session, const char *name, const char *text)
{
	char *path = runfiles_session_file(session, name);
	int r = file_write_atomic(path, text, strlen(text), 0600, 0);

	free(path);
	return r;
}

/* obj[key], a string, made printable into out (cut to fit). */
static void
markers_copy(const cJSON *obj, const char *key, char *out, size_t outsz)
{
	const char *s = json_str(obj, key);
	struct buf b;

	if (s == NULL)
		return;
	buf_init(&b, 0);
	termsafe_line(s, strlen(s), outsz - 1, &b);
	snprintf(out, outsz, "%s", buf_str(&b));
	buf_free(&b);
}

/* The fields of status.json that have their types. */
static void
markers_fill(const cJSON *o, struct agent_progress *out)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "progress");
	time_t t;

	markers_copy(o, "state", out->state, sizeof(out->state));
	markers_copy(o, "message", out->message, sizeof(out->message));
	markers_copy(o, "phase", out->phase, sizeof(out->phase));
	if (cJSON_IsNumber(p) && p->valuedouble >= 0 && p->valuedouble <= 100)
		out->progress = (int)p->valuedouble;
	if (json_time(o, "updated_at", &t) == 0)
		out->updated_at = t;
}

int
markers_status(const char *session, struct agent_progress *out)
{
	char *path = runfiles_session_file(session, RUNFILES_SESSION_STATUS);
	char err[128];
	cJSON *o = NULL;
	struct buf b;
	int r = -1, rd;

	memset(out, 0, sizeof(*out));
	out->progress = -1;
	buf_init(&b, 0);
	if ((rd = file_read(path, MARKERS_STATUS_MAX, &b)) == -1 &&
	    errno == ENOENT)
		r = 1;
	if (rd != 0)
		goto out;
	o = json_parse(buf_str(&b), b.len, err, sizeof(err));
	if (!cJSON_IsObject(o))
		goto out;
	markers_fill(o, out);
	r = 0;
out:
	cJSON_Delete(o);
	buf_free(&b);
	free(path);
	return r;
}

unsigned long long
markers_hash(const char *text)
{
	unsigned long long h = 14695981039346656037ULL;

	for (; *text != '\0'; text++) {
		h ^= (unsigned char)*text;
		h *= 1099511628211ULL;
	}
	return h;
}

int
markers_delivery_read(const char *session, struct markers_delivery *out)
{
	char *path = runfiles_session_delivery(session);
	long long at;
	struct buf b;
	int r = -1, rd;

	memset(out, 0, sizeof(*out));
	buf_init(&b, 0);
	if ((rd = file_read(path, 512, &b)) == -1 && errno == ENOENT)
		r = 1;
	else if (rd == 0 &&
	    sscanf(buf_str(&b), "HASH: %llx\nSENT: %d\nACKED: %d\nAT: %lld",
		&out->hash, &out->sent, &out->acked, &at) == 4 &&
	    out->sent >= 0 && at >= 0) {
		out->at = (time_t)at;
		r = 0;
	}
	buf_free(&b);
	free(path);
	return r;
}

int
markers_delivery_write(const char *session, const struct markers_delivery *d)
{
	char *path = runfiles_session_delivery(session);
	char *text = xasprintf("HASH: %016llx\nSENT: %d\nACKED: %d\nAT: %lld\n",
	    d->hash, d->sent, d->acked, (long long)d->at);
	int r = file_write_atomic(path, text, strlen(text), 0600, 1);

	free(text);
	free(path);
	return r;
}
