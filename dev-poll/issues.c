/*
 * Issues: the backlog (common/world/backlog.h) and the labelled lists the
 * scheduler walks, single issues (read through the per-run cache, so a
 * dependency looked at twice costs one request), dependency readiness.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backlog.h"
#include "config.h"
#include "deps.h"
#include "dev-poll.h"
#include "forge.h"
#include "act.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

/* How long the note that the priority label exists is trusted. */
#define ISSUES_LABEL_NOTE_S 3600

static int issues_listed(const cJSON *const *, size_t, long long);

int
dp_issues_labelled(struct dev_ctx *c, const char *label, const cJSON ***out,
    size_t *n)
{
	const cJSON *list, *it;
	struct forge_issue fi;

	*out = NULL;
	*n = 0;
	if (forge_issues_list(c->forge, "open", label, "issues", &list) == -1) {
		log_warn("cannot read the open '%s' issues: %s", label,
		    forge_error(c->forge));
		return -1;
	}
	*out = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(**out));
	/*
	 * Gitea drops a label name it does not know from the filter (and
	 * lists every issue then), and type=issues is a filter some forges
	 * ignore: check both on every item.
	 */
	cJSON_ArrayForEach (it, list) {
		forge_issue_view(it, &fi);
		if (!forge_labelled(it, label) || fi.pull)
			continue;
		(*out)[(*n)++] = it;
	}
	return 0;
}

void
dp_backlog_free(struct dev_ctx *c)
{
	backlog_free(&c->backlog);
}

int
dp_backlog_load(struct dev_ctx *c)
{
	if (c->backlog.read)
		return 0;
	/* The prompt's backlog section shows the first titles. */
	if (backlog_load(&c->backlog, c->forge, DP_BACKLOG_LINES + 1) == -1) {
		log_warn("cannot read the open 'backlog' issues: %s",
		    forge_error(c->forge));
		return -1;
	}
	return 0;
}

int
dp_issue(struct dev_ctx *c, long long number, const cJSON **out)
{
	if (forge_issue_get(c->forge, number, out) == -1) {
		log_warn("cannot read issue #%lld: %s", number,
		    forge_error(c->forge));
		return -1;
	}
	return 0;
}

enum dp_issue_state
dp_issue_state(struct dev_ctx *c, long long number, const cJSON **out)
{
	struct forge_issue fi;

	*out = NULL;
	if (forge_issue_get(c->forge, number, out) == -1) {
		if (forge_last_status(c->forge) == 404)
			return DP_ISSUE_MISSING;
		log_warn("cannot read issue #%lld: %s", number,
		    forge_error(c->forge));
		return DP_ISSUE_UNKNOWN;
	}
	forge_issue_view(*out, &fi);
	return fi.state != NULL && strcmp(fi.state, "closed") == 0 ?
	    DP_ISSUE_CLOSED :
	    DP_ISSUE_OPEN;
}

/* Whether issue num is one of the n items of list. */
static int
issues_listed(const cJSON *const *list, size_t n, long long num)
{
	struct forge_issue fi;
	size_t i;

	for (i = 0; i < n; i++) {
		forge_issue_view(list[i], &fi);
		if (fi.number == num)
			return 1;
	}
	return 0;
}

int
dp_dep_closed(struct dev_ctx *c, long long dep, int *closed)
{
	const cJSON *issue;
	enum dp_issue_state st;

	*closed = 0;
	/* Listed among the open issues read this tick: open, no request. */
	if (backlog_find(&c->backlog, dep) != NULL ||
	    issues_listed(c->inprog, c->ninprog, dep))
		return 0;
	/* An issue that does not exist can never be closed. */
	if ((st = dp_issue_state(c, dep, &issue)) == DP_ISSUE_UNKNOWN)
		return -1;
	*closed = st == DP_ISSUE_CLOSED;
	return 0;
}

enum dp_deps
dp_deps_ready(struct dev_ctx *c, long long number, const long long *deps,
    size_t n)
{
	enum dp_deps r = DP_DEPS_MET;
	size_t i;
	int closed;

	for (i = 0; i < n && r == DP_DEPS_MET; i++) {
		if (dp_dep_closed(c, deps[i], &closed) == -1)
			r = DP_DEPS_UNKNOWN;
		else if (!closed) {
			log_msg("  #%lld blocked: dep #%lld not merged", number,
			    deps[i]);
			r = DP_DEPS_OPEN;
		}
	}
	return r;
}

enum dp_deps
dp_issue_ready(struct dev_ctx *c, long long number, const char *body)
{
	enum dp_deps r;
	long long *deps = NULL;
	size_t n = 0;

	(void)deps_parse(body, number, &deps, &n);
	r = dp_deps_ready(c, number, deps, n);
	free(deps);
	return r;
}

void
dp_priority_label(struct dev_ctx *c, size_t npri)
{
	char *path = runfiles_dev_priority_label(c->cfg->project_name), *text;
	long long age, id;

	if (npri > 0 ||
	    (runfiles_age(path, c->now, &age) == 0 &&
		age < ISSUES_LABEL_NOTE_S))
		goto out;
	if (act_label_ensure(&c->act, "priority", &id) == -1 || c->act.dry_run)
		goto out;
	text = xasprintf("%lld\n", id);
	if (runfiles_write(path, text) == -1)
		log_warn("cannot write '%s': %s", path, strerror(errno));
	free(text);
out:
	free(path);
}
