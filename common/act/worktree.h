/*
 * Git worktrees of a clone (the dev sessions' P-worktree-N, the reviews'
 * P-review-R): made through git, removed through git and then by hand,
 * every step through the effect layer.
 */
#ifndef WORKTREE_H
#define WORKTREE_H

struct act;

/*
 * Remove the worktree at path of the clone repo: "git worktree remove
 * --force" while git knows it, whatever is left of the files (never
 * following a link), then "git worktree prune" so git forgets a worktree
 * removed by hand too.  0, or -1 when the files could not be removed.
 */
int worktree_remove(struct act *, const char *repo, const char *path);
/*
 * A session in the worktree at path ended for good: its agent CLI's
 * conversations there (convdir.h) go, under home/.claude/projects only:
 * nothing when home is unset, when home/.claude or its projects is no
 * directory of its own (a link is not followed), or when the
 * conversation's directory is a link or no directory.  Never for a
 * session whose conversation is to be resumed.  0, or -1 when it could
 * not be removed.
 */
int worktree_forget_agent(struct act *, const char *home, const char *path);
/*
 * worktree_forget_agent(), then worktree_remove(): the worktree of a
 * session that ended for good.  0 or -1.
 */
int worktree_remove_for_good(struct act *, const char *repo, const char *path,
    const char *home);
/*
 * A fresh worktree at path (replacing one there) on branch, reset to ref
 * ("git worktree add -B"), with its submodules.  0 or -1.
 */
int worktree_add(struct act *, const char *repo, const char *path,
    const char *branch, const char *ref);
/* A fresh worktree at path with sha checked out, detached.  0 or -1. */
int worktree_add_detached(struct act *, const char *repo, const char *path,
    const char *sha);
/*
 * Keep the file rel (relative to the worktree at path, one the tools put
 * there, such as the agent's .claude/settings.json) out of what is
 * committed there: "/rel" in the clone's info/exclude (git reads that
 * file from the clone's common directory, for every worktree; a
 * worktree's own info/exclude is never read), and, where the project
 * tracks a file of that name, marked skip-worktree in this worktree's
 * index.  0 or -1.
 */
int worktree_exclude(struct act *, const char *path, const char *rel);
/* Whether a worktree is at path with branch checked out: 1 or 0. */
int worktree_on_branch(const char *path, const char *branch);

#endif
