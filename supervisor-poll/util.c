/*
 * Small helpers of the checks: forge timestamps, the tail of a log file,
 * bounded text, and the "ID AT" state files of the escalation clocks.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

static int digits(const char **, int, int *);

/* Read exactly n digits at *p into *out, advancing *p: 0 or -1. */
static int
digits(const char **p, int n, int *out)
{
	int v = 0;

	while (n-- > 0) {
		if (!isdigit((unsigned char)**p))
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	*out = v;
	return 0;
}

/*
 * Parse a forge timestamp, "2024-01-02T10:00:00Z", with optional fraction
 * and a "Z" or "+HH:MM" offset (none means UTC), into *out.  0 or -1.
 */
int
iso_time(const char *text, time_t *out)
{
	struct tm tm;
	const char *p = text;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;

	if (text == NULL || digits(&p, 4, &y) == -1 || *p++ != '-' ||
	    digits(&p, 2, &mo) == -1 || *p++ != '-' ||
	    digits(&p, 2, &d) == -1 || (*p != 'T' && *p != ' '))
		return -1;
	p++;
	if (digits(&p, 2, &h) == -1 || *p++ != ':' ||
	    digits(&p, 2, &mi) == -1 || *p++ != ':' ||
	    digits(&p, 2, &sec) == -1)
		return -1;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (digits(&p, 2, &oh) == -1)
			return -1;
		if (*p == ':')
			p++;
		if (digits(&p, 2, &om) == -1)
			return -1;
	} else if (*p == 'Z')
		p++;
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = timegm(&tm) - sign * (oh * 3600 + om * 60);
	return 0;
}

/*
 * Append the last max bytes of path (from a line start when the file is
 * longer) to out.  0, or -1 with errno set (ENOENT when missing).
 */
int
read_tail(const char *path, size_t max, struct buf *out)
{
	struct stat st;
	char *data;
	ssize_t n;
	off_t from;
	size_t got = 0;
	int fd, r = -1;
	const char *start;

	if ((fd = file_open_read(path)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto out;
	from = st.st_size > (off_t)max ? st.st_size - (off_t)max : 0;
	data = xmalloc(max + 1);
	while (got < max &&
	    (n = pread(fd, data + got, max - got, from + (off_t)got)) > 0)
		got += (size_t)n;
	data[got] = '\0';
	start = data;
	if (from > 0 && (start = memchr(data, '\n', got)) != NULL)
		start++;
	else if (from > 0)
		start = data + got;
	buf_append(out, start, got - (size_t)(start - data));
	free(data);
	r = 0;
out:
	close(fd);
	return r;
}

/*
 * A copy of text of at most max bytes, cut at a character boundary and
 * marked when cut.  Caller frees.
 */
char *
cut_text(const char *text, size_t max)
{
	size_t n = strlen(text);

	if (n <= max)
		return xstrdup(text);
	while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
		max--;
	return xasprintf("%.*s […]", (int)max, text);
}

/*
 * Read a state file holding "ID AT" (a comment ID and the phase time it
 * belongs to).  0, or -1 when it is missing or not in that form.
 */
int
state_read(const char *path, long long *id, long long *at)
{
	struct buf b;
	int r = -1;

	buf_init(&b, 0);
	if (file_read(path, 128, &b) == 0 &&
	    sscanf(buf_str(&b), "%lld %lld", id, at) == 2)
		r = 0;
	buf_free(&b);
	return r;
}

/* Write "ID AT" to path (synced): 0 or -1. */
int
state_write(struct sup *s, const char *path, long long id, long long at)
{
	char text[64];

	snprintf(text, sizeof(text), "%lld %lld\n", id, at);
	return act_write(s, path, text, 1);
}
