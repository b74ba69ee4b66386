/*
 * An issue's launch back-off: the record's text and the schedule.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backoff.h"
#include "buf.h"
#include "record.h"
#include "termsafe.h"
#include "utf8.h"
#include "xmalloc.h"

long long
backoff_delay(long long failures)
{
	long long d = BACKOFF_FIRST_S;

	while (--failures > 0 && d < BACKOFF_MAX_S)
		d *= 2;
	return d < BACKOFF_MAX_S ? d : BACKOFF_MAX_S;
}

int
backoff_read(const char *path, struct backoff *b)
{
	long long next = 0;
	struct buf t;
	int r = 0;

	memset(b, 0, sizeof(*b));
	buf_init(&t, 0);
	if (record_load(path, &t) == 0) {
		if (record_get_ll(buf_str(&t), "FAILURES:", &b->failures) ==
			-1 ||
		    b->failures < 0)
			b->failures = 0;
		(void)record_get_ll(buf_str(&t), "NEXT:", &next);
		b->next = (time_t)next;
		(void)record_get(buf_str(&t), "REASON:", b->reason,
		    sizeof(b->reason));
	} else if (errno != ENOENT)
		r = -1;
	buf_free(&t);
	return r;
}

void
backoff_fail(struct backoff *b, time_t now, const char *reason)
{
	struct buf line;
	size_t n;

	b->failures++;
	b->next = now + (time_t)backoff_delay(b->failures);
	buf_init(&line, 0);
	/* Room for the cut's own marker. */
	termsafe_line(reason, strlen(reason), sizeof(b->reason) - 48, &line);
	n = utf8_prefix_len(buf_str(&line), line.len, sizeof(b->reason) - 1);
	memcpy(b->reason, buf_str(&line), n);
	b->reason[n] = '\0';
	buf_free(&line);
}

char *
backoff_text(const struct backoff *b)
{
	return xasprintf("FAILURES: %lld\nNEXT: %lld\nREASON: %s\n",
	    b->failures, (long long)b->next, b->reason);
}
