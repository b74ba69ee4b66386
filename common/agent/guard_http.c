/*
 * Forge API calls judged by method, path and body (see guard_http.h).
 *
 * A rule's path is a pattern matched against the end of the request's
 * path: segments of text, "#" (a number), "*" (one segment) and "+" (one
 * or more).  It is run as a small automaton over the path, where an
 * unknown part (GUARD_SHELL_UNKNOWN) may stand for any text: linear in
 * the path's length.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "guard_http.h"
#include "guard_shell.h"
#include "xmalloc.h"

/* Methods, as bits. */
#define M_GET 0x01
#define M_POST 0x02
#define M_PUT 0x04
#define M_PATCH 0x08
#define M_DELETE 0x10
#define M_OTHER 0x20
#define M_WRITE (M_POST | M_PUT | M_PATCH | M_DELETE | M_OTHER)

/* The most elements a rule's path has (checked when it is compiled). */
#define HTTP_ELEMS 64

/* A path longer than this is not judged: a write with it is refused. */
#define HTTP_PATH_MAX 4096
/* A program's API paths judged, at most, and the length of each. */
#define HTTP_SCRIPT_PATHS 32
#define HTTP_SCRIPT_PATH_MAX 256

/* What stands for an unknown part while a body is read as JSON. */
#define HTTP_HOLE "\xff\xfe?"

/* When a rule refuses, besides method and path. */
enum gh_cond {
	HB_ANY,	    /* always */
	HB_CLOSED,  /* the body sets "state" to "closed" */
	HB_LABELS,  /* the body names a label of the orchestrator */
	HB_LABELSEG /* the path's last segment is such a label */
};

struct gh_rule {
	unsigned methods;
	const char *paths[5];
	enum gh_cond cond;
	const char *what; /* "a merge" */
	const char *why;
};

#define WHY_MERGE                                                       \
	"BLOCKED: merging through the forge API is the orchestrator's " \
	"job; push your branch and write PHASE:awaiting_ci instead"
#define WHY_REVIEW                                                        \
	"BLOCKED: reviewing, approving or dismissing a review of a pull " \
	"request is the review bot's job, never the developer's; push "   \
	"your branch and write PHASE:awaiting_ci instead"
#define WHY_CLOSE                                                       \
	"BLOCKED: closing issues and PRs through the forge API is the " \
	"orchestrator's job; write PHASE:done instead"
#define WHY_LABELS                                                         \
	"BLOCKED: the labels backlog, in-progress, blocked, priority and " \
	"underspecified are the orchestrator's; say what you need in a "   \
	"comment or in the phase file instead"

static const struct gh_rule gh_rules[] = {
    {M_POST | M_PUT | M_DELETE, {"/pulls/#/merge"}, HB_ANY, "a merge",
	WHY_MERGE},
    {M_WRITE,
	{"/pulls/#/reviews", "/pulls/#/reviews/#", "/pulls/#/reviews/#/+"},
	HB_ANY, "a review", WHY_REVIEW},
    {M_PATCH | M_POST | M_PUT, {"/issues/#", "/pulls/#"}, HB_CLOSED, "a close",
	WHY_CLOSE},
    {M_WRITE, {"/statuses/*"}, HB_ANY, "a commit status",
	"BLOCKED: setting a commit status is CI's job; push and let CI run"},
    {M_WRITE,
	{"/branch_protections", "/branch_protections/+",
	    "/branches/+/protection", "/branches/+/protection/+"},
	HB_ANY, "a change of the branch protection",
	"BLOCKED: the branch protection (the reviews and checks a merge "
	"needs) is the operator's"},
    {M_DELETE | M_PATCH | M_PUT, {"/branches/+", "/git/refs/heads/+"}, HB_ANY,
	"a branch deletion",
	"BLOCKED: deleting or moving branches through the forge API is the "
	"orchestrator's job; push your own branch with git"},
    {M_PUT | M_DELETE, {"/issues/#/labels"}, HB_ANY, "a label change",
	WHY_LABELS},
    {M_POST, {"/issues/#/labels"}, HB_LABELS, "a label change", WHY_LABELS},
    {M_DELETE, {"/issues/#/labels/*"}, HB_LABELSEG, "a label change",
	WHY_LABELS},
    {M_PATCH | M_PUT | M_DELETE, {"/labels/*"}, HB_ANY,
	"a change of the repository's labels", WHY_LABELS},
    {M_WRITE, {"", "/collaborators/+", "/hooks", "/hooks/+", "/keys/+"}, HB_ANY,
	"a change of the repository's settings",
	"BLOCKED: the repository's settings, collaborators, keys and hooks "
	"are the operator's"},
    {M_WRITE, {"/contents", "/contents/+"}, HB_ANY, "a commit through the API",
	"BLOCKED: committing through the forge API bypasses your branch "
	"and its review; commit and push with git"},
    {M_PATCH | M_PUT | M_DELETE, {"/issues/comments/#"}, HB_ANY,
	"a change of a comment",
	"BLOCKED: comments hold the orchestrator's markers; write a new "
	"comment instead of editing or deleting one"},
};

#define HTTP_NRULES (sizeof(gh_rules) / sizeof(gh_rules[0]))

/* The orchestrator's labels. */
static const char *const gh_labels[] = {"backlog", "in-progress", "blocked",
    "priority", "underspecified", NULL};

/* One element of a compiled path pattern. */
struct gh_elem {
	char kind; /* 'c' a character, '#', '*', '+' */
	char c;
};

/* The automaton's states: before element k (at), or inside it (in). */
struct gh_nfa {
	const struct gh_elem *e;
	size_t n;
	int anchored; /* the pattern begins where the path does */
	unsigned char at[HTTP_ELEMS + 1], in[HTTP_ELEMS + 1];
};

struct gh_call;
struct gh_interp;

/* Automaton steps, for the fuzz harness's bound (guard_http.h). */
static unsigned long long gh_work;

static unsigned gh_method_bits(const char *);
static char *gh_path(const char *);
static size_t gh_compile(const char *, struct gh_elem *);
static int gh_elem_takes(const struct gh_elem *, char);
static void gh_step(struct gh_nfa *, char, int);
static int gh_path_matches(const char *, const char *, const char *, int);
static const char *gh_repo(const char *);
static int gh_is_label(const char *);
static cJSON *gh_json(const char *);
static int gh_form_value(const char *, const char *, int (*)(const char *));
static int gh_value_closes(const char *);
static int gh_value_label(const char *);
static int gh_body_closes(const struct guard_http_req *);
static int gh_body_labels(const struct guard_http_req *);
static int gh_cond(const struct gh_rule *, const struct guard_http_req *,
    const char *);
