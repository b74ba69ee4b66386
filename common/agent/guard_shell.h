/*
 * Shell text split as a shell would split it, for the guard of agent
 * commands (agent_guard.h): simple commands with their words, their
 * redirections, the text given on their standard input (a here-document
 * or a here-string), the operator that follows each, the subshells that
 * open before and close after each, and the texts of the command
 * substitutions, each tied to the command it runs before.
 *
 * Nothing is expanded here: a word keeps what a shell would expand as
 * markers, which the guard resolves against what it knows:
 *   GUARD_SHELL_VAR NAME GUARD_SHELL_END    $NAME, ${NAME}, ${NAME:-x},
 *                                           ~ (HOME), ~+ (PWD), ~- (OLDPWD)
 *   GUARD_SHELL_SUB N GUARD_SHELL_END       the output of subs[N]
 *   GUARD_SHELL_UNKNOWN                     anything else it cannot know
 *                                           ($1, $?, $((...)), ${X%y},
 *                                           ~user, /dev/fd/N of <(...))
 * A GUARD_SHELL_UNKNOWN in the text stays one (a value the caller could
 * not know, in a text it split again); the other marker bytes in the
 * text become '?'.  Quotes are removed, escapes applied.
 */
#ifndef GUARD_SHELL_H
#define GUARD_SHELL_H

#include <stddef.h>

#define GUARD_SHELL_UNKNOWN '\001'
#define GUARD_SHELL_VAR '\002'
#define GUARD_SHELL_END '\003'
#define GUARD_SHELL_SUB '\004'

/* What follows a command. */
enum guard_shell_op {
	GUARD_SHELL_SEQ, /* ';', a newline, or the end */
	GUARD_SHELL_AND, /* && */
	GUARD_SHELL_OR,	 /* || */
	GUARD_SHELL_PIPE,
	GUARD_SHELL_BG /* & */
};

/* A redirection's target: a file read (<) or written (>, >>, &>). */
struct guard_shell_redir {
	int out;
	char *target;
};

struct guard_shell_cmd {
	char **words;
	size_t nwords;
	struct guard_shell_redir *redirs;
	size_t nredirs;
	char *input; /* a here-document's or here-string's text, or NULL */
	enum guard_shell_op op;
	unsigned opens;	 /* '(' just before it */
	unsigned closes; /* ')' just after it */
};

/* A command substitution's text, run before command cmd. */
struct guard_shell_sub {
	char *text;
	size_t cmd;
};

struct guard_shell {
	struct guard_shell_cmd *cmds;
	size_t ncmds;
	struct guard_shell_sub *subs;
	size_t nsubs;
};

/*
 * Split text into out (text need not be complete: an unterminated quote
 * or substitution runs to the end).  Free with guard_shell_free().
 */
void guard_shell_parse(const char *text, struct guard_shell *out);
void guard_shell_free(struct guard_shell *);
/*
 * The characters looked at so far by every call (for the fuzz harness,
 * which holds it to a bound linear in the text's length).
 */
unsigned long long guard_shell_work(void);

/* Whether s (NULL: no) holds a part the reading could not tell. */
int guard_shell_has_unknown(const char *s);
/* A refusal: its reason formatted into why; returns 1. */
int guard_shell_refuse(char *why, size_t whysz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
