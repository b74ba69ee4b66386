/*
 * Worktrees, through git first: git must not keep a record of a worktree
 * that is gone, nor be asked to make one where a stale one stands.
 */
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "file.h"
#include "git.h"
#include "worktree.h"
#include "xmalloc.h"

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
