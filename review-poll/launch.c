/*
 * Starting reviews: which open PRs need one (steps 4 and 5 of a tick),
 * and the launch itself: the Claude session lock, a detached worktree of
 * the PR head, the agent hooks, a review agent session in it with the
 * review role's environment, and its prompt (prompt.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "act.h"
#include "agent.h"
#include "agent_hooks.h"
#include "buf.h"
#include "ci.h"
#include "config.h"
#include "factory_pull.h"
#include "forge.h"
#include "http.h"
#include "log.h"
#include "meminfo.h"
#include "pulls.h"
#include "record.h"
#include "review-poll.h"
#include "runfiles.h"
#include "strv.h"
#include "valid.h"
#include "xmalloc.h"

static int launch_alive(struct rp *);
static int launch_is_wip(const char *);
static int launch_wanted(const struct rp *, const struct pull *);
static size_t launch_files_ahead(struct rp *, size_t);
static int launch_new_pr(struct rp *, const struct pull *);
static const char *launch_try_name(int);
static char **launch_review_argv(const struct rp *);
static char *launch_record(struct rp *, const char *, const struct rp_prompt *);
static int launch_reserve(struct rp *);
static int launch_hooks(struct rp *, const char *, const char *, const char *);
static int launch_start_agent(struct rp *, const char *, const char *,
    const char *, const char *, const char *);
static int launch_prepare(struct rp *, const struct rp_prompt *);
static int launch_try(struct rp *, const struct rp_prompt *, const char *, int);

int
rp_may_launch(struct rp *rp)
{
	long long mb;
	int alive;

	if ((alive = launch_alive(rp)) == -1)
		return 0;
	if (alive + rp->launched >= rp->set.max_reviews) {
		log_msg("hit max reviews (%d): %d review session(s) running",
		    rp->set.max_reviews, alive + rp->launched);
		return 0;
	}
	if (meminfo_mb(rp->cfg->meminfo_path, "MemAvailable", &mb) == -1) {
		log_warn("skip: cannot read available memory from '%s'",
		    rp->cfg->meminfo_path);
		return 0;
	}
	if (mb < rp->set.min_available_mb) {
		log_msg("skip: %lld MB available", mb);
		return 0;
	}
	return launch_reserve(rp);
}

/*
 * Take the Claude session lock for the review to come (unless this is a
 * dry run), which its session takes over: 1 taken; 0 when it stayed busy
 * (no more reviews start this tick) or cannot be taken.
 */
static int
launch_reserve(struct rp *rp)
{
	char err[512];

	if (rp->act.dry_run || rp->lock_busy)
		return !rp->lock_busy;
	switch (agent_reserve(err, sizeof(err))) {
	case 0:
		return 1;
	case 1:
		log_msg("skip: %s", err);
		break;
	default:
		log_err("ERROR: %s", err);
		rp->failed = 1;
		break;
	}
	rp->lock_busy = 1;
	return 0;
}

/*
 * The project's review sessions alive before this tick's launches,
 * counted once (the ones this tick started are rp->launched): the
 * number, or -1 when they cannot be listed (logged).
 */
static int
launch_alive(struct rp *rp)
{
	char *prefix, **names = NULL;
	size_t n = 0;

	if (rp->alive >= 0)
		return rp->alive;
	prefix = runfiles_review_session_prefix(rp->cfg->project_name);
	if (agent_list(prefix, &names, &n) == -1) {
		log_warn("skip: cannot list the review sessions");
		free(prefix);
		return -1;
	}
	agent_list_free(names, n);
	free(prefix);
	return rp->alive = (int)n;
}