static int has_path_unknown(const char *);
static int gh_cond_unknown(const struct gh_rule *,
    const struct guard_http_req *);
static int gh_judge(const struct guard_http_req *, unsigned, int, char *,
    size_t);
static int gh_unknown_why(const struct gh_rule *, int, int, int, char *,
    size_t);
static void gh_call_init(struct gh_call *);
static void gh_call_free(struct gh_call *);
static void gh_call_method(struct gh_call *, const char *);
static void gh_call_url(struct gh_call *, const char *);
static void gh_call_body(struct gh_call *, const char *, const char *);
static char *gh_read(const struct guard_http_io *, const char *, int);
static void gh_call_file(struct gh_call *, const char *, const char *,
    const struct guard_http_io *);
static int gh_call_judge(const struct gh_call *, const char *, char *, size_t);
static int gh_one_of(const char *, const char *const *);
static int gh_opt_is(const char *, const char *, const char *);
static void gh_curl_opt(struct gh_call *, const char *, const char *,
    const struct guard_http_io *, int *);
static int gh_httpie_method(const char *);
static int gh_curl(char *const *, size_t, const struct guard_http_io *, char *,
    size_t);
static int gh_wget(char *const *, size_t, const struct guard_http_io *, char *,
    size_t);
static void gh_httpie_item(struct gh_call *, const char *,
    const struct guard_http_io *);
static int gh_httpie(char *const *, size_t, const struct guard_http_io *,
    char *, size_t);
static int gh_verb(const char *, const char *, const char *, char *, size_t);
static int gh_cli_api(char *const *, size_t, const struct guard_http_io *,
    char *, size_t);
static char *gh_opt_values(char *const *, size_t, const char *);
static int gh_forge_cli(const char *, char *const *, size_t,
    const struct guard_http_io *, char *, size_t);
static int gh_word_in(const char *, const char *);
static unsigned gh_script_methods(const char *);
static char *gh_script_path(const char *, size_t *);
static int gh_script(const char *, char *, size_t);
static const struct gh_interp *gh_interp(const char *);
static char *gh_program(const struct gh_interp *, char *const *, size_t,
    const struct guard_http_io *);

/* The method's bit; every writing one when it is unknown. */
static unsigned
gh_method_bits(const char *m)
{
	static const struct {
		const char *name;
		unsigned bit;
	} t[] = {{"GET", M_GET}, {"HEAD", M_GET}, {"OPTIONS", M_GET},
	    {"POST", M_POST}, {"PUT", M_PUT}, {"PATCH", M_PATCH},
	    {"DELETE", M_DELETE}};
	size_t i;

	if (m == NULL || guard_shell_has_unknown(m))
		return M_WRITE;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcasecmp(m, t[i].name) == 0)
			return t[i].bit;
	return M_OTHER;
}

/*
 * The path of url: no scheme and host, no query or fragment,
 * percent-escapes decoded, no repeated or trailing slash; a relative
 * one ("repos/o/r/pulls", as gh takes it) made absolute.  An unknown
 * start stands for any host and any path before.  Caller frees.
 */
static char *
gh_path(const char *url)
{
	const char *p = url, *scheme = strstr(url, "://");
	struct buf b;
	size_t first = strcspn(url, "/");
	char hex[3] = {0};

	if (scheme != NULL && (size_t)(scheme - url) < first)
		p = scheme + 3 + strcspn(scheme + 3, "/");
	else if (*p != '/' && *p != GUARD_SHELL_UNKNOWN &&
	    (memchr(p, ':', first) != NULL || memchr(p, '.', first) != NULL ||
		strncmp(p, "localhost", 9) == 0))
		p += first;
	buf_init(&b, 0);
	if (*p != '/' && *p != GUARD_SHELL_UNKNOWN)
		buf_puts(&b, "/");
	for (; *p != '\0' && *p != '?' && *p != '#'; p++) {
		char c = *p;

		if (c == '%' && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2])) {
			memcpy(hex, p + 1, 2);
			c = (char)strtol(hex, NULL, 16);
			p += 2;
		}
		if (c == '/' && b.len > 0 && b.data[b.len - 1] == '/')
			continue;
		buf_append(&b, &c, 1);
	}
	while (b.len > 1 && b.data[b.len - 1] == '/')
		b.data[--b.len] = '\0';
	return buf_steal(&b);
}

/* A rule's path into elements: their count. */
static size_t
gh_compile(const char *pat, struct gh_elem *e)
{
	size_t n = 0;

	for (; *pat != '\0' && n < HTTP_ELEMS; pat++) {
		if ((*pat == '#' || *pat == '*' || *pat == '+') &&
		    pat[-1] == '/' && (pat[1] == '/' || pat[1] == '\0'))
			e[n++] = (struct gh_elem) {*pat, 0};
		else
			e[n++] = (struct gh_elem) {'c', *pat};
	}
	return n;
}

/* Whether element e takes character c. */
static int
gh_elem_takes(const struct gh_elem *e, char c)
{
	switch (e->kind) {
	case 'c':
		return c == e->c;
	case '#':
		return isdigit((unsigned char)c);
	case '*':
		return c != '/';
	default:
		return 1;
	}
}

/*
 * One character of the path.  An unknown part matches nothing when
 * strict (lenient 0), what a number or a name may match (1), any text
 * within one segment (2), any text (3).  Unless anchored, a pattern may
 * begin anywhere: state 0 is always on.
 */
static void
gh_step(struct gh_nfa *a, char c, int lenient)
{
	unsigned char at[HTTP_ELEMS + 1] = {0}, in[HTTP_ELEMS + 1] = {0};
	size_t k;
	int on = 0;

	if (c == GUARD_SHELL_UNKNOWN && lenient == 3) {
		memset(a->at, 1, a->n + 1);
		for (k = 0; k < a->n; k++)
			a->in[k] = a->e[k].kind != 'c';
		return;
	}
	if (c == GUARD_SHELL_UNKNOWN && !lenient) {
		memset(a->at, 0, sizeof(a->at));
		memset(a->in, 0, sizeof(a->in));
		a->at[0] = !a->anchored;
		return;
	}
	if (c == GUARD_SHELL_UNKNOWN && lenient == 1) {
		/* Inside a number or a name, or nothing at all. */
		for (k = a->n; k-- > 0;)
			if ((a->at[k] || a->in[k]) && a->e[k].kind != 'c')
				a->in[k] = a->at[k + 1] = 1;
		return;
	}
	if (c == GUARD_SHELL_UNKNOWN && lenient == 2) {
		/* From each state on, forward to the next '/' of the pattern.
		 */
		for (k = 0; k <= a->n; k++) {
			on |= a->at[k] || (k < a->n && a->in[k]);
			if (!on)
				continue;
			a->at[k] = 1;
			if (k == a->n ||
			    (a->e[k].kind == 'c' && a->e[k].c == '/')) {
				on = 0;
				continue;
			}
			if (a->e[k].kind != 'c')
				a->in[k] = 1;
		}
		return;
	}
	for (k = 0; k < a->n && c != GUARD_SHELL_UNKNOWN; k++) {
		if (a->at[k] && gh_elem_takes(&a->e[k], c)) {
			if (a->e[k].kind == 'c')
				at[k + 1] = 1;
			else if (c != '/')
				in[k] = 1;
		}
		if (a->in[k] && gh_elem_takes(&a->e[k], c))
			in[k] = 1;
	}
	for (k = 0; k < a->n; k++)
		if (in[k])
			at[k + 1] = 1;
	at[0] = !a->anchored;
	memcpy(a->at, at, sizeof(at));
	memcpy(a->in, in, sizeof(in));
}

