/*
 * The forge webhook receiver: see webhook.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cimemo.h"
#include "cli.h"
#include "config.h"
#include "delivery.h"
#include "json.h"
#include "log.h"
#include "runfiles.h"
#include "sha256.h"
#include "tools.h"
#include "valid.h"
#include "webhook.h"
#include "xmalloc.h"

/* What a delivery's headers said (pointers into the header text). */
struct webhook_req {
	char *head; /* owned: the request line and headers */
	const char *method;
	const char *event;     /* X-Gitea-Event-Type, else X-Gitea-Event */
	const char *signature; /* X-Gitea-Signature or X-Forgejo-... */
	const char *type;      /* Content-Type, NULL when not given */
	const char *delivery;  /* X-Gitea-Delivery and its aliases */
	long long length;      /* Content-Length, -1 when not given */
	struct buf body;
};

/* A form-encoded delivery's content type, and the one to choose. */
#define WEBHOOK_FORM "application/x-www-form-urlencoded"
#define WEBHOOK_JSON "application/json"
/* The most of a client's word (a method, a type) shown in a line. */
#define WEBHOOK_SHOWN 64

/* The tools an event wakes, and whether it marks a SHA for the CI memo. */
struct webhook_route {
	const char *event;
	const char *action; /* the body's "action" it needs, or NULL */
	int mark;
	const char *tools[3];
};

static const struct webhook_route webhook_routes[] = {
    {"status", NULL, 1, {"dev-poll", "review-poll", NULL}},
    {"pull_request_review_approved", NULL, 0, {"dev-poll", NULL, NULL}},
    {"pull_request_review_rejected", NULL, 0, {"dev-poll", NULL, NULL}},
    {"pull_request_review_comment", NULL, 0, {"dev-poll", NULL, NULL}},
    /* X-Gitea-Event of the above (modules/webhook/type.go, Event()). */
    {"pull_request_approved", NULL, 0, {"dev-poll", NULL, NULL}},
    {"pull_request_rejected", NULL, 0, {"dev-poll", NULL, NULL}},
    {"pull_request", "closed", 0, {"dev-poll", NULL, NULL}},
    {"issue_comment", NULL, 0, {"dev-poll", "supervisor-poll", NULL}},
    /*
     * An issue opened, labelled (backlog), closed or reopened: the next
     * launch may be due.  Gitea's and Forgejo's X-*-Event-Type of a label
     * change is "issue_label", X-*-Event of every issue event "issues"
     * (modules/webhook/type.go: HookEventIssueLabel, Event()).
     */
    {"issues", NULL, 0, {"dev-poll", NULL, NULL}},
    {"issue_label", NULL, 0, {"dev-poll", NULL, NULL}},
};

