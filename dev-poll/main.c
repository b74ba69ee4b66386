/*
 * dev-poll: one reconciliation tick of the dev factory for one project
 * (DESIGN section 5), in the order of dev-poll.sh: the tick lock, direct
 * merges, phase reactions, the agent slot, the memory guard, then what
 * to work on next and the launch of its session.
 */
#include <sys/resource.h>
#include <sys/time.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "act.h"
#include "cli.h"
#include "config.h"
#include "dev-poll.h"
#include "forge.h"
#include "http.h"
#include "lock.h"
#include "log.h"
#include "promtick.h"
#include "reviewers.h"
#include "runfiles.h"
#include "spawn.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* The log is rotated past this size. */
#define LOG_ROTATE (5 * 1024 * 1024)

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static int main_tick_lock(const struct config *, int *, int);
static void main_ctx_open(struct dev_ctx *, const struct config *,
    const struct cli *);
static void main_ctx_close(struct dev_ctx *);
static enum dp_step main_tick(struct dev_ctx *, const char **);
static int main_exit(const struct dev_ctx *, enum dp_step);
static long long main_now_ms(void);
static void main_summary(long long);
static struct promtick *main_prom(struct promtick *, const struct config *,
    const struct cli *, int);

static const struct cli_tool main_tool = {"dev-poll", 1, main_log_path,
    main_status_path, "poll: ", LOG_ROTATE, CLI_OPT_ISSUE};

/* dev-poll --issue waits this long for a tick to finish (seconds). */
#define ONESHOT_LOCK_WAIT 300

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

/*
 * Take the tick lock, waiting up to wait_s seconds for another tick: 0
 * taken, 1 held by another tick, -1 error.
 */
static int
main_tick_lock(const struct config *cfg, int *fd, int wait_s)
{
	char *path = runfiles_dev_poll_lock(cfg->project_name);
	int r;

	r = wait_s > 0 ? lock_wait(path, fd, wait_s) : lock_take(path, fd);
	if (r == 1)
		log_msg("another dev-poll holds '%s' — exiting", path);
	else if (r == -1)
		log_err("cannot lock '%s': %s", path, strerror(errno));
	free(path);
	return r;
}

static void
main_ctx_open(struct dev_ctx *c, const struct config *cfg,
    const struct cli *cli)
{
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->act.dry_run = cli->dry_run;
	c->verbose = cli->verbose;
	c->legacy = cfg->dev_agent_cmd != NULL && *cfg->dev_agent_cmd != '\0';
	c->now = time(NULL);
	c->forge = forge_open(cfg->forge_api, cfg->forge_token);
	if (config_woodpecker_configured(cfg))
		c->wp = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	c->act.forge = c->forge;
	c->act.wp = c->wp;
	c->reviewers = reviewers_open(cfg, c->forge, NULL, cli->dry_run);
}

static void
main_ctx_close(struct dev_ctx *c)
{
	reviewers_close(c->reviewers);
	dp_prs_free(c);
	dp_backlog_free(c);
	free(c->inprog);
	woodpecker_close(c->wp);
	forge_close(c->forge);
}

/*
 * The steps of DESIGN section 5; each may end the tick.  *ended says
 * what the step that ended it stands for (dp_tick_record()).
 * The merges and the phase reactions are each over their own items: one
 * whose data did not arrive is passed over and the rest of the tick runs.
 */