int
rp_launch_tries(struct rp *rp, long long pr, const char *sha, int *try_no)
{
	char *req = runfiles_review_request(rp->cfg->project_name, pr);
	char head[72], retried[8];
	struct buf b;
	int tries, restart = 0;

	buf_init(&b, 0);
	if (record_load(req, &b) == 0 &&
	    record_get(buf_str(&b), "SHA:", head, sizeof(head)) == 0 &&
	    strcmp(head, sha) == 0 &&
	    record_get(buf_str(&b), "RETRIED:", retried, sizeof(retried)) ==
		0 &&
	    strcmp(retried, "1") == 0)
		restart = 1;
	buf_free(&b);
	free(req);
	*try_no = 0;
	if (restart)
		return 1;
	if ((tries = rp_tries_get(rp, pr, sha)) == -1)
		return -1;
	if (tries >= RP_MAX_TRIES) {
		log_msg(
		    "pr #%lld: %.7s tried %d times without a usable review, "
		    "skip until a new push",
		    pr, sha, tries);
		return 0;
	}
	*try_no = tries + 1;
	return 1;
}

/* "WIP: x", "[WIP] x", "wip: x" are works in progress. */
static int
launch_is_wip(const char *title)
{
	if (*title == '[')
		title++;
	return strncasecmp(title, "WIP", 3) == 0 &&
	    (title[3] == ']' || title[3] == ':');
}

/* An open, ready PR against the primary branch with a usable head. */
static int
launch_wanted(const struct rp *rp, const struct pull *pr)
{
	return pr->base != NULL &&
	    strcmp(pr->base, rp->cfg->primary_branch) == 0 && !pr->draft &&
	    pr->title != NULL && !launch_is_wip(pr->title) && pr->sha != NULL &&
	    valid_sha(pr->sha) == NULL && pr->branch != NULL;
}

int
rp_reviewed(struct rp *rp, const struct pull *pr)
{
	int r;

	if ((r = pulls_reviewed(rp->pulls, pr)) == -1)
		log_warn("pr #%lld: cannot read reviews and comments: %s",
		    pr->number, pulls_error(rp->pulls));
	return r;
}

int
rp_ci_ready(struct rp *rp, const struct pull *pr, char *note, size_t notesz)
{
	enum ci_state st;
	const char *name;

	if (pulls_ci(rp->pulls, pr, &st) == -1) {
		log_warn("pr #%lld: cannot read the ci state of %.7s: %s",
		    pr->number, pr->sha, pulls_error(rp->pulls));
		return -1;
	}
	name = ci_state_name(st);
	snprintf(note, notesz, "%s", name);
	switch (pulls_ci_says(rp->pulls, pr)) {
	case PULLS_CI_PASSED:
		break;
	case PULLS_CI_UNKNOWN:
		log_warn("pr #%lld: cannot read the changed files: %s",
		    pr->number, pulls_error(rp->pulls));
		return -1;
	default:
		log_msg("pr #%lld: ci=%s, skip", pr->number, name);
		rp->skipped++;
		return 0;
	}
	if (ci_passed(st, config_ci_configured(rp->cfg)))
		return 1;
	log_msg("pr #%lld: ci=%s but no code files, proceeding", pr->number,
	    name);
	snprintf(note, notesz, "%s (not required: no code files)", name);
	return 1;
}

/*
 * Whether the open PR pr is to be reviewed now: 1 with the CI note set,
 * 0 not, -1 a read failed.  Its CI state comes first (the tick's one
 * pipeline list; the files only when CI has not passed), so that
 * reviews, comments and the session check are read only for PRs that CI
 * lets through.
 */
static int
launch_new_one(struct rp *rp, const struct pull *pr, char *note, size_t notesz)
{
	int done;

	if ((done = rp_ci_ready(rp, pr, note, notesz)) != 1)
		return done;
	if (rp_review_busy(rp, pr->number))
		return 0;
	if ((done = rp_reviewed(rp, pr)) != 0) {
		if (done == 1) {
			log_msg("pr #%lld: %.7s reviewed, skip", pr->number,
			    pr->sha);
			rp->skipped++;
		}
		return done == -1 ? -1 : 0;
	}
	return 1;
}

/*
 * Read ahead, at once, the changed files of the next PRs from index i on
 * (up to HTTP_PARALLEL) that launch_new_one() will have the model read:
 * wanted, their files needed (pulls_files_needed(): no request is made
 * to tell).  Returns the index after the last PR looked at.
 */
