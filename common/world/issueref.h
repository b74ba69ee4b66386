/*
 * Which issue a pull request works on, read from its branch, title and
 * body as dev-poll.sh does.
 */
#ifndef ISSUEREF_H
#define ISSUEREF_H

#include <stddef.h>

/*
 * Return the issue number of a PR: the digits after "fix/issue-" in the
 * branch, else the last #N of the title, else the first "closes",
 * "fixes" or "resolves" #N of the body; 0 for a chore/gardener-,
 * chore/planner- or chore/predictor- branch without one; -1 when there is
 * none.  Any argument may be NULL.
 */
long long issueref_from_pr(const char *branch, const char *title,
    const char *body);
/* Whether title (may be NULL) names #issue, not followed by a digit. */
int issueref_title_names(const char *title, long long issue);
/* Whether text (may be NULL) says "fixes #issue" (any case). */
int issueref_text_fixes(const char *text, long long issue);
/*
 * Each N of "fixes #N" (any case) in text (may be NULL), in order, into
 * *out (NULL when none; caller frees) and *n.
 */
void issueref_fixes(const char *text, long long **out, size_t *n);

#endif
