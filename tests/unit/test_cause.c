/*
 * The cause of a failed read: the server by its setting, where the
 * setting was set, the token by its name alone.
 */
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "check.h"
#include "config.h"
#include "http.h"

static struct config cfg;

/* cfg: a forge and a Woodpecker, their URLs set in .env and a project. */
static void
setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.forge_url = "http://forge.example:3000/";
	cfg.forge_api = "http://forge.example:3000/api/v1/repos/o/r";
	cfg.woodpecker_server = "http://ci.example:8000";
	cfg.origins[0] = (struct config_origin) {"FORGE_URL", "/f/.env:3"};
	cfg.origins[1] =
	    (struct config_origin) {"FORGE_TOKEN", "the environment"};
	cfg.origins[2] = (struct config_origin) {"WOODPECKER_SERVER",
	    "projects/x.toml:7 as [ci] woodpecker_server"};
}

static void
test_unreachable(void)
{
	struct http_failed f = {0, "http://forge.example:3000/api/v1/user",
	    "connection refused"};
	char *c;

	setup();
	c = cause_failed_read(&cfg, &f);
	CHECK_STR(c,
	    "forge unreachable at FORGE_URL=http://forge.example:3000/ (set in "
	    "/f/.env:3): connection refused");
	free(c);
}

static void
test_refused(void)
{
	struct http_failed f = {401,
	    "http://forge.example:3000/api/v1/repos/o/r/pulls", ""};
	char *c;

	setup();
	c = cause_failed_read(&cfg, &f);
	CHECK_STR(c,
	    "401 from the forge: FORGE_TOKEN (set in the environment) is "
	    "refused (GET http://forge.example:3000/api/v1/repos/o/r/pulls)");
	free(c);
}

static void
test_woodpecker(void)
{
	struct http_failed f = {502,
	    "http://ci.example:8000/api/repos/1/pipelines", ""};
	char *c;

	setup();
	c = cause_failed_read(&cfg, &f);
	CHECK_STR(c,
	    "502 from Woodpecker at WOODPECKER_SERVER=http://ci.example:8000 "
	    "(set in projects/x.toml:7 as [ci] woodpecker_server) for GET "
	    "http://ci.example:8000/api/repos/1/pipelines");
	free(c);
}

static void
test_other(void)
{
	struct http_failed f = {0, "http://elsewhere.example/x", "timeout"};
	struct http_failed g = {200, "http://forge.example:3000/api/v1/user",
	    "not the JSON type expected"};
	struct http_failed h = {0, "http://forge.example:30000/x", "timeout"};
	char *c;

	setup();
	c = cause_failed_read(&cfg, &f);
	CHECK_STR(c, "GET http://elsewhere.example/x: no answer (timeout)");
	free(c);
	c = cause_failed_read(&cfg, &g);
	CHECK_STR(c,
	    "GET http://forge.example:3000/api/v1/user: an answer that "
	    "cannot be used: not the JSON type expected");
	free(c);
	/* Another port is another server. */
	c = cause_failed_read(&cfg, &h);
	CHECK_STR(c, "GET http://forge.example:30000/x: no answer (timeout)");
	free(c);
}

int
main(void)
{
	RUN(test_unreachable);
	RUN(test_refused);
	RUN(test_woodpecker);
	RUN(test_other);
	return check_main();
}