static size_t
launch_files_ahead(struct rp *rp, size_t i)
{
	const struct pull *v[HTTP_PARALLEL], *pr;
	size_t k = 0, n = pulls_count(rp->pulls);

	for (; i < n && k < HTTP_PARALLEL; i++) {
		pr = pulls_at(rp->pulls, i);
		if (launch_wanted(rp, pr) && pulls_files_needed(rp->pulls, pr))
			v[k++] = pr;
	}
	pulls_files_ahead(rp->pulls, v, k);
	return i;
}

/* Step 5 for one PR: 1 launched or passed over, 2 no room, -1 failed. */
static int
launch_new_pr(struct rp *rp, const struct pull *pr)
{
	char ci[96];
	int done, try_no;

	if ((done = launch_new_one(rp, pr, ci, sizeof(ci))) != 1 ||
	    (done = rp_launch_tries(rp, pr->number, pr->sha, &try_no)) != 1)
		return done == -1 ? -1 : 1;
	if (!rp_may_launch(rp))
		return 2;
	log_msg("pr #%lld: needs review (ci=%s, sha=%.7s)", pr->number, ci,
	    pr->sha);
	return rp_launch(rp, pr, NULL, ci, try_no) == -1 ? -1 : 1;
}

int
rp_review_new(struct rp *rp)
{
	const struct pull *pr;
	size_t i, ahead = 0, n = pulls_count(rp->pulls);
	int r = 0, done;

	for (i = 0; i < n; i++) {
		pr = pulls_at(rp->pulls, i);
		if (i == ahead)
			ahead = launch_files_ahead(rp, i);
		if (!launch_wanted(rp, pr))
			continue;
		done = launch_new_pr(rp, pr);
		/* Decided: its changed files are not held any longer. */
		forge_files_forget(rp->forge, pr->number);
		if (done == -1)
			r = -1;
		else if (done == 2)
			break;
	}
	return r;
}

int
rp_rereview(struct rp *rp)
{
	struct rp_run *runs;
	const struct pull *pr;
	char ci[96];
	size_t i, n;
	int r = 0, done, try_no;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (runs[i].phase.phase != PHASE_AWAITING_CHANGES ||
		    (pr = rp_open_pull(rp, runs[i].pr)) == NULL ||
		    !launch_wanted(rp, pr))
			continue;
		if (strcmp(pr->sha, runs[i].sha) == 0)
			continue;
		if ((done = rp_reviewed(rp, pr)) != 0) {
			if (done == 1)
				rp_run_cleanup(rp, runs[i].pr, 0);
			r = done == -1 ? -1 : r;
			continue;
		}
		if ((done = rp_ci_ready(rp, pr, ci, sizeof(ci))) != 1 ||
		    (done = rp_launch_tries(rp, runs[i].pr, pr->sha,
			 &try_no)) != 1) {
			r = done == -1 ? -1 : r;
			continue;
		}
		if (!rp_may_launch(rp))
			break;
		log_msg("pr #%lld: re-review, new commits (%.7s -> %.7s)",
		    runs[i].pr, runs[i].sha, pr->sha);
		if (rp_launch(rp, pr, runs[i].sha, ci, try_no) == -1)
			r = -1;
	}
	rp_runs_free(runs, n);
	return r;
}

/*
 * The agent command with the review model: any --model of the configured
 * command is replaced.  Free with strv_free().
 */
static char **
launch_review_argv(const struct rp *rp)
{
	char **words = strv_split(rp->cfg->agent_cmd, NULL), **argv;
	size_t i, n = 0;

	argv = xcalloc(strv_len(words) + 3, sizeof(*argv));
	for (i = 0; words[i] != NULL; i++) {
		if (strcmp(words[i], "--model") == 0) {
			if (words[i + 1] != NULL)
				i++;
			continue;
		}
		if (strncmp(words[i], "--model=", 8) == 0)
			continue;
		argv[n++] = xstrdup(words[i]);
	}
	argv[n++] = xstrdup("--model");
	argv[n++] = xstrdup(rp->set.model);
	argv[n] = NULL;
	strv_free(words);
	return argv;
}

