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
#include "json.h"
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

static long long pipelines_num(const cJSON *, const char *);
static int pipelines_status_is(const cJSON *, const char *);
static void pipelines_stuck(struct sup *, const cJSON *);
static void pipelines_ci_metric(struct sup *, const cJSON *);
static int pipelines_superseded(const cJSON *, const cJSON *);
static long long pipelines_chain_root(const cJSON *, const cJSON *);
static void pipelines_retry_one(struct sup *, const cJSON *, const cJSON *);
static void pipelines_retry_infra(struct sup *, const cJSON *);
static void pipelines_retry_prune(struct sup *);

/* A numeric field, 0 when missing or not an integer. */
static long long
pipelines_num(const cJSON *p, const char *key)
{
	long long v;

	return json_int(p, key, &v) == 0 ? v : 0;
}

static int
pipelines_status_is(const cJSON *p, const char *status)
{
	const char *s = json_str(p, "status");

	return s != NULL && strcmp(s, status) == 0;
}

static void
pipelines_stuck(struct sup *s, const cJSON *list)
{
	const cJSON *p;
	long long running = 0, pending = 0, t;

	cJSON_ArrayForEach (p, list) {
		if (pipelines_status_is(p, "running") &&
		    (t = pipelines_num(p, "started")) > 0 &&
		    s->now - t > STUCK_RUNNING_S)
			running++;
		if (pipelines_status_is(p, "pending") &&
		    (t = pipelines_num(p, "created")) > 0 &&
		    s->now - t > STUCK_PENDING_S)
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
pipelines_ci_metric(struct sup *s, const cJSON *list)
{
	const cJSON *p, *best = NULL;
	long long fin, start;
	cJSON *m;

	cJSON_ArrayForEach (p, list) {
		if (!pipelines_status_is(p, "success") &&
		    !pipelines_status_is(p, "failure") &&
		    !pipelines_status_is(p, "error"))
			continue;
		fin = pipelines_num(p, "finished");
		if (fin <= 0 || s->now - fin > METRIC_WINDOW_S)
			continue;
		if (best == NULL ||
		    pipelines_num(p, "number") > pipelines_num(best, "number"))
			best = p;
	}
	if (best == NULL)
		return;
	fin = pipelines_num(best, "finished");
	start = pipelines_num(best, "started");
	m = metrics_new(s, "ci");
	cJSON_AddStringToObject(m, "project", s->cfg->project_name);
	cJSON_AddNumberToObject(m, "pipeline",
	    (double)pipelines_num(best, "number"));
	cJSON_AddNumberToObject(m, "duration_min",
	    start > 0 && fin > start ? (double)((fin - start + 30) / 60) : 0);
	cJSON_AddStringToObject(m, "status", json_str(best, "status"));
	metrics_emit(s, m);
}

/* 1 when a newer pipeline ran for the same commit (a restart, a re-push). */
static int
pipelines_superseded(const cJSON *list, const cJSON *p)
{
	const char *commit = json_str(p, "commit"), *c;
	const cJSON *q;

	if (commit == NULL || *commit == '\0')
		return 0;
	cJSON_ArrayForEach (q, list)
		if (pipelines_num(q, "number") > pipelines_num(p, "number") &&
		    (c = json_str(q, "commit")) != NULL &&
		    strcmp(c, commit) == 0)
			return 1;
	return 0;
}

/* The first pipeline of p's restart chain ("parent" links), or p. */
static long long
pipelines_chain_root(const cJSON *list, const cJSON *p)
{
	long long root = pipelines_num(p, "number"),
		  parent = pipelines_num(p, "parent");
	const cJSON *q;
	int hops = 0, found;

	while (parent > 0 && parent < root && hops++ < 50) {
		found = 0;
		root = parent;
		cJSON_ArrayForEach (q, list) {
			if (pipelines_num(q, "number") == parent) {
				parent = pipelines_num(q, "parent");
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
pipelines_retry_one(struct sup *s, const cJSON *list, const cJSON *p)
{
	const char *proj = s->cfg->project_name;
	long long number = pipelines_num(p, "number"),
		  root = pipelines_chain_root(list, p);
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
pipelines_retry_infra(struct sup *s, const cJSON *list)
{
	const cJSON *p, *picked[RETRY_CANDIDATES];
	size_t n = 0, i, j;
	long long fin;

	cJSON_ArrayForEach (p, list) {
		if (!pipelines_status_is(p, "failure") &&
		    !pipelines_status_is(p, "error"))
			continue;
		fin = pipelines_num(p, "finished");
		if (fin <= 0 || s->now - fin > RETRY_WINDOW_S ||
		    pipelines_superseded(list, p))
			continue;
		/* Keep the RETRY_CANDIDATES highest numbers, highest first. */
		for (i = 0; i < n &&
		     pipelines_num(picked[i], "number") >=
			 pipelines_num(p, "number");
		     i++)
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
		pipelines_retry_one(s, list, picked[i]);
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
	const cJSON *list;
	char *dir;

	if (s->wp == NULL)
		return;
	sup_status(s, "P2: %s: checking pipeline", s->cfg->project_name);
	if (woodpecker_pipelines(s->wp, &list) == -1) {
		sup_fail(s, "%s: cannot read pipelines: %s",
		    s->cfg->project_name, woodpecker_error(s->wp));
		return;
	}
	pipelines_stuck(s, list);
	pipelines_ci_metric(s, list);
	if (!s->cfg->check_infra_retry)
		return;
	sup_status(s, "P2e: %s: checking infra failures", s->cfg->project_name);
	dir = runfiles_infra_retries_dir();
	if (act_mkdir(&s->act, dir) == 0)
		pipelines_retry_infra(s, list);
	free(dir);
	pipelines_retry_prune(s);
}
