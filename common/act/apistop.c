/*
 * A project paused by an API error, as a tick keeps it (apistop.h).  The
 * pause's record is read, changed and written under its lock: the ticks
 * of dev-poll and review-poll both write it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "agent.h"
#include "api_error.h"
#include "apipause.h"
#include "apistop.h"
#include "file.h"
#include "lock.h"
#include "log.h"
#include "phase.h"
#include "runfiles.h"
#include "xmalloc.h"

/* The longest wait for the pause's lock (seconds). */
#define APISTOP_LOCK_S 10
/* A pause over this long without a recurrence is forgotten. */
#define APISTOP_FORGET_S (24 * 60 * 60)

static int apistop_lock(const char *, int *);
static int apistop_write(struct act *, const char *, const struct apipause *);
static int apistop_note_resumed(struct act *, const char *,
    const struct apierr *);
static int apistop_resume(struct act *, const char *, const char *,
    const struct apierr *, const char *, struct apipause *, time_t);
static int apistop_fold(struct act *, const char *, const char *, int,
    const char *, const struct apierr *, time_t);
static int apistop_turn_done(const char *, time_t);
static int apistop_other_done(const char *, time_t);
static const char *apistop_evidence(const char *, const struct apierr *,
    time_t);
static int apistop_unpause(struct act *, const char *, const struct apierr *);
static int apistop_issue(struct act *, const char *, const char *, const char *,
    const char *, const struct apierr *, const char *);
static int apistop_over(struct act *, const char *, time_t);

/* Take the pause's lock into *fd.  0, or -1 (logged). */
static int
apistop_lock(const char *project, int *fd)
{
	char *path = runfiles_api_pause_lock(project);
	int r;

	if ((r = lock_wait(path, fd, APISTOP_LOCK_S)) != 0)
		log_warn("cannot lock '%s': %s", path,
		    r == 1 ? "held by another tick" : strerror(errno));
	free(path);
	return r == 0 ? 0 : -1;
}

static int
apistop_write(struct act *a, const char *project, const struct apipause *p)
{
	char *path = runfiles_api_pause(project), *text = apipause_text(p);
	int r = act_write(a, path, text, 1);

	free(text);
	free(path);
	return r;
}

/* Keep the error the session was resumed from, and when.  0 or -1. */
static int
apistop_note_resumed(struct act *a, const char *session, const struct apierr *e)
{
	char *path = runfiles_api_resumed(session), *text = apierr_text(e);
	int r = act_write(a, path, text, 0);

	free(text);
	free(path);
	return r;
}

/*
 * The pause is over: the live session is told to go on (once, keyed by
 * its error's time), then its record goes and the pause is marked
 * resumed.  1, or -1.
 */
static int
apistop_resume(struct act *a, const char *project, const char *session,
    const struct apierr *e, const char *rec, struct apipause *p, time_t now)
{
	char key[128], *text, *idle = runfiles_idle_marker(session);
	struct apierr now_e;
	enum act_inject r;

	snprintf(key, sizeof(key), "api-resume %lld", (long long)e->at);
	text = xasprintf(APISTOP_RESUME_TEXT, e->error);
	/* A turn's end from now on is the resumed one's. */
	(void)act_remove(a, idle);
	r = act_inject(a, session, key, text);
	free(text);
	free(idle);
	if (r == ACT_INJECT_LATER || r == ACT_INJECT_FAILED) {
		log_msg("%s: cannot tell it the API error is over now — next "
			"tick",
		    session);
		return r == ACT_INJECT_FAILED ? -1 : 1;
	}
	log_msg("%s: the API error (%s) is over — told to continue", session,
	    e->error);
	/* The same error after this is the issue's (apistop_evidence()). */
	memset(&now_e, 0, sizeof(now_e));
	snprintf(now_e.error, sizeof(now_e.error), "%s", e->error);
	now_e.at = now;
	(void)apistop_note_resumed(a, session, &now_e);
	/* The record goes unless the resumed turn failed again already. */
	if (apierr_read(rec, &now_e) == 1 && now_e.at == e->at &&
	    act_remove(a, rec) == -1)
		return -1;
	if (p->resumed == 0) {
		p->resumed = now;
		if (apistop_write(a, project, p) == -1)
			return -1;
	}
	return 1;
}

