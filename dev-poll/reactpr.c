/*
 * The issues' PRs as the forge has them now, at the start of a tick
 * (before the merges and the phase reactions): for every issue whose PR
 * dev-poll remembers (dev-state-P-N) and that is no longer among the open
 * PRs, the PR is read.  Merged (a merge of dev-poll's whose answer was
 * lost, or one a person made): the after-merge steps, each idempotent,
 * until they all succeeded.  Closed without a merge, while a session
 * waits on it in any phase: as phase-handler.sh did, the issue leaves
 * in-progress and stays open, the session and its worktree go, and one
 * comment says why.  Nothing here depends on the agent slot, so a PR
 * merged behind a busy tick is finished all the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "log.h"
#include "marks.h"
#include "react.h"
#include "runfiles.h"
#include "xmalloc.h"

static int reactpr_closed(struct dev_ctx *, long long, long long);
static int reactpr_read(struct dev_ctx *, long long, struct dp_state *);
static int reactpr_one(struct dev_ctx *, long long);

/*
 * The issue's PR was closed without a merge: the session ends, the
 * worktree goes, the issue stays open with one comment saying so.
 * 0 or -1 (the state stays: a later tick tries again).
 */
static int
reactpr_closed(struct dev_ctx *c, long long issue, long long pr)
{
	char *marker, *body, key[64];
	struct rx x;
	int r;

	snprintf(key, sizeof(key), "pr-closed #%lld", pr);
	log_msg("#%lld: PR #%lld was closed without a merge — ending the "
		"session, the issue stays open",
	    issue, pr);
	marker = marks_pr_closed(pr);
	body = xasprintf("PR #%lld was closed without being merged, so the "
			 "dev agent stopped working on this issue: its "
			 "session and worktree were removed and the issue "
			 "is no longer `in-progress`. It stays open; label it "
			 "`backlog` to have it worked on again.",
	    pr);
	rx_init(c, &x, issue);
	x.pr = pr;
	if ((r = rx_comment_once(c, issue, key, marker, body)) == 0)
		r = rx_end_session(c, &x, 0);
	rx_free(&x);
	free(body);
	free(marker);
	return r;
}

/*
 * PR number of the issue, read: 1 merged, 0 open, 2 closed unmerged, 3
 * gone (404), -1 unreadable (logged).
 */
static int
reactpr_read(struct dev_ctx *c, long long issue, struct dp_state *st)
{
	struct forge_pull fp;
	const cJSON *pr;

	if (forge_pull_get(c->forge, st->pr, &pr) == -1) {
		if (forge_last_status(c->forge) == 404)
			return 3;
		log_warn("#%lld: cannot read PR #%lld: %s", issue, st->pr,
		    forge_error(c->forge));
		return -1;
	}
	forge_pull_view(pr, &fp);
	if (fp.merged)
		return 1;
	return fp.state != NULL && strcmp(fp.state, "closed") == 0 ? 2 : 0;
}

/* One issue's remembered PR.  0, or -1 when it was left for later. */
static int
reactpr_one(struct dev_ctx *c, long long issue)
{
	struct dp_state st;
	int r;

	if (dp_state_read(c, issue, &st) == -1)
		return -1;
	if (st.pr <= 0 || (dp_pr_open(c, st.pr) != NULL && st.merge[0] == '\0'))
		return 0;
	switch (reactpr_read(c, issue, &st)) {
	case 1:
		log_msg("#%lld: PR #%lld was merged — finishing its "
			"after-merge steps",
		    issue, st.pr);
		return dp_merged(c, issue, st.pr, NULL);
	case 2:
		r = reactpr_closed(c, issue, st.pr);
		if (r == 0)
			c->acted++;
		return r;
	case 3:
		st.pr = 0; /* no such PR: forgotten */
		st.merge[0] = '\0';
		return dp_state_write(c, issue, &st);
	case 0:
		if (st.merge[0] == '\0')
			return 0;
		/* Open: the merge remembered did not happen. */
		st.merge[0] = '\0';
		return dp_state_write(c, issue, &st);
	default:
		return -1;
	}
}

void
dp_reconcile(struct dev_ctx *c)
{
	long long *issues;
	size_t n, i;

	if (runfiles_dev_state_issues(c->cfg->project_name, &issues, &n) ==
	    -1) {
		log_warn("cannot list the dev-state files in '%s'",
		    c->cfg->run_dir);
		c->skipped++;
		return;
	}
	for (i = 0; i < n; i++)
		if (reactpr_one(c, issues[i]) == -1)
			c->skipped++;
	free(issues);
}
