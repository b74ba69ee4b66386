/*
 * The tool's log file: "[YYYY-MM-DD HH:MM:SS UTC] prefix message" lines,
 * appended with O_APPEND so concurrent ticks interleave whole lines.  With
 * verbose set, every line is mirrored to stderr.  Before log_open() (and
 * in unit tests) messages go nowhere unless verbose is set.
 *
 * For systemd units (log_use_stderr()) the same lines go to stderr
 * instead, without the timestamp (journald adds its own) and with the
 * syslog priority journald reads from a "<N>" prefix: "<3>" for
 * log_err(), "<4>" for log_warn(), "<5>" for log_notice(), "<6>" for
 * log_msg().  The file is then neither opened nor rotated.
 *
 * The priority is the severity, the same for the same event in every
 * tool:
 *   error   (3) a run-time failure: a write that failed, a tick that
 *               failed or could not read what it needed (its cause), a
 *               configuration that cannot be used;
 *   warning (4) something skipped or degraded: a read that failed (the
 *               decision it fed waits), a check not done, a tick skipped
 *               because the factory is paused;
 *   notice  (5) an action taken: a merge, a launch, a review or comment
 *               posted, a notice injected into a session;
 *   info    (6) routine: what was looked at, found, or left alone.
 *
 * A dry run (log_dry_run()) writes no file at all: its lines go to
 * stderr in the file's form, and a status file is not replaced.
 */
#ifndef LOG_H
#define LOG_H

#include <stddef.h>
#include <time.h>

/*
 * Open path for appending; when it is larger than rotate_bytes (0 = never)
 * it is first renamed to path.old.  prefix ("poll: " or "") starts every
 * message.  Returns 0, or -1 with errno set (logging then goes to stderr
 * only if verbose).
 */
int log_open(const char *path, const char *prefix, size_t rotate_bytes,
    int verbose);
void log_close(void);
/* The file log_open() opened, or NULL (none, or lines go to stderr). */
const char *log_path(void);
/*
 * With on set, the lines go to stderr in the journald form above, from
 * now on (also before log_open()); else to the file as described.
 */
void log_use_stderr(int on);

/*
 * The directory of the logs when it is not the factory (DISINTO_LOG_DIR,
 * set by config_load()): a copy is kept; NULL or "" for none.
 * log_dir() gives it, or NULL: the run files' names of the logs are
 * built below it (runfiles.c).
 */
void log_set_dir(const char *dir);
const char *log_dir(void);
/*
 * Whether the lines go to stderr: in the journald form (log_use_stderr())
 * or for a dry run (log_dry_run()).
 */
int log_on_stderr(void);
/*
 * With on set, no log or status file is opened, rotated or written from
 * now on: the lines go to stderr ("[ts] prefix message"), as a dry run's
 * do; log_status() logs its message and replaces nothing.
 */
void log_dry_run(int on);
/*
 * The first log_err() or log_warn() message of this run, as logged (masked,
 * printable, cut to 255 bytes, without its timestamp and prefix), or "".
 */
const char *log_first_error(void);
/* Forget it: a new run starts (one process may run several, as tests do). */
void log_first_error_clear(void);
/*
 * Log one line.  The message is made printable and kept on one line
 * (termsafe_line(): control characters escaped, invalid UTF-8 replaced)
 * and cut after 4 kB, so text from a run file, the forge or a pane can be
 * logged as it is.  The secrets the masker knows (redact_values(): the
 * configured tokens in every form, credentials in URLs) are masked first;
 * still, never pass a token on purpose.
 */
void log_msg(const char *, ...) __attribute__((format(printf, 1, 2)));
/*
 * The same, for a message that says something failed or was refused (an
 * error, priority 3) or that something is wrong but the tick goes on (a
 * warning, priority 4).  The file's lines are the same as log_msg()'s.
 */
void log_err(const char *, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* The same, for an action taken (a notice, priority 5). */
void log_notice(const char *, ...) __attribute__((format(printf, 1, 2)));
/*
 * Format the current UTC time as "YYYY-MM-DD HH:MM:SS UTC" into out
 * (at least 32 bytes).
 */
void log_timestamp(char *out, size_t outsz);
/* Format t as ISO 8601 UTC, "YYYY-MM-DDTHH:MM:SSZ", into out (>= 24). */
void log_iso8601(time_t t, char *out, size_t outsz);
/*
 * Replace the status file at path with one line "[ts] who: message" (the
 * message made printable as log_msg() does) and log the message too (a
 * dry run only logs it).  Returns 0 or -1.
 */
int log_status(const char *path, const char *who, const char *, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, logging the message as an error (log_err()). */
int log_status_err(const char *path, const char *who, const char *, ...)
    __attribute__((format(printf, 3, 4)));
/* Rename path to path.old when larger than max_bytes: 1 rotated, 0 not. */
int log_rotate(const char *path, size_t max_bytes);

#endif
