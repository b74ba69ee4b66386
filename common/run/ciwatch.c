/*
 * A CI watcher's lock and record (ciwatch.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "ciwatch.h"
#include "file.h"
#include "lock.h"
#include "record.h"
#include "runfiles.h"

/* A lock file holds its holder's PID and a newline. */
#define CIWATCH_PID_MAX 64

static long long ciwatch_holder(const char *);
static void ciwatch_parse(const char *, struct ciwatch *);

/* The PID the lock file at path names, or 0. */
static long long
ciwatch_holder(const char *path)
{
	struct buf b;
	long long pid = 0;
	char *end;

	buf_init(&b, 0);
	if (file_read(path, CIWATCH_PID_MAX, &b) == 0) {
		pid = strtoll(buf_str(&b), &end, 10);
		if (end == buf_str(&b) || (*end != '\n' && *end != '\0') ||
		    pid <= 0)
			pid = 0;
	}
	buf_free(&b);
	return pid;
}

/* The record's text into *w; w->pid 0 when it is not whole. */
static void
ciwatch_parse(const char *text, struct ciwatch *w)
{
	long long since = 0;

	if (record_get_ll(text, "PID:", &w->pid) == -1 ||
	    record_get_ll(text, "PR:", &w->pr) == -1 ||
	    record_get(text, "SHA:", w->sha, sizeof(w->sha)) == -1 ||
	    record_get_ll(text, "SINCE:", &since) == -1) {
		memset(w, 0, sizeof(*w));
		return;
	}
	w->since = (time_t)since;
}

int
ciwatch_find(const char *project, long long issue, struct ciwatch *w)
{
	char *lock = runfiles_ci_watch_lock(project, issue);
	char *path = runfiles_ci_watch(project, issue);
	struct buf b;
	int r;

	memset(w, 0, sizeof(*w));
	buf_init(&b, 0);
	if ((r = lock_held(lock)) != 1)
		goto out;
	if (record_load(path, &b) == 0)
		ciwatch_parse(buf_str(&b), w);
	/* A record left by a holder that died is not the new holder's. */
	if (w->pid != ciwatch_holder(lock))
		memset(w, 0, sizeof(*w));
out:
	buf_free(&b);
	free(path);
	free(lock);
	return r;
}

int
ciwatch_is(const struct ciwatch *w, long long pr, const char *sha)
{
	return w->pid != 0 && w->pr == pr && sha != NULL &&
	    strcmp(w->sha, sha) == 0;
}

int
ciwatch_take(const char *project, long long issue, int wait_s, int *fd)
{
	char *lock = runfiles_ci_watch_lock(project, issue);
	int r, saved;

	r = wait_s > 0 ? lock_wait(lock, fd, wait_s) : lock_take(lock, fd);
	saved = errno;
	free(lock);
	errno = saved;
	return r;
}

int
ciwatch_note(const char *project, long long issue, long long pr,
    const char *sha, time_t now)
{
	char *path = runfiles_ci_watch(project, issue);
	struct buf b;
	int r, saved;

	buf_init(&b, 0);
	buf_printf(&b, "PID: %ld\nPR: %lld\nSHA: %.*s\nSINCE: %lld\n",
	    (long)getpid(), pr, CIWATCH_SHA_MAX, sha, (long long)now);
	r = file_write_atomic(path, buf_str(&b), b.len, 0644, 0);
	saved = errno;
	buf_free(&b);
	free(path);
	errno = saved;
	return r;
}

void
ciwatch_release(const char *project, long long issue, int fd)
{
	char *lock = runfiles_ci_watch_lock(project, issue);
	char *path = runfiles_ci_watch(project, issue);

	if (fd != -1)
		(void)file_remove(path);
	lock_release_remove(lock, fd);
	free(path);
	free(lock);
}