/*
 * Whether path matches the pattern pat: from repo ("/repos/OWNER/NAME"
 * in path, when it has one) to its end as the repository's path then
 * pat; else at its end (pat "" is the repository itself).
 */
static int
gh_path_matches(const char *pat, const char *path, const char *repo,
    int lenient)
{
	struct gh_elem e[HTTP_ELEMS];
	struct gh_nfa a;
	const char *p;
	char full[128];

	snprintf(full, sizeof(full), "%s%s",
	    repo != NULL || *pat == '\0' ? "/repos/*/*" : "", pat);
	memset(&a, 0, sizeof(a));
	a.e = e;
	a.n = gh_compile(full, e);
	a.anchored = repo != NULL;
	a.at[0] = 1;
	for (p = repo != NULL ? repo : path; *p != '\0'; p++) {
		gh_work += a.n + 1;
		/* Only an unknown start (the host, the API's root) may hold
		 * any path; within it a variable is one segment at most. */
		gh_step(&a, *p, lenient == 3 && p > path ? 2 : lenient);
	}
	return a.at[a.n];
}

/*
 * Where "/repos/OWNER/NAME" starts in path when it has one that can be
 * told (neither name unknown), else NULL.
 */
static const char *
gh_repo(const char *path)
{
	const char *p = strstr(path, "/repos/"), *q;
	size_t k, n;

	if (p == NULL)
		return NULL;
	for (q = p + 7, k = 0; k < 2; k++) {
		n = strcspn(q, "/");
		if (n == 0 || memchr(q, GUARD_SHELL_UNKNOWN, n) != NULL ||
		    (k == 0 && q[n] != '/'))
			return NULL;
		q += n + (k == 0);
	}
	return p;
}

static int
gh_is_label(const char *s)
{
	size_t i;

	for (i = 0; gh_labels[i] != NULL; i++)
		if (strcasecmp(s, gh_labels[i]) == 0)
			return 1;
	return 0;
}

/* The body as a JSON value, unknown parts as HTTP_HOLE; or NULL. */
static cJSON *
gh_json(const char *body)
{
	struct buf b;
	cJSON *j;

	buf_init(&b, 0);
	for (; *body != '\0'; body++) {
		if (*body == GUARD_SHELL_UNKNOWN)
			buf_puts(&b, HTTP_HOLE);
		else
			buf_append(&b, body, 1);
	}
	j = cJSON_ParseWithLength(buf_str(&b), b.len);
	buf_free(&b);
	return j;
}

/*
 * The fields key=value of a form body ('&' between them, ':=' too, as
 * httpie writes JSON fields) named key, each value split on ','
 * through test: 1 when one is, -1 when one may be, else 0.
 */
static int
gh_form_value(const char *body, const char *key, int (*test)(const char *))
{
	char *copy = xstrdup(body), *field, *save = NULL, *eq, *v, *vs = NULL;
	size_t klen = strlen(key);
	int r = 0, t;

	for (field = strtok_r(copy, "&\n", &save); field != NULL && r != 1;
	     field = strtok_r(NULL, "&\n", &save)) {
		field += strspn(field, " ");
		eq = strchr(field, '=');
		if (eq == NULL)
			continue;
		if (!((size_t)(eq - field) == klen &&
			strncmp(field, key, klen) == 0) &&
		    !((size_t)(eq - field) == klen + 1 && eq[-1] == ':' &&
			strncmp(field, key, klen) == 0) &&
		    !guard_shell_has_unknown(field))
			continue;
		for (v = strtok_r(eq + 1, ",", &vs); v != NULL && r != 1;
		     v = strtok_r(NULL, ",", &vs)) {
			v += strspn(v, " \"'[");
			v[strcspn(v, "\"']")] = '\0';
			t = test(v);
			/* A field whose name is unknown may be this one. */
			if (t == 1 &&
			    memchr(field, GUARD_SHELL_UNKNOWN,
				(size_t)(eq - field)) != NULL)
				t = -1;
			r = t == 1 ? 1 : (t == -1 ? -1 : r);
		}
	}
	free(copy);
	return r;
}

static int
gh_value_closes(const char *v)
{
	if (strstr(v, HTTP_HOLE) != NULL || guard_shell_has_unknown(v))
		return -1;
	return strcasecmp(v, "closed") == 0;
}

/* A label's name or ID: the orchestrator's (or any ID: whose?). */
static int
gh_value_label(const char *v)
{
	if (strstr(v, HTTP_HOLE) != NULL || guard_shell_has_unknown(v))
		return -1;
	return gh_is_label(v) ||
	    (*v != '\0' && v[strspn(v, "0123456789")] == '\0');
}

/* Whether the body closes: 1, 0, or -1 when it cannot be told. */
static int
gh_body_closes(const struct guard_http_req *r)
{
	const cJSON *item;
	cJSON *j;
	int res = 0, t;

	if (r->body_unknown)
		return -1;
	if (r->body == NULL)
		return 0;
	if ((j = gh_json(r->body)) == NULL) {
		t = gh_form_value(r->body, "state", gh_value_closes);
		return t == 0 && guard_shell_has_unknown(r->body) ? -1 : t;
	}
	cJSON_ArrayForEach (item, j) {
		const char *k = item->string != NULL ? item->string : "";
		const char *v = cJSON_GetStringValue(item);

		if (strcmp(k, "state") != 0 && strstr(k, HTTP_HOLE) == NULL)
			continue;
		t = v != NULL ? gh_value_closes(v) : 0;
		if (t == 1 && strstr(k, HTTP_HOLE) != NULL)
			t = -1;
		if (t == 1 || (t == -1 && res == 0))
			res = t;
	}
	cJSON_Delete(j);
	return res;
}

