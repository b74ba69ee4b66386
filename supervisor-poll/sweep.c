/*
 * Leftovers of dev work: sessions whose issue was closed, whose PR was
 * closed or merged, or that sat idle without a PR for 30 minutes; and
 * worktrees older than 2 hours that nothing uses.  A session waiting in
 * escalate, awaiting_ci or awaiting_review is never touched: dev-poll
 * ends it when its PR is merged or closed.  When its issue or PR closed
 * and dev-poll has had its ticks since without ending it, the session
 * holds the project's slot for nothing, and that is reported (P4, the
 * priority of upstream's orphan sweep).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "lock.h"
#include "log.h"
#include "phase.h"
#include "pulls.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define IDLE_S (30 * 60)
#define WORKTREE_STALE_S (2 * 3600)
/* Two dev-poll ticks: how long dev-poll has to end a session whose issue
 * or PR closed before the supervisor reports it. */
#define STUCK_GRACE_S (20 * 60)

/* Where an issue's work stands on the forge (sweep_work()). */
enum sweep_work {
	SWEEP_UNKNOWN = -1, /* a read failed (logged) */
	SWEEP_ISSUE_CLOSED,
	SWEEP_PR_OPEN,
	SWEEP_PR_CLOSED, /* closed or merged, none open */
	SWEEP_NO_PR
};

/* A PR of an issue's branch. */
struct sweep_pr {
	long long number;
	int merged;
	time_t closed; /* when it was merged or closed; 0 unknown */
};

/*
 * The closed PRs of the sessions' issues: the list is read once, when a
 * session first needs it, and only the first PR of each issue's branch
 * is kept.
 */
struct sweep_closed {
	long long *issues; /* the issues of the sessions */
	struct sweep_pr *prs;
	int *found; /* prs[i] is issues[i]'s */
	size_t n;
	int have; /* the list was read */
};

static int sweep_protected_phase(enum phase);
static void sweep_closed_init(struct sweep_closed *, const char *,
    char *const *, size_t);
static void sweep_closed_free(struct sweep_closed *);
static int sweep_closed_keep(void *, const cJSON *);
static int sweep_pr_open(struct sup *, long long, struct sweep_pr *);
static int sweep_pr_closed(struct sup *, struct sweep_closed *, long long,
    struct sweep_pr *);
static enum sweep_work sweep_work(struct sup *, struct sweep_closed *,
    long long, struct sweep_pr *);
static char *sweep_why_orphaned(struct sup *, struct sweep_closed *, long long,
    const char *);
static void sweep_report_stuck(struct sup *, struct sweep_closed *, long long,
    const char *, const struct phase_info *);
static void sweep_clean_session(struct sup *, long long, const char *,
    const char *);
static void sweep_remove_worktree(struct sup *, const char *, long long);
static int sweep_worktree_in_use(struct sup *, const char *, long long, int);

static int
sweep_protected_phase(enum phase ph)
{
	return phase_def(ph)->sweep_protected;
}

/* The issues of the project's n dev sessions (names), nothing read yet. */
static void
sweep_closed_init(struct sweep_closed *c, const char *project,
    char *const *names, size_t n)
{
	long long issue;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->issues = xcalloc(n + 1, sizeof(*c->issues));
	c->prs = xcalloc(n + 1, sizeof(*c->prs));
	c->found = xcalloc(n + 1, sizeof(*c->found));
	for (i = 0; i < n; i++) {
		issue = runfiles_dev_session_issue(project, names[i]);
		if (issue >= 1)
			c->issues[c->n++] = issue;
	}
}

static void
sweep_closed_free(struct sweep_closed *c)
{
	free(c->issues);
	free(c->prs);
	free(c->found);
}

/* A closed PR: the first of its branch's issue, when a session's, is kept. */
static int
sweep_closed_keep(void *arg, const cJSON *el)
{
	struct sweep_closed *c = arg;
	struct forge_pull fp;
	struct sweep_pr pr;
	long long issue;
	size_t i;

	memset(&pr, 0, sizeof(pr));
	forge_pull_view(el, &fp);
	if (fp.branch == NULL ||
	    (issue = runfiles_branch_issue(fp.branch)) < 1 || fp.number <= 0)
		return 0;
	pr.number = fp.number;
	pr.merged = fp.merged;
	pr.closed = pr.merged ? fp.merged_at : fp.closed_at;
	for (i = 0; i < c->n; i++) {
		if (c->issues[i] != issue || c->found[i])
			continue;
		c->prs[i] = pr;
		c->found[i] = 1;
	}
	return 0;
}

/*
 * The open PR of issue from branch fix/issue-N (the shared list): 1 found
 * (*pr), 0 none, -1 unknown.
 */
static int
sweep_pr_open(struct sup *s, long long issue, struct sweep_pr *pr)
{
	const struct pull *p;

	memset(pr, 0, sizeof(*pr));
	if (lists_prs(s) == -1)
		return -1;
	if ((p = pulls_issue_branch(s->pulls, issue)) == NULL)
		return 0;
	pr->number = p->number;
	return 1;
}

