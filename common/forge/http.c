/*
 * HTTP over one reused libcurl easy handle: timeouts, a capped body,
 * bounded retries with doubling backoff, and error messages that name
 * the URL but never a credential.  The cached JSON client on top of it
 * is http_client.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "buf.h"
#include "http.h"
#include "xmalloc.h"

#define HTTP_DEF_CONNECT_MS 10000L
#define HTTP_DEF_TIMEOUT_MS 30000L
#define HTTP_DEF_RETRIES 3
#define HTTP_DEF_BACKOFF_MS 1000L
#define HTTP_DEF_MAX_BODY ((size_t)8 << 20)

/* What one transfer writes into, and why it stopped early. */
struct http_sink {
	struct http_response *resp; /* its status line and headers */
	struct buf *body;
	size_t max;
	int prefix; /* keep the first max bytes and stop */
	int over;   /* the body passed the cap */
};

/* One request as the retry loop sees it. */
struct http_call {
	const char *method;
	const char *url;
	const char *auth;
	const char *json_body;
	size_t max;
	int prefix;
	const char *const *extra; /* more header lines, or NULL */
	long connect_ms;	  /* 0: http_cur's */
	long timeout_ms;	  /* 0: http_cur's */
	int once;		  /* one attempt, no retry */
};

#define HTTP_NSTATS 16
#define HTTP_NCODES 16 /* statuses counted apart per API */

/* Requests counted apart by URL prefix (http_stats_watch()). */
struct http_stat {
	char name[32];
	char prefix[512];
	unsigned long requests;
	unsigned long errors;
	long codes[HTTP_NCODES]; /* the statuses of errors (0: no answer) */
	unsigned long ncode[HTTP_NCODES]; /* how many of each */
	size_t ncodes;
};

static CURL *http_handle;
static CURLSH *http_share; /* the connections of every handle */
static unsigned long http_count;
static unsigned long http_errors;
static struct http_stat http_stats[HTTP_NSTATS];
static size_t http_nstats;
/* The first failed GET of each API (http_stats_watch()'s names, "": none). */
static struct http_fail {
	char api[32];
	struct http_failed f;
	char *auth; /* its Authorization value, or NULL */
} http_fails[HTTP_NSTATS + 1];
static size_t http_nfails;
static const struct http_fail *http_fail_told; /* http_failed_read()'s */
static struct http_opts http_cur = {HTTP_DEF_CONNECT_MS, HTTP_DEF_TIMEOUT_MS,
    HTTP_DEF_RETRIES, HTTP_DEF_BACKOFF_MS, HTTP_DEF_MAX_BODY};

static size_t http_write_cb(char *, size_t, size_t, void *);
static size_t http_header_cb(char *, size_t, size_t, void *);
static void http_header_line(struct http_response *, const char *, size_t);
static int http_header_is(const char *, size_t, const char *, const char **);
static int http_link_has_next(const char *, const char *);
static void http_response_reset(struct http_response *);
static CURL *http_get_handle(void);
static void http_failure(const struct http_call *, CURLcode, int, const char *,
    char *, char *, size_t);
static int http_idempotent(const char *);
static void http_safe_url(const char *, char *, size_t);
static struct curl_slist *http_headers(const struct http_call *);
static int http_setup(CURL *, const struct http_call *, struct curl_slist *,
    struct http_sink *, char *);
static int http_permanent(CURLcode);
static int http_retry_status(const struct http_call *, long);
static void http_sleep_ms(long);
static void http_hdr_add(struct curl_slist **, const char *);
static int http_once(const struct http_call *, struct http_response *, char *,
    char *, size_t);
static int http_run(const struct http_call *, struct http_response *, char *,
    size_t);
static struct http_stat *http_stat_for(const char *);
static void http_count_request(const char *);
static void http_count_error(const struct http_call *, long, const char *, int);
static void http_count_code(struct http_stat *, long);
static void http_note_failed(const struct http_call *, long, const char *);
static CURLSH *http_get_share(void);
static int http_attempt_end(const struct http_call *, CURL *, CURLcode,
    struct http_sink *, struct http_response *, char *, char *, size_t);

/* One GET of a parallel round, with what its transfer needs. */
struct http_par {
	struct http_call call;
	struct http_get *g;
	CURL *h;
	struct curl_slist *hdrs;
	struct http_sink sink;
	char errbuf[CURL_ERROR_SIZE];
	int again; /* another attempt may cure it */
};

