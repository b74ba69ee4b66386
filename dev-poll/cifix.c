/*
 * The CI-fix budget: dev/ci-fixes-P.json counts the sessions started to
 * fix a PR's CI, read and written under a flock on "<file>.lock" so that
 * pollers racing on the same PR agree.  DP_CI_FIX_BUDGET attempts are
 * allowed; the check that finds the last one used moves the count one
 * past it in the same locked step, so exactly one poller ever sees
 * "exhausted for the first time" and posts the diagnostic and the blocked
 * label.  Scans only
 * check; the increment happens right before the launch it pays for, and
 * the count is on disk (fsync'd) before the session starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "json.h"
#include "lock.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

#define CIFIX_FILE_MAX (1024 * 1024)
#define CIFIX_LOCK_WAIT 30

/* What a locked step does to one PR's count. */
enum cifix_op {
	CIFIX_READ,	 /* read only */
	CIFIX_CHECK,	 /* read; 3 becomes 4 */
	CIFIX_INCREMENT, /* as CHECK, else add one */
	CIFIX_RESET	 /* forget the PR */
};

/* What the step found. */
enum cifix_res {
	CIFIX_OK,
	CIFIX_EXHAUSTED,
	CIFIX_FIRST /* exhausted, and this caller is the first to see it */
};

static int tracker_load(const char *, cJSON **);
static int tracker_apply(struct dev_ctx *, const char *, long long,
    enum cifix_op, long long *);
static int tracker_step(struct dev_ctx *, long long, enum cifix_op,
    long long *);
static void post_blocked(struct dev_ctx *, long long, long long, long long);

/* Read the tracker into *out (an object; a missing file is empty). */
static int
tracker_load(const char *path, cJSON **out)
{
	struct buf b;
	char err[128];
	int r;

	*out = NULL;
	buf_init(&b, 0);
	r = file_read(path, CIFIX_FILE_MAX, &b);
	if (r == -1 && errno == ENOENT) {
		*out = cJSON_CreateObject();
		r = 0;
	} else if (r == 0) {
		*out = json_parse(b.data != NULL ? b.data : "", b.len, err,
		    sizeof(err));
		if (*out == NULL || !cJSON_IsObject(*out)) {
			log_msg("'%s' is not a JSON object: %s", path,
			    *out == NULL ? err : "wrong type");
			cJSON_Delete(*out);
			*out = NULL;
			r = -1;
		}
	} else
		log_msg("cannot read '%s': %s", path,
		    r == 1 ? "too large" : strerror(errno));
	buf_free(&b);
	return r == 0 ? 0 : -1;
}

/*
 * Apply op to the count of pr in the tracker at path (the lock is held):
 * the count before any change in *count.  Returns an enum cifix_res, or
 * -1 when the file could not be read or written.
 */
static int
tracker_apply(struct dev_ctx *c, const char *path, long long pr,
    enum cifix_op op, long long *count)
{
	cJSON *d = NULL, *item;
	char key[32], *text = NULL;
	long long n = 0;
	int res = CIFIX_OK, dirty = 0;

	snprintf(key, sizeof(key), "%lld", pr);
	if (tracker_load(path, &d) == -1)
		return -1;
	if ((item = cJSON_GetObjectItemCaseSensitive(d, key)) != NULL &&
	    json_item_int(item, &n) == -1)
		n = 0;
	*count = n;
	if (op == CIFIX_RESET) {
		dirty = item != NULL;
		cJSON_DeleteItemFromObjectCaseSensitive(d, key);
	} else if (op != CIFIX_READ && n >= DP_CI_FIX_BUDGET) {
		res = n > DP_CI_FIX_BUDGET ? CIFIX_EXHAUSTED : CIFIX_FIRST;
		n = DP_CI_FIX_BUDGET + 1;
		dirty = res == CIFIX_FIRST;
	} else if (op == CIFIX_INCREMENT) {
		n++;
		dirty = 1;
	}
	if (dirty && op != CIFIX_RESET) {
		cJSON_DeleteItemFromObjectCaseSensitive(d, key);
		cJSON_AddNumberToObject(d, key, (double)n);
	}
	if (dirty) {
		text = json_print(d);
		if (act_write(&c->act, path, text, 1) == -1)
			res = -1;
	}
	free(text);
	cJSON_Delete(d);
	return res;
}

