/*
 * Gitea/Forgejo API v1 client: URLs, request bodies and the statuses each
 * endpoint answers with.  Transport, caching and error text live in the
 * http client.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "forge.h"
#include "http.h"
#include "http_client.h"
#include "json.h"
#include "log.h"
#include "redact.h"
#include "valid.h"
#include "xmalloc.h"

#define FORGE_PAGE 50
#define FORGE_MAX_PAGES 1000 /* 50 000 items: beyond it, give up */
/* A PR's changed files read for a review or a rule: 1000 at most. */
#define FORGE_FILES_PAGES 20
#define FORGE_GREY "#c5c8cc"

/*
 * The fields of each kind of object the forge hands out that the tools
 * read, with their types.  An object is only handed out when it passes
 * its table: a required field is there with its type, an optional one
 * has its type or is absent (or null).  Every other field is dropped as
 * the object arrives (forge_prune()), so that a tick keeps of a long
 * list only what it reads: a field a tool reads must be in its table.
 */
static const struct json_field forge_f_label[] = {
    {"id", JSON_ID, 1, NULL},
    {"name", JSON_STRING, 1, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_item_label[] = {
    {"id", JSON_ID, 0, NULL},
    {"name", JSON_STRING, 1, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_issue[] = {
    {"number", JSON_ID, 1, NULL},
    {"title", JSON_STRING, 1, NULL},
    {"state", JSON_STRING, 1, NULL},
    {"body", JSON_STRING, 0, NULL},
    {"labels", JSON_ARRAY, 0, forge_f_item_label},
    {"user.login", JSON_STRING, 0, NULL},
    {"pull_request", JSON_OBJECT, 0, NULL},
    {"created_at", JSON_STRING, 0, NULL},
    {"updated_at", JSON_STRING, 0, NULL},
    {"closed_at", JSON_STRING, 0, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_pull[] = {
    {"number", JSON_ID, 1, NULL},
    {"title", JSON_STRING, 1, NULL},
    {"state", JSON_STRING, 1, NULL},
    {"head.ref", JSON_STRING, 1, NULL},
    {"head.label", JSON_STRING, 0, NULL},
    {"head.sha", JSON_STRING, 1, NULL},
    {"base.ref", JSON_STRING, 1, NULL},
    {"body", JSON_STRING, 0, NULL},
    {"merged", JSON_BOOL, 0, NULL},
    {"mergeable", JSON_BOOL, 0, NULL},
    {"draft", JSON_BOOL, 0, NULL},
    {"labels", JSON_ARRAY, 0, forge_f_item_label},
    {"user.login", JSON_STRING, 0, NULL},
    {"created_at", JSON_STRING, 0, NULL},
    {"updated_at", JSON_STRING, 0, NULL},
    {"merged_at", JSON_STRING, 0, NULL},
    {"closed_at", JSON_STRING, 0, NULL},
    {"changed_files", JSON_INT, 0, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_comment[] = {
    {"id", JSON_ID, 1, NULL},
    {"body", JSON_STRING, 1, NULL},
    {"user.login", JSON_STRING, 1, NULL},
    {"created_at", JSON_STRING, 0, NULL},
    {"updated_at", JSON_STRING, 0, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_review[] = {
    {"id", JSON_ID, 1, NULL},
    {"state", JSON_STRING, 1, NULL},
    {"user.login", JSON_STRING, 1, NULL},
    {"commit_id", JSON_STRING, 0, NULL},
    {"body", JSON_STRING, 0, NULL},
    {"stale", JSON_BOOL, 0, NULL},
    {"dismissed", JSON_BOOL, 0, NULL},
    {"submitted_at", JSON_STRING, 0, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_file[] = {
    {"filename", JSON_STRING, 1, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_status_item[] = {
    {"status", JSON_STRING, 0, NULL},
    {"context", JSON_STRING, 0, NULL},
    {"target_url", JSON_STRING, 0, NULL},
    {NULL, JSON_STRING, 0, NULL},
};

static const struct json_field forge_f_status[] = {
    {"state", JSON_STRING, 1, NULL},
    {"statuses", JSON_ARRAY, 0, forge_f_status_item},
    {NULL, JSON_STRING, 0, NULL},
};

/*
 * A kind of object: its name in messages, the key naming one, fields,
 * and what is set right in each one that passed its table (NULL: none).
 */
struct forge_kind {
	const char *name;
	const char *id_key;
	const char *id_mark; /* "#" before a number, "" before an ID */
	const struct json_field *fields;
	void (*fix)(cJSON *);
};

static void forge_pull_fix(cJSON *);

static const struct forge_kind forge_k_issue = {"issue", "number", "#",
    forge_f_issue, NULL};
static const struct forge_kind forge_k_pull = {"PR", "number", "#",
    forge_f_pull, forge_pull_fix};
static const struct forge_kind forge_k_comment = {"comment", "id", "",
    forge_f_comment, NULL};
static const struct forge_kind forge_k_review = {"review", "id", "",
    forge_f_review, NULL};
static const struct forge_kind forge_k_label = {"label", "id", "",
    forge_f_label, NULL};
static const struct forge_kind forge_k_file = {"changed file", NULL, "",
    forge_f_file, NULL};
static const struct forge_kind forge_k_status = {"commit status", NULL, "",
    forge_f_status, NULL};
static const struct forge_kind forge_k_status_item = {"commit status", NULL, "",
    forge_f_status_item, NULL};

/* What a check of a result needs: the handle, the kind, the path. */
struct forge_check {
	struct forge *f;
	const struct forge_kind *kind;
	const char *path;
};

/* A label name seen or created, with its ID. */
struct forge_label {
	char *name;
	long long id;
};

struct forge {
	struct http_client *client;
	char *base; /* .../api/v1/repos/OWNER/REPO */
	char *root; /* .../api/v1 */
	struct forge_label *labels;
	size_t nlabels;
	char *login;
	char *version; /* the server's GET /version, read once per handle */
	int version_failed; /* that read failed: not asked again */
	char **skipped; /* the log lines of objects skipped, each said once */
	size_t nskipped;
};

static char *forge_url(const struct forge *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static void forge_query(struct buf *, const char *, const char *);
static int forge_write(struct forge *, const char *, const char *,
    const cJSON *, int, cJSON **);
static int forge_ok(long);
static cJSON *forge_body(void);
static void forge_body_str(cJSON *, const char *, const char *);
static void forge_body_text(cJSON *, const char *, const char *);
static void forge_body_bool(cJSON *, const char *, int);
static int forge_created_id(struct forge *, cJSON *, const char *, long long *);
static const char *forge_label_color(const char *);
static enum forge_res forge_label_known(const struct forge *, const char *,
    long long *);
static enum forge_res forge_label_lookup(struct forge *, const char *,
    long long *);
static void forge_label_remember(struct forge *, const char *, long long);
static enum forge_res forge_label_create(struct forge *, const char *,
    long long *);
static int forge_merge_check(struct forge *, long long, struct forge_merge *);
static int forge_get_kind(struct forge *, const char *,
    const struct forge_kind *, int, const cJSON **);
static int forge_list_kind(struct forge *, const char *,
    const struct forge_kind *, const cJSON **);
static int forge_check_one(cJSON *, void *, char *, size_t);
static void forge_prefetch(struct forge *, const char *,
    const struct forge_kind *, const long long *, size_t);
static int forge_path_is(const char *, const char *, size_t, const char *);
static void forge_prune(cJSON *, const struct json_field *, const char *);
static int forge_check_list(cJSON *, void *, char *, size_t);
static void forge_skip(struct forge_check *, const cJSON *, int, const char *);
static void forge_issues_path(struct buf *, const char *, const char *,
    const char *);
static time_t forge_time(const cJSON *, const char *);
static long long forge_id(const cJSON *, const char *);
static int forge_flag(const cJSON *, const char *);

struct forge *
forge_open(const char *api_base, const char *token)
{
	struct forge *f;
	char *auth = NULL, *p;
	size_t n;

	f = xcalloc(1, sizeof(*f));
	n = strlen(api_base);
	while (n > 0 && api_base[n - 1] == '/')
		n--;
	f->base = xstrndup(api_base, n);
	f->root = xstrdup(f->base);
	if ((p = strstr(f->root, "/repos/")) != NULL)
		*p = '\0';
	if (token != NULL && *token != '\0')
		auth = xasprintf("token %s", token);
	f->client = http_client_new(auth);
	if (auth != NULL) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	return f;
}

void
forge_close(struct forge *f)
{
	size_t i;

	if (f == NULL)
		return;
	http_client_free(f->client);
	for (i = 0; i < f->nlabels; i++)
		free(f->labels[i].name);
	free(f->labels);
	for (i = 0; i < f->nskipped; i++)
		free(f->skipped[i]);
	free(f->skipped);
	free(f->login);
	free(f->version);
	free(f->base);
	free(f->root);
	free(f);
}

const char *
forge_error(const struct forge *f)
{
	return http_client_error(f->client);
}

unsigned long
forge_writes(const struct forge *f)
{
	return http_client_writes(f->client);
}

long
forge_last_status(const struct forge *f)
{
	return http_client_status(f->client);
}

int
forge_too_large(const struct forge *f)
{
	return http_client_too_large(f->client);
}

/* The repository URL with a formatted path appended.  Caller frees. */
static char *
forge_url(const struct forge *f, const char *fmt, ...)
{
	va_list ap;
	char *path, *url;

	va_start(ap, fmt);
	path = xvasprintf(fmt, ap);
	va_end(ap);
	url = xasprintf("%s%s", f->base, path);
	free(path);
	return url;
}

/* Append "&key=value" (or "?key=value" first), value escaped; NULL skips. */
static void
forge_query(struct buf *b, const char *key, const char *value)
{
	char *v;

	if (value == NULL)
		return;
	v = http_escape(value, 0);
	buf_printf(b, "%c%s=%s", strchr(buf_str(b), '?') ? '&' : '?', key, v);
	free(v);
}

static int
forge_ok(long status)
{
	return status >= 200 && status <= 299;
}

int
forge_get(struct forge *f, const char *path, int type, const cJSON **out)
{
	char *url;
	int r;

	url = forge_url(f, "%s", path);
	r = http_client_get(f->client, url, type, NULL, out);
	free(url);
	return r;
}

int
forge_get_list(struct forge *f, const char *path, const cJSON **out)
{
	return forge_list_kind(f, path, NULL, out);
}

/*
 * Read the object (type cJSON_Object) or the one-page list (cJSON_Array)
 * of kind k at path: an object that fails k's table is an error, an
 * element of a list that does is left out.
 */
static int
forge_get_kind(struct forge *f, const char *path, const struct forge_kind *k,
    int type, const cJSON **out)
{
	struct forge_check fc = {f, k, path};
	struct http_check check = {
	    type == cJSON_Array ? forge_check_list : forge_check_one, &fc};
	char *url;
	int r;

	url = forge_url(f, "%s", path);
	r = http_client_get(f->client, url, type, &check, out);
	free(url);
	return r;
}

/* A whole object checked against its kind's table: 0 or -1. */
static int
forge_check_one(cJSON *root, void *arg, char *err, size_t errsz)
{
	const struct forge_check *fc = arg;
	char why[256];

	if (json_check(root, fc->kind->fields, why, sizeof(why)) == 0) {
		forge_prune(root, fc->kind->fields, "");
		if (fc->kind->fix != NULL)
			fc->kind->fix(root);
		return 0;
	}
	snprintf(err, errsz, "%s: %s", fc->kind->name, why);
	return -1;
}

/*
 * How the dotted path of a table names prefix + key: 1 that very field,
 * 2 a field inside it, 0 neither.
 */
static int
forge_path_is(const char *path, const char *prefix, size_t plen,
    const char *key)
{
	size_t klen = strlen(key);

	if (strncmp(path, prefix, plen) != 0 ||
	    strncmp(path + plen, key, klen) != 0)
		return 0;
	if (path[plen + klen] == '\0')
		return 1;
	return path[plen + klen] == '.' ? 2 : 0;
}

/*
 * Drop every member of obj (at prefix, "" or "head.") that no path of
 * schema names; the elements of an array with a table of their own are
 * pruned to it.
 */
static void
forge_prune(cJSON *obj, const struct json_field *schema, const char *prefix)
{
	const struct json_field *f, *whole;
	cJSON *el, *next, *it;
	size_t plen = strlen(prefix);
	char *sub;
	int inner, how;

	for (el = obj->child; el != NULL; el = next) {
		next = el->next;
		whole = NULL;
		inner = 0;
		for (f = schema; el->string != NULL && f->path != NULL; f++) {
			if ((how = forge_path_is(f->path, prefix, plen,
				 el->string)) == 1)
				whole = f;
			else if (how == 2)
				inner = 1;
		}
		if (whole == NULL && !inner) {
			cJSON_Delete(cJSON_DetachItemViaPointer(obj, el));
		} else if (whole != NULL && whole->each != NULL) {
			cJSON_ArrayForEach (it, el)
				if (cJSON_IsObject(it))
					forge_prune(it, whole->each, "");
		} else if (whole == NULL && cJSON_IsObject(el)) {
			sub = xasprintf("%s%s.", prefix, el->string);
			forge_prune(el, schema, sub);
			free(sub);
		}
	}
}

/* Drop every element of the list that fails its kind's table.  0. */
static int
forge_check_list(cJSON *root, void *arg, char *err, size_t errsz)
{
	struct forge_check *fc = arg;
	char why[256];
	cJSON *el;
	int i = 0, pos = 0;

	(void)err;
	(void)errsz;
	while ((el = cJSON_GetArrayItem(root, i)) != NULL) {
		if (json_check(el, fc->kind->fields, why, sizeof(why)) == 0) {
			forge_prune(el, fc->kind->fields, "");
			if (fc->kind->fix != NULL)
				fc->kind->fix(el);
			i++;
			pos++;
			continue;
		}
		forge_skip(fc, el, pos++, why);
		cJSON_DeleteItemFromArray(root, i);
	}
	return 0;
}

/* Log, once per handle, that an element of a list was left out. */
static void
forge_skip(struct forge_check *fc, const cJSON *el, int pos, const char *why)
{
	const struct forge_kind *k = fc->kind;
	struct forge *f = fc->f;
	long long id;
	char *line;
	size_t i;

	if (k->id_key != NULL && json_int(el, k->id_key, &id) == 0)
		line = xasprintf("skipping %s %s%lld of '%s': %s", k->name,
		    k->id_mark, id, fc->path, why);
	else
		line = xasprintf("skipping %s %d of '%s': %s", k->name, pos + 1,
		    fc->path, why);
	for (i = 0; i < f->nskipped; i++) {
		if (strcmp(f->skipped[i], line) == 0) {
			free(line);
			return;
		}
	}
	log_warn("%s", line);
	f->skipped =
	    xreallocarray(f->skipped, f->nskipped + 1, sizeof(*f->skipped));
	f->skipped[f->nskipped++] = line;
}

/*
 * A PR's branch in head.ref, whatever the forge says there: Gitea and
 * Forgejo answer "refs/pull/N/head" once the head branch is deleted (by
 * the merge's delete_branch_after_merge, or by hand), and keep the
 * branch's name in head.label (services/convert/pull.go,
 * ToAPIPullRequest: Ref starts as the pull ref and becomes the branch
 * only while the branch exists; Name, the JSON "label", is always the
 * branch).  Every caller reads head.ref, so a merged PR is still found
 * by its branch.
 */
static void
forge_pull_fix(cJSON *pr)
{
	cJSON *head = cJSON_GetObjectItemCaseSensitive(pr, "head");
	const char *ref = json_str(head, "ref"),
		   *label = json_str(head, "label");

	if (ref == NULL || strncmp(ref, "refs/pull/", 10) != 0 ||
	    label == NULL || *label == '\0')
		return;
	if (cJSON_ReplaceItemInObjectCaseSensitive(head, "ref",
		cJSON_CreateString(label)) == 0)
		abort();
}

/* obj[key] as a time, 0 when it is not there. */
static time_t
forge_time(const cJSON *obj, const char *key)
{
	time_t t;

	return json_time(obj, key, &t) == 0 ? t : 0;
}

/* obj[key] as an ID, 0 when it is not there. */
static long long
forge_id(const cJSON *obj, const char *key)
{
	long long v;

	return json_int(obj, key, &v) == 0 ? v : 0;
}

/* obj[key] as a flag, 0 when it is not there. */
static int
forge_flag(const cJSON *obj, const char *key)
{
	int b;

	return json_bool(obj, key, &b) == 0 && b;
}

void
forge_pull_view(const cJSON *pr, struct forge_pull *out)
{
	int b;

	memset(out, 0, sizeof(*out));
	out->number = forge_id(pr, "number");
	out->title = json_str(pr, "title");
	out->state = json_str(pr, "state");
	out->body = json_str(pr, "body");
	out->branch = json_str_at(pr, "head.ref");
	out->sha = json_str_at(pr, "head.sha");
	out->base = json_str_at(pr, "base.ref");
	out->author = json_str_at(pr, "user.login");
	out->merged = forge_flag(pr, "merged");
	out->draft = forge_flag(pr, "draft");
	out->mergeable = json_bool(pr, "mergeable", &b) == 0 ? b : -1;
	out->created = forge_time(pr, "created_at");
	out->updated = forge_time(pr, "updated_at");
	out->merged_at = forge_time(pr, "merged_at");
	out->closed_at = forge_time(pr, "closed_at");
}

void
forge_issue_view(const cJSON *issue, struct forge_issue *out)
{
	memset(out, 0, sizeof(*out));
	out->number = forge_id(issue, "number");
	out->title = json_str(issue, "title");
	out->state = json_str(issue, "state");
	out->body = json_str(issue, "body");
	out->author = json_str_at(issue, "user.login");
	out->pull = json_obj(issue, "pull_request") != NULL;
	out->created = forge_time(issue, "created_at");
	out->updated = forge_time(issue, "updated_at");
	out->closed = forge_time(issue, "closed_at");
}

void
forge_comment_view(const cJSON *comment, struct forge_comment *out)
{
	memset(out, 0, sizeof(*out));
	out->id = forge_id(comment, "id");
	out->body = json_str(comment, "body");
	out->author = json_str_at(comment, "user.login");
	out->created_at = json_str(comment, "created_at");
}

void
forge_review_view(const cJSON *review, struct forge_review *out)
{
	memset(out, 0, sizeof(*out));
	out->id = forge_id(review, "id");
	out->state = json_str(review, "state");
	out->author = json_str_at(review, "user.login");
	out->commit = json_str(review, "commit_id");
	out->body = json_str(review, "body");
	out->dismissed = forge_flag(review, "dismissed");
}

const char *
forge_file_name(const cJSON *file)
{
	return json_str(file, "filename");
}

int
forge_labelled(const cJSON *item, const char *name)
{
	return json_has_label(item, name);
}

void
forge_issue_key(const cJSON *issue, struct forge_issue_key *out)
{
	if (json_time(issue, "created_at", &out->created) == -1)
		out->created = 0;
	if (json_int(issue, "number", &out->number) == -1)
		out->number = 0;
}

int
forge_issue_key_cmp(const struct forge_issue_key *a,
    const struct forge_issue_key *b)
{
	if (a->created != b->created)
		return a->created < b->created ? -1 : 1;
	if (a->number != b->number)
		return a->number < b->number ? -1 : 1;
	return 0;
}

/* qsort() order of two issues (cJSON **): forge_issue_key_cmp(). */
static int
forge_issue_cmp(const void *pa, const void *pb)
{
	struct forge_issue_key a, b;

	forge_issue_key(*(cJSON *const *)pa, &a);
	forge_issue_key(*(cJSON *const *)pb, &b);
	return forge_issue_key_cmp(&a, &b);
}

/*
 * Put the issues of list in the tools' order (forge_issue_key_cmp()),
 * in place: Gitea lists a repository's issues newest first and reads no
 * "sort" there (routers/api/v1/repo/issue.go, ListIssues: SortBy is
 * always SortByCreatedDesc), Forgejo reads one; neither decides here.
 */
static void
forge_issues_order(cJSON *list)
{
	cJSON **v, *el;
	size_t n = 0, i;

	v = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*v));
	while ((el = cJSON_DetachItemFromArray(list, 0)) != NULL)
		v[n++] = el;
	qsort(v, n, sizeof(*v), forge_issue_cmp);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(list, v[i]);
	free(v);
}

/*
 * Read every page of the list at path; with k, every element that fails
 * k's table is left out (and logged).
 */
static int
forge_list_kind(struct forge *f, const char *path, const struct forge_kind *k,
    const cJSON **out)
{
	struct forge_check fc = {f, k, path};
	struct http_check check = {forge_check_list, &fc};
	char *url;
	int complete, r;

	url = forge_url(f, "%s", path);
	r = http_client_get_pages(f->client, url, "limit", FORGE_PAGE,
	    FORGE_MAX_PAGES, k != NULL ? &check : NULL, out, &complete);
	if (r == 0 && !complete) {
		http_client_fail(f->client, 0, "more than %d pages at '%s'",
		    FORGE_MAX_PAGES, path);
		*out = NULL;
		r = -1;
	}
	free(url);
	return r;
}

/*
 * Visit every element of the list at path page by page (the pages are not
 * kept); every element that fails k's table is left out (and logged).
 */
static int
forge_each_kind(struct forge *f, const char *path, const struct forge_kind *k,
    http_each_fn fn, void *arg)
{
	struct forge_check fc = {f, k, path};
	struct http_check check = {forge_check_list, &fc};
	char *url;
	int r;

	url = forge_url(f, "%s", path);
	r = http_client_each_page(f->client, url, "limit", FORGE_PAGE,
	    FORGE_MAX_PAGES, &check, fn, arg, NULL);
	free(url);
	return r;
}

/*
 * Send a write to the repository path.  With want set, a 2xx body is
 * parsed as a value of that type into *resp_json (caller frees).
 * Returns 0 on 2xx, -1 otherwise (message recorded); *resp_json stays
 * NULL unless 0 is returned and want is set.
 */
static int
forge_write(struct forge *f, const char *method, const char *url,
    const cJSON *body, int want, cJSON **resp_json)
{
	struct http_response resp;
	int r = -1;

	if (resp_json != NULL)
		*resp_json = NULL;
	if (http_client_send(f->client, method, url, body, &resp) == -1)
		goto out;
	if (!forge_ok(resp.status)) {
		http_client_status_fail(f->client, method, url, &resp);
		goto out;
	}
	if (want != 0 && resp_json != NULL) {
		*resp_json =
		    http_client_parse(f->client, method, url, &resp, want);
		if (*resp_json == NULL)
			goto out;
	}
	r = 0;
out:
	http_response_free(&resp);
	return r;
}

/* An empty JSON object for a request body.  Free with cJSON_Delete(). */
static cJSON *
forge_body(void)
{
	cJSON *o;

	if ((o = cJSON_CreateObject()) == NULL)
		abort();
	return o;
}

static void
forge_body_str(cJSON *o, const char *key, const char *value)
{
	if (cJSON_AddStringToObject(o, key, value) == NULL)
		abort();
}

/*
 * Text that will be public (a comment, a PR's title or description, a
 * review): every secret the masker knows is masked first.
 */
static void
forge_body_text(cJSON *o, const char *key, const char *value)
{
	char *masked = redact_values(value != NULL ? value : "");

	forge_body_str(o, key, masked);
	free(masked);
}

static void
forge_body_bool(cJSON *o, const char *key, int value)
{
	if (cJSON_AddBoolToObject(o, key, value) == NULL)
		abort();
}

/*
 * Read key (a number of an issue, PR, comment or label: valid_number())
 * of a created object into *id; frees obj.
 */
static int
forge_created_id(struct forge *f, cJSON *obj, const char *key, long long *id)
{
	long long v;
	int r = 0;

	if (json_int(obj, key, &v) == -1 || valid_number(v) != NULL) {
		http_client_fail(f->client, 0,
		    "no '%s' from 1 to 2^53-1 in the forge's answer", key);
		r = -1;
	} else if (id != NULL)
		*id = v;
	cJSON_Delete(obj);
	return r;
}

/*
 * The issue list's path with its filters (NULL: left out) into q.  No
 * "sort": Gitea does not read one on this list (the order is the tools'
 * own, forge_issues_order()).
 */
static void
forge_issues_path(struct buf *q, const char *state, const char *labels,
    const char *type)
{
	buf_init(q, 0);
	buf_puts(q, "/issues");
	forge_query(q, "state", state);
	forge_query(q, "labels", labels);
	forge_query(q, "type", type);
}

int
forge_issues_list(struct forge *f, const char *state, const char *labels,
    const char *type, const cJSON **out)
{
	struct buf q;
	int r;

	forge_issues_path(&q, state, labels, type);
	r = forge_list_kind(f, buf_str(&q), &forge_k_issue, out);
	/*
	 * The cached list is put in order where it is kept: ordering it
	 * again, as a later call does, changes nothing.
	 */
	if (r == 0)
		forge_issues_order((cJSON *)*out);
	buf_free(&q);
	return r;
}

int
forge_issues_each(struct forge *f, const char *state, const char *labels,
    const char *type, http_each_fn fn, void *arg)
{
	struct buf q;
	int r;

	forge_issues_path(&q, state, labels, type);
	r = forge_each_kind(f, buf_str(&q), &forge_k_issue, fn, arg);
	buf_free(&q);
	return r;
}

int
forge_issue_get(struct forge *f, long long number, const cJSON **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/issues/%lld", number);
	return forge_get_kind(f, path, &forge_k_issue, cJSON_Object, out);
}

int
forge_issue_close(struct forge *f, long long number)
{
	cJSON *body;
	char *url;
	int r;

	body = forge_body();
	forge_body_str(body, "state", "closed");
	url = forge_url(f, "/issues/%lld", number);
	r = forge_write(f, "PATCH", url, body, 0, NULL);
	free(url);
	cJSON_Delete(body);
	return r;
}

int
forge_comments_list(struct forge *f, long long number, const cJSON **out)
{
	char path[64];

	/* Gitea ignores page and limit here: one GET returns them all. */
	snprintf(path, sizeof(path), "/issues/%lld/comments", number);
	return forge_get_kind(f, path, &forge_k_comment, cJSON_Array, out);
}

int
forge_comment_create(struct forge *f, long long number, const char *body,
    long long *id)
{
	cJSON *req, *resp;
	char *url;
	int r;

	req = forge_body();
	forge_body_text(req, "body", body);
	url = forge_url(f, "/issues/%lld/comments", number);
	r = forge_write(f, "POST", url, req, cJSON_Object, &resp);
	if (r == 0)
		r = forge_created_id(f, resp, "id", id);
	free(url);
	cJSON_Delete(req);
	return r;
}

int
forge_comment_edit(struct forge *f, long long comment_id, const char *body)
{
	cJSON *req;
	char *url;
	int r;

	req = forge_body();
	forge_body_text(req, "body", body);
	url = forge_url(f, "/issues/comments/%lld", comment_id);
	r = forge_write(f, "PATCH", url, req, 0, NULL);
	free(url);
	cJSON_Delete(req);
	return r;
}

int
forge_labels_list(struct forge *f, const cJSON **out)
{
	return forge_list_kind(f, "/labels", &forge_k_label, out);
}

static const char *
forge_label_color(const char *name)
{
	if (strcmp(name, "blocked") == 0)
		return "#e11d48";
	if (strcmp(name, "priority") == 0)
		return "#f59e0b";
	return FORGE_GREY;
}

/* The remembered ID of the label called name: FORGE_OK or FORGE_NOT_FOUND. */
static enum forge_res
forge_label_known(const struct forge *f, const char *name, long long *id)
{
	size_t i;

	for (i = 0; i < f->nlabels; i++) {
		if (strcmp(f->labels[i].name, name) == 0) {
			*id = f->labels[i].id;
			return FORGE_OK;
		}
	}
	return FORGE_NOT_FOUND;
}

/*
 * Find name in the repository's labels: FORGE_OK, FORGE_NOT_FOUND or
 * FORGE_ERROR.  Every
 * label of the list read is remembered (the first of a name wins), so one
 * read serves the lookups of the whole run, writes in between included.
 */
static enum forge_res
forge_label_lookup(struct forge *f, const char *name, long long *id)
{
	const cJSON *list, *l;
	const char *s;
	long long v;

	if (forge_label_known(f, name, id) == FORGE_OK)
		return FORGE_OK;
	if (forge_labels_list(f, &list) == -1)
		return FORGE_ERROR;
	cJSON_ArrayForEach (l, list) {
		if ((s = json_str(l, "name")) != NULL &&
		    json_int(l, "id", &v) == 0 &&
		    forge_label_known(f, s, &v) == FORGE_NOT_FOUND)
			forge_label_remember(f, s, v);
	}
	return forge_label_known(f, name, id);
}

static void
forge_label_remember(struct forge *f, const char *name, long long id)
{
	f->labels =
	    xreallocarray(f->labels, f->nlabels + 1, sizeof(*f->labels));
	f->labels[f->nlabels].name = xstrdup(name);
	f->labels[f->nlabels].id = id;
	f->nlabels++;
}

/*
 * Create the label.  When another poller created it first (409/422), read
 * the list again and take that one.  FORGE_OK or FORGE_ERROR.
 */
static enum forge_res
forge_label_create(struct forge *f, const char *name, long long *id)
{
	cJSON *req, *resp;
	char *url;
	int r;

	req = forge_body();
	forge_body_str(req, "name", name);
	forge_body_str(req, "color", forge_label_color(name));
	url = forge_url(f, "/labels");
	r = forge_write(f, "POST", url, req, cJSON_Object, &resp);
	if (r == 0) {
		if ((r = forge_created_id(f, resp, "id", id)) == 0)
			forge_label_remember(f, name, *id);
	} else if (forge_last_status(f) == 409 || forge_last_status(f) == 422)
		r = forge_label_lookup(f, name, id) == FORGE_OK ? 0 : -1;
	free(url);
	cJSON_Delete(req);
	return r == 0 ? FORGE_OK : FORGE_ERROR;
}

enum forge_res
forge_label_id(struct forge *f, const char *name, int create, long long *id)
{
	enum forge_res r;

	if ((r = forge_label_lookup(f, name, id)) != FORGE_NOT_FOUND)
		return r;
	if (!create)
		return FORGE_NOT_FOUND;
	return forge_label_create(f, name, id);
}

int
forge_issue_add_labels(struct forge *f, long long number, const long long *ids,
    size_t n)
{
	cJSON *req, *arr;
	char *url;
	size_t i;
	int r;

	req = forge_body();
	if ((arr = cJSON_AddArrayToObject(req, "labels")) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		if (!cJSON_AddItemToArray(arr,
			cJSON_CreateNumber((double)ids[i])))
			abort();
	}
	url = forge_url(f, "/issues/%lld/labels", number);
	r = forge_write(f, "POST", url, req, 0, NULL);
	free(url);
	cJSON_Delete(req);
	return r;
}

int
forge_issue_remove_label(struct forge *f, long long number, long long id)
{
	char *url;
	int r;

	url = forge_url(f, "/issues/%lld/labels/%lld", number, id);
	r = forge_write(f, "DELETE", url, NULL, 0, NULL);
	free(url);
	return r;
}

int
forge_issue_add_label_name(struct forge *f, long long number, const char *name)
{
	long long id;

	if (forge_label_id(f, name, 1, &id) != FORGE_OK)
		return -1;
	return forge_issue_add_labels(f, number, &id, 1);
}

/*
 * Every label called name that the issue carries is removed, by the IDs
 * of the issue's own labels: the repository's /labels lists its own only
 * (routers/api/v1/repo/label.go ListLabels), while an issue may carry an
 * organisation's label, and Gitea allows two labels of one name; the
 * removal takes any label's ID (repo/issue_label.go DeleteIssueLabel).
 */
int
forge_issue_remove_label_name(struct forge *f, long long number,
    const char *name)
{
	const cJSON *issue, *labels, *l;
	const char *s;
	long long id;
	int r = 0;

	if (forge_issue_get(f, number, &issue) == -1)
		return -1;
	if ((labels = json_arr(issue, "labels")) == NULL)
		return 0;
	cJSON_ArrayForEach (l, labels) {
		if ((s = json_str(l, "name")) == NULL || strcmp(s, name) != 0 ||
		    json_int(l, "id", &id) == -1)
			continue;
		if (forge_issue_remove_label(f, number, id) == -1)
			r = -1;
	}
	return r;
}

int
forge_pulls_list(struct forge *f, const char *state, const cJSON **out)
{
	struct buf q;
	int r;

	buf_init(&q, 0);
	buf_puts(&q, "/pulls");
	forge_query(&q, "state", state);
	r = forge_list_kind(f, buf_str(&q), &forge_k_pull, out);
	buf_free(&q);
	return r;
}

int
forge_pulls_each(struct forge *f, const char *state, http_each_fn fn, void *arg)
{
	struct buf q;
	int r;

	buf_init(&q, 0);
	buf_puts(&q, "/pulls");
	forge_query(&q, "state", state);
	r = forge_each_kind(f, buf_str(&q), &forge_k_pull, fn, arg);
	buf_free(&q);
	return r;
}

int
forge_pulls_recent(struct forge *f, const char *state, int limit,
    const cJSON **out)
{
	struct buf q;
	char n[32];
	int r;

	snprintf(n, sizeof(n), "%d", limit);
	buf_init(&q, 0);
	buf_puts(&q, "/pulls");
	forge_query(&q, "state", state);
	forge_query(&q, "limit", n);
	r = forge_get_kind(f, buf_str(&q), &forge_k_pull, cJSON_Array, out);
	buf_free(&q);
	return r;
}

int
forge_pull_get(struct forge *f, long long number, const cJSON **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/pulls/%lld", number);
	return forge_get_kind(f, path, &forge_k_pull, cJSON_Object, out);
}

enum forge_res
forge_pull_create(struct forge *f, const char *title, const char *body,
    const char *head, const char *base, long long *number)
{
	enum forge_res r = FORGE_ERROR;
	cJSON *req, *resp;
	char *url;

	req = forge_body();
	forge_body_text(req, "title", title);
	forge_body_text(req, "body", body);
	forge_body_str(req, "head", head);
	forge_body_str(req, "base", base);
	url = forge_url(f, "/pulls");
	if (forge_write(f, "POST", url, req, cJSON_Object, &resp) == 0)
		r = forge_created_id(f, resp, "number", number) == 0 ?
		    FORGE_OK :
		    FORGE_ERROR;
	else if (forge_last_status(f) == 409)
		r = FORGE_CONFLICT;
	free(url);
	cJSON_Delete(req);
	return r;
}

enum forge_res
forge_pull_find_head(struct forge *f, const char *head, long long *number)
{
	const cJSON *list, *pr;
	const char *ref, *label;

	if (forge_pulls_list(f, "open", &list) == -1)
		return FORGE_ERROR;
	cJSON_ArrayForEach (pr, list) {
		ref = json_str_at(pr, "head.ref");
		label = json_str_at(pr, "head.label");
		if (((ref != NULL && strcmp(ref, head) == 0) ||
			(label != NULL && strcmp(label, head) == 0)) &&
		    json_int(pr, "number", number) == 0)
			return FORGE_OK;
	}
	return FORGE_NOT_FOUND;
}

int
forge_pull_files(struct forge *f, long long number, const cJSON **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/pulls/%lld/files", number);
	return forge_list_kind(f, path, &forge_k_file, out);
}

int
forge_pull_files_some(struct forge *f, long long number, const cJSON **out,
    int *complete)
{
	struct forge_check fc;
	struct http_check check;
	char path[64], *url;
	int r;

	snprintf(path, sizeof(path), "/pulls/%lld/files", number);
	fc = (struct forge_check) {f, &forge_k_file, path};
	check = (struct http_check) {forge_check_list, &fc};
	url = forge_url(f, "%s", path);
	r = http_client_get_pages(f->client, url, "limit", FORGE_PAGE,
	    FORGE_FILES_PAGES, &check, out, complete);
	free(url);
	return r;
}

int
forge_pull_diff(struct forge *f, long long number, size_t max,
    const char **text, int *truncated)
{
	char *url;
	int r;

	url = forge_url(f, "/pulls/%lld.diff", number);
	r = http_client_get_text(f->client, url, max, text, truncated);
	free(url);
	return r;
}

int
forge_pull_merge(struct forge *f, long long number, const char *head_sha,
    int delete_branch, struct forge_merge *out)
{
	struct http_response resp;
	cJSON *req;
	char *url;
	int r = -1;

	memset(out, 0, sizeof(*out));
	req = forge_body();
	forge_body_str(req, "Do", "merge");
	forge_body_bool(req, "delete_branch_after_merge", delete_branch);
	if (head_sha != NULL)
		forge_body_str(req, "head_commit_id", head_sha);
	url = forge_url(f, "/pulls/%lld/merge", number);
	if (http_client_send(f->client, "POST", url, req, &resp) == -1)
		goto out;
	out->status = resp.status;
	if (forge_ok(resp.status)) {
		out->merged = 1;
		r = 0;
		goto out;
	}
	http_client_status_fail(f->client, "POST", url, &resp);
	snprintf(out->message, sizeof(out->message), "%s", forge_error(f));
	r = forge_merge_check(f, number, out);
out:
	http_response_free(&resp);
	free(url);
	cJSON_Delete(req);
	return r;
}

/*
 * After any answer but 2xx: is the PR merged all the same?  Gitea
 * answers 405 to a PR merged already (by another poller), and merges
 * first and then answers the failure of the branch deletion asked with
 * it: 404 when the branch is gone, 403 when it is the default or a
 * protected branch, 500 when git fails (routers/api/v1/repo/pull.go,
 * MergePullRequest, after pull_service.Merge).  Only the PR read back
 * can tell.  0 (out->merged set when it is merged), or -1 when it could
 * not be read: the merge's outcome is unknown.
 */
static int
forge_merge_check(struct forge *f, long long number, struct forge_merge *out)
{
	const cJSON *pr;
	int merged;

	if (forge_pull_get(f, number, &pr) == -1)
		return -1;
	if (json_bool(pr, "merged", &merged) == 0 && merged)
		out->merged = 1;
	return 0;
}

int
forge_reviews_list(struct forge *f, long long number, const cJSON **out)
{
	char path[64];

	snprintf(path, sizeof(path), "/pulls/%lld/reviews", number);
	return forge_list_kind(f, path, &forge_k_review, out);
}

/* Drop the cached list at "/pulls/N/<what>" (http_client_forget_pages()). */
static void
forge_pull_forget(struct forge *f, long long number, const char *what)
{
	char *url;

	url = forge_url(f, "/pulls/%lld/%s", number, what);
	http_client_forget_pages(f->client, url, "limit", FORGE_PAGE);
	free(url);
}

void
forge_reviews_forget(struct forge *f, long long number)
{
	forge_pull_forget(f, number, "reviews");
}

void
forge_files_forget(struct forge *f, long long number)
{
	forge_pull_forget(f, number, "files");
}

/* Read ahead the lists at "/pulls/N/<what>" of the n PRs, of kind k. */
static void
forge_prefetch(struct forge *f, const char *what, const struct forge_kind *k,
    const long long *numbers, size_t n)
{
	struct forge_check *fcs;
	struct http_check *checks;
	char **urls, **paths;
	size_t i;

	fcs = xcalloc(n + 1, sizeof(*fcs));
	checks = xcalloc(n + 1, sizeof(*checks));
	urls = xcalloc(n + 1, sizeof(*urls));
	paths = xcalloc(n + 1, sizeof(*paths));
	for (i = 0; i < n; i++) {
		paths[i] = xasprintf("/pulls/%lld/%s", numbers[i], what);
		urls[i] = forge_url(f, "%s", paths[i]);
		fcs[i].f = f;
		fcs[i].kind = k;
		fcs[i].path = paths[i];
		checks[i].fn = forge_check_list;
		checks[i].arg = &fcs[i];
	}
	(void)http_client_prefetch_pages(f->client, (const char *const *)urls,
	    n, "limit", FORGE_PAGE, checks);
	for (i = 0; i < n; i++) {
		free(urls[i]);
		free(paths[i]);
	}
	free(paths);
	free(urls);
	free(checks);
	free(fcs);
}

void
forge_reviews_prefetch(struct forge *f, const long long *numbers, size_t n)
{
	forge_prefetch(f, "reviews", &forge_k_review, numbers, n);
}

void
forge_files_prefetch(struct forge *f, const long long *numbers, size_t n)
{
	forge_prefetch(f, "files", &forge_k_file, numbers, n);
}

int
forge_review_create(struct forge *f, long long number, const char *body,
    const char *event, const char *commit_id, long long *id)
{
	cJSON *req, *resp;
	char *url;
	int r;

	req = forge_body();
	forge_body_text(req, "body", body);
	forge_body_str(req, "event", event);
	if (commit_id != NULL)
		forge_body_str(req, "commit_id", commit_id);
	url = forge_url(f, "/pulls/%lld/reviews", number);
	r = forge_write(f, "POST", url, req, cJSON_Object, &resp);
	if (r == 0)
		r = forge_created_id(f, resp, "id", id);
	free(url);
	cJSON_Delete(req);
	return r;
}

int
forge_review_dismiss(struct forge *f, long long number, long long review_id,
    const char *message)
{
	cJSON *req;
	char *url;
	int r;

	req = forge_body();
	forge_body_text(req, "message", message);
	url = forge_url(f, "/pulls/%lld/reviews/%lld/dismissals", number,
	    review_id);
	r = forge_write(f, "POST", url, req, 0, NULL);
	free(url);
	cJSON_Delete(req);
	return r;
}

int
forge_commit_status(struct forge *f, const char *sha, const cJSON **out)
{
	char *path, *esc;
	int r;

	esc = http_escape(sha, 0);
	path = xasprintf("/commits/%s/status", esc);
	r = forge_get_kind(f, path, &forge_k_status, cJSON_Object, out);
	free(path);
	free(esc);
	return r;
}

long long
forge_commit_status_total(struct forge *f, const char *sha)
{
	char *url, *esc;
	long long n;

	esc = http_escape(sha, 0);
	url = forge_url(f, "/commits/%s/status", esc);
	n = http_client_total(f->client, url);
	free(url);
	free(esc);
	return n;
}

int
forge_commit_statuses(struct forge *f, const char *sha, const cJSON **out)
{
	char *path, *esc;
	int r;

	esc = http_escape(sha, 0);
	path = xasprintf("/commits/%s/statuses", esc);
	r = forge_list_kind(f, path, &forge_k_status_item, out);
	free(path);
	free(esc);
	return r;
}

const char *
forge_api_root(const struct forge *f)
{
	return f->root;
}

void
forge_server_version_set(struct forge *f, const char *version)
{
	free(f->version);
	f->version = xstrdup(version);
}

int
forge_server_version(struct forge *f, const char **version)
{
	const cJSON *v;
	const char *s;
	char *url;
	int r = -1;

	if (f->version != NULL) {
		*version = f->version;
		return 0;
	}
	if (f->version_failed)
		return -1;
	f->version_failed = 1;
	url = xasprintf("%s/version", f->root);
	if (http_client_get(f->client, url, cJSON_Object, NULL, &v) == -1)
		goto out;
	if ((s = json_str(v, "version")) == NULL || *s == '\0') {
		http_client_fail(f->client, 0, "no 'version' in '/version'");
		goto out;
	}
	f->version = xstrdup(s);
	f->version_failed = 0;
	*version = f->version;
	r = 0;
out:
	free(url);
	return r;
}

int
forge_user_login(struct forge *f, const char **login)
{
	const cJSON *user;
	const char *s;
	char *url;
	int r = -1;

	if (f->login != NULL) {
		*login = f->login;
		return 0;
	}
	url = xasprintf("%s/user", f->root);
	if (http_client_get(f->client, url, cJSON_Object, NULL, &user) == -1)
		goto out;
	if ((s = json_str(user, "login")) == NULL || *s == '\0') {
		http_client_fail(f->client, 0, "no 'login' in '/user'");
		goto out;
	}
	f->login = xstrdup(s);
	*login = f->login;
	r = 0;
out:
	free(url);
	return r;
}

int
forge_user_teams(struct forge *f, const cJSON **out)
{
	char *url = xasprintf("%s/user/teams?limit=50", f->root);
	int r = http_client_get(f->client, url, cJSON_Array, NULL, out);

	free(url);
	return r;
}

int
forge_branch_delete(struct forge *f, const char *branch)
{
	char *url, *esc;
	int r;

	esc = http_escape(branch, 1);
	url = forge_url(f, "/branches/%s", esc);
	r = forge_write(f, "DELETE", url, NULL, 0, NULL);
	if (r == -1 && forge_last_status(f) == 404)
		r = 0;
	free(url);
	free(esc);
	return r;
}
