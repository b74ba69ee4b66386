/*
 * A project's pause after an API error, and a session's record of the
 * error (see apipause.h): their texts and the pause's schedule.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apipause.h"
#include "buf.h"
#include "log.h"
#include "record.h"
#include "xmalloc.h"

static void apipause_name(char *, size_t, const char *);
static void apipause_until(struct apipause *, const struct apierr *, time_t);

long long
apipause_delay(long long count)
{
	long long d = APIPAUSE_FIRST_S;

	while (--count > 0 && d < APIPAUSE_MAX_S)
		d *= 2;
	return d < APIPAUSE_MAX_S ? d : APIPAUSE_MAX_S;
}

/* An error's name for a record: [a-z0-9_] only, "unknown" when empty. */
static void
apipause_name(char *out, size_t outsz, const char *name)
{
	size_t n = 0;

	for (; *name != '\0' && n + 1 < outsz; name++)
		if ((*name >= 'a' && *name <= 'z') ||
		    (*name >= '0' && *name <= '9') || *name == '_')
			out[n++] = *name;
	out[n] = '\0';
	if (n == 0)
		snprintf(out, outsz, "unknown");
}

int
apierr_read(const char *path, struct apierr *e)
{
	char name[sizeof(e->error)];
	long long v;
	struct buf t;
	int r = 1;

	memset(e, 0, sizeof(*e));
	buf_init(&t, 0);
	if (record_load(path, &t) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	if (record_get(buf_str(&t), "ERROR:", name, sizeof(name)) == -1)
		name[0] = '\0';
	apipause_name(e->error, sizeof(e->error), name);
	if (record_get_ll(buf_str(&t), "AT:", &v) == 0 && v > 0)
		e->at = (time_t)v;
	if (record_get_ll(buf_str(&t), "RESET:", &v) == 0 && v > 0)
		e->reset = (time_t)v;
	if (record_get(buf_str(&t), "SOURCE:", name, sizeof(name)) == 0)
		apipause_name(e->source, sizeof(e->source), name);
out:
	buf_free(&t);
	return r;
}

char *
apierr_text(const struct apierr *e)
{
	char name[sizeof(e->error)], source[sizeof(e->source)];

	apipause_name(name, sizeof(name), e->error);
	apipause_name(source, sizeof(source), e->source);
	return xasprintf("ERROR: %s\nAT: %lld\nRESET: %lld\nSOURCE: %s\n", name,
	    (long long)e->at, (long long)e->reset, source);
}

int
apipause_read(const char *path, struct apipause *p)
{
	char name[sizeof(p->reason)];
	long long v;
	struct buf t;
	int r = 0;

	memset(p, 0, sizeof(*p));
	p->retry_after = -1;
	buf_init(&t, 0);
	if (record_load(path, &t) == -1) {
		r = errno == ENOENT ? 0 : -1;
		goto out;
	}
	if (record_get_ll(buf_str(&t), "SINCE:", &v) == 0 && v > 0)
		p->since = (time_t)v;
	if (record_get_ll(buf_str(&t), "UNTIL:", &v) == 0 && v > 0)
		p->until = (time_t)v;
	if (record_get_ll(buf_str(&t), "COUNT:", &v) == 0 && v > 0)
		p->count = v;
	if (record_get_ll(buf_str(&t), "RESUMED:", &v) == 0 && v > 0)
		p->resumed = (time_t)v;
	if (record_get_ll(buf_str(&t), "PROBED:", &v) == 0 && v > 0)
		p->probed = (time_t)v;
	if (record_get_ll(buf_str(&t), "PROBE:", &v) == 0 && v > 0 && v < 1000)
		p->probe = (long)v;
	p->retry_after = -1;
	if (record_get_ll(buf_str(&t), "RETRY_AFTER:", &v) == 0 && v >= 0)
		p->retry_after = v;
	if (record_get(buf_str(&t), "REASON:", name, sizeof(name)) == -1)
		name[0] = '\0';
	apipause_name(p->reason, sizeof(p->reason), name);
	/* A record without its start is none. */
	if (p->since == 0) {
		memset(p, 0, sizeof(*p));
		p->retry_after = -1;
	} else if (p->count == 0)
		p->count = 1;
out:
	buf_free(&t);
	return r;
}

char *
apipause_text(const struct apipause *p)
{
	char name[sizeof(p->reason)];

	apipause_name(name, sizeof(name), p->reason);
	return xasprintf("SINCE: %lld\nUNTIL: %lld\nREASON: %s\nCOUNT: %lld\n"
			 "RESUMED: %lld\nPROBED: %lld\nPROBE: %ld\n"
			 "RETRY_AFTER: %lld\n",
	    (long long)p->since, (long long)p->until, name, p->count,
	    (long long)p->resumed, (long long)p->probed, p->probe,
	    p->retry_after);
}

int
apipause_active(const struct apipause *p, time_t now)
{
	return p->since > 0 && now < p->until;
}

/* The end of pause number p->count from now, not before e's reset. */
static void
apipause_until(struct apipause *p, const struct apierr *e, time_t now)
{
	p->until = now + (time_t)apipause_delay(p->count);
	if (e->reset > p->until)
		p->until = e->reset;
}

enum apipause_change
apipause_note(struct apipause *p, const struct apierr *e, time_t now)
{
	if (p->since == 0) {
		memset(p, 0, sizeof(*p));
		p->retry_after = -1;
		p->since = now;
		p->count = 1;
		apipause_name(p->reason, sizeof(p->reason), e->error);
		apipause_until(p, e, now);
		return APIPAUSE_NEW;
	}
	if (p->resumed > 0 && e->at >= p->resumed) {
		p->count++;
		p->resumed = 0;
		apipause_name(p->reason, sizeof(p->reason), e->error);
		apipause_until(p, e, now);
		return APIPAUSE_RECURRENCE;
	}
	if (p->resumed > 0 || now >= p->until)
		return APIPAUSE_RESUME;
	/* One more session stopped by it: a later reset holds it longer. */
	if (e->reset > p->until)
		p->until = e->reset;
	return APIPAUSE_SAME;
}

void
apipause_describe(const struct apipause *p, char *out, size_t outsz)
{
	char since[32], until[32];

	log_iso8601(p->since, since, sizeof(since));
	log_iso8601(p->until, until, sizeof(until));
	snprintf(out, outsz, "%s since %s until %s (pause %lld)", p->reason,
	    since, until, p->count);
}
