/*
 * The factory's checkout, pulled at a launch (factory_pull.h).
 */
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "factory_pull.h"
#include "file.h"
#include "git.h"
#include "log.h"
#include "xmalloc.h"

/* The install filter's attribute line ends so (Makefile, FACTORY_SH). */
#define FACTORY_PULL_FILTER " filter=disinto-c"

static int factory_pull_done;

/* The files make install-factory replaced ("/path filter=disinto-c"). */
static char **
factory_pull_replaced(const char *root, size_t *n)
{
	char *path = git_common_path(root, "info/attributes"), **v = NULL;
	const char *p, *nl;
	size_t flen = strlen(FACTORY_PULL_FILTER), len;
	struct buf b;

	*n = 0;
	buf_init(&b, 0);
	if (path == NULL || file_read(path, 1 << 20, &b) == -1)
		goto out;
	for (p = buf_str(&b); *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		len = (size_t)(nl - p);
		if (*p != '/' || len <= flen + 1 ||
		    strncmp(nl - flen, FACTORY_PULL_FILTER, flen) != 0)
			continue;
		v = xreallocarray(v, *n + 2, sizeof(*v));
		v[(*n)++] = xstrndup(p + 1, len - flen - 1);
		v[*n] = NULL;
	}
out:
	buf_free(&b);
	free(path);
	return v;
}

/* Whether the fetched commits change one of the n replaced files. */
static int
factory_pull_touches(const char *root, char **files, size_t n, char *first,
    size_t firstsz)
{
	const char **args = xcalloc(n + 6, sizeof(*args));
	char *line;
	size_t i, k = 0;

	args[k++] = "diff";
	args[k++] = "--name-only";
	args[k++] = "HEAD";
	args[k++] = "FETCH_HEAD";
	args[k++] = "--";
	for (i = 0; i < n; i++)
		args[k++] = files[i];
	args[k] = NULL;
	line = n > 0 ? git_line(root, args, NULL) : NULL;
	free(args);
	if (line == NULL)
		return 0;
	snprintf(first, firstsz, "%s", line);
	free(line);
	return 1;
}

/* The pull's checks and steps: 1 moved, 0 not (said why). */
static int
factory_pull_now(const char *root)
{
	static const char *const top[] = {"rev-parse", "--show-toplevel", NULL};
	static const char *const dirty[] = {"status", "--porcelain",
	    "--untracked-files=no", NULL};
	static const char *const fetch[] = {"fetch", "-q", FACTORY_PULL_REMOTE,
	    FACTORY_PULL_BRANCH, NULL};
	static const char *const head[] = {"rev-parse", "HEAD", NULL};
	static const char *const fetched[] = {"rev-parse", "FETCH_HEAD", NULL};
	static const char *const ff[] = {"merge", "-q", "--ff-only",
	    "FETCH_HEAD", NULL};
	char *t = git_line(root, top, NULL), *d = NULL, *h = NULL, *f = NULL;
	char **files = NULL, first[512], line[256];
	size_t n = 0, i;
	struct buf out;
	int r = 0, st;

	buf_init(&out, 1 << 16);
	if (t == NULL)
		goto out; /* not a git checkout: nothing to pull */
	d = git_line(root, dirty, &st);
	if ((d != NULL && *d != '\0') || (d == NULL && st != 0)) {
		log_msg("factory %s: not pulled: %s", root,
		    d == NULL ? "git status failed" :
				"it has local changes (commit or stash them)");
		goto out;
	}
	if ((st = git_run(root, fetch, &out)) != 0) {
		log_msg("factory %s: not pulled: 'git fetch %s %s' failed: %s",
		    root, FACTORY_PULL_REMOTE, FACTORY_PULL_BRANCH,
		    git_last_line(buf_str(&out), line, sizeof(line)));
		goto out;
	}
	if ((h = git_line(root, head, NULL)) == NULL ||
	    (f = git_line(root, fetched, NULL)) == NULL || strcmp(h, f) == 0)
		goto out;
	files = factory_pull_replaced(root, &n);
	if (factory_pull_touches(root, files, n, first, sizeof(first))) {
		log_msg("factory %s: not pulled: %s/%s changes '%s', which "
			"the executables replaced (pull by hand, then run "
			"make install-factory)",
		    root, FACTORY_PULL_REMOTE, FACTORY_PULL_BRANCH, first);
		goto out;
	}
	buf_reset(&out);
	if ((st = git_run(root, ff, &out)) != 0) {
		log_msg("factory %s: not pulled: no fast-forward to %s/%s: %s",
		    root, FACTORY_PULL_REMOTE, FACTORY_PULL_BRANCH,
		    git_last_line(buf_str(&out), line, sizeof(line)));
		goto out;
	}
	log_msg("factory %s: pulled %.12s..%.12s", root, h, f);
	r = 1;
out:
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	buf_free(&out);
	free(f);
	free(h);
	free(d);
	free(t);
	return r;
}

int
factory_pull(struct act *a, const char *root)
{
	if (factory_pull_done || root == NULL || *root == '\0')
		return 0;
	factory_pull_done = 1;
	if (a->dry_run) {
		log_msg("dry-run: would pull the factory %s (fast-forward from "
			"%s/%s)",
		    root, FACTORY_PULL_REMOTE, FACTORY_PULL_BRANCH);
		return 0;
	}
	return factory_pull_now(root);
}
