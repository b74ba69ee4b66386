/*
 * Names the configuration hands to git, the forge, tmux and the file
 * system, checked the way those check them, and the numbers of issues,
 * PRs, comments and reviews read from the command line, run-file names
 * and the forge.  Each function returns NULL when the name or number is
 * fine, else why it is not (a static string).
 */
#ifndef VALID_H
#define VALID_H

/* A branch name as `git check-ref-format --branch` accepts it. */
const char *valid_branch(const char *name);
/* "owner/name" as Gitea accepts a user or organisation and a repository. */
const char *valid_repo(const char *owner_name);
/*
 * A name that becomes part of file and tmux session names: letters,
 * digits, '.', '_', '-', not starting with '.'.
 */
const char *valid_name(const char *name);
/* An http:// or https:// URL with a host and no blanks or controls. */
const char *valid_url(const char *url);
/* A commit ID as git and the forge write one: 7 to 64 lower-case hex. */
const char *valid_sha(const char *sha);
/* The value of the hex digit c (either case), or -1. */
int valid_hex_digit(int c);
/*
 * Whether s is NULL, empty or only blanks (spaces, tabs, line ends): a
 * secret that is none.
 */
int valid_blank(const char *s);

/*
 * The largest number of an issue, PR, comment or review: 2^53 - 1, the
 * largest integer a JSON number (a double) holds exactly and apart from
 * its neighbours (2^53 + 1 is read as 2^53; Gitea's IDs are int64 but
 * its clients read them as doubles).
 */
#define VALID_NUMBER_MAX 9007199254740991LL
/* A number of an issue, PR, comment or review: 1 .. VALID_NUMBER_MAX. */
const char *valid_number(long long n);
/*
 * The whole of text as such a number, decimal digits only (no sign, no
 * blank, no leading zero), into *out (untouched unless fine).
 */
const char *valid_number_text(const char *text, long long *out);
/*
 * The run of decimal digits at text as such a number into *out, *end
 * (may be NULL) set past the digits.  A run that is no such number is
 * refused whole.
 */
const char *valid_number_at(const char *text, const char **end, long long *out);

#endif
