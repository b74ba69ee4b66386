/*
 * Launching a dev session for an issue, in-process: read everything the
 * launch needs first (the issue, its comments, dependencies, an open PR
 * to adopt or a closed one to learn from), so that missing data stops
 * the launch before anything changed; then charge the CI-fix budget,
 * claim the issue, prepare the worktree, install the hooks, start the
 * agent, wait until it is ready and inject the prompt.  Any failure after
 * the claim gives the issue back.  In legacy mode DEV_AGENT_CMD is
 * started detached with the issue number instead.
 */
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "git.h"
#include "json.h"
#include "log.h"
#include "react.h"
#include "runfiles.h"
#include "spawn.h"
#include "strv.h"
#include "template.h"
#include "utf8.h"
#include "worktree.h"
#include "xmalloc.h"

/* Seconds the agent may take to show its prompt. */
#define READY_TIMEOUT 120
/* Prior art: the newest closed PRs looked at, and the diff kept. */
#define PRIOR_PATH "/pulls?state=closed&limit=50"
#define PRIOR_BYTES (64 * 1024)
#define PRIOR_LINES 500
/* Recovery context. */
#define PR_COMMENTS 3
#define PR_COMMENT_MAX 500
#define DIFFSTAT_LINES 20
#define CI_RESULT_MAX (8 * 1024)

/* What a launch reads before it changes anything. */
struct launch {
	long long issue;
	const cJSON *it;
	const cJSON *comments;
	const char *login;
	long long pr;	/* the open PR to adopt (recovery), or 0 */
	char *branch;	/* fix/issue-N, or the PR's branch */
	char *prior;	/* the prior-art section, or "" */
	char *pr_notes; /* recovery: the PR's latest comments */
	char *text;	/* the issue with its human comments */
	char *title;
	char *backlog;
	char *remote;
	char *worktree;
	int crash; /* restarting a crashed session */
};

static int safe_ref(const char *);
static long long body_pr(const char *);
static int adopt(struct launch *, long long, const char *, const char *);
static int find_pr(struct dev_ctx *, struct launch *);
static char *cut_lines(const char *, size_t);
static int prior_art(struct dev_ctx *, struct launch *);
static int pr_notes(struct dev_ctx *, struct launch *);
static int gather(struct dev_ctx *, const struct dp_launch_req *,
    struct launch *);
static void launch_free(struct launch *);
static int claim(struct dev_ctx *, struct launch *);
static void unclaim(struct dev_ctx *, const struct launch *);
static char *protocol(struct dev_ctx *, const struct launch *);
static char *prompt_fresh(struct dev_ctx *, struct launch *, const char *);
static char *prompt_recovery(struct dev_ctx *, struct launch *, const char *,
    const char *);
static char *build_prompt(struct dev_ctx *, struct launch *);
static void clear_run_files(struct dev_ctx *, const struct launch *);
static int crash_worktree(struct dev_ctx *, struct launch *);
static void mark_started(struct dev_ctx *, const struct launch *, int);
static enum dp_launch launch_legacy(struct dev_ctx *,
    const struct dp_launch_req *);
static enum dp_launch launch_session(struct dev_ctx *,
    const struct dp_launch_req *, struct launch *);

/* A branch name safe to hand to git as an argument. */
static int
safe_ref(const char *ref)
{
	const char *p;

	if (ref == NULL || *ref == '\0' || *ref == '-' || strstr(ref, ".."))
		return 0;
	for (p = ref; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("._/-", *p) == NULL)
			return 0;
	return 1;
}

/* The N of "Existing PR: #N" in an issue body, or 0. */
static long long
body_pr(const char *body)
{
	const char *p;

	if (body == NULL || (p = strstr(body, "Existing PR:")) == NULL)
		return 0;
	for (p += 12; *p == ' ' || *p == '\t'; p++)
		;
	if (*p != '#' || !isdigit((unsigned char)p[1]))
		return 0;
	return strtoll(p + 1, NULL, 10);
}