static int http_par_start(CURLM *, struct http_par *);
static void http_par_done(CURLM *, struct http_par *, CURLcode);
static size_t http_par_round(struct http_par *, size_t);

void
http_set_opts(const struct http_opts *o)
{
	http_cur.connect_timeout_ms = o->connect_timeout_ms > 0 ?
	    o->connect_timeout_ms :
	    HTTP_DEF_CONNECT_MS;
	http_cur.timeout_ms =
	    o->timeout_ms > 0 ? o->timeout_ms : HTTP_DEF_TIMEOUT_MS;
	http_cur.retries = o->retries > 0 ? o->retries : HTTP_DEF_RETRIES;
	http_cur.backoff_ms =
	    o->backoff_ms > 0 ? o->backoff_ms : HTTP_DEF_BACKOFF_MS;
	http_cur.max_body = o->max_body > 0 ? o->max_body : HTTP_DEF_MAX_BODY;
}

void
http_get_opts(struct http_opts *out)
{
	*out = http_cur;
}

unsigned long
http_request_count(void)
{
	return http_count;
}

int
http_stats_watch(const char *name, const char *prefix)
{
	struct http_stat *st;
	size_t i;

	for (i = 0; i < http_nstats; i++)
		if (strcmp(http_stats[i].prefix, prefix) == 0)
			return 0;
	if (http_nstats == HTTP_NSTATS ||
	    strlen(prefix) >= sizeof(st->prefix) ||
	    strlen(name) >= sizeof(st->name))
		return -1;
	st = &http_stats[http_nstats++];
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", name);
	snprintf(st->prefix, sizeof(st->prefix), "%s", prefix);
	return 0;
}

void
http_stats_get(const char *name, unsigned long *requests, unsigned long *errors)
{
	size_t i;

	*requests = name == NULL ? http_count : 0;
	*errors = name == NULL ? http_errors : 0;
	for (i = 0; name != NULL && i < http_nstats; i++) {
		if (strcmp(http_stats[i].name, name) != 0)
			continue;
		*requests += http_stats[i].requests;
		*errors += http_stats[i].errors;
	}
}

size_t
http_stats_codes(const char *name, long *codes, unsigned long *counts,
    size_t max)
{
	size_t i, k, j, n = 0;

	for (i = 0; i < http_nstats; i++) {
		if (strcmp(http_stats[i].name, name) != 0)
			continue;
		for (k = 0; k < http_stats[i].ncodes; k++) {
			for (j = 0; j < n && codes[j] != http_stats[i].codes[k];
			     j++)
				;
			if (j == n && n == max)
				continue;
			if (j == n) {
				codes[n] = http_stats[i].codes[k];
				counts[n++] = 0;
			}
			counts[j] += http_stats[i].ncode[k];
		}
	}
	return n;
}

int
http_failed_read(const char *skip_api, struct http_failed *out)
{
	size_t i;

	for (i = 0; i < http_nfails; i++) {
		if (skip_api != NULL &&
		    strcmp(http_fails[i].api, skip_api) == 0)
			continue;
		*out = http_fails[i].f;
		http_fail_told = &http_fails[i];
		return 1;
	}
	return 0;
}

int
http_failed_read_token(const char *token)
{
	const char *sp;

	if (http_fail_told == NULL || http_fail_told->auth == NULL ||
	    token == NULL || token[0] == '\0' ||
	    (sp = strchr(http_fail_told->auth, ' ')) == NULL)
		return 0;
	return strcmp(sp + 1 + strspn(sp + 1, " "), token) == 0;
}

void
http_note_unusable(const char *method, const char *url, long status,
    const char *why)
{
	struct http_call c = {.method = method, .url = url};

	if (strcmp(method, "GET") == 0)
		http_note_failed(&c, status, why);
}

/* The counters of url: the longest watched prefix, or NULL. */
static struct http_stat *
http_stat_for(const char *url)
{
	struct http_stat *best = NULL;
	size_t i, len, best_len = 0;

	for (i = 0; i < http_nstats; i++) {
		len = strlen(http_stats[i].prefix);
		if (len > best_len &&
		    strncmp(url, http_stats[i].prefix, len) == 0) {
			best = &http_stats[i];
			best_len = len;
		}
	}
	return best;
}