/* Whether the body names one of the orchestrator's labels: 1, 0, -1. */
static int
gh_body_labels(const struct guard_http_req *r)
{
	const cJSON *list, *item;
	cJSON *j;
	int res = 0, t;

	if (r->body_unknown)
		return -1;
	if (r->body == NULL)
		return 0;
	if ((j = gh_json(r->body)) == NULL) {
		t = gh_form_value(r->body, "labels", gh_value_label);
		return t == 0 && guard_shell_has_unknown(r->body) ? -1 : t;
	}
	list = cJSON_IsObject(j) ?
	    cJSON_GetObjectItemCaseSensitive(j, "labels") :
	    j;
	cJSON_ArrayForEach (item, list) {
		if (cJSON_IsNumber(item))
			t = 1;
		else if (cJSON_GetStringValue(item) != NULL)
			t = gh_value_label(cJSON_GetStringValue(item));
		else
			t = -1;
		if (t == 1 || (t == -1 && res == 0))
			res = t;
	}
	cJSON_ArrayForEach (item, j)
		if (res == 0 && item->string != NULL &&
		    strstr(item->string, HTTP_HOLE) != NULL)
			res = -1;
	cJSON_Delete(j);
	return res;
}

/* Whether the rule's condition holds for the request: 1, 0, -1. */
static int
gh_cond(const struct gh_rule *rule, const struct guard_http_req *r,
    const char *path)
{
	const char *last;

	switch (rule->cond) {
	case HB_ANY:
		return 1;
	case HB_CLOSED:
		return gh_body_closes(r);
	case HB_LABELS:
		return gh_body_labels(r);
	case HB_LABELSEG:
		last = strrchr(path, '/');
		return gh_value_label(last != NULL ? last + 1 : path);
	}
	return 1;
}

static int
has_path_unknown(const char *url)
{
	return url == NULL || guard_shell_has_unknown(url);
}

/* Whether the rule's condition on the body could not be told. */
static int
gh_cond_unknown(const struct gh_rule *rule, const struct guard_http_req *r)
{
	return (rule->cond == HB_CLOSED && gh_body_closes(r) == -1) ||
	    (rule->cond == HB_LABELS && gh_body_labels(r) == -1);
}

/* The refusal of a call that may be the rule's: what was unknown. */
static int
gh_unknown_why(const struct gh_rule *rule, int method, int url, int body,
    char *why, size_t whysz)
{
	return guard_shell_refuse(why, whysz,
	    "BLOCKED: this request may be %s, which agents may not make: the "
	    "guard cannot tell %s%s%s%s%s (from a variable or a command's "
	    "output it cannot see); write the method, the URL and the body "
	    "literally (the body may be in a file) so that the request can "
	    "be checked",
	    rule->what, method ? "its method" : "",
	    method && (url || body) ? (url && body ? ", " : " or ") : "",
	    url ? "its URL" : "", url && body ? " or " : "",
	    body ? "its body" : "");
}

int
guard_http_judge(const struct guard_http_req *r, char *why, size_t whysz)
{
	unsigned m = gh_method_bits(r->method);

	return gh_judge(r, m, m == M_WRITE, why, whysz);
}

/*
 * The request r with the methods m (mu: which of them is unknown): the
 * first rule it surely breaks refuses it with the rule's reason; else
 * the rule it may break that is the likeliest refuses it, saying what
 * could not be told.
 */
static int
gh_judge(const struct guard_http_req *r, unsigned m, int mu, char *why,
    size_t whysz)
{
	const struct gh_rule *maybe = NULL;
	int best = 4, level, levels, c;
	const char *repo;
	char *path;
	size_t i, k;

	if ((m & M_WRITE) == 0)
		return 0;
	path = gh_path(
	    r->url != NULL ? r->url : (char[]) {GUARD_SHELL_UNKNOWN, 0});
	if (strlen(path) > HTTP_PATH_MAX) {
		free(path);
		return guard_shell_refuse(why, whysz,
		    "BLOCKED: the URL of this request is too long to be "
		    "checked");
	}
	levels = guard_shell_has_unknown(path) ? 4 : 1;
	repo = gh_repo(path);
	for (i = 0; i < HTTP_NRULES; i++) {
		const struct gh_rule *rule = &gh_rules[i];

		if ((rule->methods & m) == 0)
			continue;
		/*
		 * The least leniency at which one of its paths matches (a
		 * level matches what the one below does: the most lenient
		 * first, which most rules fail).
		 */
		for (level = levels; level-- > 0;) {
			for (k = 0; k < 5 && rule->paths[k] != NULL; k++)
				if (gh_path_matches(rule->paths[k], path, repo,
					level))
					break;
			if (k == 5 || rule->paths[k] == NULL) {
				level++;
				break;
			}
			if (level == 0)
				break;
		}
		if (level == levels || (c = gh_cond(rule, r, path)) == 0)
			continue;
		/* A variable standing for a number or a name is one. */
		if (!mu && level <= 1 && c == 1) {
			free(path);
			return guard_shell_refuse(why, whysz, "%s", rule->why);
		}
		level += c == -1 || mu;
		if (level < best) {
			best = level;
			maybe = rule;
		}
	}
	free(path);
	if (maybe == NULL)
		return 0;
	return gh_unknown_why(maybe, mu, has_path_unknown(r->url),
	    gh_cond_unknown(maybe, r), why, whysz);
}

/* A request put together from a client's words. */
struct gh_call {
	char *method; /* NULL: the client's default */
	char **urls;
	size_t nurls;
	struct buf body;
	int has_body;
	int body_unknown;
};

static void
gh_call_init(struct gh_call *c)
{
	memset(c, 0, sizeof(*c));
	buf_init(&c->body, 0);
}

static void
gh_call_free(struct gh_call *c)
{
	size_t i;

	free(c->method);
	for (i = 0; i < c->nurls; i++)
		free(c->urls[i]);
	free(c->urls);
	buf_free(&c->body);
}

static void
gh_call_method(struct gh_call *c, const char *m)
{
	free(c->method);
	c->method = xstrdup(m);
}

static void
gh_call_url(struct gh_call *c, const char *u)
{
	c->urls = xreallocarray(c->urls, c->nurls + 1, sizeof(*c->urls));
	c->urls[c->nurls++] = xstrdup(u);
}

