/*
 * The hidden markers of the tools' forge comments: see marks.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks.h"
#include "valid.h"
#include "xmalloc.h"

#define MARKS_KEY_MAX 200
#define MARKS_REVIEWED_OPEN "<!-- reviewed: "
#define MARKS_ERROR_OPEN "<!-- review-error: "
#define MARKS_DEV_RESPONSE "<!-- dev-response:"
#define MARKS_CLOSE " -->"

char *
marks_key(const char *key)
{
	char safe[MARKS_KEY_MAX + 1];
	size_t i;

	for (i = 0; key[i] != '\0' && i < MARKS_KEY_MAX; i++) {
		safe[i] = key[i];
		if (strchr("<>!\\", key[i]) != NULL ||
		    (unsigned char)key[i] < 0x20 || key[i] == 0x7f ||
		    (key[i] == '-' && i > 0 && safe[i - 1] == '-'))
			safe[i] = '_';
	}
	safe[i] = '\0';
	return xasprintf("<!-- disinto: %s -->", safe);
}

char *
marks_reviewed(const char *sha)
{
	return xasprintf("%s%s%s", MARKS_REVIEWED_OPEN, sha, MARKS_CLOSE);
}

char *
marks_review_error(const char *sha)
{
	return xasprintf("%s%s%s", MARKS_ERROR_OPEN, sha, MARKS_CLOSE);
}

int
marks_reviewed_sha(const char *body, char *out, size_t outsz)
{
	const char *p;
	size_t n = 0;

	if (body == NULL || outsz == 0 ||
	    (p = strstr(body, MARKS_REVIEWED_OPEN)) == NULL)
		return -1;
	p += strlen(MARKS_REVIEWED_OPEN);
	while (isxdigit((unsigned char)p[n]) && n < outsz - 1)
		n++;
	if (n < 7 || strncmp(p + n, MARKS_CLOSE, strlen(MARKS_CLOSE)) != 0)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return valid_sha(out) == NULL ? 0 : -1;
}

int
marks_review_comment(const char *body)
{
	return body != NULL &&
	    strncmp(body, MARKS_REVIEW_HEADING, strlen(MARKS_REVIEW_HEADING)) ==
	    0;
}

int
marks_has_reviewed(const char *body)
{
	return marks_in(body, MARKS_REVIEWED_OPEN);
}

int
marks_dev_response(const char *body)
{
	return marks_in(body, MARKS_DEV_RESPONSE);
}

char *
marks_escalation(const char *kind, const char *project, long long issue,
    long long since)
{
	return xasprintf("<!-- %s: %s-%lld -->\n<!-- escalation-at: %lld -->",
	    kind, project, issue, since);
}

char *
marks_pr_closed(long long pr)
{
	return xasprintf("<!-- dev-poll: PR #%lld closed unmerged -->", pr);
}

char *
marks_refusal(const char *status)
{
	return xasprintf("<!-- dev-refusal: %.60s -->", status);
}

char *
marks_diagnostic(const char *project, long long issue, long long at)
{
	return xasprintf("<!-- dev-diagnostic: %s-%lld-%lld -->", project,
	    issue, at);
}

int
marks_in(const char *body, const char *mark)
{
	return body != NULL && strstr(body, mark) != NULL;
}
