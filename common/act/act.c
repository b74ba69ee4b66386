/*
 * Every side effect of a tick, with its dry-run line and its failure
 * count in one place.  The "dry-run: would ..." and "cannot ..." lines of
 * all three executables are written here and nowhere else.
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "act.h"
#include "agent.h"
#include "buf.h"
#include "file.h"
#include "forge.h"
#include "git.h"
#include "json.h"
#include "log.h"
#include "marks.h"
#include "phase.h"
#include "runfiles.h"
#include "spawn.h"
#include "woodpecker.h"
#include "xmalloc.h"

/* Output of a git command kept for the log. */
#define ACT_GIT_OUTPUT_MAX (16 * 1024)

static int act_fail(struct act *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int act_fail_write(struct act *, const char *, const char *);
static int act_would(const struct act *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static enum act_inject act_delivered(struct act *, const char *,
    enum agent_delivery);
static int act_rm_entry(const char *, const struct stat *, int, struct FTW *);
static int act_lost(const struct forge *);
static int act_comment_find(struct act *, long long, const char *, long long *);
static int act_comment_post(struct act *, long long, const char *, const char *,
    const char *, long long *);
static int act_label_change(struct act *, long long, const char *, int, int *,
    char *, size_t);
static int act_labels_send(struct act *, long long, const char *const *,
    const char *const *, const cJSON *, char *, size_t);
static int act_labels_as_meant(const cJSON *, const char *const *,
    const char *const *);
static int act_labels_dry(const struct act *, long long, const char *const *,
    const char *const *);
static int act_labels_gone(struct act *, long long, const char *const *,
    const char *);

/*
 * A write to path failed (errno set): a failure of the tick, counted;
 * or, where another user's file holds the name in the run directory
 * (file.h, a directory shared with other users), a refusal that file.c
 * logged: what the write was for waits, and the tick does not fail for a
 * file it cannot remove.  Always -1.
 */
static int
act_fail_write(struct act *a, const char *what, const char *path)
{
	if (file_foreign(path))
		return -1;
	return act_fail(a, "cannot %s '%s': %s", what, path, strerror(errno));
}

/* Log a failed effect and count it.  Always -1. */
static int
act_fail(struct act *a, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_err("%s", msg);
	if (a->failed == 0)
		snprintf(a->first_fail, sizeof(a->first_fail), "%s", msg);
	free(msg);
	a->failed++;
	return -1;
}

/* Under dry-run, log what would be done: 1.  Otherwise 0. */
static int
act_would(const struct act *a, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!a->dry_run)
		return 0;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_msg("dry-run: would %s", msg);
	free(msg);
	return 1;
}

/*
 * Whether the last call's answer was lost, so that the write may have
 * been applied: no answer, a cut-off or unreadable one, or a 5xx.
 */
static int
act_lost(const struct forge *f)
{
	long status = forge_last_status(f);

	return status == 0 || status >= 500;
}

/*
 * Look marker up among the comments of number: 1 found (its ID in *id),
 * 0 not there, -1 when they cannot be read.
 */
static int
act_comment_find(struct act *a, long long number, const char *marker,
    long long *id)
{
	struct forge_comment cm;
	const cJSON *list, *c;

	if (forge_comments_list(a->forge, number, &list) == -1)
		return -1;
	cJSON_ArrayForEach (c, list) {
		forge_comment_view(c, &cm);
		if (marks_in(cm.body, marker) && cm.id > 0) {
			*id = cm.id;
			return 1;
		}
	}
	return 0;
}

int
act_comment(struct act *a, long long number, const char *key, const char *body,
    long long *id)
{
	/* The hidden marker every comment of the tools ends with. */
	char *marker = marks_key(key);
	long long found = 0;
	int r = 0;

	if (id != NULL)
		*id = 0;
	switch (act_comment_find(a, number, marker, &found)) {
	case -1:
		r = act_fail(a,
		    "cannot comment on #%lld: cannot read its comments: %s",
		    number, forge_error(a->forge));
		break;
	case 1:
		log_msg("#%lld has the comment '%s' already", number, key);
		if (id != NULL)
			*id = found;
		break;
	default:
		if (!act_would(a, "comment on #%lld (%zu bytes)", number,
			strlen(body)))
			r = act_comment_post(a, number, key, marker, body, id);
		break;
	}
	free(marker);
	return r;
}

/* Post body with marker; after a lost answer, look for it.  0 or -1. */
static int
act_comment_post(struct act *a, long long number, const char *key,
    const char *marker, const char *body, long long *id)
{
	char *full, why[512];
	long long found = 0;
	int r = 0;

	/* One blank line between the text and the marker. */
	full = xasprintf("%s%s\n%s\n", body,
	    *body != '\0' && body[strlen(body) - 1] == '\n' ? "" : "\n",
	    marker);
	if (forge_comment_create(a->forge, number, full, id) == 0)
		goto out;
	snprintf(why, sizeof(why), "%s", forge_error(a->forge));
	if (act_lost(a->forge) &&
	    act_comment_find(a, number, marker, &found) == 1) {
		log_msg("#%lld: the answer to the comment '%s' was lost, "
			"but the comment is there",
		    number, key);
		if (id != NULL)
			*id = found;
		goto out;
	}
	r = act_fail(a, "cannot comment on #%lld: %s", number, why);
out:
	free(full);
	return r;
}

/* Under dry-run, log each label change: 1.  Otherwise 0. */
static int
act_labels_dry(const struct act *a, long long number, const char *const *on,
    const char *const *off)
{
	size_t i;

	if (!a->dry_run)
		return 0;
	for (i = 0; on != NULL && on[i] != NULL; i++)
		act_would(a, "add label '%s' to #%lld", on[i], number);
	for (i = 0; off != NULL && off[i] != NULL; i++)
		act_would(a, "remove label '%s' from #%lld", off[i], number);
	return 1;
}

/* Whether the issue object has every label of on and none of off. */
static int
act_labels_as_meant(const cJSON *issue, const char *const *on,
    const char *const *off)
{
	size_t i;

	for (i = 0; on != NULL && on[i] != NULL; i++)
		if (!json_has_label(issue, on[i]))
			return 0;
	for (i = 0; off != NULL && off[i] != NULL; i++)
		if (json_has_label(issue, off[i]))
			return 0;
	return 1;
}

/*
 * Add (add set) or remove the label name: 0, or -1 with the reason in
 * why unless an earlier change of the same round failed (*r is -1).
 */
static int
act_label_change(struct act *a, long long number, const char *name, int add,
    int *r, char *why, size_t whysz)
{
	if ((add ? forge_issue_add_label_name(a->forge, number, name) :
		   forge_issue_remove_label_name(a->forge, number, name)) == 0)
		return 0;
	if (*r == 0)
		snprintf(why, whysz, "cannot %s label '%s' %s #%lld: %s",
		    add ? "add" : "remove", name, add ? "to" : "from", number,
		    forge_error(a->forge));
	return *r = -1;
}

/*
 * Send the label changes; with have (the issue as read back), only those
 * it does not show yet.  0 when every answer confirmed its change, else
 * -1 with the first failure in why.
 */
static int
act_labels_send(struct act *a, long long number, const char *const *on,
    const char *const *off, const cJSON *have, char *why, size_t whysz)
{
	size_t i;
	int r = 0;

	for (i = 0; on != NULL && on[i] != NULL; i++)
		if (have == NULL || !json_has_label(have, on[i]))
			(void)act_label_change(a, number, on[i], 1, &r, why,
			    whysz);
	for (i = 0; off != NULL && off[i] != NULL; i++)
		if (have == NULL || json_has_label(have, off[i]))
			(void)act_label_change(a, number, off[i], 0, &r, why,
			    whysz);
	return r;
}

/*
 * The read-back failed.  An issue that is gone (404) has no label left to
 * remove: removals alone are done.  Anything else is a failed write.
 */
static int
act_labels_gone(struct act *a, long long number, const char *const *on,
    const char *why)
{
	if (forge_last_status(a->forge) == 404 &&
	    (on == NULL || on[0] == NULL)) {
		log_msg("#%lld: no such issue: no label to remove", number);
		return 0;
	}
	return act_fail(a, "%s; no read-back: %s", why, forge_error(a->forge));
}

int
act_labels(struct act *a, long long number, const char *const *on,
    const char *const *off)
{
	const cJSON *issue;
	char why[512];
	int round;

	if (act_labels_dry(a, number, on, off))
		return 0;
	if (act_labels_send(a, number, on, off, NULL, why, sizeof(why)) == 0)
		return 0;
	for (round = 0; round < 2; round++) {
		if (forge_issue_get(a->forge, number, &issue) == -1)
			return act_labels_gone(a, number, on, why);
		if (act_labels_as_meant(issue, on, off)) {
			log_msg("#%lld: labels as intended after all (read "
				"back after: %s)",
			    number, why);
			return 0;
		}
		if (round == 0)
			(void)act_labels_send(a, number, on, off, issue, why,
			    sizeof(why));
	}
	return act_fail(a, "%s", why);
}

int
act_label_add(struct act *a, long long number, const char *name)
{
	const char *const on[] = {name, NULL};

	return act_labels(a, number, on, NULL);
}

int
act_label_remove(struct act *a, long long number, const char *name)
{
	const char *const off[] = {name, NULL};

	return act_labels(a, number, NULL, off);
}

int
act_label_ensure(struct act *a, const char *name, long long *id)
{
	enum forge_res r;

	*id = 0;
	r = forge_label_id(a->forge, name, 0, id);
	if (r == FORGE_OK)
		return 0;
	if (r == FORGE_ERROR) {
		log_warn("cannot read the labels: %s", forge_error(a->forge));
		return -1;
	}
	if (act_would(a, "create label '%s'", name))
		return 0;
	if (forge_label_id(a->forge, name, 1, id) != FORGE_OK) {
		log_warn("cannot create label '%s': %s", name,
		    forge_error(a->forge));
		return -1;
	}
	log_msg("created label '%s' (id %lld)", name, *id);
	return 0;
}

int
act_issue_close(struct act *a, long long number)
{
	if (act_would(a, "close #%lld", number))
		return 0;
	if (forge_issue_close(a->forge, number) == -1)
		return act_fail(a, "cannot close #%lld: %s", number,
		    forge_error(a->forge));
	return 0;
}

enum act_pull
act_pull_create(struct act *a, const char *title, const char *body,
    const char *head, const char *base, long long *number)
{
	*number = 0;
	if (act_would(a, "open a PR from %s into %s", head, base))
		return ACT_PULL_DRY;
	switch (forge_pull_create(a->forge, title, body, head, base, number)) {
	case FORGE_OK:
		return ACT_PULL_OPENED;
	case FORGE_CONFLICT:
		return ACT_PULL_EXISTS;
	default:
		act_fail(a, "cannot open a PR from %s: %s", head,
		    forge_error(a->forge));
		return ACT_PULL_FAILED;
	}
}

enum act_merge
act_pull_merge(struct act *a, long long number, const char *sha,
    struct forge_merge *m)
{
	memset(m, 0, sizeof(*m));
	if (act_would(a, "merge PR #%lld at %s", number, sha))
		return ACT_MERGE_DRY;
	if (forge_pull_merge(a->forge, number, sha, 1, m) == -1) {
		act_fail(a, "PR #%lld merge: no answer: %s", number,
		    forge_error(a->forge));
		return ACT_MERGE_FAILED;
	}
	if (m->merged)
		return ACT_MERGED;
	/* The forge's own no: its merge rules, a conflict, a stale head. */
	if (m->status == 405 || m->status == 409 || m->status == 422)
		return ACT_MERGE_REFUSED;
	act_fail(a, "PR #%lld merge: HTTP %ld, not merged", number, m->status);
	return ACT_MERGE_FAILED;
}

enum act_review
act_review_create(struct act *a, long long pr, const char *event,
    const char *sha, const char *body)
{
	long status;

	if (act_would(a, "submit a %s review of #%lld at %.7s", event, pr, sha))
		return ACT_REVIEW_POSTED;
	if (forge_review_create(a->forge, pr, body, event, sha, NULL) == 0)
		return ACT_REVIEW_POSTED;
	status = forge_last_status(a->forge);
	act_fail(a, "cannot submit the %s review of #%lld: %s", event, pr,
	    forge_error(a->forge));
	return status == 400 || status == 403 || status == 422 ?
	    ACT_REVIEW_REFUSED :
	    ACT_REVIEW_FAILED;
}

int
act_review_dismiss(struct act *a, long long pr, long long id, const char *why)
{
	if (act_would(a, "dismiss review %lld of #%lld", id, pr))
		return 0;
	if (forge_review_dismiss(a->forge, pr, id, why) == -1)
		return act_fail(a, "cannot dismiss review %lld of #%lld: %s",
		    id, pr, forge_error(a->forge));
	return 0;
}

int
act_pipeline_restart(struct act *a, long long pipeline, long long *new_number)
{
	*new_number = 0;
	if (act_would(a, "restart pipeline #%lld", pipeline))
		return 0;
	if (a->wp == NULL)
		return act_fail(a, "cannot restart pipeline #%lld: no CI",
		    pipeline);
	if (woodpecker_restart(a->wp, pipeline, new_number) == -1)
		return act_fail(a, "cannot restart pipeline #%lld: %s",
		    pipeline, woodpecker_error(a->wp));
	return 0;
}

int
act_write(struct act *a, const char *path, const char *text, int sync)
{
	if (act_would(a, "write '%s'", path))
		return 0;
	(void)runfiles_session_mkdir_for(path);
	if (file_write_atomic(path, text, strlen(text), 0644, sync) == -1)
		return act_fail_write(a, "write", path);
	return 0;
}

int
act_phase(struct act *a, const char *path, enum phase p, const char *reason,
    const char *sha)
{
	if (act_would(a, "write '%s'", path))
		return 0;
	if (phase_write(path, p, reason, sha) == -1)
		return act_fail_write(a, "write", path);
	return 0;
}

int
act_remove(struct act *a, const char *path)
{
	if (!file_exists(path))
		return 0;
	if (act_would(a, "remove '%s'", path))
		return 0;
	if (file_remove(path) == -1)
		return act_fail(a, "cannot remove '%s': %s", path,
		    strerror(errno));
	return 0;
}

/* nftw(3) callback: remove one entry, children before their directory. */
static int
act_rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) == -1 && errno != ENOENT ? -1 : 0;
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

