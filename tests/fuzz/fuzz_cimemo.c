/*
 * The CI memo's parser (run files anyone with the run directory can
 * write: the memo and the marks): every entry kept is well formed,
 * unique and sorted by SHA and found again by it, every mark likewise,
 * an entry set from it parses back the same through the file's text,
 * and cimemo_due() answers for any times.
 */
#include <string.h>

#include "buf.h"
#include "cimemo.h"
#include "fuzz.h"

/* e, written as a memo line and parsed again, comes back the same. */
static void
round_trip(const struct cimemo_entry *e)
{
	struct cimemo again;
	struct buf b;

	buf_init(&b, 0);
	buf_printf(&b, "%s %s %d %lld %lld\n", e->sha, ci_state_name(e->state),
	    e->final, e->since, e->at);
	cimemo_parse(&again, buf_str(&b), NULL);
	FUZZ_ASSERT(again.n == 1);
	FUZZ_ASSERT(strcmp(again.v[0].sha, e->sha) == 0);
	FUZZ_ASSERT(again.v[0].state == e->state &&
	    again.v[0].final == e->final && again.v[0].since == e->since &&
	    again.v[0].at == e->at);
	cimemo_free(&again);
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	const struct cimemo_entry *e;
	struct cimemo c;
	size_t i;

	/* The same text as the memo and as the marks. */
	cimemo_parse(&c, text, text);
	for (i = 0; i < c.n; i++) {
		e = &c.v[i];
		FUZZ_ASSERT(cimemo_sha_ok(e->sha));
		FUZZ_ASSERT(e->state != CI_UNKNOWN);
		FUZZ_ASSERT(e->since >= 0 && e->at >= 0);
		FUZZ_ASSERT(i == 0 || strcmp(c.v[i - 1].sha, e->sha) < 0);
		FUZZ_ASSERT(cimemo_find(&c, e->sha) == e);
		round_trip(e);
		(void)cimemo_due(e, e->at, (time_t)e->at);
		(void)cimemo_due(e, 0, (time_t)e->since);
	}
	for (i = 0; i < c.nmarks; i++) {
		FUZZ_ASSERT(cimemo_sha_ok(c.marks[i].sha));
		FUZZ_ASSERT(
		    i == 0 || strcmp(c.marks[i - 1].sha, c.marks[i].sha) < 0);
		FUZZ_ASSERT(cimemo_marked(&c, c.marks[i].sha) == c.marks[i].at);
	}
	FUZZ_ASSERT(cimemo_find(&c, "not-a-sha") == NULL);
	cimemo_free(&c);
	free(text);
	return 0;
}
