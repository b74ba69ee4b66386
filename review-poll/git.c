/*
 * Git for reviews, always through spawn_run() with an argv in the
 * project's clone: fetch the PR branch, a detached worktree of the head
 * being reviewed, and the diff since the previous review.
 */
#define _XOPEN_SOURCE 700
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "review-poll.h"
#include "spawn.h"
#include "xmalloc.h"

#define GIT_TIMEOUT_S 120
/* Output of a git command kept for the log. */
#define GIT_ERR_MAX 4096

static int git(struct rp *, const char *const *, int);
static int remove_entry(const char *, const struct stat *, int, struct FTW *);
static int remove_tree(const char *);

/*
 * Run git -C repo_root with args.  changes says whether the command
 * changes state (then --dry-run only logs it).  Returns 0 when git exited
 * 0, else -1 with the failure and git's last words logged.
 */
static int
git(struct rp *rp, const char *const *args, int changes)
{
	const char *argv[16];
	struct spawn_opts so;
	struct buf out;
	size_t i, n = 0;
	int status, r = -1;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = rp->cfg->project_repo_root;
	for (i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (changes && rp->dry_run) {
		log_msg("dry-run: would run git %s %s", args[0],
		    args[1] ? args[1] : "");
		return 0;
	}
	memset(&so, 0, sizeof(so));
	so.timeout_s = GIT_TIMEOUT_S;
	buf_init(&out, GIT_ERR_MAX);
	if (spawn_run((char *const *)argv, &so, &out, &status) == 0 &&
	    status == 0)
		r = 0;
	else
		log_msg("git %s %s failed (status %d): %.300s", args[0],
		    args[1] ? args[1] : "", status, buf_str(&out));
	buf_free(&out);
	return r;
}

int
rp_git_fetch(struct rp *rp, const char *branch)
{
	const char *args[] = {"fetch", "-q", "origin", branch, NULL};

	if (branch[0] == '-' || branch[0] == '\0') {
		log_msg("refusing to fetch branch '%.60s'", branch);
		return -1;
	}
	return git(rp, args, 1);
}

int
rp_worktree_add(struct rp *rp, const char *path, const char *sha)
{
	const char *args[] = {"worktree", "add", "-q", "--detach", path, sha,
	    NULL};

	if (!rp_is_sha(sha)) {
		log_msg("refusing a worktree of '%.60s'", sha);
		return -1;
	}
	if (rp_worktree_remove(rp, path) == -1)
		return -1;
	if (git(rp, args, 1) == -1)
		return -1;
	if (!rp->dry_run)
		log_msg("worktree %s at %.7s", path, sha);
	return 0;
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) == -1 && errno != ENOENT ? -1 : 0;
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

/* rm -rf path, never following a symbolic link. */
static int
remove_tree(const char *path)
{
	if (!file_exists(path))
		return 0;
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
rp_worktree_remove(struct rp *rp, const char *path)
{
	const char *rm[] = {"worktree", "remove", "--force", path, NULL};
	const char *prune[] = {"worktree", "prune", NULL};

	if (!file_exists(path))
		return 0;
	if (rp->dry_run) {
		log_msg("dry-run: would remove worktree %s", path);
		return 0;
	}
	/* Not a registered worktree (any more): the files still go. */
	(void)git(rp, rm, 1);
	if (remove_tree(path) == -1) {
		log_msg("cannot remove '%s': %s", path, strerror(errno));
		return -1;
	}
	(void)git(rp, prune, 1);
	return 0;
}

int
rp_git_diff(struct rp *rp, const char *from, const char *to, size_t max,
    struct buf *out, int *truncated)
{
	const char *argv[] = {"git", "-C", rp->cfg->project_repo_root, "diff",
	    NULL, "--", NULL};
	struct spawn_opts so;
	struct buf b;
	char *range;
	int status, r = -1;

	if (!rp_is_sha(from) || !rp_is_sha(to))
		return -1;
	range = xasprintf("%s..%s", from, to);
	argv[4] = range;
	memset(&so, 0, sizeof(so));
	so.timeout_s = GIT_TIMEOUT_S;
	buf_init(&b, max + 1);
	if (spawn_run((char *const *)argv, &so, &b, &status) == 0 &&
	    status == 0) {
		*truncated = b.len > max;
		buf_append(out, b.data ? b.data : "",
		    b.len > max ? max : b.len);
		r = 0;
	}
	buf_free(&b);
	free(range);
	return r;
}
