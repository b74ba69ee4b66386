/*
 * Woodpecker step logs: the first two bytes of the input choose the line
 * and byte limits, the rest is the API's JSON array of log entries.  The
 * text kept is a tail of the whole log within both limits.
 */
#include "fuzz.h"
#include "woodpecker.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max_lines, max_bytes, na, nt, lines = 0;
	char *all, *tail, *p;
	cJSON *root;

	if (size < 2)
		return 0;
	max_lines = data[0] % 16;
	max_bytes = data[1] % 8 == 0 ? 0 : (size_t)data[1] * 4;
	root = cJSON_ParseWithLength((const char *)data + 2, size - 2);
	if (root == NULL)
		return 0;
	all = woodpecker_log_text(root, 0, 0);
	tail = woodpecker_log_text(root, max_bytes, max_lines);
	FUZZ_ASSERT(all != NULL && tail != NULL);
	na = strlen(all);
	nt = strlen(tail);
	FUZZ_ASSERT(nt <= na && strcmp(all + na - nt, tail) == 0);
	if (max_bytes > 0)
		FUZZ_ASSERT(nt <= max_bytes);
	for (p = tail; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	if (max_lines > 0)
		FUZZ_ASSERT(lines <= max_lines);
	free(tail);
	free(all);
	cJSON_Delete(root);
	return 0;
}
