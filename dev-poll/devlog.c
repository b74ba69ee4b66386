/*
 * dev/dev-agent.log, the file upstream's readers look at (the AI
 * supervisor's preflight tails it, the dashboard takes its mtime as the
 * dev agent's last activity): a hard link to the dev log of the project
 * whose tick ran last, so that both read what the dev log says, at its
 * time, with no second copy of any line.  A file there that is no link
 * of ours (bash's own log) is kept as dev-agent.log.old first.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

static int devlog_relink(const char *, const char *);

/* Point shared at target: a new link renamed over it.  0 or -1. */
static int
devlog_relink(const char *target, const char *shared)
{
	char *tmp = xasprintf("%s.%ld.tmp", shared, (long)getpid());
	int r = -1;

	(void)unlink(tmp);
	if (link(target, tmp) == 0 && rename(tmp, shared) == 0)
		r = 0;
	else
		(void)unlink(tmp);
	free(tmp);
	return r;
}

void
dp_devlog_link(struct dev_ctx *c)
{
	char *target = runfiles_dev_log(c->cfg->project_name);
	char *shared = runfiles_dev_log_shared(), *old = NULL;
	struct stat ts, ss;

	if (c->act.dry_run || stat(target, &ts) == -1)
		goto out;
	if (lstat(shared, &ss) == 0) {
		if (ss.st_dev == ts.st_dev && ss.st_ino == ts.st_ino)
			goto out;
		/* Not a link to a dev log of ours: bash's, kept. */
		if (!S_ISREG(ss.st_mode) || ss.st_nlink == 1) {
			old = xasprintf("%s.old", shared);
			if (rename(shared, old) == -1) {
				log_warn("cannot rename '%s': %s", shared,
				    strerror(errno));
				goto out;
			}
		}
	}
	if (devlog_relink(target, shared) == -1)
		log_warn("cannot link '%s' to '%s': %s", shared, target,
		    strerror(errno));
out:
	free(old);
	free(shared);
	free(target);
}
