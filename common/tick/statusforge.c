/*
 * `--status --forge`: what the forge says now of the sessions' PRs and
 * of the backlog, read with GET requests only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backlog.h"
#include "buf.h"
#include "ci.h"
#include "config.h"
#include "forge.h"
#include "runfiles.h"
#include "statusforge.h"
#include "termsafe.h"
#include "woodpecker.h"
#include "xmalloc.h"

struct statusforge {
	struct forge *f;
	struct woodpecker *w; /* NULL without Woodpecker */
	char error[512];
};

static int statusforge_fail(struct statusforge *, const char *);
static void statusforge_copy(const char *, char *, size_t);
static int statusforge_dep_state(struct statusforge *, long long, char *,
    size_t);
static int statusforge_open_dep(struct statusforge *,
    const struct backlog_issue *, struct statusforge_backlog *);
static int statusforge_scan(struct statusforge *, const struct backlog *,
    struct statusforge_backlog *);

struct statusforge *
statusforge_open(const struct config *cfg)
{
	struct statusforge *s = xcalloc(1, sizeof(*s));

	s->f = forge_open(cfg->forge_api, cfg->forge_token);
	if (config_woodpecker_configured(cfg))
		s->w = woodpecker_open(cfg->woodpecker_server,
		    cfg->woodpecker_token, cfg->woodpecker_repo_id);
	return s;
}

void
statusforge_close(struct statusforge *s)
{
	if (s == NULL)
		return;
	woodpecker_close(s->w);
	forge_close(s->f);
	free(s);
}

const char *
statusforge_error(const struct statusforge *s)
{
	return s->error;
}

int
statusforge_missing(const struct statusforge *s)
{
	return forge_last_status(s->f) == 404;
}

/* Record why (from the forge's error): -1. */
static int
statusforge_fail(struct statusforge *s, const char *why)
{
	snprintf(s->error, sizeof(s->error), "%s", why);
	return -1;
}

/* Forge text into out, printable and cut to outsz. */
static void
statusforge_copy(const char *text, char *out, size_t outsz)
{
	struct buf b;

	buf_init(&b, 0);
	if (text != NULL)
		termsafe_line(text, strlen(text), outsz - 1, &b);
	snprintf(out, outsz, "%s", buf_str(&b));
	buf_free(&b);
}

int
statusforge_pr(struct statusforge *s, long long pr, struct statusforge_pr *out)
{
	const cJSON *j;
	struct forge_pull v;
	enum ci_state ci = CI_UNKNOWN;

	memset(out, 0, sizeof(*out));
	if (forge_pull_get(s->f, pr, &j) == -1)
		return statusforge_fail(s, forge_error(s->f));
	forge_pull_view(j, &v);
	statusforge_copy(v.merged ? "merged" : v.state, out->state,
	    sizeof(out->state));
	statusforge_copy(v.sha, out->sha, sizeof(out->sha));
	if (v.sha == NULL || *v.sha == '\0')
		return statusforge_fail(s, "the PR has no head");
	if (ci_commit_read(s->f, s->w, v.sha, &ci, NULL, NULL) == -1)
		return statusforge_fail(s, forge_error(s->f));
	snprintf(out->ci, sizeof(out->ci), "%s", ci_state_name(ci));
	return 0;
}

int
statusforge_issue_pr(struct statusforge *s, long long issue, long long *pr)
{
	char *branch = runfiles_branch(issue);
	enum forge_res r = forge_pull_find_head(s->f, branch, pr);

	free(branch);
	if (r == FORGE_ERROR)
		return statusforge_fail(s, forge_error(s->f));
	if (r != FORGE_OK)
		*pr = 0;
	return 0;
}

/* The state of issue dep ("open", "closed") into out: 0, or -1. */
static int
statusforge_dep_state(struct statusforge *s, long long dep, char *out,
    size_t outsz)
{
	const cJSON *j;
	struct forge_issue v;

	if (forge_issue_get(s->f, dep, &j) == -1)
		return statusforge_fail(s, forge_error(s->f));
	forge_issue_view(j, &v);
	statusforge_copy(v.state != NULL ? v.state : "unknown", out, outsz);
	return 0;
}

/*
 * Issue it's first dependency that is not closed into out->dep (0 when
 * none): 0, or -1.
 */
static int
statusforge_open_dep(struct statusforge *s, const struct backlog_issue *it,
    struct statusforge_backlog *out)
{
	char state[16];
	size_t k;

	out->dep = 0;
	for (k = 0; k < it->ndeps; k++) {
		if (statusforge_dep_state(s, it->deps[k], state,
			sizeof(state)) == -1)
			return -1;
		if (strcmp(state, "closed") != 0) {
			out->dep = it->deps[k];
			snprintf(out->dep_state, sizeof(out->dep_state), "%s",
			    state);
			return 0;
		}
	}
	return 0;
}

/*
 * In dev-poll's order (the "priority" issues first, then the others,
 * each in the tools' order), the first issue not kept from the agent
 * whose dependencies are all closed; and the first one before it that
 * waits for a dependency.
 */
static int
statusforge_scan(struct statusforge *s, const struct backlog *b,
    struct statusforge_backlog *out)
{
	const struct backlog_issue *it;
	long long dep = 0;
	char dep_state[16] = "";
	size_t i;
	int pass;

	for (pass = 1; pass >= 0; pass--) {
		for (i = 0; i < b->n; i++) {
			it = &b->v[i];
			if (it->skip != NULL || it->priority != pass)
				continue;
			if (statusforge_open_dep(s, it, out) == -1)
				return -1;
			if (out->dep == 0) {
				out->ready = it->number;
				statusforge_copy(it->title, out->title,
				    sizeof(out->title));
				goto out;
			}
			if (out->waiting == 0) {
				out->waiting = it->number;
				dep = out->dep;
				memcpy(dep_state, out->dep_state,
				    sizeof(dep_state));
			}
		}
	}
out:
	out->dep = dep;
	memcpy(out->dep_state, dep_state, sizeof(dep_state));
	return 0;
}

int
statusforge_backlog(struct statusforge *s, struct statusforge_backlog *out)
{
	struct backlog b;
	int r;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	if (backlog_load(&b, s->f, 64) == -1) {
		backlog_free(&b);
		return statusforge_fail(s, forge_error(s->f));
	}
	out->n = b.n;
	r = statusforge_scan(s, &b, out);
	backlog_free(&b);
	return r;
}
