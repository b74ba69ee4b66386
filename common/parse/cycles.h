/*
 * Dependency cycles among issues: a set of issues each waiting on the next
 * can never be scheduled, so the supervisor reports them.
 */
#ifndef CYCLES_H
#define CYCLES_H

#include <stddef.h>

/* One issue and the issues it depends on. */
struct cycles_node {
	long long id;
	const long long *deps;
	size_t ndeps;
};

/* One cycle: the issues along it, each once, starting at the smallest. */
struct cycle {
	long long *ids;
	size_t n;
};

/*
 * Find the cycles a depth-first search over nodes meets (every graph with
 * a cycle yields at least one).  Dependencies on issues that are not among
 * nodes, and an issue depending on itself, are ignored.  Each set of
 * issues is reported once.  Nodes are visited by ascending id and their
 * dependencies in the order given, so the result is deterministic.  *out
 * (free with cycles_free()) receives *nout cycles; *out is NULL when there
 * are none.
 */
void cycles_find(const struct cycles_node *nodes, size_t n, struct cycle **out,
    size_t *nout);
void cycles_free(struct cycle *cycles, size_t n);
/* The cycle as text, "#3 -> #5 -> #3".  Caller frees. */
char *cycles_format(const struct cycle *);

#endif