/* A part of the body (parts joined by '&', as form fields are). */
static void
gh_call_body(struct gh_call *c, const char *prefix, const char *text)
{
	if (c->has_body && c->body.len > 0)
		buf_puts(&c->body, "&");
	buf_puts(&c->body, prefix);
	buf_puts(&c->body, text);
	c->has_body = 1;
}

/* The text of the file word names ("-": the input), or NULL. */
static char *
gh_read(const struct guard_http_io *io, const char *word, int script)
{
	if (strcmp(word, "-") == 0)
		return io->input != NULL ? xstrdup(io->input) : NULL;
	if (io->read == NULL || guard_shell_has_unknown(word))
		return NULL;
	return io->read(io->arg, word, script);
}

/* A part of the body read from a file (word), or unknown. */
static void
gh_call_file(struct gh_call *c, const char *prefix, const char *word,
    const struct guard_http_io *io)
{
	char *text = gh_read(io, word, 0);

	c->has_body = 1;
	if (text == NULL)
		c->body_unknown = 1;
	else
		gh_call_body(c, prefix, text);
	free(text);
}

/* Judge every URL of the call (none: an unknown one) with method. */
static int
gh_call_judge(const struct gh_call *c, const char *method, char *why,
    size_t whysz)
{
	struct guard_http_req r;
	size_t i;

	r.method = method;
	r.body = c->has_body ? buf_str(&c->body) : NULL;
	r.body_unknown = c->body_unknown;
	if (c->nurls == 0) {
		r.url = (char[]) {GUARD_SHELL_UNKNOWN, 0};
		return guard_http_judge(&r, why, whysz);
	}
	for (i = 0; i < c->nurls; i++) {
		r.url = c->urls[i];
		if (guard_http_judge(&r, why, whysz))
			return 1;
	}
	return 0;
}

static int
gh_one_of(const char *w, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(w, *list) == 0)
			return 1;
	return 0;
}

/* curl's long options that take a value (the ones agents use). */
static const char *const gh_curl_valued[] = {"--data", "--data-ascii",
    "--data-binary", "--data-raw", "--data-urlencode", "--json", "--form",
    "--form-string", "--header", "--proxy-header", "--request", "--url",
    "--output", "--user", "--referer", "--user-agent", "--cookie",
    "--cookie-jar", "--continue-at", "--dump-header", "--config", "--max-time",
    "--connect-timeout", "--retry", "--retry-delay", "--retry-max-time",
    "--proxy", "--proxy-user", "--cacert", "--capath", "--cert", "--cert-type",
    "--key", "--key-type", "--pass", "--range", "--speed-limit", "--speed-time",
    "--time-cond", "--upload-file", "--write-out", "--interface", "--resolve",
    "--connect-to", "--limit-rate", "--max-filesize", "--max-redirs",
    "--oauth2-bearer", "--output-dir", "--stderr", "--trace", "--trace-ascii",
    "--unix-socket", "--abstract-unix-socket", "--variable", "--url-query",
    "--aws-sigv4", "--proto", "--proto-redir", "--noproxy", "--local-port",
    "--dns-servers", "--ciphers", "--expect100-timeout", "--netrc-file",
    "--preproxy", "--quote", "--request-target", "--socks5",
    "--socks5-hostname", "--tls-max", "--create-file-mode", "--etag-compare",
    "--etag-save", NULL};

/* Whether name is one of a curl option's names (short or long). */
static int
gh_opt_is(const char *name, const char *s, const char *l)
{
	return (s != NULL && strcmp(name, s) == 0) ||
	    (l != NULL && strcmp(name, l) == 0);
}

/* What a curl option does to the call (name: the long name, or "-X"). */
static void
gh_curl_opt(struct gh_call *c, const char *name, const char *v,
    const struct guard_http_io *io, int *mode)
{
	const char *at;

	if (gh_opt_is(name, "-X", "--request"))
		gh_call_method(c, v);
	else if (gh_opt_is(name, "-G", "--get"))
		*mode = 'G';
	else if (gh_opt_is(name, "-I", "--head") && *mode != 'G')
		*mode = 'I';
	else if (gh_opt_is(name, NULL, "--url"))
		gh_call_url(c, v);
	else if (gh_opt_is(name, "-T", "--upload-file")) {
		*mode = *mode == 0 ? 'T' : *mode;
		gh_call_file(c, "", v, io);
	} else if (gh_opt_is(name, "-K", "--config") ||
	    gh_opt_is(name, NULL, "--variable")) {
		/* Options from elsewhere: anything may come. */
		gh_call_method(c, (char[]) {GUARD_SHELL_UNKNOWN, 0});
		gh_call_url(c, (char[]) {GUARD_SHELL_UNKNOWN, 0});
		c->has_body = c->body_unknown = 1;
	} else if (gh_opt_is(name, NULL, "--data-raw") ||
	    gh_opt_is(name, NULL, "--form-string"))
		gh_call_body(c, "", v);
	else if (gh_opt_is(name, NULL, "--data-urlencode")) {
		if ((at = strchr(v, '@')) != NULL &&
		    (strchr(v, '=') == NULL || strchr(v, '=') > at)) {
			char *key = xstrndup(v, (size_t)(at - v));
			char *prefix = xasprintf("%s%s", key, *key ? "=" : "");

			gh_call_file(c, prefix, at + 1, io);
			free(prefix);
			free(key);
		} else
			gh_call_body(c, "", v[0] == '=' ? v + 1 : v);
	} else if (gh_opt_is(name, "-F", "--form")) {
		at = strchr(v, '=');
		if (at != NULL && (at[1] == '@' || at[1] == '<')) {
			char *prefix = xstrndup(v, (size_t)(at - v) + 1);

			gh_call_file(c, prefix, at + 2, io);
			free(prefix);
		} else
			gh_call_body(c, "", v);
	} else if (gh_opt_is(name, "-d", "--data") ||
	    gh_opt_is(name, NULL, "--data-ascii") ||
	    gh_opt_is(name, NULL, "--data-binary") ||
	    gh_opt_is(name, NULL, "--json")) {
		if (v[0] == '@')
			gh_call_file(c, "", v + 1, io);
		else
			gh_call_body(c, "", v);
	}
}