/* The same for a closed (or merged) PR, from the list c reads once. */
static int
sweep_pr_closed(struct sup *s, struct sweep_closed *c, long long issue,
    struct sweep_pr *pr)
{
	size_t i;

	memset(pr, 0, sizeof(*pr));
	if (!c->have &&
	    forge_pulls_each(s->forge, "closed", sweep_closed_keep, c) == -1) {
		/* What the visit found is not the whole list: none of it. */
		memset(c->found, 0, c->n * sizeof(*c->found));
		sup_fail(s, "%s: cannot list closed PRs: %s",
		    s->cfg->project_name, forge_error(s->forge));
		return -1;
	}
	c->have = 1;
	for (i = 0; i < c->n; i++) {
		if (c->issues[i] == issue && c->found[i]) {
			*pr = c->prs[i];
			return 1;
		}
	}
	return 0;
}

/*
 * Where the work of issue stands on the forge: its issue closed, else
 * its PR open, closed (or merged; *pr says which and when), or none.
 */
static enum sweep_work
sweep_work(struct sup *s, struct sweep_closed *c, long long issue,
    struct sweep_pr *pr)
{
	struct forge_issue fi;
	const cJSON *it;
	int r;

	memset(pr, 0, sizeof(*pr));
	if (forge_issue_get(s->forge, issue, &it) == -1) {
		sup_fail(s, "%s: cannot read #%lld: %s", s->cfg->project_name,
		    issue, forge_error(s->forge));
		return SWEEP_UNKNOWN;
	}
	forge_issue_view(it, &fi);
	if (fi.state != NULL && strcmp(fi.state, "closed") == 0) {
		pr->closed = fi.closed;
		return SWEEP_ISSUE_CLOSED;
	}
	if ((r = sweep_pr_open(s, issue, pr)) != 0)
		return r == 1 ? SWEEP_PR_OPEN : SWEEP_UNKNOWN;
	if ((r = sweep_pr_closed(s, c, issue, pr)) != 0)
		return r == 1 ? SWEEP_PR_CLOSED : SWEEP_UNKNOWN;
	return SWEEP_NO_PR;
}

/*
 * Why the session of issue is an orphan (caller frees), or NULL when it
 * is not one or that cannot be told.
 */
static char *
sweep_why_orphaned(struct sup *s, struct sweep_closed *c, long long issue,
    const char *session)
{
	const char *proj = s->cfg->project_name;
	char *idle = runfiles_idle_marker(session);
	char *phase = runfiles_phase(proj, issue), *why = NULL;
	struct sweep_pr pr;
	time_t since = 0, t;

	switch (sweep_work(s, c, issue, &pr)) {
	case SWEEP_ISSUE_CLOSED:
		why = xasprintf("issue #%lld is closed", issue);
		goto out;
	case SWEEP_PR_CLOSED:
		why = xasprintf("its PR #%lld is closed or merged", pr.number);
		goto out;
	case SWEEP_NO_PR:
		break;
	default:
		goto out;
	}
	/*
	 * Idle since the agent last stopped at its prompt (its Stop hook's
	 * marker); a later phase write counts as activity.  Without the
	 * marker the agent has not stopped since its start: tmux cannot
	 * tell more (its session activity only moves with a client's keys,
	 * so upstream's "idle" was the session's age), and a long first
	 * task is not an orphan.
	 */
	if (file_mtime(idle, &since) == -1)
		goto out;
	if (file_mtime(phase, &t) == 0 && t > since)
		since = t;
	if (s->now - since > IDLE_S)
		why = xasprintf("no PR, idle for %lld min",
		    (long long)(s->now - since) / 60);
out:
	free(idle);
	free(phase);
	return why;
}

/*
 * A session waiting in a protected phase whose issue or PR closed: left
 * to dev-poll, reported when it is still there STUCK_GRACE_S after the
 * close (or when the close time is not known).
 */
static void
sweep_report_stuck(struct sup *s, struct sweep_closed *c, long long issue,
    const char *session, const struct phase_info *sig)
{
	const char *proj = s->cfg->project_name;
	enum sweep_work w;
	struct sweep_pr pr;
	char *what;
	long long age;

	if ((w = sweep_work(s, c, issue, &pr)) == SWEEP_ISSUE_CLOSED)
		what = xasprintf("issue #%lld was closed", issue);
	else if (w == SWEEP_PR_CLOSED)
		what = xasprintf("its PR #%lld was %s", pr.number,
		    pr.merged ? "merged" : "closed unmerged");
	else
		return;
	age = pr.closed > 0 ? (long long)(s->now - pr.closed) : -1;
	if (age >= 0 && age < STUCK_GRACE_S)
		log_msg("%s: %s waits in %s and %s %lld min ago: left to "
			"dev-poll",
		    proj, session, sig->raw, what, age / 60);
	else if (age >= 0)
		sup_alert(s, P4,
		    "%s: %s still waits in %s although %s %lld min ago "
		    "(dev-poll has not ended it)",
		    proj, session, sig->raw, what, age / 60);
	else
		sup_alert(s, P4,
		    "%s: %s still waits in %s although %s (dev-poll has not "
		    "ended it)",
		    proj, session, sig->raw, what);
	free(what);
}