int
act_remove_tree(struct act *a, const char *path)
{
	if (!file_exists(path))
		return 0;
	if (act_would(a, "remove the tree '%s'", path))
		return 0;
	if (nftw(path, act_rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1)
		return act_fail(a, "cannot remove '%s': %s", path,
		    strerror(errno));
	return 0;
}

/* The tools' own files of the session beside its directory. */
static void
act_remove_session_beside(const char *session)
{
	char *lock = runfiles_session_inject_lock(session);
	char *delivery = runfiles_session_delivery(session);

	(void)file_remove(lock);
	(void)file_remove(delivery);
	free(delivery);
	free(lock);
}

int
act_remove_session(struct act *a, const char *session)
{
	char *dir = runfiles_session_dir(session);
	struct stat st;
	int r = 0;

	/* A symlink at the name goes, never what it names. */
	if (lstat(dir, &st) == -1)
		goto out;
	if (act_would(a, "remove the session directory '%s'", dir))
		goto out;
	if (!S_ISDIR(st.st_mode) ?
		unlink(dir) == -1 :
		nftw(dir, act_rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1)
		r = act_fail(a, "cannot remove '%s': %s", dir, strerror(errno));
	act_remove_session_beside(session);
out:
	free(dir);
	return r;
}

int
act_mkdir(struct act *a, const char *path)
{
	if (act_would(a, "create the directory '%s'", path))
		return 0;
	if (file_mkdirs(path, 0755) == -1)
		return act_fail(a, "cannot create '%s': %s", path,
		    strerror(errno));
	return 0;
}

int
act_touch(struct act *a, const char *path)
{
	if (act_would(a, "touch '%s'", path))
		return 0;
	if (runfiles_touch(path) == -1)
		return act_fail_write(a, "touch", path);
	return 0;
}

int
act_write_in_place(struct act *a, const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, r = 0;

	if (act_would(a, "write '%.60s' into '%s'", text, path))
		return 0;
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    write(fd, text, len) != (ssize_t)len)
		r = act_fail(a, "cannot write '%s': %s", path, strerror(errno));
	if (fd != -1)
		close(fd);
	return r;
}

int
act_append(struct act *a, const char *path, const char *line)
{
	if (act_would(a, "append to '%s'", path))
		return 0;
	if (file_append_line(path, line) == -1)
		return act_fail_write(a, "append to", path);
	return 0;
}

int
act_truncate(struct act *a, const char *path)
{
	if (act_would(a, "truncate '%s'", path))
		return 0;
	if (file_truncate(path) == -1)
		return act_fail_write(a, "truncate", path);
	return 0;
}

int
act_rename(struct act *a, const char *from, const char *to)
{
	if (act_would(a, "rename '%s' to '%s'", from, to))
		return 0;
	if (rename(from, to) == -1)
		return act_fail(a, "cannot rename '%s': %s", from,
		    strerror(errno));
	return 0;
}

int
act_status(struct act *a, const char *path, const char *who, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;
	int r = 0;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (!act_would(a, "set the status to '%s'", msg) &&
	    log_status(path, who, "%s", msg) == -1)
		r = act_fail_write(a, "write", path);
	free(msg);
	return r;
}

enum act_claim
act_claim(struct act *a, const char *path, size_t max, struct buf *out,
    const char *whom)
{
	if (act_would(a, "claim '%s' for %s", path, whom))
		return ACT_CLAIM_NONE;
	switch (runfiles_claim(path, max, out)) {
	case 1:
		return ACT_CLAIMED;
	case 0:
		return ACT_CLAIM_NONE;
	default:
		act_fail(a, "cannot claim '%s': %s", path, strerror(errno));
		return ACT_CLAIM_FAILED;
	}
}

int
act_signal(struct act *a, pid_t pid)
{
	if (act_would(a, "send SIGTERM to process %ld", (long)pid))
		return 0;
	if (kill(pid, SIGTERM) == -1 && errno != ESRCH)
		return act_fail(a, "cannot signal process %ld: %s", (long)pid,
		    strerror(errno));
	return 0;
}

int
act_spawn(struct act *a, char *const *argv, const char *log_path,
    const char *what, pid_t *pid)
{
	return act_spawn_env(a, argv, NULL, log_path, what, pid);
}

int
act_spawn_env(struct act *a, char *const *argv, const char *const *env,
    const char *log_path, const char *what, pid_t *pid)
{
	struct spawn_detached_opts o = {.env_add = env,
	    .log_path = log_path,
	    .child_env = 1};

	if (pid != NULL)
		*pid = 0;
	if (act_would(a, "start %s", what))
		return 0;
	if (log_path != NULL)
		(void)file_mkdir_parent(log_path);
	if (spawn_detached_ex(argv, &o, pid) == -1)
		return act_fail(a, "cannot start %s: %s", what,
		    strerror(errno));
	return 0;
}

int
act_run(struct act *a, char *const *argv, const struct spawn_opts *opts,
    struct buf *out, int *status, const char *what)
{
	*status = 0;
	if (act_would(a, "run %s", what))
		return 0;
	return spawn_run(argv, opts, out, status);
}

int
act_git(struct act *a, const char *dir, const char *const *args)
{
	char *cmd = git_cmdline(dir, args), line[256];
	struct buf out;
	int r = 0;

	buf_init(&out, ACT_GIT_OUTPUT_MAX);
	if (act_would(a, "run '%s'", cmd))
		goto out;
	if ((r = git_run(dir, args, &out)) != 0) {
		log_err("'%s' failed (%s %d): %s", cmd,
		    r == -1 ? "error" : "exit", r,
		    git_last_line(buf_str(&out), line, sizeof(line)));
		r = -1;
	}
out:
	buf_free(&out);
	free(cmd);
	return r;
}

/*
 * A good tick after a failed one: the status file's "tick failed" line,
 * or the "configuration loaded" of a start after a configuration error,
 * would outlive it (a tick with nothing to do writes no status), so it
 * is replaced.  Any other line is the tick's own and stays.
 */
static const char act_tick_ok_line[] =
    "tick ok (the last failed tick is in the log)";

static void
act_tick_ok(const char *path, const char *who)
{
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, 4096, &b) != -1 &&
	    (strstr(buf_str(&b), ": tick failed: ") != NULL ||
		strstr(buf_str(&b), ": configuration loaded") != NULL) &&
	    log_status(path, who, "%s", act_tick_ok_line) == -1)
		log_err("cannot write '%s': %s", path, strerror(errno));
	buf_free(&b);
}

