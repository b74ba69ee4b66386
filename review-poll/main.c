/*
 * review-poll: one tick of reviews and verdict routing for one project
 * (DESIGN section 7).  It never waits for an agent: a tick starts review
 * sessions and posts the reviews of the ones that finished since.  The
 * lifecycle around the steps is common/tick/tick.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apistop.h"
#include "cli.h"
#include "config.h"
#include "forge.h"
#include "log.h"
#include "pollers.h"
#include "promtick.h"
#include "review-poll.h"
#include "reviewers.h"
#include "runfiles.h"
#include "tick.h"
#include "woodpecker.h"

/* The review log is rotated past 100 KiB, as upstream. */
#define LOG_ROTATE (100 * 1024)

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static void main_open(struct tick *);
static int main_oneshot(struct tick *);
static void main_step(struct rp *, int);
static int main_run(struct tick *);
static void main_close(struct tick *);

/* The one-shot (--pr) waits for the review lock itself (oneshot.c). */
static const struct tick_tool main_tool = {
    .cli = {.prog = "review-poll",
	.takes_project = 1,
	.log_path = main_log_path,
	.status_path = main_status_path,
	.log_prefix = "",
	.rotate_bytes = LOG_ROTATE,
	.opts = CLI_OPT_PR,
	.report = pollers_report},
    .guard = "reviewer",
    .lock_path = runfiles_review_lock,
    .lock_held = "skip: another review-poll holds %s",
    .dry_run_unlocked = 1,
    .metrics = rp_prom_families,
    .load = rp_standback,
    .open = main_open,
    .oneshot = main_oneshot,
    .run = main_run,
    .close = main_close,
    .ctx_size = sizeof(struct rp),
};

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
main_open(struct tick *t)
{
	const struct config *cfg = &t->cfg;
	const char *token = cfg->forge_review_token;
	struct rp *rp = t->ctx;

	memset(rp, 0, sizeof(*rp));
	rp->alive = -1;
	rp->cfg = cfg;
	rp->set = cfg->review;
	rp->act.dry_run = t->cli.dry_run;
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
	    reviewers_open(cfg, rp->forge, rp->review, t->cli.dry_run);
	t->act = &rp->act;
}

static void
main_close(struct tick *t)
{
	struct rp *rp = t->ctx;

	rp_pulls_free(rp);
	woodpecker_close(rp->wp);
	reviewers_close(rp->reviewers);
	forge_close(rp->review);
	forge_close(rp->forge);
}

/* review-poll --pr N [--force]: that PR's review, waited for. */
static int
main_oneshot(struct tick *t)
{
	return rp_oneshot(t->ctx, t->cli.pr, t->cli.force, &t->msg);
}

/* A step's failure makes the tick fail, but the others still run. */
static void
main_step(struct rp *rp, int result)
{
	if (result == -1)
		rp->failed = 1;
}

/*
 * The tick: the open PRs read once, then the finished reviews cleaned
 * up, collected and routed, re-reviews and new reviews started.
 */
static int
main_run(struct tick *t)
{
	struct rp *rp = t->ctx;
	int rc = CLI_EXIT_FAIL, r;

	/*
	 * The first and last lines in review-poll.sh's words: upstream's
	 * readers of review.log (the supervisor's preflight, the operators'
	 * habits) look for them.  "reviewed" counts the reviews started.
	 */
	log_msg("--- Poll start ---");
	if (rp_pulls_read(rp) == -1)
		goto out;
	rp_files_memo_load(rp);
	main_step(rp, rp_cleanup(rp));
	main_step(rp, rp_collect(rp));
	main_step(rp, rp_route(rp));
	/* No review starts while an API error pauses the project. */
	apistop_use(rp->cfg);
	if ((r = apistop_paused(&rp->act, t->cfg.project_name, rp->now,
		 NULL)) == 0) {
		main_step(rp, rp_rereview(rp));
		main_step(rp, rp_review_new(rp));
	} else
		main_step(rp, r == -1 ? -1 : 0);
	rp_files_memo_save(rp);
	rp_status_tick(rp);
	log_msg("--- Poll done: %d reviewed, %d skipped ---", rp->launched,
	    rp->skipped);
	rc = rp->failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	rp_prom_tick(t->prom, rp);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct rp rp;

	memset(&rp, 0, sizeof(rp));
	return pollers_main(&main_tool, &rp, argc, argv);
}