/* curl: -X, -d and the like in any order, URLs anywhere. */
static int
gh_curl(char *const *w, size_t n, const struct guard_http_io *io, char *why,
    size_t whysz)
{
	static const char short_valued[] = "AbcCdDeEFHKmoPQrtTuUwxXyYz";
	struct gh_call c;
	char opt[3] = "-?", *name;
	const char *v, *method;
	size_t i, k, len;
	int mode = 0, r;

	gh_call_init(&c);
	for (i = 1; i < n; i++) {
		const char *a = w[i];

		if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
			len = strcspn(a, "=");
			name = xstrndup(a, len);
			if (a[len] == '=')
				v = a + len + 1;
			else if (gh_one_of(name, gh_curl_valued) && i + 1 < n)
				v = w[++i];
			else
				v = "";
			gh_curl_opt(&c, name, v, io, &mode);
			free(name);
		} else if (a[0] == '-' && a[1] != '\0') {
			for (k = 1; a[k] != '\0'; k++) {
				opt[1] = a[k];
				if (strchr(short_valued, a[k]) == NULL) {
					gh_curl_opt(&c, opt, "", io, &mode);
					continue;
				}
				if (a[k + 1] != '\0')
					v = a + k + 1;
				else
					v = i + 1 < n ? w[++i] : "";
				gh_curl_opt(&c, opt, v, io, &mode);
				break;
			}
		} else
			gh_call_url(&c, a);
	}
	if (c.method != NULL)
		method = c.method;
	else if (mode == 'I' || mode == 'G')
		method = mode == 'I' ? "HEAD" : "GET";
	else if (mode == 'T')
		method = "PUT";
	else
		method = c.has_body ? "POST" : "GET";
	if (mode == 'G')
		c.has_body = c.body_unknown = 0;
	r = gh_call_judge(&c, method, why, whysz);
	gh_call_free(&c);
	return r;
}

/* wget: --method, --post-data, --post-file, --body-data, --body-file. */
static int
gh_wget(char *const *w, size_t n, const struct guard_http_io *io, char *why,
    size_t whysz)
{
	static const char short_valued[] = "OoaeiBtTwQlARDIXPU";
	struct gh_call c;
	const char *a, *v;
	size_t i, len;
	int post = 0, r;

	gh_call_init(&c);
	for (i = 1; i < n; i++) {
		a = w[i];
		if (a[0] == '-' && a[1] == '-') {
			len = strcspn(a, "=");
			v = a[len] == '=' ? a + len + 1 : "";
			if (len == 8 && strncmp(a, "--method", len) == 0)
				gh_call_method(&c, v);
			else if (strncmp(a, "--post-data", 11) == 0 ||
			    strncmp(a, "--body-data", 11) == 0) {
				post |= a[2] == 'p';
				gh_call_body(&c, "", v);
			} else if (strncmp(a, "--post-file", 11) == 0 ||
			    strncmp(a, "--body-file", 11) == 0) {
				post |= a[2] == 'p';
				gh_call_file(&c, "", v, io);
			} else if (strncmp(a, "--input-file", 12) == 0)
				gh_call_url(&c,
				    (char[]) {GUARD_SHELL_UNKNOWN, 0});
		} else if (a[0] == '-' && a[1] != '\0') {
			if (a[1] == 'i')
				gh_call_url(&c,
				    (char[]) {GUARD_SHELL_UNKNOWN, 0});
			len = strlen(a);
			if (strchr(short_valued, a[len - 1]) != NULL &&
			    i + 1 < n)
				i++;
		} else
			gh_call_url(&c, a);
	}
	r = gh_call_judge(&c,
	    c.method != NULL ? c.method : (post ? "POST" : "GET"), why, whysz);
	gh_call_free(&c);
	return r;
}

/* httpie's (and xh's) options that take a value. */
static const char *const gh_httpie_valued[] = {"-a", "--auth", "-A",
    "--auth-type", "-o", "--output", "--session", "--session-read-only",
    "--verify", "--cert", "--cert-key", "--ssl", "--ciphers", "--timeout", "-p",
    "--print", "--pretty", "-s", "--style", "--proxy", "--boundary",
    "--default-scheme", "--format-options", "--max-redirects", "--max-headers",
    "--response-charset", "--response-mime", NULL};

/* One request item of httpie: k=v, k:=json, k==query, H:v, k@file. */
static void
gh_httpie_item(struct gh_call *c, const char *a, const struct guard_http_io *io)
{
	size_t p = strcspn(a, ":=@");
	char *key = xstrndup(a, p), *prefix = xasprintf("%s=", key);

	if (a[p] == '=' && a[p + 1] == '=')
		; /* a query parameter */
	else if (a[p] == '=' && a[p + 1] == '@')
		gh_call_file(c, prefix, a + p + 2, io);
	else if (a[p] == ':' && a[p + 1] == '=' && a[p + 2] == '@')
		gh_call_file(c, prefix, a + p + 3, io);
	else if (a[p] == ':' && a[p + 1] == '=')
		gh_call_body(c, prefix, a + p + 2);
	else if (a[p] == '=')
		gh_call_body(c, prefix, a + p + 1);
	else if (a[p] == '@')
		gh_call_file(c, prefix, a + p + 1, io);
	free(prefix);
	free(key);
}

