/*
 * The dependency parser: the numbers found are positive, at most
 * 2^53-1, ascending, unique, never the issue itself, and each is written
 * in the body.
 */
#include "deps.h"
#include "fuzz.h"
#include "valid.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long long *deps = NULL, self = 7;
	char *body = fuzz_cstr(data, size), num[32];
	size_t i, n = 99;

	FUZZ_ASSERT(deps_parse(body, self, &deps, &n) == 0);
	FUZZ_ASSERT((n == 0) == (deps == NULL));
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(deps[i] > 0 && deps[i] != self);
		FUZZ_ASSERT(deps[i] <= VALID_NUMBER_MAX);
		FUZZ_ASSERT(i == 0 || deps[i - 1] < deps[i]);
		snprintf(num, sizeof(num), "%lld", deps[i]);
		FUZZ_ASSERT(strstr(body, num) != NULL);
	}
	free(deps);
	free(body);
	FUZZ_ASSERT(deps_parse(NULL, self, &deps, &n) == 0 && n == 0);
	return 0;
}
