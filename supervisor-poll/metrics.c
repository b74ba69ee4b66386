/*
 * The metrics file: one JSON object a line ({"ts", "type", ...}),
 * appended, and lines older than 30 days dropped by an atomic rewrite.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "file.h"
#include "json.h"
#include "log.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define METRICS_KEEP_S (30LL * 24 * 3600)
#define METRICS_MAX (64 * 1024 * 1024)
/* "YYYY-MM-DDTHH:MM": the part of "ts" that is compared. */
#define TS_CMP 16

static int metrics_line_is_old(const char *, size_t, const char *);

cJSON *
metrics_new(const struct sup *s, const char *type)
{
	cJSON *obj = cJSON_CreateObject();
	char ts[32];
	struct tm tm;

	gmtime_r(&s->now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%MZ", &tm);
	cJSON_AddStringToObject(obj, "ts", ts);
	cJSON_AddStringToObject(obj, "type", type);
	return obj;
}

void
metrics_emit(struct sup *s, cJSON *obj)
{
	char *path = runfiles_metrics(), *text = json_print(obj);

	(void)act_append(&s->act, path, text);
	free(text);
	free(path);
	cJSON_Delete(obj);
}

/*
 * 1 when the line goes: a metric whose "ts" is before cutoff, or a line
 * that is not a JSON object at all (a torn write would break every
 * reader of the file).  Objects that cannot be dated are kept.
 */
static int
metrics_line_is_old(const char *line, size_t len, const char *cutoff)
{
	char err[64];
	cJSON *obj = json_parse(line, len, err, sizeof(err));
	const char *ts = json_str(obj, "ts");
	int old = !cJSON_IsObject(obj);

	if (ts != NULL && strlen(ts) >= TS_CMP && ts[4] == '-' && ts[10] == 'T')
		old = strncmp(ts, cutoff, TS_CMP) < 0;
	cJSON_Delete(obj);
	return old;
}

void
metrics_rotate(struct sup *s)
{
	char *path = runfiles_metrics(), cutoff[32];
	struct buf in, kept;
	const char *p, *nl;
	time_t t = s->now - METRICS_KEEP_S;
	struct tm tm;
	size_t dropped = 0;
	int r;

	buf_init(&in, 0);
	buf_init(&kept, 0);
	r = file_read(path, METRICS_MAX, &in);
	if (r == -1 && errno == ENOENT)
		goto out;
	if (r != 0) {
		sup_fail(s, "cannot read '%s' for rotation: %s", path,
		    r == 1 ? "too large" : strerror(errno));
		goto out;
	}
	gmtime_r(&t, &tm);
	strftime(cutoff, sizeof(cutoff), "%Y-%m-%dT%H:%M", &tm);
	for (p = buf_str(&in); *p != '\0'; p = nl) {
		size_t len;

		nl = strchr(p, '\n');
		nl = nl != NULL ? nl + 1 : p + strlen(p);
		len = (size_t)(nl - p);
		if (len <= 1 || metrics_line_is_old(p, len, cutoff))
			dropped++;
		else if (buf_append(&kept, p, len) == 0 && p[len - 1] != '\n')
			buf_puts(&kept, "\n");
	}
	if (dropped == 0)
		goto out;
	log_msg("metrics: dropping %zu line(s) older than 30 days or "
		"unreadable",
	    dropped);
	(void)act_write(&s->act, path, buf_str(&kept), 1);
out:
	buf_free(&in);
	buf_free(&kept);
	free(path);
}