int
act_tick_failed(struct act *a, const char *path, const char *who)
{
	char *msg;

	if (a->failed == 0) {
		if (path != NULL && !a->dry_run)
			act_tick_ok(path, who);
		return 0;
	}
	/* What failed first; why was logged with it. */
	msg = xasprintf("tick failed: %u write%s failed, the first: %.*s",
	    a->failed, a->failed == 1 ? "" : "s",
	    (int)strcspn(a->first_fail, ":"), a->first_fail);
	if (path == NULL || a->dry_run)
		log_err("%s", msg);
	else if (log_status_err(path, who, "%s", msg) == -1)
		log_err("cannot write '%s': %s", path, strerror(errno));
	free(msg);
	return 1;
}

int
act_agent_start(struct act *a, const struct agent_spec *spec)
{
	char err[256];

	if (act_would(a, "start session %s in '%s'", spec->session,
		spec->workdir))
		return 0;
	if (agent_start(spec, err, sizeof(err)) == -1)
		return act_fail(a, "cannot start session %s: %s", spec->session,
		    err);
	return 0;
}

/* What an agent's delivery means for the tick. */
static enum act_inject
act_delivered(struct act *a, const char *session, enum agent_delivery d)
{
	switch (d) {
	case AGENT_DELIVERED:
		return ACT_INJECTED;
	case AGENT_QUEUED:
		/*
		 * In the session's mailbox (logged "queued for S (why)"): its
		 * wrapper types it, once, and asked again agent_deliver()
		 * queues nothing twice; for the tick it is on its way.
		 */
		return ACT_INJECTED;
	case AGENT_NOT_DELIVERED:
		log_warn("injection into %s not delivered — retrying next tick",
		    session);
		return ACT_INJECT_LATER;
	default:
		act_fail(a, "cannot inject into %s", session);
		return ACT_INJECT_FAILED;
	}
}