/* Take PR number on branch as the one to continue. */
static int
adopt(struct launch *l, long long number, const char *branch, const char *how)
{
	if (!safe_ref(branch)) {
		log_msg("PR #%lld has an unusable branch name", number);
		return -1;
	}
	l->pr = number;
	free(l->branch);
	l->branch = xstrdup(branch);
	log_msg("found existing PR #%lld on branch %s (from %s)", number,
	    branch, how);
	return 0;
}

/*
 * The open PR of the issue: named in its body ("Existing PR: #N"), on
 * branch fix/issue-N, fixing it ("Fixes #N" in the PR body), or naming it
 * in the title.  0 (l->pr stays 0 when there is none) or -1.
 */
static int
find_pr(struct dev_ctx *c, struct launch *l)
{
	const cJSON *pr;
	const char *state;
	struct dp_pr *p;
	long long n;

	if ((n = body_pr(json_str(l->it, "body"))) > 0) {
		if (forge_pull_get(c->forge, n, &pr) == 0) {
			state = json_str(pr, "state");
			if (state != NULL && strcmp(state, "open") == 0)
				return adopt(l, n, json_str_at(pr, "head.ref"),
				    "issue body");
		} else if (forge_last_status(c->forge) != 404) {
			log_msg("cannot read PR #%lld: %s", n,
			    forge_error(c->forge));
			return -1;
		}
	}
	if (dp_prs_load(c) == -1)
		return -1;
	if ((p = dp_pr_for_branch(c, l->branch)) != NULL)
		return adopt(l, p->number, p->branch, "branch match");
	if ((p = dp_pr_fixing(c, l->issue)) != NULL)
		return adopt(l, p->number, p->branch, "body match");
	if ((p = dp_pr_for_issue(c, l->issue, 1)) != NULL)
		return adopt(l, p->number, p->branch, "title match");
	return 0;
}

/* The first max lines of text.  Caller frees. */
static char *
cut_lines(const char *text, size_t max)
{
	const char *p = text;
	size_t n = 0;

	while (*p != '\0' && n < max)
		if (*p++ == '\n')
			n++;
	return xstrndup(text, (size_t)(p - text));
}

/* The prior-art section from a closed, unmerged PR of the issue. */
static int
prior_art(struct dev_ctx *c, struct launch *l)
{
	const cJSON *list, *pr;
	const char *diff;
	char num[32], *cut;
	long long n = 0;
	int merged, trunc;

	l->prior = xstrdup("");
	if (forge_get(c->forge, PRIOR_PATH, cJSON_Array, &list) == -1) {
		log_msg("cannot read the closed PRs: %s",
		    forge_error(c->forge));
		return -1;
	}
	cJSON_ArrayForEach (pr, list) {
		if (json_bool(pr, "merged", &merged) == 0 && merged)
			continue;
		if ((dp_title_names(json_str(pr, "title"), l->issue) ||
			dp_text_fixes(json_str(pr, "body"), l->issue)) &&
		    json_int(pr, "number", &n) == 0)
			break;
		n = 0;
	}
	if (n == 0)
		return 0;
	log_msg("found closed (unmerged) PR #%lld as prior art", n);
	if (forge_pull_diff(c->forge, n, PRIOR_BYTES, &diff, &trunc) == -1) {
		log_msg("cannot read the diff of PR #%lld: %s", n,
		    forge_error(c->forge));
		return -1;
	}
	if (*diff == '\0')
		return 0;
	cut = cut_lines(diff, PRIOR_LINES);
	while (*cut != '\0' && cut[strlen(cut) - 1] == '\n')
		cut[strlen(cut) - 1] = '\0';
	snprintf(num, sizeof(num), "%lld", n);
	free(l->prior);
	l->prior = dp_render(c, "dev-prior-art.md",
	    (struct template_var[]) {{"PR", num}, {"DIFF", cut}}, 2);
	free(cut);
	return l->prior != NULL ? 0 : -1;
}

