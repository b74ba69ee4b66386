/*
 * The verdict parser of review-poll (review-poll/verdict.c): any output
 * of a review agent gives no verdict (with a reason) or a verdict word of
 * capitals and '_', a one-line reason and a review text, neither holding
 * a marker; the comment posted for it reads back, as later ticks and the
 * other tools read it, as the same verdict for the same commit; an error
 * comment hides no review marker; reading any comment is safe.
 */
#include <ctype.h>

#include "fuzz.h"
#include "marks.h"
#include "review-poll.h"
#include "valid.h"

static const char fuzz_sha[] = "0123456789abcdef0123456789abcdef01234567";
static const char fuzz_prev[] = "89abcdef0123456789abcdef0123456789abcdef";

static void
fuzz_parsed(const struct rp_verdict *v, int round)
{
	char word[64], sha[72];
	char *body;
	size_t i;

	FUZZ_ASSERT(v->verdict[0] != '\0' && strlen(v->verdict) <= 32);
	for (i = 0; v->verdict[i] != '\0'; i++)
		FUZZ_ASSERT(isupper((unsigned char)v->verdict[i]) ||
		    v->verdict[i] == '_');
	FUZZ_ASSERT(v->reason != NULL && v->markdown != NULL);
	FUZZ_ASSERT(strchr(v->reason, '\n') == NULL);
	FUZZ_ASSERT(strchr(v->reason, '\r') == NULL);
	FUZZ_ASSERT(strstr(v->reason, "<!--") == NULL);
	FUZZ_ASSERT(strstr(v->markdown, "<!--") == NULL);
	FUZZ_ASSERT(rp_verdict_event(v->verdict) != NULL);
	body =
	    rp_review_comment(v, fuzz_sha, round > 1 ? fuzz_prev : "", round);
	FUZZ_ASSERT(marks_reviewed_sha(body, sha, sizeof(sha)) == 0);
	FUZZ_ASSERT(strcmp(sha, fuzz_sha) == 0);
	FUZZ_ASSERT(rp_comment_verdict(body, word, sizeof(word)) == 0);
	FUZZ_ASSERT(strcmp(word, v->verdict) == 0);
	free(body);
}

static void
fuzz_comment(const char *text)
{
	char word[64], sha[72];
	char *body;

	if (rp_comment_verdict(text, word, sizeof(word)) == 0)
		FUZZ_ASSERT(word[0] != '\0');
	if (marks_reviewed_sha(text, sha, sizeof(sha)) == 0)
		FUZZ_ASSERT(valid_sha(sha) == NULL);
	body = rp_error_comment(fuzz_sha, text);
	FUZZ_ASSERT(marks_reviewed_sha(body, sha, sizeof(sha)) == -1);
	FUZZ_ASSERT(strstr(body, "<!-- review-error: ") != NULL);
	free(body);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rp_verdict v;
	char err[160], *text;

	err[0] = '\0';
	if (rp_verdict_parse((const char *)data, size, &v, err, sizeof(err)) ==
	    0) {
		fuzz_parsed(&v, (int)(size % 3));
		rp_verdict_free(&v);
	} else {
		FUZZ_ASSERT(err[0] != '\0');
		FUZZ_ASSERT(v.verdict == NULL && v.reason == NULL &&
		    v.markdown == NULL);
	}
	text = fuzz_cstr(data, size);
	fuzz_comment(text);
	free(text);
	return 0;
}
