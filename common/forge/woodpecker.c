/*
 * Woodpecker CI API client: pipelines of one repository, restarts and
 * step logs (base64 entries decoded to text).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "http.h"
#include "http_client.h"
#include "json.h"
#include "log.h"
#include "utf8.h"
#include "woodpecker.h"
#include "xmalloc.h"

#define WP_PAGE 50
#define WP_MAX_PAGES 3

/*
 * The fields the tools read from pipelines and their steps, with their
 * types (json_check()): a pipeline that fails its table is left out of
 * a list (logged once) or fails the call that read it alone.
 */
static const struct json_field woodpecker_f_step[] = {
    {"id", JSON_INT, 1, NULL},
    {"name", JSON_STRING, 1, NULL},
    {"state", JSON_STRING, 1, NULL},
    {"exit_code", JSON_INT, 0, NULL},
    {"pid", JSON_INT, 0, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field woodpecker_f_workflow[] = {
    {"children", JSON_ARRAY, 0, woodpecker_f_step},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field woodpecker_f_pipeline[] = {
    {"number", JSON_INT, 1, NULL},
    {"commit", JSON_STRING, 1, NULL},
    {"status", JSON_STRING, 1, NULL},
    {"created", JSON_INT, 0, NULL},
    {"started", JSON_INT, 0, NULL},
    {"finished", JSON_INT, 0, NULL},
    {"updated", JSON_INT, 0, NULL},
    {"created_at", JSON_INT, 0, NULL},
    {"started_at", JSON_INT, 0, NULL},
    {"finished_at", JSON_INT, 0, NULL},
    {"updated_at", JSON_INT, 0, NULL},
    {"branch", JSON_STRING, 0, NULL},
    {"workflows", JSON_ARRAY, 0, woodpecker_f_workflow},
    {NULL, JSON_STRING, 0, NULL},
};

/* A pipeline of the list as woodpecker_scan() keeps it. */
struct woodpecker_seen {
	long long number;
	char commit[72];
	char status[16];
};

/* A visit of the list for woodpecker_pipelines_each(). */
struct woodpecker_visit {
	struct woodpecker *w;
	http_each_fn fn;
	void *arg;
	int keep;    /* keep each pipeline for the scans */
	int stopped; /* fn stopped the visit */
};

struct woodpecker {
	struct http_client *client;
	struct woodpecker_seen *seen; /* the list's pipelines read so far */
	size_t nseen;
	int pages;	/* pages of the list read into seen */
	int ended;	/* the last page was read */
	char *base;	/* the server's .../api */
	char *api;	/* .../api/repos/ID */
	char **skipped; /* the log lines of pipelines left out, each once */
	size_t nskipped;
};

static long long woodpecker_num(const cJSON *, const char *);
static int woodpecker_wp_b64_value(int);
static char *woodpecker_wp_b64_decode(const char *, size_t *);
static void woodpecker_wp_append_entry(struct buf *, const cJSON *);
static const char *woodpecker_wp_tail(const char *, size_t, size_t, size_t);
static void woodpecker_times(cJSON *);
static int woodpecker_check_list(cJSON *, void *, char *, size_t);
static int woodpecker_check_one(cJSON *, void *, char *, size_t);
static void woodpecker_skip(struct woodpecker *, const cJSON *, int,
    const char *);
static const struct woodpecker_seen *woodpecker_find(const struct woodpecker *,
    const char *);
static int woodpecker_read_page(struct woodpecker *);
static void woodpecker_keep(struct woodpecker *, const cJSON *);
static int woodpecker_read_until(struct woodpecker *, const char *const *,
    size_t, int);
static void woodpecker_forget(struct woodpecker *);
static int woodpecker_visit_one(void *, const cJSON *);

/* p[key] as an integer, 0 when it is not one. */
static long long
woodpecker_num(const cJSON *p, const char *key)
{
	long long v;

	return json_int(p, key, &v) == 0 ? v : 0;
}

void
woodpecker_pipeline_view(const cJSON *p, struct woodpecker_pipeline_info *out)
{
	memset(out, 0, sizeof(*out));
	out->number = woodpecker_num(p, "number");
	out->parent = woodpecker_num(p, "parent");
	out->created = woodpecker_num(p, "created");
	out->started = woodpecker_num(p, "started");
	out->finished = woodpecker_num(p, "finished");
	out->status = json_str(p, "status");
	out->commit = json_str(p, "commit");
}

struct woodpecker *
woodpecker_open(const char *server, const char *token, long long repo_id)
{
	struct woodpecker *w;
	char *auth = NULL;
	size_t n;

	w = xcalloc(1, sizeof(*w));
	n = strlen(server);
	while (n > 0 && server[n - 1] == '/')
		n--;
	w->base = xasprintf("%.*s/api", (int)n, server);
	w->api = xasprintf("%s/repos/%lld", w->base, repo_id);
	if (token != NULL && *token != '\0')
		auth = xasprintf("Bearer %s", token);
	w->client = http_client_new(auth);
	if (auth != NULL) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	return w;
}

void
woodpecker_close(struct woodpecker *w)
{
	size_t i;

	if (w == NULL)
		return;
	for (i = 0; i < w->nskipped; i++)
		free(w->skipped[i]);
	free(w->skipped);
	free(w->seen);
	http_client_free(w->client);
	free(w->api);
	free(w->base);
	free(w);
}

const char *
woodpecker_error(const struct woodpecker *w)
{
	return http_client_error(w->client);
}

long
woodpecker_last_status(const struct woodpecker *w)
{
	return http_client_status(w->client);
}

/*
 * A pipeline's times under the names of Woodpecker 3.x, whichever
 * version answered: 2.x names them created_at, started_at, finished_at
 * and updated_at, 3.x created, started, finished and updated
 * (server/model/pipeline.go at v2.8.3 and at v3.0.0).  Every caller reads
 * the 3.x names.
 */
static void
woodpecker_times(cJSON *p)
{
	static const char *const names[][2] = {{"created", "created_at"},
	    {"started", "started_at"}, {"finished", "finished_at"},
	    {"updated", "updated_at"}};
	const cJSON *old;
	cJSON *now;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		now = cJSON_GetObjectItemCaseSensitive(p, names[i][0]);
		old = cJSON_GetObjectItemCaseSensitive(p, names[i][1]);
		if ((now != NULL && !cJSON_IsNull(now)) || old == NULL ||
		    !cJSON_IsNumber(old))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(p, names[i][0]);
		if (cJSON_AddNumberToObject(p, names[i][0], old->valuedouble) ==
		    NULL)
			abort();
	}
}

/* Leave out every pipeline of the list that fails its table.  0. */
static int
woodpecker_check_list(cJSON *root, void *arg, char *err, size_t errsz)
{
	struct woodpecker *w = arg;
	char why[256];
	cJSON *el;
	int i = 0, pos = 0;

	(void)err;
	(void)errsz;
	while ((el = cJSON_GetArrayItem(root, i)) != NULL) {
		if (json_check(el, woodpecker_f_pipeline, why, sizeof(why)) ==
		    0) {
			woodpecker_times(el);
			i++;
			pos++;
			continue;
		}
		woodpecker_skip(w, el, pos++, why);
		cJSON_DeleteItemFromArray(root, i);
	}
	return 0;
}

/* One pipeline against its table: 0, or -1 with the fault in err. */
static int
woodpecker_check_one(cJSON *root, void *arg, char *err, size_t errsz)
{
	char why[256];

	(void)arg;
	if (json_check(root, woodpecker_f_pipeline, why, sizeof(why)) == 0) {
		woodpecker_times(root);
		return 0;
	}
	snprintf(err, errsz, "pipeline: %s", why);
	return -1;
}

/* Log, once per handle, that a pipeline of the list was left out. */
static void
woodpecker_skip(struct woodpecker *w, const cJSON *el, int pos, const char *why)
{
	long long n;
	char *line;
	size_t i;

	if (json_int(el, "number", &n) == 0)
		line = xasprintf("skipping pipeline #%lld: %s", n, why);
	else
		line = xasprintf("skipping pipeline %d of the list: %s",
		    pos + 1, why);
	for (i = 0; i < w->nskipped; i++) {
		if (strcmp(w->skipped[i], line) == 0) {
			free(line);
			return;
		}
	}
	log_warn("%s", line);
	w->skipped =
	    xreallocarray(w->skipped, w->nskipped + 1, sizeof(*w->skipped));
	w->skipped[w->nskipped++] = line;
}

int
woodpecker_pipelines(struct woodpecker *w, const cJSON **out)
{
	struct http_check check = {woodpecker_check_list, w};
	const cJSON *p;
	char *url;
	int r, complete;

	url = xasprintf("%s/pipelines", w->api);
	r = http_client_get_pages(w->client, url, "perPage", WP_PAGE,
	    WP_MAX_PAGES, &check, out, &complete);
	free(url);
	/* The pages just read need not be read again by a scan. */
	if (r == 0 && w->pages == 0) {
		cJSON_ArrayForEach (p, *out)
			woodpecker_keep(w, p);
		w->pages = WP_MAX_PAGES;
		w->ended = complete;
	}
	return r;
}

static int
woodpecker_visit_one(void *arg, const cJSON *p)
{
	struct woodpecker_visit *v = arg;
	int r;

	if (v->keep)
		woodpecker_keep(v->w, p);
	if ((r = v->fn(v->arg, p)) == 1)
		v->stopped = 1;
	return r;
}

int
woodpecker_pipelines_each(struct woodpecker *w, http_each_fn fn, void *arg)
{
	struct http_check check = {woodpecker_check_list, w};
	struct woodpecker_visit v = {w, fn, arg, w->pages == 0, 0};
	char *url;
	int r, complete;

	url = xasprintf("%s/pipelines", w->api);
	r = http_client_each_page(w->client, url, "perPage", WP_PAGE,
	    WP_MAX_PAGES, &check, woodpecker_visit_one, &v, &complete);
	free(url);
	if (!v.keep)
		return r;
	/* The pages just read need not be read again by a scan. */
	if (r == 0 && !v.stopped) {
		w->pages = WP_MAX_PAGES;
		w->ended = complete;
	} else
		woodpecker_forget(w);
	return r;
}

/* The newest pipeline of the list read so far whose commit is sha. */
static const struct woodpecker_seen *
woodpecker_find(const struct woodpecker *w, const char *sha)
{
	const struct woodpecker_seen *best = NULL;
	size_t i;

	for (i = 0; i < w->nseen; i++)
		if (strcmp(w->seen[i].commit, sha) == 0 &&
		    (best == NULL || w->seen[i].number > best->number))
			best = &w->seen[i];
	return best;
}

/* Read the next page of the list into seen (the page is not kept).  0/-1. */
static int
woodpecker_read_page(struct woodpecker *w)
{
	struct http_check check = {woodpecker_check_list, w};
	const cJSON *p;
	cJSON *page;
	char *url;
	int more, r;

	url = xasprintf("%s/pipelines?perPage=%d&page=%d", w->api, WP_PAGE,
	    w->pages + 1);
	/*
	 * Woodpecker sends no count of the list: only an empty page ends
	 * it (its pages are cut at 50, server/router/middleware/session/
	 * pagination.go, but a short page proves nothing in general).
	 */
	r = http_client_get_page(w->client, url, &check, (long long)w->nseen,
	    &page, &more);
	free(url);
	if (r == -1)
		return -1;
	w->pages++;
	w->ended = !more;
	cJSON_ArrayForEach (p, page)
		woodpecker_keep(w, p);
	cJSON_Delete(page);
	return 0;
}

/* Keep the number, commit and status of pipeline p of the list. */
static void
woodpecker_keep(struct woodpecker *w, const cJSON *p)
{
	struct woodpecker_seen *s;
	const char *commit, *status;
	long long n;

	commit = json_str(p, "commit");
	status = json_str(p, "status");
	if (json_int(p, "number", &n) == -1 || commit == NULL || status == NULL)
		return;
	w->seen = xreallocarray(w->seen, w->nseen + 1, sizeof(*w->seen));
	s = &w->seen[w->nseen++];
	s->number = n;
	snprintf(s->commit, sizeof(s->commit), "%s", commit);
	snprintf(s->status, sizeof(s->status), "%s", status);
}

/*
 * Read pages until each of the n shas was seen, the list ended or
 * max_pages pages in all were read.  0 or -1.
 */
static int
woodpecker_read_until(struct woodpecker *w, const char *const *shas, size_t n,
    int max_pages)
{
	size_t i = 0;

	while (!w->ended && w->pages < max_pages) {
		while (
		    i < n && (shas[i] == NULL || woodpecker_find(w, shas[i])))
			i++;
		if (i == n)
			break;
		if (woodpecker_read_page(w) == -1)
			return -1;
	}
	return 0;
}

int
woodpecker_scan(struct woodpecker *w, const char *const *shas, size_t n)
{
	size_t cap = WP_MAX_PAGES + n / (WP_PAGE / 2);

	return woodpecker_read_until(w, shas, n, cap > 1000 ? 1000 : (int)cap);
}

int
woodpecker_latest_for_commit(struct woodpecker *w, const char *sha,
    long long *number, const char **status)
{
	const struct woodpecker_seen *s;

	*number = 0;
	*status = NULL;
	if (woodpecker_read_until(w, &sha, 1, WP_MAX_PAGES) == -1)
		return -1;
	if ((s = woodpecker_find(w, sha)) == NULL)
		return WOODPECKER_NONE;
	*number = s->number;
	*status = s->status;
	return 0;
}

int
woodpecker_known(const struct woodpecker *w, const char *sha,
    const char **status)
{
	const struct woodpecker_seen *s;

	*status = NULL;
	if (sha == NULL || (s = woodpecker_find(w, sha)) == NULL)
		return WOODPECKER_NONE;
	*status = s->status;
	return 0;
}

/* A write may have added pipelines: the list is read again. */
static void
woodpecker_forget(struct woodpecker *w)
{
	free(w->seen);
	w->seen = NULL;
	w->nseen = 0;
	w->pages = 0;
	w->ended = 0;
}

int
woodpecker_pipeline(struct woodpecker *w, long long number, const cJSON **out)
{
	struct http_check check = {woodpecker_check_one, NULL};
	char *url;
	int r;

	url = xasprintf("%s/pipelines/%lld", w->api, number);
	r = http_client_get(w->client, url, cJSON_Object, &check, out);
	free(url);
	return r;
}

/*
 * GET /api/user and GET /api/repos/{repo_id}: the same routes on 2.x and
 * 3.x (server/router/api.go: the user group behind session.MustUser(),
 * the repository group behind session.SetRepo() and session.MustPull).
 */
int
woodpecker_user(struct woodpecker *w, const cJSON **out)
{
	char *url = xasprintf("%s/user", w->base);
	int r = http_client_get(w->client, url, cJSON_Object, NULL, out);

	free(url);
	return r;
}

int
woodpecker_repo(struct woodpecker *w, const cJSON **out)
{
	return http_client_get(w->client, w->api, cJSON_Object, NULL, out);
}

int
woodpecker_restart(struct woodpecker *w, long long number,
    long long *new_number)
{
	struct http_response resp;
	cJSON *p = NULL;
	char *url;
	long long n = 0;
	int r = -1;

	url = xasprintf("%s/pipelines/%lld", w->api, number);
	woodpecker_forget(w);
	if (http_client_send(w->client, "POST", url, NULL, &resp) == -1)
		goto out;
	if (resp.status < 200 || resp.status > 299) {
		http_client_status_fail(w->client, "POST", url, &resp);
		goto out;
	}
	if (resp.body.len > 0 &&
	    (p = http_client_parse(w->client, "POST", url, &resp, 0)) != NULL)
		json_int(p, "number", &n);
	if (new_number != NULL)
		*new_number = n;
	http_client_fail(w->client, 0, "%s", "");
	r = 0;
out:
	cJSON_Delete(p);
	http_response_free(&resp);
	free(url);
	return r;
}

int
woodpecker_step_log(struct woodpecker *w, long long number, long long step_id,
    size_t max_bytes, size_t max_lines, char **text)
{
	struct http_opts o;
	const char *raw;
	cJSON *entries = NULL;
	char *url, err[128];
	int truncated, r = -1;

	*text = NULL;
	http_get_opts(&o);
	url = xasprintf("%s/logs/%lld/%lld", w->api, number, step_id);
	/*
	 * No log: a step Woodpecker does not know is 404; one that is not
	 * of this pipeline is 400 on 2.x (and on 3.x before 3.14), 404
	 * since (server/api/pipeline.go, GetStepLogs).
	 */
	if (http_client_get_text(w->client, url, o.max_body, &raw,
		&truncated) == -1) {
		r = http_client_status(w->client) == 404 ||
			http_client_status(w->client) == 400 ?
		    WOODPECKER_NONE :
		    -1;
		goto out;
	}
	if (truncated) {
		http_client_fail(w->client, 0, "log over %zu bytes at '%s'",
		    o.max_body, url);
		r = WOODPECKER_NONE;
		goto out;
	}
	entries = json_parse(raw, strlen(raw), err, sizeof(err));
	if (entries == NULL || !cJSON_IsArray(entries)) {
		http_client_fail(w->client, 0, "%s from 'GET %s'",
		    entries == NULL ? err : "expected an array", url);
		goto out;
	}
	*text = woodpecker_log_text(entries, max_bytes, max_lines);
	r = 0;
out:
	cJSON_Delete(entries);
	free(url);
	return r;
}

char *
woodpecker_log_text(const cJSON *entries, size_t max_bytes, size_t max_lines)
{
	const cJSON *e;
	struct buf all;
	char *out;

	buf_init(&all, 0);
	buf_append(&all, "", 0);
	cJSON_ArrayForEach (e, entries)
		woodpecker_wp_append_entry(&all, e);
	out = xstrdup(
	    woodpecker_wp_tail(buf_str(&all), all.len, max_bytes, max_lines));
	buf_free(&all);
	return out;
}

/*
 * One entry as a line: its data decoded, NULs made spaces, '\n' ended.
 * No data (absent or null) is an empty line; an entry that is not an
 * object, or whose data is not a string, is left out.
 */
static void
woodpecker_wp_append_entry(struct buf *b, const cJSON *e)
{
	const cJSON *item;
	const char *data = "";
	char *dec;
	size_t n, i, start = b->len;

	if (!cJSON_IsObject(e))
		return;
	item = cJSON_GetObjectItemCaseSensitive(e, "data");
	if (item != NULL && !cJSON_IsNull(item) &&
	    (data = cJSON_GetStringValue(item)) == NULL)
		return;
	if ((dec = woodpecker_wp_b64_decode(data, &n)) != NULL) {
		buf_append(b, dec, n);
		free(dec);
	} else
		buf_puts(b, data);
	for (i = start; i < b->len; i++) {
		if (b->data[i] == '\0')
			b->data[i] = ' ';
	}
	if (b->len == start || b->data[b->len - 1] != '\n')
		buf_append(b, "\n", 1);
}

static int
woodpecker_wp_b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decode padded standard base64.  Returns the bytes (caller frees, NUL
 * added, length in *outlen), or NULL when s is not valid base64.
 */
static char *
woodpecker_wp_b64_decode(const char *s, size_t *outlen)
{
	size_t len = strlen(s), pad = 0, i, o = 0;
	unsigned long acc = 0;
	char *out;
	int v;

	if (len % 4 != 0)
		return NULL;
	while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
		pad++;
	out = xmalloc(len / 4 * 3 + 1);
	for (i = 0; i < len - pad; i++) {
		if ((v = woodpecker_wp_b64_value((unsigned char)s[i])) == -1) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned long)v;
		if (i % 4 == 3) {
			out[o++] = (char)(acc >> 16);
			out[o++] = (char)(acc >> 8);
			out[o++] = (char)acc;
			acc = 0;
		}
	}
	if (pad == 2)
		out[o++] = (char)(acc >> 4);
	else if (pad == 1) {
		out[o++] = (char)(acc >> 10);
		out[o++] = (char)(acc >> 2);
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/*
 * The start of the last max_lines lines of text (len bytes, '\n' ended)
 * that fit in max_bytes; a line longer than that is cut at its front,
 * never inside a UTF-8 sequence.  0 means no limit.
 */
static const char *
woodpecker_wp_tail(const char *text, size_t len, size_t max_bytes,
    size_t max_lines)
{
	const char *start = text, *p;
	size_t lines = 0;

	if (max_lines > 0 && len > 0) {
		for (p = text + len - 1; p > text; p--) {
			if (p[-1] == '\n' && ++lines == max_lines)
				break;
		}
		start = p;
	}
	if (max_bytes > 0 && (size_t)(text + len - start) > max_bytes) {
		start = text + utf8_suffix_start(text, len, max_bytes);
		if (start[-1] != '\n' &&
		    (p = memchr(start, '\n', (size_t)(text + len - start))) !=
			NULL &&
		    p + 1 < text + len)
			start = p + 1;
	}
	return start;
}
