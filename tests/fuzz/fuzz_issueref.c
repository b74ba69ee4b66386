/*
 * The issue reference of a PR, from branch, title and body (the input's
 * first three NUL-separated fields): -1, 0, or a number of at most
 * 2^53-1 written in one of them.
 */
#include "fuzz.h"
#include "issueref.h"
#include "valid.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0;
	char *branch = fuzz_field(data, size, &pos);
	char *title = fuzz_field(data, size, &pos);
	char *body = fuzz_field(data, size, &pos);
	long long r;
	char num[32];

	r = issueref_from_pr(branch, title, body);
	FUZZ_ASSERT(r >= -1 && r <= VALID_NUMBER_MAX);
	if (r > 0) {
		snprintf(num, sizeof(num), "%lld", r);
		FUZZ_ASSERT((branch != NULL && strstr(branch, num) != NULL) ||
		    (title != NULL && strstr(title, num) != NULL) ||
		    (body != NULL && strstr(body, num) != NULL));
	}
	if (r == 0)
		FUZZ_ASSERT(
		    branch != NULL && strncmp(branch, "chore/", 6) == 0);
	free(branch);
	free(title);
	free(body);
	return 0;
}
