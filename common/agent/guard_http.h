/*
 * The forge API calls an agent may not make, judged by method, path and
 * body wherever they appear (for the guard of agent commands,
 * agent_guard.h): a merge, a close, a review (approval, request for
 * changes, dismissal), a commit status, the branch protection, a branch
 * deletion, the orchestrator's labels (backlog, in-progress, blocked,
 * priority, underspecified), the repository's settings, a commit made
 * through the API, a change of the comments that hold the orchestrator's
 * markers.  Reads pass.  The rules hold on any host (a forge has more
 * than one name) and for Gitea's and GitHub's forms of each call.
 *
 * Values the guard could not resolve are GUARD_SHELL_UNKNOWN bytes
 * (guard_shell.h) in the method, the URL or the body: a call that one of
 * them could make refused is refused, saying what could not be told.
 */
#ifndef GUARD_HTTP_H
#define GUARD_HTTP_H

#include <stddef.h>

/* One request. */
struct guard_http_req {
	const char *method; /* "GET", "PATCH", ... (may hold UNKNOWN) */
	const char *url;    /* absolute, or a path (may hold UNKNOWN) */
	const char *body;   /* NULL: none; JSON or form fields */
	int body_unknown;   /* a body this guard could not read */
};

/* Refuse (1, the reason in why) or allow (0) the request. */
int guard_http_judge(const struct guard_http_req *, char *why, size_t whysz);

/* What a client command reads besides its words. */
struct guard_http_io {
	/* Its standard input: NULL when unknown (or none). */
	const char *input;
	/*
	 * The text of the file a word names, or NULL when it cannot be
	 * known; script: the file is a program to run, not data.  Caller
	 * frees.
	 */
	char *(*read)(void *arg, const char *word, int script);
	void *arg;
};

/*
 * Judge a command whose name (its base name) is name and whose words
 * (after expansion, w[0] the name) are w[0..n) when it is an HTTP client
 * (curl, wget, httpie and xh), a forge CLI (gh, tea) or a script
 * interpreter given a program (python, node, deno, bun, perl, ruby, php:
 * its text is searched for the calls).  1 refused (why set), 0 allowed
 * or not such a command.
 */
int guard_http_command(const char *name, char *const *w, size_t n,
    const struct guard_http_io *io, char *why, size_t whysz);

/*
 * The automaton steps taken so far by every call (for the fuzz harness,
 * which holds them to a bound linear in the text's length).
 */
unsigned long long guard_http_work(void);

#endif
