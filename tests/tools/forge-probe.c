/*
 * forge-probe: drive the forge, Woodpecker and CI clients from the command
 * line for integration tests.
 *
 *   forge-probe [-c connect_ms] [-t timeout_ms] [-n attempts] [-b backoff_ms]
 *       [-m max_body] [-W wp_server -w wp_token -r wp_repo_id]
 *       API_BASE TOKEN command [args] [+ command [args] ...]
 *
 * Commands joined by "+" run in one process, on one forge handle (so its
 * cache and keep-alive connection are shared).  Results are printed as
 * lines on stdout; the first failure prints "forge-probe: <message>" on
 * stderr and exits 1.  "-" stands for a NULL argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "ci.h"
#include "forge.h"
#include "http.h"
#include "json.h"
#include "woodpecker.h"

struct probe {
	struct forge *f;
	struct woodpecker *w;
};

struct command {
	const char *name;
	int nargs; /* required arguments; more are optional */
	int (*fn)(struct probe *, char **, int);
};

static const char *arg(const char *);
static long long num(const char *);
static int ferr(struct probe *);
static int werr(struct probe *);
static void print_items(const cJSON *, const char *, const char *);
static int run(struct probe *, char **, int);
static void usage(void) __attribute__((noreturn));

static int cmd_issues(struct probe *, char **, int);
static int cmd_issues_each(struct probe *, char **, int);
static int cmd_pulls_each(struct probe *, char **, int);
static int cmd_issue(struct probe *, char **, int);
static int cmd_issue_keys(struct probe *, char **, int);
static int cmd_close(struct probe *, char **, int);
static int cmd_comments(struct probe *, char **, int);
static int cmd_comment(struct probe *, char **, int);
static int cmd_comment_edit(struct probe *, char **, int);
static int cmd_labels(struct probe *, char **, int);
static int cmd_label_id(struct probe *, char **, int);
static int cmd_label_add(struct probe *, char **, int);
static int cmd_label_remove(struct probe *, char **, int);
static int cmd_pulls(struct probe *, char **, int);
static int cmd_pull(struct probe *, char **, int);
static int cmd_pull_create(struct probe *, char **, int);
static int cmd_files(struct probe *, char **, int);
static int cmd_diff(struct probe *, char **, int);
static int cmd_merge(struct probe *, char **, int);
static int cmd_reviews(struct probe *, char **, int);
static int cmd_forget(struct probe *, char **, int);
static int cmd_review(struct probe *, char **, int);
static int cmd_dismiss(struct probe *, char **, int);
static int cmd_status(struct probe *, char **, int);
static int cmd_user(struct probe *, char **, int);
static int cmd_branch_delete(struct probe *, char **, int);
static int cmd_get(struct probe *, char **, int);
static int cmd_ci(struct probe *, char **, int);
static int cmd_pipelines(struct probe *, char **, int);
static int cmd_pipeline(struct probe *, char **, int);
static int cmd_restart(struct probe *, char **, int);
static int cmd_log(struct probe *, char **, int);
static int cmd_classify(struct probe *, char **, int);
static int cmd_count(struct probe *, char **, int);

static const struct command commands[] = {
    {"issues", 3, cmd_issues},
    {"issues-each", 3, cmd_issues_each},
    {"pulls-each", 1, cmd_pulls_each},
    {"issue", 1, cmd_issue},
    {"issue-keys", 1, cmd_issue_keys},
    {"close", 1, cmd_close},
    {"comments", 1, cmd_comments},
    {"comment", 2, cmd_comment},
    {"comment-edit", 2, cmd_comment_edit},
    {"labels", 0, cmd_labels},
    {"label-id", 2, cmd_label_id},
    {"label-add", 2, cmd_label_add},
    {"label-remove", 2, cmd_label_remove},
    {"pulls", 1, cmd_pulls},
    {"pull", 1, cmd_pull},
    {"pull-create", 4, cmd_pull_create},
    {"files", 1, cmd_files},
    {"diff", 2, cmd_diff},
    {"merge", 3, cmd_merge},
    {"reviews", 1, cmd_reviews},
    {"forget", 2, cmd_forget},
    {"review", 3, cmd_review},
    {"dismiss", 3, cmd_dismiss},
    {"status", 1, cmd_status},
    {"user", 0, cmd_user},
    {"branch-delete", 1, cmd_branch_delete},
    {"get", 1, cmd_get},
    {"ci", 1, cmd_ci},
    {"pipelines", 0, cmd_pipelines},
    {"pipeline", 1, cmd_pipeline},
    {"restart", 1, cmd_restart},
    {"log", 2, cmd_log},
    {"classify", 1, cmd_classify},
    {"count", 0, cmd_count},
};

