/*
 * Dependency cycles on any graph: the input's first byte is the number of
 * issues (1 to 64, ids 1..n), every later pair of bytes an edge "issue a
 * depends on issue b".  Each cycle reported is a real one: at least two
 * distinct issues, starting at its smallest, each depending on the next
 * and the last on the first.
 */
#include "cycles.h"
#include "fuzz.h"

#define FUZZ_MAX_NODES 64
#define FUZZ_MAX_DEPS 64

static int
fuzz_edge(const struct cycles_node *nodes, long long a, long long b)
{
	const struct cycles_node *n = &nodes[a - 1];
	size_t i;

	for (i = 0; i < n->ndeps; i++)
		if (n->deps[i] == b)
			return 1;
	return 0;
}

static void
fuzz_check(const struct cycles_node *nodes, size_t nn, const struct cycle *c)
{
	size_t i, j;
	char *text;

	FUZZ_ASSERT(c->n >= 2 && c->n <= nn);
	for (i = 0; i < c->n; i++) {
		FUZZ_ASSERT(c->ids[i] >= 1 && c->ids[i] <= (long long)nn);
		FUZZ_ASSERT(c->ids[i] >= c->ids[0]);
		for (j = 0; j < i; j++)
			FUZZ_ASSERT(c->ids[i] != c->ids[j]);
		FUZZ_ASSERT(
		    fuzz_edge(nodes, c->ids[i], c->ids[(i + 1) % c->n]));
	}
	text = cycles_format(c);
	FUZZ_ASSERT(text != NULL && text[0] == '#');
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static long long deps[FUZZ_MAX_NODES][FUZZ_MAX_DEPS];
	struct cycles_node nodes[FUZZ_MAX_NODES];
	struct cycle *out = NULL;
	size_t nn, i, nout = 0;

	if (size < 1)
		return 0;
	nn = data[0] % FUZZ_MAX_NODES + 1;
	for (i = 0; i < nn; i++) {
		nodes[i].id = (long long)i + 1;
		nodes[i].deps = deps[i];
		nodes[i].ndeps = 0;
	}
	for (i = 1; i + 1 < size; i += 2) {
		struct cycles_node *n = &nodes[data[i] % nn];

		/* Ids past n are dependencies on issues not in the set. */
		if (n->ndeps < FUZZ_MAX_DEPS)
			deps[n->id - 1][n->ndeps++] =
			    data[i + 1] % (nn + 4) + 1;
	}
	cycles_find(nodes, nn, &out, &nout);
	FUZZ_ASSERT((nout == 0) == (out == NULL));
	for (i = 0; i < nout; i++)
		fuzz_check(nodes, nn, &out[i]);
	cycles_free(out, nout);
	return 0;
}
