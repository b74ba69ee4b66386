/*
 * The hooks of an agent session (see agent_hooks.h): their installation
 * into the session's .claude/settings.json, and the hook commands, run
 * by the agent CLI through its shell as
 *   'EXE' --hook NAME 'ARG'...
 * where every argument is a path or name the tools made, single-quoted.
 */
#include <sys/types.h>

#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "agent_exec.h"
#include "agent_guard.h"
#include "agent_hooks.h"
#include "api_error.h"
#include "apipause.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "json.h"
#include "log.h"
#include "phase.h"
#include "runfiles.h"
#include "wakecmd.h"
#include "worktree.h"
#include "xmalloc.h"

#define HOOKS_SETTINGS_MAX (1024 * 1024)
/* The most of a hook's input read; the rest is read and dropped. */
#define HOOKS_INPUT_MAX (1024 * 1024)
/* A reason written into a file, at most. */
#define HOOKS_REASON_MAX 120
#define HOOKS_NHOOKS 6
/* The most of a context file given again after a compaction. */
#define HOOKS_CONTEXT_MAX (256 * 1024)

/* The tools the guard judges: the shell, and the file tools' writes. */
#define HOOKS_GUARDED "Bash|Write|Edit|MultiEdit|NotebookEdit"
/* Before the arguments that wake the session's tool (agent_hooks.h). */
#define HOOKS_WAKE "--wake"

/* One hook to install: its event, matcher, mode name and command. */
struct hooks_entry {
	const char *event;
	const char *matcher;
	const char *name;
	char *command;
};

/* The markers of a session, by the hook that writes them. */
struct hooks_marks {
	char *idle;
	char *exited;
	char *changed;
	char *api_error; /* the API error that stopped it (apipause.h) */
};

static void hooks_marks_get(const char *, struct hooks_marks *);
static void hooks_marks_free(struct hooks_marks *);
static char *hooks_command_v(const char *, const char *, const char *const *);
static char *hooks_command(const char *, const char *, ...);
static char *hooks_guard_command(const struct agent_hooks *, const char *);
static int hooks_build(const struct agent_hooks *, const char *,
    struct hooks_entry *);
static int hooks_settings_load(const char *, cJSON **);
static int hooks_present(const cJSON *, const char *);
static int hooks_ours(const cJSON *, const char *, int);
static void hooks_drop_stale(cJSON *, const struct hooks_entry *);
static int hooks_add(cJSON *, const struct hooks_entry *);
static int hooks_read_input(struct buf *);
static void hooks_clean(const char *, char *, size_t);
static const char *hooks_first_str(const cJSON *, const char *const *);
static int hooks_stamp(const char *, const char *);
static time_t hooks_reset(const cJSON *);
static void hooks_api_record(const char *, const char *, const cJSON *);
static void hooks_session_id(int, char *[], const cJSON *);
static int hooks_run_stop(int, char *[], const cJSON *);
static int hooks_run_session_end(int, char *[], const cJSON *);
static int hooks_run_phase_change(int, char *[], const cJSON *, int *);
static int hooks_wake_args(int *, char *[], const char **, const char **);
static const char *hooks_error_words(const cJSON *);
static int hooks_run_stop_failure(int, char *[], const cJSON *);
static int hooks_run_pretooluse(int, char *[], const struct buf *, int, FILE *,
    char *, size_t);
static int hooks_run_compact(int, char *[], FILE *);

static void
hooks_marks_get(const char *session, struct hooks_marks *m)
{
	m->idle = runfiles_idle_marker(session);
	m->exited = runfiles_exited_marker(session);
	m->changed = runfiles_phase_marker(session);
	m->api_error = runfiles_api_error(session);
}

static void
hooks_marks_free(struct hooks_marks *m)
{
	free(m->idle);
	free(m->exited);
	free(m->changed);
	free(m->api_error);
}

/*
 * "'EXE' --hook NAME 'ARG'..." (args NULL-ended), or NULL when an
 * argument cannot be single-quoted (a quote or a line break in it).
 * Caller frees.
 */
