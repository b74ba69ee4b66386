/*
 * A canned forge for unit tests: a server in a child process on a
 * loopback port that answers each GET with the body of the first row of
 * its table whose path is the request's path (the query left out) and
 * whose query words (when given) are all in the request's query; any
 * other request is answered with a 404.  A list says its length
 * (X-Total-Count, as Gitea does), so that it is read in one page; a
 * later page asked all the same is empty.
 */
#ifndef CANNED_H
#define CANNED_H

#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "http.h"

/* One canned answer. */
struct canned {
	const char *path;  /* "/api/v1/repos/o/r/pulls" */
	const char *query; /* words all in the query ("state=open"), or NULL */
	int status;	   /* 200, 404, 500, ... */
	const char *body;
};

static pid_t canned_pid = -1;
/* "http://127.0.0.1:PORT", once canned_start() succeeded. */
static char canned_url[64];

/* Whether every &-separated word of want is in the query q. */
static int
canned_query_has(const char *q, const char *want)
{
	char words[256], *w, *save = NULL;

	if (want == NULL)
		return 1;
	snprintf(words, sizeof(words), "%s", want);
	for (w = strtok_r(words, "&", &save); w != NULL;
	     w = strtok_r(NULL, "&", &save))
		if (q == NULL || strstr(q, w) == NULL)
			return 0;
	return 1;
}

/* The row answering the request line's target, or NULL. */
static const struct canned *
canned_find(const struct canned *t, size_t n, char *target)
{
	char *q = strchr(target, '?');
	size_t i;

	if (q != NULL)
		*q++ = '\0';
	for (i = 0; i < n; i++)
		if (strcmp(t[i].path, target) == 0 &&
		    canned_query_has(q, t[i].query))
			return &t[i];
	return NULL;
}

/* Read one request up to its blank line and answer it. */
static void
canned_serve(int fd, const struct canned *t, size_t n)
{
	char req[8192], target[2048], head[256], total[64] = "";
	const struct canned *row = NULL;
	const char *body = "", *p;
	int status = 404, later;
	cJSON *list;
	size_t got = 0;
	ssize_t r;

	while (got < sizeof(req) - 1 &&
	    (r = read(fd, req + got, sizeof(req) - 1 - got)) > 0) {
		got += (size_t)r;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL)
			break;
	}
	req[got] = '\0';
	target[0] = '\0';
	(void)sscanf(req, "GET %2047s", target);
	later = (p = strstr(target, "page=")) != NULL && atoi(p + 5) >= 2;
	if ((row = canned_find(t, n, target)) != NULL) {
		status = row->status;
		body = later && row->body[0] == '[' ? "[]" : row->body;
	}
	if (body[0] == '[' && (list = cJSON_Parse(row->body)) != NULL) {
		snprintf(total, sizeof(total), "X-Total-Count: %d\r\n",
		    cJSON_GetArraySize(list));
		cJSON_Delete(list);
	}
	snprintf(head, sizeof(head),
	    "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%s"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	    status, total, strlen(body));
	(void)!write(fd, head, strlen(head));
	(void)!write(fd, body, strlen(body));
	close(fd);
}

/*
 * The server's end with the test program's, when that one ends without
 * canned_stop() (a failed check that aborts, a sanitizer's report): an
 * orphan would keep the program's output open and its runner waiting.
 */
static void
canned_orphan_exit(pid_t parent)
{
#ifdef __linux__
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	if (getppid() != parent)
		_exit(0);
}

/* Serve table t (n rows) until canned_stop(): 0, or -1. */
static int
canned_start(const struct canned *t, size_t n)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	pid_t parent = getpid();
	int s, c;

	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(s, 16) == -1 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) == -1) {
		close(s);
		return -1;
	}
	snprintf(canned_url, sizeof(canned_url), "http://127.0.0.1:%d",
	    ntohs(sa.sin_port));
	if ((canned_pid = fork()) == -1) {
		close(s);
		return -1;
	}
	if (canned_pid == 0) {
		canned_orphan_exit(parent);
		for (;;)
			if ((c = accept(s, NULL, NULL)) != -1)
				canned_serve(c, t, n);
	}
	close(s);
	return 0;
}

static void
canned_stop(void)
{
	if (canned_pid > 0) {
		kill(canned_pid, SIGKILL);
		waitpid(canned_pid, NULL, 0);
		canned_pid = -1;
	}
}

/*
 * A test program's start: libcurl, short timeouts and no retry, the
 * server of table t (n rows).  0, or -1 (said as a failed test).
 */
static int
canned_begin(const struct canned *t, size_t n)
{
	struct http_opts o = {.connect_timeout_ms = 2000,
	    .timeout_ms = 5000,
	    .retries = 1,
	    .backoff_ms = 1};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	http_set_opts(&o);
	if (canned_start(t, n) == 0)
		return 0;
	printf("not ok - cannot start the canned forge\n");
	return -1;
}

/* Its end. */
static void
canned_end(void)
{
	canned_stop();
	http_cleanup();
	curl_global_cleanup();
}

#endif
