/*
 * Is the project's dev factory moving?  The legacy dev-agent lock and its
 * status file, the local clone (mid-rebase, off the primary branch), a
 * stalled backlog, and a dev-poll that keeps finding nothing ready.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "git.h"
#include "json.h"
#include "lock.h"
#include "log.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define STATUS_STALE_S (30 * 60)
#define STALL_S (20 * 60)
#define POLL_WINDOW 6
#define LOG_TAIL_BYTES (64 * 1024)
#define LOG_TAIL_LINES 100

static int devhealth_log_tail(const char *, size_t, struct buf *);
static void devhealth_dev_lock(struct sup *);
static int devhealth_is_dir(const char *);
static void devhealth_git_repo(struct sup *);
static int devhealth_labelled_count(struct sup *, const char *, const char *,
    long long *);
static void devhealth_stall(struct sup *);
static void devhealth_productivity(struct sup *);

/*
 * Append the last max bytes of path (from a line start when the file is
 * longer) to out.  0, or -1 with errno set (ENOENT when missing).
 */
static int
devhealth_log_tail(const char *path, size_t max, struct buf *out)
{
	struct stat st;
	char *data;
	ssize_t n;
	off_t from;
	size_t got = 0;
	int fd, r = -1;
	const char *start;

	if ((fd = file_open_read(path)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto out;
	from = st.st_size > (off_t)max ? st.st_size - (off_t)max : 0;
	data = xmalloc(max + 1);
	while (got < max &&
	    (n = pread(fd, data + got, max - got, from + (off_t)got)) > 0)
		got += (size_t)n;
	data[got] = '\0';
	start = data;
	if (from > 0 && (start = memchr(data, '\n', got)) != NULL)
		start++;
	else if (from > 0)
		start = data + got;
	buf_append(out, start, got - (size_t)(start - data));
	free(data);
	r = 0;
out:
	close(fd);
	return r;
}

/* The PID in the legacy dev-agent lock: remove it when dead. */
static void
devhealth_dev_lock(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	char *lock = runfiles_dev_agent_lock(proj);
	char *status = runfiles_dev_status(proj);
	long long age;
	pid_t pid;
	int r;

	if (!file_exists(lock))
		goto out;
	r = lock_pid_alive(lock, &pid);
	if (r == -1) {
		sup_fail(s, "cannot read '%s': %s", lock, strerror(errno));
	} else if (r == 0) {
		if (act_remove(&s->act, lock) == 0)
			sup_fixed(s,
			    "%s: removed the stale dev-agent lock (pid "
			    "%ld gone)",
			    proj, (long)pid);
	} else if (runfiles_age(status, s->now, &age) == -1) {
		sup_alert(s, P2, "%s: dev agent %ld runs without a status file",
		    proj, (long)pid);
	} else if (age > STATUS_STALE_S) {
		sup_alert(s, P2, "%s: dev agent status unchanged for %lld min",
		    proj, age / 60);
	}
out:
	free(lock);
	free(status);
}

static int
devhealth_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The local clone: a stale rebase aborted, the primary branch checked out. */
static void
devhealth_git_repo(struct sup *s)
{
	static const char *const abort_args[] = {"rebase", "--abort", NULL};
	static const char *const head_args[] = {"symbolic-ref", "--short", "-q",
	    "HEAD", NULL};
	const char *repo = s->cfg->project_repo_root;
	const char *primary = s->cfg->primary_branch,
		   *proj = s->cfg->project_name;
	const char *checkout[] = {"checkout", primary, NULL};
	char *branch = NULL;
	int status, r;

	if (!devhealth_is_dir(repo))
		return;
	if ((r = git_in_rebase(repo)) == -1) {
		sup_fail(s, "%s: cannot find the git directory of '%s'",
		    s->cfg->project_name, repo);
		return;
	}
	if (r == 1) {
		if (act_git(&s->act, repo, abort_args) == 0 &&
		    act_git(&s->act, repo, checkout) == 0)
			sup_fixed(s, "%s: aborted a stale rebase, back on %s",
			    proj, primary);
		else
			sup_alert(s, P2, "%s: git: stale rebase, abort failed",
			    proj);
		if (s->act.dry_run)
			return;
	}
	branch = git_line(repo, head_args, &status);
	if (branch == NULL && status != 1) {
		sup_fail(s, "%s: cannot read the branch of '%s'", proj, repo);
		return;
	}
	if (branch == NULL || strcmp(branch, primary) != 0) {
		if (act_git(&s->act, repo, checkout) == 0)
			sup_fixed(s, "%s: switched the clone from '%s' to %s",
			    proj, branch ? branch : "(detached)", primary);
		else
			sup_alert(s, P2, "%s: git: on '%s' instead of %s", proj,
			    branch ? branch : "(detached)", primary);
	}
	free(branch);
}

/*
 * The number of open issues carrying label, in *count.  Items are checked
 * for the label themselves: Gitea ignores a filter naming a label the
 * repository does not have.
 */
static int
devhealth_labelled_count(struct sup *s, const char *label, const char *type,
    long long *count)
{
	const cJSON *list, *it;

	*count = 0;
	if (forge_issues_list(s->forge, "open", label, type, NULL, &list) ==
	    -1) {
		sup_fail(s, "%s: cannot list '%s' issues: %s",
		    s->cfg->project_name, label, forge_error(s->forge));
		return -1;
	}
	cJSON_ArrayForEach (it, list)
		if (json_has_label(it, label))
			(*count)++;
	return 0;
}

/* Backlog waiting, nothing in progress, and dev-poll silent for 20 min. */
static void
devhealth_stall(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	char *log = runfiles_dev_log(proj);
	long long backlog, busy, age;

	sup_status(s, "P2: %s: checking for a stalled backlog", proj);
	if (devhealth_labelled_count(s, "backlog", "issues", &backlog) == -1 ||
	    devhealth_labelled_count(s, "in-progress", "issues", &busy) == -1 ||
	    backlog == 0 || busy > 0)
		goto out;
	if (runfiles_age(log, s->now, &age) == -1)
		sup_alert(s, P2,
		    "%s: backlog stalled: %lld issue(s) waiting, no dev-poll "
		    "log at all",
		    proj, backlog);
	else if (age > STALL_S)
		sup_alert(s, P2,
		    "%s: backlog stalled: %lld issue(s) waiting, no dev "
		    "activity for %lld min",
		    proj, backlog, age / 60);
out:
	free(log);
}

/* The last 6 dev-poll ticks all found no ready issue. */
static void
devhealth_productivity(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	char *log = runfiles_dev_log(proj), *text;
	const char *lines[LOG_TAIL_LINES], *p;
	struct buf tail;
	size_t n = 0, i, polls = 0, idle = 0;

	sup_status(s, "P2: %s: checking dev-poll productivity", proj);
	buf_init(&tail, 0);
	if (devhealth_log_tail(log, LOG_TAIL_BYTES, &tail) == -1)
		goto out;
	text = tail.data != NULL ? tail.data : (char *)"";
	/* The last LOG_TAIL_LINES lines, newest first. */
	for (p = text + strlen(text); p > text;) {
		const char *end = p;

		while (p > text && p[-1] != '\n')
			p--;
		if (end > p && n < LOG_TAIL_LINES)
			lines[n++] = p;
		if (p > text)
			*(char *)--p = '\0';
	}
	for (i = 0; i < n && polls < POLL_WINDOW; i++) {
		if (strstr(lines[i], "poll:") == NULL)
			continue;
		polls++;
		idle += strstr(lines[i], "no ready issues") != NULL;
	}
	if (polls == POLL_WINDOW && idle == polls)
		sup_alert(s, P2,
		    "%s: dev-poll blocked: its last %d ticks found no ready "
		    "issues",
		    proj, POLL_WINDOW);
out:
	buf_free(&tail);
	free(log);
}

void
devhealth_check(struct sup *s)
{
	if (s->cfg->check_dev_agent)
		devhealth_dev_lock(s);
	devhealth_git_repo(s);
	if (s->cfg->check_pipeline_stall)
		devhealth_stall(s);
	if (s->cfg->check_dev_agent)
		devhealth_productivity(s);
}
