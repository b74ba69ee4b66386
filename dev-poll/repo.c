/*
 * The project's clone (repo_root) as dev-poll uses it: the remote that
 * points at the forge, the session worktrees (fresh from the primary
 * branch on fix/issue-N, or, in recovery mode, on the branch of the
 * issue's open PR, an existing worktree on that branch kept with
 * whatever the previous session left in it), the fast-forward of the
 * primary branch after merges and the pushes to the mirrors.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "git.h"
#include "log.h"
#include "worktree.h"
#include "xmalloc.h"

/* Output kept from "git remote -v". */
#define REMOTES_MAX (64 * 1024)

static void repo_host(const char *, char *, size_t);
static void repo_tidy(struct dev_ctx *);

/* The host (with port) of url: "http://h:3000/x" gives "h:3000". */
static void
repo_host(const char *url, char *host, size_t hostsz)
{
	const char *p = strstr(url, "://"), *end;

	p = p != NULL ? p + 3 : url;
	if ((end = strchr(p, '/')) == NULL)
		end = p + strlen(p);
	snprintf(host, hostsz, "%.*s", (int)(end - p), p);
}

char *
dp_forge_remote(struct dev_ctx *c)
{
	static const char *const args[] = {"remote", "-v", NULL};
	char host[256], name[128], url[1024], kind[16], *line, *save = NULL;
	char *found = NULL;
	struct buf out;

	repo_host(c->cfg->forge_url, host, sizeof(host));
	buf_init(&out, REMOTES_MAX);
	if (*host != '\0' &&
	    git_run(c->cfg->project_repo_root, args, &out) == 0 &&
	    out.data != NULL) {
		for (line = strtok_r(out.data, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%127s %1023s %15s", name, url,
				kind) == 3 &&
			    strcmp(kind, "(push)") == 0 &&
			    strstr(url, host) != NULL) {
				found = xstrdup(name);
				break;
			}
		}
	}
	buf_free(&out);
	return found != NULL ? found : xstrdup("origin");
}

int
dp_git_ff_primary(struct dev_ctx *c)
{
	const char *root = c->cfg->project_repo_root;
	const char *primary = c->cfg->primary_branch;
	char *remote = dp_forge_remote(c);
	const char *fetch[] = {"fetch", remote, primary, NULL};
	const char *checkout[] = {"checkout", primary, NULL};
	const char *pull[] = {"pull", "--ff-only", remote, primary, NULL};
	int r = 0;

	if (act_git(&c->act, root, fetch) != 0 ||
	    act_git(&c->act, root, checkout) != 0 ||
	    act_git(&c->act, root, pull) != 0)
		r = -1;
	free(remote);
	return r;
}

/*
 * Push the primary branch to every mirror, in the background.  A
 * mirror's URL may hold credentials: they never go on git's command line
 * (git_remote_auth() hands them over in its environment), and the log
 * names the mirror, never its URL.
 */
void
dp_mirror_push(struct dev_ctx *c)
{
	const struct config *cfg = c->cfg;
	const char *push[] = {"push", NULL, cfg->primary_branch, "--tags",
	    NULL};
	char *what, **argv, *url, **env;
	size_t i;
	pid_t pid;

	for (i = 0; i < cfg->nmirrors; i++) {
		if (cfg->mirrors[i].url == NULL || *cfg->mirrors[i].url == '\0')
			continue;
		git_remote_auth(cfg->mirrors[i].url, &url, &env);
		push[1] = url;
		argv = git_argv(cfg->project_repo_root, push);
		what = xasprintf("a push of %s to mirror %s",
		    cfg->primary_branch, cfg->mirrors[i].name);
		if (act_spawn_env(&c->act, argv, (const char *const *)env, NULL,
			what, &pid) == 0 &&
		    pid > 0)
			log_msg("mirror: pushed to %s (pid %ld)",
			    cfg->mirrors[i].name, (long)pid);
		free(what);
		free(argv);
		git_env_free(env);
		free(url);
	}
}

/* Abort a stale rebase in repo_root and put it back on the primary branch. */
static void
repo_tidy(struct dev_ctx *c)
{
	static const char *const abort_args[] = {"rebase", "--abort", NULL};
	static const char *const head[] = {"rev-parse", "--abbrev-ref", "HEAD",
	    NULL};
	const char *root = c->cfg->project_repo_root;
	const char *primary = c->cfg->primary_branch;
	const char *checkout[] = {"checkout", primary, NULL};
	char *cur;

	if (git_in_rebase(root) == 1) {
		log_warn("WARNING: stale rebase detected in main repo — "
			 "aborting");
		(void)act_git(&c->act, root, abort_args);
	}
	cur = git_line(root, head, NULL);
	if (cur != NULL && strcmp(cur, primary) != 0) {
		log_warn("WARNING: main repo on '%s' instead of %s — switching",
		    cur, primary);
		(void)act_git(&c->act, root, checkout);
	}
	free(cur);
}

int
dp_worktree_fresh(struct dev_ctx *c, const char *remote, const char *wt,
    const char *branch)
{
	const char *root = c->cfg->project_repo_root;
	const char *primary = c->cfg->primary_branch;
	const char *fetch[] = {"fetch", remote, primary, NULL};
	const char *pull[] = {"pull", "--ff-only", remote, primary, NULL};
	char *ref = xasprintf("%s/%s", remote, primary);
	int r = -1;

	repo_tidy(c);
	if (act_git(&c->act, root, fetch) != 0)
		goto out;
	(void)act_git(&c->act, root, pull);
	if ((r = worktree_add(&c->act, root, wt, branch, ref)) == -1) {
		log_err("ERROR: worktree creation failed");
		r = 1;
	}
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
	const char *fetch[] = {"fetch", remote, branch, NULL};
	const char *pull[] = {"pull", "--ff-only", remote, branch, NULL};
	const char *reset[] = {"reset", "--hard", ref, NULL};
	int r = -1;

	if (act_git(&c->act, root, fetch) != 0)
		goto out;
	if (worktree_on_branch(wt, branch)) {
		log_msg("reusing existing worktree (preserves session)");
		if (act_git(&c->act, wt, pull) != 0)
			(void)act_git(&c->act, wt, reset);
		r = 0;
		goto out;
	}
	if ((r = worktree_add(&c->act, root, wt, branch, ref)) == -1) {
		log_err("ERROR: worktree creation failed for recovery");
		r = 1;
	}
out:
	free(ref);
	return r;
}
