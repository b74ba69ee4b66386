/*
 * What dev-poll remembers of an issue from one tick to the next, in
 * dev-state-P-N ("KEY: value" lines): the issue's PR, a merge asked and
 * not yet followed by all its after-merge steps, a merge the forge
 * refused, the rebase asked for, the last unknown phase logged.  A file
 * that is there but cannot be read (a FIFO or symlink planted in the run
 * directory) is unknown, never empty: whatever depends on it waits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "record.h"
#include "runfiles.h"

static void state_parse(const char *, struct dp_state *);
static int state_empty(const struct dp_state *);

/* The fields of the record text; a missing or malformed one stays empty. */
static void
state_parse(const char *text, struct dp_state *st)
{
	char refused[128], kind[16], unmergeable[128];
	int n;

	if (record_get_ll(text, "PR:", &st->pr) == -1 || st->pr < 0)
		st->pr = 0;
	(void)record_get(text, "MERGE:", st->merge, sizeof(st->merge));
	/*
	 * "REFUSED: SHA STATUS MTIME [escalate|rebase]": without the kind
	 * (a file of an older version) a 405 escalates, as it did then.
	 */
	if (record_get(text, "REFUSED:", refused, sizeof(refused)) == 0) {
		n = sscanf(refused, "%63s %ld %lld %15s", st->refused,
		    &st->status, &st->refused_at, kind);
		if (n < 3)
			memset(st->refused, 0, sizeof(st->refused));
		else if (n == 4)
			st->escalate = strcmp(kind, "escalate") == 0;
		else
			st->escalate = st->status == 405;
	}
	if (record_get(text, "UNMERGEABLE:", unmergeable,
		sizeof(unmergeable)) == 0 &&
	    sscanf(unmergeable, "%63s %lld", st->unmergeable,
		&st->unmergeable_at) != 2)
		memset(st->unmergeable, 0, sizeof(st->unmergeable));
	(void)record_get(text, "ANSWER:", st->answer, sizeof(st->answer));
	(void)record_get(text, "REBASE:", st->rebase, sizeof(st->rebase));
	(void)record_get(text, "UNKNOWN:", st->unknown, sizeof(st->unknown));
	if (record_get_ll(text, "NO-PR:", &st->no_pr_at) == -1)
		st->no_pr_at = 0;
}

int
dp_state_read(struct dev_ctx *c, long long issue, struct dp_state *st)
{
	char *path = runfiles_dev_state(c->cfg->project_name, issue);
	struct buf b;
	int r = 0;

	memset(st, 0, sizeof(*st));
	buf_init(&b, 0);
	if (record_load(path, &b) == 0)
		state_parse(buf_str(&b), st);
	else if (errno != ENOENT) {
		log_warn("#%lld: cannot read '%s' — what depends on it waits",
		    issue, path);
		r = -1;
	}
	buf_free(&b);
	free(path);
	return r;
}

static int
state_empty(const struct dp_state *st)
{
	return st->pr == 0 && st->merge[0] == '\0' && st->refused[0] == '\0' &&
	    st->rebase[0] == '\0' && st->unknown[0] == '\0' &&
	    st->unmergeable[0] == '\0' && st->no_pr_at == 0;
}

int
dp_state_write(struct dev_ctx *c, long long issue, const struct dp_state *st)
{
	char *path = runfiles_dev_state(c->cfg->project_name, issue);
	char answer[sizeof(st->answer)], *p;
	struct buf b;
	int r;

	if (state_empty(st)) {
		r = act_remove(&c->act, path);
		free(path);
		return r;
	}
	buf_init(&b, 0);
	if (st->pr > 0)
		buf_printf(&b, "PR: %lld\n", st->pr);
	if (st->merge[0] != '\0')
		buf_printf(&b, "MERGE: %s\n", st->merge);
	if (st->refused[0] != '\0')
		buf_printf(&b, "REFUSED: %s %ld %lld %s\n", st->refused,
		    st->status, st->refused_at,
		    st->escalate ? "escalate" : "rebase");
	if (st->refused[0] != '\0' && st->answer[0] != '\0') {
		/* One line: the forge's words are only ever quoted. */
		snprintf(answer, sizeof(answer), "%s", st->answer);
		for (p = answer; (p = strpbrk(p, "\r\n")) != NULL; p++)
			*p = ' ';
		buf_printf(&b, "ANSWER: %s\n", answer);
	}
	if (st->rebase[0] != '\0')
		buf_printf(&b, "REBASE: %s\n", st->rebase);
	if (st->unknown[0] != '\0')
		buf_printf(&b, "UNKNOWN: %s\n", st->unknown);
	if (st->unmergeable[0] != '\0')
		buf_printf(&b, "UNMERGEABLE: %s %lld\n", st->unmergeable,
		    st->unmergeable_at);
	if (st->no_pr_at != 0)
		buf_printf(&b, "NO-PR: %lld\n", st->no_pr_at);
	r = act_write(&c->act, path, buf_str(&b), 0);
	buf_free(&b);
	free(path);
	return r;
}

int
dp_state_note_pr(struct dev_ctx *c, long long issue, long long pr)
{
	struct dp_state st;

	if (issue <= 0 || pr <= 0)
		return 0;
	if (dp_state_read(c, issue, &st) == -1)
		return -1;
	if (st.pr == pr)
		return 0;
	st.pr = pr;
	return dp_state_write(c, issue, &st);
}

int
dp_state_forget(struct dev_ctx *c, long long issue)
{
	char *path = runfiles_dev_state(c->cfg->project_name, issue);
	int r = act_remove(&c->act, path);

	free(path);
	return r;
}
