/*
 * Every side effect of a tick goes through here: forge writes with the
 * review token, injections, sessions, run files.  Under --dry-run each is
 * logged as what would happen and not done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "review-poll.h"
#include "runfiles.h"
#include "strv.h"
#include "xmalloc.h"

static char **review_argv(const struct rp *);

int
rp_comment(struct rp *rp, long long pr, const char *body)
{
	if (rp->dry_run) {
		log_msg("dry-run: would comment on pr #%lld (%zu bytes)", pr,
		    strlen(body));
		return 0;
	}
	if (forge_comment_create(rp->review, pr, body, NULL) == -1) {
		log_msg("pr #%lld: cannot post the comment: %s", pr,
		    forge_error(rp->review));
		return -1;
	}
	log_msg("pr #%lld: comment posted", pr);
	return 0;
}

int
rp_formal_review(struct rp *rp, long long pr, const char *event,
    const char *sha, const char *body)
{
	long status;

	if (rp->dry_run) {
		log_msg("dry-run: would submit a %s review of pr #%lld at %.7s",
		    event, pr, sha);
		return 0;
	}
	if (forge_review_create(rp->review, pr, body, event, sha, NULL) == 0) {
		log_msg("pr #%lld: formal %s review submitted", pr, event);
		return 0;
	}
	status = forge_last_status(rp->review);
	log_msg("pr #%lld: cannot submit the %s review: %s", pr, event,
	    forge_error(rp->review));
	return status == 400 || status == 403 || status == 422 ? 1 : -1;
}

int
rp_dismiss(struct rp *rp, long long pr, long long id, const char *why)
{
	if (rp->dry_run) {
		log_msg("dry-run: would dismiss review %lld of pr #%lld", id,
		    pr);
		return 0;
	}
	if (forge_review_dismiss(rp->review, pr, id, why) == -1) {
		log_msg("pr #%lld: cannot dismiss review %lld: %s", pr, id,
		    forge_error(rp->review));
		return -1;
	}
	log_msg("pr #%lld: dismissed review %lld", pr, id);
	return 0;
}

int
rp_inject(struct rp *rp, const char *session, const char *text)
{
	int r;

	if (rp->dry_run) {
		log_msg("dry-run: would inject %zu bytes into %s", strlen(text),
		    session);
		return AGENT_DELIVERED;
	}
	r = agent_inject(session, text);
	if (r == AGENT_DELIVERED)
		log_msg("%s: injected %zu bytes", session, strlen(text));
	else
		log_msg("%s: injection %s", session,
		    r == AGENT_NOT_DELIVERED ? "not delivered" : "failed");
	return r;
}

/*
 * The agent command with the review model: any --model of the configured
 * command is replaced.  Free with strv_free().
 */
static char **
review_argv(const struct rp *rp)
{
	char **words = strv_split(rp->cfg->agent_cmd, NULL), **argv;
	size_t i, n = 0;

	argv = xcalloc(strv_len(words) + 3, sizeof(*argv));
	for (i = 0; words[i] != NULL; i++) {
		if (strcmp(words[i], "--model") == 0) {
			if (words[i + 1] != NULL)
				i++;
			continue;
		}
		if (strncmp(words[i], "--model=", 8) == 0)
			continue;
		argv[n++] = xstrdup(words[i]);
	}
	argv[n++] = xstrdup("--model");
	argv[n++] = xstrdup(rp->set.model);
	argv[n] = NULL;
	strv_free(words);
	return argv;
}

int
rp_start(struct rp *rp, const char *session, const char *workdir)
{
	struct agent_spec spec;
	char err[256], **argv;
	int r;

	if (rp->dry_run) {
		log_msg("dry-run: would start review session %s in %s", session,
		    workdir);
		return 0;
	}
	argv = review_argv(rp);
	memset(&spec, 0, sizeof(spec));
	spec.session = session;
	spec.workdir = workdir;
	spec.argv = argv;
	spec.ready_pattern = rp->cfg->agent_ready_pattern;
	spec.ready_timeout_s = rp->set.ready_timeout_s;
	r = agent_start(&spec, err, sizeof(err));
	if (r == -1)
		log_msg("%s: cannot start: %s", session, err);
	else
		log_msg("%s: started (model %s)", session, rp->set.model);
	strv_free(argv);
	return r;
}

int
rp_kill(struct rp *rp, const char *session)
{
	if (agent_alive(session) == 0)
		return 0;
	if (rp->dry_run) {
		log_msg("dry-run: would kill session %s", session);
		return 0;
	}
	if (agent_kill(session) == -1) {
		log_msg("%s: cannot kill the session", session);
		return -1;
	}
	log_msg("%s: session killed", session);
	return 0;
}

int
rp_write(struct rp *rp, const char *path, const char *text)
{
	if (rp->dry_run) {
		log_msg("dry-run: would write %s", path);
		return 0;
	}
	if (runfiles_write(path, text) == -1) {
		log_msg("cannot write '%s'", path);
		return -1;
	}
	return 0;
}

int
rp_remove(struct rp *rp, const char *path)
{
	if (!file_exists(path))
		return 0;
	if (rp->dry_run) {
		log_msg("dry-run: would remove %s", path);
		return 0;
	}
	if (file_remove(path) == -1) {
		log_msg("cannot remove '%s'", path);
		return -1;
	}
	return 0;
}
