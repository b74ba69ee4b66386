/*
 * A dev session of an issue: whether one lives, and its start in an
 * existing worktree (hooks, stale markers removed, the agent started
 * with the dev role's environment, readiness, the prompt delivered),
 * which every launch uses, the phase loop's crash recovery included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act.h"
#include "agent.h"
#include "agent_hooks.h"
#include "config.h"
#include "crashpoint.h"
#include "dev-poll.h"
#include "log.h"
#include "parked.h"
#include "runfiles.h"
#include "strv.h"
#include "xmalloc.h"

/* Seconds the agent may take to show its prompt. */
#define READY_TIMEOUT 120
/* The key of a session's first prompt starts so (then the launch's). */
#define SESSION_PROMPT_KEY "prompt "
/* Before the launch prompt, when it is given again after a compaction. */
#define SESSION_CONTEXT_HEAD                                                 \
	"The conversation was compacted. The task this session was started " \
	"with, and its protocol, still hold; as given at the start:\n\n"

static int session_context(struct dev_ctx *, const char *, const char *);
static int session_hooks(struct dev_ctx *, const char *, const char *,
    long long);
static char **session_argv(const struct dev_ctx *, const char *);
static int session_run(struct dev_ctx *, const char *, const char *, long long,
    const char *, const char *, const char *);

enum dp_busy
dp_session_busy(struct dev_ctx *c, long long issue)
{
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	enum dp_busy r = DP_FREE;
	struct parked p;

	switch (dp_parked(c, issue, &p)) {
	case 1:
		log_msg("issue #%lld is a parked escalation, waiting for a "
			"human reply — skipping",
		    issue);
		free(session);
		return DP_BUSY;
	case -1:
		free(session);
		return DP_BUSY_UNKNOWN;
	default:
		break;
	}
	switch (agent_alive(session)) {
	case 1:
		log_msg("issue #%lld already has active session %s — skipping",
		    issue, session);
		r = DP_BUSY;
		break;
	case 0:
		break;
	default:
		log_warn("cannot tell whether session %s lives", session);
		r = DP_BUSY_UNKNOWN;
		break;
	}
	free(session);
	return r;
}

/*
 * The session's hooks, and no ready marker of a previous session of the
 * name (the hooks' own markers go with their installation).
 */
static int
session_hooks(struct dev_ctx *c, const char *session, const char *worktree,
    long long issue)
{
	char *phase = runfiles_phase(c->cfg->project_name, issue);
	char *summary = runfiles_summary(c->cfg->project_name, issue);
	char *ready = runfiles_ready_marker(session);
	char *claude_id = runfiles_claude_id(session);
	char *context =
	    runfiles_session_file(session, RUNFILES_SESSION_CONTEXT);
	struct agent_hooks h = {.session = session,
	    .workdir = worktree,
	    .phase_file = phase,
	    .primary_branch = c->cfg->primary_branch,
	    .factory_root = c->cfg->factory_root,
	    .run_dir = c->cfg->run_dir,
	    .forge_url = c->cfg->forge_url,
	    .forge_api = c->cfg->forge_api,
	    .own_file = summary,
	    .context_file = context,
	    .wake = c->cfg->wake,
	    .project_toml = c->cfg->project_toml};
	int r;

	if ((r = agent_hooks_install(&c->act, &h)) == 0) {
		(void)act_remove(&c->act, ready);
		/* A new session's Stop hook tells its own. */
		(void)act_remove(&c->act, claude_id);
	}
	free(context);
	free(claude_id);
	free(ready);
	free(summary);
	free(phase);
	return r;
}

/*
 * The task the session starts with, kept in its directory for its
 * SessionStart hook to give again after a compaction.  0 or -1.
 */
static int
session_context(struct dev_ctx *c, const char *session, const char *prompt)
{
	char *dir = runfiles_session_dir(session);
	char *path = runfiles_session_file(session, RUNFILES_SESSION_CONTEXT);
	char *text = xasprintf(SESSION_CONTEXT_HEAD "%s", prompt);
	int r = -1;

	if (act_mkdir(&c->act, dir) == 0 &&
	    act_write(&c->act, path, text, 0) == 0)
		r = 0;
	free(text);
	free(path);
	free(dir);
	return r;
}

/*
 * The agent command's words, with "--resume ID" when resume names a
 * conversation to go on with.  Free with strv_free().
 */
static char **
session_argv(const struct dev_ctx *c, const char *resume)
{
	char **argv = strv_split(c->cfg->agent_cmd, NULL);
	size_t n;

	if (resume == NULL || argv[0] == NULL)
		return argv;
	for (n = 0; argv[n] != NULL; n++)
		;
	argv = xreallocarray(argv, n + 3, sizeof(*argv));
	argv[n] = xstrdup("--resume");
	argv[n + 1] = xstrdup(resume);
	argv[n + 2] = NULL;
	return argv;
}

