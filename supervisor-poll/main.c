/*
 * supervisor-poll: one tick of escalations, host and per-project health
 * (DESIGN section 8).  Today it loads and checks the
 * configuration; the
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
	(void)cfg;
	return runfiles_supervisor_log();
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct cli cli;
	char msg[1024];
	int rc;

	rc = cli_start(argc, argv, "supervisor-poll", 0, log_path, "", LOG_ROTATE,
	    &cli, &cfg, msg, sizeof(msg));
	if (rc != -1) {
		fputs(msg, rc == CLI_EXIT_OK ? stdout : stderr);
		goto out;
	}
	rc = CLI_EXIT_OK;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	log_msg("tick: nothing to do yet");
	http_cleanup();
	curl_global_cleanup();
out:
	log_close();
	config_free(&cfg);
	return rc;
}