/* Fold e into the pause under its lock; resume the session when over. */
static int
apistop_fold(struct act *a, const char *project, const char *session, int alive,
    const char *who, const struct apierr *e, time_t now)
{
	char *path = runfiles_api_pause(project), *rec, desc[256];
	struct apipause p, old;
	int fd = -1, r = -1;

	rec = runfiles_api_error(session);
	if (apistop_lock(project, &fd) == -1)
		goto out;
	if (apipause_read(path, &p) == -1) {
		log_warn("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	old = p;
	switch (apipause_note(&p, e, now)) {
	case APIPAUSE_RESUME:
		if (alive == 1)
			r = apistop_resume(a, project, session, e, rec, &p,
			    now);
		else
			r = act_remove(a, rec) == 0 ? 0 : -1;
		goto out;
	case APIPAUSE_NEW:
	case APIPAUSE_RECURRENCE:
		apipause_describe(&p, desc, sizeof(desc));
		log_warn("%s: stopped by an API error of the project's (%s, "
			 "from its %s) — the project is paused: %s",
		    who, e->error, *e->source ? e->source : "hook", desc);
		break;
	case APIPAUSE_SAME:
		break;
	}
	if (memcmp(&old, &p, sizeof(p)) != 0 &&
	    apistop_write(a, project, &p) == -1)
		goto out;
	r = alive == 1 ? 1 : 0;
out:
	lock_release(fd);
	free(rec);
	free(path);
	return r;
}

/*
 * Whether another live session of the factory completed a turn (its Stop
 * hook's idle mark) after at: 1, else 0 (also when none can be listed).
 */
static int
apistop_other_done(const char *session, time_t at)
{
	char **names, *idle;
	size_t i, n;
	time_t t;
	int done = 0;

	if (agent_list("", &names, &n) == -1)
		return 0;
	for (i = 0; i < n && !done; i++) {
		if (strcmp(names[i], session) == 0)
			continue;
		idle = runfiles_idle_marker(names[i]);
		done = file_mtime(idle, &t) == 0 && t > at;
		free(idle);
	}
	agent_list_free(names, n);
	return done;
}

/*
 * The evidence that the error e of session is the issue's, in words, or
 * NULL when there is none: the API served another session since, or the
 * session was resumed from this same error (within a day) and met it
 * again.
 */
static const char *
apistop_evidence(const char *session, const struct apierr *e, time_t now)
{
	char *path;
	struct apierr was;
	int r;

	if (apistop_other_done(session, e->at))
		return "another session completed a turn since";
	path = runfiles_api_resumed(session);
	r = apierr_read(path, &was);
	free(path);
	if (r == 1 && strcmp(was.error, e->error) == 0 && was.at > 0 &&
	    e->at >= was.at && now - was.at <= APISTOP_FORGET_S)
		return "the same error again after it was resumed";
	return NULL;
}

/*
 * A pause that e began and that no session was resumed from yet ends:
 * its error was the issue's.  0 or -1.
 */
static int
apistop_unpause(struct act *a, const char *project, const struct apierr *e)
{
	char *path = runfiles_api_pause(project);
	struct apipause p;
	int fd = -1, r = -1;

	if (apistop_lock(project, &fd) == -1 || apipause_read(path, &p) == -1)
		goto out;
	r = 0;
	if (p.since == 0 || p.resumed != 0 || p.since < e->at ||
	    strcmp(p.reason, e->error) != 0)
		goto out;
	log_msg("the pause (%s) ends: its error was the issue's", p.reason);
	r = act_remove(a, path);
out:
	lock_release(fd);
	free(path);
	return r;
}

/*
 * The error e was the issue's, by the evidence why: the session fails as
 * its hook fails it for an error of the issue's own work.  2, or -1.
 */
static int
apistop_issue(struct act *a, const char *project, const char *session,
    const char *phase_path, const char *who, const struct apierr *e,
    const char *why)
{
	char *rec = runfiles_api_error(session), *reason;
	int r = -1;

	log_warn("%s: stopped by an API error (%s, from its %s) that is the "
		 "issue's: %s — it fails, the project is not paused",
	    who, e->error, *e->source ? e->source : "hook", why);
	reason = xasprintf("api_error: %s, the issue's: %s", e->error, why);
	if (act_phase(a, phase_path, PHASE_FAILED, reason, NULL) == -1 ||
	    apistop_unpause(a, project, e) == -1 || act_remove(a, rec) == -1)
		goto out;
	r = 2;
out:
	free(reason);
	free(rec);
	return r;
}

int
apistop_session(struct act *a, const char *project, const char *session,
    const char *phase_path, int alive, const char *who, time_t now)
{
	char *rec = runfiles_api_error(session);
	const char *why;
	struct apierr e;
	int r;

	if ((r = apierr_read(rec, &e)) == -1)
		log_warn("cannot read '%s': %s", rec, strerror(errno));
	free(rec);
	if (r != 1)
		return r;
	if (e.at == 0)
		e.at = now;
	if (phase_path != NULL &&
	    api_error_class(e.error) == API_ERROR_EITHER &&
	    (why = apistop_evidence(session, &e, now)) != NULL)
		return apistop_issue(a, project, session, phase_path, who, &e,
		    why);
	return apistop_fold(a, project, session, alive, who, &e, now);
}

int
apistop_record(struct act *a, const char *session, const struct apierr *e)
{
	char *rec = runfiles_api_error(session), *text = apierr_text(e);
	int r = act_write(a, rec, text, 0);

	free(text);
	free(rec);
	return r;
}

/*
 * Whether a session of the project completed a turn (its Stop hook's
 * idle mark) at or after since: 1, else 0 (also when they cannot be
 * listed).
 */
static int
apistop_turn_done(const char *project, time_t since)
{
	char *prefixes[2], **names, *idle;
	size_t i, j, n;
	time_t t;
	int done = 0;

	prefixes[0] = runfiles_dev_session_prefix(project);
	prefixes[1] = runfiles_review_session_prefix(project);
	for (i = 0; i < 2 && !done; i++) {
		if (agent_list(prefixes[i], &names, &n) == -1)
			continue;
		for (j = 0; j < n && !done; j++) {
			idle = runfiles_idle_marker(names[j]);
			done = file_mtime(idle, &t) == 0 && t >= since;
			free(idle);
		}
		agent_list_free(names, n);
	}
	free(prefixes[0]);
	free(prefixes[1]);
	return done;
}

/*
 * The pause's wait is over: marked resumed (the sessions it stopped are
 * told on their reactions), or, resumed before, ended by a completed
 * turn or by a day without a recurrence.  0 or -1.
 */
static int
apistop_over(struct act *a, const char *project, time_t now)
{
	char *path = runfiles_api_pause(project);
	struct apipause p;
	int fd = -1, r = -1;

	if (apistop_lock(project, &fd) == -1 || apipause_read(path, &p) == -1)
		goto out;
	r = 0;
	if (p.since == 0 || apipause_active(&p, now))
		goto out;
	if (p.resumed == 0) {
		p.resumed = now;
		r = apistop_write(a, project, &p);
	} else if (apistop_turn_done(project, p.resumed) ||
	    now - p.resumed > APISTOP_FORGET_S) {
		log_msg("the API error (%s) is over: %s — the pause ends",
		    p.reason,
		    now - p.resumed > APISTOP_FORGET_S ?
			"no recurrence for a day" :
			"a turn completed since the resume");
		r = act_remove(a, path);
	}
out:
	lock_release(fd);
	free(path);
	return r;
}

int
apistop_paused(struct act *a, const char *project, time_t now,
    struct apipause *out)
{
	char *path = runfiles_api_pause(project), desc[256];
	struct apipause p;
	int r = 0;

	if (apipause_read(path, &p) == -1) {
		log_warn("cannot read '%s': %s — nothing is started", path,
		    strerror(errno));
		r = -1;
	} else if (apipause_active(&p, now)) {
		apipause_describe(&p, desc, sizeof(desc));
		log_msg("paused: %s", desc);
		r = 1;
	} else if (p.since != 0)
		(void)apistop_over(a, project, now);
	if (out != NULL)
		*out = p;
	free(path);
	return r;
}