void
dp_session_token_note(const struct dev_ctx *c)
{
	if (c->cfg->forge_agent_token[0] != '\0')
		return;
	log_warn("the dev agent gets FORGE_TOKEN, the dev bot's: "
		 "FORGE_AGENT_TOKEN is unset (give the agents a forge user "
		 "of their own that cannot merge or approve: docs/SECURITY.md, "
		 "\"Least privilege\")");
}

/*
 * Start the agent in worktree (resuming the conversation resume, or
 * NULL: a new one), wait until it is ready and deliver prompt under key
 * (recorded before the start: a tick cut off after the start leaves it
 * to the next, dp_session_finish()); a session the prompt did not reach
 * is stopped.  0 or -1 (logged).
 */
static int
session_run(struct dev_ctx *c, const char *session, const char *worktree,
    long long issue, const char *resume, const char *key, const char *prompt)
{
	char **argv = session_argv(c, resume);
	char **env = config_agent_env(c->cfg, CONFIG_ROLE_DEV);
	char *ready = runfiles_ready_marker(session);
	char *phase = runfiles_phase(c->cfg->project_name, issue);
	struct agent_spec spec = {.session = session,
	    .workdir = worktree,
	    .trust_dir = c->cfg->project_repo_root,
	    .argv = argv,
	    .env = (const char *const *)env,
	    .signal_path = phase,
	    .ready_pattern = c->cfg->agent_ready_pattern,
	    .ready_marker = ready,
	    .ready_timeout_s = READY_TIMEOUT,
	    .first_key = key,
	    .first_text = prompt};
	int r = -1;

	if (argv[0] == NULL) {
		log_err("ERROR: the agent command is empty");
		goto out;
	}
	dp_session_token_note(c);
	if (!c->act.dry_run)
		(void)dp_status(c, "creating tmux session: %s", session);
	if (act_agent_start(&c->act, &spec) == -1)
		goto out;
	/* In the session's directory, which its start made anew. */
	if (resume == NULL && session_context(c, session, prompt) == -1)
		log_warn("session %s: its task is not kept for a compaction",
		    session);
	crashpoint("session-started");
	switch (act_inject(&c->act, session, key, prompt)) {
	case ACT_INJECTED:
		log_msg("initial prompt sent to session %s", session);
		/* FALLTHROUGH */
	case ACT_INJECT_DRY:
		r = 0;
		break;
	default:
		log_err("ERROR: the prompt did not reach session %s — "
			"stopping it",
		    session);
		(void)act_kill(&c->act, session);
		break;
	}
out:
	free(phase);
	free(ready);
	config_env_free(env);
	strv_free(argv);
	return r;
}

int
dp_session_start(struct dev_ctx *c, long long issue, const char *worktree,
    const char *prompt)
{
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	char *key = xasprintf("%s%lld.%ld", SESSION_PROMPT_KEY,
	    (long long)c->now, (long)getpid());
	int r = -1;

	if (session_hooks(c, session, worktree, issue) == 0)
		r = session_run(c, session, worktree, issue, NULL, key, prompt);
	free(key);
	free(session);
	return r;
}

int
dp_session_resume(struct dev_ctx *c, long long issue, const char *worktree,
    const char *id, const char *key, const char *text)
{
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	int r = -1;

	if (session_hooks(c, session, worktree, issue) == 0)
		r = session_run(c, session, worktree, issue, id, key, text);
	free(session);
	return r;
}

int
dp_session_finish(struct dev_ctx *c, long long issue)
{
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	char *key = NULL, *prompt = NULL;
	int r;

	if ((r = agent_pending(session, SESSION_PROMPT_KEY, &key, &prompt)) ==
	    -1)
		log_warn("#%lld: cannot read the record of session %s", issue,
		    session);
	if (r != 1)
		goto out;
	log_msg("#%lld: the launch of %s was cut off before its prompt was "
		"delivered — delivering it",
	    issue, session);
	switch (act_inject(&c->act, session, key, prompt)) {
	case ACT_INJECTED:
		log_msg("initial prompt sent to session %s", session);
		/* FALLTHROUGH */
	case ACT_INJECT_DRY:
		r = 1;
		break;
	case ACT_INJECT_LATER:
		break;
	case ACT_INJECT_FAILED:
		r = -1;
		break;
	}
out:
	free(prompt);
	free(key);
	free(session);
	return r;
}
