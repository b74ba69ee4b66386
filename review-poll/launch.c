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

#include "act.h"
#include "agent.h"
#include "agent_hooks.h"
#include "buf.h"
#include "ci.h"
#include "config.h"
#include "forge.h"
#include "json.h"
#include "log.h"
#include "meminfo.h"
#include "record.h"
#include "review-poll.h"
#include "runfiles.h"
#include "strv.h"
#include "woodpecker.h"
#include "xmalloc.h"

static int launch_is_wip(const char *);
static int launch_wanted(const struct rp *, const cJSON *);
static int launch_already_reviewed(struct rp *, long long, const char *);
static int launch_ci_ready(struct rp *, long long, const char *, char *,
    size_t);
static int launch_launch(struct rp *, const cJSON *, const char *,
    const char *);
static int launch_reserve(struct rp *);
static char **launch_review_argv(const struct rp *);
static int launch_hooks(struct rp *, const char *, const char *, const char *);
static char *launch_record(const char *, const struct rp_prompt *);
static int launch_start_agent(struct rp *, const char *, const char *,
    const char *);
static int launch_start_session(struct rp *, const struct rp_prompt *,
    const char *);

int
rp_may_launch(struct rp *rp)
{
	long long mb;

	if (rp->launched >= rp->set.max_reviews) {
		log_msg("hit max reviews (%d) for this tick",
		    rp->set.max_reviews);
		return 0;
	}
	if (meminfo_mb(rp->cfg->meminfo_path, "MemAvailable", &mb) == -1) {
		log_msg("skip: cannot read available memory from '%s'",
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
		log_msg("ERROR: %s", err);
		rp->failed = 1;
		break;
	}
	rp->lock_busy = 1;
	return 0;
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
launch_wanted(const struct rp *rp, const cJSON *pr)
{
	const char *base = json_str_at(pr, "base.ref");
	const char *sha = json_str_at(pr, "head.sha");
	const char *title = json_str(pr, "title");
	int draft = 0;

	(void)json_bool(pr, "draft", &draft);
	return base != NULL && strcmp(base, rp->cfg->primary_branch) == 0 &&
	    !draft && title != NULL && !launch_is_wip(title) && sha != NULL &&
	    rp_is_sha(sha) && json_str_at(pr, "head.ref") != NULL;
}

/*
 * 1 when sha of pr has a review already (a formal one other than a
 * comment, a review comment, or an error comment), 0 when not, -1 when
 * that cannot be told.
 */
static int
launch_already_reviewed(struct rp *rp, long long pr, const char *sha)
{
	const cJSON *comments, *reviews, *rv;
	const char *commit, *state;
	char *mark, *err_mark;
	int found;

	if (forge_reviews_list(rp->review, pr, &reviews) == -1 ||
	    forge_comments_list(rp->review, pr, &comments) == -1) {
		log_msg("pr #%lld: cannot read reviews and comments: %s", pr,
		    forge_error(rp->review));
		return -1;
	}
	cJSON_ArrayForEach (rv, reviews) {
		commit = json_str(rv, "commit_id");
		state = json_str(rv, "state");
		if (commit != NULL && state != NULL &&
		    strcmp(commit, sha) == 0 && strcmp(state, "COMMENT") != 0)
			return 1;
	}
	mark = rp_reviewed_marker(sha);
	err_mark = rp_error_marker(sha);
	found = rp_last_comment_with(comments, mark) != NULL ||
	    rp_last_comment_with(comments, err_mark) != NULL;
	free(mark);
	free(err_mark);
	return found;
}

/*
 * 1 when CI let sha of pr through (passed, not configured, or only
 * non-code files changed), with the state for the prompt in note; 0 when
 * it did not; -1 when it cannot be told.
 */
static int
launch_ci_ready(struct rp *rp, long long pr, const char *sha, char *note,
    size_t notesz)
{
	int configured = config_ci_configured(rp->cfg);
	const cJSON *files;
	enum ci_state st;

	if (ci_commit_state(rp->forge, rp->wp, sha, &st, NULL) == -1) {
		log_msg("pr #%lld: cannot read the ci state of %.7s: %s", pr,
		    sha,
		    rp->wp && woodpecker_error(rp->wp)[0] ?
			woodpecker_error(rp->wp) :
			forge_error(rp->forge));
		return -1;
	}
	snprintf(note, notesz, "%s", ci_state_name(st));
	if (ci_passed(st, configured))
		return 1;
	if (forge_pull_files(rp->forge, pr, &files) == -1) {
		log_msg("pr #%lld: cannot read the changed files: %s", pr,
		    forge_error(rp->forge));
		return -1;
	}
	if (ci_files_need_ci(files)) {
		log_msg("pr #%lld: ci=%s, skip", pr, ci_state_name(st));
		return 0;
	}
	log_msg("pr #%lld: ci=%s but no code files, proceeding", pr,
	    ci_state_name(st));
	snprintf(note, notesz, "%s (not required: no code files)",
	    ci_state_name(st));
	return 1;
}

int
rp_review_new(struct rp *rp)
{
	const cJSON *pr;
	const char *sha;
	char ci[96];
	long long n;
	int r = 0, done;

	cJSON_ArrayForEach (pr, rp->pulls) {
		if (json_int(pr, "number", &n) == -1 ||
		    !launch_wanted(rp, pr) || rp_review_busy(rp, n))
			continue;
		sha = json_str_at(pr, "head.sha");
		if ((done = launch_already_reviewed(rp, n, sha)) != 0) {
			if (done == 1)
				log_msg("pr #%lld: %.7s reviewed, skip", n,
				    sha);
			r = done == -1 ? -1 : r;
			continue;
		}
		switch (launch_ci_ready(rp, n, sha, ci, sizeof(ci))) {
		case -1:
			r = -1;
			/* FALLTHROUGH */
		case 0:
			continue;
		}
		if (!rp_may_launch(rp))
			break;
		log_msg("pr #%lld: needs review (ci=%s, sha=%.7s)", n, ci, sha);
		if (launch_launch(rp, pr, NULL, ci) == -1)
			r = -1;
	}
	return r;
}

int
rp_rereview(struct rp *rp)
{
	struct rp_run *runs;
	const cJSON *pr;
	const char *sha;
	char ci[96];
	size_t i, n;
	int r = 0, done;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (runs[i].phase.phase != PHASE_AWAITING_CHANGES ||
		    (pr = rp_open_pull(rp, runs[i].pr)) == NULL ||
		    !launch_wanted(rp, pr))
			continue;
		sha = json_str_at(pr, "head.sha");
		if (strcmp(sha, runs[i].sha) == 0)
			continue;
		if ((done = launch_already_reviewed(rp, runs[i].pr, sha)) !=
		    0) {
			if (done == 1)
				rp_run_cleanup(rp, runs[i].pr, 0);
			r = done == -1 ? -1 : r;
			continue;
		}
		if ((done = launch_ci_ready(rp, runs[i].pr, sha, ci,
			 sizeof(ci))) != 1) {
			r = done == -1 ? -1 : r;
			continue;
		}
		if (!rp_may_launch(rp))
			break;
		log_msg("pr #%lld: re-review, new commits (%.7s -> %.7s)",
		    runs[i].pr, runs[i].sha, sha);
		if (launch_launch(rp, pr, runs[i].sha, ci) == -1)
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
	struct agent_hooks h = {.session = session,
	    .workdir = workdir,
	    .phase_file = phase,
	    .primary_branch = rp->cfg->primary_branch,
	    .factory_root = rp->cfg->factory_root,
	    .run_dir = rp->cfg->run_dir};

	return agent_hooks_install(&rp->act, &h);
}

/*
 * Start the review agent in workdir, with the review role's environment,
 * and wait until it is ready.
 */
static int
launch_start_agent(struct rp *rp, const char *session, const char *workdir,
    const char *phase)
{
	char **argv = launch_review_argv(rp);
	char **env = config_agent_env(rp->cfg, CONFIG_ROLE_REVIEW);
	struct agent_spec spec = {.session = session,
	    .workdir = workdir,
	    .argv = argv,
	    .env = (const char *const *)env,
	    .signal_path = phase,
	    .ready_pattern = rp->cfg->agent_ready_pattern,
	    .ready_timeout_s = rp->set.ready_timeout_s};
	int r;

	if ((r = act_agent_start(&rp->act, &spec)) == 0 && !rp->act.dry_run)
		log_msg("%s: started (model %s)", session, rp->set.model);
	config_env_free(env);
	strv_free(argv);
	return r;
}

/*
 * The launch record at req: "SHA:", "PREV:", and "RETRIED:1" when a
 * review of the same head was started again after a crash.  Caller frees.
 */
static char *
launch_record(const char *req, const struct rp_prompt *in)
{
	char old[72], retried[8];
	struct buf b;

	retried[0] = '\0';
	buf_init(&b, 0);
	if (record_load(req, &b) == 0 &&
	    record_get(buf_str(&b), "SHA:", old, sizeof(old)) == 0 &&
	    strcmp(old, in->sha) == 0)
		(void)record_get(buf_str(&b), "RETRIED:", retried,
		    sizeof(retried));
	buf_free(&b);
	return rp_run_record(in->sha, in->prev_sha, strcmp(retried, "1") == 0);
}

/*
 * Worktree, run files, session, prompt.  On any failure everything is
 * removed again so the next tick starts over.
 */
static int
launch_start_session(struct rp *rp, const struct rp_prompt *in,
    const char *prompt)
{
	const char *p = rp->cfg->project_name;
	char *wt = runfiles_review_worktree(p, in->pr);
	char *phase = runfiles_review_phase(p, in->pr);
	char *output = runfiles_review_output(p, in->pr);
	char *req = runfiles_review_request(p, in->pr);
	char *session = runfiles_review_session(p, in->pr);
	char *record = launch_record(req, in);
	enum act_inject got;
	int r = -1;

	if (rp_worktree_add(rp, wt, in->sha) == -1 ||
	    act_remove(&rp->act, output) == -1 ||
	    act_write(&rp->act, req, record, 0) == -1 ||
	    act_write(&rp->act, phase, "", 0) == -1 ||
	    act_kill(&rp->act, session) == -1 ||
	    launch_hooks(rp, session, wt, phase) == -1 ||
	    launch_start_agent(rp, session, wt, phase) == -1)
		goto out;
	got = act_inject(&rp->act, session, prompt);
	if (got != ACT_INJECTED && got != ACT_INJECT_DRY)
		goto out;
	if (!rp->act.dry_run)
		log_msg("pr #%lld: review session %s started (%zu bytes of "
			"prompt, re-review: %s)",
		    in->pr, session, strlen(prompt),
		    in->prev_sha[0] ? "yes" : "no");
	r = 0;
out:
	if (r == -1)
		rp_run_cleanup(rp, in->pr, 0);
	free(wt);
	free(phase);
	free(output);
	free(req);
	free(session);
	free(record);
	return r;
}

/* Launch a review of the open PR pr (prev_sha: a re-review of it). */
static int
launch_launch(struct rp *rp, const cJSON *pr, const char *prev_sha,
    const char *ci)
{
	struct rp_prompt in;
	char *prompt = NULL;
	int r = -1;

	memset(&in, 0, sizeof(in));
	(void)json_int(pr, "number", &in.pr);
	in.sha = json_str_at(pr, "head.sha");
	in.head = json_str_at(pr, "head.ref");
	in.base = json_str_at(pr, "base.ref");
	in.title = json_str(pr, "title");
	in.body = json_str(pr, "body") ? json_str(pr, "body") : "";
	snprintf(in.ci, sizeof(in.ci), "%s", ci);
	/* The clone needs the PR's commits for the diff since last time. */
	if (rp_git_fetch(rp, in.head) == -1 ||
	    rp_prompt_gather(rp, &in, prev_sha) == -1)
		goto out;
	if ((prompt = rp_prompt_render(rp, &in)) == NULL)
		goto out;
	rp->launched++;
	r = launch_start_session(rp, &in, prompt);
out:
	agent_unreserve();
	free(prompt);
	rp_prompt_free(&in);
	return r;
}
