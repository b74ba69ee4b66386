/*
 * The text side of reviews: the JSON a review agent writes, the comment
 * review-poll posts for it, and the markers by which later ticks (and
 * the other tools) recognise that comment.  No I/O here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "forge.h"
#include "json.h"
#include "marks.h"
#include "review-poll.h"
#include "utf8.h"
#include "xmalloc.h"

/* Longest verdict word, review text and reason kept. */
#define VERDICT_MAX 32
#define REASON_MAX 1000

static cJSON *verdict_parse_object(const char *, size_t);
static int verdict_from_object(const cJSON *, struct rp_verdict *);
static int verdict_fence_span(const char *, size_t, const char **, size_t *);
static char *verdict_normalise_verdict(const char *);
static char *verdict_clean_text(const char *, size_t, int);
static const char *verdict_comment_body(const cJSON *);
static int verdict_word_after_stars(const char *, char *, size_t);

static cJSON *
verdict_parse_object(const char *text, size_t len)
{
	char err[128];
	cJSON *root = json_parse(text, len, err, sizeof(err));

	if (root != NULL && !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		root = NULL;
	}
	return root;
}

/* "approve", "Request changes", "request-changes" -> upper case words. */
static char *
verdict_normalise_verdict(const char *s)
{
	char *v;
	size_t i, n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0 || n > VERDICT_MAX)
		return NULL;
	v = xstrndup(s, n);
	for (i = 0; i < n; i++) {
		if (v[i] == '-' || v[i] == ' ')
			v[i] = '_';
		else if (isalpha((unsigned char)v[i]))
			v[i] = (char)toupper((unsigned char)v[i]);
		else if (v[i] != '_') {
			free(v);
			return NULL;
		}
	}
	return v;
}

/*
 * A copy of s cut to max bytes (at a character boundary), with HTML
 * comment openers defused so that no marker can hide in it, and with
 * newlines turned into spaces when one_line is set.
 */
static char *
verdict_clean_text(const char *s, size_t max, int one_line)
{
	size_t n = utf8_prefix_len(s, strlen(s), max);
	struct buf b;

	buf_init(&b, 0);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(s + i, "<!--", 4) == 0) {
			buf_puts(&b, "&lt;!--");
			i += 3;
		} else if (one_line && (s[i] == '\n' || s[i] == '\r'))
			buf_append(&b, " ", 1);
		else
			buf_append(&b, s + i, 1);
	}
	return buf_steal(&b);
}

static int
verdict_from_object(const cJSON *obj, struct rp_verdict *out)
{
	const char *v = json_str(obj, "verdict");
	const char *reason = json_str(obj, "verdict_reason");
	const char *md = json_str(obj, "review_markdown");

	if (v == NULL || (out->verdict = verdict_normalise_verdict(v)) == NULL)
		return -1;
	out->reason = verdict_clean_text(reason ? reason : "", REASON_MAX, 1);
	out->markdown = verdict_clean_text(md ? md : "", RP_MARKDOWN_MAX, 0);
	return 0;
}

/* The body of the first ```json (or bare ```) fence in text. */
static int
verdict_fence_span(const char *text, size_t len, const char **start, size_t *n)
{
	const char *p = text, *end = text + len, *body, *close;

	while (p < end) {
		if (end - p >= 3 && memcmp(p, "```", 3) == 0) {
			body = memchr(p, '\n', (size_t)(end - p));
			if (body == NULL)
				return -1;
			body++;
			for (close = body; close < end;) {
				if (end - close >= 3 &&
				    memcmp(close, "```", 3) == 0) {
					*start = body;
					*n = (size_t)(close - body);
					return 0;
				}
				close =
				    memchr(close, '\n', (size_t)(end - close));
				if (close == NULL)
					break;
				close++;
			}
			return -1;
		}
		p = memchr(p, '\n', (size_t)(end - p));
		if (p == NULL)
			break;
		p++;
	}
	return -1;
}

int
rp_verdict_parse(const char *text, size_t len, struct rp_verdict *out,
    char *err, size_t errsz)
{
	const char *start, *first, *last = NULL;
	size_t n, i;
	cJSON *obj;
	int r = -1;

	memset(out, 0, sizeof(*out));
	obj = verdict_parse_object(text, len);
	if (obj == NULL && verdict_fence_span(text, len, &start, &n) == 0)
		obj = verdict_parse_object(start, n);
	if (obj == NULL && (first = memchr(text, '{', len)) != NULL) {
		for (i = len; i > 0 && last == NULL; i--)
			if (text[i - 1] == '}')
				last = text + i - 1;
		if (last != NULL && last > first)
			obj = verdict_parse_object(first,
			    (size_t)(last - first + 1));
	}
	if (obj == NULL)
		snprintf(err, errsz, "no JSON object found");
	else if (verdict_from_object(obj, out) == -1) {
		snprintf(err, errsz, "no usable \"verdict\" in the JSON");
		rp_verdict_free(out);
	} else
		r = 0;
	cJSON_Delete(obj);
	return r;
}

void
rp_verdict_free(struct rp_verdict *v)
{
	free(v->verdict);
	free(v->reason);
	free(v->markdown);
	memset(v, 0, sizeof(*v));
}

const char *
rp_verdict_event(const char *verdict)
{
	if (strcmp(verdict, "APPROVE") == 0)
		return "APPROVED";
	if (rp_verdict_wants_changes(verdict))
		return "REQUEST_CHANGES";
	return "COMMENT";
}

int
rp_verdict_wants_changes(const char *verdict)
{
	return strcmp(verdict, "REQUEST_CHANGES") == 0 ||
	    strcmp(verdict, "DISCUSS") == 0;
}

