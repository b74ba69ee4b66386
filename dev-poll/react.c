/*
 * Phase reactions (DESIGN section 6): the step between the pre-lock
 * merges and the agent slot.  Today it only finds the project's phase
 * files; the reactions themselves (CI results, done, failed, idle and
 * crash detection and recovery) are the next piece of work and plug in
 * here, starting sessions again through dp_session_start().
 */
#include <glob.h>
#include <stdlib.h>

#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

int
dp_phase_issues(struct dev_ctx *c, long long **issues, size_t *n)
{
	char *pattern = runfiles_phase_glob(c->cfg->project_name);
	glob_t g;
	long long num;
	size_t i;
	int r;

	*issues = NULL;
	*n = 0;
	r = glob(pattern, 0, NULL, &g);
	if (r != 0 && r != GLOB_NOMATCH) {
		log_msg("cannot list '%s'", pattern);
		free(pattern);
		return -1;
	}
	if (r == 0) {
		*issues = xcalloc(g.gl_pathc + 1, sizeof(**issues));
		for (i = 0; i < g.gl_pathc; i++) {
			num = runfiles_phase_issue(c->cfg->project_name,
			    g.gl_pathv[i]);
			if (num > 0)
				(*issues)[(*n)++] = num;
		}
		globfree(&g);
	}
	free(pattern);
	return 0;
}

int
react_phases(struct dev_ctx *c)
{
	long long *issues;
	size_t n;

	if (dp_phase_issues(c, &issues, &n) == -1)
		return -1;
	if (c->verbose && n > 0)
		log_msg("react: %zu phase file(s), no reactions yet", n);
	free(issues);
	return 0;
}
