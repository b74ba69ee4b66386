/*
 * Cycle detection over the dependency graph of the backlog: an iterative
 * depth-first search that records every back edge it meets as a cycle.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cycles.h"
#include "xmalloc.h"

enum { WHITE, ON_PATH, DONE };

/* A node's id and index, for the sorted lookup table. */
struct entry {
	long long id;
	size_t idx;
};

struct search {
	const struct cycles_node *nodes;
	size_t n;
	struct entry *order; /* nodes by ascending id */
	unsigned char *color;
	size_t *path; /* node indices on the current path */
	size_t *next; /* per path entry: the next dependency to follow */
	size_t depth;
	struct cycle *out;
	size_t nout;
};

static int cycles_by_id(const void *, const void *);
static int cycles_cmp_ll(const void *, const void *);
static int cycles_lookup(const struct search *, long long, size_t *);
static void cycles_record(struct search *, size_t);
static int cycles_seen(const struct search *, const long long *, size_t);
static void cycles_walk(struct search *, size_t);

static int
cycles_by_id(const void *a, const void *b)
{
	long long x = ((const struct entry *)a)->id;
	long long y = ((const struct entry *)b)->id;

	return x < y ? -1 : x > y;
}

static int
cycles_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The index of the node called id in *idx: 0, or -1 when there is none. */
static int
cycles_lookup(const struct search *s, long long id, size_t *idx)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		long long v = s->order[mid].id;

		if (v == id) {
			*idx = s->order[mid].idx;
			return 0;
		}
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* 1 when a cycle over the same set of issues (sorted in key) was kept. */
static int
cycles_seen(const struct search *s, const long long *key, size_t n)
{
	size_t i;
	long long *other;
	int same;

	for (i = 0; i < s->nout; i++) {
		if (s->out[i].n != n)
			continue;
		other = xreallocarray(NULL, n, sizeof(*other));
		memcpy(other, s->out[i].ids, n * sizeof(*other));
		qsort(other, n, sizeof(*other), cycles_cmp_ll);
		same = memcmp(other, key, n * sizeof(*other)) == 0;
		free(other);
		if (same)
			return 1;
	}
	return 0;
}

/* Keep the cycle formed by the path from position from to its end. */
static void
cycles_record(struct search *s, size_t from)
{
	size_t n = s->depth - from, i, min = 0;
	long long *ids = xreallocarray(NULL, n, sizeof(*ids));
	long long *key = xreallocarray(NULL, n, sizeof(*key));

	for (i = 0; i < n; i++) {
		key[i] = s->nodes[s->path[from + i]].id;
		if (key[i] < key[min])
			min = i;
	}
	for (i = 0; i < n; i++)
		ids[i] = key[(min + i) % n];
	qsort(key, n, sizeof(*key), cycles_cmp_ll);
	if (cycles_seen(s, key, n)) {
		free(ids);
		free(key);
		return;
	}
	free(key);
	s->out = xreallocarray(s->out, s->nout + 1, sizeof(*s->out));
	s->out[s->nout].ids = ids;
	s->out[s->nout].n = n;
	s->nout++;
}

/* Depth-first search from root, with an explicit stack. */
static void
cycles_walk(struct search *s, size_t root)
{
	s->depth = 0;
	s->path[s->depth] = root;
	s->next[s->depth++] = 0;
	s->color[root] = ON_PATH;
	while (s->depth > 0) {
		size_t top = s->path[s->depth - 1], j, k;
		const struct cycles_node *node = &s->nodes[top];
		long long dep;

		if (s->next[s->depth - 1] >= node->ndeps) {
			s->color[top] = DONE;
			s->depth--;
			continue;
		}
		dep = node->deps[s->next[s->depth - 1]++];
		if (dep == node->id || cycles_lookup(s, dep, &j) == -1)
			continue;
		if (s->color[j] == ON_PATH) {
			for (k = s->depth; k > 0 && s->path[k - 1] != j; k--)
				;
			cycles_record(s, k - 1);
		} else if (s->color[j] == WHITE) {
			s->color[j] = ON_PATH;
			s->path[s->depth] = j;
			s->next[s->depth++] = 0;
		}
	}
}

void
cycles_find(const struct cycles_node *nodes, size_t n, struct cycle **out,
    size_t *nout)
{
	struct search s;
	size_t i;

	memset(&s, 0, sizeof(s));
	*out = NULL;
	*nout = 0;
	if (n == 0)
		return;
	s.nodes = nodes;
	s.n = n;
	s.order = xreallocarray(NULL, n, sizeof(*s.order));
	s.color = xcalloc(n, 1);
	s.path = xreallocarray(NULL, n, sizeof(*s.path));
	s.next = xreallocarray(NULL, n, sizeof(*s.next));
	for (i = 0; i < n; i++) {
		s.order[i].id = nodes[i].id;
		s.order[i].idx = i;
	}
	qsort(s.order, n, sizeof(*s.order), cycles_by_id);
	for (i = 0; i < n; i++)
		if (s.color[s.order[i].idx] == WHITE)
			cycles_walk(&s, s.order[i].idx);
	free(s.order);
	free(s.color);
	free(s.path);
	free(s.next);
	*out = s.out;
	*nout = s.nout;
}

void
cycles_free(struct cycle *cycles, size_t n)
{
	size_t i;

	for (i = 0; i < n && cycles != NULL; i++)
		free(cycles[i].ids);
	free(cycles);
}

char *
cycles_format(const struct cycle *c)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; i < c->n; i++)
		buf_printf(&b, "#%lld -> ", c->ids[i]);
	if (c->n > 0)
		buf_printf(&b, "#%lld", c->ids[0]);
	return buf_steal(&b);
}