/* Remove a dev worktree through git (never by hand). */
static void
sweep_remove_worktree(struct sup *s, const char *path, long long age_min)
{
	const char *args[] = {"worktree", "remove", "--force", path, NULL};
	struct stat st;

	if (lstat(path, &st) == -1 || !S_ISDIR(st.st_mode))
		return;
	if (act_git(&s->act, s->cfg->project_repo_root, args) == 0 &&
	    age_min >= 0)
		sup_fixed(s, "%s: removed the stale worktree %s (%lld min old)",
		    s->cfg->project_name, path, age_min);
}

static void
sweep_clean_session(struct sup *s, long long issue, const char *session,
    const char *why)
{
	const char *proj = s->cfg->project_name;
	char *wt = runfiles_worktree(proj, issue);
	char *lock = runfiles_dev_agent_lock(proj);
	char *phase = runfiles_phase(proj, issue);
	pid_t pid;

	if (act_kill(&s->act, session) == -1)
		goto out;
	sweep_remove_worktree(s, wt, -1);
	if (file_exists(lock) && lock_pid_alive(lock, &pid) == 0)
		(void)act_remove(&s->act, lock);
	(void)act_remove(&s->act, phase);
	sup_fixed(s, "%s: cleaned up the orphaned session %s (%s)", proj,
	    session, why);
out:
	free(wt);
	free(lock);
	free(phase);
}

void
sweep_sessions(struct sup *s)
{
	const char *proj = s->cfg->project_name;
	char *prefix = runfiles_dev_session_prefix(proj), **names;
	struct sweep_closed closed;
	struct phase_info sig;
	size_t n, i;

	sup_status(s, "P4: %s: sweeping orphaned dev sessions", proj);
	if (agent_list(prefix, &names, &n) == -1) {
		sup_fail(s, "%s: cannot list the agent sessions", proj);
		goto out;
	}
	sweep_closed_init(&closed, proj, names, n);
	for (i = 0; i < n; i++) {
		long long issue = runfiles_dev_session_issue(proj, names[i]);
		char *phase, *why;

		if (issue < 1)
			continue;
		phase = runfiles_phase(proj, issue);
		if (agent_read_signal(names[i], phase, &sig) == -1)
			sup_fail(s, "cannot read '%s'", phase);
		else if (sweep_protected_phase(sig.phase))
			sweep_report_stuck(s, &closed, issue, names[i], &sig);
		else if ((why = sweep_why_orphaned(s, &closed, issue,
			      names[i])) != NULL) {
			sweep_clean_session(s, issue, names[i], why);
			free(why);
		}
		free(phase);
	}
	sweep_closed_free(&closed);
	agent_list_free(names, n);
out:
	free(prefix);
}

/*
 * 1 when a worktree is in use (or that cannot be ruled out): its session
 * lives, its dev session waits in a phase, or a process works in it.
 */
static int
sweep_worktree_in_use(struct sup *s, const char *path, long long n, int review)
{
	const char *proj = s->cfg->project_name;
	char *session = review ? runfiles_review_session(proj, n) :
				 runfiles_dev_session(proj, n);
	char *phase =
	    review ? runfiles_review_phase(proj, n) : runfiles_phase(proj, n);
	struct phase_info sig;
	int used = 1;

	if (agent_alive(session) != 0)
		goto out;
	if (review ?
		file_exists(phase) :
		(agent_read_signal(session, phase, &sig) == -1 ||
		    (sig.phase != PHASE_NONE && !phase_is_terminal(sig.phase))))
		goto out;
	used = procs_cwd_under(s->cfg, path) != 0;
out:
	free(session);
	free(phase);
	return used;
}

void
sweep_worktrees(struct sup *s)
{
	static const char *const prune[] = {"worktree", "prune", NULL};
	const char *proj = s->cfg->project_name;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if ((d = opendir(s->cfg->run_dir)) == NULL) {
		sup_fail(s, "cannot read '%s': %s", s->cfg->run_dir,
		    strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char *path = xasprintf("%s/%s", s->cfg->run_dir, de->d_name);
		long long n = runfiles_worktree_issue(proj, path);
		int review = 0;

		if (n < 0 && (n = runfiles_review_worktree_pr(proj, path)) >= 0)
			review = 1;
		if (n >= 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
		    s->now - st.st_mtime > WORKTREE_STALE_S &&
		    !sweep_worktree_in_use(s, path, n, review))
			sweep_remove_worktree(s, path,
			    (long long)(s->now - st.st_mtime) / 60);
		free(path);
	}
	closedir(d);
	if (file_exists(s->cfg->project_repo_root))
		(void)act_git(&s->act, s->cfg->project_repo_root, prune);
}
