/*
 * The table of the tools' files for `--status`, and their main().
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pollers.h"
#include "prom.h"
#include "runfiles.h"
#include "status.h"
#include "tick.h"
#include "webhook.h"

static char *pollers_supervisor_status(const char *);
static char *pollers_supervisor_log(const char *);
static char *pollers_review_log(const char *);
static char *pollers_metrics(const char *, const char *);
static char *pollers_dev_tick(const char *);
static char *pollers_review_tick(const char *);
static char *pollers_supervisor_tick(const char *);

const struct status_file pollers_report[] = {
    {"  dev-poll tick:", "dev_tick", 1, 0, 1, pollers_dev_tick},
    {"  dev-poll:", "dev_status", 1, 0, 0, runfiles_dev_status},
    {"  last log line:", "dev_last_log", 1, 1, 0, runfiles_dev_log},
    {"  review tick:", "review_tick", 1, 0, 1, pollers_review_tick},
    {"  review-poll:", "review_status", 1, 0, 0, runfiles_review_status},
    {"supervisor tick:", "supervisor.tick", 0, 0, 1, pollers_supervisor_tick},
    {"supervisor-poll:", "supervisor.status", 0, 0, 0,
	pollers_supervisor_status},
    {"  last log line:", "supervisor.last_log", 0, 1, 0,
	pollers_supervisor_log},
    {"review log:", "review.last_log", 0, 1, 0, pollers_review_log},
    {NULL, NULL, 0, 0, 0, NULL},
};

/* The metrics file of tool's ticks for project (or none).  Caller frees. */
static char *
pollers_metrics(const char *tool, const char *project)
{
	struct prom *p = prom_new(tool, project);
	char *dir, *path;

	if (p == NULL)
		return NULL;
	dir = runfiles_metrics_dir();
	path = prom_path(p, dir);
	free(dir);
	prom_free(p);
	return path;
}

static char *
pollers_dev_tick(const char *project)
{
	return pollers_metrics("dev-poll", project);
}

static char *
pollers_review_tick(const char *project)
{
	return pollers_metrics("review-poll", project);
}

/* supervisor-poll's ticks are the factory's (project is NULL). */
static char *
pollers_supervisor_tick(const char *project)
{
	return pollers_metrics("supervisor-poll", project);
}

/* The factory's files (project is NULL).  Caller frees. */
static char *
pollers_supervisor_status(const char *project)
{
	(void)project;
	return runfiles_supervisor_status();
}

static char *
pollers_supervisor_log(const char *project)
{
	(void)project;
	return runfiles_supervisor_log();
}

static char *
pollers_review_log(const char *project)
{
	(void)project;
	return runfiles_review_log();
}

int
pollers_main(const struct tick_tool *tool, void *ctx, int argc, char *argv[])
{
	char *msg, *note;
	int rc;

	/* A forge webhook delivery on stdin, answered on stdout. */
	if (argc >= 2 && strcmp(argv[1], WEBHOOK_MODE) == 0)
		return webhook_main(argv[0], STDIN_FILENO, STDOUT_FILENO);
	rc = tick_main(tool, ctx, argc, argv, &msg, &note);
	if (note != NULL)
		fputs(note, stderr);
	if (msg != NULL)
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
	free(note);
	free(msg);
	return rc;
}
