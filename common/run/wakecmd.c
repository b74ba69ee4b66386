/*
 * The command line that wakes a tool (wakecmd.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "spawn.h"
#include "strv.h"
#include "wakecmd.h"
#include "xmalloc.h"

static void wakecmd_push(char ***, size_t *, const char *);

static void
wakecmd_push(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

char **
wakecmd_argv(const char *exe, const char *run_dir, const char *project,
    const char *reason)
{
	int has_reason = reason != NULL && *reason != '\0';
	char **v = NULL;
	size_t n = 0;

	wakecmd_push(&v, &n, exe);
	wakecmd_push(&v, &n, "--wake");
	if (run_dir != NULL) {
		wakecmd_push(&v, &n, "--run-dir");
		wakecmd_push(&v, &n, run_dir);
	}
	/* The environment's project: no operand, so no reason either. */
	if (project != NULL && *project == '\0')
		return v;
	if (project == NULL && !has_reason)
		return v;
	wakecmd_push(&v, &n, "--");
	if (project != NULL)
		wakecmd_push(&v, &n, project);
	if (has_reason)
		wakecmd_push(&v, &n, reason);
	return v;
}

int
wakecmd_spawn(const char *exe, const char *run_dir, const char *project,
    const char *reason)
{
	char **argv;
	int r, saved;

	if (exe == NULL || *exe == '\0') {
		errno = EINVAL;
		return -1;
	}
	argv = wakecmd_argv(exe, run_dir, project, reason);
	r = spawn_detached(argv, NULL, NULL, NULL);
	saved = errno;
	strv_free(argv);
	errno = saved;
	return r;
}
