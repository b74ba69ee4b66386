/*
 * Unit tests for the cached HTTP client (common/forge/http_client.c) against a
 * tiny server in a child process that answers every request with a body
 * cut short: the failure is reported, and the partial body it left behind is
 * freed (counted with check_heap(); LeakSanitizer sees the same under
 * make check).
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

static pid_t server_pid = -1;
static char base_url[64];

/* Read a request up to its blank line, then answer with half a body. */
static void
serve_one(int fd)
{
	static const char reply[] = "HTTP/1.1 200 OK\r\n"
				    "Content-Type: text/plain\r\n"
				    "Content-Length: 4096\r\n"
				    "Connection: close\r\n\r\n"
				    "the first part of a log that never ends";
	char req[4096];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(req) - 1 &&
	    (n = read(fd, req + got, sizeof(req) - 1 - got)) > 0) {
		got += (size_t)n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL)
			break;
	}
	(void)write(fd, reply, sizeof(reply) - 1);
	close(fd);
}

/* Start the truncating server on a loopback port; base_url names it. */
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

/* One text GET that fails on the cut body; 0 when it failed as it should. */
static int
get_truncated_text(void)
{
	struct http_client *c = http_client_new("token abc");
	const char *text = "unset";
	char url[128];
	int trunc = -1, r;

	snprintf(url, sizeof(url), "%s/logs/1/2", base_url);
	r = http_client_get_text(c, url, 1024 * 1024, &text, &trunc);
	CHECK(text == NULL);
	CHECK(strstr(http_client_error(c), "/logs/1/2") != NULL);
	http_client_free(c);
	return r == -1 ? 0 : -1;
}

/*
 * The failed request's partial body must not stay allocated.  libcurl's
 * own caches grow over the first few dozen requests and then hold steady
 * (give or take a few hundred bytes); a body lost per failure adds up.
 */
static void
test_get_text_failure_frees_body(void)
{
	size_t before, after;
	int i;

	for (i = 0; i < 60; i++)
		CHECK_INT(get_truncated_text(), 0);
	before = check_heap();
	for (i = 0; i < 20; i++)
		CHECK_INT(get_truncated_text(), 0);
	after = check_heap();
	if (after > before + 512)
		printf("#   %zu bytes more in use after 20 failures\n",
		    after - before);
	CHECK(after <= before + 512);
}

/* The same failure through a JSON GET: reported, nothing cached. */
static void
test_get_json_failure(void)
{
	struct http_client *c = http_client_new(NULL);
	const cJSON *out = (const cJSON *)1;
	char url[128];

	snprintf(url, sizeof(url), "%s/issues/1", base_url);
	CHECK_INT(http_client_get(c, url, cJSON_Object, NULL, &out), -1);
	CHECK(out == NULL);
	CHECK(*http_client_error(c) != '\0');
	CHECK_INT(http_client_status(c), 0);
	http_client_free(c);
}

/* Retry-After as delay-seconds or an HTTP-date; rate-limit resets. */
static void
test_retry_after(void)
{
	/* Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example. */
	time_t now = 784111777;

	CHECK_INT(http_retry_after("3600", now), 3600);
	CHECK_INT(http_retry_after(" 0 ", now), 0);
	CHECK_INT(http_retry_after("Sun, 06 Nov 1994 09:49:37 GMT", now), 3600);
	CHECK_INT(http_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0);
	CHECK_INT(http_retry_after("", now), -1);
	CHECK_INT(http_retry_after("12s", now), -1);
	CHECK_INT(http_retry_after("-5", now), -1);
	CHECK_INT(http_retry_after("soon", now), -1);
	CHECK_INT((long long)http_rfc3339("1994-11-06T09:49:37Z"), now + 3600);
	CHECK_INT((long long)http_rfc3339("1994-11-06T09:49:37.5Z"),
	    now + 3600);
	CHECK_INT((long long)http_rfc3339("1994-11-06T10:49:37+01:00"),
	    now + 3600);
	CHECK_INT((long long)http_rfc3339("1994-11-06"), 0);
	CHECK_INT((long long)http_rfc3339("1994-13-06T09:49:37Z"), 0);
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
	RUN(test_get_text_failure_frees_body);
	RUN(test_get_json_failure);
	RUN(test_retry_after);
	server_stop();
	http_cleanup();
	curl_global_cleanup();
	return check_main();
}
