/*
 * The tick's open PRs: read once (every page), then looked up by number
 * or by the issue they work on.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "forge.h"
#include "issueref.h"
#include "json.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "woodpecker.h"
#include "xmalloc.h"

static void pulls_ci_scan(struct rp *);

int
rp_pulls_read(struct rp *rp)
{
	if (forge_pulls_list(rp->forge, "open", &rp->pulls) == -1) {
		log_warn("cannot list the open prs: %s",
		    forge_error(rp->forge));
		return -1;
	}
	log_msg("found %d open prs", cJSON_GetArraySize(rp->pulls));
	pulls_ci_scan(rp);
	return 0;
}

/*
 * One pipeline list for the CI states of every open PR's head, read
 * before any is asked for.  A failure is left to the per-PR reads,
 * which fall back on the forge's status.
 */
static void
pulls_ci_scan(struct rp *rp)
{
	const char **shas;
	const cJSON *p;
	size_t n = 0;

	if (rp->wp == NULL || cJSON_GetArraySize(rp->pulls) == 0)
		return;
	shas = xcalloc((size_t)cJSON_GetArraySize(rp->pulls), sizeof(*shas));
	cJSON_ArrayForEach (p, rp->pulls)
		shas[n++] = json_str_at(p, "head.sha");
	(void)woodpecker_scan(rp->wp, shas, n);
	free(shas);
}

const cJSON *
rp_open_pull(const struct rp *rp, long long pr)
{
	const cJSON *p;
	long long n;

	cJSON_ArrayForEach (p, rp->pulls) {
		if (json_int(p, "number", &n) == 0 && n == pr)
			return p;
	}
	return NULL;
}

const cJSON *
rp_issue_pull(const struct rp *rp, long long n)
{
	const cJSON *pr, *found = NULL;
	const char *ref;

	cJSON_ArrayForEach (pr, rp->pulls) {
		ref = json_str_at(pr, "head.ref");
		if (ref != NULL && runfiles_branch_issue(ref) == n)
			return pr;
		if (found == NULL &&
		    issueref_from_pr(ref, json_str(pr, "title"),
			json_str(pr, "body")) == n)
			found = pr;
	}
	return found;
}
