/*
 * The tools as one of them sees the others: see tools.h.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act.h"
#include "agent_exec.h"
#include "config.h"
#include "log.h"
#include "runfiles.h"
#include "tools.h"
#include "wake.h"
#include "wakecmd.h"
#include "xmalloc.h"

/*
 * The tools, and the factory's scripts whose places they take (make
 * install-factory: the executable beside its script, the script a
 * launcher of it; or, installed before, the script the executable).
 */
static const struct tools_row {
	const char *tool, *dir, *script;
	int per_project; /* its wake takes the project file */
} tools_table[] = {
    {"dev-poll", "dev", "dev-poll.sh", 1},
    {"review-poll", "review", "review-poll.sh", 1},
    /* It watches every project: `--wake` alone. */
    {"supervisor-poll", "supervisor", "supervisor-poll.sh", 0},
};

static const struct tools_row *tools_find(const char *);
static int tools_runnable(const char *);
static const char *tools_wake_project(const struct tools_row *,
    const struct config *);
static void tools_near(const char *, const char *, const struct tools_row *,
    char **, size_t *);

/* The table's row of tool, or NULL. */
static const struct tools_row *
tools_find(const char *tool)
{
	size_t i;

	for (i = 0; i < sizeof(tools_table) / sizeof(tools_table[0]); i++)
		if (strcmp(tools_table[i].tool, tool) == 0)
			return &tools_table[i];
	return NULL;
}

/* Whether path is an executable regular file. */
static int
tools_runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/*
 * The places tool may be, around the executable at exe: beside it
 * (installed in a bin directory, or both beside their scripts in a
 * factory), in the tree it was built in (dev-poll/dev-poll beside
 * review-poll/review-poll), beside the tool's script in the factory
 * above it, or that script.  Added to cand (*n of them).
 */
static void
tools_near(const char *exe, const char *tool, const struct tools_row *w,
    char **cand, size_t *n)
{
	const char *slash = exe != NULL ? strrchr(exe, '/') : NULL;
	int dir;

	if (slash == NULL)
		return;
	dir = (int)(slash - exe);
	cand[(*n)++] = xasprintf("%.*s/%s", dir, exe, tool);
	cand[(*n)++] = xasprintf("%.*s/../%s/%s", dir, exe, tool, tool);
	if (w == NULL)
		return;
	cand[(*n)++] = xasprintf("%.*s/../%s/%s", dir, exe, w->dir, tool);
	cand[(*n)++] = xasprintf("%.*s/../%s/%s", dir, exe, w->dir, w->script);
}

char *
tools_path(const char *exe, const struct config *cfg, const char *tool)
{
	const struct tools_row *w = tools_find(tool);
	char self[PATH_MAX], *cand[10], *found = NULL;
	size_t i, n = 0;

	tools_near(exe, tool, w, cand, &n);
	if (agent_exec_self(self, sizeof(self)) == 0)
		tools_near(self, tool, w, cand, &n);
	if (w != NULL && cfg->factory_root != NULL &&
	    *cfg->factory_root != '\0') {
		cand[n++] =
		    xasprintf("%s/%s/%s", cfg->factory_root, w->dir, tool);
		cand[n++] =
		    xasprintf("%s/%s/%s", cfg->factory_root, w->dir, w->script);
	}
	for (i = 0; i < n; i++) {
		if (found == NULL && tools_runnable(cand[i]))
			found = cand[i];
		else
			free(cand[i]);
	}
	return found != NULL ? found : xstrdup(tool);
}

/*
 * The project operand of w's wake: NULL for a tool of every project, ""
 * for the environment's project, else the project file.
 */
static const char *
tools_wake_project(const struct tools_row *w, const struct config *cfg)
{
	if (w != NULL && !w->per_project)
		return NULL;
	return cfg->project_toml != NULL ? cfg->project_toml : "";
}

int
tools_wake(const char *exe, const struct config *cfg, const char *tool,
    const char *reason, char **prog)
{
	const struct tools_row *w = tools_find(tool);
	char *path = tools_path(exe, cfg, tool);
	int r, saved;

	r = wakecmd_spawn(path, cfg->run_dir, tools_wake_project(w, cfg),
	    reason);
	saved = errno;
	if (prog != NULL)
		*prog = path;
	else
		free(path);
	errno = saved;
	return r;
}

int
tools_wake_other(struct act *a, const struct config *cfg, const char *tool,
    const char *reason)
{
	char *prog = NULL;
	int r = 0;

	if (!cfg->wake)
		return 0;
	if (a->dry_run) {
		log_msg("dry-run: would wake %s for %s (%s)", tool,
		    cfg->project_name, reason);
		return 0;
	}
	if (tools_wake(NULL, cfg, tool, reason, &prog) == -1) {
		log_warn("cannot wake %s for %s ('%s'): %s — its next "
			 "scheduled tick sees it",
		    tool, cfg->project_name, prog, strerror(errno));
		r = -1;
	} else
		log_msg("woke %s for %s: %s", tool, cfg->project_name, reason);
	free(prog);
	return r;
}

int
tools_wake_self(struct act *a, const struct config *cfg, const char *prog,
    const char *reason)
{
	const struct tools_row *w = tools_find(prog);
	char *path;
	int r;

	if (!cfg->wake || a->dry_run)
		return 0;
	path = runfiles_wake(prog,
	    w == NULL || w->per_project ? cfg->project_name : NULL);
	if ((r = wake_note(path, reason)) == -1)
		log_warn("cannot write '%s': %s — the next tick does it", path,
		    strerror(errno));
	else
		log_msg("%s: this tick runs once more", reason);
	free(path);
	return r;
}
