/*
 * The project's CI, through the Woodpecker API: pipelines stuck running
 * or pending, the "ci" metric, and the retrigger of pipelines that failed
 * for infrastructure reasons (at most twice per pipeline and its
 * restarts, counted in the retry directory before each restart).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ci.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "woodpecker.h"
#include "xmalloc.h"

#define STUCK_RUNNING_S (20 * 60)
#define STUCK_PENDING_S (30 * 60)
#define METRIC_WINDOW_S (24 * 3600)
#define RETRY_WINDOW_S (6 * 3600)
#define RETRY_CANDIDATES 5
#define RETRY_MAX 2
#define RETRY_KEEP_S (24 * 3600)

/*
 * The statuses the checks tell apart.  Every other status of Woodpecker
 * 2.x and 3.x (server/model/const.go) is PIPE_OTHER: created and blocked
 * are not "pending" to the stuck check (upstream counted status
 * 'pending' only); killed (2.x's cancel), canceled, declined and skipped
 * gave no verdict on the code, so they are neither in the "ci" metric
 * (success, failure, error, as upstream's query) nor restarted as an
 * infrastructure failure (failure and error only).
 */
enum pipelines_status {
	PIPE_OTHER,
	PIPE_RUNNING,
	PIPE_PENDING,
	PIPE_SUCCESS,
	PIPE_FAILURE,
	PIPE_ERROR,
	PIPE_NSTATUS
};

static const char *const pipelines_status_names[PIPE_NSTATUS] = {"", "running",
    "pending", "success", "failure", "error"};

/*
 * A pipeline of the list: what the checks read (0: a field not there).
 * Its times under the 3.x names, which woodpecker.c gives a 2.x answer's
 * pipelines too (created_at ... copied to created ...).
 */
struct pipeline {
	long long number, parent;
	long long created, started, finished;
	enum pipelines_status status;
	char *commit;
};

/* The list, newest first as Woodpecker gives it. */
struct pipeline_list {
	struct pipeline *v;
	size_t n;
};

static enum pipelines_status pipelines_status(const char *);
static int pipelines_keep(void *, const cJSON *);
static void pipelines_free(struct pipeline_list *);
static void pipelines_stuck(struct sup *, const struct pipeline_list *);
static void pipelines_ci_metric(struct sup *, const struct pipeline_list *);
static int pipelines_superseded(const struct pipeline_list *,
    const struct pipeline *);
static long long pipelines_chain_root(const struct pipeline_list *,
    const struct pipeline *);
static void pipelines_retry_one(struct sup *, const struct pipeline_list *,
    const struct pipeline *);
static void pipelines_retry_infra(struct sup *, const struct pipeline_list *);
static void pipelines_retry_prune(struct sup *);

/* The status named st (NULL: none). */
static enum pipelines_status
pipelines_status(const char *st)
{
	int i;

	for (i = PIPE_OTHER + 1; st != NULL && i < PIPE_NSTATUS; i++)
		if (strcmp(st, pipelines_status_names[i]) == 0)
			return (enum pipelines_status)i;
	return PIPE_OTHER;
}

/* Keep what the checks read of pipeline p of the list. */
static int
pipelines_keep(void *arg, const cJSON *p)
{
	struct woodpecker_pipeline_info w;
	struct pipeline_list *l = arg;
	struct pipeline *q;

	woodpecker_pipeline_view(p, &w);
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	q = &l->v[l->n++];
	q->number = w.number;
	q->parent = w.parent;
	q->created = w.created;
	q->started = w.started;
	q->finished = w.finished;
	q->status = pipelines_status(w.status);
	q->commit = w.commit != NULL ? xstrdup(w.commit) : NULL;
	return 0;
}

static void
pipelines_free(struct pipeline_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].commit);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
pipelines_stuck(struct sup *s, const struct pipeline_list *l)
{
	const struct pipeline *p;
	long long running = 0, pending = 0;

	for (p = l->v; p < l->v + l->n; p++) {
		if (p->status == PIPE_RUNNING && p->started > 0 &&
		    s->now - p->started > STUCK_RUNNING_S)
			running++;
		if (p->status == PIPE_PENDING && p->created > 0 &&
		    s->now - p->created > STUCK_PENDING_S)
			pending++;
	}
	if (running > 0)
		sup_alert(s, P2, "%s: CI: %lld pipeline(s) running > 20 min",
		    s->cfg->project_name, running);
	if (pending > 0)
		sup_alert(s, P2, "%s: CI: %lld pipeline(s) pending > 30 min",
		    s->cfg->project_name, pending);
}

/* The newest pipeline finished in the last 24 hours, as a metric. */
static void
pipelines_ci_metric(struct sup *s, const struct pipeline_list *l)
{
	const struct pipeline *p, *best = NULL;
	long long fin, start;
	cJSON *m;

	for (p = l->v; p < l->v + l->n; p++) {
		if (p->status != PIPE_SUCCESS && p->status != PIPE_FAILURE &&
		    p->status != PIPE_ERROR)
			continue;
		if (p->finished <= 0 || s->now - p->finished > METRIC_WINDOW_S)
			continue;
		if (best == NULL || p->number > best->number)
			best = p;
	}
	if (best == NULL)
		return;
	fin = best->finished;
	start = best->started;
	m = metrics_new(s, "ci");
	cJSON_AddStringToObject(m, "project", s->cfg->project_name);
	cJSON_AddNumberToObject(m, "pipeline", (double)best->number);
	cJSON_AddNumberToObject(m, "duration_min",
	    start > 0 && fin > start ? (double)((fin - start + 30) / 60) : 0);
	cJSON_AddStringToObject(m, "status",
	    pipelines_status_names[best->status]);
	metrics_emit(s, m);
}

