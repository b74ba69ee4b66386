/*
 * How often the review of one PR head was tried (P-review-tries-R: "SHA:"
 * and "TRIES:").  A review whose agent left no usable review is tried
 * again on later ticks, as review-poll.sh tried on every poll, but at
 * most RP_MAX_TRIES times per head; a new push starts over.  The count is
 * written (synced) before the try it counts, so a crash between the two
 * never grants an extra one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "config.h"
#include "file.h"
#include "log.h"
#include "record.h"
#include "review-poll.h"
#include "runfiles.h"

int
rp_tries_get(struct rp *rp, long long pr, const char *sha)
{
	char *path = runfiles_review_tries(rp->cfg->project_name, pr);
	char head[72];
	long long tries = 0;
	struct buf b;
	int r = 0;

	buf_init(&b, 0);
	if (record_load(path, &b) == -1) {
		if (errno != ENOENT) {
			log_warn("pr #%lld: cannot read '%s': %s", pr, path,
			    strerror(errno));
			r = -1;
		}
	} else if (record_get(buf_str(&b), "SHA:", head, sizeof(head)) == 0 &&
	    strcmp(head, sha) == 0 &&
	    record_get_ll(buf_str(&b), "TRIES:", &tries) == 0)
		r = tries > RP_MAX_TRIES ? RP_MAX_TRIES : (int)tries;
	buf_free(&b);
	free(path);
	return r;
}

int
rp_tries_set(struct rp *rp, long long pr, const char *sha, int tries)
{
	char *path = runfiles_review_tries(rp->cfg->project_name, pr);
	char text[128];
	int r;

	snprintf(text, sizeof(text), "SHA: %s\nTRIES: %d\n", sha, tries);
	r = act_write(&rp->act, path, text, 1);
	free(path);
	return r;
}

void
rp_tries_forget(struct rp *rp, long long pr)
{
	char *path = runfiles_review_tries(rp->cfg->project_name, pr);

	(void)act_remove(&rp->act, path);
	free(path);
}

int
rp_tries_sweep(struct rp *rp)
{
	long long *prs;
	size_t i, n;

	if (runfiles_review_tries_prs(rp->cfg->project_name, &prs, &n) == -1) {
		log_warn("cannot list the review try counts");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (rp_open_pull(rp, prs[i]) == NULL)
			rp_tries_forget(rp, prs[i]);
	free(prs);
	return 0;
}
