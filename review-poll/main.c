/*
 * review-poll: one tick of reviews and verdict routing for one project
 * (DESIGN section 7).  It never waits for an agent: a tick starts review
 * sessions and posts the reviews of the ones that finished since.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "act.h"
#include "apistop.h"
#include "cli.h"
#include "config.h"
#include "forge.h"
#include "http.h"
#include "lock.h"
#include "log.h"
#include "promtick.h"
#include "review-poll.h"
#include "reviewers.h"
#include "runfiles.h"
#include "woodpecker.h"

/* The review log is rotated past 100 KiB, as upstream. */
#define LOG_ROTATE (100 * 1024)

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static void main_rp_open(struct rp *, const struct config *,
    const struct cli *);
static void main_rp_close(struct rp *);
static int main_take_lock(struct rp *, int *);
static void main_step(struct rp *, int);
static struct promtick *main_prom(struct promtick *, const struct config *,
    const struct cli *, int);

static const struct cli_tool main_tool = {"review-poll", 1, main_log_path,
    main_status_path, "", LOG_ROTATE, CLI_OPT_PR};

static char *
main_log_path(const struct config *cfg)
{
	(void)cfg;
	return runfiles_review_log();
}

static char *
main_status_path(const struct config *cfg)
{
	return cfg->project_name[0] ?
	    runfiles_review_status(cfg->project_name) :
	    NULL;
}

/* The tick's context: settings (borrowed from cfg), forge handles, CI. */
static void
main_rp_open(struct rp *rp, const struct config *cfg, const struct cli *cli)
{
	const char *token = cfg->forge_review_token;

	memset(rp, 0, sizeof(*rp));
	rp->alive = -1;
	rp->cfg = cfg;
	rp->set = cfg->review;
	rp->act.dry_run = cli->dry_run;
	rp->now = time(NULL);
	if (token == NULL || token[0] == '\0') {
		log_warn("no FORGE_REVIEW_TOKEN: reviewing with FORGE_TOKEN");
		token = cfg->forge_token;
	}
	rp->forge = forge_open(cfg->forge_api, cfg->forge_token);
	rp->review = forge_open(cfg->forge_api, token);
	if (config_woodpecker_configured(cfg))
		rp->wp = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	rp->act.forge = rp->review;
	rp->act.wp = rp->wp;
	rp->reviewers =
	    reviewers_open(cfg, rp->forge, rp->review, cli->dry_run);
}

static void
main_rp_close(struct rp *rp)
{
	rp_pulls_free(&rp->pulls);
	prmemo_free(&rp->files_memo);
	woodpecker_close(rp->wp);
	reviewers_close(rp->reviewers);
	forge_close(rp->review);
	forge_close(rp->forge);
}

/* The review lock for the tick: 0 taken, 1 held elsewhere, -1 error. */
static int
main_take_lock(struct rp *rp, int *fd)
{
	char *path = runfiles_review_lock(rp->cfg->project_name);
	int r;

	*fd = -1;
	if (rp->act.dry_run) {
		log_msg("dry-run: not taking the lock %s", path);
		free(path);
		return 0;
	}
	r = lock_take(path, fd);
	if (r == 1)
		log_msg("skip: another review-poll holds %s", path);
	else if (r == -1)
		log_err("cannot lock '%s'", path);
	free(path);
	return r;
}

/* A step's failure makes the tick fail, but the others still run. */
static void
main_step(struct rp *rp, int result)
{
	if (result == -1)
		rp->failed = 1;
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
	    !cli->status && cli->pr == 0 && cfg->factory_root != NULL &&
	    cfg->run_dir != NULL && cfg->project_name != NULL &&
	    cfg->project_name[0] != '\0')
		return rp_prom_open(pt, cfg);
	promtick_free(pt);
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct cli cli;
	struct rp rp;
	struct promtick *pt = promtick_new(main_tool.prog);
	char *msg = NULL, *status;
	const char *result = NULL;
	int rc, lockfd = -1, opened = 0, r;

	memset(&cli, 0, sizeof(cli));
	rc = cli_start(argc, argv, &main_tool, &cli, &cfg, &msg);
	pt = main_prom(pt, &cfg, &cli, rc);
	if (rc != -1)
		goto out;
	rc = CLI_EXIT_OK;
	/* A one-shot is run by a person: the factory may be paused. */
	if (cli.pr == 0 && !cli_agent_active("reviewer")) {
		result = PROMTICK_INACTIVE;
		goto out;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	main_rp_open(&rp, &cfg, &cli);
	opened = 1;
	if (cli.pr > 0) {
		rc = rp_oneshot(&rp, cli.pr, cli.force, &msg);
		goto done;
	}
	if ((rc = main_take_lock(&rp, &lockfd)) != 0) {
		if (rc == 1)
			result = PROMTICK_LOCKED;
		rc = rc == 1 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
		goto done;
	}
	log_msg("--- poll start ---");
	if (rp_pulls_read(&rp) == -1) {
		rc = CLI_EXIT_FAIL;
		goto done;
	}
	rp_files_memo_load(&rp);
	main_step(&rp, rp_cleanup(&rp));
	main_step(&rp, rp_collect(&rp));
	main_step(&rp, rp_route(&rp));
	/* No review starts while an API error pauses the project. */
	if ((r = apistop_paused(&rp.act, cfg.project_name, rp.now, NULL)) ==
	    0) {
		main_step(&rp, rp_rereview(&rp));
		main_step(&rp, rp_review_new(&rp));
	} else
		main_step(&rp, r == -1 ? -1 : 0);
	rp_files_memo_save(&rp);
	rp_status_tick(&rp);
	log_msg("--- poll done: %d review(s) started ---", rp.launched);
	rc = rp.failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	/* A write that failed fails the tick, wherever it was. */
	status = main_status_path(&cfg);
	if (act_tick_failed(&rp.act, status, main_tool.prog))
		rc = CLI_EXIT_FAIL;
	free(status);
done:
	lock_release(lockfd);
	if (opened) {
		rp_prom_tick(pt, &rp);
		main_rp_close(&rp);
	}
	http_cleanup();
	curl_global_cleanup();
out:
	if (msg != NULL)
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
	free(msg);
	promtick_end(pt, rc, promtick_result(rc, result));
	log_close();
	config_free(&cfg);
	return rc;
}
