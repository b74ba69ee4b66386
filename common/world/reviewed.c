/*
 * The one rule for "reviewed": see reviewed.h.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "forge.h"
#include "marks.h"
#include "reviewed.h"
#include "reviewers.h"

static enum reviewed_state reviewed_state_of(const char *);

/* The verdict a review's state gives, REVIEWED_NONE for any other state. */
static enum reviewed_state
reviewed_state_of(const char *state)
{
	if (state == NULL)
		return REVIEWED_NONE;
	if (strcmp(state, "APPROVED") == 0)
		return REVIEWED_APPROVED;
	if (strcmp(state, "REQUEST_CHANGES") == 0)
		return REVIEWED_CHANGES;
	return REVIEWED_NONE;
}

int
reviewed_verdict(const cJSON *reviews, const char *head, long long pr,
    struct reviewers *rv, struct reviewed_verdict *out)
{
	struct forge_review r;
	enum reviewed_state st;
	const cJSON *it;
	int counts;

	memset(out, 0, sizeof(*out));
	out->state = REVIEWED_NONE;
	if (head == NULL)
		return 0;
	cJSON_ArrayForEach (it, reviews) {
		forge_review_view(it, &r);
		if ((st = reviewed_state_of(r.state)) == REVIEWED_NONE ||
		    r.dismissed || r.commit == NULL ||
		    strcmp(r.commit, head) != 0)
			continue;
		if ((counts = reviewers_count(rv, r.author, pr, r.state)) == -1)
			return -1;
		if (!counts)
			out->ignored = 1;
		else if (out->state == REVIEWED_NONE || r.id > out->id) {
			out->state = st;
			out->id = r.id;
			out->author = r.author;
		}
	}
	return 0;
}

int
reviewed_comment(const cJSON *comments, const char *head, long long pr,
    struct reviewers *rv, const cJSON **out)
{
	struct forge_comment c;
	const cJSON *it;
	char *mark;
	int counts, r = 0;

	*out = NULL;
	if (head == NULL)
		return 0;
	mark = marks_reviewed(head);
	cJSON_ArrayForEach (it, comments) {
		forge_comment_view(it, &c);
		if (!marks_review_comment(c.body) || !marks_in(c.body, mark))
			continue;
		if ((counts = reviewers_count(rv, c.author, pr,
			 "a review comment")) == -1) {
			r = -1;
			*out = NULL;
			break;
		}
		if (counts)
			*out = it;
	}
	free(mark);
	return r;
}

const char *
reviewed_name(enum reviewed_state st)
{
	switch (st) {
	case REVIEWED_APPROVED:
		return "approved";
	case REVIEWED_CHANGES:
		return "changes requested";
	case REVIEWED_NONE:
		break;
	}
	return "none";
}
