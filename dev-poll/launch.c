/*
 * Launching a dev session for an issue, in-process: read everything the
 * launch needs first (gather.c), take the Claude session lock for the
 * session to come, then charge the CI-fix budget, claim the issue,
 * prepare the worktree, build the prompt (prompt.c) and start the session
 * (session.c), which takes the lock over.  A lock that stays busy skips
 * the launch before anything is changed; any failure after the claim
 * gives the issue back.  A failure for a reason of the issue's own (its
 * data over the body cap, its worktree path or phase file another user's,
 * its worktree or prompt that cannot be made) is recorded with back-off
 * (backoff.c), and the tick goes on with the next issue; an issue backed
 * off is not tried until its wait is over, whatever started the tick (a
 * schedule or a wake).  A session that did not start (a dialog at its
 * start, an agent that exits) fails the tick and is backed off as well:
 * its end would otherwise wake the next launch at once.  In legacy mode
 * DEV_AGENT_CMD is started instead (legacy.c).
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act.h"
#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "factory_pull.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "runfiles.h"
#include "sandbox.h"
#include "worktree.h"
#include "xmalloc.h"

static int launch_claim(struct dev_ctx *, struct dp_gather *);
static void launch_unclaim(struct dev_ctx *, const struct dp_gather *);
static void launch_clear_files(struct dev_ctx *, const struct dp_gather *);
static int launch_keeps_worktree(const struct dp_gather *);
static int launch_mark_started(struct dev_ctx *, const struct dp_gather *, int);
static int launch_foreign(const char *, char *, size_t);
static int launch_squatted(struct dev_ctx *, struct dp_gather *);
static enum dp_launch launch_bad(struct dev_ctx *, struct dp_gather *);
static int launch_gate(struct dev_ctx *);
static int launch_charge(struct dev_ctx *, const struct dp_launch_req *,
    enum dp_launch *);
static void launch_add_note(char **, const char *);
static enum dp_launch launch_session(struct dev_ctx *,
    const struct dp_launch_req *, struct dp_gather *);

/* Label the issue in-progress and take it off the backlog. */
static int
launch_claim(struct dev_ctx *c, struct dp_gather *l)
{
	if (!forge_labelled(l->it, "in-progress") &&
	    act_label_add(&c->act, l->issue, "in-progress") == -1)
		return -1;
	if (forge_labelled(l->it, "backlog") &&
	    act_label_remove(&c->act, l->issue, "backlog") == -1)
		return -1;
	return 0;
}

/* Give the issue back: no longer in progress, back on the backlog. */
static void
launch_unclaim(struct dev_ctx *c, const struct dp_gather *l)
{
	log_notice("unclaiming issue #%lld", l->issue);
	(void)act_label_remove(&c->act, l->issue, "in-progress");
	/* As upstream: an issue with a PR is not put back on the backlog. */
	if (l->pr == 0)
		(void)act_label_add(&c->act, l->issue, "backlog");
}

/*
 * A new session starts without the old one's phase; a fresh one also
 * without its summary and CI result.
 */
static void
launch_clear_files(struct dev_ctx *c, const struct dp_gather *l)
{
	const char *p = c->cfg->project_name;
	char *path;

	path = runfiles_phase(p, l->issue);
	(void)act_remove(&c->act, path);
	free(path);
	if (l->pr > 0)
		return;
	path = runfiles_summary(p, l->issue);
	(void)act_remove(&c->act, path);
	free(path);
	path = runfiles_ci_result(p, l->issue);
	(void)act_remove(&c->act, path);
	free(path);
}

/*
 * A crashed session's worktree is its checkpoint, unpushed commits
 * included: kept as it is when it is there (1).  0: make one as usual.
 */
static int
launch_keeps_worktree(const struct dp_gather *l)
{
	char *git = xasprintf("%s/.git", l->worktree);
	int keep = l->crash && file_exists(git);

	free(git);
	if (keep)
		log_msg("reusing the crashed session's worktree '%s'",
		    l->worktree);
	return keep;
}

/*
 * An empty phase file marks the session as started (on), or is removed
 * again when the start failed: while it is there the agent slot is busy
 * and the phase loop's clocks run from it until the first phase, so a
 * session is never started without it (the phase loop would never see
 * it).  0, or -1 when it cannot be written.
 */
static int
launch_mark_started(struct dev_ctx *c, const struct dp_gather *l, int on)
{
	char *phase = runfiles_phase(c->cfg->project_name, l->issue);
	int r;

	if (on)
		r = act_phase(&c->act, phase, PHASE_NONE, NULL, NULL);
	else
		r = act_remove(&c->act, phase);
	free(phase);
	return r;
}

/*
 * 1 when something another user owns stands at path (why, naming it, in
 * why), else 0: a name the launch would write in the shared run
 * directory, taken first by someone else.
 */
static int
launch_foreign(const char *path, char *why, size_t whysz)
{
	struct stat st;

	if (lstat(path, &st) == -1 || st.st_uid == geteuid())
		return 0;
	snprintf(why, whysz, "'%s' belongs to another user (uid %ld)", path,
	    (long)st.st_uid);
	return 1;
}

