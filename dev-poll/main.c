/*
 * dev-poll: one reconciliation tick of the dev factory for one project
 * (DESIGN section 5), in the order of dev-poll.sh: the tick lock, direct
 * merges, phase reactions, the agent slot, the memory guard, then what
 * to work on next and the launch of its session.  The lifecycle around
 * the steps is common/tick/tick.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ciwake.h"
#include "cli.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "log.h"
#include "pollers.h"
#include "promtick.h"
#include "reviewers.h"
#include "runfiles.h"
#include "tick.h"
#include "woodpecker.h"

/* The log is rotated past this size. */
#define LOG_ROTATE (5 * 1024 * 1024)
/* dev-poll --issue waits this long for a tick to finish (seconds). */
#define ONESHOT_LOCK_WAIT 300

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static void main_open(struct tick *);
static int main_oneshot(struct tick *);
static enum dp_step main_steps(struct dev_ctx *, const char **);
static int main_exit(const struct dev_ctx *, enum dp_step);
static int main_run(struct tick *);
static void main_close(struct tick *);
static int main_ci_watch(int, char *[]);

static const struct tick_tool main_tool = {
    .cli = {.prog = "dev-poll",
	.takes_project = 1,
	.log_path = main_log_path,
	.status_path = main_status_path,
	.log_prefix = "poll: ",
	.rotate_bytes = LOG_ROTATE,
	.opts = CLI_OPT_ISSUE | CLI_OPT_DEV_AGENTS,
	.report = pollers_report},
    .guard = "dev",
    .lock_path = runfiles_dev_poll_lock,
    .lock_held = "another dev-poll holds '%s' — exiting",
    .oneshot_lock_s = ONESHOT_LOCK_WAIT,
    .metrics = dp_prom_families,
    .open = main_open,
    .oneshot = main_oneshot,
    .run = main_run,
    .close = main_close,
    .ctx_size = sizeof(struct dev_ctx),
};

/* The project's log and status file (none without a project). */
static char *
main_log_path(const struct config *cfg)
{
	return cfg->project_name[0] ? runfiles_dev_log(cfg->project_name) :
				      NULL;
}

static char *
main_status_path(const struct config *cfg)
{
	return cfg->project_name[0] ? runfiles_dev_status(cfg->project_name) :
				      NULL;
}

static void
main_open(struct tick *t)
{
	const struct config *cfg = &t->cfg;
	struct dev_ctx *c = t->ctx;

	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->act.dry_run = t->cli.dry_run;
	c->verbose = t->cli.verbose;
	c->legacy = cfg->dev_agent_cmd != NULL && *cfg->dev_agent_cmd != '\0';
	c->now = time(NULL);
	c->forge = forge_open(cfg->forge_api, cfg->forge_token);
	if (config_woodpecker_configured(cfg))
		c->wp = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	c->act.forge = c->forge;
	c->act.wp = c->wp;
	c->reviewers = reviewers_open(cfg, c->forge, NULL, t->cli.dry_run);
	t->act = &c->act;
}

static void
main_close(struct tick *t)
{
	struct dev_ctx *c = t->ctx;

	reviewers_close(c->reviewers);
	dp_prs_free(c);
	dp_backlog_free(c);
	free(c->inprog);
	woodpecker_close(c->wp);
	forge_close(c->forge);
}

/* dev-poll --issue N [--force]: that issue's session, now. */
static int
main_oneshot(struct tick *t)
{
	struct dev_ctx *c = t->ctx;
	int rc;

	dp_standback_read(c);
	rc = dp_oneshot(c, t->cli.issue, t->cli.force, &t->msg);
	dp_merge_finish(c);
	return rc;
}

/*
 * The steps of DESIGN section 5; each may end the tick.  *ended says
 * what the step that ended it stands for (dp_tick_record()).
 * The merges and the phase reactions are each over their own items: one
 * whose data did not arrive is passed over and the rest of the tick runs.
 */
static enum dp_step
main_steps(struct dev_ctx *c, const char **ended)
{
	enum dp_step s;

	*ended = RUNFILES_TICK_WAITING;
	if (dp_merge_prelock(c) == DP_DONE)
		return DP_DONE;
	(void)dp_react(c);
	dp_escalations(c);
	*ended = RUNFILES_TICK_PAUSED;
	if ((s = dp_paused(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_BUSY;
	if (dp_stands_back(c, -1))
		return DP_DONE;
	if ((s = dp_slot(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_LOW_MEMORY;
	if ((s = dp_memory(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_WAITING;
	if ((s = dp_resume(c)) != DP_NEXT)
		return s;
	if ((s = dp_orphans(c)) != DP_NEXT)
		return s;
	if ((s = dp_stuck(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_NOTHING_READY;
	return dp_backlog(c);
}

/*
 * The exit status: 1 when a launch failed (a later tick tries again), or
 * when a read failed and the tick could do nothing at all; else 0.  A
 * failed write fails the tick too (act_tick_failed(), tick.c).
 */
static int
main_exit(const struct dev_ctx *c, enum dp_step s)
{
	if (c->failed > 0) {
		log_err("tick: %d launch(es) failed", c->failed);
		return CLI_EXIT_FAIL;
	}
	if ((s == DP_FAIL || c->skipped > 0) && c->acted == 0)
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}

/* The tick: its steps, what it leaves for the next, its metrics. */
static int
main_run(struct tick *t)
{
	struct dev_ctx *c = t->ctx;
	const char *ended = NULL;
	enum dp_step s;
	int rc;

	dp_devlog_link(c);
	dp_standback_read(c);
	s = main_steps(c, &ended);
	dp_merge_finish(c);
	dp_quiet_save(c);
	rc = main_exit(c, s);
	dp_tick_record(c, s, ended);
	dp_prom_tick(t->prom, c);
	return rc;
}

/* dev-poll --ci-watch ...: a CI watcher (ciwake.h), not a tick. */
static int
main_ci_watch(int argc, char *argv[])
{
	char *msg;
	int rc;

	rc = ciwake_main(&main_tool.cli, argc, argv, &msg);
	if (msg != NULL)
		fputs(msg, stderr);
	free(msg);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct dev_ctx ctx;

	if (argc >= 2 && strcmp(argv[1], CIWAKE_MODE) == 0)
		return main_ci_watch(argc, argv);
	memset(&ctx, 0, sizeof(ctx));
	return pollers_main(&main_tool, &ctx, argc, argv);
}
