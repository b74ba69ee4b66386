/*
 * Legacy mode: with DEV_AGENT_CMD set, a launch starts that command
 * detached with the issue number (as dev-poll.sh started dev-agent.sh),
 * and the agent watches its own phases.  It is started through the
 * wrapper (agent_exec.h), which hands it the dev role's environment from
 * a private file, as dev-poll.sh exported it, and becomes it.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "agent_exec.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "log.h"
#include "runfiles.h"
#include "strv.h"
#include "xmalloc.h"

static char **legacy_cmd(const struct dev_ctx *, long long);
static int legacy_wrap(struct dev_ctx *, long long, char **, char ***, char **);

/* DEV_AGENT_CMD's words and the issue number.  Free with strv_free(). */
static char **
legacy_cmd(const struct dev_ctx *c, long long issue)
{
	char **argv;
	size_t n;

	argv = strv_split(c->cfg->dev_agent_cmd, &n);
	argv = xreallocarray(argv, n + 2, sizeof(*argv));
	argv[n] = xasprintf("%lld", issue);
	argv[n + 1] = NULL;
	return argv;
}

/*
 * The wrapper's command line for cmd into *argv, with the environment in
 * a new private file *envfile (none under dry-run, when nothing starts).
 * 0, or -1 (logged).
 */
static int
legacy_wrap(struct dev_ctx *c, long long issue, char **cmd, char ***argv,
    char **envfile)
{
	struct agent_exec x = {0};
	char exe[PATH_MAX], *tmpl, *session, **env;
	int r;

	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		log_err("ERROR: cannot tell the running executable");
		return -1;
	}
	dp_session_token_note(c);
	if (!c->act.dry_run) {
		session = runfiles_dev_session(c->cfg->project_name, issue);
		tmpl = runfiles_agent_env(session);
		env = config_agent_env(c->cfg, CONFIG_ROLE_DEV);
		r = agent_exec_env_write(tmpl, (const char *const *)env,
		    envfile);
		config_env_free(env);
		free(tmpl);
		free(session);
		if (r == -1) {
			log_err("ERROR: cannot write the dev agent's "
				"variables: %s",
			    strerror(errno));
			return -1;
		}
		x.env_file = *envfile;
	}
	*argv = agent_exec_argv(exe, &x, cmd);
	return 0;
}

enum dp_launch
dp_launch_legacy(struct dev_ctx *c, const struct dp_launch_req *req)
{
	char **cmd = legacy_cmd(c, req->issue), **argv = NULL;
	char *logpath = NULL, *what = NULL, *envfile = NULL;
	pid_t pid;
	int r = -1;

	if (legacy_wrap(c, req->issue, cmd, &argv, &envfile) == -1)
		goto out;
	logpath = runfiles_dev_log(c->cfg->project_name);
	what = xasprintf("the dev agent '%s %lld' for issue #%lld (%s)",
	    c->cfg->dev_agent_cmd, req->issue, req->issue, req->why);
	r = act_spawn(&c->act, argv, logpath, what, &pid);
	if (r == 0 && pid > 0)
		log_notice("started dev-agent PID %ld for issue #%lld (%s)",
		    (long)pid, req->issue, req->why);
	/* The wrapper removes it once read; a failed start leaves it. */
	if (r == -1 && envfile != NULL)
		(void)file_remove(envfile);
out:
	free(envfile);
	free(what);
	free(logpath);
	strv_free(argv);
	strv_free(cmd);
	return r == -1 ? DP_LAUNCH_FAILED : DP_LAUNCHED;
}
