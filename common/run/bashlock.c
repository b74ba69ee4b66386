/*
 * Upstream's bash PID files, and whether the script they name still runs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bashlock.h"
#include "buf.h"
#include "file.h"
#include "lock.h"
#include "xmalloc.h"

/* A command line read whole: the kernel's page of arguments. */
#define BASHLOCK_CMDLINE_MAX 65536

static int bashlock_is_script(const char *, const char *);
static long long bashlock_number(const char *);
static int bashlock_cmdline(const char *, pid_t, const char *, long long *);

/* 1 when word is the script, or a path to it. */
static int
bashlock_is_script(const char *word, const char *script)
{
	const char *base = strrchr(word, '/');

	return strcmp(base != NULL ? base + 1 : word, script) == 0;
}

/* A positive decimal number, or 0. */
static long long
bashlock_number(const char *s)
{
	char *end;
	long long n;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	n = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0' && n > 0 ? n : 0;
}

/*
 * 1 when pid's command line names script (*number: the word after it, 0
 * when that is not a number), 0 when it does not or cannot be read.
 */
static int
bashlock_cmdline(const char *proc_dir, pid_t pid, const char *script,
    long long *number)
{
	char *path = xasprintf("%s/%ld/cmdline", proc_dir, (long)pid);
	struct buf b;
	const char *p, *end;
	int found = 0;

	*number = 0;
	buf_init(&b, BASHLOCK_CMDLINE_MAX);
	if (file_read(path, BASHLOCK_CMDLINE_MAX, &b) == -1)
		goto out;
	p = b.data != NULL ? b.data : "";
	end = p + b.len;
	for (; p < end; p += strlen(p) + 1) {
		if (!bashlock_is_script(p, script))
			continue;
		found = 1;
		p += strlen(p) + 1;
		if (p < end)
			*number = bashlock_number(p);
		break;
	}
out:
	buf_free(&b);
	free(path);
	return found;
}

int
bashlock_read(const char *path, const char *script, const char *proc_dir,
    struct bashlock *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = lock_pid_alive(path, &out->pid)) == -1)
		return -1;
	if (r == 0)
		out->state = out->pid > 0 ? BASHLOCK_DEAD : BASHLOCK_NONE;
	else if (bashlock_cmdline(proc_dir, out->pid, script, &out->number))
		out->state = BASHLOCK_HELD;
	return 0;
}
