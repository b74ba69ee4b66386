/*
 * Start-up shared by the executables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cli.h"
#include "config.h"
#include "file.h"
#include "http.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

int
cli_parse(int argc, char *argv[], int takes_project, struct cli *out, char *err,
    size_t errsz)
{
	int i, operands = 0;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--dry-run") == 0 || strcmp(a, "-n") == 0)
			out->dry_run = 1;
		else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
			out->verbose = 1;
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return 1;
		else if (strcmp(a, "--") == 0 && i + 1 < argc && !operands++ &&
		    takes_project)
			out->project_toml = argv[++i];
		else if (a[0] == '-') {
			snprintf(err, errsz, "unknown option '%s'", a);
			return -1;
		} else if (!takes_project || operands++) {
			snprintf(err, errsz, "unexpected argument '%s'", a);
			return -1;
		} else
			out->project_toml = a;
	}
	return 0;
}

char *
cli_usage(const char *prog, int takes_project)
{
	return xasprintf("usage: %s [--dry-run] [-v]%s", prog,
	    takes_project ? " [PROJECT_TOML]" : "");
}

int
cli_configure(struct config *cfg, const struct cli *cli,
    const char *project_toml, const char *exe, char *err, size_t errsz)
{
	struct http_opts ho;

	if (config_load(cfg, project_toml ? project_toml : cli->project_toml,
		exe, err, errsz) == -1)
		return -1;
	runfiles_init(cfg->run_dir, cfg->factory_root);
	http_get_opts(&ho);
	ho.connect_timeout_ms = cfg->http_connect_timeout_ms;
	ho.timeout_ms = cfg->http_timeout_ms;
	ho.retries = cfg->http_retries;
	ho.backoff_ms = cfg->http_backoff_ms;
	http_set_opts(&ho);
	(void)agent_use(&(struct agent_conf) {.state_dir = cfg->run_dir,
	    .tmux_socket = cfg->tmux_socket});
	return 0;
}

void
cli_log_warnings(const struct config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nwarnings; i++)
		log_msg("warning: %s", cfg->warnings[i]);
}

int
cli_agent_active(const char *agent)
{
	char *flag = runfiles_active_flag(agent);
	int active = file_exists(flag);

	if (!active)
		log_msg("%s not active — skipping", agent);
	free(flag);
	return active;
}

int
cli_start(int argc, char *argv[], const char *prog, int takes_project,
    char *(*log_path_fn)(const struct config *), const char *log_prefix,
    size_t rotate_bytes, struct cli *cli, struct config *cfg, char *msg,
    size_t msgsz)
{
	char err[512], *usage = cli_usage(prog, takes_project), *path = NULL;
	int r, rc = -1;

	msg[0] = '\0';
	memset(cfg, 0, sizeof(*cfg));
	r = cli_parse(argc, argv, takes_project, cli, err, sizeof(err));
	if (r != 0) {
		if (r == 1)
			snprintf(msg, msgsz, "%s\n", usage);
		else
			snprintf(msg, msgsz, "%s: %s\n%s\n", prog, err, usage);
		rc = r == 1 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
		goto out;
	}
	if (cli_configure(cfg, cli, NULL, argv[0], err, sizeof(err)) == -1) {
		snprintf(msg, msgsz, "%s: %s\n", prog, err);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (takes_project && cfg->project_name[0] == '\0') {
		snprintf(msg, msgsz,
		    "%s: PROJECT_NAME: '' is empty: give a project file or set "
		    "FORGE_REPO\n",
		    prog);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	path = log_path_fn(cfg);
	/* Without a log file, -v still shows every line on stderr. */
	(void)log_open(path, log_prefix, rotate_bytes, cli->verbose);
	cli_log_warnings(cfg);
out:
	free(path);
	free(usage);
	return rc;
}