enum act_inject
act_inject(struct act *a, const char *session, const char *key,
    const char *text)
{
	struct agent_msg m = {.key = key,
	    .kind = AGENT_MSG_INJECT,
	    .text = text};

	if (act_would(a, "inject %zu bytes into %s", strlen(text), session))
		return ACT_INJECT_DRY;
	return act_delivered(a, session, agent_deliver(session, &m));
}

enum act_inject
act_answer(struct act *a, const char *session, const char *key,
    const char *reply, const char *text)
{
	struct agent_msg m = {.key = key,
	    .kind = AGENT_MSG_ANSWER,
	    .text = text,
	    .reply = reply};

	if (act_would(a, "pass a reply of %zu bytes to %s", strlen(reply),
		session))
		return ACT_INJECT_DRY;
	return act_delivered(a, session, agent_deliver(session, &m));
}

enum act_inject
act_advance(struct act *a, const char *session, const char *key,
    const char *signal_path, enum phase next, const char *text)
{
	struct agent_msg m = {.key = key,
	    .kind = AGENT_MSG_ADVANCE,
	    .text = text,
	    .signal_path = signal_path,
	    .next = next};

	if (act_would(a, "move %s on to %s", session, phase_name(next)))
		return ACT_INJECT_DRY;
	return act_delivered(a, session, agent_deliver(session, &m));
}

int
act_kill(struct act *a, const char *session)
{
	if (act_would(a, "kill session %s", session))
		return 0;
	if (agent_kill(session) == -1)
		return act_fail(a, "cannot kill session %s", session);
	return 0;
}
