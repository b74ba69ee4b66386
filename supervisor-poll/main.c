/*
 * supervisor-poll: one tick of the factory's supervisor (DESIGN section
 * 8): the host (memory, disk, logs), then every project file in
 * $FACTORY_ROOT/projects (or the environment alone when there is none):
 * CI, the dev factory's health, PRs, the backlog's dependencies,
 * escalations to humans and leftover sessions and worktrees.  Alerts that
 * remain go to the fix command once at the end.  The lifecycle around
 * the steps is common/tick/tick.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "config.h"
#include "forge.h"
#include "log.h"
#include "pollers.h"
#include "promtick.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "tick.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* The log is rotated past this size. */
#define LOG_ROTATE (5 * 1024 * 1024)

/* The tick's state: the checks', and the project files they go over. */
struct main_state {
	struct sup s;
	struct config *projects;
	size_t nprojects;
};

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static char *main_lock_path(const char *);
static int main_load(struct tick *);
static void main_open(struct tick *);
static void main_check_project(struct sup *, const struct config *);
static void main_check_projects(struct sup *, struct config *, size_t);
static int main_run(struct tick *);
static void main_close(struct tick *);

static const struct tick_tool main_tool = {
    .cli = {.prog = "supervisor-poll",
	.takes_project = 0,
	.log_path = main_log_path,
	.status_path = main_status_path,
	.log_prefix = "",
	.rotate_bytes = LOG_ROTATE,
	.opts = CLI_OPT_PROJECT,
	.report = pollers_report},
    .lock_path = main_lock_path,
    .metrics = sup_prom_families,
    .load = main_load,
    .open = main_open,
    .run = main_run,
    .close = main_close,
    .ctx_size = sizeof(struct main_state),
};

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

static char *
main_lock_path(const char *project)
{
	(void)project;
	return runfiles_supervisor_lock();
}

/* Every project file (or only --project's) loads before any check. */
static int
main_load(struct tick *t)
{
	struct main_state *m = t->ctx;
	char err[1024];
	size_t i;

	if (cli_projects_load(&t->cfg, t->exe, t->cli.project, &m->projects,
		&m->nprojects, err, sizeof(err)) == -1) {
		t->msg = xasprintf("%s: %s\n", t->tool->cli.prog, err);
		return cli_fail(&t->tool->cli, &t->cfg, err);
	}
	for (i = 0; i < m->nprojects; i++)
		cli_log_warnings(&m->projects[i], t->cli.verbose);
	return -1;
}

static void
main_open(struct tick *t)
{
	struct main_state *m = t->ctx;
	struct sup *s = &m->s;
	size_t i;

	s->base = s->cfg = &t->cfg;
	s->act.dry_run = t->cli.dry_run;
	s->now = time(NULL);
	s->prom = t->prom;
	for (i = 0; i < NPRIO; i++)
		buf_init(&s->alerts[i], 0);
	buf_init(&s->fixes, 0);
	t->act = &s->act;
}

static void
main_close(struct tick *t)
{
	struct main_state *m = t->ctx;
	size_t i;

	m->s.prom = NULL;
	sup_free(&m->s);
	for (i = 0; i < m->nprojects; i++)
		config_free(&m->projects[i]);
	free(m->projects);
	m->projects = NULL;
	m->nprojects = 0;
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
	sup_escalations(s);
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
 * The tick: the host, every project, the unnamed replies; the alerts
 * raised into the metrics, then to the fix command.
 */
static int
main_run(struct tick *t)
{
	struct main_state *m = t->ctx;
	struct sup *s = &m->s;

	metrics_rotate(s);
	host_check(s);
	main_check_projects(s, m->projects, m->nprojects);
	/* Unnamed replies go to the only escalation: of every project. */
	if (t->cli.project == NULL)
		replyfile_check(s);
	/* The alerts raised, before the fix command clears any. */
	sup_prom_tick(t->prom, s,
	    m->nprojects > 0 ? m->nprojects : t->cfg.forge_repo[0] != '\0');
	fixer_run(s);
	return s->failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct main_state m;

	memset(&m, 0, sizeof(m));
	return pollers_main(&main_tool, &m, argc, argv);
}
