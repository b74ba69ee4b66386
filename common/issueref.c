/*
 * Issue number of a pull request.
 */
#include "issueref.h"

long long
issueref_from_pr(const char *branch, const char *title, const char *body)
{
	(void)branch; (void)title; (void)body;
	return -1;
}
