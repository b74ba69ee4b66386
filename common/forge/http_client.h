/*
 * The cached JSON client over the HTTP transport of http.h: GETs parsed
 * and kept per URL for the life of the client, whole paginated lists,
 * capped text, and writes whose failure is stated with the endpoint and
 * the server's message.
 */
#ifndef HTTP_CLIENT_H
#define HTTP_CLIENT_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct http_response;

/*
 * A client: one credential, a cache of parsed GET results and the last
 * error, shared by the forge and Woodpecker modules.  Every GET URL is
 * fetched at most once while the client lives; every write (any method
 * but GET, whatever its outcome) clears the cache, since it may change
 * what any list or object would show.  Cleared results stay allocated:
 * pointers handed out earlier remain valid until http_client_free().
 */
struct http_client;

/*
 * A check of a result just fetched, run once before it is cached: fn may
 * change the tree (drop the elements of a list that are not what it
 * wants) and returns 0 to keep it, or -1 to reject it, with the reason
 * in err.  A rejected result fails the call and is not cached.
 */
struct http_check {
	int (*fn)(cJSON *root, void *arg, char *err, size_t errsz);
	void *arg;
};

/* auth is the Authorization value or NULL.  Free with http_client_free(). */
struct http_client *http_client_new(const char *auth);
void http_client_free(struct http_client *);
/*
 * The failure of the last call on the client ("" when it succeeded);
 * valid until the next call.
 */
const char *http_client_error(const struct http_client *);
/* HTTP status behind the last call's failure; 0 for other failures. */
long http_client_status(const struct http_client *);
/*
 * 1 when the last call failed because an answer was larger than the
 * body cap (the data is there, and too large to take), else 0.
 */
int http_client_too_large(const struct http_client *);
/*
 * How many writes were sent so far: a result kept by a caller is as
 * fresh as the cache while this is unchanged (a write clears the cache).
 */
unsigned long http_client_writes(const struct http_client *);
/* Record a failure found by the caller (printf format), with status. */
void http_client_fail(struct http_client *, long status, const char *, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * GET url and parse the body (status must be 2xx).  type is cJSON_Array,
 * cJSON_Object or 0 for any; another type is an error.  check (may be
 * NULL) runs on a result just fetched.  *out is owned by the client,
 * valid until http_client_free().  Returns 0 or -1.
 */
int http_client_get(struct http_client *, const char *url, int type,
    const struct http_check *check, const cJSON **out);
/*
 * The X-Total-Count of the answer to url that http_client_get() keeps,
 * or -1 (not sent, not kept, or read another way).
 */
long long http_client_total(struct http_client *, const char *url);
/*
 * GET url and parse it as http_client_get() does, without the cache: for
 * a list read page by page whose pages are reduced to the few fields
 * kept and never asked again.  *out is the caller's (cJSON_Delete()).
 * Returns 0 or -1.
 */
int http_client_get_owned(struct http_client *, const char *url, int type,
    const struct http_check *check, cJSON **out);
/*
 * GET every page of a list: url plus "<size_param>=per_page&page=N" for
 * N = 1 .. max_pages, until the list ends: when the pages seen hold as
 * many elements as the server's X-Total-Count, else when its Link header
 * names no rel="next" page, else at an empty page.  A page shorter than
 * per_page ends nothing: the server may cap its pages below per_page
 * (Gitea's [api] MAX_RESPONSE_ITEMS).  Each page must be an array.  *out
 * is one merged array owned by the client; *complete (may be NULL) is 0
 * when max_pages pages were read and more may exist.  check (may be
 * NULL) runs on each page just fetched, before it joins the others (so
 * that a check that drops fields keeps the peak small).  Returns 0 or -1
 * (never a partial list: a page that did not arrive fails the read).
 */
int http_client_get_pages(struct http_client *, const char *url,
    const char *size_param, int per_page, int max_pages,
    const struct http_check *check, const cJSON **out, int *complete);
/*
 * Free the cached pages of url as http_client_get_pages() (same size_param
 * and per_page) or http_client_prefetch_pages() kept them, live or stale:
 * for a caller that has taken what it needs and will not ask again.  Every
 * pointer into them is invalid after; a later read asks the server again.
 */
void http_client_forget_pages(struct http_client *, const char *url,
    const char *size_param, int per_page);
/*
 * Visit every element of the list at url page by page, as
 * http_client_get_pages() reads it (and ends it), without keeping the
 * pages: each page is checked, each element passed to fn(arg, element),
 * then the page is freed.  Nothing is cached: the caller keeps what it
 * needs and does not ask again.  fn returns 0 to go on, 1 to stop early
 * (no more pages are read) or -1 to fail the read (fn records why).
 * Returns 0, or -1 when a page did not arrive or fn failed; after -1
 * what fn saw is not the whole list and the caller drops it.  When
 * max_pages pages were read and more may exist: with complete NULL that
 * is a failure too (-1), else *complete is 0 (1 when the list ended or fn
 * stopped it) and 0 returned.
 */
typedef int (*http_each_fn)(void *arg, const cJSON *element);
int http_client_each_page(struct http_client *, const char *url,
    const char *size_param, int per_page, int max_pages,
    const struct http_check *check, http_each_fn fn, void *arg, int *complete);
/*
 * GET one page of a list (url names the page) as an array, check it
 * (check may be NULL) and say in *more whether the list goes on after it,
 * as http_client_get_pages() decides (seen: the elements of the pages
 * before it).  *out is the caller's (cJSON_Delete()).  Returns 0 or -1.
 */
int http_client_get_page(struct http_client *, const char *url,
    const struct http_check *check, long long seen, cJSON **out, int *more);
/*
 * Read ahead, in parallel (http_get_many()), the lists of the n urls
 * whose pages http_client_get_pages() (same size_param and per_page,
 * checks[i] the check of urls[i]; checks may be NULL) would read and
 * that are not cached: each one whose first page arrives (2xx, valid,
 * and the whole list by its headers: X-Total-Count reached, or a Link
 * without rel="next", or empty) is checked and cached as that call
 * would cache it, so the call later costs no request.  Anything else is
 * left for that call to read (and to say what failed).  Returns how
 * many lists were cached.
 */
size_t http_client_prefetch_pages(struct http_client *, const char *const *urls,
    size_t n, const char *size_param, int per_page,
    const struct http_check *checks);
/*
 * GET url as text, keeping at most max bytes (*truncated says whether
 * more existed).  *text is owned by the client.  Returns 0 or -1.
 */
int http_client_get_text(struct http_client *, const char *url, size_t max,
    const char **text, int *truncated);
/*
 * Send a write (POST, PATCH, PUT, DELETE) with body serialised as JSON
 * (or NULL), after clearing the cache.  Returns 0 when a response arrived,
 * whatever its status (resp filled: free it with http_response_free()),
 * -1 on transport failure.
 */
int http_client_send(struct http_client *, const char *method, const char *url,
    const cJSON *body, struct http_response *resp);
/*
 * Record "HTTP <status> from '<method> <endpoint>'" plus the server's
 * message, as the last failure.  Always returns -1.
 */
int http_client_status_fail(struct http_client *, const char *method,
    const char *url, const struct http_response *resp);
/*
 * Parse the body of a write's response as a JSON value of type (as for
 * http_client_get()).  Returns a tree the caller frees with cJSON_Delete(),
 * or NULL with the failure recorded.
 */
cJSON *http_client_parse(struct http_client *, const char *method,
    const char *url, const struct http_response *resp, int type);

#endif