/* Recovery: the PR's latest comments, each cut short. */
static int
pr_notes(struct dev_ctx *c, struct launch *l)
{
	const cJSON *list, *cm;
	const char *who;
	struct buf b;
	char *body;
	int n, i;

	if (forge_comments_list(c->forge, l->pr, &list) == -1) {
		log_msg("cannot read the comments of PR #%lld: %s", l->pr,
		    forge_error(c->forge));
		return -1;
	}
	buf_init(&b, 0);
	n = cJSON_GetArraySize(list);
	for (i = n > PR_COMMENTS ? n - PR_COMMENTS : 0; i < n; i++) {
		cm = cJSON_GetArrayItem(list, i);
		who = json_str_at(cm, "user.login");
		body = utf8_cut(json_str(cm, "body"), PR_COMMENT_MAX, NULL);
		buf_printf(&b, "[%s] %s\n", who != NULL ? who : "?", body);
		free(body);
	}
	if (b.len == 0)
		buf_puts(&b, "(none)\n");
	l->pr_notes = buf_steal(&b);
	return 0;
}

/*
 * Everything the launch reads.  Returns 0, 1 when the issue cannot be
 * started (closed, unmet dependencies), or -1 when a read failed.
 */
static int
gather(struct dev_ctx *c, const struct dp_launch_req *req, struct launch *l)
{
	const char *state;
	int r;

	l->issue = req->issue;
	l->branch = runfiles_branch(req->issue);
	if ((l->it = req->issue_json) == NULL &&
	    dp_issue(c, req->issue, &l->it) == -1)
		return -1;
	if ((state = json_str(l->it, "state")) == NULL ||
	    strcmp(state, "open") != 0) {
		log_msg("SKIP: issue #%lld is %s", l->issue,
		    state != NULL ? state : "in an unknown state");
		return 1;
	}
	if (forge_comments_list(c->forge, l->issue, &l->comments) == -1) {
		log_msg("cannot read the comments of #%lld: %s", l->issue,
		    forge_error(c->forge));
		return -1;
	}
	l->crash = req->crash;
	if (!l->crash &&
	    (r = dp_preflight(c, l->issue, json_str(l->it, "body"),
		 l->comments)) != 0)
		return r;
	if (forge_user_login(c->forge, &l->login) == -1) {
		log_msg("cannot read the token's user: %s",
		    forge_error(c->forge));
		return -1;
	}
	if (find_pr(c, l) == -1 || dp_backlog_load(c) == -1)
		return -1;
	if ((l->pr > 0 ? pr_notes(c, l) : prior_art(c, l)) == -1)
		return -1;
	l->text = dp_issue_text(c, l->it, l->comments, l->login);
	l->title = dp_title(l->it);
	l->backlog = dp_backlog_text(c, l->issue);
	return 0;
}

static void
launch_free(struct launch *l)
{
	free(l->branch);
	free(l->prior);
	free(l->pr_notes);
	free(l->text);
	free(l->title);
	free(l->backlog);
	free(l->remote);
	free(l->worktree);
}

/* Label the issue in-progress and take it off the backlog. */
static int
claim(struct dev_ctx *c, struct launch *l)
{
	if (!json_has_label(l->it, "in-progress") &&
	    act_label_add(&c->act, l->issue, "in-progress") == -1)
		return -1;
	if (json_has_label(l->it, "backlog") &&
	    act_label_remove(&c->act, l->issue, "backlog") == -1)
		return -1;
	return 0;
}

/* Give the issue back: no longer in progress, back on the backlog. */
static void
unclaim(struct dev_ctx *c, const struct launch *l)
{
	log_msg("unclaiming issue #%lld", l->issue);
	(void)act_label_remove(&c->act, l->issue, "in-progress");
	/* As upstream: an issue with a PR is not put back on the backlog. */
	if (l->pr == 0)
		(void)act_label_add(&c->act, l->issue, "backlog");
}

/* The phase protocol with the session's real paths. */
static char *
protocol(struct dev_ctx *c, const struct launch *l)
{
	char *phase = runfiles_phase(c->cfg->project_name, l->issue);
	char *summary = runfiles_summary(c->cfg->project_name, l->issue);
	char *out;

