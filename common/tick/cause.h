/*
 * What a failed read says to the operator: the cause of a tick's
 * failure in one line, naming the setting that holds the URL or the
 * token to fix and where it was set (config_origin()), never a token.
 */
#ifndef CAUSE_H
#define CAUSE_H

struct config;
struct http_failed;

/*
 * The cause of the failed GET f (http_failed_read()) under cfg:
 *   "forge unreachable at FORGE_URL=http://... (set in /f/.env:3): why"
 *   "401 from the forge: FORGE_TOKEN (set in the environment) is refused"
 *   "502 from Woodpecker at WOODPECKER_SERVER=http://... (set in ...)"
 * and "GET URL: no answer (why)" for a server neither setting names.
 * Caller frees.
 */
char *cause_failed_read(const struct config *cfg, const struct http_failed *f);
/* 1 when url is under a server cfg names (its forge or Woodpecker). */
int cause_knows(const struct config *cfg, const char *url);

#endif
