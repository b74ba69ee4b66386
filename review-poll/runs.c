/*
 * The reviews in flight, known by their run files: the phase file (empty
 * at launch, PHASE:done from the agent, PHASE:awaiting_changes + SHA:
 * after a review asking for changes), the launch record (SHA:, PREV:,
 * AT:, RETRIED:, FORCED:), the agent's output JSON and the worktree.
 * The phase file is written first and removed first, so a phase file
 * that says done always has its launch record and output.  Every step of
 * a tick works from this list; nothing else reads the run files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "agent.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "record.h"
#include "review-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

static void runs_record(const char *, struct rp_run *);
static enum rp_run_state runs_state(const struct rp *, const struct rp_run *);
static int runs_marker_age(const char *, time_t, time_t, long long *);

int
rp_runs_list(struct rp *rp, struct rp_run **runs, size_t *n)
{
	const char *p = rp->cfg->project_name;
	struct rp_run *v, *run;
	long long *prs;
	size_t i, nprs;

	*runs = NULL;
	*n = 0;
	if (runfiles_review_phase_prs(p, &prs, &nprs) == -1) {
		log_warn("cannot list the review phase files");
		return -1;
	}
	v = xcalloc(nprs + 1, sizeof(*v));
	for (i = 0; i < nprs; i++) {
		run = &v[*n];
		run->pr = prs[i];
		run->session = runfiles_review_session(p, run->pr);
		run->phase_path = runfiles_review_phase(p, run->pr);
		if (agent_read_signal(run->session, run->phase_path,
			&run->phase) == -1) {
			free(run->session);
			free(run->phase_path);
			continue;
		}
		runs_record(p, run);
		run->state = runs_state(rp, run);
		(*n)++;
	}
	free(prs);
	*runs = v;
	return 0;
}

/*
 * What the review is about, from its launch record (SHA:, PREV:, AT:,
 * RETRIED:, FORCED:, UNREAD:) and, once it asked for changes, its phase file
 * (SHA:).
 */
static void
runs_record(const char *p, struct rp_run *run)
{
	char *req = runfiles_review_request(p, run->pr), retried[8];
	long long forced, at;
	struct buf b;

	run->forced = -1;
	buf_init(&b, 0);
	if (record_load(req, &b) == 0) {
		(void)record_get(buf_str(&b), "SHA:", run->sha,
		    sizeof(run->sha));
		(void)record_get(buf_str(&b), "PREV:", run->prev,
		    sizeof(run->prev));
		if (record_get_ll(buf_str(&b), "AT:", &at) == 0 && at > 0)
			run->at = (time_t)at;
		run->retried = record_get(buf_str(&b), "RETRIED:", retried,
				   sizeof(retried)) == 0 &&
		    strcmp(retried, "1") == 0;
		if (record_get_ll(buf_str(&b), "FORCED:", &forced) == 0 &&
		    forced >= 0 && forced < 1000000)
			run->forced = (int)forced;
		if (record_get_ll(buf_str(&b), "UNREAD:", &run->unread) == -1 ||
		    run->unread < 0)
			run->unread = 0;
	}
	if (run->phase.phase == PHASE_AWAITING_CHANGES &&
	    run->phase.sha[0] != '\0' &&
	    strlen(run->phase.sha) < sizeof(run->sha))
		memcpy(run->sha, run->phase.sha, strlen(run->phase.sha) + 1);
	buf_free(&b);
	free(req);
}

/*
 * The age of the hook marker at path, in *age, when it was made since the
 * launch (since): 1, or 0 when there is no such marker.
 */
static int
runs_marker_age(const char *path, time_t since, time_t now, long long *age)
{
	time_t t;

	if (file_mtime(path, &t) == -1 || t < since)
		return 0;
	*age = now > t ? (long long)(now - t) : 0;
	return 1;
}

/*
 * Where the review stands, as review-pr.sh's monitor saw it: the agent's
 * phase, then (no phase yet) its session gone or its SessionEnd hook's
 * marker there, its Stop hook's marker there for a while (it is back at
 * its prompt without having written one), or no phase within the agent
 * timeout since the launch wrote the empty phase file.
 */
