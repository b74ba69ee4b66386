/*
 * The agent CLI's API errors, one table: every error Claude Code names
 * when a turn ends on one (its StopFailure hook's "error" value), each
 * with whose condition it is.  An error of the account, the service, the
 * network, a credential, billing or the model's configuration is the
 * project's: every session of the project would meet it, so the project
 * pauses instead of failing its issues one by one.  Only an error of the
 * issue's own work (its output over the token limit, a request its
 * prompt made invalid) counts against the issue.  An error the CLI could
 * not name ("unknown": Claude Code 2.1 names a plain 400 so), and a value
 * the table does not have (a later CLI's), may be either's: whose it is
 * the evidence tells (apistop.h), not the name.
 *
 * The same errors as the CLI prints them on its screen ("API Error: 529
 * Overloaded ...", "You've hit your session limit · resets 5:40pm"), for
 * a session at its input box whose hook did not fire, and the reset time
 * a rate limit names.
 */
#ifndef API_ERROR_H
#define API_ERROR_H

#include <stddef.h>
#include <time.h>

/*
 * The StopFailure hook's matcher: every StopFailure.  A matcher made of
 * the table's names would let an error a later CLI names end its turn
 * with no hook at all (the session silent until the crash clock); the
 * hook reads the value and judges it by the table instead.
 */
#define API_ERROR_MATCHER "*"

/* Whose condition an API error is. */
enum api_error_class {
	API_ERROR_PROJECT, /* the account's, the service's: pause */
	API_ERROR_ISSUE,   /* the issue's own work: it fails */
	API_ERROR_EITHER   /* either's: judged by evidence */
};

/* A row of the table. */
struct api_error {
	const char *name; /* as the CLI names it */
	enum api_error_class cls;
	const char *what; /* for operators */
};

/* The table, *n rows. */
const struct api_error *api_error_table(size_t *n);
/* The row of name, or NULL when the table has no such error. */
const struct api_error *api_error_find(const char *name);
/* The class of name: a name not in the table (or NULL) is either's. */
enum api_error_class api_error_class(const char *name);
/*
 * The error a hook's name and the CLI's own words for it (its message,
 * the "API Error: ..." line) make together: a name that says little
 * ("unknown", "server_error", one the table does not have) gives way to
 * an error of the project's that the words name (Claude Code 2.1 names
 * a 529 "server_error": "overloaded"; a 429 "rate_limit").  Never an
 * error of the issue's from the words alone: a bare 400 stays "unknown",
 * for the evidence to judge.  Points into the table or at name.
 */
const char *api_error_refine(const char *name, const char *text);
/* "project", "issue" or "either". */
const char *api_error_class_name(enum api_error_class);
/*
 * The last API error screen (a capture, lines ending in LF) shows as the
 * agent's final word: the error's name into type and its line (made one
 * printable line, cut to fit) into line.  1 when found, else 0: none, or
 * the agent is still at work (retrying, "esc to interrupt") or went on
 * after it (a message typed since, more output).
 */
int api_error_screen(const char *screen, char *type, size_t typesz, char *line,
    size_t linesz);
/* The error a line of the CLI's (an "API Error: ..." line) names. */
const char *api_error_of_line(const char *line);
/*
 * The time a rate limit's text says it resets ("resets 5:40pm (Zone)",
 * "reset at 9am", "limit reached|1766502000"), as of now, read in the
 * host's time zone (the CLI runs on this host and prints its zone): the
 * next such time within the next 8 days, or 0 when text names none.
 */
time_t api_error_reset(const char *text, time_t now);

#endif
