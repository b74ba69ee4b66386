/*
 * supervisor-poll: one tick of the factory's supervisor (DESIGN section
 * 8): the host (memory, disk, logs), then every project file in
 * $FACTORY_ROOT/projects (or the environment alone when there is none):
 * CI, the dev factory's health, PRs, the backlog's dependencies,
 * escalations to humans and leftover sessions and worktrees.  Alerts that
 * remain go to the fix command once at the end.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "cli.h"
#include "config.h"
#include "forge.h"
#include "http.h"
#include "lock.h"
#include "log.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* The log is rotated past this size. */
#define LOG_ROTATE (5 * 1024 * 1024)

static char *main_log_path(const struct config *);
static char *main_status_path(const struct config *);
static int main_load_projects(const struct config *, const char *,
    struct config **, size_t *, char *, size_t);
static void main_free_projects(struct config *, size_t);
static int main_take_lock(int *);
static void main_check_project(struct sup *, const struct config *);
static void main_check_projects(struct sup *, struct config *, size_t);

static const struct cli_tool main_tool = {"supervisor-poll", 0, main_log_path,
    main_status_path, "", LOG_ROTATE};

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

/*
 * Load every project file ($FACTORY_ROOT/projects, *.toml), sorted,
 * before anything is done: one bad file stops the tick with its
 * file:line message.
 */
static int
main_load_projects(const struct config *base, const char *exe,
    struct config **out, size_t *n, char *msg, size_t msgsz)
{
	char *pattern = xasprintf("%s/projects/*.toml", base->factory_root);
	char err[512];
	glob_t g;
	size_t i;
	int r;

	*out = NULL;
	*n = 0;
	memset(&g, 0, sizeof(g));
	r = glob(pattern, 0, NULL, &g);
	free(pattern);
	if (r == GLOB_NOMATCH)
		return 0;
	if (r != 0) {
		snprintf(msg, msgsz, "cannot list the project files");
		return -1;
	}
	*out = xcalloc(g.gl_pathc, sizeof(**out));
	for (i = 0; i < g.gl_pathc; i++) {
		(*n)++;
		if (config_load(&(*out)[i], g.gl_pathv[i], exe, err,
			sizeof(err)) == -1) {
			snprintf(msg, msgsz, "%s", err);
			globfree(&g);
			return -1;
		}
	}
	globfree(&g);
	return 0;
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
		log_msg("cannot take the lock '%s': %s", path, strerror(errno));
	free(path);
	return r;
}

static void
main_check_project(struct sup *s, const struct config *cfg)
{
	s->cfg = cfg;
	s->review_started = 0;
	log_msg("checking project %s (%s)", cfg->project_name, cfg->forge_repo);
	if (cfg->forge_repo[0] == '\0') {
		log_msg("%s: no FORGE_REPO: project checks skipped",
		    cfg->project_name);
		return;
	}
	s->forge = forge_open(cfg->forge_api, cfg->forge_token);
	if (config_woodpecker_configured(cfg))
		s->wp = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	s->act.forge = s->forge;
	s->act.wp = s->wp;
	pipelines_check(s);
	devhealth_check(s);
	prs_check(s);
	backlog_check(s);
	escalate_check(s);
	sweep_sessions(s);
	sweep_worktrees(s);
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
}

int
main(int argc, char *argv[])
{
	struct config cfg, *projects = NULL;
	struct cli cli;
	struct sup s;
	size_t nprojects = 0, i;
	char msg[1024];
	int rc, lockfd = -1;

	memset(&s, 0, sizeof(s));
	rc = cli_start(argc, argv, &main_tool, &cli, &cfg, msg, sizeof(msg));
	if (rc != -1) {
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
		goto out;
	}
	if (main_load_projects(&cfg, argv[0], &projects, &nprojects, msg,
		sizeof(msg)) == -1) {
		fprintf(stderr, "supervisor-poll: %s\n", msg);
		rc = cli_fail(&main_tool, &cfg, msg);
		goto out;
	}
	for (i = 0; i < nprojects; i++)
		cli_log_warnings(&projects[i], cli.verbose);
	if ((rc = main_take_lock(&lockfd)) != 0) {
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
	replyfile_check(&s);
	fixer_run(&s);
	rc = s.failed || s.act.failed > 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	http_cleanup();
	curl_global_cleanup();
out:
	lock_release(lockfd);
	sup_free(&s);
	main_free_projects(projects, nprojects);
	log_close();
	config_free(&cfg);
	return rc;
}