/*
 * Before anything is claimed: the issue's worktree path and phase file
 * are free or this user's.  0, or -1 with why in l->bad.
 */
static int
launch_squatted(struct dev_ctx *c, struct dp_gather *l)
{
	char *phase = runfiles_phase(c->cfg->project_name, l->issue);
	int r = 0;

	if (launch_foreign(l->worktree, l->bad, sizeof(l->bad)) ||
	    launch_foreign(phase, l->bad, sizeof(l->bad)))
		r = -1;
	free(phase);
	return r;
}

/* The issue's own fault (l->bad): recorded with back-off. */
static enum dp_launch
launch_bad(struct dev_ctx *c, struct dp_gather *l)
{
	dp_backoff_failed(c, l->issue, l->bad);
	(void)dp_status(c, "#%lld: cannot be launched, backed off: %s",
	    l->issue, l->bad);
	return DP_LAUNCH_BAD;
}

/*
 * Whether any dev agent may start: it must be confinable (sandbox.h) and
 * have a token of its own (or the operator trusts it with the dev
 * bot's).  0, or -1 with the reason logged as an error (stderr for
 * cron's mail) and in the status line (--status): nothing is claimed.
 */
static int
launch_gate(struct dev_ctx *c)
{
	enum sandbox_kind kind;
	char why[512];

	if (c->cfg->forge_agent_token[0] == '\0' &&
	    !c->cfg->agent_trust_dev_token)
		snprintf(why, sizeof(why),
		    "FORGE_AGENT_TOKEN is unset, and the dev bot's FORGE_TOKEN "
		    "merges: give the agents a forge user of their own "
		    "(docs/SECURITY.md, \"Least privilege\"), or set "
		    "AGENT_TRUST_DEV_BOT_TOKEN=true to trust them with it");
	else if (c->legacy && strcmp(c->cfg->agent_sandbox, SANDBOX_TRUST) != 0)
		snprintf(why, sizeof(why),
		    "DEV_AGENT_CMD (legacy mode) is a command of the "
		    "operator's that needs the run directory, as dev-agent.sh "
		    "does, and runs unconfined: set AGENT_SANDBOX=" SANDBOX_TRUST
		    " to run it");
	else if (sandbox_choose(&kind, why, sizeof(why)) == 0)
		return 0;
	log_err("ERROR: no dev agent is launched: %s", why);
	(void)dp_status(c, "no dev agent is launched: %s", why);
	return -1;
}

int
dp_launch_refused(long long issue, const cJSON *it)
{
	const char *skip;

	if (it == NULL || (skip = backlog_skip(it)) == NULL)
		return 0;
	log_msg("SKIP: issue #%lld has the '%s' label — no agent session "
		"for it",
	    issue, skip);
	return 1;
}

int
dp_relaunch(struct dev_ctx *c, long long issue)
{
	struct dp_launch_req req = {.issue = issue,
	    .why = "crash recovery",
	    .crash = 1};

	return dp_launch(c, &req) == DP_LAUNCHED ? 0 : -1;
}

int
dp_launch_reserve(struct dev_ctx *c, long long issue)
{
	char err[512];
	int r;

	if (c->act.dry_run)
		return 0;
	if ((r = agent_reserve(err, sizeof(err))) == 1)
		log_msg("%s — not launching #%lld this tick", err, issue);
	else if (r == -1)
		log_err("ERROR: %s", err);
	return r;
}

/*
 * Charge the CI-fix budget the launch pays for, if any: 0 to go on, or
 * -1 with *stop saying why not.
 */
static int
launch_charge(struct dev_ctx *c, const struct dp_launch_req *req,
    enum dp_launch *stop)
{
	long long attempts;

	if (req->ci_fix_pr <= 0)
		return 0;
	switch (dp_cifix(c, req->ci_fix_pr, req->issue, 0, &attempts)) {
	case DP_CIFIX_EXHAUSTED:
		*stop = DP_EXHAUSTED;
		return -1;
	case DP_CIFIX_ERROR:
		*stop = DP_LAUNCH_FAILED;
		return -1;
	case DP_CIFIX_OK:
		break;
	}
	log_msg("issue #%lld PR #%lld CI fix attempt %lld/%d", req->issue,
	    req->ci_fix_pr, attempts, DP_CI_FIX_BUDGET);
	return 0;
}

/* The request's note after the prompt. */
static void
launch_add_note(char **prompt, const char *note)
{
	char *both = xasprintf("%s\n\n%s\n", *prompt, note);

	free(*prompt);
	*prompt = both;
}

/* After dp_gather(): budget, claim, worktree, prompt, session. */
static enum dp_launch
launch_session(struct dev_ctx *c, const struct dp_launch_req *req,
    struct dp_gather *l)
{
	enum dp_launch stop, res = DP_LAUNCH_FAILED;
	char *prompt = NULL;
	int r, backoff = 0;

