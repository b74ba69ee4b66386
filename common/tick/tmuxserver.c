/*
 * The --tmux-server mode: start the tmux server the agent sessions live
 * in, with the non-secret part of the factory's .env as its global
 * environment, as a tick that starts it does (config_server_env(), through
 * the tmux client's process environment, never a command line), and exit.
 * For a service manager (contrib/systemd/disinto-tmux.service), whose
 * EnvironmentFile= reads neither `export` lines nor ${VAR} expansion as
 * .env is read here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "config.h"
#include "tmux.h"
#include "xmalloc.h"

/* tmux's complaint, one line, for the message; caller frees. */
static char *
tmuxserver_why(const struct buf *out)
{
	const char *s = out->data != NULL ? out->data : "";
	size_t n = strcspn(s, "\n");

	return n > 0 ? xasprintf(": %.*s", (int)n, s) : xstrdup("");
}

int
cli_tmux_server(const struct cli_tool *t, int argc, char *argv[], char **msg)
{
	struct config cfg;
	struct buf out;
	char err[1024], **env, *why;
	int rc = CLI_EXIT_OK;

	if (argc != 2) {
		*msg = xasprintf("%s: %s takes no other argument\n", t->prog,
		    CLI_TMUX_SERVER_MODE);
		return CLI_EXIT_USAGE;
	}
	(void)config_apply_path();
	if (config_load(&cfg, NULL, argv[0], err, sizeof(err)) == -1) {
		*msg = xasprintf("%s: %s\n", t->prog, err);
		config_free(&cfg);
		return CLI_EXIT_USAGE;
	}
	env = config_server_env(&cfg);
	tmux_set_socket(cfg.tmux_socket);
	tmux_set_server_env(env);
	config_env_free(env);
	buf_init(&out, 0);
	if (tmux_start_server(&out) == -1) {
		why = tmuxserver_why(&out);
		*msg = xasprintf("%s: cannot start the tmux server%s%s%s\n",
		    t->prog, cfg.tmux_socket != NULL ? " -L " : "",
		    cfg.tmux_socket != NULL ? cfg.tmux_socket : "", why);
		free(why);
		rc = CLI_EXIT_FAIL;
	}
	buf_free(&out);
	tmux_set_server_env(NULL);
	config_free(&cfg);
	return rc;
}