static char *
hooks_command_v(const char *exe, const char *name, const char *const *args)
{
	struct buf b;
	int ok = strpbrk(exe, "'\n\r") == NULL;

	buf_init(&b, 0);
	buf_printf(&b, "'%s' %s %s", exe, AGENT_HOOKS_MODE, name);
	for (; *args != NULL; args++) {
		ok &= strpbrk(*args, "'\n\r") == NULL;
		buf_printf(&b, " '%s'", *args);
	}
	if (!ok) {
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

/* hooks_command_v() with the arguments listed (NULL-ended). */
static char *
hooks_command(const char *exe, const char *name, ...)
{
	const char *args[8];
	size_t n = 0;
	va_list ap;

	va_start(ap, name);
	while (n < 7 && (args[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	return hooks_command_v(exe, name, args);
}

/*
 * The guard's command: the places it judges by, the forge's URLs (no
 * credentials: the agent reads its settings) and the session's own
 * files in the run directory (its session directory, its phase file,
 * its summary or review output).  Caller frees; NULL as above.
 */
static char *
hooks_guard_command(const struct agent_hooks *h, const char *exe)
{
	char *url = config_url_public(h->forge_url);
	char *api = config_url_public(h->forge_api);
	char *dir = runfiles_session_dir(h->session);
	char *own_dir = xasprintf("%s/", dir), *cmd;
	const char *args[10];
	size_t n = 0;

	args[n++] = h->primary_branch;
	args[n++] = h->workdir;
	args[n++] = h->factory_root != NULL ? h->factory_root : "";
	args[n++] = h->run_dir != NULL ? h->run_dir : "";
	args[n++] = url;
	args[n++] = api;
	args[n++] = own_dir;
	if (h->phase_file != NULL)
		args[n++] = h->phase_file;
	if (h->own_file != NULL)
		args[n++] = h->own_file;
	args[n] = NULL;
	cmd = hooks_command_v(exe, "pretooluse", args);
	free(own_dir);
	free(dir);
	free(api);
	free(url);
	return cmd;
}

/* The session's hooks into e (HOOKS_NHOOKS).  0, or -1 (logged). */
static int
hooks_build(const struct agent_hooks *h, const char *exe, struct hooks_entry *e)
{
	struct hooks_marks m;
	/*
	 * No arguments that wake the tool: the hooks run in the agent's
	 * sandbox and only write their marks; the session's wrapper,
	 * outside it, sees them and wakes the tool (agent_exec.h).
	 */
	const char *w = NULL, *wp = NULL, *ws = NULL;
	size_t i, n = 0;
	int r = 0;

	hooks_marks_get(h->session, &m);
	e[n++] = (struct hooks_entry) {"Stop", "", "stop",
	    hooks_command(exe, "stop", m.idle, w, wp, ws, NULL)};
	e[n++] = (struct hooks_entry) {"SessionEnd", "", "session-end",
	    hooks_command(exe, "session-end", m.exited, w, wp, ws, NULL)};
	e[n++] = (struct hooks_entry) {"PreToolUse", HOOKS_GUARDED,
	    "pretooluse", hooks_guard_command(h, exe)};
	if (h->phase_file != NULL) {
		e[n++] = (struct hooks_entry) {"PostToolUse", "Bash|Write",
		    "phase-change",
		    hooks_command(exe, "phase-change", h->phase_file, m.changed,
			w, wp, ws, NULL)};
		e[n++] = (struct hooks_entry) {"StopFailure", API_ERROR_MATCHER,
		    "stop-failure",
		    hooks_command(exe, "stop-failure", h->phase_file, m.changed,
			m.api_error, w, wp, ws, NULL)};
	}
	if (h->context_file != NULL)
		e[n++] = (struct hooks_entry) {"SessionStart", "compact",
		    "compact-context",
		    hooks_command(exe, "compact-context", h->context_file,
			NULL)};
	for (i = 0; i < n; i++)
		if (e[i].command == NULL)
			r = -1;
	if (r == -1)
		log_msg("cannot quote the paths of session %s in a hook "
			"command",
		    h->session);
	hooks_marks_free(&m);
	return r;
}

/* The settings object at path, or a new one when there is none. */
static int
hooks_settings_load(const char *path, cJSON **out)
{
	char err[128];

	if ((*out = json_load_object(path, HOOKS_SETTINGS_MAX, err,
		 sizeof(err))) == NULL) {
		log_msg("cannot use '%s': %s", path, err);
		return -1;
	}
	return 0;
}

/* Whether an entry of the event's array already runs command. */
static int
hooks_present(const cJSON *entries, const char *command)
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

/*
 * Whether a command of the entry starts with text (whole: is text).
 */
static int
hooks_ours(const cJSON *entry, const char *text, int whole)
{
	const cJSON *h;
	const char *cmd;

	cJSON_ArrayForEach (h, json_arr(entry, "hooks")) {
		cmd = json_str(h, "command");
		if (cmd != NULL &&
		    (whole ? strcmp(cmd, text) == 0 :
			     strncmp(cmd, text, strlen(text)) == 0))
			return 1;
	}
	return 0;
}

/*
 * Drop the entries of the event that run this hook of ours ("'EXE'
 * --hook NAME ...") with other arguments or under another matcher (an
 * earlier session's, or an earlier version's): one entry per hook, the
 * current one.
 */
static void
hooks_drop_stale(cJSON *entries, const struct hooks_entry *h)
{
	const char *mode = strstr(h->command, " " AGENT_HOOKS_MODE " ");
	const char *matcher;
	cJSON *e, *next;
	char *prefix;

	if (mode == NULL)
		return;
	prefix = xasprintf("%.*s %s ",
	    (int)(mode - h->command + 1 + strlen(AGENT_HOOKS_MODE)), h->command,
	    h->name);
	for (e = entries->child; e != NULL; e = next) {
		next = e->next;
		matcher = json_str(e, "matcher");
		if (!hooks_ours(e, prefix, 0) ||
		    (hooks_ours(e, h->command, 1) && matcher != NULL &&
			strcmp(matcher, h->matcher) == 0))
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(entries, e));
	}
	free(prefix);
}

/* Add the hook under settings.hooks.<event> unless it is there. */
static int
hooks_add(cJSON *settings, const struct hooks_entry *h)
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
	hooks_drop_stale(entries, h);
	if (hooks_present(entries, h->command))
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

int
agent_hooks_install(struct act *a, const struct agent_hooks *h)
{
	struct hooks_entry e[HOOKS_NHOOKS];
	struct hooks_marks m;
	char exe[PATH_MAX];
	char *dir = xasprintf("%s/.claude", h->workdir);
	char *path = xasprintf("%s/settings.json", dir), *text = NULL;
	cJSON *settings = NULL;
	size_t i;
	int r = -1;

	memset(e, 0, sizeof(e));
	if (agent_exec_self(exe, sizeof(exe)) == -1) {
		log_msg("cannot tell the running executable for the hooks");
		goto out;
	}
	if (hooks_build(h, exe, e) == -1 || act_mkdir(a, dir) == -1 ||
	    hooks_settings_load(path, &settings) == -1)
		goto out;
	for (i = 0; i < HOOKS_NHOOKS && e[i].event != NULL; i++)
		if (hooks_add(settings, &e[i]) == -1) {
			log_msg("cannot use '%s': 'hooks.%s' is not a list",
			    path, e[i].event);
			goto out;
		}
	if ((text = cJSON_Print(settings)) == NULL)
		abort();
	if ((r = act_write(a, path, text, 0)) == 0) {
		/* A dry run has no worktree to keep it out of. */
		if (!a->dry_run &&
		    worktree_exclude(a, h->workdir, ".claude/settings.json") ==
			-1)
			log_msg("cannot keep '%s' out of the agent's commits",
			    path);
		hooks_marks_get(h->session, &m);
		(void)act_remove(a, m.idle);
		(void)act_remove(a, m.exited);
		(void)act_remove(a, m.changed);
		(void)act_remove(a, m.api_error);
		hooks_marks_free(&m);
	}
out:
	for (i = 0; i < HOOKS_NHOOKS; i++)
		free(e[i].command);
	cJSON_free(text);
	cJSON_Delete(settings);
	free(path);
	free(dir);
	return r;
}

/*
 * The hook's input: all of stdin, kept up to the first chunk that would
 * pass HOOKS_INPUT_MAX.  1 when all of it was kept, else 0.
 */
static int
hooks_read_input(struct buf *in)
{
	char chunk[8192];
	size_t n;
	int whole = 1;

	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		if (whole && buf_append(in, chunk, n) == -1)
			whole = 0;
	return whole;
}

/* A reason for a file: printable ASCII of a short list, bounded. */
static void
hooks_clean(const char *s, char *out, size_t outsz)
{
	size_t n = 0;

	for (; s != NULL && *s != '\0' && n + 1 < outsz && n < HOOKS_REASON_MAX;
	     s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("_.:/ -", *s) != NULL)
			out[n++] = *s;
	out[n] = '\0';
	if (n == 0)
		snprintf(out, outsz, "unknown");
}

/* The first of keys that the input has as a non-empty string, or NULL. */
static const char *
hooks_first_str(const cJSON *in, const char *const *keys)
{
	const char *v;

	for (; *keys != NULL; keys++)
		if ((v = json_str(in, *keys)) != NULL && *v != '\0')
			return v;
	return NULL;
}

/*
 * Write "TIME[ what]" into the marker path.  0 or -1.  A hook writes only
 * into its session's directory as the launch made it, never makes one:
 * a CLI that ends after its session was cleaned up leaves nothing.
 */
static int
hooks_stamp(const char *path, const char *what)
{
	char line[HOOKS_REASON_MAX + 64];

	snprintf(line, sizeof(line), "%lld%s%s\n", (long long)time(NULL),
	    what != NULL ? " " : "", what != NULL ? what : "");
	return file_write_atomic(path, line, strlen(line), 0644, 0);
}

/*
 * The Stop and SessionEnd hooks keep the agent's Claude session id (the
 * input's "session_id") beside their marker, so that a parked
 * conversation can be resumed (--resume ID).  An id of other characters
 * than a UUID's (and '_') is not kept.
 */
static void
hooks_session_id(int argc, char *argv[], const cJSON *in)
{
	const char *id = json_str(in, "session_id");
	char *path, line[136];

	if (argc < 3 || id == NULL || *id == '\0' || strlen(id) > 128 ||
	    strspn(id,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789-_") != strlen(id) ||
	    (path = runfiles_claude_id_beside(argv[2])) == NULL)
		return;
	snprintf(line, sizeof(line), "%s\n", id);
	(void)file_write_atomic(path, line, strlen(line), 0644, 0);
	free(path);
}

static int
hooks_run_stop(int argc, char *argv[], const cJSON *in)
{
	(void)in;
	if (argc >= 3)
		(void)hooks_stamp(argv[2], NULL);
	return 0;
}

static int
hooks_run_session_end(int argc, char *argv[], const cJSON *in)
{
	static const char *const keys[] = {"reason", "matched_hook", "type",
	    NULL};
	char reason[HOOKS_REASON_MAX + 1];

	hooks_clean(hooks_first_str(in, keys), reason, sizeof(reason));
	if (argc >= 3)
		(void)hooks_stamp(argv[2], reason);
	return 0;
}

/* A write of the phase file: the Write tool's file, or a Bash redirect. */
static int
hooks_run_phase_change(int argc, char *argv[], const cJSON *in, int *woke)
{
	const char *tool = json_str(in, "tool_name");
	const char *file = json_str_at(in, "tool_input.file_path");
	const char *cmd = json_str_at(in, "tool_input.command");
	int wrote;

	if (argc < 4)
		return 0;
	wrote = (file != NULL && strcmp(file, argv[2]) == 0) ||
	    (tool != NULL && strcmp(tool, "Bash") == 0 && cmd != NULL &&
		strstr(cmd, argv[2]) != NULL &&
		(strchr(cmd, '>') != NULL || strstr(cmd, "tee") != NULL));
	if (wrote)
		(void)hooks_stamp(argv[3], NULL);
	*woke = wrote;
	return 0;
}

/*
 * When the error's own words say its limit resets: the texts of the
 * hook's input (the CLI's message, its details, the last answer).
 */
static time_t
hooks_reset(const cJSON *in)
{
	static const char *const keys[] = {"error_details", "error_message",
	    "message", "last_assistant_message", NULL};
	const char *const *k;
	const char *v;
	time_t t, now = time(NULL);

	for (k = keys; *k != NULL; k++)
		if ((v = json_str(in, *k)) != NULL &&
		    (t = api_error_reset(v, now)) != 0)
			return t;
	return 0;
}

/* The session's record of the project's error name (apipause.h). */
static void
hooks_api_record(const char *path, const char *name, const cJSON *in)
{
	struct apierr e;
	char *text;

	memset(&e, 0, sizeof(e));
	snprintf(e.error, sizeof(e.error), "%.*s", (int)sizeof(e.error) - 1,
	    name);
	snprintf(e.source, sizeof(e.source), "hook");
	e.at = time(NULL);
	e.reset = hooks_reset(in);
	text = apierr_text(&e);
	(void)file_write_atomic(path, text, strlen(text), 0644, 0);
	free(text);
}

/*
 * The CLI's own words for the error: its details, else its "API Error:
 * ..." line as the last message (Claude Code 2.1 sends no details).
 */
static const char *
hooks_error_words(const cJSON *in)
{
	const char *v = json_str(in, "error_details");

	if (v != NULL && *v != '\0')
		return v;
	v = json_str(in, "last_assistant_message");
	return v != NULL && strncmp(v, "API Error", 9) == 0 ? v : NULL;
}

/*
 * The agent's turn ended on an API error (unless the agent finished or
 * escalated first).  Whose it is, the table says (api_error.h): the
 * issue's own (its output too long, a request it made invalid) writes
 * PHASE:failed with the error; any other (the account's, the service's,
 * or one that may be either's: "unknown", one the table does not know)
 * gets the session's record of it, its phase and conversation kept, so
 * that the tick judges it (apistop.h), pauses the project and resumes
 * the session after.  A vague name gives way to the error the CLI's
 * words name (api_error_refine()).  The marker tells the next tick
 * at once.  Claude Code 2.1 names the error in "error" (the matcher's
 * value); "error_type" is the documented name.
 */
static int
hooks_run_stop_failure(int argc, char *argv[], const cJSON *in)
{
	static const char *const keys[] = {"error_type", "error", "stop_reason",
	    "matched_hook", "reason", "type", NULL};
	char named[HOOKS_REASON_MAX + 1], reason[HOOKS_REASON_MAX + 1], *why;
	struct phase_info pi;

	if (argc < 3)
		return 0;
	if (phase_read(argv[2], &pi) == 0 &&
	    (pi.phase == PHASE_DONE || pi.phase == PHASE_ESCALATE))
		return 0;
	hooks_clean(hooks_first_str(in, keys), named, sizeof(named));
	snprintf(reason, sizeof(reason), "%s",
	    api_error_refine(named, hooks_error_words(in)));
	if (argc >= 5 && api_error_class(reason) != API_ERROR_ISSUE)
		hooks_api_record(argv[4], reason, in);
	else {
		why = xasprintf("api_error: %s", reason);
		(void)phase_write(argv[2], PHASE_FAILED, why, NULL);
		free(why);
	}
	if (argc >= 4)
		(void)hooks_stamp(argv[3], NULL);
	return 0;
}

/*
 * After a compaction: the session's context file on out (its first
 * HOOKS_CONTEXT_MAX bytes), for the CLI to add to the conversation.
 */
static int
hooks_run_compact(int argc, char *argv[], FILE *out)
{
	struct buf b;

	if (argc < 3)
		return 0;
	buf_init(&b, 0);
	if (file_read(argv[2], HOOKS_CONTEXT_MAX, &b) >= 0 && b.len > 0) {
		(void)fwrite(buf_str(&b), 1, b.len, out);
		fflush(out);
	}
	buf_free(&b);
	return 0;
}

/*
 * The guard on a Bash command or a file tool's write, from the hook's
 * input (whole: 0 when it was longer than what was read): exit 2 with
 * the reason to refuse it, also for input the guard cannot read.  The
 * arguments: BRANCH WORKTREE FACTORY_ROOT RUN_DIR, then (hooks installed
 * since the run directory is guarded) FORGE_URL FORGE_API OWN...
 */
static int
hooks_run_pretooluse(int argc, char *argv[], const struct buf *input, int whole,
    FILE *out, char *msg, size_t msgsz)
{
	const struct passwd *pw = getpwuid(geteuid());
	struct agent_guard g = {0};
	const char **own = NULL;
	int r, i;

	if (argc < 6) {
		snprintf(msg, msgsz,
		    "BLOCKED: the guard was installed without the places it "
		    "judges by");
		r = 1;
		goto out;
	}
	g.primary_branch = argv[2];
	g.worktree = argv[3];
	g.factory_root = argv[4];
	g.run_dir = argv[5];
	g.home = pw != NULL ? pw->pw_dir : NULL;
	if (argc >= 8) {
		g.forge_url = argv[6];
		g.forge_api = argv[7];
		own = xcalloc((size_t)argc - 7, sizeof(*own));
		for (i = 8; i < argc; i++)
			own[i - 8] = argv[i];
		g.own = own;
	}
	r = agent_guard_hook(&g, buf_str(input), input->len, whole, msg, msgsz);
	free(own);
out:
	if (r == 0)
		return 0;
	/* Upstream's hook answered on stdout; the CLI reads stderr. */
	fprintf(out, "%s\n", msg);
	fflush(out);
	return 2;
}

/*
 * Take the trailing "--wake PROJECT_TOML SESSION" off the hook's
 * arguments (*argc shortened): 1 with them in *project and *session, 0
 * when there are none.
 */
static int
hooks_wake_args(int *argc, char *argv[], const char **project,
    const char **session)
{
	int i;

	for (i = 2; i + 2 < *argc; i++)
		if (strcmp(argv[i], HOOKS_WAKE) == 0) {
			*project = argv[i + 1];
			*session = argv[i + 2];
			*argc = i;
			return 1;
		}
	return 0;
}

void
agent_hooks_wake(const char *name, const char *project, const char *session,
    const char *run_dir)
{
	char exe[PATH_MAX], reason[HOOKS_REASON_MAX + 1];

	if (agent_exec_self(exe, sizeof(exe)) == -1)
		return;
	snprintf(reason, sizeof(reason), "%s hook %s", name, session);
	(void)wakecmd_spawn(exe, run_dir, project, reason);
}

int
agent_hooks_main(int argc, char *argv[], FILE *out, char *msg, size_t msgsz)
{
	struct buf input;
	cJSON *in;
	char err[128];
	const char *name = argc >= 2 ? argv[1] : "";
	const char *wproj = NULL, *wsess = NULL;
	int r = 0, woke = 1, whole;

	/* Hooks an earlier version installed: their wake is the wrapper's. */
	(void)hooks_wake_args(&argc, argv, &wproj, &wsess);

	msg[0] = '\0';
	buf_init(&input, HOOKS_INPUT_MAX);
	whole = hooks_read_input(&input);
	in = json_parse(buf_str(&input), input.len, err, sizeof(err));
	hooks_session_id(argc, argv, in);
	if (strcmp(name, "stop") == 0)
		r = hooks_run_stop(argc, argv, in);
	else if (strcmp(name, "session-end") == 0)
		r = hooks_run_session_end(argc, argv, in);
	else if (strcmp(name, "phase-change") == 0)
		r = hooks_run_phase_change(argc, argv, in, &woke);
	else if (strcmp(name, "stop-failure") == 0)
		r = hooks_run_stop_failure(argc, argv, in);
	else if (strcmp(name, "pretooluse") == 0)
		r = hooks_run_pretooluse(argc, argv, &input, whole, out, msg,
		    msgsz);
	else if (strcmp(name, "compact-context") == 0)
		r = hooks_run_compact(argc, argv, out);
	else {
		snprintf(msg, msgsz, "%s: unknown hook '%s'", AGENT_HOOKS_MODE,
		    name);
		r = 1;
	}
	(void)woke;
	cJSON_Delete(in);
	buf_free(&input);
	return r;
}
