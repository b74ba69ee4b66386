/*
 * The tick's open PRs: read once (every page), then looked up by number
 * or by the issue they work on.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "forge.h"
#include "issueref.h"
#include "json.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"

int
rp_pulls_read(struct rp *rp)
{
	if (forge_pulls_list(rp->forge, "open", &rp->pulls) == -1) {
		log_warn("cannot list the open prs: %s",
		    forge_error(rp->forge));
		return -1;
	}
	log_msg("found %d open prs", cJSON_GetArraySize(rp->pulls));
	return 0;
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
