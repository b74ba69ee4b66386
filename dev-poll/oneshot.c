/*
 * dev-poll --issue N [--force]: what running dev-agent.sh N by hand did.
 * The session of one issue is launched now (recovery mode when the issue
 * has an open PR), or its crashed session is started again in its
 * worktree, under the tick lock and with the tick's own launch.  The
 * agent slot (other issues' sessions), the memory guard and the
 * dependencies are obeyed unless --force; a closed issue is never
 * started.  Nothing else of a tick runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "phase.h"
#include "runfiles.h"
#include "xmalloc.h"

static int oneshot_crashed(struct dev_ctx *, long long);
static int oneshot_rules(struct dev_ctx *, long long, char **);
static int oneshot_result(struct dev_ctx *, long long, enum dp_launch, int,
    char **);

/*
 * 1 when the issue's phase file is there in a phase that is not terminal
 * (its session is known to be gone): a crashed session to start again.
 */
static int
oneshot_crashed(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_phase(c->cfg->project_name, issue);
	struct phase_info sig;
	int r;

	r = file_exists(path) && phase_read(path, &sig) == 0 &&
	    !phase_is_terminal(sig.phase);
	free(path);
	return r;
}

/*
 * The agent slot (but the issue's own), the memory guard and the API
 * pause: 0 to go on,
 * -1 refused by one (exit 0), 1 a failure; *msg says which.
 */
static int
oneshot_rules(struct dev_ctx *c, long long issue, char **msg)
{
	char *logp = runfiles_dev_log(c->cfg->project_name);
	const char *why = NULL;
	int rc = 0;

	switch (dp_slot_except(c, issue)) {
	case DP_DONE:
		why = "the agent slot is busy";
		break;
	case DP_FAIL:
		rc = 1;
		why = "the agent slot cannot be checked";
		break;
	case DP_NEXT:
		switch (dp_memory(c)) {
		case DP_DONE:
			why = "too little memory is available";
			break;
		case DP_FAIL:
			rc = 1;
			why = "the available memory cannot be read";
			break;
		case DP_NEXT:
			break;
		}
	}
	if (why == NULL) {
		switch (dp_pause_holds(c)) {
		case 1:
			why = "the project is paused by an API error";
			break;
		case -1:
			rc = 1;
			why = "the API pause cannot be read";
			break;
		}
	}
	if (why != NULL)
		*msg = xasprintf("issue #%lld: not started: %s (see '%s'%s)\n",
		    issue, why, logp, rc == 0 ? "; --force overrides" : "");
	free(logp);
	return why != NULL ? (rc != 0 ? rc : -1) : 0;
}

/* What the launch did, for the operator: the exit status. */
static int
oneshot_result(struct dev_ctx *c, long long issue, enum dp_launch r,
    int crashed, char **msg)
{
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	char *logp = runfiles_dev_log(c->cfg->project_name);
	int rc = 0;

	switch (r) {
	case DP_LAUNCHED:
		*msg = xasprintf("issue #%lld: session %s %s%s\n", issue,
		    session, crashed ? "started again" : "started",
		    c->act.dry_run ? " (dry-run: nothing done)" : "");
		break;
	case DP_SKIPPED:
		*msg = xasprintf("issue #%lld: session %s is running already\n",
		    issue, session);
		break;
	case DP_BLOCKED:
		*msg = xasprintf("issue #%lld: not started: dependencies are "
				 "open (see '%s'; --force overrides)\n",
		    issue, logp);
		break;
	case DP_REFUSED:
		*msg = xasprintf("issue #%lld: not started: its labels keep "
				 "agents off it (see '%s')\n",
		    issue, logp);
		break;
	case DP_LOCK_BUSY:
		*msg = xasprintf("issue #%lld: not started: the Claude session "
				 "lock stayed busy (see '%s')\n",
		    issue, logp);
		rc = 1;
		break;
	case DP_LAUNCH_BAD:
		*msg = xasprintf("issue #%lld: it cannot be launched, backed "
				 "off for the ticks (see '%s')\n",
		    issue, logp);
		rc = 1;
		break;
	case DP_EXHAUSTED:
	case DP_LAUNCH_FAILED:
	case DP_BACKED_OFF: /* not for --issue */
		*msg = xasprintf("issue #%lld: the launch failed (see '%s')\n",
		    issue, logp);
		rc = 1;
		break;
	}
	free(logp);
	free(session);
	return rc;
}

int
dp_oneshot(struct dev_ctx *c, long long issue, int force, char **msg)
{
	struct dp_launch_req req = {.issue = issue,
	    .why = "--issue",
	    .manual = 1};
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	enum dp_launch r;
	int rc = 1, crashed;

	*msg = NULL;
	log_msg("--issue %lld%s: one issue, now", issue,
	    force ? " --force" : "");
	if (dp_stands_back(c, issue)) {
		*msg = xasprintf("issue #%lld: not started: bash dev-agent.sh "
				 "(pid %ld) works on it\n",
		    issue, (long)c->bash.pid);
		rc = 0;
		goto out;
	}
	switch (dp_session_busy(c, issue)) {
	case DP_BUSY:
		rc = oneshot_result(c, issue, DP_SKIPPED, 0, msg);
		goto out;
	case DP_BUSY_UNKNOWN:
		*msg = xasprintf("issue #%lld: cannot tell whether %s lives\n",
		    issue, session);
		goto out;
	case DP_FREE:
		break;
	}
	switch (dp_issue_state(c, issue, &req.issue_json)) {
	case DP_ISSUE_OPEN:
		break;
	case DP_ISSUE_CLOSED:
		*msg = xasprintf("issue #%lld is closed: nothing to start\n",
		    issue);
		rc = 0;
		goto out;
	case DP_ISSUE_MISSING:
		*msg = xasprintf("issue #%lld: no such issue\n", issue);
		goto out;
	case DP_ISSUE_UNKNOWN:
		*msg = xasprintf("issue #%lld: cannot read it\n", issue);
		goto out;
	}
	if (!force && (rc = oneshot_rules(c, issue, msg)) != 0) {
		rc = rc == -1 ? 0 : rc;
		goto out;
	}
	crashed = oneshot_crashed(c, issue);
	req.crash = crashed;
	req.force = force;
	if (crashed)
		log_msg("#%lld: its session is gone: starting it again", issue);
	r = dp_launch(c, &req);
	rc = oneshot_result(c, issue, r, crashed, msg);
out:
	free(session);
	return rc;
}
