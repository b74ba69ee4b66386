/*
 * Unit tests for common/act/git.c's remote credentials: a URL's user
 * information leaves the URL (the command line) for an Authorization
 * header given to git in its environment, for that URL alone.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "git.h"

/* env is exactly the NULL-ended want. */
static int
env_is(char **env, const char *const *want)
{
	size_t i;

	for (i = 0; want[i] != NULL; i++)
		if (env[i] == NULL || strcmp(env[i], want[i]) != 0) {
			printf("#   [%zu] got \"%s\", want \"%s\"\n", i,
			    env[i] != NULL ? env[i] : "(end)", want[i]);
			return 0;
		}
	return env[i] == NULL;
}

static void
test_remote_auth_https(void)
{
	static const char *const want[] = {"GIT_TERMINAL_PROMPT=0",
	    "GIT_CONFIG_COUNT=1",
	    "GIT_CONFIG_KEY_0=http.https://git.example/o/r.git.extraHeader",
	    /* base64 of "bot:p@ss word" */
	    "GIT_CONFIG_VALUE_0=Authorization: Basic Ym90OnBAc3Mgd29yZA==",
	    NULL};
	char *url, **env;

	git_remote_auth("https://bot:p%40ss%20word@git.example/o/r.git", &url,
	    &env);
	CHECK_STR(url, "https://git.example/o/r.git");
	CHECK(env_is(env, want));
	git_env_free(env);
	free(url);
}

static void
test_remote_auth_token(void)
{
	static const char *const want[] = {"GIT_TERMINAL_PROMPT=0",
	    "GIT_CONFIG_COUNT=1",
	    "GIT_CONFIG_KEY_0=http.http://h:3000/x.git.extraHeader",
	    /* base64 of "tok123:" */
	    "GIT_CONFIG_VALUE_0=Authorization: Basic dG9rMTIzOg==", NULL};
	char *url, **env;

	git_remote_auth("http://tok123@h:3000/x.git", &url, &env);
	CHECK_STR(url, "http://h:3000/x.git");
	CHECK(env_is(env, want));
	git_env_free(env);
	free(url);
}

static void
test_remote_auth_plain(void)
{
	static const char *const want[] = {"GIT_TERMINAL_PROMPT=0", NULL};
	static const char *const urls[] = {"https://git.example/o/r.git",
	    "ssh://git@host/o/r.git", "git@host:o/r.git", "/srv/mirror.git",
	    "https://git.example/o/@x"};
	char *url, **env;
	size_t i;

	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		git_remote_auth(urls[i], &url, &env);
		CHECK_STR(url, urls[i]);
		CHECK(env_is(env, want));
		git_env_free(env);
		free(url);
	}
	git_env_free(NULL);
}

int
main(void)
{
	RUN(test_remote_auth_https);
	RUN(test_remote_auth_token);
	RUN(test_remote_auth_plain);
	return check_main();
}