/* Whether a word of httpie is a method (letters only, before the URL). */
static int
gh_httpie_method(const char *a)
{
	return *a != '\0' &&
	    a[strspn(a,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")] ==
	    '\0';
}

/* http, https, xh, xhs: [METHOD] URL ITEM... */
static int
gh_httpie(char *const *w, size_t n, const struct guard_http_io *io, char *why,
    size_t whysz)
{
	struct gh_call c;
	const char *a;
	size_t i, pos = 0, len;
	int r;

	gh_call_init(&c);
	for (i = 1; i < n; i++) {
		a = w[i];
		if (a[0] == '-' && a[1] != '\0') {
			len = strcspn(a, "=");
			if (len == 5 && strncmp(a, "--raw", 5) == 0) {
				if (a[len] == '=')
					gh_call_body(&c, "", a + len + 1);
				else if (i + 1 < n)
					gh_call_body(&c, "", w[++i]);
			} else if (a[len] != '=' &&
			    gh_one_of(a, gh_httpie_valued) && i + 1 < n)
				i++;
			continue;
		}
		if (pos == 0 && gh_httpie_method(a) && i + 1 < n) {
			gh_call_method(&c, a);
			pos++;
		} else if (c.nurls == 0) {
			gh_call_url(&c, a);
			pos++;
		} else
			gh_httpie_item(&c, a, io);
	}
	if (!c.has_body && c.method != NULL && io->input != NULL)
		gh_call_body(&c, "", io->input);
	r = gh_call_judge(&c,
	    c.method != NULL ? c.method : (c.has_body ? "POST" : "GET"), why,
	    whysz);
	gh_call_free(&c);
	return r;
}

/* One request made by a forge CLI's verb. */
static int
gh_verb(const char *method, const char *path, const char *body, char *why,
    size_t whysz)
{
	struct guard_http_req r = {method, path, body, 0};

	return guard_http_judge(&r, why, whysz);
}

/* gh api: -X, -f/-F fields (a value @file is read), --input. */
static int
gh_cli_api(char *const *w, size_t n, const struct guard_http_io *io, char *why,
    size_t whysz)
{
	static const char *const valued[] = {"-H", "--header", "-q", "--jq",
	    "-t", "--template", "--hostname", "--cache", "-p", "--preview",
	    NULL};
	struct gh_call c;
	const char *a, *v, *at;
	size_t i;
	int r;

	gh_call_init(&c);
	for (i = 2; i < n; i++) {
		a = w[i];
		v = i + 1 < n ? w[i + 1] : "";
		at = strchr(v, '@');
		if (strcmp(a, "-X") == 0 || strcmp(a, "--method") == 0) {
			gh_call_method(&c, v);
			i++;
		} else if (strncmp(a, "--method=", 9) == 0)
			gh_call_method(&c, a + 9);
		else if ((strcmp(a, "-F") == 0 || strcmp(a, "--field") == 0) &&
		    at != NULL && at == strchr(v, '=') + 1) {
			char *prefix = xstrndup(v, (size_t)(at - v));

			gh_call_file(&c, prefix, at + 1, io);
			free(prefix);
			i++;
		} else if (strcmp(a, "-f") == 0 ||
		    strcmp(a, "--raw-field") == 0 || strcmp(a, "-F") == 0 ||
		    strcmp(a, "--field") == 0) {
			gh_call_body(&c, "", v);
			i++;
		} else if (strcmp(a, "--input") == 0) {
			gh_call_file(&c, "", v, io);
			i++;
		} else if (gh_one_of(a, valued))
			i++;
		else if (a[0] != '-')
			gh_call_url(&c, a);
	}
	r = gh_call_judge(&c,
	    c.method != NULL ? c.method : (c.has_body ? "POST" : "GET"), why,
	    whysz);
	gh_call_free(&c);
	return r;
}

/* The values of option opt (--opt X, --opt=X) among w, comma-joined. */
static char *
gh_opt_values(char *const *w, size_t n, const char *opt)
{
	struct buf b;
	size_t i, len = strlen(opt);

	buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(w[i], opt) == 0 && i + 1 < n)
			buf_printf(&b, "%s%s", b.len ? "," : "", w[++i]);
		else if (strncmp(w[i], opt, len) == 0 && w[i][len] == '=')
			buf_printf(&b, "%s%s", b.len ? "," : "",
			    w[i] + len + 1);
	}
	return buf_steal(&b);
}

/*
 * gh and tea: their verbs as the requests they make ("0" for the
 * number of the PR or issue they find themselves).
 */
static int
gh_forge_cli(const char *name, char *const *w, size_t n,
    const struct guard_http_io *io, char *why, size_t whysz)
{
	static const char *const judging[] = {"review", "approve", "lgtm",
	    "reject", NULL};
	static const char *const settings[] = {"edit", "delete", "rename",
	    "archive", NULL};
	const char *noun = NULL, *verb = NULL;
	char *add, *rm, *body;
	size_t i;
	int r = 0, pulls;

	for (i = 1; i < n && verb == NULL; i++)
		if (w[i][0] != '-') {
			if (noun == NULL)
				noun = w[i];
			else
				verb = w[i];
		}
	if (strcmp(name, "gh") == 0 && noun != NULL && strcmp(noun, "api") == 0)
		return gh_cli_api(w, n, io, why, whysz);
	if (noun == NULL || verb == NULL)
		return 0;
	pulls = strncmp(noun, "pr", 2) == 0 || strncmp(noun, "pull", 4) == 0;
	if (strcmp(verb, "merge") == 0 || strcmp(verb, "m") == 0)
		return gh_verb("PUT", "/pulls/0/merge", NULL, why, whysz);
	if (strcmp(verb, "close") == 0)
		return gh_verb("PATCH", pulls ? "/pulls/0" : "/issues/0",
		    "state=closed", why, whysz);
	if (gh_one_of(verb, judging))
		return gh_verb("POST", "/pulls/0/reviews", NULL, why, whysz);
	if (strncmp(noun, "label", 5) == 0 && gh_one_of(verb, settings))
		return gh_verb("PATCH", "/labels/0", NULL, why, whysz);
	if (strcmp(noun, "repo") == 0 && gh_one_of(verb, settings))
		return gh_verb("PATCH", "/repos/o/r", NULL, why, whysz);
	add = gh_opt_values(w, n, "--add-label");
	rm = gh_opt_values(w, n, "--remove-label");
	body = xasprintf("labels=%s%s%s", add, *add && *rm ? "," : "", rm);
	if (*add != '\0' || *rm != '\0')
		r = gh_verb("POST", "/issues/0/labels", body, why, whysz);
	free(body);
	free(rm);
	free(add);
	return r;
}

/* Whether word occurs in text as a whole word. */
static int
gh_word_in(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = text; (p = strstr(p, word)) != NULL; p++)
		if ((p == text || !isalnum((unsigned char)p[-1])) &&
		    !isalnum((unsigned char)p[n]))
			return 1;
	return 0;
}

/* The writing methods a program's text names, as bits. */
static unsigned
gh_script_methods(const char *text)
{
	static const struct {
		const char *upper, *call;
		unsigned bit;
	} t[] = {{"POST", ".post(", M_POST}, {"PUT", ".put(", M_PUT},
	    {"PATCH", ".patch(", M_PATCH}, {"DELETE", ".delete(", M_DELETE}};
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (gh_word_in(text, t[i].upper) ||
		    strstr(text, t[i].call) != NULL)
			bits |= t[i].bit;
	/* urllib: a request with data is a POST. */
	if (strstr(text, "data=") != NULL &&
	    (strstr(text, "urlopen(") != NULL ||
		strstr(text, "Request(") != NULL))
		bits |= M_POST;
	return bits;
}

/*
 * The API path at p in a program's text, up to where it ends (a quote,
 * a blank, a bracket), below a repository's; an interpolation ({n},
 * ${n}, %s, or a quote followed by '+') is unknown.  Caller frees.
 */
