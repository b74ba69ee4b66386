/*
 * Every side effect of a tick goes through one of these helpers, so that
 * --dry-run logs what would be done and does none of it.  Failures are
 * logged here (and the tick marked failed); callers only test the result.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "runfiles.h"
#include "spawn.h"
#include "supervisor-poll.h"
#include "woodpecker.h"
#include "xmalloc.h"

#define GIT_TIMEOUT_S 120
#define GIT_OUTPUT_MAX (16 * 1024)

static char **git_argv(const char *, const char *const *);
static char *joined(const char *const *);

/* argv for "git -C repo args...".  Free the array only, not the strings. */
static char **
git_argv(const char *repo, const char *const *args)
{
	size_t n = 0, i;
	char **argv;

	while (args[n] != NULL)
		n++;
	argv = xreallocarray(NULL, n + 4, sizeof(*argv));
	argv[0] = (char *)"git";
	argv[1] = (char *)"-C";
	argv[2] = (char *)repo;
	for (i = 0; i < n; i++)
		argv[3 + i] = (char *)args[i];
	argv[3 + n] = NULL;
	return argv;
}

/* The words of args joined by blanks, for the log.  Caller frees. */
static char *
joined(const char *const *args)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; args[i] != NULL; i++)
		buf_printf(&b, "%s%s", i ? " " : "", args[i]);
	return buf_steal(&b);
}

int
act_comment(struct sup *s, long long issue, const char *body, long long *id)
{
	*id = 0;
	if (s->dry_run) {
		log_msg("dry-run: would comment on #%lld (%zu bytes)", issue,
		    strlen(body));
		return 0;
	}
	if (forge_comment_create(s->forge, issue, body, id) == -1) {
		sup_fail(s, "cannot comment on #%lld: %s", issue,
		    forge_error(s->forge));
		return -1;
	}
	return 0;
}

int
act_add_label(struct sup *s, long long issue, const char *name)
{
	if (s->dry_run) {
		log_msg("dry-run: would add label '%s' to #%lld", name, issue);
		return 0;
	}
	if (forge_issue_add_label_name(s->forge, issue, name) == -1) {
		sup_fail(s, "cannot add label '%s' to #%lld: %s", name, issue,
		    forge_error(s->forge));
		return -1;
	}
	return 0;
}

int
act_remove_label(struct sup *s, long long issue, const char *name)
{
	if (s->dry_run) {
		log_msg("dry-run: would remove label '%s' from #%lld", name,
		    issue);
		return 0;
	}
	if (forge_issue_remove_label_name(s->forge, issue, name) == -1) {
		sup_fail(s, "cannot remove label '%s' from #%lld: %s", name,
		    issue, forge_error(s->forge));
		return -1;
	}
	return 0;
}

int
act_inject(struct sup *s, const char *session, const char *text)
{
	int r;

	if (s->dry_run) {
		log_msg("dry-run: would inject %zu bytes into %s", strlen(text),
		    session);
		return ACT_DRY;
	}
	r = agent_inject(session, text);
	if (r == AGENT_NOT_DELIVERED)
		log_msg("injection into %s not confirmed; retrying next tick",
		    session);
	else if (r != AGENT_DELIVERED)
		sup_fail(s, "cannot inject into %s", session);
	return r;
}

int
act_kill(struct sup *s, const char *session)
{
	if (s->dry_run) {
		log_msg("dry-run: would kill session %s", session);
		return 0;
	}
	if (agent_kill(session) == -1) {
		sup_fail(s, "cannot kill session %s", session);
		return -1;
	}
	return 0;
}

int
act_write(struct sup *s, const char *path, const char *text, int sync)
{
	if (s->dry_run) {
		log_msg("dry-run: would write '%s'", path);
		return 0;
	}
	if (file_write_atomic(path, text, strlen(text), 0644, sync) == -1) {
		sup_fail(s, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
act_remove(struct sup *s, const char *path)
{
	if (s->dry_run) {
		if (file_exists(path))
			log_msg("dry-run: would remove '%s'", path);
		return 0;
	}
	if (file_remove(path) == -1) {
		sup_fail(s, "cannot remove '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
act_truncate(struct sup *s, const char *path)
{
	if (s->dry_run) {
		log_msg("dry-run: would truncate '%s'", path);
		return 0;
	}
	if (file_truncate(path) == -1) {
		sup_fail(s, "cannot truncate '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
act_rename(struct sup *s, const char *from, const char *to)
{
	if (s->dry_run) {
		log_msg("dry-run: would rename '%s' to '%s'", from, to);
		return 0;
	}
	if (rename(from, to) == -1) {
		sup_fail(s, "cannot rename '%s': %s", from, strerror(errno));
		return -1;
	}
	return 0;
}

int
git_read(const char *repo, const char *const *args, struct buf *out,
    int *status)
{
	struct spawn_opts opts;
	char **argv = git_argv(repo, args);
	int r;

	memset(&opts, 0, sizeof(opts));
	opts.timeout_s = GIT_TIMEOUT_S;
	r = spawn_run(argv, &opts, out, status);
	free(argv);
	return r;
}

int
act_git(struct sup *s, const char *repo, const char *const *args)
{
	struct buf out;
	char *cmd = joined(args);
	int status = 0, r = -1;

	buf_init(&out, GIT_OUTPUT_MAX);
	if (s->dry_run) {
		log_msg("dry-run: would run git -C %s %s", repo, cmd);
		r = 0;
		goto out;
	}
	if (git_read(repo, args, &out, &status) == 0 && status == 0) {
		r = 0;
		goto out;
	}
	log_msg("git -C %s %s failed (exit %d): %.300s", repo, cmd, status,
	    buf_str(&out));
out:
	buf_free(&out);
	free(cmd);
	return r;
}

int
act_signal(struct sup *s, pid_t pid)
{
	if (s->dry_run) {
		log_msg("dry-run: would send SIGTERM to process %ld",
		    (long)pid);
		return 0;
	}
	if (kill(pid, SIGTERM) == -1 && errno != ESRCH) {
		sup_fail(s, "cannot signal process %ld: %s", (long)pid,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
act_restart(struct sup *s, long long pipeline, long long *new_number)
{
	*new_number = 0;
	if (s->dry_run) {
		log_msg("dry-run: would restart pipeline #%lld", pipeline);
		return 0;
	}
	if (woodpecker_restart(s->wp, pipeline, new_number) == -1) {
		sup_fail(s, "cannot restart pipeline #%lld: %s", pipeline,
		    woodpecker_error(s->wp));
		return -1;
	}
	return 0;
}

int
act_review_poll(struct sup *s)
{
	char *argv[3], *log = NULL, *dir = NULL, *slash;
	int r = 0;

	argv[0] = s->cfg->review_poll_path;
	argv[1] = s->cfg->project_toml;
	argv[2] = NULL;
	if (s->dry_run) {
		log_msg("dry-run: would start %s %s", argv[0],
		    argv[1] ? argv[1] : "");
		return 0;
	}
	log = runfiles_review_log();
	dir = xstrdup(log);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		(void)file_mkdirs(dir, 0755);
	}
	if (spawn_detached(argv, NULL, log, NULL) == -1) {
		sup_fail(s, "cannot start '%s': %s", argv[0], strerror(errno));
		r = -1;
	}
	free(dir);
	free(log);
	return r;
}