/*
 * The agent hooks of the review session, as a dev session has them (idle,
 * exit and phase markers, the guard, the API failure): 0 or -1.
 */
static int
launch_hooks(struct rp *rp, const char *session, const char *workdir,
    const char *phase)
{
	char *output = runfiles_review_output(rp->cfg->project_name,
	    runfiles_review_session_pr(rp->cfg->project_name, session));
	struct agent_hooks h = {.session = session,
	    .workdir = workdir,
	    .phase_file = phase,
	    .primary_branch = rp->cfg->primary_branch,
	    .factory_root = rp->cfg->factory_root,
	    .run_dir = rp->cfg->run_dir,
	    .forge_url = rp->cfg->forge_url,
	    .forge_api = rp->cfg->forge_api,
	    .own_file = output,
	    .wake = rp->cfg->wake,
	    .project_toml = rp->cfg->project_toml};
	int r = agent_hooks_install(&rp->act, &h);

	free(output);
	return r;
}

/*
 * Start the review agent in workdir, with the review role's environment,
 * and wait until it is ready; its prompt, key, is recorded first
 * (agent_spec.first_key).
 */
static int
launch_start_agent(struct rp *rp, const char *session, const char *workdir,
    const char *phase, const char *key, const char *prompt)
{
	char **argv = launch_review_argv(rp);
	char **env = config_agent_env(rp->cfg, CONFIG_ROLE_REVIEW);
	struct agent_spec spec = {.session = session,
	    .workdir = workdir,
	    .trust_dir = rp->cfg->project_repo_root,
	    .argv = argv,
	    .env = (const char *const *)env,
	    .signal_path = phase,
	    .ready_pattern = rp->cfg->agent_ready_pattern,
	    .ready_timeout_s = rp->set.ready_timeout_s,
	    .first_key = key,
	    .first_text = prompt};
	int r;

	if ((r = act_agent_start(&rp->act, &spec)) == 0 && !rp->act.dry_run)
		log_msg("%s: started (model %s)", session, rp->set.model);
	config_env_free(env);
	strv_free(argv);
	return r;
}

/*
 * The launch record at req: "SHA:", "PREV:", "RETRIED:1" when a review
 * of the same head was started again after a crash, "FORCED:" for a
 * forced review (rp->forced_pr), kept when it is started again,
 * "UNREAD:" when the changed files were not all read.  Caller frees.
 */
static char *
launch_record(struct rp *rp, const char *req, const struct rp_prompt *in)
{
	char old[72], retried[8];
	long long forced = -1;
	struct buf b;

	retried[0] = '\0';
	buf_init(&b, 0);
	if (record_load(req, &b) == 0 &&
	    record_get(buf_str(&b), "SHA:", old, sizeof(old)) == 0 &&
	    strcmp(old, in->sha) == 0) {
		(void)record_get(buf_str(&b), "RETRIED:", retried,
		    sizeof(retried));
		if (record_get_ll(buf_str(&b), "FORCED:", &forced) == -1 ||
		    forced < 0 || forced >= 1000000)
			forced = -1;
	}
	buf_free(&b);
	if (rp->forced_pr == in->pr)
		forced = rp->forced_seen;
	return rp_run_record(in->sha, in->prev_sha, rp->now,
	    strcmp(retried, "1") == 0, (int)forced, in->files_unread);
}

/* The worktree and the run files of a launch: 0, or -1. */
static int
launch_prepare(struct rp *rp, const struct rp_prompt *in)
{
	const char *p = rp->cfg->project_name;
	char *wt = runfiles_review_worktree(p, in->pr);
	char *phase = runfiles_review_phase(p, in->pr);
	char *output = runfiles_review_output(p, in->pr);
	char *req = runfiles_review_request(p, in->pr);
	char *record = launch_record(rp, req, in);
	int r = -1;

	rp_status(rp, in->pr, "preparing review session");
	rp_run_kill(rp, in->pr);
	if (rp_worktree_add(rp, wt, in->sha) == 0 &&
	    act_remove(&rp->act, output) == 0 &&
	    act_write(&rp->act, req, record, 0) == 0 &&
	    act_phase(&rp->act, phase, PHASE_NONE, NULL, NULL) == 0)
		r = 0;
	free(wt);
	free(phase);
	free(output);
	free(req);
	free(record);
	return r;
}

