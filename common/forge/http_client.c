/*
 * The cached JSON client over the HTTP transport (http.c), shared by the
 * forge and Woodpecker modules: one credential, a cache of parsed GET
 * results per URL, and the last error, stated with the endpoint and the
 * server's message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "http.h"
#include "http_client.h"
#include "json.h"
#include "xmalloc.h"

#define HTTP_CLIENT_MSG_MAX 160 /* bytes of a server message kept */

/* One cached GET result. */
struct http_client_entry {
	char *key;
	cJSON *json;
	char *text;
	int truncated;
	long long total; /* its X-Total-Count, -1 when not sent or not seen */
	struct http_client_entry *next;
};

struct http_client {
	char *auth;
	struct http_client_entry *live;	 /* looked up by key */
	struct http_client_entry *stale; /* cleared by a write, kept alive */
	long status;
	int too_large;	      /* the last failure: an answer over the cap */
	unsigned long writes; /* requests sent other than GET */
	char err[512];
};

static const char *http_client_endpoint(const char *);
static const char *http_client_type_name(int);
static void http_client_message(const struct http_response *, char *, size_t);
static struct http_client_entry *http_client_find(struct http_client *,
    const char *);
static struct http_client_entry *http_client_add(struct http_client *,
    const char *);
static void http_client_clear(struct http_client *);
static void http_client_entries_free(struct http_client_entry *);
static int http_client_drop(struct http_client_entry **, const char *);
/* What a page of a list says of the pages after it (http_response). */
struct http_client_page {
	long long total; /* X-Total-Count, -1 when not sent */
	int next;	 /* Link: -1 not sent, 1 with rel="next", else 0 */
};

static int http_client_fetch(struct http_client *, const char *, int, cJSON **,
    struct http_client_page *);
static int http_client_more(const struct http_client_page *, int, long long);
static char *http_client_page_url(const char *, const char *, int, int);
static int http_client_merge_page(cJSON *, cJSON *);
static int http_client_checked(struct http_client *, const char *,
    const struct http_check *, cJSON *);
static void http_client_page_names(const char *, const char *, int, char **,
    char **);
static int http_client_page_keep(struct http_client *, const char *,
    struct http_get *, const struct http_check *);

/* The part of url after scheme and authority: "/api/v1/...". */
static const char *
http_client_endpoint(const char *url)
{
	const char *p;

	if ((p = strstr(url, "://")) == NULL)
		return url;
	p += 3;
	p += strcspn(p, "/?#");
	return *p != '\0' ? p : "/";
}

struct http_client *
http_client_new(const char *auth)
{
	struct http_client *c;

	c = xcalloc(1, sizeof(*c));
	c->auth = auth != NULL ? xstrdup(auth) : NULL;
	return c;
}

void
http_client_free(struct http_client *c)
{
	if (c == NULL)
		return;
	http_client_entries_free(c->live);
	http_client_entries_free(c->stale);
	if (c->auth != NULL) {
		explicit_bzero(c->auth, strlen(c->auth));
		free(c->auth);
	}
	free(c);
}

const char *
http_client_error(const struct http_client *c)
{
	return c->err;
}

unsigned long
http_client_writes(const struct http_client *c)
{
	return c->writes;
}

long
http_client_status(const struct http_client *c)
{
	return c->status;
}

int
http_client_too_large(const struct http_client *c)
{
	return c->too_large;
}