/* One request more, in the total and in url's counters. */
static void
http_count_request(const char *url)
{
	struct http_stat *st;

	http_count++;
	if ((st = http_stat_for(url)) != NULL)
		st->requests++;
}

/*
 * The end of request c: no answer (status 0, why says why), or an answer
 * with status.  A 4xx or 5xx or no answer is an error; a GET that brought
 * no data back is noted (http_failed_read()).
 */
static void
http_count_error(const struct http_call *c, long status, const char *why,
    int too_large)
{
	struct http_stat *st;

	if (status != 0 && status < 400)
		return;
	http_errors++;
	if ((st = http_stat_for(c->url)) != NULL) {
		st->errors++;
		http_count_code(st, status);
	}
	/* A body over the cap is the item's trouble, not the server's. */
	if (strcmp(c->method, "GET") == 0 && !too_large &&
	    (status == 0 || status >= 500 || status == 401 || status == 403 ||
		status == 429))
		http_note_failed(c, status, why);
}

/* One error more of status in st (the last slot takes what overflows). */
static void
http_count_code(struct http_stat *st, long status)
{
	size_t k;

	for (k = 0; k < st->ncodes && st->codes[k] != status; k++)
		;
	if (k == st->ncodes && st->ncodes == HTTP_NCODES)
		k = HTTP_NCODES - 1;
	else if (k == st->ncodes)
		st->codes[st->ncodes++] = status;
	st->ncode[k]++;
}

/* The first GET of its API this run that brought no data back. */
static void
http_note_failed(const struct http_call *c, long status, const char *why)
{
	const struct http_stat *st = http_stat_for(c->url);
	const char *api = st != NULL ? st->name : "";
	struct http_failed *f;
	size_t i;

	for (i = 0; i < http_nfails; i++)
		if (strcmp(http_fails[i].api, api) == 0)
			return;
	if (http_nfails == HTTP_NSTATS + 1)
		return;
	snprintf(http_fails[http_nfails].api, sizeof(http_fails[0].api), "%s",
	    api);
	f = &http_fails[http_nfails].f;
	f->status = status;
	http_safe_url(c->url, f->url, sizeof(f->url));
	snprintf(f->why, sizeof(f->why), "%s",
	    status == 0 || status < 300 ? why : "");
	http_fails[http_nfails++].auth =
	    c->auth != NULL ? xstrdup(c->auth) : NULL;
}

void
http_cleanup(void)
{
	size_t i;

	for (i = 0; i < http_nfails; i++) {
		if (http_fails[i].auth != NULL)
			explicit_bzero(http_fails[i].auth,
			    strlen(http_fails[i].auth));
		free(http_fails[i].auth);
	}
	memset(http_fails, 0, sizeof(http_fails));
	http_nfails = 0;
	http_fail_told = NULL;
	if (http_handle != NULL)
		curl_easy_cleanup(http_handle);
	http_handle = NULL;
	if (http_share != NULL)
		curl_share_cleanup(http_share);
	http_share = NULL;
}

/* The share of connections (and DNS answers) of all handles, or NULL. */
static CURLSH *
http_get_share(void)
{
	if (http_share != NULL)
		return http_share;
	if ((http_share = curl_share_init()) == NULL)
		return NULL;
	if (curl_share_setopt(http_share, CURLSHOPT_SHARE,
		CURL_LOCK_DATA_CONNECT) != CURLSHE_OK ||
	    curl_share_setopt(http_share, CURLSHOPT_SHARE,
		CURL_LOCK_DATA_DNS) != CURLSHE_OK) {
		curl_share_cleanup(http_share);
		http_share = NULL;
	}
	return http_share;
}

void
http_response_free(struct http_response *resp)
{
	if (resp == NULL)
		return;
	buf_free(&resp->body);
	http_response_reset(resp);
}

/* No status and no header seen yet (the body is left alone). */
static void
http_response_reset(struct http_response *resp)
{
	resp->status = 0;
	resp->truncated = 0;
	resp->too_large = 0;
	resp->total = -1;
	resp->next = -1;
	resp->retry_after = -1;
	resp->reset_at = 0;
}

