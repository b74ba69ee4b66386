/*
 * supervisor-poll: one tick of the factory's supervisor (DESIGN section
 * 8): the host (memory, disk, logs), then every project file in
 * $FACTORY_ROOT/projects (or the environment alone when there is none):
 * CI, the dev factory's health, PRs, the backlog's dependencies,
 * escalations to humans and leftover sessions and worktrees.  Alerts that
 * remain go to the fix command once at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "act.h"
#include "cli.h"
#include "config.h"
#include "forge.h"
#include "http.h"
#include "lock.h"
#include "log.h"
#include "promtick.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* The log is rotated past this size. */
#define LOG_ROTATE (5 * 1024 * 1024)

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static void main_free_projects(struct config *, size_t);
static int main_take_lock(int *);
static void main_check_project(struct sup *, const struct config *);
static void main_check_projects(struct sup *, struct config *, size_t);
static struct promtick *main_prom(struct promtick *, const struct config *,
    const struct cli *, int);

static const struct cli_tool main_tool = {"supervisor-poll", 0, main_log_path,
    main_status_path, "", LOG_ROTATE, CLI_OPT_PROJECT};

static char *
main_log_path(const struct config *cfg)
{
	(void)cfg;
	return runfiles_supervisor_log();
}

static char *
main_status_path(const struct config *cfg)
{
	(void)cfg;
	return runfiles_supervisor_status();
}

static void
main_free_projects(struct config *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		config_free(&p[i]);
	free(p);
}

/* The tick lock: 0 taken, 1 another tick runs, -1 error (logged). */
static int
main_take_lock(int *fd)
{
	char *path = runfiles_supervisor_lock();
	int r = lock_take(path, fd);

	if (r == -1)
		log_err("cannot take the lock '%s': %s", path, strerror(errno));
	free(path);
	return r;
}

static void
main_check_project(struct sup *s, const struct config *cfg)
{
	char err[512];

	s->cfg = cfg;
	s->review_started = 0;
	log_msg("checking project %s (%s)", cfg->project_name, cfg->forge_repo);
	if (cfg->forge_repo[0] == '\0') {
		log_warn("%s: no FORGE_REPO: project checks skipped",
		    cfg->project_name);
		return;
	}
	/* Each project talks to its agents through its own protocol. */
	if (cli_agent_use(cfg, err, sizeof(err)) == -1) {
		sup_fail(s, "%s: project checks skipped", err);
		return;
	}
	if (s->prom != NULL)
		(void)promtick_watch(s->prom, cfg);
	s->forge = forge_open(cfg->forge_api, cfg->forge_token);
	if (config_woodpecker_configured(cfg))
		s->wp = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	s->act.forge = s->forge;
	s->act.wp = s->wp;
	pipelines_check(s);
	devhealth_check(s);
	prs_check(s);
	depgraph_check(s);
	escalate_check(s);
	sweep_sessions(s);
	sweep_worktrees(s);
	lists_free(s);
	forge_close(s->forge);
	woodpecker_close(s->wp);
	s->forge = NULL;
	s->wp = NULL;
	s->act.forge = NULL;
	s->act.wp = NULL;
}

static void
main_check_projects(struct sup *s, struct config *projects, size_t n)
{
	char err[512];
	size_t i;

	sup_status(s, "checking projects");
	if (n == 0) {
		log_msg("no projects/*.toml: checking the project of the "
			"environment");
		main_check_project(s, s->base);
	}
	for (i = 0; i < n; i++)
		main_check_project(s, &projects[i]);
	s->cfg = s->base;
	(void)cli_agent_use(s->base, err, sizeof(err));
}

/*
 * The tick's metrics for a tick cron runs (not --status, --help or a dry
 * run): pt, or NULL.  rc is what cli_start() returned: a run that could
 * not start (2) is recorded when the factory is known.
 */
static struct promtick *
main_prom(struct promtick *pt, const struct config *cfg, const struct cli *cli,
    int rc)
{
	if ((rc == -1 || rc == CLI_EXIT_USAGE) && !cli->dry_run &&
	    !cli->status && cfg->factory_root != NULL && cfg->run_dir != NULL)
		return sup_prom_open(pt, cfg, cli->project);
	promtick_free(pt);
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct config cfg, *projects = NULL;
	struct cli cli;
	struct sup s;
	size_t nprojects = 0, i;
	char *msg = NULL, err[1024], *status;
	const char *result = NULL;
	int rc, lockfd = -1;

	memset(&s, 0, sizeof(s));
	memset(&cli, 0, sizeof(cli));
	s.prom = promtick_new(main_tool.prog);
	rc = cli_start(argc, argv, &main_tool, &cli, &cfg, &msg);
	s.prom = main_prom(s.prom, &cfg, &cli, rc);
	if (rc != -1)
		goto out;
	/* Every project file (or only --project's) loads before any check. */
	if (cli_projects_load(&cfg, argv[0], cli.project, &projects, &nprojects,
		err, sizeof(err)) == -1) {
		msg = xasprintf("supervisor-poll: %s\n", err);
		rc = cli_fail(&main_tool, &cfg, err);
		goto out;
	}
	for (i = 0; i < nprojects; i++)
		cli_log_warnings(&projects[i], cli.verbose);
	if ((rc = main_take_lock(&lockfd)) != 0) {
		if (rc == 1)
			result = PROMTICK_LOCKED;
		rc = rc == 1 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
		goto out;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	s.base = s.cfg = &cfg;
	s.act.dry_run = cli.dry_run;
	s.now = time(NULL);
	for (i = 0; i < NPRIO; i++)
		buf_init(&s.alerts[i], 0);
	buf_init(&s.fixes, 0);
	metrics_rotate(&s);
	host_check(&s);
	main_check_projects(&s, projects, nprojects);
	/* Unnamed replies go to the only escalation: of every project. */
	if (cli.project == NULL)
		replyfile_check(&s);
	/* The alerts raised, before the fix command clears any. */
	sup_prom_tick(s.prom, &s,
	    nprojects > 0 ? nprojects : cfg.forge_repo[0] != '\0');
	fixer_run(&s);
	rc = s.failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	/* A write that failed fails the tick, wherever it was. */
	status = main_status_path(&cfg);
	if (act_tick_failed(&s.act, status, main_tool.prog))
		rc = CLI_EXIT_FAIL;
	free(status);
	http_cleanup();
	curl_global_cleanup();
out:
	if (msg != NULL)
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
	free(msg);
	promtick_end(s.prom, rc, promtick_result(rc, result));
	s.prom = NULL;
	lock_release(lockfd);
	sup_free(&s);
	main_free_projects(projects, nprojects);
	log_close();
	config_free(&cfg);
	return rc;
}