	switch (dp_launch_reserve(c, l->issue)) {
	case 1:
		return DP_LOCK_BUSY;
	case -1:
		return DP_LAUNCH_FAILED;
	}
	l->worktree = runfiles_worktree(c->cfg->project_name, l->issue);
	if (launch_squatted(c, l) == -1)
		return launch_bad(c, l);
	if (launch_charge(c, req, &stop) == -1)
		return stop;
	if (l->pr > 0)
		log_msg("RECOVERY MODE: adopting PR #%lld on branch %s", l->pr,
		    l->branch);
	(void)dp_status(c, "#%lld: claiming", l->issue);
	if (launch_claim(c, l) == -1)
		goto fail;
	l->remote = dp_forge_remote(c);
	log_msg("forge remote: %s (FORGE_URL=%s)", l->remote,
	    c->cfg->forge_url);
	(void)dp_status(c, "#%lld: setting up worktree", l->issue);
	if (launch_keeps_worktree(l))
		r = 0;
	else if (l->pr > 0)
		r = dp_worktree_recover(c, l->remote, l->worktree, l->branch);
	else
		r = dp_worktree_fresh(c, l->remote, l->worktree, l->branch);
	if (r == -1)
		goto fail;
	res = DP_LAUNCH_BAD;
	if (r == 1) {
		snprintf(l->bad, sizeof(l->bad),
		    "its worktree '%s' cannot be made (see the log)",
		    l->worktree);
		goto fail;
	}
	/* As dev-agent.sh did: the formulas of the prompt, fresh. */
	(void)factory_pull(&c->act, c->cfg->factory_root);
	if ((prompt = dp_launch_prompt(c, l)) == NULL) {
		snprintf(l->bad, sizeof(l->bad),
		    "its prompt cannot be built (see the log)");
		goto fail_wt;
	}
	if (req->note != NULL)
		launch_add_note(&prompt, req->note);
	launch_clear_files(c, l);
	/* Before the prompt: a fast agent may write its first phase at once. */
	if (launch_mark_started(c, l, 1) == -1) {
		if (!launch_squatted(c, l))
			res = DP_LAUNCH_FAILED;
		goto fail_wt;
	}
	res = DP_LAUNCH_FAILED;
	if (dp_session_start(c, l->issue, l->worktree, prompt) == -1) {
		(void)launch_mark_started(c, l, 0);
		snprintf(l->bad, sizeof(l->bad),
		    "its session did not start (see the log)");
		backoff = 1;
		goto fail_wt;
	}
	free(prompt);
	(void)dp_status(c, "#%lld: session running (%s)", l->issue, req->why);
	return DP_LAUNCHED;
fail_wt:
	if (l->pr == 0)
		(void)worktree_remove_for_good(&c->act,
		    c->cfg->project_repo_root, l->worktree,
		    config_agent_home(c->cfg));
fail:
	free(prompt);
	launch_unclaim(c, l);
	/*
	 * A session that did not start (a dialog, an agent that exits)
	 * fails the tick, and is backed off too: whatever starts the next
	 * tick (a wake from the killed agent's end, at once), the issue
	 * waits its turn.
	 */
	if (backoff)
		dp_backoff_failed(c, l->issue, l->bad);
	return res == DP_LAUNCH_BAD ? launch_bad(c, l) : res;
}

enum dp_launch
dp_launch(struct dev_ctx *c, const struct dp_launch_req *req)
{
	struct dp_gather l = {0};
	enum dp_launch res = DP_LAUNCH_FAILED;

	if (dp_stands_back(c, req->issue)) {
		res = DP_SKIPPED;
		goto out;
	}
	/* A parked conversation started afresh is its own parked record. */
	switch (req->note != NULL ? DP_FREE : dp_session_busy(c, req->issue)) {
	case DP_BUSY:
		res = DP_SKIPPED;
		goto out;
	case DP_BUSY_UNKNOWN:
		goto out;
	case DP_FREE:
		break;
	}
	/* A person's --issue, and a crashed session's restart, try now. */
	if (!req->manual && !req->crash &&
	    dp_backoff_holds(c, req->issue) != 0) {
		res = DP_BACKED_OFF;
		goto out;
	}
	if (dp_launch_refused(req->issue, req->issue_json)) {
		res = DP_REFUSED;
		goto out;
	}
	if (launch_gate(c) == -1)
		goto out;
	if (c->legacy) {
		if (launch_charge(c, req, &res) == 0)
			res = dp_launch_legacy(c, req);
		goto out;
	}
	switch (dp_gather(c, req, &l)) {
	case DP_GATHERED:
		res = launch_session(c, req, &l);
		break;
	case DP_GATHER_BLOCKED:
		res = DP_BLOCKED;
		break;
	case DP_GATHER_REFUSED:
		res = DP_REFUSED;
		break;
	case DP_GATHER_BAD:
		res = launch_bad(c, &l);
		break;
	case DP_GATHER_FAILED:
		break;
	}
	dp_gather_free(&l);
out:
	/* Handed to the session, or not needed after all. */
	agent_unreserve();
	if (res == DP_LAUNCHED) {
		c->launched++;
		if (req->ci_fix_pr > 0)
			c->ci_fixes++;
		dp_backoff_clear(c, req->issue);
	}
	return res;
}