static char *
gh_script_path(const char *p, size_t *used)
{
	const char *start = p;
	const char unknown[] = {GUARD_SHELL_UNKNOWN, 0};
	struct buf b;
	size_t k;

	buf_init(&b, 0);
	/* Where such a path is found, the repository's API is before it. */
	buf_puts(&b, "/repos/o/r");
	while (*p != '\0' && b.len < HTTP_SCRIPT_PATH_MAX) {
		if (*p == '{' || (*p == '$' && p[1] == '{')) {
			for (k = 0; p[k] != '\0' && p[k] != '}' &&
			     k < HTTP_SCRIPT_PATH_MAX;
			     k++)
				;
			p += k + (p[k] == '}');
			buf_puts(&b, unknown);
		} else if (*p == '%' && p[1] != '\0' && strchr("sd", p[1])) {
			p += 2;
			buf_puts(&b, unknown);
		} else if (isalnum((unsigned char)*p) || strchr("/._-", *p))
			buf_append(&b, p++, 1);
		else {
			if ((*p == '"' || *p == '\'' || *p == '`') &&
			    p[1 + strspn(p + 1, " ")] == '+')
				buf_puts(&b, unknown);
			break;
		}
	}
	*used = (size_t)(p - start);
	return buf_steal(&b);
}

/*
 * A program that may send requests (its text as a whole): with a
 * writing method named, every API path in it is judged with each such
 * method, the whole text standing for the body ("state" then "closed"
 * closes; a "state" without "closed" may).  A writing program that
 * speaks to the forge but names no path that can be judged is refused.
 */
static int
gh_script(const char *text, char *why, size_t whysz)
{
	static const char *const marks[] = {"/pulls/", "/issues/", "/statuses/",
	    "/branch_protections", "/branches/", "/labels", "/merge",
	    "/reviews", "/contents", "/git/refs", "/collaborators", "/hooks",
	    "/keys/", "/comments", NULL};
	unsigned bits = gh_script_methods(text);
	struct guard_http_req r = {NULL, NULL, NULL, 0};
	const char *p, *st;
	char *path, body[64];
	size_t i, k, used, found = 0;

	if (bits == 0)
		return 0;
	/* The body: what the text says of "state", or a label it names. */
	st = strstr(text, "state");
	if (st == NULL)
		snprintf(body, sizeof(body), "{}");
	else if (strstr(st, "closed") != NULL)
		snprintf(body, sizeof(body), "{\"state\": \"closed\"}");
	else
		snprintf(body, sizeof(body), "{\"state\": \"%c\"}",
		    GUARD_SHELL_UNKNOWN);
	for (k = 0; gh_labels[k] != NULL && st == NULL; k++)
		if (strstr(text, gh_labels[k]) != NULL)
			snprintf(body, sizeof(body), "{\"labels\": [\"%s\"]}",
			    gh_labels[k]);
	r.body = body;
	/* Each path once, left to right, none inside another. */
	for (p = text; (p = strchr(p, '/')) != NULL;) {
		for (i = 0; marks[i] != NULL; i++)
			if (strncmp(p, marks[i], strlen(marks[i])) == 0)
				break;
		if (marks[i] == NULL) {
			p++;
			continue;
		}
		if (found++ == HTTP_SCRIPT_PATHS)
			return guard_shell_refuse(why, whysz,
			    "BLOCKED: this program names too many API paths "
			    "to be checked; split it");
		path = gh_script_path(p, &used);
		r.url = path;
		k = gh_judge(&r, bits, 0, why, whysz);
		free(path);
		if (k)
			return 1;
		p += used > 0 ? used : 1;
	}
	if (found ||
	    (strstr(text, "FORGE_") == NULL && strstr(text, "/api/v1") == NULL))
		return 0;
	return guard_shell_refuse(why, whysz,
	    "BLOCKED: this program sends a request to the forge and the guard "
	    "cannot tell which endpoint it reaches; write the API path "
	    "literally (or use curl) so that it can be checked");
}

/* An interpreter and how it is given a program on its command line. */
struct gh_interp {
	const char *name;
	const char *const opts[4]; /* the options whose value is the program */
};

static const struct gh_interp gh_interps[] = {
    {"python", {"-c"}},
    {"pypy", {"-c"}},
    {"node", {"-e", "--eval", "-p", "--print"}},
    {"nodejs", {"-e", "--eval", "-p", "--print"}},
    {"deno", {"eval"}},
    {"bun", {"-e", "--eval"}},
    {"perl", {"-e", "-E"}},
    {"ruby", {"-e"}},
    {"php", {"-r"}},
};

/* The interpreter name is (python3.11 is python), or NULL. */
static const struct gh_interp *
gh_interp(const char *name)
{
	size_t i, n;

	for (i = 0; i < sizeof(gh_interps) / sizeof(gh_interps[0]); i++) {
		n = strlen(gh_interps[i].name);
		if (strncmp(name, gh_interps[i].name, n) == 0 &&
		    name[n + strspn(name + n, "0123456789.")] == '\0')
			return &gh_interps[i];
	}
	return NULL;
}

/*
 * An interpreter's program: its -c/-e text, else its script file (run,
 * deno's and bun's "run" skipped), else its input.  Caller frees; NULL
 * when it cannot be known.
 */
static char *
gh_program(const struct gh_interp *it, char *const *w, size_t n,
    const struct guard_http_io *io)
{
	struct buf b;
	size_t i, k;

	buf_init(&b, 0);
	for (i = 1; i < n; i++)
		for (k = 0; k < 4 && it->opts[k] != NULL; k++)
			if (strcmp(w[i], it->opts[k]) == 0 && i + 1 < n)
				buf_printf(&b, "%s\n", w[++i]);
	if (b.len > 0)
		return buf_steal(&b);
	buf_free(&b);
	for (i = 1; i < n; i++) {
		if (strcmp(w[i], "-m") == 0)
			return NULL; /* a module: not seen here */
		if ((w[i][0] == '-' && strcmp(w[i], "-") != 0) ||
		    strcmp(w[i], "run") == 0)
			continue;
		return gh_read(io, w[i], 1);
	}
	return io->input != NULL ? xstrdup(io->input) : NULL;
}

unsigned long long
guard_http_work(void)
{
	return gh_work;
}

int
guard_http_command(const char *name, char *const *w, size_t n,
    const struct guard_http_io *io, char *why, size_t whysz)
{
	static const char *const httpie[] = {"http", "https", "xh", "xhs",
	    NULL};
	const struct gh_interp *it;
	char *program;
	int r;

	if (strcmp(name, "curl") == 0)
		return gh_curl(w, n, io, why, whysz);
	if (strcmp(name, "wget") == 0)
		return gh_wget(w, n, io, why, whysz);
	if (gh_one_of(name, httpie))
		return gh_httpie(w, n, io, why, whysz);
	if (strcmp(name, "gh") == 0 || strcmp(name, "tea") == 0)
		return gh_forge_cli(name, w, n, io, why, whysz);
	if ((it = gh_interp(name)) == NULL ||
	    (program = gh_program(it, w, n, io)) == NULL)
		return 0;
	r = gh_script(program, why, whysz);
	free(program);
	return r;
}