int
http_request_with(const struct http_extra *x, const char *method,
    const char *url, const char *json_body, struct http_response *resp,
    char *err, size_t errsz)
{
	struct http_call c;
	const char *const *h;

	memset(&c, 0, sizeof(c));
	c.method = method;
	c.url = url;
	c.json_body = json_body;
	c.max = x->max_body > 0 ? x->max_body : http_cur.max_body;
	c.extra = x->headers;
	c.connect_ms = x->connect_timeout_ms;
	c.timeout_ms = x->timeout_ms;
	c.once = 1;
	for (h = x->headers; h != NULL && *h != NULL; h++)
		if (strpbrk(*h, "\r\n") != NULL) {
			http_response_reset(resp);
			buf_init(&resp->body, 0);
			snprintf(err, errsz, "invalid header for '%s'", method);
			return -1;
		}
	return http_run(&c, resp, err, errsz);
}

long long
http_retry_after(const char *value, time_t now)
{
	const char *p;
	long long n = 0;
	time_t t;

	while (*value == ' ' || *value == '\t')
		value++;
	for (p = value; *p >= '0' && *p <= '9'; p++) {
		if (n > 100000000LL)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (p != value) {
		while (*p == ' ' || *p == '\t')
			p++;
		return *p == '\0' ? n : -1;
	}
	/* An HTTP-date (RFC 9110 10.2.3): the seconds until it, 0 if past. */
	if (*value == '\0' || (t = curl_getdate(value, NULL)) == -1)
		return -1;
	return t > now ? (long long)(t - now) : 0;
}

time_t
http_rfc3339(const char *value)
{
	int y, mo, d, h, mi, s, n = 0;
	struct tm tm;
	const char *p;
	time_t t;
	long off = 0;

	if (sscanf(value, "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h,
		&mi, &s, &n) != 6 ||
	    n == 0)
		return 0;
	p = value + n;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') && p[1] >= '0' && p[1] <= '9' &&
	    p[2] >= '0' && p[2] <= '9' && p[3] == ':' && p[4] >= '0' &&
	    p[4] <= '9' && p[5] >= '0' && p[5] <= '9') {
		off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600L +
		    ((p[4] - '0') * 10 + (p[5] - '0')) * 60L;
		if (*p == '-')
			off = -off;
		p += 6;
	} else
		return 0;
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || s > 60)
		return 0;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	if ((t = timegm(&tm)) == (time_t)-1)
		return 0;
	return t - off;
}

char *
http_escape(const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	struct buf b;
	const unsigned char *p;
	char enc[3];

	buf_init(&b, 0);
	buf_append(&b, "", 0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p) != NULL ||
		    (keep_slash && *p == '/')) {
			buf_append(&b, p, 1);
			continue;
		}
		enc[0] = '%';
		enc[1] = hex[*p >> 4];
		enc[2] = hex[*p & 0x0f];
		buf_append(&b, enc, 3);
	}
	return buf_steal(&b);
}

int
http_request(const char *method, const char *url, const char *auth,
    const char *json_body, struct http_response *resp, char *err, size_t errsz)
{
	struct http_call c;

	memset(&c, 0, sizeof(c));
	c.method = method;
	c.url = url;
	c.auth = auth;
	c.json_body = json_body;
	c.max = http_cur.max_body;
	c.prefix = 0;
	return http_run(&c, resp, err, errsz);
}

int
http_get_prefix(const char *url, const char *auth, size_t max,
    struct http_response *resp, char *err, size_t errsz)
{
	struct http_call c;

	memset(&c, 0, sizeof(c));
	c.method = "GET";
	c.url = url;
	c.auth = auth;
	c.json_body = NULL;
	c.max = max;
	c.prefix = 1;
	return http_run(&c, resp, err, errsz);
}

/*
 * The retry loop: transport failures that may be repeated and 5xx
 * answers are tried again, up to the configured number of attempts.
 */
static int
http_run(const struct http_call *c, struct http_response *resp, char *err,
    size_t errsz)
{
	char safe[512], errbuf[CURL_ERROR_SIZE];
	long backoff = http_cur.backoff_ms;
	int attempt, r = -1;

	http_response_reset(resp);
	buf_init(&resp->body, c->prefix ? 0 : c->max);
	http_safe_url(c->url, safe, sizeof(safe));
	if (c->auth != NULL && strpbrk(c->auth, "\r\n") != NULL) {
		snprintf(err, errsz, "invalid authorization value for '%s %s'",
		    c->method, safe);
		return -1;
	}
	for (attempt = 1; attempt <= (c->once ? 1 : http_cur.retries);
	     attempt++) {
		if (attempt > 1) {
			http_sleep_ms(backoff);
			backoff *= 2;
		}
		r = http_once(c, resp, errbuf, err, errsz);
		if (r == 0 && !http_retry_status(c, resp->status))
			break;
		if (r == -1)
			break;
	}
	http_count_error(c, r != 0 ? 0 : resp->status, err, resp->too_large);
	return r == 1 ? -1 : r;
}

