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
#include <sys/stat.h>

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
#include "forge.h"
#include "json.h"
#include "lock.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

#define CIFIX_FILE_MAX (1024 * 1024)
#define CIFIX_LOCK_WAIT 30

static int cifix_load(const char *, cJSON **);
static int cifix_apply(struct dev_ctx *, const char *, long long,
    enum dp_cifix_op, long long *, enum dp_cifix_res *);
static int cifix_locked(struct dev_ctx *, long long, enum dp_cifix_op,
    long long *, enum dp_cifix_res *);
static void cifix_post_blocked(struct dev_ctx *, long long, long long,
    long long);

/*
 * Read the tracker into *out (an object; a missing file is empty, and so
 * is an empty one, as upstream's newer main creates it before any count).
 */
static int
cifix_load(const char *path, cJSON **out)
{
	struct stat st;
	char err[128];

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
		*out = cJSON_CreateObject();
		return 0;
	}
	if ((*out = json_load_object(path, CIFIX_FILE_MAX, err, sizeof(err))) ==
	    NULL) {
		log_warn("cannot use '%s': %s", path, err);
		return -1;
	}
	return 0;
}

enum dp_cifix_res
dp_cifix_step(long long count, enum dp_cifix_op op, long long *next,
    int *changed)
{
	*next = count;
	*changed = 0;
	switch (op) {
	case DP_CIFIX_READ:
		return count > DP_CI_FIX_BUDGET ? DP_CIFIX_SPENT :
						  DP_CIFIX_LEFT;
	case DP_CIFIX_RESET:
		*next = 0;
		*changed = 1;
		return DP_CIFIX_LEFT;
	case DP_CIFIX_CHECK:
	case DP_CIFIX_INCREMENT:
		break;
	}
	if (count > DP_CI_FIX_BUDGET)
		return DP_CIFIX_SPENT;
	if (count == DP_CI_FIX_BUDGET) {
		/* The one step that moves it past: the first to see it. */
		*next = DP_CI_FIX_BUDGET + 1;
		*changed = 1;
		return DP_CIFIX_FIRST;
	}
	if (op == DP_CIFIX_INCREMENT) {
		*next = count + 1;
		*changed = 1;
	}
	return DP_CIFIX_LEFT;
}

/*
 * Apply op to the count of pr in the tracker at path (the lock is held):
 * the count before any change in *count, what the step found in *res.
 * Returns 0, or -1 when the file could not be read or written.
 */
static int
cifix_apply(struct dev_ctx *c, const char *path, long long pr,
    enum dp_cifix_op op, long long *count, enum dp_cifix_res *res)
{
	cJSON *d = NULL, *item;
	char key[32], *text;
	long long n = 0, next;
	int changed, r = 0;

	snprintf(key, sizeof(key), "%lld", pr);
	if (cifix_load(path, &d) == -1)
		return -1;
	if ((item = cJSON_GetObjectItemCaseSensitive(d, key)) != NULL &&
	    json_item_int(item, &n) == -1)
		n = 0;
	*count = n;
	*res = dp_cifix_step(n, op, &next, &changed);
	/* Forgetting a PR that was never counted changes nothing. */
	if (op == DP_CIFIX_RESET && item == NULL)
		changed = 0;
	if (changed) {
		cJSON_DeleteItemFromObjectCaseSensitive(d, key);
		if (op != DP_CIFIX_RESET)
			cJSON_AddNumberToObject(d, key, (double)next);
		text = json_print(d);
		r = act_write(&c->act, path, text, 1);
		free(text);
	}
	cJSON_Delete(d);
	return r;
}

/* One locked step on the tracker (see cifix_apply()): 0 or -1. */
static int
cifix_locked(struct dev_ctx *c, long long pr, enum dp_cifix_op op,
    long long *count, enum dp_cifix_res *res)
{
	char *path = runfiles_ci_fixes(c->cfg->project_name), *lpath = NULL;
	int fd = -1, r = -1, lr;

	*count = 0;
	*res = DP_CIFIX_LEFT;
	if (!c->act.dry_run) {
		lpath = xasprintf("%s.lock", path);
		if ((lr = lock_wait(lpath, &fd, CIFIX_LOCK_WAIT)) != 0) {
			log_err("cannot lock '%s': %s", lpath,
			    lr == 1 ? "timed out" : strerror(errno));
			goto out;
		}
	}
	r = cifix_apply(c, path, pr, op, count, res);
out:
	lock_release(fd);
	free(lpath);
	free(path);
	return r;
}

/* The one diagnostic comment and the blocked label, when exhausted. */
static void
cifix_post_blocked(struct dev_ctx *c, long long issue, long long pr,
    long long attempts)
{
	char ts[32], key[64], *body;

	log_iso8601(c->now, ts, sizeof(ts));
	/* dev-poll.sh's table, then what happened in our words. */
	body =
	    xasprintf("### Session failure diagnostic\n\n"
		      "| Field | Value |\n|---|---|\n"
		      "| Exit reason | `ci_exhausted_poll (%lld attempts)` |\n"
		      "| Timestamp | `%s` |\n"
		      "| PR | #%lld |\n\n"
		      "Agent sessions tried %lld times to make CI pass on "
		      "PR #%lld; dev-poll stops here and marks this issue "
		      "`blocked` for a human to look at.\n",
		attempts, ts, pr, attempts, pr);
	snprintf(key, sizeof(key), "ci-exhausted #%lld", pr);
	(void)act_comment(&c->act, issue, key, body, NULL);
	(void)act_label_add(&c->act, issue, "blocked");
	free(body);
}

enum dp_cifix
dp_cifix(struct dev_ctx *c, long long pr, long long issue, int check_only,
    long long *attempts)
{
	enum dp_cifix_res res;
	const cJSON *it;

	*attempts = 0;
	if (dp_issue(c, issue, &it) == -1)
		return DP_CIFIX_ERROR;
	if (forge_labelled(it, "blocked")) {
		(void)cifix_locked(c, pr, DP_CIFIX_READ, attempts, &res);
		log_msg("PR #%lld (issue #%lld) already blocked (%lld "
			"attempts) — skipping",
		    pr, issue, *attempts);
		return DP_CIFIX_EXHAUSTED;
	}
	if (cifix_locked(c, pr,
		check_only ? DP_CIFIX_CHECK : DP_CIFIX_INCREMENT, attempts,
		&res) == -1) {
		if (!check_only)
			return DP_CIFIX_ERROR;
		/* As upstream: an unreadable tracker counts as exhausted. */
		log_msg("PR #%lld (issue #%lld) CI fix budget unreadable — "
			"skipping",
		    pr, issue);
		return DP_CIFIX_EXHAUSTED;
	}
	switch (res) {
	case DP_CIFIX_LEFT:
		if (!check_only)
			(*attempts)++;
		return DP_CIFIX_OK;
	case DP_CIFIX_FIRST:
		log_msg("PR #%lld (issue #%lld) CI exhausted (%lld attempts) "
			"— marking blocked",
		    pr, issue, *attempts);
		cifix_post_blocked(c, issue, pr, *attempts);
		return DP_CIFIX_EXHAUSTED;
	case DP_CIFIX_SPENT:
		break;
	}
	log_msg("PR #%lld (issue #%lld) CI exhausted (%lld attempts) — "
		"already blocked, skipping",
	    pr, issue, *attempts);
	return DP_CIFIX_EXHAUSTED;
}

int
dp_cifix_reset(struct dev_ctx *c, long long pr)
{
	enum dp_cifix_res res;
	long long n;

	return cifix_locked(c, pr, DP_CIFIX_RESET, &n, &res);
}