void
http_client_fail(struct http_client *c, long status, const char *fmt, ...)
{
	va_list ap;

	c->status = status;
	c->too_large = 0;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

int
http_client_status_fail(struct http_client *c, const char *method,
    const char *url, const struct http_response *resp)
{
	char msg[HTTP_CLIENT_MSG_MAX + 1];

	http_client_message(resp, msg, sizeof(msg));
	http_client_fail(c, resp->status, "HTTP %ld from '%s %s'%s%s",
	    resp->status, method, http_client_endpoint(url), msg[0] ? ": " : "",
	    msg);
	return -1;
}

/*
 * The server's explanation of a refusal: Gitea's {"message": ...}, else
 * the start of the body, as one printable line of bounded length.
 */
static void
http_client_message(const struct http_response *resp, char *out, size_t outsz)
{
	char err[64];
	const char *m;
	cJSON *root;
	size_t i;

	out[0] = '\0';
	root = json_parse(resp->body.data, resp->body.len, err, sizeof(err));
	m = json_str(root, "message");
	snprintf(out, outsz, "%s", m != NULL ? m : buf_str(&resp->body));
	cJSON_Delete(root);
	for (i = 0; out[i] != '\0'; i++) {
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
	}
	while (i > 0 && out[i - 1] == ' ')
		out[--i] = '\0';
}

static const char *
http_client_type_name(int type)
{
	switch (type) {
	case cJSON_Array:
		return "an array";
	case cJSON_Object:
		return "an object";
	case cJSON_String:
		return "a string";
	case cJSON_Number:
		return "a number";
	case cJSON_NULL:
		return "null";
	default:
		return "a boolean";
	}
}

cJSON *
http_client_parse(struct http_client *c, const char *method, const char *url,
    const struct http_response *resp, int type)
{
	char err[128];
	cJSON *root;

	root = json_parse(resp->body.data, resp->body.len, err, sizeof(err));
	if (root == NULL) {
		http_client_fail(c, 0, "%s from '%s %s'", err, method,
		    http_client_endpoint(url));
		http_note_unusable(method, url, resp->status, err);
		return NULL;
	}
	if (type != 0 && (root->type & 0xff) != type) {
		http_client_fail(c, 0, "expected %s, got %s from '%s %s'",
		    http_client_type_name(type),
		    http_client_type_name(root->type & 0xff), method,
		    http_client_endpoint(url));
		http_note_unusable(method, url, resp->status,
		    "not the JSON type expected");
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/*
 * One uncached GET, parsed into *out (caller frees); pg (may be NULL)
 * gets what the answer's headers say of the pages after it.
 */
static int
http_client_fetch(struct http_client *c, const char *url, int type, cJSON **out,
    struct http_client_page *pg)
{
	struct http_response resp;
	int r = -1;

	*out = NULL;
	if (http_request("GET", url, c->auth, NULL, &resp, c->err,
		sizeof(c->err)) == -1) {
		c->status = 0;
		c->too_large = resp.too_large;
		goto out;
	}
	if (resp.status < 200 || resp.status > 299) {
		http_client_status_fail(c, "GET", url, &resp);
		goto out;
	}
	if ((*out = http_client_parse(c, "GET", url, &resp, type)) != NULL)
		r = 0;
	if (pg != NULL) {
		pg->total = resp.total;
		pg->next = resp.next;
	}
out:
	http_response_free(&resp);
	return r;
}

/*
 * Whether a list goes on after a page of n elements (seen: the elements
 * of that page and of those before it).  The server's X-Total-Count
 * says, else its Link header (a rel="next" page or none), else only an
 * empty page ends the list.  A page shorter than the size asked proves
 * nothing: the server's own cap (Gitea's [api] MAX_RESPONSE_ITEMS) may
 * be below it, and every page is that short then.
 */
static int
http_client_more(const struct http_client_page *pg, int n, long long seen)
{
	if (n <= 0)
		return 0;
	if (pg->total >= 0)
		return seen < pg->total;
	if (pg->next >= 0)
		return pg->next;
	return 1;
}

/* url with "<size_param>=per_page&page=pageno" added.  Caller frees. */
static char *
http_client_page_url(const char *url, const char *size_param, int per_page,
    int pageno)
{
	return xasprintf("%s%c%s=%d&page=%d", url, strchr(url, '?') ? '&' : '?',
	    size_param, per_page, pageno);
}

/*
 * Run check on root, a result of 'GET url' just fetched.  Returns 0, or
 * -1 with the failure recorded and root freed.
 */
static int
http_client_checked(struct http_client *c, const char *url,
    const struct http_check *check, cJSON *root)
{
	char err[256];

	if (check == NULL || check->fn(root, check->arg, err, sizeof(err)) == 0)
		return 0;
	http_client_fail(c, 0, "%s from 'GET %s'", err,
	    http_client_endpoint(url));
	cJSON_Delete(root);
	return -1;
}

int
http_client_get(struct http_client *c, const char *url, int type,
    const struct http_check *check, const cJSON **out)
{
	struct http_client_entry *e;
	struct http_client_page pg = {-1, -1};
	cJSON *root;

	*out = NULL;
	http_client_fail(c, 0, "%s", "");
	if ((e = http_client_find(c, url)) != NULL) {
		if (type != 0 && (e->json->type & 0xff) != type) {
			http_client_fail(c, 0,
			    "expected %s, got %s from "
			    "'GET %s'",
			    http_client_type_name(type),
			    http_client_type_name(e->json->type & 0xff),
			    http_client_endpoint(url));
			return -1;
		}
		*out = e->json;
		return 0;
	}
	if (http_client_fetch(c, url, type, &root, &pg) == -1 ||
	    http_client_checked(c, url, check, root) == -1)
		return -1;
	e = http_client_add(c, url);
	e->json = root;
	e->total = pg.total;
	*out = root;
	return 0;
}

long long
http_client_total(struct http_client *c, const char *url)
{
	struct http_client_entry *e;

	return (e = http_client_find(c, url)) != NULL ? e->total : -1;
}

int
http_client_get_owned(struct http_client *c, const char *url, int type,
    const struct http_check *check, cJSON **out)
{
	http_client_fail(c, 0, "%s", "");
	if (http_client_fetch(c, url, type, out, NULL) == -1 ||
	    http_client_checked(c, url, check, *out) == -1) {
		*out = NULL;
		return -1;
	}
	return 0;
}

/* Move every item of page (freed) to the end of all.  Returns the count. */
static int
http_client_merge_page(cJSON *all, cJSON *page)
{
	cJSON *item;
	int n = 0;

	while ((item = cJSON_DetachItemFromArray(page, 0)) != NULL) {
		cJSON_AddItemToArray(all, item);
		n++;
	}
	cJSON_Delete(page);
	return n;
}

int
http_client_get_pages(struct http_client *c, const char *url,
    const char *size_param, int per_page, int max_pages,
    const struct http_check *check, const cJSON **out, int *complete)
{
	struct http_client_page pg;
	struct http_client_entry *e;
	cJSON *all = NULL, *page;
	char *key, *purl;
	long long seen = 0;
	int n, pageno, more = 1, r = -1;

	*out = NULL;
	http_client_fail(c, 0, "%s", "");
	key = xasprintf("pages %s %s=%d", url, size_param, per_page);
	if ((e = http_client_find(c, key)) != NULL) {
		*out = e->json;
		if (complete != NULL)
			*complete = e->truncated ? 0 : 1;
		r = 0;
		goto out;
	}
	if ((all = cJSON_CreateArray()) == NULL)
		abort();
	for (pageno = 1; pageno <= max_pages && more; pageno++) {
		purl = http_client_page_url(url, size_param, per_page, pageno);
		r = http_client_fetch(c, purl, cJSON_Array, &page, &pg);
		free(purl);
		if (r == -1)
			goto out;
		/* Counted before the check leaves bad elements out. */
		n = cJSON_GetArraySize(page);
		seen += n;
		/* Checked page by page: a long list is never whole unchecked.
		 */
		if ((r = http_client_checked(c, url, check, page)) == -1)
			goto out;
		(void)http_client_merge_page(all, page);
		more = http_client_more(&pg, n, seen);
	}
	e = http_client_add(c, key);
	e->json = all;
	e->truncated = more;
	if (complete != NULL)
		*complete = !e->truncated;
	*out = all;
	all = NULL;
	r = 0;
out:
	cJSON_Delete(all);
	free(key);
	return r;
}

/* Pass each element of page to fn.  0 go on, 1 stop, -1 fn failed. */
static int
http_client_visit(cJSON *page, http_each_fn fn, void *arg)
{
	const cJSON *el;
	int r;

	cJSON_ArrayForEach (el, page) {
		if ((r = fn(arg, el)) != 0)
			return r;
	}
	return 0;
}

int
http_client_each_page(struct http_client *c, const char *url,
    const char *size_param, int per_page, int max_pages,
    const struct http_check *check, http_each_fn fn, void *arg, int *complete)
{
	cJSON *page;
	char *purl;
	long long seen = 0;
	int pageno, more = 1, r = 0;

	http_client_fail(c, 0, "%s", "");
	for (pageno = 1; pageno <= max_pages && r == 0 && more; pageno++) {
		purl = http_client_page_url(url, size_param, per_page, pageno);
		r = http_client_get_page(c, purl, check, seen, &page, &more);
		free(purl);
		if (r == -1)
			return -1;
		seen += cJSON_GetArraySize(page);
		r = http_client_visit(page, fn, arg);
		cJSON_Delete(page);
	}
	if (r == -1)
		return -1;
	if (complete != NULL)
		*complete = r == 1 || !more;
	else if (r == 0 && more) {
		http_client_fail(c, 0, "more than %d pages at '%s'", max_pages,
		    http_client_endpoint(url));
		return -1;
	}
	return 0;
}

int
http_client_get_page(struct http_client *c, const char *url,
    const struct http_check *check, long long seen, cJSON **out, int *more)
{
	struct http_client_page pg;
	int n;

	*more = 0;
	http_client_fail(c, 0, "%s", "");
	if (http_client_fetch(c, url, cJSON_Array, out, &pg) == -1)
		return -1;
	/* Counted before the check leaves bad elements out. */
	n = cJSON_GetArraySize(*out);
	if (http_client_checked(c, url, check, *out) == -1) {
		*out = NULL;
		return -1;
	}
	*more = http_client_more(&pg, n, seen + n);
	return 0;
}

/* The first-page URL and cache key of a list read by pages.  Caller frees. */
static void
http_client_page_names(const char *url, const char *size_param, int per_page,
    char **key, char **first)
{
	*key = xasprintf("pages %s %s=%d", url, size_param, per_page);
	*first = http_client_page_url(url, size_param, per_page, 1);
}

/*
 * Cache the first page of a list answered in g as the whole list, when
 * its headers say no page follows it (http_client_more()).  0 or -1.
 */
static int
http_client_page_keep(struct http_client *c, const char *key,
    struct http_get *g, const struct http_check *check)
{
	struct http_client_page pg = {g->resp.total, g->resp.next};
	struct http_client_entry *e;
	char err[256];
	cJSON *page;
	int n;

	if (g->failed || g->resp.status < 200 || g->resp.status > 299)
		return -1;
	page =
	    json_parse(g->resp.body.data, g->resp.body.len, err, sizeof(err));
	n = cJSON_IsArray(page) ? cJSON_GetArraySize(page) : 0;
	if (page == NULL || !cJSON_IsArray(page) ||
	    (n > 0 && http_client_more(&pg, n, n)) ||
	    (check != NULL && check->fn(page, check->arg, err, sizeof(err)))) {
		cJSON_Delete(page);
		return -1;
	}
	e = http_client_add(c, key);
	e->json = page;
	return 0;
}

size_t
http_client_prefetch_pages(struct http_client *c, const char *const *urls,
    size_t n, const char *size_param, int per_page,
    const struct http_check *checks)
{
	const struct http_check **chk;
	struct http_get *gets;
	char **keys;
	size_t i, m = 0, kept = 0;

	gets = xcalloc(n + 1, sizeof(*gets));
	keys = xcalloc(n + 1, sizeof(*keys));
	chk = xcalloc(n + 1, sizeof(*chk));
	for (i = 0; i < n; i++) {
		http_client_page_names(urls[i], size_param, per_page, &keys[m],
		    (char **)&gets[m].url);
		if (http_client_find(c, keys[m]) != NULL) {
			free(keys[m]);
			free((char *)gets[m].url);
			continue;
		}
		chk[m++] = checks != NULL ? &checks[i] : NULL;
	}
	if (m > 0)
		http_get_many(gets, m, c->auth);
	for (i = 0; i < m; i++) {
		if (http_client_page_keep(c, keys[i], &gets[i], chk[i]) == 0)
			kept++;
		http_response_free(&gets[i].resp);
		free(keys[i]);
		free((char *)gets[i].url);
	}
	free(chk);
	free(keys);
	free(gets);
	return kept;
}

/* Unlink the entry keyed key from *list and free it; 1 if found. */
static int
http_client_drop(struct http_client_entry **list, const char *key)
{
	struct http_client_entry **pp, *e;

	for (pp = list; (e = *pp) != NULL; pp = &e->next) {
		if (strcmp(e->key, key) == 0) {
			*pp = e->next;
			e->next = NULL;
			http_client_entries_free(e);
			return 1;
		}
	}
	return 0;
}

void
http_client_forget_pages(struct http_client *c, const char *url,
    const char *size_param, int per_page)
{
	char *key, *first;

	http_client_page_names(url, size_param, per_page, &key, &first);
	while (
	    http_client_drop(&c->live, key) || http_client_drop(&c->stale, key))
		;
	free(key);
	free(first);
}

int
http_client_get_text(struct http_client *c, const char *url, size_t max,
    const char **text, int *truncated)
{
	struct http_response resp;
	struct http_client_entry *e;
	char *key;
	int r = -1;

	*text = NULL;
	http_client_fail(c, 0, "%s", "");
	key = xasprintf("text %zu %s", max, url);
	if ((e = http_client_find(c, key)) != NULL)
		goto found;
	/* A failed transfer may leave a partial body: freed either way. */
	if (http_get_prefix(url, c->auth, max, &resp, c->err, sizeof(c->err)) ==
	    -1) {
		c->status = 0;
		http_response_free(&resp);
		goto out;
	}
	if (resp.status < 200 || resp.status > 299) {
		http_client_status_fail(c, "GET", url, &resp);
		http_response_free(&resp);
		goto out;
	}
	e = http_client_add(c, key);
	e->truncated = resp.truncated;
	e->text = buf_steal(&resp.body);
	http_response_free(&resp);
found:
	*text = e->text;
	if (truncated != NULL)
		*truncated = e->truncated;
	r = 0;
out:
	free(key);
	return r;
}

int
http_client_send(struct http_client *c, const char *method, const char *url,
    const cJSON *body, struct http_response *resp)
{
	char *json = NULL;
	int r;

	http_client_fail(c, 0, "%s", "");
	http_client_clear(c);
	c->writes++;
	if (body != NULL)
		json = json_print(body);
	r = http_request(method, url, c->auth, json, resp, c->err,
	    sizeof(c->err));
	if (r == -1)
		c->status = 0;
	free(json);
	return r;
}

static struct http_client_entry *
http_client_find(struct http_client *c, const char *key)
{
	struct http_client_entry *e;

	for (e = c->live; e != NULL; e = e->next) {
		if (strcmp(e->key, key) == 0)
			return e;
	}
	return NULL;
}

static struct http_client_entry *
http_client_add(struct http_client *c, const char *key)
{
	struct http_client_entry *e;

	e = xcalloc(1, sizeof(*e));
	e->key = xstrdup(key);
	e->total = -1;
	e->next = c->live;
	c->live = e;
	return e;
}

/* Forget every cached result; the memory lives on in the stale list. */
static void
http_client_clear(struct http_client *c)
{
	struct http_client_entry *e;

	while ((e = c->live) != NULL) {
		c->live = e->next;
		e->next = c->stale;
		c->stale = e;
	}
}

static void
http_client_entries_free(struct http_client_entry *e)
{
	struct http_client_entry *next;

	for (; e != NULL; e = next) {
		next = e->next;
		free(e->key);
		cJSON_Delete(e->json);
		free(e->text);
		free(e);
	}
}