/* The word between "**" and "**" at s (after blanks): 0, or -1. */
static int
verdict_word_after_stars(const char *s, char *out, size_t outsz)
{
	size_t n = 0;

	while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
		s++;
	if (strncmp(s, "**", 2) != 0)
		return -1;
	s += 2;
	while ((isupper((unsigned char)s[n]) || s[n] == '_') && n < outsz - 1)
		n++;
	if (n == 0 || strncmp(s + n, "**", 2) != 0)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int
rp_comment_verdict(const char *body, char *out, size_t outsz)
{
	static const char *const words[] = {"**APPROVE**",
	    "**REQUEST_CHANGES**", "**DISCUSS**"};
	const char *p, *sect = NULL, *best = NULL, *hit;
	size_t i;

	/* The heading starts a line: the reason after it never does. */
	for (p = body; (p = strstr(p, "### Verdict")) != NULL; p++)
		if (p == body || p[-1] == '\n')
			sect = p;
	if (sect != NULL &&
	    verdict_word_after_stars(sect + strlen("### Verdict"), out,
		outsz) == 0)
		return 0;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if ((hit = strstr(body, words[i])) != NULL &&
		    (best == NULL || hit < best))
			best = hit;
	return best != NULL ? verdict_word_after_stars(best, out, outsz) : -1;
}

char *
rp_review_comment(const struct rp_verdict *v, const char *sha,
    const char *prev_sha, int round)
{
	char *mark = marks_reviewed(sha);
	struct buf b;

	buf_init(&b, 0);
	/* The heading marks_review_comment() recognises, then the marker. */
	if (round > 0)
		buf_printf(&b, "## AI Re-review (round %d)\n", round);
	else
		buf_puts(&b, "## AI Review\n");
	buf_printf(&b, "%s\n\n%s\n\n", mark, v->markdown);
	free(mark);
	buf_printf(&b, "### Verdict\n**%s** — %s\n\n---\n", v->verdict,
	    v->reason[0] ? v->reason : "(no reason given)");
	buf_printf(&b, "*Reviewed at `%.7s`", sha);
	if (prev_sha != NULL && prev_sha[0] != '\0')
		buf_printf(&b, " | Previous: `%.7s`", prev_sha);
	buf_puts(&b, " | [AGENTS.md](AGENTS.md)*\n");
	return buf_steal(&b);
}

char *
rp_error_comment(const char *sha, const char *why)
{
	char *clean = verdict_clean_text(why, 300, 1), *s;
	char *mark = marks_review_error(sha);

	s = xasprintf("## AI Review — Error\n%s\nReview failed.\n\n"
		      "The review agent left no usable review (%s). The "
		      "review is tried again on later ticks, at most %d "
		      "times for this commit (this comment is posted "
		      "once); a new push starts a new review.\n\n---\n"
		      "*%.7s*\n",
	    mark, clean, RP_MAX_TRIES, sha);
	free(clean);
	free(mark);
	return s;
}

const char *
rp_comment_body(const cJSON *c)
{
	struct forge_comment cm;

	forge_comment_view(c, &cm);
	return cm.body;
}

/* Only review-poll's own comments count: they start with the heading. */
static const char *
verdict_comment_body(const cJSON *c)
{
	const char *body = rp_comment_body(c);

	return marks_review_comment(body) ? body : NULL;
}

const cJSON *
rp_last_comment_with(const cJSON *comments, const char *needle)
{
	const cJSON *c, *last = NULL;
	const char *body;

	cJSON_ArrayForEach (c, comments) {
		if ((body = verdict_comment_body(c)) != NULL &&
		    strstr(body, needle) != NULL)
			last = c;
	}
	return last;
}

int
rp_count_comments_with(const cJSON *comments, const char *needle)
{
	const cJSON *c;
	const char *body;
	int n = 0;

	cJSON_ArrayForEach (c, comments) {
		if ((body = verdict_comment_body(c)) != NULL &&
		    strstr(body, needle) != NULL)
			n++;
	}
	return n;
}

int
rp_count_reviews(const cJSON *comments)
{
	const cJSON *c;
	int n = 0;

	cJSON_ArrayForEach (c, comments)
		n += marks_has_reviewed(verdict_comment_body(c));
	return n;
}

int
rp_review_round(const cJSON *comments, const cJSON *c)
{
	const cJSON *e, *id = cJSON_GetObjectItemCaseSensitive(c, "id"), *eid;
	int n = 0;

	cJSON_ArrayForEach (e, comments) {
		n += marks_has_reviewed(verdict_comment_body(e));
		eid = cJSON_GetObjectItemCaseSensitive(e, "id");
		if (e == c ||
		    (cJSON_IsNumber(id) && cJSON_IsNumber(eid) &&
			id->valuedouble == eid->valuedouble))
			return n > 0 ? n : 1;
	}
	return 0;
}

const cJSON *
rp_previous_review(const cJSON *comments, const char *sha)
{
	const cJSON *c, *last = NULL;
	const char *body;
	char *mark = marks_reviewed(sha);

	cJSON_ArrayForEach (c, comments) {
		body = verdict_comment_body(c);
		if (marks_has_reviewed(body) && !marks_in(body, mark))
			last = c;
	}
	free(mark);
	return last;
}

const cJSON *
rp_last_dev_response(const cJSON *comments)
{
	const cJSON *c, *last = NULL;

	cJSON_ArrayForEach (c, comments)
		if (marks_dev_response(rp_comment_body(c)))
			last = c;
	return last;
}
