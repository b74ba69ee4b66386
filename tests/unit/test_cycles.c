/*
 * Tests for dependency cycle detection, over graphs built as the
 * supervisor builds them (deps_parse on issue bodies) and by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "cycles.h"
#include "deps.h"
#include "xmalloc.h"

/* Run cycles_find and join the formatted cycles with "; ". */
static char *
found(const struct cycles_node *nodes, size_t n)
{
	struct cycle *c;
	size_t nc, i;
	char *text = xstrdup(""), *one, *joined;

	cycles_find(nodes, n, &c, &nc);
	for (i = 0; i < nc; i++) {
		one = cycles_format(&c[i]);
		joined = xasprintf("%s%s%s", text, i ? "; " : "", one);
		free(one);
		free(text);
		text = joined;
	}
	cycles_free(c, nc);
	return text;
}

static void
test_none(void)
{
	static const long long d1[] = {2}, d2[] = {3};
	struct cycles_node nodes[] = {{1, d1, 1}, {2, d2, 1}, {3, NULL, 0}};
	char *t = found(nodes, 3);

	CHECK_STR(t, "");
	free(t);
	t = found(NULL, 0);
	CHECK_STR(t, "");
	free(t);
}

static void
test_two_and_three(void)
{
	static const long long d1[] = {2}, d2[] = {1}, d5[] = {6}, d6[] = {7},
			       d7[] = {5};
	struct cycles_node nodes[] = {{7, d7, 1}, {2, d2, 1}, {6, d6, 1},
	    {1, d1, 1}, {5, d5, 1}};
	char *t = found(nodes, 5);

	CHECK_STR(t, "#1 -> #2 -> #1; #5 -> #6 -> #7 -> #5");
	free(t);
}

static void
test_self_and_outside(void)
{
	/* #4 depends on itself and on #99, which is not in the backlog. */
	static const long long d4[] = {4, 99}, d8[] = {4};
	struct cycles_node nodes[] = {{4, d4, 2}, {8, d8, 1}};
	char *t = found(nodes, 2);

	CHECK_STR(t, "");
	free(t);
}

static void
test_reported_once(void)
{
	/*
	 * 1 -> 2 -> 3 -> 1, reachable from two roots and entered at several
	 * points; also 2 <-> 3 as its own cycle.
	 */
	static const long long d1[] = {2}, d2[] = {3}, d3[] = {1, 2},
			       d9[] = {3, 2};
	struct cycles_node nodes[] = {{9, d9, 2}, {3, d3, 2}, {2, d2, 1},
	    {1, d1, 1}};
	char *t = found(nodes, 4);

	CHECK_STR(t, "#1 -> #2 -> #3 -> #1; #2 -> #3 -> #2");
	free(t);
}

static void
test_from_bodies(void)
{
	static const struct {
		long long n;
		const char *body;
	} issues[] = {
	    {10, "## Dependencies\n- #11\n"},
	    {11, "Blocked by #12 and depends on #11 itself"},
	    {12, "## Depends on\n- #10\n- #13\n"},
	    {13, "```\ndepends on #10\n```\n"},
	    {14, "## Related\n- #10\n"},
	};
	struct cycles_node nodes[5];
	long long *deps[5];
	size_t i, n;
	char *t;

	for (i = 0; i < 5; i++) {
		CHECK_INT(deps_parse(issues[i].body, issues[i].n, &deps[i], &n),
		    0);
		nodes[i].id = issues[i].n;
		nodes[i].deps = deps[i];
		nodes[i].ndeps = n;
	}
	t = found(nodes, 5);
	CHECK_STR(t, "#10 -> #11 -> #12 -> #10");
	free(t);
	for (i = 0; i < 5; i++)
		free(deps[i]);
}

static void
test_long_chain(void)
{
	/* A long path ending in a loop: no recursion depth to run out of. */
	enum { N = 20000 };
	struct cycles_node *nodes = xcalloc(N, sizeof(*nodes));
	long long *deps = xcalloc(N, sizeof(*deps));
	struct cycle *c;
	size_t nc, i;

	for (i = 0; i < N; i++) {
		deps[i] = i + 1 < N ? (long long)i + 2 : N - 1;
		nodes[i].id = (long long)i + 1;
		nodes[i].deps = &deps[i];
		nodes[i].ndeps = 1;
	}
	cycles_find(nodes, N, &c, &nc);
	CHECK_INT(nc, 1);
	if (nc == 1) {
		CHECK_INT(c[0].n, 2);
		CHECK_INT(c[0].ids[0], N - 1);
	}
	cycles_free(c, nc);
	free(nodes);
	free(deps);
}

int
main(void)
{
	RUN(test_none);
	RUN(test_two_and_three);
	RUN(test_self_and_outside);
	RUN(test_reported_once);
	RUN(test_from_bodies);
	RUN(test_long_chain);
	return check_main();
}
