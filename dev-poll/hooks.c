/*
 * The agent hooks of a dev session, in <worktree>/.claude/settings.json:
 * Stop writes the idle marker, SessionEnd the exited marker, PostToolUse
 * (Bash or Write) the phase-changed marker when the tool input names the
 * phase file.  Each hook is a one-line shell command the agent CLI runs;
 * the paths in it come from validated names only and are single-quoted,
 * and a path that could not be quoted safely is refused.  An existing
 * settings file is merged into, and a hook already there is not added
 * twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "json.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

#define SETTINGS_MAX (1024 * 1024)

/* One hook to install. */
struct hook {
	const char *event;
	const char *matcher;
	char *command;
};

static int hooks_quotable(const char *);
static int hooks_settings_load(const char *, cJSON **);
static int hooks_hook_present(const cJSON *, const char *);
static int hooks_hook_add(cJSON *, const struct hook *);
static int hooks_build(struct dev_ctx *, const char *, long long,
    struct hook *);

/* Whether path can go between single quotes in a shell command. */
static int
hooks_quotable(const char *path)
{
	return strpbrk(path, "'\n\r") == NULL && *path == '/';
}

/* The settings object at path, or a new one when there is none. */
static int
hooks_settings_load(const char *path, cJSON **out)
{
	char err[128];

	if ((*out = json_load_object(path, SETTINGS_MAX, err, sizeof(err))) ==
	    NULL) {
		log_msg("cannot use '%s': %s", path, err);
		return -1;
	}
	return 0;
}

/* Whether an entry of the event's array already runs command. */
static int
hooks_hook_present(const cJSON *entries, const char *command)
{
	const cJSON *e, *h;
	const char *cmd;

	cJSON_ArrayForEach (e, entries) {
		cJSON_ArrayForEach (h, json_arr(e, "hooks")) {
			cmd = json_str(h, "command");
			if (cmd != NULL && strcmp(cmd, command) == 0)
				return 1;
		}
	}
	return 0;
}

/* Add the hook under settings.hooks.<event> unless it is there. */
static int
hooks_hook_add(cJSON *settings, const struct hook *h)
{
	cJSON *hooks, *entries, *e, *list, *cmd;

	hooks = cJSON_GetObjectItemCaseSensitive(settings, "hooks");
	if (hooks == NULL)
		hooks = cJSON_AddObjectToObject(settings, "hooks");
	if (!cJSON_IsObject(hooks))
		return -1;
	entries = cJSON_GetObjectItemCaseSensitive(hooks, h->event);
	if (entries == NULL)
		entries = cJSON_AddArrayToObject(hooks, h->event);
	if (!cJSON_IsArray(entries))
		return -1;
	if (hooks_hook_present(entries, h->command))
		return 0;
	if ((e = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(entries, e) ||
	    cJSON_AddStringToObject(e, "matcher", h->matcher) == NULL ||
	    (list = cJSON_AddArrayToObject(e, "hooks")) == NULL ||
	    (cmd = cJSON_CreateObject()) == NULL ||
	    !cJSON_AddItemToArray(list, cmd) ||
	    cJSON_AddStringToObject(cmd, "type", "command") == NULL ||
	    cJSON_AddStringToObject(cmd, "command", h->command) == NULL)
		abort();
	return 0;
}

/* The three hooks of the session.  Returns 0, or -1 for a bad path. */
static int
hooks_build(struct dev_ctx *c, const char *session, long long issue,
    struct hook *h)
{
	char *idle = runfiles_idle_marker(session);
	char *exited = runfiles_exited_marker(session);
	char *changed = runfiles_phase_marker(session);
	char *phase = runfiles_phase(c->cfg->project_name, issue);
	int r = -1;

	if (!hooks_quotable(idle) || !hooks_quotable(exited) ||
	    !hooks_quotable(changed) || !hooks_quotable(phase)) {
		log_msg("cannot quote the run directory '%s' in a hook",
		    c->cfg->run_dir);
		goto out;
	}
	h[0] = (struct hook) {"Stop", "", xasprintf("date +%%s > '%s'", idle)};
	h[1] = (struct hook) {"SessionEnd", "",
	    xasprintf("date +%%s > '%s'", exited)};
	h[2] = (struct hook) {"PostToolUse", "Bash|Write",
	    xasprintf("if grep -qF -- '%s'; then date +%%s > '%s'; fi", phase,
		changed)};
	r = 0;
out:
	free(idle);
	free(exited);
	free(changed);
	free(phase);
	return r;
}

int
dp_hooks_install(struct dev_ctx *c, const char *worktree, const char *session,
    long long issue)
{
	struct hook h[3] = {{0}};
	char *dir = xasprintf("%s/.claude", worktree);
	char *path = xasprintf("%s/settings.json", dir), *text = NULL;
	cJSON *settings = NULL;
	size_t i;
	int r = -1;

	if (hooks_build(c, session, issue, h) == -1)
		goto out;
	if (act_mkdir(&c->act, dir) == -1 ||
	    hooks_settings_load(path, &settings) == -1)
		goto out;
	for (i = 0; i < 3; i++)
		if (hooks_hook_add(settings, &h[i]) == -1) {
			log_msg("cannot use '%s': 'hooks.%s' is not a list",
			    path, h[i].event);
			goto out;
		}
	if ((text = cJSON_Print(settings)) == NULL)
		abort();
	r = act_write(&c->act, path, text, 0);
out:
	for (i = 0; i < 3; i++)
		free(h[i].command);
	cJSON_free(text);
	cJSON_Delete(settings);
	free(path);
	free(dir);
	return r;
}