/* One locked step on the tracker (see tracker_apply()). */
static int
tracker_step(struct dev_ctx *c, long long pr, enum cifix_op op,
    long long *count)
{
	char *path = runfiles_ci_fixes(c->cfg->project_name), *lpath = NULL;
	int fd = -1, r = -1, lr;

	*count = 0;
	if (!c->act.dry_run) {
		lpath = xasprintf("%s.lock", path);
		if ((lr = lock_wait(lpath, &fd, CIFIX_LOCK_WAIT)) != 0) {
			log_msg("cannot lock '%s': %s", lpath,
			    lr == 1 ? "timed out" : strerror(errno));
			goto out;
		}
	}
	r = tracker_apply(c, path, pr, op, count);
out:
	lock_release(fd);
	free(lpath);
	free(path);
	return r;
}

/* The one diagnostic comment and the blocked label, when exhausted. */
static void
post_blocked(struct dev_ctx *c, long long issue, long long pr,
    long long attempts)
{
	char ts[32], *body;

	log_iso8601(c->now, ts, sizeof(ts));
	body = xasprintf("### CI fix budget used up\n\n"
			 "Agent sessions tried %lld times to make CI pass "
			 "on PR #%lld; dev-poll stops here and marks this "
			 "issue `blocked` for a human to look at.\n\n"
			 "| | |\n|---|---|\n"
			 "| Reason | `ci_exhausted_poll (%lld attempts)` |\n"
			 "| PR | #%lld |\n"
			 "| Time | `%s` |\n",
	    attempts, pr, attempts, pr, ts);
	(void)act_comment(&c->act, issue, body, NULL);
	(void)act_label_add(&c->act, issue, "blocked");
	free(body);
}

int
dp_cifix(struct dev_ctx *c, long long pr, long long issue, int check_only,
    long long *attempts)
{
	const cJSON *it;
	int r;

	*attempts = 0;
	if (dp_issue(c, issue, &it) == -1)
		return -1;
	if (json_has_label(it, "blocked")) {
		(void)tracker_step(c, pr, CIFIX_READ, attempts);
		log_msg("PR #%lld (issue #%lld) already blocked (%lld "
			"attempts) — skipping",
		    pr, issue, *attempts);
		return 1;
	}
	r = tracker_step(c, pr, check_only ? CIFIX_CHECK : CIFIX_INCREMENT,
	    attempts);
	switch (r) {
	case CIFIX_OK:
		if (!check_only)
			(*attempts)++;
		return 0;
	case CIFIX_FIRST:
		log_msg("PR #%lld (issue #%lld) CI exhausted (%lld attempts) "
			"— marking blocked",
		    pr, issue, *attempts);
		post_blocked(c, issue, pr, *attempts);
		return 1;
	case CIFIX_EXHAUSTED:
		log_msg("PR #%lld (issue #%lld) CI exhausted (%lld attempts) "
			"— already blocked, skipping",
		    pr, issue, *attempts);
		return 1;
	default:
		/* As upstream: an unreadable tracker counts as exhausted. */
		if (!check_only && r == -1)
			return -1;
		log_msg("PR #%lld (issue #%lld) CI fix budget unreadable — "
			"skipping",
		    pr, issue);
		return 1;
	}
}

int
dp_cifix_reset(struct dev_ctx *c, long long pr)
{
	long long n;

	return tracker_step(c, pr, CIFIX_RESET, &n) == -1 ? -1 : 0;
}