/*
 * One attempt.  Returns 0 with resp filled, or with err set -1 for a
 * final failure and 1 for one that another attempt may cure.
 */
static int
http_once(const struct http_call *c, struct http_response *resp, char *errbuf,
    char *err, size_t errsz)
{
	struct curl_slist *hdrs = NULL;
	struct http_sink sink;
	char safe[512];
	CURLcode rc;
	CURL *h;
	int r = -1;

	http_safe_url(c->url, safe, sizeof(safe));
	buf_reset(&resp->body);
	http_response_reset(resp);
	sink.resp = resp;
	sink.body = &resp->body;
	sink.max = c->max;
	sink.prefix = c->prefix;
	sink.over = 0;
	errbuf[0] = '\0';
	if ((h = http_get_handle()) == NULL) {
		snprintf(err, errsz, "cannot start libcurl for '%s %s'",
		    c->method, safe);
		return -1;
	}
	hdrs = http_headers(c);
	if (http_setup(h, c, hdrs, &sink, errbuf) == -1) {
		snprintf(err, errsz, "cannot set up request '%s %s'", c->method,
		    safe);
		goto out;
	}
	http_count_request(c->url);
	rc = curl_easy_perform(h);
	r = http_attempt_end(c, h, rc, &sink, resp, errbuf, err, errsz);
out:
	curl_slist_free_all(hdrs);
	return r;
}

/*
 * What the attempt on h that ended with rc came to, as http_once()
 * returns it: 0 with resp->status, -1 or 1 (may be tried again) with err.
 */
static int
http_attempt_end(const struct http_call *c, CURL *h, CURLcode rc,
    struct http_sink *sink, struct http_response *resp, char *errbuf, char *err,
    size_t errsz)
{
	char safe[512];
	long sent = 0;

	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
	if (rc == CURLE_WRITE_ERROR && sink->prefix && sink->over) {
		resp->truncated = 1;
		rc = CURLE_OK;
	}
	if (rc == CURLE_OK && resp->status >= 100)
		return 0;
	http_safe_url(c->url, safe, sizeof(safe));
	resp->too_large = sink->over || rc == CURLE_FILESIZE_EXCEEDED;
	http_failure(c, rc, sink->over, safe, errbuf, err, errsz);
	curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &sent);
	resp->status = 0;
	if (!sink->over && !http_permanent(rc) &&
	    (http_idempotent(c->method) || sent == 0))
		return 1;
	return -1;
}

/* Say in err why the attempt failed: the cap, no status, or libcurl's. */
static void
http_failure(const struct http_call *c, CURLcode rc, int over, const char *safe,
    char *errbuf, char *err, size_t errsz)
{
	if (over || rc == CURLE_FILESIZE_EXCEEDED) {
		snprintf(err, errsz,
		    "response body over %zu bytes from '%s %s'", c->max,
		    c->method, safe);
		return;
	}
	if (rc == CURLE_OK) {
		snprintf(err, errsz, "no HTTP status from '%s %s'", c->method,
		    safe);
		return;
	}
	if (errbuf[0] == '\0')
		snprintf(errbuf, CURL_ERROR_SIZE, "%s", curl_easy_strerror(rc));
	errbuf[0] = (char)tolower((unsigned char)errbuf[0]);
	errbuf[strcspn(errbuf, "\r\n")] = '\0';
	snprintf(err, errsz, "%s from '%s %s'", errbuf, c->method, safe);
}

static CURL *
http_get_handle(void)
{
	if (http_handle == NULL)
		http_handle = curl_easy_init();
	else
		curl_easy_reset(http_handle);
	return http_handle;
}

/* Append one header line; out of memory aborts, as xmalloc does. */
static void
http_hdr_add(struct curl_slist **list, const char *line)
{
	struct curl_slist *n;

	if ((n = curl_slist_append(*list, line)) == NULL)
		abort();
	*list = n;
}