/*
 * The try: counted (try_no, synced; 0 a restart, not counted) before the
 * agent starts, then the agent and its prompt.  An agent that never
 * started or never got the prompt made no try: the count goes back (a
 * crash in between leaves it counted, which never grants an extra try).
 */
static int
launch_try(struct rp *rp, const struct rp_prompt *in, const char *prompt,
    int try_no)
{
	const char *p = rp->cfg->project_name;
	char *session = runfiles_review_session(p, in->pr);
	char *wt = runfiles_review_worktree(p, in->pr);
	char *phase = runfiles_review_phase(p, in->pr);
	char *key = xasprintf("prompt %.12s %lld.%ld", in->sha,
	    (long long)rp->now, (long)getpid());
	enum act_inject got;
	int counted = 0, r = -1;

	if (try_no > 0) {
		if (rp_tries_set(rp, in->pr, in->sha, try_no) == -1)
			goto out;
		counted = 1;
	}
	if (launch_hooks(rp, session, wt, phase) == -1 ||
	    launch_start_agent(rp, session, wt, phase, key, prompt) == -1)
		goto out;
	got = act_inject(&rp->act, session, key, prompt);
	if (got != ACT_INJECTED && got != ACT_INJECT_DRY)
		goto out;
	if (!rp->act.dry_run)
		log_notice("pr #%lld: review session %s started (%zu bytes of "
			   "prompt, re-review: %s, %s)",
		    in->pr, session, strlen(prompt),
		    in->prev_sha[0] ? "yes" : "no", launch_try_name(try_no));
	rp_status(rp, in->pr, "waiting for review");
	r = 0;
out:
	if (r == -1 && counted)
		(void)rp_tries_set(rp, in->pr, in->sha, try_no - 1);
	free(key);
	free(session);
	free(wt);
	free(phase);
	return r;
}

/* "try 2 of 3", or "restart" for try_no 0.  Valid until the next call. */
static const char *
launch_try_name(int try_no)
{
	static char name[32];

	if (try_no == 0)
		return "restart after its agent went away";
	snprintf(name, sizeof(name), "try %d of %d", try_no, RP_MAX_TRIES);
	return name;
}

int
rp_launch(struct rp *rp, const struct pull *pr, const char *prev_sha,
    const char *ci, int try_no)
{
	struct rp_prompt in;
	char *prompt = NULL;
	int r = -1;

	memset(&in, 0, sizeof(in));
	in.pr = pr->number;
	in.sha = pr->sha;
	in.head = pr->branch;
	in.base = pr->base;
	in.title = pr->title;
	snprintf(in.ci, sizeof(in.ci), "%s", ci);
	/* As review-pr.sh did: the formulas of the prompt, fresh. */
	(void)factory_pull(&rp->act, rp->cfg->factory_root);
	rp_status(rp, in.pr, "fetching metadata");
	if ((in.body = rp_pull_body(rp, pr)) == NULL)
		goto out;
	/* The clone needs the PR's commits for the diff since last time. */
	if (rp_git_fetch(rp, in.head) == -1)
		goto out;
	rp_status(rp, in.pr, "fetching diff");
	if (rp_prompt_gather(rp, &in, prev_sha) == -1 ||
	    (prompt = rp_prompt_render(rp, &in)) == NULL)
		goto out;
	rp->launched++;
	if ((r = launch_prepare(rp, &in)) == 0)
		r = launch_try(rp, &in, prompt, try_no);
	/* On any failure everything goes, so the next tick starts over. */
	if (r == -1)
		rp_run_cleanup(rp, in.pr, 0);
out:
	agent_unreserve();
	free(prompt);
	rp_prompt_free(&in);
	return r;
}
