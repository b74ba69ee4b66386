/*
 * The fresh read of the forge behind `--status --forge`: a PR's state and
 * the CI state of its head, an issue's open PR, and the backlog's next
 * ready issue or the dependency that holds the first one back.  Only GET
 * requests; a read that fails is unknown (statusforge_error() says why),
 * never "none".
 */
#ifndef STATUSFORGE_H
#define STATUSFORGE_H

#include <stddef.h>

struct config;
struct statusforge;

/* A PR as the forge shows it now. */
struct statusforge_pr {
	char state[16]; /* "open", "closed" or "merged" */
	char sha[48];	/* its head, printable and cut, or "" */
	char ci[16];	/* ci_state_name() of the head: "success", ... */
};

/* The backlog as dev-poll would scan it now. */
struct statusforge_backlog {
	size_t n;	    /* backlog issues */
	long long ready;    /* the first whose dependencies are closed, or 0 */
	char title[128];    /* its title (printable, cut), or "" */
	long long waiting;  /* the first issue before it held back, or 0 */
	long long dep;	    /* the dependency it waits for */
	char dep_state[16]; /* that dependency's state ("open") */
};

/*
 * A client for the project of cfg (its forge, and Woodpecker when CI is
 * configured).  Free with statusforge_close().
 */
struct statusforge *statusforge_open(const struct config *cfg);
void statusforge_close(struct statusforge *);
/* Why the last call failed. */
const char *statusforge_error(const struct statusforge *);
/* 1 when the last call failed on something the forge does not have. */
int statusforge_missing(const struct statusforge *);
/* PR pr into *out: 0, or -1. */
int statusforge_pr(struct statusforge *, long long pr,
    struct statusforge_pr *out);
/* The open PR of issue's branch in *pr (0: none): 0, or -1. */
int statusforge_issue_pr(struct statusforge *, long long issue, long long *pr);
/* The backlog into *out: 0, or -1. */
int statusforge_backlog(struct statusforge *, struct statusforge_backlog *out);

#endif
