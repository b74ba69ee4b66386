/*
 * The phase reader: any bytes give a known phase, NONE or UNKNOWN, with
 * the squeezed first line, the reason and the SHA as bounded strings;
 * the raw phase of a known one is its line (or the table's alias).
 */
#include <ctype.h>

#include "fuzz.h"
#include "phase.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct phase_info pi;
	size_t i, n;

	phase_parse((const char *)data, size, &pi);
	FUZZ_ASSERT(pi.phase >= PHASE_NONE && pi.phase < PHASE_COUNT);
	FUZZ_ASSERT(memchr(pi.raw, '\0', sizeof(pi.raw)) != NULL);
	FUZZ_ASSERT(memchr(pi.reason, '\0', sizeof(pi.reason)) != NULL);
	FUZZ_ASSERT(memchr(pi.sha, '\0', sizeof(pi.sha)) != NULL);
	n = strlen(pi.raw);
	for (i = 0; i < n; i++)
		FUZZ_ASSERT(!isspace((unsigned char)pi.raw[i]));
	if (pi.phase == PHASE_NONE)
		FUZZ_ASSERT(n == 0);
	else if (pi.phase != PHASE_UNKNOWN) {
		/* Its line, or the one other spelling the table gives. */
		FUZZ_ASSERT(strcmp(pi.raw, phase_name(pi.phase)) == 0 ||
		    (phase_def(pi.phase)->alias != NULL &&
			strcmp(pi.raw, phase_def(pi.phase)->alias) == 0));
		FUZZ_ASSERT(pi.raw[0] == 'P');
	}
	FUZZ_ASSERT(phase_is_terminal(pi.phase) ==
	    (pi.phase == PHASE_DONE || pi.phase == PHASE_FAILED));
	return 0;
}
