/*
 * Timestamped log lines, rotation and the one-line status file.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file.h"
#include "buf.h"
#include "log.h"
#include "termsafe.h"
#include "xmalloc.h"

/*
 * A message longer than this is cut (the line says how much): one log
 * line must not carry a whole pane or forge body.
 */
#define LOG_MSG_MAX 4096

static int log_fd = -1;
static int log_verbose;
static char log_prefix[32];

static void log_vline(const char *, va_list)
    __attribute__((format(printf, 1, 0)));

int
log_rotate(const char *path, size_t max_bytes)
{
	struct stat st;
	char *old;
	int r;

	if (max_bytes == 0 || stat(path, &st) == -1 ||
	    (size_t)st.st_size <= max_bytes)
		return 0;
	old = xasprintf("%s.old", path);
	r = rename(path, old) == 0 ? 1 : 0;
	free(old);
	return r;
}

int
log_open(const char *path, const char *prefix, size_t rotate_bytes, int verbose)
{
	int rotated;

	log_close();
	log_verbose = verbose;
	snprintf(log_prefix, sizeof(log_prefix), "%s", prefix ? prefix : "");
	rotated = log_rotate(path, rotate_bytes);
	(void)file_mkdir_parent(path);
	log_fd = file_open_append(path, 0644);
	if (log_fd == -1)
		return -1;
	if (rotated)
		log_msg("log rotated");
	return 0;
}

void
log_close(void)
{
	if (log_fd != -1)
		close(log_fd);
	log_fd = -1;
}

void
log_timestamp(char *out, size_t outsz)
{
	struct tm tm;
	time_t now = time(NULL);

	gmtime_r(&now, &tm);
	strftime(out, outsz, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void
log_iso8601(time_t t, char *out, size_t outsz)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, outsz, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
log_vline(const char *fmt, va_list ap)
{
	struct buf line;
	char ts[32], *msg;
	int saved = errno;

	buf_init(&line, 0);
	log_timestamp(ts, sizeof(ts));
	buf_printf(&line, "[%s] %s", ts, log_prefix);
	msg = xvasprintf(fmt, ap);
	termsafe_line(msg, strlen(msg), LOG_MSG_MAX, &line);
	free(msg);
	buf_puts(&line, "\n");
	if (log_fd != -1)
		(void)!write(log_fd, line.data, line.len);
	if (log_verbose)
		(void)!write(STDERR_FILENO, line.data, line.len);
	buf_free(&line);
	errno = saved;
}

void
log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(fmt, ap);
	va_end(ap);
}

int
log_status(const char *path, const char *who, const char *fmt, ...)
{
	struct buf line;
	char ts[32], *msg = NULL;
	va_list ap;
	int r = -1;

	buf_init(&line, 0);
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_timestamp(ts, sizeof(ts));
	buf_printf(&line, "[%s] %s: ", ts, who);
	termsafe_line(msg, strlen(msg), LOG_MSG_MAX, &line);
	buf_puts(&line, "\n");
	log_msg("%s", msg);
	r = file_write_atomic(path, line.data, line.len, 0644, 0);
	free(msg);
	buf_free(&line);
	return r;
}
