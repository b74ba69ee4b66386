/*
 * The legacy reply file (dev-escalation-reply): a person's answer to an
 * escalation, written by hand or by a bridge.  Its first line may name
 * the escalated session it is for; it is claimed by rename() so that two
 * supervisors never both take it, and put back when it cannot be
 * delivered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "buf.h"
#include "file.h"
#include "log.h"
#include "runfiles.h"
#include "supervisor-poll.h"
#include "valid.h"
#include "xmalloc.h"

#define REPLY_FILE_MAX (64 * 1024)

static const struct esc_target *replyfile_route(struct sup *, const char *,
    const char **);
static void replyfile_restore(const char *, const char *);

/*
 * Which escalated session the legacy reply file is for.  Its first line
 * may name one: the session ("dev-harb-42") or the issue ("#42"); then
 * the reply is the rest (*body).  Without a name it goes to the only
 * escalated session.  NULL when it cannot be routed (logged).
 */
static const struct esc_target *
replyfile_route(struct sup *s, const char *text, const char **body)
{
	size_t len = strcspn(text, "\n"), i, hits = 0;
	const struct esc_target *t = NULL;
	char *first = xstrndup(text, len), *p;
	long long n = -1;

	for (p = first + strlen(first);
	     p > first && (p[-1] == ' ' || p[-1] == '\r' || p[-1] == '\t');)
		*--p = '\0';
	*body = text[len] == '\n' ? text + len + 1 : text + len;
	if (first[0] != '#' || valid_number_text(first + 1, &n) != NULL)
		n = -1;
	for (i = 0; i < s->esc.nesc; i++) {
		if (strcmp(first, s->esc.esc[i].session) == 0 ||
		    n == s->esc.esc[i].issue) {
			t = &s->esc.esc[i];
			hits++;
		}
	}
	if (hits == 1)
		goto out;
	t = NULL;
	if (hits > 1) {
		log_msg("reply file: '%s' matches %zu escalated sessions; left "
			"in place",
		    first, hits);
	} else if (n != -1 || runfiles_dev_session_like(first)) {
		log_msg("reply file names '%s', which is not an escalated "
			"session; left in place",
		    first);
	} else if (s->esc.nesc == 1) {
		t = &s->esc.esc[0];
		*body = text;
	} else {
		log_msg("reply file names no session and %zu are escalated; "
			"left in place",
		    s->esc.nesc);
	}
out:
	free(first);
	return t;
}

/* Put an undelivered reply back, unless a newer one has arrived. */
static void
replyfile_restore(const char *path, const char *text)
{
	if (file_create_excl(path, text, 0644) != 0)
		log_msg("reply file: a newer reply is in place; the "
			"undelivered one (%zu bytes) is dropped",
		    strlen(text));
	else
		log_msg("reply file: put back for the next tick");
}

void
replyfile_check(struct sup *s)
{
	char *path = runfiles_escalation_reply();
	const struct esc_target *t, *t2;
	const char *body, *body2;
	struct buf peek, claimed;
	int r;

	buf_init(&peek, 0);
	buf_init(&claimed, 0);
	r = file_read(path, REPLY_FILE_MAX, &peek);
	if (r == -1 && errno == ENOENT)
		goto out;
	if (r == -1) {
		sup_fail(s, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (strspn(buf_str(&peek), " \t\r\n") == peek.len ||
	    (t = replyfile_route(s, buf_str(&peek), &body)) == NULL)
		goto out;
	if (act_claim(&s->act, path, REPLY_FILE_MAX, &claimed, t->session) !=
	    ACT_CLAIMED)
		goto out;
	sup_escalation_ctx(s);
	if ((t2 = replyfile_route(s, buf_str(&claimed), &body2)) != t ||
	    escalate_answer(&s->esc, t, 0, "the reply file", "the reply file",
		body2) != ACT_INJECTED)
		replyfile_restore(path, buf_str(&claimed));
out:
	buf_free(&peek);
	buf_free(&claimed);
	free(path);
}
