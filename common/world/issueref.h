/*
 * Which issue a pull request works on, read from its branch, title and
 * body as dev-poll.sh does.
 */
#ifndef ISSUEREF_H
#define ISSUEREF_H

/*
 * Return the issue number of a PR: the digits after "fix/issue-" in the
 * branch, else the last #N of the title, else the first "closes",
 * "fixes" or "resolves" #N of the body; 0 for a chore/gardener-,
 * chore/planner- or chore/predictor- branch without one; -1 when there is
 * none.  Any argument may be NULL.
 */
long long issueref_from_pr(const char *branch, const char *title,
    const char *body);

#endif