	out = dp_render(c, "dev-phase-protocol.md",
	    (struct template_var[]) {{"PHASE_FILE", phase},
		{"SUMMARY_FILE", summary}, {"REMOTE", l->remote},
		{"BRANCH", l->branch}},
	    4);
	free(summary);
	free(phase);
	return out;
}

/* The first prompt of a fresh session. */
static char *
prompt_fresh(struct dev_ctx *c, struct launch *l, const char *proto)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", l->issue);
	return dp_render(c, "dev-initial.md",
	    (struct template_var[]) {{"WORKTREE", l->worktree},
		{"BRANCH", l->branch}, {"ISSUE", num},
		{"REPO", c->cfg->forge_repo}, {"TITLE", l->title},
		{"ISSUE_TEXT", l->text}, {"BACKLOG", l->backlog},
		{"PRIOR_ART", l->prior}, {"PHASE_PROTOCOL", proto}},
	    9);
}

/* The first prompt of a session continuing an open PR. */
static char *
prompt_recovery(struct dev_ctx *c, struct launch *l, const char *proto,
    const char *tmpl)
{
	char num[32], pr[32], *range, *stat, *phase_path, *ci_path, *session;
	const char *diffstat[] = {"diff", "--stat", NULL, NULL};
	struct phase_info sig;
	struct buf diff, ci;
	char *out;

	snprintf(num, sizeof(num), "%lld", l->issue);
	snprintf(pr, sizeof(pr), "%lld", l->pr);
	buf_init(&diff, 1024 * 1024);
	buf_init(&ci, 0);
	range = xasprintf("%s/%s..HEAD", l->remote, c->cfg->primary_branch);
	diffstat[2] = range;
	if (git_run(l->worktree, diffstat, &diff) != 0)
		buf_reset(&diff);
	stat = cut_lines(diff.len > 0 ? buf_str(&diff) : "(no diff)\n",
	    DIFFSTAT_LINES);
	phase_path = runfiles_phase(c->cfg->project_name, l->issue);
	session = runfiles_dev_session(c->cfg->project_name, l->issue);
	if (agent_read_signal(session, phase_path, &sig) == -1 ||
	    *sig.raw == '\0')
		snprintf(sig.raw, sizeof(sig.raw), "unknown");
	ci_path = runfiles_ci_result(c->cfg->project_name, l->issue);
	if (file_read(ci_path, CI_RESULT_MAX, &ci) == -1 || ci.len == 0) {
		buf_reset(&ci);
		buf_puts(&ci, "(none recorded)");
	}
	out = dp_render(c, tmpl,
	    (struct template_var[]) {{"WORKTREE", l->worktree},
		{"BRANCH", l->branch}, {"ISSUE", num},
		{"REPO", c->cfg->forge_repo}, {"TITLE", l->title},
		{"ISSUE_TEXT", l->text}, {"DIFF_STAT", stat},
		{"LAST_PHASE", sig.raw}, {"PR", pr},
		{"PR_COMMENTS", l->pr_notes}, {"CI_RESULT", buf_str(&ci)},
		{"PHASE_PROTOCOL", proto}},
	    12);
	free(ci_path);
	free(session);
	free(phase_path);
	free(stat);
	free(range);
	buf_free(&ci);
	buf_free(&diff);
	return out;
}

static char *
build_prompt(struct dev_ctx *c, struct launch *l)
{
	char *proto, *out;

	if ((proto = protocol(c, l)) == NULL)
		return NULL;
	if (l->pr > 0)
		out = prompt_recovery(c, l, proto, "dev-recovery.md");
	else if (l->crash)
		out = prompt_recovery(c, l, proto, "dev-crash.md");
	else
		out = prompt_fresh(c, l, proto);
	free(proto);
	return out;
}

/*
 * A new session starts without the old one's phase; a fresh one also
 * without its summary and CI result.
 */
static void
clear_run_files(struct dev_ctx *c, const struct launch *l)
{
	const char *p = c->cfg->project_name;
	char *path;

	path = runfiles_phase(p, l->issue);
	(void)act_remove(&c->act, path);
	free(path);
	if (l->pr > 0)
		return;
	path = runfiles_summary(p, l->issue);
	(void)act_remove(&c->act, path);
	free(path);
	path = runfiles_ci_result(p, l->issue);
	(void)act_remove(&c->act, path);
	free(path);
}

