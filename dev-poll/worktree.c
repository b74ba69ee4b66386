/*
 * The worktree of a dev session, P-worktree-N in the run directory: fresh
 * from the primary branch on branch fix/issue-N, or, in recovery mode, on
 * the branch of the open PR (an existing worktree already on that
 * branch is kept, with whatever the previous session left in it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "xmalloc.h"

static void repo_tidy(struct dev_ctx *);
static int on_branch(struct dev_ctx *, const char *, const char *);
static int worktree_add(struct dev_ctx *, const char *, const char *,
    const char *, const char *);

/* Abort a stale rebase in repo_root and put it back on the primary branch. */
static void
repo_tidy(struct dev_ctx *c)
{
	const char *root = c->cfg->project_repo_root;
	const char *primary = c->cfg->primary_branch;
	char *a = xasprintf("%s/.git/rebase-merge", root);
	char *b = xasprintf("%s/.git/rebase-apply", root), *cur;

	if (file_exists(a) || file_exists(b)) {
		log_msg("WARNING: stale rebase detected in main repo — "
			"aborting");
		(void)dp_git_change(c, root, "rebase", "--abort", NULL);
	}
	cur = dp_git_line(c, root, "rev-parse", "--abbrev-ref", "HEAD", NULL);
	if (cur != NULL && strcmp(cur, primary) != 0) {
		log_msg("WARNING: main repo on '%s' instead of %s — switching",
		    cur, primary);
		(void)dp_git_change(c, root, "checkout", primary, NULL);
	}
	free(cur);
	free(b);
	free(a);
}

/* Whether the worktree at wt exists and has branch checked out. */
static int
on_branch(struct dev_ctx *c, const char *wt, const char *branch)
{
	char *git = xasprintf("%s/.git", wt), *cur = NULL;
	int r = 0;

	if (file_exists(git)) {
		cur = dp_git_line(c, wt, "rev-parse", "--abbrev-ref", "HEAD",
		    NULL);
		r = cur != NULL && strcmp(cur, branch) == 0;
	}
	free(cur);
	free(git);
	return r;
}

int
dp_worktree_remove(struct dev_ctx *c, const char *wt)
{
	const char *root = c->cfg->project_repo_root;
	char *git = xasprintf("%s/.git", wt);
	int r = 0;

	if (file_exists(git))
		(void)dp_git_change(c, root, "worktree", "remove", "--force",
		    wt, NULL);
	if (dp_remove_tree(c, wt) == -1)
		r = -1;
	(void)dp_git_change(c, root, "worktree", "prune", NULL);
	free(git);
	return r;
}

/*
 * (Re)create worktree wt on branch at ref, with its submodules.  what
 * ends the error message.  0 or -1.
 */
static int
worktree_add(struct dev_ctx *c, const char *wt, const char *branch,
    const char *ref, const char *what)
{
	const char *root = c->cfg->project_repo_root;

	if (dp_worktree_remove(c, wt) == -1)
		return -1;
	if (dp_git_change(c, root, "worktree", "add", "-B", branch, wt, ref,
		NULL) != 0) {
		log_msg("ERROR: worktree creation failed%s", what);
		return -1;
	}
	(void)dp_git_change(c, wt, "submodule", "update", "--init",
	    "--recursive", NULL);
	return 0;
}

int
dp_worktree_fresh(struct dev_ctx *c, const char *remote, const char *wt,
    const char *branch)
{
	const char *root = c->cfg->project_repo_root;
	const char *primary = c->cfg->primary_branch;
	char *ref = xasprintf("%s/%s", remote, primary);
	int r = -1;

	repo_tidy(c);
	if (dp_git_change(c, root, "fetch", remote, primary, NULL) != 0)
		goto out;
	(void)dp_git_change(c, root, "pull", "--ff-only", remote, primary,
	    NULL);
	r = worktree_add(c, wt, branch, ref, "");
out:
	free(ref);
	return r;
}

int
dp_worktree_recover(struct dev_ctx *c, const char *remote, const char *wt,
    const char *branch)
{
	const char *root = c->cfg->project_repo_root;
	char *ref = xasprintf("%s/%s", remote, branch);
	int r = -1;

	if (dp_git_change(c, root, "fetch", remote, branch, NULL) != 0)
		goto out;
	if (on_branch(c, wt, branch)) {
		log_msg("reusing existing worktree (preserves session)");
		if (dp_git_change(c, wt, "pull", "--ff-only", remote, branch,
			NULL) != 0)
			(void)dp_git_change(c, wt, "reset", "--hard", ref,
			    NULL);
		r = 0;
		goto out;
	}
	r = worktree_add(c, wt, branch, ref, " for recovery");
out:
	free(ref);
	return r;
}