static enum dp_step
main_tick(struct dev_ctx *c, const char **ended)
{
	enum dp_step s;

	*ended = RUNFILES_TICK_WAITING;
	if (dp_merge_prelock(c) == DP_DONE)
		return DP_DONE;
	(void)dp_react(c);
	*ended = RUNFILES_TICK_PAUSED;
	if ((s = dp_paused(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_BUSY;
	if ((s = dp_slot(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_LOW_MEMORY;
	if ((s = dp_memory(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_WAITING;
	if ((s = dp_orphans(c)) != DP_NEXT)
		return s;
	if ((s = dp_stuck(c)) != DP_NEXT)
		return s;
	*ended = RUNFILES_TICK_NOTHING_READY;
	return dp_backlog(c);
}

/*
 * The exit status: 1 when a write or a launch failed (a later tick tries
 * again), or when a read failed and the tick could do nothing at all;
 * else 0.
 */
static int
main_exit(const struct dev_ctx *c, enum dp_step s)
{
	/* Failed writes: act_tick_failed(). */
	if (c->failed > 0) {
		log_err("tick: %d launch(es) failed", c->failed);
		return CLI_EXIT_FAIL;
	}
	if ((s == DP_FAIL || c->skipped > 0) && c->acted == 0)
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}

static long long
main_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The tick's cost, at -v: what tests/bench reads. */
static void
main_summary(long long start)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		ru.ru_maxrss = 0;
	log_msg("tick: %lu requests, %lu processes, %lld ms, peak rss %ld kB",
	    http_request_count(), spawn_count(), main_now_ms() - start,
	    ru.ru_maxrss);
}

/*
 * The tick's metrics for a tick cron runs (not a one-shot, --status,
 * --help or a dry run): pt, or NULL.  rc is what cli_start() returned: a
 * run that could not start (2) is recorded when the configuration names
 * the project.
 */
static struct promtick *
main_prom(struct promtick *pt, const struct config *cfg, const struct cli *cli,
    int rc)
{
	if ((rc == -1 || rc == CLI_EXIT_USAGE) && !cli->dry_run &&
	    !cli->status && cli->issue == 0 && cfg->factory_root != NULL &&
	    cfg->run_dir != NULL && cfg->project_name != NULL &&
	    cfg->project_name[0] != '\0')
		return dp_prom_open(pt, cfg);
	promtick_free(pt);
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct dev_ctx ctx;
	struct cli cli;
	struct promtick *pt = promtick_new(main_tool.prog);
	char *msg = NULL, *status;
	const char *ended = NULL, *result = NULL;
	long long start = main_now_ms();
	enum dp_step s = DP_NEXT;
	int rc, fd = -1, r;

	memset(&cli, 0, sizeof(cli));
	rc = cli_start(argc, argv, &main_tool, &cli, &cfg, &msg);
	pt = main_prom(pt, &cfg, &cli, rc);
	if (rc != -1)
		goto out;
	rc = CLI_EXIT_OK;
	/* A one-shot is run by a person: the factory may be paused. */
	if (cli.issue == 0 && !cli_agent_active("dev")) {
		result = PROMTICK_INACTIVE;
		goto out;
	}
	if ((r = main_tick_lock(&cfg, &fd,
		 cli.issue > 0 ? ONESHOT_LOCK_WAIT : 0)) != 0) {
		rc = r == 1 && cli.issue == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
		if (rc == CLI_EXIT_OK)
			result = PROMTICK_LOCKED;
		if (cli.issue > 0)
			msg = xasprintf("dev-poll: cannot take the tick lock "
					"(see the log)\n");
		goto out;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	main_ctx_open(&ctx, &cfg, &cli);
	if (cli.issue > 0)
		rc = dp_oneshot(&ctx, cli.issue, cli.force, &msg);
	else
		s = main_tick(&ctx, &ended);
	dp_merge_finish(&ctx);
	if (cli.issue == 0) {
		dp_quiet_save(&ctx);
		rc = main_exit(&ctx, s);
		dp_tick_record(&ctx, s, ended);
	}
	/* A write that failed fails the tick, wherever it was. */
	status = main_status_path(&cfg);
	if (act_tick_failed(&ctx.act, status, main_tool.prog))
		rc = CLI_EXIT_FAIL;
	free(status);
	dp_prom_tick(pt, &ctx);
	main_ctx_close(&ctx);
	http_cleanup();
	curl_global_cleanup();
	if (cli.verbose)
		main_summary(start);
out:
	if (msg != NULL)
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
	free(msg);
	promtick_end(pt, rc, promtick_result(rc, result));
	lock_release(fd);
	log_close();
	config_free(&cfg);
	return rc;
}
