/*
 * The pieces of a dev session's prompt: the issue with its human
 * comments, the other backlog issues, and the templates of formulas/
 * filled in.  Text from the forge is untrusted: every piece is cut to a
 * bounded length (on a UTF-8 character boundary) before it goes in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "json.h"
#include "log.h"
#include "template.h"
#include "utf8.h"
#include "xmalloc.h"

#define BODY_MAX (32 * 1024)
#define COMMENT_MAX (8 * 1024)
#define COMMENTS_MAX (32 * 1024)
#define TITLE_MAX 300
#define BACKLOG_LINES 50

static void put_cut(struct buf *, const char *, size_t, int);
static void put_capped(struct buf *, const char *, size_t);
static int is_human(struct dev_ctx *, const char *, const char *);
static char *rstrip(struct buf *);

/*
 * Append at most max bytes of s, cut before a partial character; with
 * note set, say how much was cut.
 */
static void
put_cut(struct buf *b, const char *s, size_t max, int note)
{
	size_t len = s != NULL ? strlen(s) : 0, keep;

	keep = utf8_prefix_len(s, len, max);
	buf_append(b, s != NULL ? s : "", keep);
	if (keep < len && note)
		buf_printf(b, "\n[... %zu more bytes cut]\n", len - keep);
}

static void
put_capped(struct buf *b, const char *s, size_t max)
{
	put_cut(b, s, max, 1);
}

/* The buffer's text without trailing white space, handed over. */
static char *
rstrip(struct buf *b)
{
	while (b->len > 0 && strchr(" \t\r\n", b->data[b->len - 1]) != NULL)
		b->data[--b->len] = '\0';
	return buf_steal(b);
}

/* Whether a comment by login counts as a human's. */
static int
is_human(struct dev_ctx *c, const char *login, const char *self)
{
	if (login == NULL || *login == '\0')
		return 0;
	if (self != NULL && strcmp(login, self) == 0)
		return 0;
	return !config_is_bot(c->cfg, login);
}

char *
dp_issue_text(struct dev_ctx *c, const cJSON *issue, const cJSON *comments,
    const char *login)
{
	const cJSON *cm;
	const char *user, *when;
	struct buf b, all;

	buf_init(&b, 0);
	buf_init(&all, 0);
	put_capped(&b, json_str(issue, "body"), BODY_MAX);
	cJSON_ArrayForEach (cm, comments) {
		user = json_str_at(cm, "user.login");
		if (!is_human(c, user, login))
			continue;
		when = json_str(cm, "created_at");
		buf_printf(&all, "### @%s (%.10s):\n", user,
		    when != NULL ? when : "");
		put_capped(&all, json_str(cm, "body"), COMMENT_MAX);
		buf_puts(&all, "\n\n");
	}
	if (all.len > 0) {
		buf_puts(&b, "\n\n## Comments from people on this issue\n\n");
		put_capped(&b, buf_str(&all), COMMENTS_MAX);
	}
	buf_free(&all);
	return rstrip(&b);
}

char *
dp_backlog_text(struct dev_ctx *c, long long self)
{
	struct buf b;
	long long n;
	size_t i, shown = 0, more = 0;

	buf_init(&b, 0);
	for (i = 0; i < c->nbacklog; i++) {
		if (json_int(c->backlog[i], "number", &n) == -1 || n == self)
			continue;
		if (shown == BACKLOG_LINES) {
			more++;
			continue;
		}
		buf_printf(&b, "- #%lld ", n);
		put_cut(&b, json_str(c->backlog[i], "title"), TITLE_MAX, 0);
		buf_puts(&b, "\n");
		shown++;
	}
	if (more > 0)
		buf_printf(&b, "- ... and %zu more\n", more);
	if (shown == 0)
		buf_puts(&b, "(none)\n");
	return rstrip(&b);
}

char *
dp_title(const cJSON *issue)
{
	return utf8_cut(json_str(issue, "title"), TITLE_MAX, NULL);
}

char *
dp_render(struct dev_ctx *c, const char *name, const struct template_var *vars,
    size_t n)
{
	char err[512], *out = NULL;

	if (template_render(c->cfg->formulas_dir, name, vars, n, &out, err,
		sizeof(err)) == -1) {
		log_msg("cannot build the prompt: %s", err);
		return NULL;
	}
	return out;
}
