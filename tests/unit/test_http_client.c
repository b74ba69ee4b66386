/*
 * Unit tests for the end of a list read page by page
 * (common/forge/http_client.c) against a tiny server in a child process whose
 * pages hold 3 items whatever size is asked (a server's page cap below the 50
 * asked), and which says where its 7-item list ends by X-Total-Count (/total),
 * by a Link header (/link: rel="next" while a page follows, as Gitea writes
 * it), or not at all (/none: only an empty page ends it).  A page that
 * does not arrive (/lost: page 2 answers 500) fails the read.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "check.h"
#include "http.h"
#include "http_client.h"

#define ITEMS 7
#define CAP 3

static pid_t server_pid = -1;
static char base_url[64];

/* The body of page of the list: items (page-1)*CAP+1 .. at most items. */
static void
page_body(int page, int items, char *out, size_t outsz)
{
	size_t len;
	int i;

	snprintf(out, outsz, "[");
	for (i = (page - 1) * CAP + 1;
	     page >= 1 && i <= page * CAP && i <= items; i++) {
		len = strlen(out);
		snprintf(out + len, outsz - len, "%s{\"number\": %d}",
		    out[1] != '\0' ? ", " : "", i);
	}
	len = strlen(out);
	snprintf(out + len, outsz - len, "]");
}

/* The headers of page in mode ("total", "link", "none"). */
static void
page_headers(const char *mode, int page, char *out, size_t outsz)
{
	out[0] = '\0';
	if (strcmp(mode, "total") == 0)
		snprintf(out, outsz, "X-Total-Count: %d\r\n", ITEMS);
	else if (strcmp(mode, "small") == 0)
		snprintf(out, outsz, "X-Total-Count: 2\r\n");
	else if (strcmp(mode, "link") == 0 && page * CAP < ITEMS)
		snprintf(out, outsz,
		    "Link: <%s/link/list?page=%d>; rel=\"next\",<%s/link/"
		    "list?page=3>; rel=\"last\"\r\n",
		    base_url, page + 1, base_url);
	else if (strcmp(mode, "link") == 0)
		snprintf(out, outsz,
		    "Link: <%s/link/list?page=1>; rel=\"first\",<%s/link/"
		    "list?page=%d>; rel=\"prev\"\r\n",
		    base_url, base_url, page - 1);
}

/* Read a request up to its blank line and answer its page. */
static void
serve_one(int fd)
{
	char req[4096], mode[16] = "", body[512], hdrs[512], reply[2048];
	const char *p;
	size_t got = 0;
	ssize_t n;
	int page = 1;

	while (got < sizeof(req) - 1 &&
	    (n = read(fd, req + got, sizeof(req) - 1 - got)) > 0) {
		got += (size_t)n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL)
			break;
	}
	req[got] = '\0';
	(void)sscanf(req, "GET /%15[a-z]/", mode);
	if ((p = strstr(req, "page=")) != NULL)
		page = atoi(p + 5);
	page_body(page, strcmp(mode, "small") == 0 ? 2 : ITEMS, body,
	    sizeof(body));
	page_headers(mode, page, hdrs, sizeof(hdrs));
	if (strcmp(mode, "lost") == 0 && page == 2)
		snprintf(reply, sizeof(reply),
		    "HTTP/1.1 500 Internal Server Error\r\n"
		    "Content-Length: 0\r\nConnection: close\r\n\r\n");
	else
		snprintf(reply, sizeof(reply),
		    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		    "%sContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
		    hdrs, strlen(body), body);
	(void)write(fd, reply, strlen(reply));
	close(fd);
}

/* Start the server on a loopback port; base_url names it. */
static int
server_start(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
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
	snprintf(base_url, sizeof(base_url), "http://127.0.0.1:%d",
	    ntohs(sa.sin_port));
	if ((server_pid = fork()) == -1) {
		close(s);
		return -1;
	}
	if (server_pid == 0) {
		for (;;)
			if ((c = accept(s, NULL, NULL)) != -1)
				serve_one(c);
	}
	close(s);
	return 0;
}

static void
server_stop(void)
{
	if (server_pid > 0) {
		kill(server_pid, SIGKILL);
		waitpid(server_pid, NULL, 0);
	}
}

/*
 * Read the list of mode with http_client_get_pages(): 0 with the items'
 * count and the requests it took, or -1.
 */
