/*
 * The redactor: any text gives a string, and redacting it again changes
 * nothing (a secret left in the output would be found the second time).
 */
#include "fuzz.h"
#include "redact.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *once, *twice;

	once = redact_secrets(text);
	FUZZ_ASSERT(once != NULL);
	twice = redact_secrets(once);
	FUZZ_ASSERT(twice != NULL && strcmp(once, twice) == 0);
	free(twice);
	free(once);
	free(text);
	return 0;
}
