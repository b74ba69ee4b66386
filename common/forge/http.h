/*
 * HTTP requests over one reused libcurl easy handle (keep-alive across the
 * calls of a run), and batches of GETs in parallel on the same
 * connections.  The only module that touches libcurl.  The caller's
 * main() runs curl_global_init() before the first request and
 * http_cleanup() + curl_global_cleanup() at the end.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>
#include <time.h>

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
	int too_large;	 /* http_request() failed: the body passed the cap */
	long long total; /* X-Total-Count, -1 when not sent */
	int next;	 /* Link: -1 not sent, 1 with rel="next", else 0 */
	long long retry_after; /* Retry-After in seconds, -1 when not sent */
	time_t reset_at;       /* latest anthropic-ratelimit-*-reset, 0: none */
	struct buf body;       /* owned; NUL-terminated */
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
/* One request of http_request_with(). */
struct http_extra {
	const char *const *headers; /* "Name: value" lines, NULL-ended */
	long connect_timeout_ms;    /* <= 0: the configured one */
	long timeout_ms;	    /* <= 0: the configured one */
	size_t max_body;	    /* 0: the configured cap */
};

/*
 * One attempt of a request (no retry) with x's headers and timeouts and
 * no Authorization header of its own; otherwise as http_request().  A
 * header line holding CR or LF fails the request.
 */
int http_request_with(const struct http_extra *x, const char *method,
    const char *url, const char *json_body, struct http_response *resp,
    char *err, size_t errsz);
/*
 * A Retry-After value (RFC 9110 10.2.3): delay-seconds, or an HTTP-date
 * as seconds from now (0 once past).  -1 when it is neither.
 */
long long http_retry_after(const char *value, time_t now);
/*
 * An RFC 3339 timestamp ("2024-01-01T10:00:00Z", fraction and offset
 * allowed) as a time, or 0 when it is not one.
 */
time_t http_rfc3339(const char *value);
/*
 * GET url keeping only the first max bytes of the body: a longer body
 * sets resp->truncated and still returns 0.  Otherwise as http_request().
 */
int http_get_prefix(const char *url, const char *auth, size_t max,
    struct http_response *resp, char *err, size_t errsz);
/* One GET of http_get_many(). */
struct http_get {
	const char *url;	   /* the caller's */
	struct http_response resp; /* free with http_response_free() */
	int failed;		   /* no response arrived: err says why */
	char err[512];
};

/*
 * Perform the n GETs of gets (auth as for http_request()) at once: at
 * most HTTP_PARALLEL in flight over libcurl's multi interface, on the
 * connections http_request() uses (kept alive; HTTP/2 multiplexed when
 * the server offers it), each with the timeouts, body cap and retries of
 * http_request(): a GET that a later attempt may cure is tried again,
 * after the backoff, with the others of its round.  Every element is
 * filled (resp, or failed and err).
 */
#define HTTP_PARALLEL 8
void http_get_many(struct http_get *gets, size_t n, const char *auth);
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
/*
 * Count the requests whose URL starts with prefix apart, under name
 * ("forge", "woodpecker"): the longest matching prefix takes a request.
 * A prefix given again is counted once.  Returns 0, or -1 when the table
 * (16 prefixes) is full or prefix is too long.
 */
int http_stats_watch(const char *name, const char *prefix);
/*
 * The requests sent (each attempt) and the requests that failed (no
 * answer, a 4xx, or a 5xx on the last attempt) under name since the
 * start; name NULL: all requests.
 */
void http_stats_get(const char *name, unsigned long *requests,
    unsigned long *errors);
/*
 * The failed requests of name by status (0: no answer): at most max
 * distinct statuses into codes, with how many of each in counts (a 17th
 * status and later ones count under the 16th).  Returns how many.
 */
size_t http_stats_codes(const char *name, long *codes, unsigned long *counts,
    size_t max);
/*
 * The first GET of the run that brought no data back: no answer, a 5xx
 * after the retries, credentials refused (401, 403), rate-limited (429),
 * or an answer that could not be used (http_note_unusable()).  A decision
 * it fed was "unknown".
 */
struct http_failed {
	long status;   /* 0: no answer */
	char url[512]; /* without user information */
	char why[256]; /* no answer or a 2xx: why (never a token) */
};
/*
 * 1 with the first such GET in *out, or 0 when every GET was answered;
 * those under skip_api (an http_stats_watch() name, or NULL) aside.
 */
int http_failed_read(const char *skip_api, struct http_failed *out);
/*
 * Whether the GET http_failed_read() gave last carried token ("Authorization:
 * token T", "Bearer T"): which token a server refused, without handing the
 * value out.
 */
int http_failed_read_token(const char *token);
/*
 * A GET of url answered status whose body could not be used (why: not
 * JSON, not the type expected): noted as a failed read when it is the
 * first (other methods are not reads).
 */
void http_note_unusable(const char *method, const char *url, long status,
    const char *why);
/*
 * Drop the easy handle and its connections, and wipe the credentials
 * http_failed_read_token() compares with.
 */
void http_cleanup(void);

#endif
