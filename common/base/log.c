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
#include "redact.h"
#include "termsafe.h"
#include "xmalloc.h"

/*
 * A message longer than this is cut (the line says how much): one log
 * line must not carry a whole pane or forge body.
 */
#define LOG_MSG_MAX 4096

/* Syslog priorities, as journald reads them from a "<N>" prefix. */
#define LOG_PRI_ERR 3
#define LOG_PRI_WARNING 4
#define LOG_PRI_NOTICE 5
#define LOG_PRI_INFO 6

static int log_fd = -1;
static char *log_file;
static int log_verbose;
static int log_stderr;
/* A dry run: the lines go to stderr, no file is opened or written. */
static int log_dry;
/* DISINTO_LOG_DIR (log_set_dir()), or NULL: the factory. */
static char *log_dir_set;
/* The first error line of this run (log_first_error()), or "". */
static char log_first_err[256];
static char log_prefix[32];

static char *log_masked(const char *, va_list)
    __attribute__((format(printf, 1, 0)));
static void log_vline(int, const char *, va_list)
    __attribute__((format(printf, 2, 0)));
static int log_vstatus(int, const char *, const char *, const char *, va_list)
    __attribute__((format(printf, 4, 0)));

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
	if (log_stderr || log_dry)
		return 0;
	rotated = log_rotate(path, rotate_bytes);
	(void)file_mkdir_parent(path);
	log_fd = file_open_append(path, 0644);
	if (log_fd == -1)
		return -1;
	log_file = xstrdup(path);
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
	free(log_file);
	log_file = NULL;
}

const char *
log_path(void)
{
	return log_file;
}

void
log_use_stderr(int on)
{
	log_stderr = on;
}

void
log_set_dir(const char *dir)
{
	free(log_dir_set);
	log_dir_set = dir != NULL && *dir != '\0' ? xstrdup(dir) : NULL;
}

const char *
log_dir(void)
{
	return log_dir_set;
}

int
log_on_stderr(void)
{
	return log_stderr || log_dry;
}

void
log_dry_run(int on)
{
	log_dry = on;
}

const char *
log_first_error(void)
{
	return log_first_err;
}

void
log_first_error_clear(void)
{
	log_first_err[0] = '\0';
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

/* The message with every secret the masker knows masked.  Caller frees. */
static char *
log_masked(const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap), *masked = redact_values(msg);

	explicit_bzero(msg, strlen(msg));
	free(msg);
	return masked;
}

/*
 * One line of priority pri: to stderr with the priority prefix, or to
 * the file (and stderr with verbose) with the timestamp.
 */
static void
log_vline(int pri, const char *fmt, va_list ap)
{
	struct buf line;
	char ts[32], *msg;
	size_t head;
	int saved = errno;

	buf_init(&line, 0);
	if (log_stderr)
		buf_printf(&line, "<%d>%s", pri, log_prefix);
	else {
		log_timestamp(ts, sizeof(ts));
		buf_printf(&line, "[%s] %s", ts, log_prefix);
	}
	head = line.len;
	msg = log_masked(fmt, ap);
	termsafe_line(msg, strlen(msg), LOG_MSG_MAX, &line);
	free(msg);
	if (pri <= LOG_PRI_WARNING && log_first_err[0] == '\0')
		snprintf(log_first_err, sizeof(log_first_err), "%s",
		    line.data + head);
	buf_puts(&line, "\n");
	if (log_stderr || log_dry || log_verbose)
		(void)!write(STDERR_FILENO, line.data, line.len);
	if (!log_stderr && log_fd != -1)
		(void)!write(log_fd, line.data, line.len);
	buf_free(&line);
	errno = saved;
}

void
log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_PRI_INFO, fmt, ap);
	va_end(ap);
}

void
log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_PRI_ERR, fmt, ap);
	va_end(ap);
}

void
log_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_PRI_NOTICE, fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vline(LOG_PRI_WARNING, fmt, ap);
	va_end(ap);
}

/* log_status() with the message logged at priority pri. */
static int
log_vstatus(int pri, const char *path, const char *who, const char *fmt,
    va_list ap)
{
	struct buf line;
	char ts[32], *msg = NULL;
	int r = -1;

	buf_init(&line, 0);
	msg = log_masked(fmt, ap);
	log_timestamp(ts, sizeof(ts));
	buf_printf(&line, "[%s] %s: ", ts, who);
	termsafe_line(msg, strlen(msg), LOG_MSG_MAX, &line);
	buf_puts(&line, "\n");
	if (pri == LOG_PRI_ERR)
		log_err("%s", msg);
	else
		log_msg("%s", msg);
	r = log_dry ? 0 : file_write_atomic(path, line.data, line.len, 0644, 0);
	free(msg);
	buf_free(&line);
	return r;
}

int
log_status(const char *path, const char *who, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = log_vstatus(LOG_PRI_INFO, path, who, fmt, ap);
	va_end(ap);
	return r;
}

int
log_status_err(const char *path, const char *who, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = log_vstatus(LOG_PRI_ERR, path, who, fmt, ap);
	va_end(ap);
	return r;
}
