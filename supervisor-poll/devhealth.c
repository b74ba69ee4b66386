/*
 * Is the project's dev factory moving?  The legacy dev-agent lock and its
 * status file, a dev session with no sign of work for 30 minutes, the
 * local clone (mid-rebase, off the primary branch), a stalled backlog,
 * and a dev-poll that keeps finding nothing ready.  The last two read
 * dev-poll's record of its ticks (dev-poll-ticks-P), which moves only
 * when work moves; dev-poll's log is written on every tick.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "apipause.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "git.h"
#include "lock.h"
#include "log.h"
#include "phase.h"
#include "record.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define STATUS_STALE_S (30 * 60)
#define STALL_S (20 * 60)
#define POLL_WINDOW 6

/* dev-poll's record of its ticks (runfiles_dev_ticks()). */
struct ticks {
	long long tick;	  /* the last tick */
	char outcome[32]; /* RUNFILES_TICK_... */
	long long streak; /* ticks in a row with that outcome */
	long long worked; /* the last tick that found work moving */
};

static int devhealth_ticks(const struct sup *, struct ticks *);
static void devhealth_dev_lock(struct sup *);
static long long devhealth_last_sign(struct sup *, const char *,
    const struct phase_info *);
static void devhealth_sessions(struct sup *);
static void devhealth_progress(struct sup *, const char *);
static int devhealth_is_dir(const char *);
static void devhealth_git_repo(struct sup *);
static void devhealth_stall(struct sup *);
static void devhealth_productivity(struct sup *);

