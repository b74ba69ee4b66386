/*
 * dev-poll: one reconciliation tick of the dev factory for one project
 * (DESIGN section 5).  Today it loads and checks the
 * configuration and honours the active guard; the
 * reconciliation steps come with later work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"
#include "config.h"
#include "http.h"
#include "log.h"
#include "runfiles.h"

/* The log is rotated past this size. */
#define LOG_ROTATE (5 * 1024 * 1024)

static char	*log_path(const struct config *);

static char *
log_path(const struct config *cfg)
{
	return runfiles_dev_log(cfg->project_name);
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct cli cli;
	char msg[1024];
	int rc;

	rc = cli_start(argc, argv, "dev-poll", 1, log_path, "poll: ", LOG_ROTATE,
	    &cli, &cfg, msg, sizeof(msg));
	if (rc != -1) {
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
		goto out;
	}
	rc = CLI_EXIT_OK;
	if (!cli_agent_active("dev"))
		goto out;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	log_msg("tick: nothing to do yet");
	http_cleanup();
	curl_global_cleanup();
out:
	log_close();
	config_free(&cfg);
	return rc;
}