static struct curl_slist *
http_headers(const struct http_call *c)
{
	struct curl_slist *h = NULL;
	const char *const *x;
	char *line;

	if (c->auth != NULL) {
		line = xasprintf("Authorization: %s", c->auth);
		http_hdr_add(&h, line);
		free(line);
	}
	if (!c->prefix)
		http_hdr_add(&h, "Accept: application/json");
	if (c->json_body != NULL)
		http_hdr_add(&h, "Content-Type: application/json");
	for (x = c->extra; x != NULL && *x != NULL; x++)
		http_hdr_add(&h, *x);
	/* No "100-continue" round trip before a large body. */
	http_hdr_add(&h, "Expect:");
	return h;
}

static int
http_setup(CURL *h, const struct http_call *c, struct curl_slist *hdrs,
    struct http_sink *sink, char *errbuf)
{
	CURLcode e = CURLE_OK;

#define HTTP_SET(opt, val)                                 \
	do {                                               \
		if (e == CURLE_OK)                         \
			e = curl_easy_setopt(h, opt, val); \
	} while (0)
	HTTP_SET(CURLOPT_URL, c->url);
	HTTP_SET(CURLOPT_ERRORBUFFER, errbuf);
	if (http_get_share() != NULL)
		HTTP_SET(CURLOPT_SHARE, http_share);
	HTTP_SET(CURLOPT_NOSIGNAL, 1L);
	HTTP_SET(CURLOPT_PROTOCOLS_STR, "http,https");
	HTTP_SET(CURLOPT_CONNECTTIMEOUT_MS,
	    c->connect_ms > 0 ? c->connect_ms : http_cur.connect_timeout_ms);
	HTTP_SET(CURLOPT_TIMEOUT_MS,
	    c->timeout_ms > 0 ? c->timeout_ms : http_cur.timeout_ms);
	HTTP_SET(CURLOPT_USERAGENT, "disinto-c");
	HTTP_SET(CURLOPT_HTTPHEADER, hdrs);
	HTTP_SET(CURLOPT_WRITEFUNCTION, http_write_cb);
	HTTP_SET(CURLOPT_WRITEDATA, sink);
	HTTP_SET(CURLOPT_HEADERFUNCTION, http_header_cb);
	HTTP_SET(CURLOPT_HEADERDATA, sink);
	if (!c->prefix)
		HTTP_SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->max);
	if (strcmp(c->method, "GET") == 0)
		HTTP_SET(CURLOPT_HTTPGET, 1L);
	else {
		HTTP_SET(CURLOPT_CUSTOMREQUEST, c->method);
		if (c->json_body != NULL || strcmp(c->method, "DELETE") != 0) {
			const char *b = c->json_body ? c->json_body : "";

			HTTP_SET(CURLOPT_POSTFIELDS, b);
			HTTP_SET(CURLOPT_POSTFIELDSIZE_LARGE,
			    (curl_off_t)strlen(b));
		}
	}
#undef HTTP_SET
	return e == CURLE_OK ? 0 : -1;
}

static size_t
http_write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_sink *sink = arg;
	size_t n = size * nmemb, room;

	if (!sink->prefix) {
		if (buf_append(sink->body, data, n) == -1) {
			sink->over = 1;
			return 0;
		}
		return n;
	}
	room = sink->max - sink->body->len;
	if (n <= room) {
		buf_append(sink->body, data, n);
		return n;
	}
	buf_append(sink->body, data, room);
	sink->over = 1;
	return 0;
}

/*
 * One header line of an answer (libcurl passes each, the status line
 * first, CRLF included): what a list's page says of the pages after it.
 */
static size_t
http_header_cb(char *data, size_t size, size_t nitems, void *arg)
{
	struct http_sink *sink = arg;
	size_t n = size * nitems;

	http_header_line(sink->resp, data, n);
	return n;
}

/*
 * Read X-Total-Count (Gitea's count of the whole list) and Link (whether
 * a rel="next" page exists) from one header line; a status line starts a
 * new answer (after a 100 Continue) and forgets what came before.
 */
