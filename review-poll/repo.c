/*
 * The project's clone as reviews use it: fetch the PR branch, a detached
 * worktree of the head being reviewed, and the diff since the previous
 * review.
 */
#include <stdlib.h>

#include "act.h"
#include "buf.h"
#include "config.h"
#include "git.h"
#include "log.h"
#include "review-poll.h"
#include "valid.h"
#include "worktree.h"
#include "xmalloc.h"

int
rp_git_fetch(struct rp *rp, const char *branch)
{
	const char *args[] = {"fetch", "-q", "origin", branch, NULL};

	if (branch[0] == '-' || branch[0] == '\0') {
		log_err("refusing to fetch branch '%.60s'", branch);
		return -1;
	}
	return act_git(&rp->act, rp->cfg->project_repo_root, args);
}

int
rp_worktree_add(struct rp *rp, const char *path, const char *sha)
{
	if (valid_sha(sha) != NULL) {
		log_err("refusing a worktree of '%.60s'", sha);
		return -1;
	}
	if (worktree_add_detached(&rp->act, rp->cfg->project_repo_root, path,
		sha) == -1)
		return -1;
	if (!rp->act.dry_run)
		log_msg("worktree %s at %.7s", path, sha);
	return 0;
}

int
rp_worktree_remove(struct rp *rp, const char *path)
{
	return worktree_remove_for_good(&rp->act, rp->cfg->project_repo_root,
	    path, config_agent_home(rp->cfg));
}

int
rp_git_diff(struct rp *rp, const char *from, const char *to, size_t max,
    struct buf *out, int *truncated)
{
	const char *args[] = {"diff", NULL, "--", NULL};
	struct buf b;
	char *range;
	int r = -1;

	if (valid_sha(from) != NULL || valid_sha(to) != NULL)
		return -1;
	range = xasprintf("%s..%s", from, to);
	args[1] = range;
	buf_init(&b, max + 1);
	if (git_run(rp->cfg->project_repo_root, args, &b) == 0) {
		*truncated = b.len > max;
		buf_append(out, b.data ? b.data : "",
		    b.len > max ? max : b.len);
		r = 0;
	}
	buf_free(&b);
	free(range);
	return r;
}
