/*
 * The cause of a failed read, by the server it went to and the setting
 * that names that server or its token.
 */
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "config.h"
#include "http.h"
#include "xmalloc.h"

/* One server the tools read, and the settings that name it. */
struct cause_server {
	const char *what;      /* "forge", "Woodpecker" */
	const char *from;      /* "the forge", "Woodpecker" */
	const char *url_env;   /* its URL's setting */
	const char *url;       /* its value */
	const char *token_env; /* the token sent, as far as known */
};

static int cause_under(const char *, const char *);
static const char *cause_where(const struct config *, const char *);
static int cause_server_of(const struct config *, const char *,
    struct cause_server *);
static const char *cause_token(const struct config *, const char *);

/* Whether url starts with base (trailing slashes of base aside). */
static int
cause_under(const char *url, const char *base)
{
	size_t n;

	if (base == NULL || base[0] == '\0')
		return 0;
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	return n > 0 && strncmp(url, base, n) == 0 &&
	    (url[n] == '\0' || url[n] == '/' || url[n] == '?');
}

/* "set in X" for env's origin.  Static text or cfg's. */
static const char *
cause_where(const struct config *cfg, const char *env)
{
	const char *w = config_origin(cfg, env);

	return w != NULL ? w : "an unknown place";
}

/* The token of cfg the failed read carried: its setting, or NULL. */
static const char *
cause_token(const struct config *cfg, const char *fallback)
{
	/* The review token first: it may be the same value as the dev's. */
	if (http_failed_read_token(cfg->forge_review_token) &&
	    (cfg->forge_token == NULL ||
		strcmp(cfg->forge_review_token, cfg->forge_token) != 0))
		return "FORGE_REVIEW_TOKEN";
	if (http_failed_read_token(cfg->forge_token))
		return "FORGE_TOKEN";
	if (http_failed_read_token(cfg->woodpecker_token))
		return "WOODPECKER_TOKEN";
	return fallback;
}

/* The server of url among cfg's: 1 with *s filled, else 0. */
static int
cause_server_of(const struct config *cfg, const char *url,
    struct cause_server *s)
{
	if (cause_under(url, cfg->forge_api) &&
	    !cause_under(cfg->forge_api, cfg->forge_url)) {
		*s = (struct cause_server) {"forge", "the forge", "FORGE_API",
		    cfg->forge_api, cause_token(cfg, "FORGE_TOKEN")};
		return 1;
	}
	if (cause_under(url, cfg->forge_url)) {
		*s = (struct cause_server) {"forge", "the forge", "FORGE_URL",
		    cfg->forge_url, cause_token(cfg, "FORGE_TOKEN")};
		return 1;
	}
	if (cause_under(url, cfg->woodpecker_server)) {
		*s = (struct cause_server) {"Woodpecker", "Woodpecker",
		    "WOODPECKER_SERVER", cfg->woodpecker_server,
		    cause_token(cfg, "WOODPECKER_TOKEN")};
		return 1;
	}
	return 0;
}

int
cause_knows(const struct config *cfg, const char *url)
{
	struct cause_server s;

	return cause_server_of(cfg, url, &s);
}

char *
cause_failed_read(const struct config *cfg, const struct http_failed *f)
{
	struct cause_server s;

	if (f->status >= 200 && f->status < 300)
		return xasprintf("GET %s: an answer that cannot be used: %s",
		    f->url, f->why);
	if (!cause_server_of(cfg, f->url, &s))
		return f->status == 0 ?
		    xasprintf("GET %s: no answer (%s)", f->url, f->why) :
		    xasprintf("GET %s: %ld", f->url, f->status);
	if (f->status == 0)
		return xasprintf("%s unreachable at %s=%s (set in %s): %s",
		    s.what, s.url_env, s.url, cause_where(cfg, s.url_env),
		    f->why);
	if (f->status == 401 || f->status == 403)
		return xasprintf("%ld from %s: %s (set in %s) is refused (GET "
				 "%s)",
		    f->status, s.from, s.token_env,
		    cause_where(cfg, s.token_env), f->url);
	return xasprintf("%ld from %s at %s=%s (set in %s) for GET %s",
	    f->status, s.from, s.url_env, s.url, cause_where(cfg, s.url_env),
	    f->url);
}