static void
http_header_line(struct http_response *resp, const char *line, size_t n)
{
	const char *v;
	char *text, *end;
	long long total;
	time_t reset;

	text = xstrndup(line, n);
	text[strcspn(text, "\r\n")] = '\0';
	n = strlen(text);
	if (strncmp(text, "HTTP/", 5) == 0) {
		resp->total = -1;
		resp->next = -1;
		resp->retry_after = -1;
		resp->reset_at = 0;
	} else if (http_header_is(text, n, "Retry-After", &v)) {
		resp->retry_after = http_retry_after(v, time(NULL));
	} else if (strncasecmp(text, "anthropic-ratelimit-", 20) == 0 &&
	    (v = strchr(text, ':')) != NULL && v - text > 26 &&
	    strncasecmp(v - 6, "-reset", 6) == 0) {
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		if ((reset = http_rfc3339(v)) > resp->reset_at)
			resp->reset_at = reset;
	} else if (http_header_is(text, n, "X-Total-Count", &v)) {
		total = strtoll(v, &end, 10);
		if (end != v && *end == '\0' && total >= 0)
			resp->total = total;
	} else if (http_header_is(text, n, "Link", &v)) {
		if (resp->next != 1)
			resp->next = http_link_has_next(v, v + strlen(v));
	}
	free(text);
}

/* Whether line is header name; *value its value, blanks skipped. */
static int
http_header_is(const char *line, size_t n, const char *name, const char **value)
{
	size_t len = strlen(name);

	if (n <= len || strncasecmp(line, name, len) != 0 || line[len] != ':')
		return 0;
	for (line += len + 1; *line == ' ' || *line == '\t'; line++)
		;
	*value = line;
	return 1;
}

/*
 * Whether a Link value [v, end) names a page with rel="next" (RFC 8288;
 * Gitea writes <url>; rel="next",<url>; rel="last").  1 or 0.
 */
static int
http_link_has_next(const char *v, const char *end)
{
	const char *p;

	for (p = v; p < end && (p = strchr(p, ';')) != NULL; p++) {
		p += strspn(p + 1, " \t") + 1;
		if (strncasecmp(p, "rel=\"next\"", 10) == 0 ||
		    (strncasecmp(p, "rel=next", 8) == 0 &&
			strchr(",; \t", p[8] != '\0' ? p[8] : ' ') != NULL))
			return 1;
	}
	return 0;
}

/* Methods whose repetition cannot apply a change twice. */
static int
http_idempotent(const char *method)
{
	return strcmp(method, "GET") == 0 || strcmp(method, "PUT") == 0 ||
	    strcmp(method, "DELETE") == 0 || strcmp(method, "HEAD") == 0;
}

/*
 * Failures that another attempt cannot cure.  Not among them: libcurl's
 * CURLE_UNSUPPORTED_PROTOCOL, which for the http(s) URLs the
 * configuration allows means an answer that was no HTTP ("HTTP/0.9"),
 * bytes an earlier answer left on a reused connection; the next attempt
 * has a fresh one.
 */
static int
http_permanent(CURLcode rc)
{
	switch (rc) {
	case CURLE_URL_MALFORMAT:
	case CURLE_WRITE_ERROR:
	case CURLE_FILESIZE_EXCEEDED:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_BAD_FUNCTION_ARGUMENT:
	case CURLE_OUT_OF_MEMORY:
		return 1;
	default:
		return 0;
	}
}

/*
 * A 5xx is worth another attempt, except a gateway timeout after a POST
 * or PATCH: the change may have been applied behind the proxy.
 */
static int
http_retry_status(const struct http_call *c, long status)
{
	if (status < 500 || status > 599)
		return 0;
	if (status == 504 && !http_idempotent(c->method))
		return 0;
	return 1;
}

static void
http_sleep_ms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

/* Copy url into out without any "user:password@" part. */
static void
http_safe_url(const char *url, char *out, size_t outsz)
{
	const char *p, *at, *end;

	if ((p = strstr(url, "://")) == NULL) {
		snprintf(out, outsz, "%s", url);
		return;
	}
	p += 3;
	end = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(end - p));
	if (at == NULL) {
		snprintf(out, outsz, "%s", url);
		return;
	}
	snprintf(out, outsz, "%.*s%s", (int)(p - url), url, at + 1);
}