static enum rp_run_state
runs_state(const struct rp *rp, const struct rp_run *run)
{
	char *exited, *idle;
	long long age;
	int alive = 1, gone, stopped, paused;

	switch (run->phase.phase) {
	case PHASE_DONE:
	case PHASE_FAILED:
	case PHASE_ESCALATE:
		return RP_RUN_FINISHED;
	case PHASE_AWAITING_CHANGES:
		return RP_RUN_WAITING;
	case PHASE_NONE:
		break;
	default:
		return RP_RUN_WORKING; /* cleanup.c removes it */
	}
	exited = runfiles_exited_marker(run->session);
	idle = runfiles_idle_marker(run->session);
	gone = runs_marker_age(exited, run->phase.mtime, rp->now, &age);
	stopped = runs_marker_age(idle, run->phase.mtime, rp->now, &age) &&
	    age >= RP_IDLE_GRACE_S;
	free(exited);
	free(idle);
	if (gone || (alive = agent_alive(run->session)) == 0)
		return RP_RUN_GONE;
	if (alive == -1)
		return RP_RUN_UNSURE;
	/* Kept for the pause (apistop.h): no failure, no try used. */
	exited = runfiles_api_error(run->session);
	paused = file_exists(exited);
	free(exited);
	if (paused)
		return RP_RUN_PAUSED;
	if (stopped)
		return RP_RUN_IDLE;
	if (rp->now - run->phase.mtime >= rp->set.agent_timeout_s)
		return RP_RUN_TIMEOUT;
	return RP_RUN_WORKING;
}

const char *
rp_run_state_name(enum rp_run_state st)
{
	static const char *const names[] = {"working", "finished", "gone",
	    "idle at its prompt", "timed out", "waiting for changes", "unsure",
	    "stopped by an API error"};

	return (size_t)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

char *
rp_run_record(const char *sha, const char *prev, time_t at, int retried,
    int forced, long long unread)
{
	char f[32] = "", u[40] = "";

	if (forced >= 0)
		snprintf(f, sizeof(f), "FORCED:%d\n", forced);
	if (unread > 0)
		snprintf(u, sizeof(u), "UNREAD:%lld\n", unread);
	return xasprintf("SHA:%s\nPREV:%s\nAT:%lld\n%s%s%s", sha, prev,
	    (long long)at, retried ? "RETRIED:1\n" : "", f, u);
}

int
rp_runs_each(struct rp *rp, int (*fn)(struct rp *, const struct rp_run *))
{
	struct rp_run *runs;
	size_t i, n;
	int r = 0;

	if (rp_runs_list(rp, &runs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (fn(rp, &runs[i]) == -1)
			r = -1;
	rp_runs_free(runs, n);
	return r;
}

void
rp_runs_free(struct rp_run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(runs[i].session);
		free(runs[i].phase_path);
	}
	free(runs);
}

int
rp_review_busy(struct rp *rp, long long pr)
{
	char *phase = runfiles_review_phase(rp->cfg->project_name, pr);
	char *session = runfiles_review_session(rp->cfg->project_name, pr);
	int busy = file_exists(phase) || agent_alive(session) != 0;

	free(phase);
	free(session);
	return busy;
}

void
rp_run_kill(struct rp *rp, long long pr)
{
	char *session = runfiles_review_session(rp->cfg->project_name, pr);
	char *markers[4];
	size_t i;

	markers[0] = runfiles_idle_marker(session);
	markers[1] = runfiles_exited_marker(session);
	markers[2] = runfiles_phase_marker(session);
	/* Its Claude session id, which the Stop hook kept (nothing parks a
	 * review). */
	markers[3] = runfiles_claude_id(session);
	(void)act_kill(&rp->act, session);
	for (i = 0; i < 4; i++) {
		(void)act_remove(&rp->act, markers[i]);
		free(markers[i]);
	}
	free(session);
}

void
rp_run_cleanup(struct rp *rp, long long pr, int forget)
{
	const char *p = rp->cfg->project_name;
	char *wt = runfiles_review_worktree(p, pr);
	char *phase = runfiles_review_phase(p, pr);
	char *output = runfiles_review_output(p, pr);
	char *req = runfiles_review_request(p, pr);
	char *inj = runfiles_review_injected(p, pr), *session;

	rp_run_kill(rp, pr);
	(void)rp_worktree_remove(rp, wt);
	(void)act_remove(&rp->act, phase);
	(void)act_remove(&rp->act, output);
	(void)act_remove(&rp->act, req);
	if (forget) {
		(void)act_remove(&rp->act, inj);
		rp_tries_forget(rp, pr);
	}
	session = runfiles_review_session(p, pr);
	(void)act_remove_session(&rp->act, session);
	free(session);
	free(wt);
	free(phase);
	free(output);
	free(req);
	free(inj);
}

/* The agent is through: it said so, stopped, or its session is gone. */
int
rp_run_collectable(const struct rp_run *run)
{
	switch (run->state) {
	case RP_RUN_FINISHED:
	case RP_RUN_GONE:
	case RP_RUN_IDLE:
	case RP_RUN_TIMEOUT:
		return 1;
	default:
		return 0;
	}
}