/* 1 when a newer pipeline ran for the same commit (a restart, a re-push). */
static int
pipelines_superseded(const struct pipeline_list *l, const struct pipeline *p)
{
	const struct pipeline *q;

	if (p->commit == NULL || *p->commit == '\0')
		return 0;
	for (q = l->v; q < l->v + l->n; q++)
		if (q->number > p->number && q->commit != NULL &&
		    strcmp(q->commit, p->commit) == 0)
			return 1;
	return 0;
}

/* The first pipeline of p's restart chain ("parent" links), or p. */
static long long
pipelines_chain_root(const struct pipeline_list *l, const struct pipeline *p)
{
	long long root = p->number, parent = p->parent;
	const struct pipeline *q;
	int hops = 0, found;

	while (parent > 0 && parent < root && hops++ < 50) {
		found = 0;
		root = parent;
		for (q = l->v; q < l->v + l->n; q++) {
			if (q->number == parent) {
				parent = q->parent;
				found = 1;
				break;
			}
		}
		if (!found)
			break;
	}
	return root;
}

static void
pipelines_retry_one(struct sup *s, const struct pipeline_list *l,
    const struct pipeline *p)
{
	const char *proj = s->cfg->project_name;
	long long number = p->number, root = pipelines_chain_root(l, p);
	long long count = 0, fresh;
	struct ci_failure f;
	char *path = runfiles_infra_retry(s->cfg->woodpecker_repo_id, root);
	char text[32];
	struct buf b;
	int r;

	buf_init(&b, 0);
	r = file_read(path, 64, &b);
	if (r == -1 && errno != ENOENT) {
		sup_fail(s, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (r == 0 && sscanf(buf_str(&b), "%lld", &count) != 1)
		count = RETRY_MAX;
	if (ci_classify_pipeline(s->wp, number, &f) == -1) {
		sup_fail(s, "%s: cannot classify pipeline #%lld: %s", proj,
		    number, woodpecker_error(s->wp));
		ci_failure_free(&f);
		goto out;
	}
	if (!f.found || !f.infra)
		goto done;
	if (count >= RETRY_MAX) {
		sup_alert(s, P2,
		    "%s: pipeline #%lld: infra retries used up (%d/%d), needs "
		    "a look",
		    proj, number, RETRY_MAX, RETRY_MAX);
		goto done;
	}
	/* The count is on disk before the restart it counts. */
	snprintf(text, sizeof(text), "%lld\n", count + 1);
	if (act_write(&s->act, path, text, 1) == -1)
		goto done;
	if (act_pipeline_restart(&s->act, number, &fresh) == 0)
		sup_fixed(s,
		    "%s: retriggered pipeline #%lld (%s, retry %lld/%d)", proj,
		    number, f.reason, count + 1, RETRY_MAX);
	else
		sup_alert(s, P2,
		    "%s: pipeline #%lld: infra failure (%s) but the restart "
		    "failed",
		    proj, number, f.reason);
done:
	ci_failure_free(&f);
out:
	buf_free(&b);
	free(path);
}

/*
 * The newest failed pipelines of the last 6 hours that nothing has
 * replaced yet: retrigger those that failed for infrastructure reasons.
 */
static void
pipelines_retry_infra(struct sup *s, const struct pipeline_list *l)
{
	const struct pipeline *p, *picked[RETRY_CANDIDATES];
	size_t n = 0, i, j;

	for (p = l->v; p < l->v + l->n; p++) {
		if (p->status != PIPE_FAILURE && p->status != PIPE_ERROR)
			continue;
		if (p->finished <= 0 || s->now - p->finished > RETRY_WINDOW_S ||
		    pipelines_superseded(l, p))
			continue;
		/* Keep the RETRY_CANDIDATES highest numbers, highest first. */
		for (i = 0; i < n && picked[i]->number >= p->number; i++)
			;
		if (i == RETRY_CANDIDATES)
			continue;
		if (n < RETRY_CANDIDATES)
			n++;
		for (j = n - 1; j > i; j--)
			picked[j] = picked[j - 1];
		picked[i] = p;
	}
	for (i = 0; i < n; i++)
		pipelines_retry_one(s, l, picked[i]);
}

/* Forget retry counts older than a day. */
static void
pipelines_retry_prune(struct sup *s)
{
	char *dir = runfiles_infra_retries_dir(), *path;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		goto out;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    s->now - st.st_mtime > RETRY_KEEP_S)
			(void)act_remove(&s->act, path);
		free(path);
	}
	closedir(d);
out:
	free(dir);
}

void
pipelines_check(struct sup *s)
{
	struct pipeline_list l = {NULL, 0};
	char *dir;

	if (s->wp == NULL)
		return;
	sup_status(s, "P2: %s: checking pipeline", s->cfg->project_name);
	if (woodpecker_pipelines_each(s->wp, pipelines_keep, &l) == -1) {
		sup_fail(s, "%s: cannot read pipelines: %s",
		    s->cfg->project_name, woodpecker_error(s->wp));
		goto out;
	}
	pipelines_stuck(s, &l);
	pipelines_ci_metric(s, &l);
	if (!s->cfg->check_infra_retry)
		goto out;
	sup_status(s, "P2e: %s: checking infra failures", s->cfg->project_name);
	dir = runfiles_infra_retries_dir();
	if (act_mkdir(&s->act, dir) == 0)
		pipelines_retry_infra(s, &l);
	free(dir);
	pipelines_retry_prune(s);
out:
	pipelines_free(&l);
}
