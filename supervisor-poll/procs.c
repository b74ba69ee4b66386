/*
 * Processes, read from the configured proc directory (DISINTO_PROC_DIR,
 * /proc by default): the one-shot agent runs of this user, and whether
 * any process works inside a directory.  Nothing else on the host is
 * looked at.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "file.h"
#include "strv.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define CMDLINE_MAX (64 * 1024)
/* The one-shot command is known by its first words ("claude -p"). */
#define ONESHOT_WORDS 2

static int procs_is_pid(const char *);
static const char *procs_base(const char *);
static int procs_cmdline_matches(const char *, const char *, char **, size_t);
static int procs_start_age(const char *, const char *, double, long long *);
static int procs_read_uptime(const char *, double *);
static int procs_owned(const char *, const char *);

static int
procs_is_pid(const char *name)
{
	if (*name == '\0')
		return 0;
	for (; *name != '\0'; name++)
		if (!isdigit((unsigned char)*name))
			return 0;
	return 1;
}

static const char *
procs_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* 1 when the process's own user is ours. */
static int
procs_owned(const char *proc, const char *pid)
{
	char *path = xasprintf("%s/%s", proc, pid);
	struct stat st;
	int r = stat(path, &st) == 0 && st.st_uid == getuid();

	free(path);
	return r;
}

/*
 * 1 when the command line of pid starts with words: the program's base
 * name first, then the other words exactly.  An interpreter in front
 * ("node /usr/bin/claude -p ...") is allowed.
 */
static int
procs_cmdline_matches(const char *proc, const char *pid, char **words,
    size_t nw)
{
	char *path = xasprintf("%s/%s/cmdline", proc, pid);
	char *argv[ONESHOT_WORDS + 1];
	struct buf b;
	const char *p, *end;
	size_t argc = 0, start, k;
	int hit = 0;

	buf_init(&b, 0);
	if (file_read(path, CMDLINE_MAX, &b) == -1 || b.len == 0)
		goto out;
	for (p = b.data, end = b.data + b.len; p < end && argc < nw + 1;
	     p += strlen(p) + 1)
		argv[argc++] = (char *)p;
	for (start = 0; start < 2 && !hit; start++) {
		if (start + nw > argc ||
		    strcmp(procs_base(argv[start]), procs_base(words[0])) != 0)
			continue;
		for (k = 1; k < nw && strcmp(argv[start + k], words[k]) == 0;
		     k++)
			;
		hit = k == nw;
	}
out:
	buf_free(&b);
	free(path);
	return hit;
}

static int
procs_read_uptime(const char *proc, double *up)
{
	char *path = xasprintf("%s/uptime", proc);
	struct buf b;
	int r = -1;

	buf_init(&b, 0);
	if (file_read(path, 256, &b) == 0 &&
	    sscanf(buf_str(&b), "%lf", up) == 1)
		r = 0;
	buf_free(&b);
	free(path);
	return r;
}

/* Seconds since pid started (field 22 of its stat file) in *age. */
static int
procs_start_age(const char *proc, const char *pid, double uptime,
    long long *age)
{
	char *path = xasprintf("%s/%s/stat", proc, pid);
	const char *p;
	struct buf b;
	unsigned long long start;
	long tck = sysconf(_SC_CLK_TCK);
	int field, r = -1;

	buf_init(&b, 0);
	if (file_read(path, 4096, &b) == -1 ||
	    (p = strrchr(buf_str(&b), ')')) == NULL)
		goto out;
	/* Skip fields 3 (state) to 21 after "pid (comm)"; 22 is the start. */
	for (field = 3, p++; field < 22 && *p != '\0'; field++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	if (sscanf(p, " %llu", &start) != 1 || tck <= 0)
		goto out;
	*age = (long long)(uptime - (double)start / (double)tck);
	r = 0;
out:
	buf_free(&b);
	free(path);
	return r;
}

int
procs_agents(const struct config *c, struct proc_hit **out, size_t *n)
{
	char **words = strv_split(c->supervisor_fix_cmd, NULL);
	size_t nw = strv_len(words);
	struct dirent *de;
	double uptime;
	DIR *d = NULL;
	int r = -1;

	*out = NULL;
	*n = 0;
	if (nw > ONESHOT_WORDS)
		nw = ONESHOT_WORDS;
	if (nw == 0) {
		r = 0;
		goto out;
	}
	if (procs_read_uptime(c->proc_dir, &uptime) == -1 ||
	    (d = opendir(c->proc_dir)) == NULL)
		goto out;
	while ((de = readdir(d)) != NULL) {
		long long age;
		pid_t pid;

		if (!procs_is_pid(de->d_name))
			continue;
		pid = (pid_t)strtol(de->d_name, NULL, 10);
		if (pid <= 1 || pid == getpid() || pid == getppid() ||
		    !procs_owned(c->proc_dir, de->d_name) ||
		    !procs_cmdline_matches(c->proc_dir, de->d_name, words,
			nw) ||
		    procs_start_age(c->proc_dir, de->d_name, uptime, &age) ==
			-1)
			continue;
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		(*out)[*n].pid = pid;
		(*out)[*n].age = age;
		(*n)++;
	}
	r = 0;
out:
	if (d != NULL)
		closedir(d);
	strv_free(words);
	return r;
}

int
procs_cwd_under(const struct config *c, const char *dir)
{
	char real[PATH_MAX], cwd[PATH_MAX];
	struct dirent *de;
	DIR *d;
	size_t len;
	int hit = 0;

	if (realpath(dir, real) == NULL)
		snprintf(real, sizeof(real), "%s", dir);
	len = strlen(real);
	if ((d = opendir(c->proc_dir)) == NULL)
		return -1;
	while (!hit && (de = readdir(d)) != NULL) {
		char *link;
		ssize_t n;

		if (!procs_is_pid(de->d_name))
			continue;
		link = xasprintf("%s/%s/cwd", c->proc_dir, de->d_name);
		n = readlink(link, cwd, sizeof(cwd) - 1);
		free(link);
		if (n <= 0)
			continue;
		cwd[n] = '\0';
		hit = (strncmp(cwd, real, len) == 0 &&
			  (cwd[len] == '/' || cwd[len] == '\0')) ||
		    strcmp(cwd, dir) == 0;
	}
	closedir(d);
	return hit;
}