static void webhook_alarm(int);
static void webhook_log(const char *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static const char *webhook_shown(const char *, char *, size_t);
static int webhook_read_head(int, struct webhook_req *);
static void webhook_headers(struct webhook_req *);
static int webhook_read_body(int, struct webhook_req *);
static int webhook_answer(int, int);
static const struct webhook_route *webhook_route(const char *, const cJSON *);
static struct config *webhook_project(const char *, const char *,
    struct config **, size_t *);
static int webhook_type_is(const char *, const char *);
static int webhook_form_payload(const char *, size_t, struct buf *);
static int webhook_payload(const struct webhook_req *, struct buf *);
static const char *webhook_refusal(const struct config *,
    const struct webhook_req *, const char *, size_t, char *, size_t);
static int webhook_replayed(const struct config *, const struct webhook_req *,
    const char *, size_t);
static void webhook_mark(const struct config *, const cJSON *);
static void webhook_wake_failed(const struct config *, const char *,
    const char *, const char *);
static int webhook_wake(const char *, const struct config *,
    const struct webhook_route *);
static int webhook_serve(const char *, struct webhook_req *);

static void
webhook_alarm(int sig)
{
	(void)sig;
}

/*
 * A line of the receiver's (stderr: the journal), after the project's
 * name when there is one.  Never the secret, never a client's text but
 * through webhook_shown().
 */
static void
webhook_log(const char *project, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (project != NULL)
		fprintf(stderr, "webhook: %s: %s\n", project, line);
	else
		fprintf(stderr, "webhook: %s\n", line);
}

/*
 * A client's word as it may be shown in a line: its first WEBHOOK_SHOWN
 * bytes, each outside printable ASCII as '?'.  Returns out.
 */
static const char *
webhook_shown(const char *s, char *out, size_t outsz)
{
	size_t i;

	for (i = 0;
	     s != NULL && s[i] != '\0' && i + 1 < outsz && i < WEBHOOK_SHOWN;
	     i++)
		out[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
	return out;
}

/*
 * Read up to the end of the headers into r->head, the bytes after it
 * into r->body: 0, or the status to answer.
 */
static int
webhook_read_head(int in, struct webhook_req *r)
{
	struct buf b;
	char chunk[4096], *end;
	ssize_t n;

	buf_init(&b, WEBHOOK_HEAD_MAX + sizeof(chunk));
	while ((end = strstr(buf_str(&b), "\r\n\r\n")) == NULL) {
		if (b.len > WEBHOOK_HEAD_MAX ||
		    (n = read(in, chunk, sizeof(chunk))) <= 0 ||
		    memchr(chunk, '\0', (size_t)n) != NULL ||
		    buf_append(&b, chunk, (size_t)n) == -1) {
			webhook_log(NULL,
			    "refused (400): the request's head cannot be read "
			    "(longer than %d bytes, cut short, late or with a "
			    "NUL)",
			    WEBHOOK_HEAD_MAX);
			buf_free(&b);
			return 400;
		}
	}
	*end = '\0';
	buf_append(&r->body, end + 4, b.len - (size_t)(end + 4 - b.data));
	r->head = buf_steal(&b);
	return 0;
}

/* The method and the headers a delivery is decided on. */
static void
webhook_headers(struct webhook_req *r)
{
	char *line, *save = NULL, *v;
	const char *type = NULL;
	long long len;

	r->length = -1;
	for (line = strtok_r(r->head, "\r\n", &save); line != NULL;
	     line = strtok_r(NULL, "\r\n", &save)) {
		if (r->method == NULL) {
			line[strcspn(line, " ")] = '\0';
			r->method = line;
			continue;
		}
		if ((v = strchr(line, ':')) == NULL)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		if (strcasecmp(line, "Content-Length") == 0)
			r->length =
			    sscanf(v, "%lld", &len) == 1 && len >= 0 ? len : -2;
		else if (strcasecmp(line, "X-Gitea-Event-Type") == 0 ||
		    strcasecmp(line, "X-Forgejo-Event-Type") == 0)
			type = v;
		else if (strcasecmp(line, "X-Gitea-Event") == 0 ||
		    strcasecmp(line, "X-Forgejo-Event") == 0)
			r->event = r->event != NULL ? r->event : v;
		else if (strcasecmp(line, "X-Gitea-Signature") == 0 ||
		    strcasecmp(line, "X-Forgejo-Signature") == 0)
			r->signature = v;
		else if (strcasecmp(line, "Content-Type") == 0)
			r->type = v;
		/*
		 * One ID under the names of every forge it poses as
		 * (Gitea's services/webhook/deliver.go, addDefaultHeaders();
		 * Forgejo adds its own).
		 */
		else if (r->delivery == NULL &&
		    (strcasecmp(line, "X-Gitea-Delivery") == 0 ||
			strcasecmp(line, "X-Forgejo-Delivery") == 0 ||
			strcasecmp(line, "X-GitHub-Delivery") == 0 ||
			strcasecmp(line, "X-Gogs-Delivery") == 0))
			r->delivery = v;
	}
	/* The finer type where the forge sends one (Gitea 1.20 on). */
	if (type != NULL && *type != '\0')
		r->event = type;
}

/* Read the rest of a body of r->length bytes: 0, or the status. */
static int
webhook_read_body(int in, struct webhook_req *r)
{
	char chunk[8192];
	ssize_t n;

	if (r->length < 0) {
		webhook_log(NULL, "refused (400): no Content-Length");
		return 400;
	}
	if (r->length > WEBHOOK_BODY_MAX) {
		webhook_log(NULL,
		    "refused (413): a body of %lld bytes, over the %d read",
		    r->length, WEBHOOK_BODY_MAX);
		return 413;
	}
	while (r->body.len < (size_t)r->length) {
		if ((n = read(in, chunk, sizeof(chunk))) <= 0 ||
		    buf_append(&r->body, chunk, (size_t)n) == -1)
			break;
	}
	if (r->body.len == (size_t)r->length)
		return 0;
	webhook_log(NULL,
	    "refused (400): the body is not the %lld bytes of its "
	    "Content-Length (cut short, late or longer)",
	    r->length);
	return 400;
}

/* Write the answer of status; 0 for 2xx, else 1. */
static int
webhook_answer(int out, int status)
{
	const char *why = status == 204 ? "No Content" :
	    status == 401		? "Unauthorized" :
	    status == 405		? "Method Not Allowed" :
	    status == 413		? "Payload Too Large" :
					  "Bad Request";
	char text[160];
	int n;

	n = snprintf(text, sizeof(text),
	    "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
	    status, why);
	if (n > 0)
		(void)!write(out, text, (size_t)n);
	return status / 100 == 2 ? 0 : 1;
}

/* The route of an event with body j, or NULL: nothing to do. */
static const struct webhook_route *
webhook_route(const char *event, const cJSON *j)
{
	const char *action = json_str(j, "action");
	size_t i;

	if (event == NULL)
		return NULL;
	for (i = 0; i < sizeof(webhook_routes) / sizeof(webhook_routes[0]);
	     i++) {
		if (strcmp(event, webhook_routes[i].event) != 0)
			continue;
		if (webhook_routes[i].action != NULL &&
		    (action == NULL ||
			strcmp(action, webhook_routes[i].action) != 0))
			return NULL;
		/* A comment on a PR is the review routes' business. */
		if (strcmp(event, "issue_comment") == 0 &&
		    json_obj_at(j, "issue.pull_request") != NULL)
			return NULL;
		return &webhook_routes[i];
	}
	return NULL;
}

/*
 * The project of $FACTORY_ROOT/projects whose forge repository is repo
 * (every project's config in *all, *n of them; free each with
 * config_free(), then the array), or NULL.
 */
static struct config *
webhook_project(const char *exe, const char *repo, struct config **all,
    size_t *n)
{
	struct config base;
	char err[1024];
	size_t i;

	*all = NULL;
	*n = 0;
	memset(&base, 0, sizeof(base));
	if (config_load(&base, NULL, exe, err, sizeof(err)) == 0) {
		/* The project files are found where the factory is. */
		runfiles_init(base.run_dir, base.factory_root);
		if (cli_projects_load(&base, exe, NULL, all, n, err,
			sizeof(err)) == -1)
			fprintf(stderr, "webhook: %s\n", err);
	} else
		fprintf(stderr, "webhook: %s\n", err);
	/* Nothing of base's is named after this (webhook_mark()). */
	if (*n > 0)
		runfiles_init((*all)[0].run_dir, (*all)[0].factory_root);
	config_free(&base);
	for (i = 0; i < *n; i++)
		if ((*all)[i].forge_repo != NULL &&
		    strcasecmp((*all)[i].forge_repo, repo) == 0)
			return &(*all)[i];
	return NULL;
}

/* Whether the media type of the Content-Type value type is want. */
static int
webhook_type_is(const char *type, const char *want)
{
	size_t n = strlen(want);

	return type != NULL && strncasecmp(type, want, n) == 0 &&
	    (type[n] == '\0' || type[n] == ';' || type[n] == ' ' ||
		type[n] == '\t');
}

/*
 * The payload of a form-encoded body of len bytes, the value of its one
 * "payload" field URL-decoded, into out (Go's url.Values.Encode(), which
 * Gitea's form deliveries are: services/webhook/deliver.go): 0, or -1
 * when there is no such field, more than one, or a bad escape.
 */
static int
webhook_form_payload(const char *body, size_t len, struct buf *out)
{
	const char *p, *end = body + len, *amp, *field;
	int hi, lo, found = 0;
	char c;

	for (field = body; field < end; field = amp + (amp < end)) {
		if ((amp = memchr(field, '&', (size_t)(end - field))) == NULL)
			amp = end;
		if ((size_t)(amp - field) < 8 ||
		    memcmp(field, "payload=", 8) != 0)
			continue;
		if (found++)
			return -1;
		for (p = field + 8; p < amp; p++) {
			c = *p == '+' ? ' ' : *p;
			if (*p == '%') {
				if (amp - p < 3 ||
				    (hi = valid_hex_digit(
					 (unsigned char)p[1])) < 0 ||
				    (lo = valid_hex_digit(
					 (unsigned char)p[2])) < 0)
					return -1;
				c = (char)(hi << 4 | lo);
				p += 2;
			}
			if (buf_append(out, &c, 1) == -1)
				return -1;
		}
	}
	return found == 1 ? 0 : -1;
}

/*
 * The JSON payload of a delivery into out: its body (application/json,
 * or no type), or the "payload" field of a form-encoded one, which the
 * forge signs as it signs a JSON body.  0, or 400 (logged).
 */
static int
webhook_payload(const struct webhook_req *r, struct buf *out)
{
	const char *body = r->body.data != NULL ? r->body.data : "";
	char shown[WEBHOOK_SHOWN + 1];

	if (r->type == NULL || webhook_type_is(r->type, WEBHOOK_JSON))
		return buf_append(out, body, r->body.len) == -1 ? 400 : 0;
	if (!webhook_type_is(r->type, WEBHOOK_FORM)) {
		webhook_log(NULL,
		    "refused (400): the content type '%s' is neither of the "
		    "forge's; choose %s in the forge's webhook",
		    webhook_shown(r->type, shown, sizeof(shown)), WEBHOOK_JSON);
		return 400;
	}
	if (webhook_form_payload(body, r->body.len, out) == -1) {
		webhook_log(NULL,
		    "refused (400): a form-encoded delivery without one "
		    "readable 'payload' field; choose the content type %s in "
		    "the forge's webhook",
		    WEBHOOK_JSON);
		return 400;
	}
	return 0;
}

/*
 * Why a delivery of the payload (len bytes) for cfg's project (NULL:
 * none) is refused, or NULL when it is signed with its secret.  The
 * payload's hex HMAC is put in hex (2 * SHA256_LEN + 1 bytes) either
 * way, with a key of none when there is no secret, so that every cause
 * takes the same work.
 */
static const char *
webhook_refusal(const struct config *cfg, const struct webhook_req *r,
    const char *payload, size_t len, char *hex, size_t hexsz)
{
	const char *key = cfg != NULL && !valid_blank(cfg->webhook_secret) ?
	    cfg->webhook_secret :
	    "";
	unsigned char mac[SHA256_LEN];
	size_t i;
	int good;

	hmac_sha256(key, strlen(key), payload, len, mac);
	for (i = 0; i < SHA256_LEN && 2 * i + 2 < hexsz; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	good = sha256_hex_equal(r->signature, mac);
	if (cfg == NULL)
		return "no project's repository";
	if (*key == '\0')
		return "WEBHOOK_SECRET is not set (or only blanks): every "
		       "delivery is refused";
	if (r->signature == NULL || *r->signature == '\0')
		return "no signature (X-Gitea-Signature, X-Forgejo-Signature): "
		       "give the forge's webhook the secret WEBHOOK_SECRET";
	if (!good)
		return "the signature does not match WEBHOOK_SECRET (another "
		       "secret in the forge's webhook, or a changed payload)";
	return NULL;
}

/*
 * Whether the delivery (its ID, and the payload's hex HMAC) was taken
 * for cfg's project in the last hour: 1 (logged), else 0, with it
 * recorded.  When that cannot be told, 0 (logged): a wake too many costs
 * a tick.
 */
static int
webhook_replayed(const struct config *cfg, const struct webhook_req *r,
    const char *hex, size_t hexlen)
{
	char *path, *lock, *mac = xasprintf("hmac:%.*s", (int)hexlen, hex);
	const char *keys[2] = {mac, r->delivery};
	char shown[WEBHOOK_SHOWN + 1];
	int seen;

	runfiles_init(cfg->run_dir, cfg->factory_root);
	path = runfiles_webhook_seen(cfg->project_name);
	lock = xasprintf("%s.lock", path);
	seen = delivery_seen(path, lock, keys, r->delivery != NULL ? 2 : 1,
	    time(NULL));
	if (seen == 1)
		webhook_log(cfg->project_name,
		    "delivery %s taken already in the last hour (the forge's "
		    "retry, or a replay): answered and ignored",
		    r->delivery != NULL ?
			webhook_shown(r->delivery, shown, sizeof(shown)) :
			"without an ID");
	else if (seen == -1)
		webhook_log(cfg->project_name,
		    "cannot tell a delivery taken already ('%s': %s): taken",
		    path, strerror(errno));
	free(mac);
	free(lock);
	free(path);
	return seen == 1;
}

/* Mark a status event's SHA for the CI memo of cfg's project. */
static void
webhook_mark(const struct config *cfg, const cJSON *j)
{
	const char *sha = json_str(j, "sha");
	char *path, *lock;

	if (!cimemo_sha_ok(sha))
		return;
	runfiles_init(cfg->run_dir, cfg->factory_root);
	path = runfiles_ci_changed(cfg->project_name);
	lock = runfiles_ci_changed_lock(cfg->project_name);
	if (cimemo_mark(path, lock, sha, time(NULL)) == -1)
		fprintf(stderr,
		    "webhook: %s: cannot mark the CI change in "
		    "'%s': %s\n",
		    cfg->project_name, path, strerror(errno));
	free(path);
	free(lock);
}

/*
 * A wake that could not be started: said in the journal (stderr) and in
 * the log of the tool it was for, where its operator looks.
 */
static void
webhook_wake_failed(const struct config *cfg, const char *tool,
    const char *prog, const char *why)
{
	char *path = NULL;

	fprintf(stderr, "webhook: %s: cannot start '%s': %s\n",
	    cfg->project_name, prog, why);
	if (strcmp(tool, "dev-poll") == 0)
		path = runfiles_dev_log(cfg->project_name);
	else if (strcmp(tool, "review-poll") == 0)
		path = runfiles_review_log();
	else if (strcmp(tool, "supervisor-poll") == 0)
		path = runfiles_supervisor_log();
	if (path != NULL && log_open(path, "", 0, 0) == 0) {
		log_err("webhook: %s: cannot start '%s' for a delivery: %s — "
			"the event waits for the next scheduled tick",
		    cfg->project_name, prog, why);
		log_close();
	}
	free(path);
}

/*
 * Start `TOOL --wake --run-dir RUN_DIR -- PROJECT_TOML "webhook EVENT"`
 * for each tool (a tool of every project: without the project file):
 * 0, or -1 when one could not be started (logged).
 */
static int
webhook_wake(const char *exe, const struct config *cfg,
    const struct webhook_route *rt)
{
	char *prog, *why;
	size_t i;
	int r = 0;

	why = xasprintf("webhook %s", rt->event);
	for (i = 0; i < 3 && rt->tools[i] != NULL; i++) {
		if (tools_wake(exe, cfg, rt->tools[i], why, &prog) == -1) {
			webhook_wake_failed(cfg, rt->tools[i], prog,
			    strerror(errno));
			r = -1;
		} else {
			fprintf(stderr, "webhook: %s: %s woke %s\n",
			    cfg->project_name, rt->event, rt->tools[i]);
		}
		free(prog);
	}
	free(why);
	return r;
}

/*
 * Decide on a delivery read whole: the status to answer.  Every refusal
 * is logged with its cause; a repository of no project is answered as
 * a bad signature is (401, the same answer), so that the receiver does
 * not tell which repositories are its projects'.
 */
static int
webhook_serve(const char *exe, struct webhook_req *r)
{
	const struct webhook_route *rt;
	struct config *all = NULL, *cfg = NULL;
	const char *repo, *why;
	char err[256], hex[2 * SHA256_LEN + 1];
	struct buf payload;
	cJSON *j = NULL;
	size_t i, n = 0;
	int status;

	buf_init(&payload, 0);
	if ((status = webhook_payload(r, &payload)) != 0)
		goto out;
	status = 204;
	if ((j = json_parse(buf_str(&payload), payload.len, err,
		 sizeof(err))) == NULL) {
		webhook_log(NULL, "refused (400): the payload is not JSON (%s)",
		    err);
		status = 400;
		goto out;
	}
	repo = json_str_at(j, "repository.full_name");
	if (repo != NULL)
		cfg = webhook_project(exe, repo, &all, &n);
	why = webhook_refusal(cfg, r, buf_str(&payload), payload.len, hex,
	    sizeof(hex));
	if (why != NULL && cfg != NULL)
		webhook_log(cfg->project_name, "refused (401): %s", why);
	else if (why != NULL && repo == NULL)
		webhook_log(NULL,
		    "refused (401, answered as a bad signature): the delivery "
		    "names no repository");
	else if (why != NULL)
		webhook_log(NULL,
		    "refused (401, answered as a bad signature): the "
		    "repository '%s' is no project's (no projects/*.toml of "
		    "the factory has it as its repo)",
		    valid_repo(repo) == NULL ? repo :
					       "(not a repository name)");
	if (why != NULL) {
		status = 401;
		goto out;
	}
	if ((rt = webhook_route(r->event, j)) == NULL)
		goto out;
	if (webhook_replayed(cfg, r, hex, strlen(hex)))
		goto out;
	if (rt->mark)
		webhook_mark(cfg, j);
	/* The forge's delivery list shows it failed (the tick comes later). */
	if (webhook_wake(exe, cfg, rt) == -1)
		status = 500;
out:
	for (i = 0; i < n; i++)
		config_free(&all[i]);
	free(all);
	cJSON_Delete(j);
	buf_free(&payload);
	return status;
}

int
webhook_main(const char *exe, int in, int out)
{
	struct webhook_req r;
	struct sigaction sa;
	char shown[WEBHOOK_SHOWN + 1];
	int status;

	memset(&r, 0, sizeof(r));
	memset(&sa, 0, sizeof(sa));
	buf_init(&r.body, WEBHOOK_BODY_MAX + 8192);
	/* A read that takes too long fails (no SA_RESTART): 400. */
	sa.sa_handler = webhook_alarm;
	(void)sigaction(SIGALRM, &sa, NULL);
	alarm(WEBHOOK_TIMEOUT);
	if ((status = webhook_read_head(in, &r)) == 0) {
		webhook_headers(&r);
		if (r.method == NULL || strcmp(r.method, "POST") != 0) {
			webhook_log(NULL, "refused (405): a %s, not a POST",
			    webhook_shown(r.method, shown, sizeof(shown)));
			status = 405;
		} else if ((status = webhook_read_body(in, &r)) == 0)
			status = webhook_serve(exe, &r);
	}
	alarm(0);
	free(r.head);
	buf_free(&r.body);
	return webhook_answer(out, status);
}
