/*
 * review-poll: one tick of reviews and verdict routing for one project
 * (DESIGN section 7).  Today it loads and checks the
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

/* The review log is rotated past 100 KiB, as upstream. */
#define LOG_ROTATE (100 * 1024)

static char	*log_path(const struct config *);

static char *
log_path(const struct config *cfg)
{
	(void)cfg;
	return runfiles_review_log();
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct cli cli;
	char msg[1024];
	int rc;

	rc = cli_start(argc, argv, "review-poll", 1, log_path, "", LOG_ROTATE,
	    &cli, &cfg, msg, sizeof(msg));
	if (rc != -1) {
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
		goto out;
	}
	rc = CLI_EXIT_OK;
	if (!cli_agent_active("reviewer"))
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
