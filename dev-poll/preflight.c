/*
 * The dependency preflight before an issue is claimed: every issue its
 * body depends on must be closed.  When some are open, the issue gets one
 * "Unmet dependency" comment naming them and suggesting the first blocker
 * that could be worked on now, unless the issue's last comment already is
 * such a notice; nothing is claimed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "deps.h"
#include "dev-poll.h"
#include "forge.h"
#include "log.h"
#include "xmalloc.h"

/* Text that marks a notice, ours or the bash dev-agent's. */
#define UNMET_MARK "Unmet dependency"

static int preflight_blocker_ready(struct dev_ctx *, long long);
static long long preflight_suggest(struct dev_ctx *, const long long *, size_t);
static int preflight_last_is_notice(const cJSON *);
static int preflight_notify(struct dev_ctx *, long long, const cJSON *,
    const long long *, size_t, long long);

/* An open blocker whose own dependencies are all closed: 1, 0, -1. */
static int
preflight_blocker_ready(struct dev_ctx *c, long long blocker)
{
	struct forge_issue fi;
	const cJSON *it;
	long long *deps = NULL;
	size_t n = 0, i;
	int r, closed;

	switch (dp_issue_state(c, blocker, &it)) {
	case DP_ISSUE_OPEN:
		break;
	case DP_ISSUE_UNKNOWN:
		return -1;
	default:
		return 0;
	}
	forge_issue_view(it, &fi);
	(void)deps_parse(fi.body, blocker, &deps, &n);
	for (i = 0, r = 1; i < n && r == 1; i++) {
		if (dp_dep_closed(c, deps[i], &closed) == -1)
			r = -1;
		else if (!closed)
			r = 0;
	}
	free(deps);
	return r;
}

/* The first blocker ready to be worked on: its number, 0, or -1. */
static long long
preflight_suggest(struct dev_ctx *c, const long long *blockers, size_t n)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		if ((r = preflight_blocker_ready(c, blockers[i])) == -1)
			return -1;
		if (r == 1)
			return blockers[i];
	}
	return 0;
}

/* Whether the newest comment is already an unmet-dependency notice. */
static int
preflight_last_is_notice(const cJSON *comments)
{
	struct forge_comment cm;
	const cJSON *last;
	int n = cJSON_GetArraySize(comments);

	if (n == 0 || (last = cJSON_GetArrayItem(comments, n - 1)) == NULL)
		return 0;
	forge_comment_view(last, &cm);
	return cm.body != NULL && strstr(cm.body, UNMET_MARK) != NULL;
}

/*
 * Post the notice.  Its key names the comment it follows, so a notice is
 * posted again only after someone else spoke.  Returns 0 or -1.
 */
static int
preflight_notify(struct dev_ctx *c, long long issue, const cJSON *comments,
    const long long *blockers, size_t n, long long suggestion)
{
	struct forge_comment cm;
	const cJSON *last;
	long long after = 0;
	struct buf b;
	char ts[32], key[96];
	time_t now = c->now;
	struct tm tm;
	size_t i;
	int r;

	last = cJSON_GetArrayItem(comments, cJSON_GetArraySize(comments) - 1);
	if (last != NULL) {
		forge_comment_view(last, &cm);
		after = cm.id;
	}
	snprintf(key, sizeof(key), "unmet-dependency #%lld after %lld", issue,
	    after);

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M UTC", &tm);
	buf_init(&b, 0);
	/* dev-agent.sh's words. */
	buf_puts(&b,
	    "🚧 **Dev-agent: " UNMET_MARK "**\n\n### Blocked by open issues\n\n"
	    "This issue depends on ");
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s#%lld", i ? ", " : "", blockers[i]);
	buf_printf(&b, ", which %s not yet closed.\n", n == 1 ? "is" : "are");
	if (suggestion > 0)
		buf_printf(&b, "\n**Suggestion:** Work on #%lld first.\n",
		    suggestion);
	buf_printf(&b, "\n---\n*Automated assessment by dev-agent · %s*\n", ts);
	r = act_comment(&c->act, issue, key, buf_str(&b), NULL);
	buf_free(&b);
	return r;
}

enum dp_deps
dp_preflight(struct dev_ctx *c, long long issue, const char *body,
    const cJSON *comments)
{
	long long *deps = NULL, *open = NULL, sug = 0;
	enum dp_deps r = DP_DEPS_UNKNOWN;
	size_t n = 0, nopen = 0, i;
	struct buf b;
	int closed;

	(void)deps_parse(body, issue, &deps, &n);
	open = xcalloc(n + 1, sizeof(*open));
	for (i = 0; i < n; i++) {
		if (dp_dep_closed(c, deps[i], &closed) == -1)
			goto out;
		log_msg("dependency #%lld is %s", deps[i],
		    closed ? "closed (satisfied)" : "open (not satisfied)");
		if (!closed)
			open[nopen++] = deps[i];
	}
	if (nopen == 0) {
		log_msg("preflight passed — no explicit unmet dependencies");
		r = DP_DEPS_MET;
		goto out;
	}
	if ((sug = preflight_suggest(c, open, nopen)) == -1)
		goto out;
	if (preflight_last_is_notice(comments))
		log_msg("skipping duplicate dependency comment");
	else if (preflight_notify(c, issue, comments, open, nopen, sug) == -1)
		goto out;
	buf_init(&b, 0);
	for (i = 0; i < nopen; i++)
		buf_printf(&b, "%s#%lld", i ? " " : "", open[i]);
	if (sug > 0)
		buf_printf(&b, ", suggest #%lld", sug);
	log_msg("BLOCKED: unmet dependencies: %s", buf_str(&b));
	buf_free(&b);
	r = DP_DEPS_OPEN;
out:
	free(open);
	free(deps);
	return r;
}
