/*
 * Whose formal verdicts count.  An APPROVED or REQUEST_CHANGES review
 * decides something (dev-poll's merge, supervisor-poll's PR checks,
 * review-poll's "already reviewed") only when its author is the review
 * bot or a person listed in FORGE_REVIEWERS, and never when it is the
 * dev bot: a dev agent, which reads hostile issue text, holds the dev
 * bot's token.
 *
 * The review bot is FORGE_REVIEW_BOT, else the login of
 * FORGE_REVIEW_TOKEN (there is none when that token is unset or the dev
 * bot's own), learnt from the forge (GET /api/v1/user) once and
 * remembered in the run file runfiles_forge_logins(), keyed by a hash of
 * the forge's URL and the token.  The dev bot is the login of
 * FORGE_TOKEN, asked of the forge in every run that needs it: the run
 * directory is writable by the dev agent, and a name found there must not
 * decide that a verdict is not the dev bot's.
 */
#ifndef REVIEWERS_H
#define REVIEWERS_H

struct config;
struct forge;

struct reviewers;

/*
 * The rule for cfg's project (cfg is borrowed).  dev is a handle with
 * FORGE_TOKEN, review one with FORGE_REVIEW_TOKEN or NULL (then one is
 * opened when it is needed); both borrowed.  Nothing is asked before
 * reviewers_count() needs it; with dry_run set, nothing is remembered.
 * Free with reviewers_close().
 */
struct reviewers *reviewers_open(const struct config *cfg, struct forge *dev,
    struct forge *review, int dry_run);
void reviewers_close(struct reviewers *);
/*
 * Whether a verdict (state, e.g. "APPROVED") by login on PR pr counts:
 * 1, or 0 (an author whose verdicts do not count is logged once per
 * login and process), or -1 when a login it depends on cannot be learnt
 * from the forge (logged): unknown, decide nothing.
 */
int reviewers_count(struct reviewers *, const char *login, long long pr,
    const char *state);
/*
 * Whether login is one of the logins in the comma-separated list (blanks
 * around the commas allowed): 1 or 0.
 */
int reviewers_listed(const char *list, const char *login);

#endif
