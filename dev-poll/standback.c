/*
 * Standing back from a live bash dev-agent.sh: upstream's best-practices
 * files tell a fix command to run `dev-agent.sh N` by hand, which keeps
 * its PID in dev-agent-P.lock and works on issue N in the same phase file
 * and tmux session the tick watches.  While it runs, the tick takes no
 * action of its own on that issue (no injection, reaction, merge or
 * launch), or on any issue when the run's issue cannot be told.  In
 * legacy mode the file is the DEV_AGENT_CMD child's, the tick's own.
 */
#include <stdlib.h>

#include "bashlock.h"
#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "runfiles.h"

#define STANDBACK_SCRIPT "dev-agent.sh"

void
dp_standback_read(struct dev_ctx *c)
{
	char *path;

	if (c->legacy)
		return;
	path = runfiles_dev_agent_lock(c->cfg->project_name);
	if (bashlock_read(path, STANDBACK_SCRIPT, c->cfg->proc_dir, &c->bash) ==
	    -1) {
		/* Unreadable: whoever wrote it is not told apart; stand
		 * back from every issue rather than race it. */
		log_warn("cannot read '%s': standing back from every issue",
		    path);
		c->bash.state = BASHLOCK_HELD;
		c->bash.number = 0;
	} else if (c->bash.state == BASHLOCK_HELD && c->bash.number > 0)
		log_msg("standing back from #%lld: bash %s (pid %ld) holds %s",
		    c->bash.number, STANDBACK_SCRIPT, (long)c->bash.pid, path);
	else if (c->bash.state == BASHLOCK_HELD)
		log_msg("standing back from every issue: bash %s (pid %ld) "
			"holds %s for an issue it does not name",
		    STANDBACK_SCRIPT, (long)c->bash.pid, path);
	else if (c->bash.state == BASHLOCK_DEAD)
		log_msg("%s names pid %ld, which is gone: ignored", path,
		    (long)c->bash.pid);
	free(path);
}

int
dp_stands_back(const struct dev_ctx *c, long long issue)
{
	if (c->bash.state != BASHLOCK_HELD)
		return 0;
	if (issue == -1) {
		/* The agent slot: bash's run is the project's one agent. */
		log_msg("agent running: bash %s (pid %ld)", STANDBACK_SCRIPT,
		    (long)c->bash.pid);
		return 1;
	}
	return c->bash.number == 0 || c->bash.number == issue;
}