static void
usage(void)
{
	fprintf(stderr,
	    "usage: forge-probe [-c ms] [-t ms] [-n attempts] "
	    "[-b ms] [-m bytes] [-W server -w token -r repo]\n"
	    "       api_base token command [args] [+ command ...]\n");
	exit(2);
}

static const char *
arg(const char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

static long long
num(const char *s)
{
	return strtoll(s, NULL, 10);
}

static int
ferr(struct probe *p)
{
	fprintf(stderr, "forge-probe: %s\n", forge_error(p->f));
	return -1;
}

static int
werr(struct probe *p)
{
	if (p->w == NULL)
		fprintf(stderr, "forge-probe: no woodpecker (-W -w -r)\n");
	else
		fprintf(stderr, "forge-probe: %s\n", woodpecker_error(p->w));
	return -1;
}

/* "count N", then per item the integer at k1 and the string at k2. */
static void
print_items(const cJSON *list, const char *k1, const char *k2)
{
	const cJSON *it;
	const char *s;
	long long n;

	printf("count %d\n", cJSON_GetArraySize(list));
	cJSON_ArrayForEach (it, list) {
		if (json_int_at(it, k1, &n) == -1)
			n = -1;
		s = json_str_at(it, k2);
		printf("%lld\t%s\n", n, s != NULL ? s : "");
	}
}

static int
cmd_issues(struct probe *p, char **a, int n)
{
	const cJSON *l;

	(void)n;
	if (forge_issues_list(p->f, arg(a[0]), arg(a[1]), arg(a[2]), &l) == -1)
		return ferr(p);
	print_items(l, "number", "title");
	return 0;
}

/* What a visit of a list saw; stop > 0 ends it after that many. */
struct each {
	long long stop;
	long long seen;
};

/* Print one element as print_items() does (the page is freed after). */
static int
each_print(void *arg, const cJSON *it)
{
	struct each *e = arg;
	const char *s;
	long long n;

	if (json_int(it, "number", &n) == -1)
		n = -1;
	s = json_str(it, "title");
	printf("%lld\t%s\n", n, s != NULL ? s : "");
	e->seen++;
	return e->stop > 0 && e->seen >= e->stop ? 1 : 0;
}

/* issues-each STATE LABELS TYPE [STOP]: the list visited by pages. */
static int
cmd_issues_each(struct probe *p, char **a, int n)
{
	struct each e = {n > 3 ? num(a[3]) : 0, 0};

	if (forge_issues_each(p->f, arg(a[0]), arg(a[1]), arg(a[2]), each_print,
		&e) == -1)
		return ferr(p);
	printf("seen %lld\n", e.seen);
	return 0;
}

/* pulls-each STATE [STOP] */
static int
cmd_pulls_each(struct probe *p, char **a, int n)
{
	struct each e = {n > 1 ? num(a[1]) : 0, 0};

	if (forge_pulls_each(p->f, arg(a[0]), each_print, &e) == -1)
		return ferr(p);
	printf("seen %lld\n", e.seen);
	return 0;
}

static int
cmd_issue(struct probe *p, char **a, int n)
{
	const cJSON *it;
	const char *s, *t;

	(void)n;
	if (forge_issue_get(p->f, num(a[0]), &it) == -1)
		return ferr(p);
	s = json_str(it, "state");
	t = json_str(it, "title");
	printf("%s\t%s\n", s ? s : "", t ? t : "");
	return 0;
}

/* The members of issue N as handed out, nested ones as "user.login". */
static int
cmd_issue_keys(struct probe *p, char **a, int n)
{
	const cJSON *it, *m, *k;

	(void)n;
	if (forge_issue_get(p->f, num(a[0]), &it) == -1)
		return ferr(p);
	cJSON_ArrayForEach (m, it) {
		if (!cJSON_IsObject(m) || m->child == NULL) {
			printf("%s\n", m->string);
			continue;
		}
		cJSON_ArrayForEach (k, m)
			printf("%s.%s\n", m->string, k->string);
	}
	return 0;
}

static int
cmd_close(struct probe *p, char **a, int n)
{
	(void)n;
	return forge_issue_close(p->f, num(a[0])) == -1 ? ferr(p) : 0;
}

static int
cmd_comments(struct probe *p, char **a, int n)
{
	const cJSON *l;

	(void)n;
	if (forge_comments_list(p->f, num(a[0]), &l) == -1)
		return ferr(p);
	print_items(l, "id", "body");
	return 0;
}

static int
cmd_comment(struct probe *p, char **a, int n)
{
	long long id;

	(void)n;
	if (forge_comment_create(p->f, num(a[0]), a[1], &id) == -1)
		return ferr(p);
	printf("id %lld\n", id);
	return 0;
}

static int
cmd_comment_edit(struct probe *p, char **a, int n)
{
	(void)n;
	return forge_comment_edit(p->f, num(a[0]), a[1]) == -1 ? ferr(p) : 0;
}

static int
cmd_labels(struct probe *p, char **a, int n)
{
	const cJSON *l;

	(void)a;
	(void)n;
	if (forge_labels_list(p->f, &l) == -1)
		return ferr(p);
	print_items(l, "id", "name");
	return 0;
}

static int
cmd_label_id(struct probe *p, char **a, int n)
{
	long long id;
	int r;

	(void)n;
	r = forge_label_id(p->f, a[0], strcmp(a[1], "create") == 0, &id);
	if (r == -1)
		return ferr(p);
	if (r == FORGE_NOT_FOUND)
		printf("none\n");
	else
		printf("id %lld\n", id);
	return 0;
}

static int
cmd_label_add(struct probe *p, char **a, int n)
{
	(void)n;
	return forge_issue_add_label_name(p->f, num(a[0]), a[1]) == -1 ?
	    ferr(p) :
	    0;
}

static int
cmd_label_remove(struct probe *p, char **a, int n)
{
	(void)n;
	return forge_issue_remove_label_name(p->f, num(a[0]), a[1]) == -1 ?
	    ferr(p) :
	    0;
}

static int
cmd_pulls(struct probe *p, char **a, int n)
{
	const cJSON *l;

	(void)n;
	if (forge_pulls_list(p->f, arg(a[0]), &l) == -1)
		return ferr(p);
	print_items(l, "number", "head.ref");
	return 0;
}

static int
cmd_pull(struct probe *p, char **a, int n)
{
	const cJSON *pr;
	const char *s, *sha;
	int merged = 0;

	(void)n;
	if (forge_pull_get(p->f, num(a[0]), &pr) == -1)
		return ferr(p);
	s = json_str(pr, "state");
	sha = json_str_at(pr, "head.sha");
	json_bool(pr, "merged", &merged);
	printf("%s\tmerged %d\t%s\n", s ? s : "", merged, sha ? sha : "");
	return 0;
}

/* Create, and on 409 adopt the open PR of the same head branch. */
static int
cmd_pull_create(struct probe *p, char **a, int n)
{
	long long number;
	int r;

	(void)n;
	r = forge_pull_create(p->f, a[0], a[1], a[2], a[3], &number);
	if (r == -1)
		return ferr(p);
	if (r == 0) {
		printf("created %lld\n", number);
		return 0;
	}
	if ((r = forge_pull_find_head(p->f, a[2], &number)) == -1)
		return ferr(p);
	if (r == FORGE_NOT_FOUND) {
		fprintf(stderr, "forge-probe: 409 but no open PR for '%s'\n",
		    a[2]);
		return -1;
	}
	printf("exists %lld\n", number);
	return 0;
}

static int
cmd_files(struct probe *p, char **a, int n)
{
	const cJSON *l, *it;
	const char *s;

	(void)n;
	if (forge_pull_files(p->f, num(a[0]), &l) == -1)
		return ferr(p);
	cJSON_ArrayForEach (it, l) {
		s = json_str(it, "filename");
		printf("file %s\n", s ? s : "");
	}
	printf("need-ci %d\n", ci_files_need_ci(l));
	return 0;
}

static int
cmd_diff(struct probe *p, char **a, int n)
{
	const char *text;
	int truncated;

	(void)n;
	if (forge_pull_diff(p->f, num(a[0]), (size_t)num(a[1]), &text,
		&truncated) == -1)
		return ferr(p);
	printf("truncated %d\n%s", truncated, text);
	return 0;
}

static int
cmd_merge(struct probe *p, char **a, int n)
{
	struct forge_merge m;

	(void)n;
	if (forge_pull_merge(p->f, num(a[0]), arg(a[1]), num(a[2]) != 0, &m) ==
	    -1)
		return ferr(p);
	printf("status %ld merged %d\n", m.status, m.merged);
	if (m.message[0] != '\0')
		printf("message %s\n", m.message);
	return 0;
}

static int
cmd_reviews(struct probe *p, char **a, int n)
{
	const cJSON *l;

	(void)n;
	if (forge_reviews_list(p->f, num(a[0]), &l) == -1)
		return ferr(p);
	print_items(l, "id", "state");
	return 0;
}

/* forget reviews|files N: drop PR N's cached list. */
static int
cmd_forget(struct probe *p, char **a, int n)
{
	(void)n;
	if (strcmp(a[0], "reviews") == 0)
		forge_reviews_forget(p->f, num(a[1]));
	else
		forge_files_forget(p->f, num(a[1]));
	return 0;
}

static int
cmd_review(struct probe *p, char **a, int n)
{
	long long id;

	if (forge_review_create(p->f, num(a[0]), a[2], a[1],
		n > 3 ? arg(a[3]) : NULL, &id) == -1)
		return ferr(p);
	printf("id %lld\n", id);
	return 0;
}

static int
cmd_dismiss(struct probe *p, char **a, int n)
{
	(void)n;
	return forge_review_dismiss(p->f, num(a[0]), num(a[1]), a[2]) == -1 ?
	    ferr(p) :
	    0;
}

static int
cmd_status(struct probe *p, char **a, int n)
{
	const cJSON *st;
	const char *s;

	(void)n;
	if (forge_commit_status(p->f, a[0], &st) == -1)
		return ferr(p);
	s = json_str(st, "state");
	printf("state %s\n", s ? s : "(none)");
	return 0;
}

static int
cmd_user(struct probe *p, char **a, int n)
{
	const char *login;

	(void)a;
	(void)n;
	if (forge_user_login(p->f, &login) == -1)
		return ferr(p);
	printf("login %s\n", login);
	return 0;
}

static int
cmd_branch_delete(struct probe *p, char **a, int n)
{
	(void)n;
	return forge_branch_delete(p->f, a[0]) == -1 ? ferr(p) : 0;
}

static int
cmd_get(struct probe *p, char **a, int n)
{
	const cJSON *j;
	char *s;

	(void)n;
	if (forge_get(p->f, a[0], 0, &j) == -1)
		return ferr(p);
	s = json_print(j);
	printf("%s\n", s);
	free(s);
	return 0;
}

static int
cmd_ci(struct probe *p, char **a, int n)
{
	enum ci_state st;
	long long pipe;

	(void)n;
	if (ci_commit_state(p->f, p->w, a[0], &st, &pipe) == -1) {
		fprintf(stderr, "forge-probe: ci: %s%s\n", forge_error(p->f),
		    p->w ? woodpecker_error(p->w) : "");
		return -1;
	}
	printf("state %s pipeline %lld\n", ci_state_name(st), pipe);
	return 0;
}

static int
cmd_pipelines(struct probe *p, char **a, int n)
{
	const cJSON *l;

	(void)a;
	(void)n;
	if (p->w == NULL || woodpecker_pipelines(p->w, &l) == -1)
		return werr(p);
	print_items(l, "number", "status");
	return 0;
}

static int
cmd_pipeline(struct probe *p, char **a, int n)
{
	const cJSON *pl;
	const char *s;
	long long t[3] = {0, 0, 0};

	(void)n;
	if (p->w == NULL || woodpecker_pipeline(p->w, num(a[0]), &pl) == -1)
		return werr(p);
	s = json_str(pl, "status");
	(void)json_int(pl, "created", &t[0]);
	(void)json_int(pl, "started", &t[1]);
	(void)json_int(pl, "finished", &t[2]);
	printf("status %s created %lld started %lld finished %lld\n",
	    s ? s : "", t[0], t[1], t[2]);
	return 0;
}

static int
cmd_restart(struct probe *p, char **a, int n)
{
	long long nn;

	(void)n;
	if (p->w == NULL || woodpecker_restart(p->w, num(a[0]), &nn) == -1)
		return werr(p);
	printf("new %lld\n", nn);
	return 0;
}

static int
cmd_log(struct probe *p, char **a, int n)
{
	char *text;
	int r;

	if (p->w == NULL)
		return werr(p);
	r = woodpecker_step_log(p->w, num(a[0]), num(a[1]),
	    n > 2 ? (size_t)num(a[2]) : 0, n > 3 ? (size_t)num(a[3]) : 0,
	    &text);
	if (r == -1)
		return werr(p);
	if (r == WOODPECKER_NONE)
		printf("no log\n");
	else
		printf("%s", text);
	free(text);
	return 0;
}

static int
cmd_classify(struct probe *p, char **a, int n)
{
	struct ci_failure cf;
	int r;

	(void)n;
	if (p->w == NULL)
		return werr(p);
	r = ci_classify_pipeline(p->w, num(a[0]), &cf);
	if (r == -1) {
		ci_failure_free(&cf);
		return werr(p);
	}
	printf("found %d step %s id %lld exit %lld infra %d\n", cf.found,
	    cf.step, cf.step_id, cf.exit_code, cf.infra);
	printf("reason %s\n", cf.reason);
	printf("%s", cf.log_tail ? cf.log_tail : "");
	ci_failure_free(&cf);
	return 0;
}

static int
cmd_count(struct probe *p, char **a, int n)
{
	(void)p;
	(void)a;
	(void)n;
	printf("requests %lu\n", http_request_count());
	return 0;
}

/* Run one command of n words; returns 0 or -1. */
static int
run(struct probe *p, char **argv, int n)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[0], commands[i].name) != 0)
			continue;
		if (n - 1 < commands[i].nargs) {
			fprintf(stderr,
			    "forge-probe: '%s' needs %d "
			    "arguments\n",
			    argv[0], commands[i].nargs);
			return -1;
		}
		return commands[i].fn(p, argv + 1, n - 1);
	}
	fprintf(stderr, "forge-probe: unknown command '%s'\n", argv[0]);
	return -1;
}