/*
 * A crashed session's worktree is its checkpoint, unpushed commits
 * included: kept as it is when it is there (0).  1: make one as usual.
 */
static int
crash_worktree(struct dev_ctx *c, struct launch *l)
{
	char *git = xasprintf("%s/.git", l->worktree);
	int keep = l->crash && file_exists(git);

	free(git);
	if (!keep)
		return 1;
	log_msg("reusing the crashed session's worktree '%s'", l->worktree);
	(void)c;
	return 0;
}

/*
 * An empty phase file marks the session as started (on), or is removed
 * again when the start failed: while it is there the agent slot is busy
 * and the phase loop's clocks run from it until the first phase.
 */
static void
mark_started(struct dev_ctx *c, const struct launch *l, int on)
{
	char *phase = runfiles_phase(c->cfg->project_name, l->issue);

	if (on)
		(void)act_write(&c->act, phase, "", 0);
	else
		(void)act_remove(&c->act, phase);
	free(phase);
}

int
dp_relaunch(struct dev_ctx *c, long long issue)
{
	struct dp_launch_req req = {.issue = issue,
	    .why = "crash recovery",
	    .crash = 1};

	return dp_launch(c, &req) == DP_LAUNCHED ? 0 : -1;
}

int
dp_session_busy(struct dev_ctx *c, long long issue)
{
	char *session = runfiles_dev_session(c->cfg->project_name, issue);
	int r;

	if ((r = agent_alive(session)) == 1)
		log_msg("issue #%lld already has active session %s — skipping",
		    issue, session);
	else if (r == -1)
		log_msg("cannot tell whether session %s lives", session);
	free(session);
	return r;
}

int
dp_session_start(struct dev_ctx *c, long long issue, const char *worktree,
    const char *prompt)
{
	const struct config *cfg = c->cfg;
	char *session = runfiles_dev_session(cfg->project_name, issue);
	char *marks[4], **argv = NULL;
	struct agent_spec spec;
	size_t i;
	int r = -1;

	marks[0] = runfiles_idle_marker(session);
	marks[1] = runfiles_exited_marker(session);
	marks[2] = runfiles_phase_marker(session);
	marks[3] = runfiles_ready_marker(session);
	if (dp_hooks_install(c, worktree, session, issue) == -1)
		goto out;
	for (i = 0; i < 4; i++)
		(void)act_remove(&c->act, marks[i]);
	argv = strv_split(cfg->agent_cmd, NULL);
	if (argv[0] == NULL) {
		log_msg("ERROR: the agent command is empty");
		goto out;
	}
	if (!c->act.dry_run)
		(void)dp_status(c, "creating tmux session: %s", session);
	spec = (struct agent_spec) {.session = session,
	    .workdir = worktree,
	    .argv = argv,
	    .ready_pattern = cfg->agent_ready_pattern,
	    .ready_marker = marks[3],
	    .ready_timeout_s = READY_TIMEOUT};
	if (act_agent_start(&c->act, &spec) == -1)
		goto out;
	switch (act_inject(&c->act, session, prompt)) {
	case ACT_INJECTED:
		log_msg("initial prompt sent to session %s", session);
		/* FALLTHROUGH */
	case ACT_INJECT_DRY:
		r = 0;
		break;
	default:
		log_msg("ERROR: the prompt did not reach session %s — "
			"stopping it",
		    session);
		(void)act_kill(&c->act, session);
		break;
	}
out:
	for (i = 0; i < 4; i++)
		free(marks[i]);
	strv_free(argv);
	free(session);
	return r;
}