/* Read dev-poll's tick record: 0, or -1 when there is none (yet). */
static int
devhealth_ticks(const struct sup *s, struct ticks *t)
{
	char *path = runfiles_dev_ticks(s->cfg->project_name);
	struct buf b;
	int r = -1;

	memset(t, 0, sizeof(*t));
	buf_init(&b, 0);
	if (record_load(path, &b) == 0 &&
	    record_get_ll(buf_str(&b), "TICK:", &t->tick) == 0 &&
	    record_get(buf_str(&b), "OUTCOME:", t->outcome,
		sizeof(t->outcome)) == 0 &&
	    record_get_ll(buf_str(&b), "STREAK:", &t->streak) == 0 &&
	    record_get_ll(buf_str(&b), "WORKED:", &t->worked) == 0)
		r = 0;
	buf_free(&b);
	free(path);
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
		sup_alert(s, P2, "%s: Dev-agent: status unchanged for %lldmin",
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
 * Backlog waiting, nothing in progress, and no agent at work for 20 min:
 * dev-poll's ticks launched, merged or found an agent running none of
 * that time (its log is no sign: it is written on every tick).
 */
static void
devhealth_stall(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	long long backlog, busy;
	struct ticks t;

	sup_status(s, "P2: %s: checking pipeline stall", proj);
	if (lists_backlog(s) == -1)
		return;
	backlog = lists_backlog_labelled(s);
	if (lists_count_labelled(s, "in-progress", &busy) == -1 ||
	    backlog == 0 || busy > 0)
		return;
	if (devhealth_ticks(s, &t) == -1)
		sup_alert(s, P2,
		    "%s: Pipeline stalled: %lld backlog issue(s), no dev-poll "
		    "tick recorded",
		    proj, backlog);
	else if (s->now - t.worked > STALL_S)
		sup_alert(s, P2,
		    "%s: Pipeline stalled: %lld backlog issue(s), no agent ran "
		    "for %lldmin (last dev-poll tick %lldmin ago: %s)",
		    proj, backlog, (s->now - t.worked) / 60,
		    (s->now - t.tick) / 60, t.outcome);
}

/*
 * dev-poll's last 6 ticks in a row found backlog issues and none it could
 * start (their dependencies open, or open PRs holding new work).
 */
static void
devhealth_productivity(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	struct ticks t;

	sup_status(s, "P2: %s: checking dev-agent productivity", proj);
	if (devhealth_ticks(s, &t) == -1 ||
	    strcmp(t.outcome, RUNFILES_TICK_NOTHING_READY) != 0 ||
	    t.streak < POLL_WINDOW)
		return;
	sup_alert(s, P2,
	    "%s: Dev-agent blocked: last %lld polls all report 'no ready "
	    "issues'",
	    proj, t.streak);
}

/*
 * The newest sign of work of a dev session: dev-poll's status line, the
 * phase file (written empty at the launch), the agent's Stop-hook and
 * phase-write markers.  Seconds since the epoch, or 0 when there is none.
 */
static long long
devhealth_last_sign(struct sup *s, const char *session,
    const struct phase_info *sig)
{
	char *paths[3];
	time_t t, last = sig->mtime;
	size_t i;

	paths[0] = runfiles_dev_status(s->cfg->project_name);
	paths[1] = runfiles_idle_marker(session);
	paths[2] = runfiles_phase_marker(session);
	for (i = 0; i < 3; i++) {
		if (file_mtime(paths[i], &t) == 0 && t > last)
			last = t;
		free(paths[i]);
	}
	return (long long)last;
}

/*
 * Every mode's status-age check: a live dev session that has written no
 * phase yet (it is meant to be working) with no sign of work for 30 min.
 * The waiting phases have clocks of their own (CI timeout, review,
 * escalation).
 */
static void
devhealth_sessions(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	char *prefix = runfiles_dev_session_prefix(proj), **names, *phase;
	char *apierr;
	struct phase_info sig;
	long long issue, last;
	size_t n, i;

	sup_status(s, "P2: %s: checking dev-agent status", proj);
	if (agent_list(prefix, &names, &n) == -1) {
		sup_fail(s, "%s: cannot list the agent sessions", proj);
		free(prefix);
		return;
	}
	for (i = 0; i < n; i++) {
		if ((issue = runfiles_dev_session_issue(proj, names[i])) < 1)
			continue;
		phase = runfiles_phase(proj, issue);
		/* One an API error stopped waits for the pause's end. */
		apierr = runfiles_api_error(names[i]);
		if (!file_exists(apierr) &&
		    agent_read_signal(names[i], phase, &sig) == 0 &&
		    (sig.phase == PHASE_NONE || sig.phase == PHASE_UNKNOWN) &&
		    (last = devhealth_last_sign(s, names[i], &sig)) > 0 &&
		    s->now - last > STATUS_STALE_S)
			sup_alert(s, P2,
			    "%s: Dev-agent: status unchanged for %lldmin "
			    "(%s, no phase written)",
			    proj, (s->now - last) / 60, names[i]);
		devhealth_progress(s, names[i]);
		free(apierr);
		free(phase);
	}
	agent_list_free(names, n);
	free(prefix);
}

/*
 * What the session's agent reports of its progress (agent_progress()),
 * when it reports any, as an "agent" metric: state, percent, its own
 * phase and message, and the report's age in seconds.
 */
static void
devhealth_progress(struct sup *s, const char *session)
{
	struct agent_progress p;
	cJSON *m;

	if (agent_progress(session, &p) != 0)
		return;
	m = metrics_new(s, "agent");
	cJSON_AddStringToObject(m, "project", s->cfg->project_name);
	cJSON_AddStringToObject(m, "session", session);
	cJSON_AddStringToObject(m, "state", p.state);
	if (p.progress >= 0)
		cJSON_AddNumberToObject(m, "progress", p.progress);
	cJSON_AddStringToObject(m, "phase", p.phase);
	cJSON_AddStringToObject(m, "message", p.message);
	if (p.updated_at != 0)
		cJSON_AddNumberToObject(m, "updated_age_s",
		    (double)(s->now > p.updated_at ? s->now - p.updated_at :
						     0));
	metrics_emit(s, m);
}

/*
 * The project paused by an API error of the agent CLI's (apipause.h) for
 * longer than API_PAUSE_ALERT_MINUTES: someone must look at the account
 * or the service.  1 while it holds (the stall check then waits: the
 * pause says why nothing runs), else 0.  No status step of its own:
 * the steps are upstream's words and order.
 */
static int
devhealth_api_pause(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	char *path = runfiles_api_pause(proj), desc[256];
	struct apipause p;
	long long age;

	if (apipause_read(path, &p) == -1)
		sup_fail(s, "%s: cannot read '%s'", proj, path);
	free(path);
	if (p.since == 0)
		return 0;
	age = s->now > p.since ? (long long)(s->now - p.since) : 0;
	apipause_describe(&p, desc, sizeof(desc));
	if (age > s->cfg->api_pause_alert_minutes * 60)
		sup_alert(s, P2,
		    "%s: API pause: the agent CLI's API has failed for %lldmin "
		    "(%s; API_PAUSE_ALERT_MINUTES %lld)",
		    proj, age / 60, desc, s->cfg->api_pause_alert_minutes);
	return apipause_active(&p, s->now);
}

void
devhealth_check(struct sup *s)
{
	int paused = devhealth_api_pause(s);

	if (s->cfg->check_dev_agent) {
		devhealth_dev_lock(s);
		devhealth_sessions(s);
	}
	devhealth_git_repo(s);
	if (s->cfg->check_pipeline_stall && !paused)
		devhealth_stall(s);
	if (s->cfg->check_dev_agent)
		devhealth_productivity(s);
}