int
main(int argc, char **argv)
{
	struct http_opts o;
	struct probe p;
	const char *wp_server = NULL, *wp_token = NULL;
	long long wp_repo = 0;
	int ch, i, start, r = 0;

	http_get_opts(&o);
	while ((ch = getopt(argc, argv, "b:c:m:n:r:t:W:w:")) != -1) {
		switch (ch) {
		case 'b':
			o.backoff_ms = (long)num(optarg);
			break;
		case 'c':
			o.connect_timeout_ms = (long)num(optarg);
			break;
		case 'm':
			o.max_body = (size_t)num(optarg);
			break;
		case 'n':
			o.retries = (int)num(optarg);
			break;
		case 'r':
			wp_repo = num(optarg);
			break;
		case 't':
			o.timeout_ms = (long)num(optarg);
			break;
		case 'W':
			wp_server = optarg;
			break;
		case 'w':
			wp_token = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3)
		usage();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	http_set_opts(&o);
	p.f = forge_open(argv[0], argv[1]);
	p.w = wp_server != NULL ?
	    woodpecker_open(wp_server, wp_token, wp_repo) :
	    NULL;
	for (start = i = 2; i <= argc && r == 0; i++) {
		if (i < argc && strcmp(argv[i], "+") != 0)
			continue;
		if (i > start)
			r = run(&p, argv + start, i - start);
		start = i + 1;
	}
	fflush(stdout);
	woodpecker_close(p.w);
	forge_close(p.f);
	http_cleanup();
	curl_global_cleanup();
	return r == 0 ? 0 : 1;
}
