/*
 * The environment a tick runs with (tickenv.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "file.h"
#include "runfiles.h"
#include "tickenv.h"
#include "xmalloc.h"

extern char **environ;

static int tickenv_git_hooks(const char *);
static void tickenv_unset_if(
    int (*)(const struct config *, const char *, const struct buf *),
    const struct config *, const struct buf *);
static int tickenv_dropped(const struct config *, const char *,
    const struct buf *);
static int tickenv_git_name(const struct config *, const char *,
    const struct buf *);

int
tickenv_record(const char *path, const struct config *cfg)
{
	struct buf now, was;
	size_t i, n;
	char *name;
	int r = 0;

	buf_init(&now, 0);
	buf_init(&was, TICKENV_MAX);
	for (i = 0; environ[i] != NULL; i++) {
		n = strcspn(environ[i], "=");
		if (environ[i][n] != '=' || n == 0)
			continue;
		name = xstrndup(environ[i], n);
		if (config_env_setting(cfg, name))
			buf_append(&now, environ[i], strlen(environ[i]) + 1);
		free(name);
	}
	if (tickenv_load(path, &was) != 1 || was.len != now.len ||
	    (now.len > 0 && memcmp(was.data, now.data, now.len) != 0))
		r = file_write_atomic(path, now.data != NULL ? now.data : "",
		    now.len, 0600, 0);
	if (now.data != NULL)
		explicit_bzero(now.data, now.len);
	if (was.data != NULL)
		explicit_bzero(was.data, was.len);
	buf_free(&now);
	buf_free(&was);
	return r;
}

int
tickenv_load(const char *path, struct buf *rec)
{
	int fd, r;

	if ((fd = file_open_read(path)) == -1)
		return errno == ENOENT ? 0 : -1;
	r = file_read_private(fd, rec) == 0 ? 1 : -1;
	(void)close(fd);
	return r;
}

const char *
tickenv_get(const struct buf *rec, const char *name)
{
	const char *p = rec->data, *end = rec->data + rec->len;
	size_t len = strlen(name);

	while (p != NULL && p < end) {
		if (strncmp(p, name, len) == 0 && p[len] == '=')
			return p + len + 1;
		p += strlen(p) + 1;
	}
	return NULL;
}

/* A setting of cfg's, or a name rec records: the waker's value goes. */
static int
tickenv_dropped(const struct config *cfg, const char *name,
    const struct buf *rec)
{
	return config_env_setting(cfg, name) ||
	    (rec != NULL && tickenv_get(rec, name) != NULL);
}

/* Unset every variable of the environment that drop(cfg, NAME, rec) names. */
static void
tickenv_unset_if(
    int (*drop)(const struct config *, const char *, const struct buf *),
    const struct config *cfg, const struct buf *rec)
{
	char **names = NULL;
	size_t i, n = 0, len;

	/* Names first: unsetenv(3) changes environ under the loop. */
	for (i = 0; environ[i] != NULL; i++) {
		len = strcspn(environ[i], "=");
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n] = xstrndup(environ[i], len);
		if (drop(cfg, names[n], rec))
			n++;
		else
			free(names[n]);
	}
	for (i = 0; i < n; i++) {
		(void)unsetenv(names[i]);
		free(names[i]);
	}
	free(names);
}

void
tickenv_adopt(const struct config *cfg, const struct buf *rec)
{
	char *p = rec->data, *end = rec->data + rec->len, *eq;

	tickenv_unset_if(tickenv_dropped, cfg, rec);
	while (p != NULL && p < end) {
		if ((eq = strchr(p, '=')) != NULL && eq != p) {
			*eq = '\0';
			(void)setenv(p, eq + 1, 1);
			*eq = '=';
		}
		p += strlen(p) + 1;
	}
}

int
tickenv_run_dir_bad(const char *dir, char *why, size_t whysz)
{
	char real[PATH_MAX];
	struct stat st;
	int ours, tmp;

	if (dir[0] != '/') {
		snprintf(why, whysz, "--run-dir '%s': not an absolute path",
		    dir);
		return -1;
	}
	if (lstat(dir, &st) == -1 || realpath(dir, real) == NULL) {
		snprintf(why, whysz, "--run-dir '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	ours = st.st_uid == geteuid() && (st.st_mode & 022) == 0;
	tmp = st.st_uid == 0 && (st.st_mode & S_ISVTX) != 0;
	if (!S_ISDIR(st.st_mode))
		snprintf(why, whysz, "--run-dir '%s': %s", dir,
		    S_ISLNK(st.st_mode) ? "a symlink" : "not a directory");
	else if (!ours && !tmp)
		snprintf(why, whysz,
		    "--run-dir '%s': uid %lu's with mode %04o, not a run "
		    "directory of this user's (uid %lu) alone",
		    dir, (unsigned long)st.st_uid,
		    (unsigned)(st.st_mode & 07777), (unsigned long)geteuid());
	else if (runfiles_agent_area(real))
		snprintf(why, whysz,
		    "--run-dir '%s': a place where the agents write, not a "
		    "run directory",
		    dir);
	else
		return 0;
	return -1;
}

/* git's variables of a hook and of one repository, by name. */
static int
tickenv_git_hooks(const char *name)
{
	static const char *const exact[] = {"GIT_DIR", "GIT_WORK_TREE",
	    "GIT_INDEX_FILE", "GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY",
	    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_COMMON_DIR",
	    "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE",
	    "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE",
	    "GIT_INTERNAL_SUPER_PREFIX", "GIT_NAMESPACE", "GIT_REFLOG_ACTION",
	    "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", NULL};
	static const char *const prefix[] = {"GIT_PUSH_OPTION_",
	    "GIT_PUSH_CERT", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", NULL};
	size_t i;

	for (i = 0; exact[i] != NULL; i++)
		if (strcmp(name, exact[i]) == 0)
			return 1;
	for (i = 0; prefix[i] != NULL; i++)
		if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return 1;
	return 0;
}

/* tickenv_git_hooks() in the shape tickenv_unset_if() takes. */
static int
tickenv_git_name(const struct config *cfg, const char *name,
    const struct buf *rec)
{
	(void)cfg;
	(void)rec;
	return tickenv_git_hooks(name);
}

void
tickenv_scrub_git(void)
{
	tickenv_unset_if(tickenv_git_name, NULL, NULL);
}
