/*
 * The PR memo's parser (a run file anyone with the run directory can
 * write): every line kept is well formed and found again by its own key
 * while fresh, written back by prmemo_put() it parses to the same fact,
 * and a key it does not hold is never found.
 */
#include <limits.h>
#include <string.h>

#include "buf.h"
#include "fuzz.h"
#include "prmemo.h"

/* m, through prmemo_put() and the parser, comes back the same. */
static void
round_trip(const struct prmemo *m)
{
	struct prmemo_set again;
	struct buf b;

	buf_init(&b, 0);
	if (prmemo_put(&b, m->pr, m->sha, (time_t)m->updated, m->fact,
		(time_t)m->at, (time_t)m->at) == 1) {
		prmemo_parse(&again, buf_str(&b));
		FUZZ_ASSERT(again.n == 1);
		FUZZ_ASSERT(again.v[0].pr == m->pr &&
		    again.v[0].updated == m->updated && again.v[0].at == m->at);
		FUZZ_ASSERT(strcmp(again.v[0].sha, m->sha) == 0);
		FUZZ_ASSERT(strcmp(again.v[0].fact, m->fact) == 0);
		prmemo_free(&again);
	}
	buf_free(&b);
}

/* Whether the i-th fact is its PR's only one. */
static int
alone(const struct prmemo_set *s, size_t i)
{
	return (i == 0 || s->v[i - 1].pr != s->v[i].pr) &&
	    (i + 1 == s->n || s->v[i + 1].pr != s->v[i].pr);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	const struct prmemo *m;
	struct prmemo_set s;
	size_t i;

	prmemo_parse(&s, text);
	FUZZ_ASSERT(strcmp(s.was, text) == 0);
	for (i = 0; i < s.n; i++) {
		m = &s.v[i];
		FUZZ_ASSERT(m->pr > 0 && m->updated > 0 && m->at > 0);
		FUZZ_ASSERT(strlen(m->sha) >= 7 && strlen(m->fact) >= 1);
		FUZZ_ASSERT(strchr(m->sha, ' ') == NULL);
		FUZZ_ASSERT(i == 0 || s.v[i - 1].pr <= m->pr);
		round_trip(m);
		/* A head no line can hold is never found. */
		FUZZ_ASSERT(prmemo_find(&s, m->pr, "not-a-sha",
				(time_t)m->updated, (time_t)m->at) == NULL);
		if (!alone(&s, i) || m->at > LLONG_MAX - PRMEMO_MAX_AGE)
			continue;
		/* Found by its own key while fresh, not once too old. */
		FUZZ_ASSERT(prmemo_find(&s, m->pr, m->sha, (time_t)m->updated,
				(time_t)m->at) == m);
		FUZZ_ASSERT(prmemo_find(&s, m->pr, m->sha, (time_t)m->updated,
				(time_t)(m->at + PRMEMO_MAX_AGE)) == NULL);
	}
	prmemo_free(&s);
	free(text);
	return 0;
}