/* Legacy mode: DEV_AGENT_CMD with the issue number, detached. */
static enum dp_launch
launch_legacy(struct dev_ctx *c, const struct dp_launch_req *req)
{
	char **argv, *logpath, *what, num[32];
	long long attempts;
	size_t n;
	pid_t pid;
	int r;

	if (req->ci_fix_pr > 0 &&
	    (r = dp_cifix(c, req->ci_fix_pr, req->issue, 0, &attempts)) != 0)
		return r == 1 ? DP_EXHAUSTED : DP_LAUNCH_FAILED;
	snprintf(num, sizeof(num), "%lld", req->issue);
	argv = strv_split(c->cfg->dev_agent_cmd, &n);
	argv = xreallocarray(argv, n + 2, sizeof(*argv));
	argv[n] = xstrdup(num);
	argv[n + 1] = NULL;
	logpath = runfiles_dev_log(c->cfg->project_name);
	what = xasprintf("the dev agent '%s %s' for issue #%lld (%s)",
	    c->cfg->dev_agent_cmd, num, req->issue, req->why);
	r = act_spawn(&c->act, argv, logpath, what, &pid);
	if (r == 0 && pid > 0)
		log_msg("started dev-agent PID %ld for issue #%lld (%s)",
		    (long)pid, req->issue, req->why);
	free(what);
	free(logpath);
	strv_free(argv);
	return r == -1 ? DP_LAUNCH_FAILED : DP_LAUNCHED;
}

/* After gather(): budget, claim, worktree, prompt, session. */
static enum dp_launch
launch_session(struct dev_ctx *c, const struct dp_launch_req *req,
    struct launch *l)
{
	char *prompt = NULL;
	long long attempts;
	int r;

	if (req->ci_fix_pr > 0) {
		if ((r = dp_cifix(c, req->ci_fix_pr, l->issue, 0, &attempts)) !=
		    0)
			return r == 1 ? DP_EXHAUSTED : DP_LAUNCH_FAILED;
		log_msg("issue #%lld PR #%lld CI fix attempt %lld/%d", l->issue,
		    req->ci_fix_pr, attempts, DP_CI_FIX_BUDGET);
	}
	if (l->pr > 0)
		log_msg("RECOVERY MODE: adopting PR #%lld on branch %s", l->pr,
		    l->branch);
	(void)dp_status(c, "#%lld: claiming", l->issue);
	if (claim(c, l) == -1)
		goto fail;
	l->remote = dp_forge_remote(c);
	l->worktree = runfiles_worktree(c->cfg->project_name, l->issue);
	log_msg("forge remote: %s (FORGE_URL=%s)", l->remote,
	    c->cfg->forge_url);
	(void)dp_status(c, "#%lld: setting up worktree", l->issue);
	r = crash_worktree(c, l);
	if (r == 1)
		r = l->pr > 0 ?
		    dp_worktree_recover(c, l->remote, l->worktree, l->branch) :
		    dp_worktree_fresh(c, l->remote, l->worktree, l->branch);
	if (r == -1)
		goto fail;
	if ((prompt = build_prompt(c, l)) == NULL)
		goto fail_wt;
	clear_run_files(c, l);
	/* Before the prompt: a fast agent may write its first phase at once. */
	mark_started(c, l, 1);
	if (dp_session_start(c, l->issue, l->worktree, prompt) == -1) {
		mark_started(c, l, 0);
		goto fail_wt;
	}
	free(prompt);
	(void)dp_status(c, "#%lld: session running (%s)", l->issue, req->why);
	return DP_LAUNCHED;
fail_wt:
	if (l->pr == 0)
		(void)worktree_remove(&c->act, c->cfg->project_repo_root,
		    l->worktree);
fail:
	free(prompt);
	unclaim(c, l);
	return DP_LAUNCH_FAILED;
}

enum dp_launch
dp_launch(struct dev_ctx *c, const struct dp_launch_req *req)
{
	struct launch l = {0};
	enum dp_launch res = DP_LAUNCH_FAILED;
	int r;

	if ((r = dp_session_busy(c, req->issue)) != 0)
		return r == 1 ? DP_SKIPPED : DP_LAUNCH_FAILED;
	if (c->legacy)
		return launch_legacy(c, req);
	if ((r = gather(c, req, &l)) != 0) {
		res = r == 1 ? DP_BLOCKED : DP_LAUNCH_FAILED;
		goto out;
	}
	res = launch_session(c, req, &l);
out:
	launch_free(&l);
	return res;
}