/* Add the transfer of p to m.  0, or -1 (p->g says why). */
static int
http_par_start(CURLM *m, struct http_par *p)
{
	char safe[256];

	http_response_free(&p->g->resp);
	buf_init(&p->g->resp.body, p->call.max);
	p->sink.resp = &p->g->resp;
	p->sink.body = &p->g->resp.body;
	p->sink.max = p->call.max;
	p->sink.prefix = 0;
	p->sink.over = 0;
	p->errbuf[0] = '\0';
	p->hdrs = http_headers(&p->call);
	if ((p->h = curl_easy_init()) == NULL ||
	    http_setup(p->h, &p->call, p->hdrs, &p->sink, p->errbuf) == -1 ||
	    curl_easy_setopt(p->h, CURLOPT_PRIVATE, p) != CURLE_OK ||
	    curl_multi_add_handle(m, p->h) != CURLM_OK) {
		http_safe_url(p->call.url, safe, sizeof(safe));
		snprintf(p->g->err, sizeof(p->g->err),
		    "cannot set up request 'GET %s'", safe);
		p->g->failed = 1;
		return -1;
	}
	http_count_request(p->call.url);
	return 0;
}

/* The transfer of p ended with rc: its result in p->g, p->again. */
static void
http_par_done(CURLM *m, struct http_par *p, CURLcode rc)
{
	int r;

	r = http_attempt_end(&p->call, p->h, rc, &p->sink, &p->g->resp,
	    p->errbuf, p->g->err, sizeof(p->g->err));
	p->g->failed = r != 0;
	p->again = r == 1 ||
	    (r == 0 && http_retry_status(&p->call, p->g->resp.status));
	curl_multi_remove_handle(m, p->h);
}

/*
 * One round: the n transfers of ps, HTTP_PARALLEL at a time.  Returns
 * how many ended in a way another attempt may cure (moved to the front).
 */
static size_t
http_par_round(struct http_par *ps, size_t n)
{
	struct http_par *p, tmp;
	CURLMsg *msg;
	CURLM *m;
	size_t next = 0, again = 0, i;
	int active = 0, ended, still, left;

	if ((m = curl_multi_init()) == NULL)
		return 0;
	(void)curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS,
	    (long)HTTP_PARALLEL);
	for (i = 0; i < n; i++)
		ps[i].again = 0;
	for (;;) {
		while (next < n && active < HTTP_PARALLEL)
			if (http_par_start(m, &ps[next++]) == 0)
				active++;
		if (active == 0 || curl_multi_perform(m, &still) != CURLM_OK)
			break;
		ended = 0;
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
			    (char **)&p);
			http_par_done(m, p, msg->data.result);
			active--;
			ended++;
		}
		/* Wait for the network only when nothing ended. */
		if (ended == 0 && still > 0 &&
		    curl_multi_poll(m, NULL, 0, 1000, NULL) != CURLM_OK)
			break;
	}
	for (i = 0; i < n; i++) {
		if (ps[i].h != NULL)
			curl_easy_cleanup(ps[i].h);
		curl_slist_free_all(ps[i].hdrs);
		ps[i].h = NULL;
		ps[i].hdrs = NULL;
		if (ps[i].again) {
			tmp = ps[again];
			ps[again++] = ps[i];
			ps[i] = tmp;
		}
	}
	curl_multi_cleanup(m);
	return again;
}

void
http_get_many(struct http_get *gets, size_t n, const char *auth)
{
	struct http_par *ps;
	long backoff = http_cur.backoff_ms;
	size_t i, left = n;
	int attempt;

	ps = xcalloc(n + 1, sizeof(*ps));
	for (i = 0; i < n; i++) {
		memset(&gets[i].resp, 0, sizeof(gets[i].resp));
		http_response_reset(&gets[i].resp);
		gets[i].failed = 0;
		gets[i].err[0] = '\0';
		ps[i].g = &gets[i];
		ps[i].call.method = "GET";
		ps[i].call.url = gets[i].url;
		ps[i].call.auth = auth;
		ps[i].call.max = http_cur.max_body;
	}
	for (attempt = 1; attempt <= http_cur.retries && left > 0; attempt++) {
		if (attempt > 1) {
			http_sleep_ms(backoff);
			backoff *= 2;
		}
		left = http_par_round(ps, left);
	}
	for (i = 0; i < n; i++)
		http_count_error(&ps[i].call,
		    gets[i].failed ? 0 : gets[i].resp.status, gets[i].err,
		    gets[i].resp.too_large);
	free(ps);
}
