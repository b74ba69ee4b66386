/*
 * Legacy mode: with DEV_AGENT_CMD set, a launch starts that command
 * detached with the issue number (as dev-poll.sh started dev-agent.sh),
 * and the agent watches its own phases.
 */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>

#include "act.h"
#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "runfiles.h"
#include "strv.h"
#include "xmalloc.h"

enum dp_launch
dp_launch_legacy(struct dev_ctx *c, const struct dp_launch_req *req)
{
	char **argv, *logpath, *what, num[32];
	size_t n;
	pid_t pid;
	int r;

	snprintf(num, sizeof(num), "%lld", req->issue);
	argv = strv_split(c->cfg->dev_agent_cmd, &n);
	argv = xreallocarray(argv, n + 2, sizeof(*argv));
	argv[n] = xstrdup(num);
	argv[n + 1] = NULL;
	logpath = runfiles_dev_log(c->cfg->project_name);
	what = xasprintf("the dev agent '%s %s' for issue #%lld (%s)",
	    c->cfg->dev_agent_cmd, num, req->issue, req->why);
	r = act_spawn(&c->act, argv, logpath, what, &pid);
	if (r == 0 && pid > 0)
		log_msg("started dev-agent PID %ld for issue #%lld (%s)",
		    (long)pid, req->issue, req->why);
	free(what);
	free(logpath);
	strv_free(argv);
	return r == -1 ? DP_LAUNCH_FAILED : DP_LAUNCHED;
}