static int
read_pages(const char *mode, int *items, unsigned long *requests)
{
	struct http_client *c = http_client_new(NULL);
	unsigned long before = http_request_count();
	const cJSON *out = NULL;
	char url[128];
	int complete = -1, r;

	snprintf(url, sizeof(url), "%s/%s/list", base_url, mode);
	r = http_client_get_pages(c, url, "limit", 50, 100, NULL, &out,
	    &complete);
	*items = r == 0 ? cJSON_GetArraySize(out) : -1;
	*requests = http_request_count() - before;
	if (r == 0)
		CHECK_INT(complete, 1);
	http_client_free(c);
	return r;
}

static int
count_one(void *arg, const cJSON *el)
{
	(void)el;
	(*(int *)arg)++;
	return 0;
}

/* The same list visited by http_client_each_page(). */
static int
visit_pages(const char *mode, int *items)
{
	struct http_client *c = http_client_new(NULL);
	char url[128];
	int r;

	*items = 0;
	snprintf(url, sizeof(url), "%s/%s/list", base_url, mode);
	r = http_client_each_page(c, url, "limit", 50, 100, NULL, count_one,
	    items, NULL);
	http_client_free(c);
	return r;
}

/* X-Total-Count ends the list: 3 short pages read, no 4th asked. */
static void
test_pages_end_by_total(void)
{
	unsigned long requests;
	int items;

	CHECK_INT(read_pages("total", &items, &requests), 0);
	CHECK_INT(items, ITEMS);
	CHECK_INT(requests, 3);
	CHECK_INT(visit_pages("total", &items), 0);
	CHECK_INT(items, ITEMS);
}

/* A Link header without rel="next" ends the list. */
static void
test_pages_end_by_link(void)
{
	unsigned long requests;
	int items;

	CHECK_INT(read_pages("link", &items, &requests), 0);
	CHECK_INT(items, ITEMS);
	CHECK_INT(requests, 3);
	CHECK_INT(visit_pages("link", &items), 0);
	CHECK_INT(items, ITEMS);
}

/* Neither header: only the empty 4th page ends the list. */
static void
test_pages_end_by_empty_page(void)
{
	unsigned long requests;
	int items;

	CHECK_INT(read_pages("none", &items, &requests), 0);
	CHECK_INT(items, ITEMS);
	CHECK_INT(requests, 4);
	CHECK_INT(visit_pages("none", &items), 0);
	CHECK_INT(items, ITEMS);
}

/* A page that did not arrive: the list is unknown, never shorter. */
static void
test_lost_page_fails(void)
{
	unsigned long requests;
	int items;

	CHECK_INT(read_pages("lost", &items, &requests), -1);
	CHECK_INT(visit_pages("lost", &items), -1);
	CHECK_INT(items, CAP);
}

/*
 * A first page read ahead is kept as the list only when its headers say
 * it is all of it: the 2-item list is, the 7-item one (a short page
 * under the server's cap) and the one without headers are not.
 */
static void
test_prefetch_whole_only(void)
{
	struct http_client *c = http_client_new(NULL);
	unsigned long before;
	const cJSON *out = NULL;
	const char *urls[3];
	char u[3][128];
	int i;

	snprintf(u[0], sizeof(u[0]), "%s/total/list", base_url);
	snprintf(u[1], sizeof(u[1]), "%s/none/list", base_url);
	snprintf(u[2], sizeof(u[2]), "%s/small/list", base_url);
	for (i = 0; i < 3; i++)
		urls[i] = u[i];
	CHECK_INT(http_client_prefetch_pages(c, urls, 3, "limit", 50, NULL), 1);
	before = http_request_count();
	CHECK_INT(
	    http_client_get_pages(c, u[2], "limit", 50, 100, NULL, &out, NULL),
	    0);
	CHECK_INT(http_request_count() - before, 0);
	CHECK_INT(cJSON_GetArraySize(out), 2);
	http_client_free(c);
}

int
main(void)
{
	struct http_opts o = {.connect_timeout_ms = 2000,
	    .timeout_ms = 5000,
	    .retries = 2,
	    .backoff_ms = 1};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	http_set_opts(&o);
	if (server_start() == -1) {
		printf("not ok - cannot start the test server\n");
		return 1;
	}
	RUN(test_pages_end_by_total);
	RUN(test_pages_end_by_link);
	RUN(test_pages_end_by_empty_page);
	RUN(test_lost_page_fails);
	RUN(test_prefetch_whole_only);
	server_stop();
	http_cleanup();
	curl_global_cleanup();
	return check_main();
}
