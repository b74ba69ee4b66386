/*
 * HTTP requests over one reused libcurl easy handle (keep-alive across the
 * calls of a run).  The only module that touches libcurl.  The caller's
 * main() runs curl_global_init() before the first request and
 * http_cleanup() + curl_global_cleanup() at the end.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

struct http_opts {
	long connect_timeout_ms; /* default 10000 */
	long timeout_ms;	 /* whole request; default 30000 */
	int retries;		 /* attempts in all, first included; 3 */
	long backoff_ms;	 /* first pause, then doubled; 1000 */
	size_t max_body;	 /* response body cap; 8 MiB */
};

struct http_response {
	long status;	 /* HTTP status, 0 when none arrived */
	int truncated;	 /* http_get_prefix() hit its cap */
	struct buf body; /* owned; NUL-terminated */
};

/*
 * Replace the options used by every later request.  Values <= 0 keep the
 * default for that field.
 */
void http_set_opts(const struct http_opts *);
/* Copy the options in use into *out. */
void http_get_opts(struct http_opts *out);

/*
 * Perform one request: method ("GET", "POST", "PATCH", "DELETE", "PUT"),
 * url, auth the whole Authorization header value ("token abc",
 * "Bearer abc") or NULL, json_body sent as application/json or NULL.
 * resp is always initialised and must be freed with http_response_free()
 * whatever the result.  Returns 0 when a response arrived (any status,
 * in resp->status), -1 on a transport failure (refused, timeout,
 * truncated body, body over the cap) with the reason and the URL, never
 * a token, in err.  Connection failures and 5xx answers are retried with
 * the configured backoff; a GET, PUT or DELETE is also retried after a
 * timeout or a broken transfer, a POST or PATCH is not (it may have been
 * applied).  A 5xx on the last attempt is returned as a response.
 */
int http_request(const char *method, const char *url, const char *auth,
    const char *json_body, struct http_response *resp, char *err, size_t errsz);
/*
 * GET url keeping only the first max bytes of the body: a longer body
 * sets resp->truncated and still returns 0.  Otherwise as http_request().
 */
int http_get_prefix(const char *url, const char *auth, size_t max,
    struct http_response *resp, char *err, size_t errsz);
/* Free the body of a response; safe on a zeroed or freed response. */
void http_response_free(struct http_response *);
/*
 * Percent-encode s for use in a URL path segment or query value (RFC 3986
 * unreserved characters stay; with keep_slash, '/' stays too).  Caller
 * frees.
 */
char *http_escape(const char *s, int keep_slash);
/* Number of requests sent (each attempt counts) since the start. */
unsigned long http_request_count(void);
/* Drop the easy handle and its connections. */
void http_cleanup(void);

/*
 * A client: one credential, a cache of parsed GET results and the last
 * error, shared by the forge and Woodpecker modules.  Every GET URL is
 * fetched at most once while the client lives; every write (any method
 * but GET, whatever its outcome) clears the cache, since it may change
 * what any list or object would show.  Cleared results stay allocated:
 * pointers handed out earlier remain valid until http_client_free().
 */
struct http_client;

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
/* Record a failure found by the caller (printf format), with status. */
void http_client_fail(struct http_client *, long status, const char *, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * GET url and parse the body (status must be 2xx).  type is cJSON_Array,
 * cJSON_Object or 0 for any; another type is an error.  *out is owned by
 * the client, valid until http_client_free().  Returns 0 or -1.
 */
int http_client_get(struct http_client *, const char *url, int type,
    const cJSON **out);
/*
 * GET every page of a list: url plus "<size_param>=per_page&page=N" for
 * N = 1 .. max_pages, until a page shorter than per_page.  Each page must
 * be an array.  *out is one merged array owned by the client; *complete
 * (may be NULL) is 0 when max_pages full pages were read and more may
 * exist.  Returns 0 or -1 (never a partial list).
 */
int http_client_get_pages(struct http_client *, const char *url,
    const char *size_param, int per_page, int max_pages, const cJSON **out,
    int *complete);
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
