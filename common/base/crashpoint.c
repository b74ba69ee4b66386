/*
 * The test-only crash points (crashpoint.h).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "crashpoint.h"
#include "xmalloc.h"

static char *crashpoint_points;

void
crashpoint_set(const char *points)
{
	free(crashpoint_points);
	crashpoint_points =
	    points != NULL && *points != '\0' ? xstrdup(points) : NULL;
}

const char *
crashpoint_get(void)
{
	return crashpoint_points;
}

void
crashpoint(const char *point)
{
	const char *p = crashpoint_points;
	size_t n = strlen(point), len;

	while (p != NULL && *p != '\0') {
		len = strcspn(p, ",");
		if (len == n && strncmp(p, point, n) == 0)
			raise(SIGKILL);
		p += len + (p[len] == ',');
	}
}
