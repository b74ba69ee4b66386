/*
 * The phase reader: any bytes give a known phase, NONE or UNKNOWN, with
 * the squeezed first line and the reason as bounded strings; the raw
 * phase of a known one is its name (PHASE:merged: done).
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
	FUZZ_ASSERT(pi.phase >= PHASE_NONE && pi.phase <= PHASE_UNKNOWN);
	FUZZ_ASSERT(memchr(pi.raw, '\0', sizeof(pi.raw)) != NULL);
	FUZZ_ASSERT(memchr(pi.reason, '\0', sizeof(pi.reason)) != NULL);
	n = strlen(pi.raw);
	for (i = 0; i < n; i++)
		FUZZ_ASSERT(!isspace((unsigned char)pi.raw[i]));
	if (pi.phase == PHASE_NONE)
		FUZZ_ASSERT(n == 0);
	else if (pi.phase != PHASE_UNKNOWN) {
		/* PHASE:merged is the one other spelling of done. */
		FUZZ_ASSERT(strcmp(pi.raw, phase_name(pi.phase)) == 0 ||
		    (pi.phase == PHASE_DONE &&
			strcmp(pi.raw, "PHASE:merged") == 0));
		FUZZ_ASSERT(pi.raw[0] == 'P');
	}
	FUZZ_ASSERT(phase_is_terminal(pi.phase) ==
	    (pi.phase == PHASE_DONE || pi.phase == PHASE_FAILED));
	return 0;
}
