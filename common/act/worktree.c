/*
 * Worktrees, through git first: git must not keep a record of a worktree
 * that is gone, nor be asked to make one where a stale one stands.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "convdir.h"
#include "file.h"
#include "git.h"
#include "worktree.h"
#include "xmalloc.h"

static int worktree_is_dir(const char *);

int
worktree_remove(struct act *a, const char *repo, const char *path)
{
	const char *rm[] = {"worktree", "remove", "--force", path, NULL};
	static const char *const prune[] = {"worktree", "prune", NULL};
	char *git = xasprintf("%s/.git", path);
	int r = 0;

	/* Not a registered worktree (any more): the files still go. */
	if (file_exists(git))
		(void)act_git(a, repo, rm);
	if (act_remove_tree(a, path) == -1)
		r = -1;
	(void)act_git(a, repo, prune);
	free(git);
	return r;
}

/* Whether path is a directory itself, not a link to one. */
static int
worktree_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
worktree_forget_agent(struct act *a, const char *home, const char *path)
{
	char real[PATH_MAX], *dir, *claude, *projects;
	int r = 0;

	/* The CLI names it after its working directory, links resolved. */
	if (realpath(path, real) == NULL)
		snprintf(real, sizeof(real), "%s", path);
	if ((dir = convdir_path(home, real)) == NULL)
		return 0;
	claude = xasprintf("%s/.claude", home);
	projects = xasprintf("%s/projects", claude);
	if (worktree_is_dir(claude) && worktree_is_dir(projects) &&
	    worktree_is_dir(dir))
		r = act_remove_tree(a, dir);
	free(projects);
	free(claude);
	free(dir);
	return r;
}

int
worktree_remove_for_good(struct act *a, const char *repo, const char *path,
    const char *home)
{
	int r = worktree_forget_agent(a, home, path);

	if (worktree_remove(a, repo, path) == -1)
		r = -1;
	return r;
}

int
worktree_add(struct act *a, const char *repo, const char *path,
    const char *branch, const char *ref)
{
	const char *add[] = {"worktree", "add", "-B", branch, path, ref, NULL};
	static const char *const sub[] = {"submodule", "update", "--init",
	    "--recursive", NULL};

	if (worktree_remove(a, repo, path) == -1 || act_git(a, repo, add) != 0)
		return -1;
	(void)act_git(a, path, sub);
	return 0;
}

int
worktree_add_detached(struct act *a, const char *repo, const char *path,
    const char *sha)
{
	const char *add[] = {"worktree", "add", "-q", "--detach", path, sha,
	    NULL};

	if (worktree_remove(a, repo, path) == -1)
		return -1;
	return act_git(a, repo, add);
}

int
worktree_on_branch(const char *path, const char *branch)
{
	static const char *const head[] = {"rev-parse", "--abbrev-ref", "HEAD",
	    NULL};
	char *git = xasprintf("%s/.git", path), *cur = NULL;
	int r = 0;

	if (file_exists(git)) {
		cur = git_line(path, head, NULL);
		r = cur != NULL && strcmp(cur, branch) == 0;
	}
	free(cur);
	free(git);
	return r;
}

/* Whether pattern is a line of the file at path already: 1, 0 or -1. */
static int
worktree_excluded(const char *path, const char *pattern)
{
	struct buf b;
	const char *p;
	size_t n = strlen(pattern);
	int r = 0;

	buf_init(&b, 0);
	if (file_read(path, 1 << 20, &b) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	for (p = buf_str(&b); p != NULL && *p != '\0';
	     p = strchr(p, '\n') != NULL ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, pattern, n) == 0 &&
		    (p[n] == '\n' || p[n] == '\0'))
			r = 1;
out:
	buf_free(&b);
	return r;
}

int
worktree_exclude(struct act *a, const char *path, const char *rel)
{
	const char *tracked[] = {"ls-files", "--error-unmatch", "--", rel,
	    NULL};
	const char *skip[] = {"update-index", "--skip-worktree", "--", rel,
	    NULL};
	char *file = git_common_path(path, "info/exclude"), *pattern = NULL,
	     *line;
	int r = -1;

	if (file == NULL)
		goto out;
	pattern = xasprintf("/%s", rel);
	if ((r = worktree_excluded(file, pattern)) == 0)
		r = act_append(a, file, pattern);
	if (r == -1)
		goto out;
	r = 0;
	/* A file of the project's own: its index entry ignores our copy. */
	if ((line = git_line(path, tracked, NULL)) != NULL) {
		free(line);
		r = act_git(a, path, skip) == 0 ? 0 : -1;
	}
out:
	free(pattern);
	free(file);
	return r;
}
