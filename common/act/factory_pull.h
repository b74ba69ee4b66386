/*
 * The factory's own checkout, pulled as bash's dev-agent.sh and
 * review-pr.sh pulled it at each launch ("git -C $FACTORY_ROOT pull
 * --ff-only origin main"), so that upstream's fixes to the scripts and
 * formulas that stay keep arriving; never when the checkout has local
 * changes, and never across a file the executables replaced
 * (make install-factory's filter): those wait for the operator.
 */
#ifndef FACTORY_PULL_H
#define FACTORY_PULL_H

struct act;

/* The remote and branch bash pulled from. */
#define FACTORY_PULL_REMOTE "origin"
#define FACTORY_PULL_BRANCH "main"

/*
 * Pull root (FACTORY_ROOT) once per process, fast-forward only.  Not a
 * git checkout, no such remote or branch, local changes, upstream
 * changes to a replaced script, a fetch that fails: logged once and left
 * alone.  Never fails a tick.  Returns 1 when it moved, else 0.
 */
int factory_pull(struct act *, const char *root);

#endif
