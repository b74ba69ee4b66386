/*
 * A project paused by an API error, as a tick keeps it (apistop.h).  The
 * pause's record is read, changed and written under its lock: the ticks
 * of dev-poll and review-poll both write it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act.h"
#include "agent.h"
#include "agent_exec.h"
#include "api_error.h"
#include "apipause.h"
#include "apistop.h"
#include "config.h"
#include "file.h"
#include "http.h"
#include "lock.h"
#include "log.h"
#include "phase.h"
#include "runfiles.h"
#include "spawn.h"
#include "strv.h"
#include "wakecmd.h"
#include "xmalloc.h"

/* The longest wait for the pause's lock (seconds). */
#define APISTOP_LOCK_S 10
/* A pause over this long without a recurrence is forgotten. */
#define APISTOP_FORGET_S (24 * 60 * 60)
/* The probe's timeouts (milliseconds), its model when none is set. */
#define APISTOP_PROBE_CONNECT_MS 5000L
#define APISTOP_PROBE_TIMEOUT_MS 15000L
#define APISTOP_PROBE_MODEL "claude-haiku-4-5"

/* What one request to the model API said (apistop_probe()). */
struct apistop_probe {
	int done;	       /* it was made (or found impossible) */
	long status;	       /* 0: no answer, or not made */
	long long retry_after; /* seconds, -1: none */
	time_t reset;	       /* the latest rate-limit reset, 0: none */
};

/* The configuration the probe takes its settings from (apistop_use()). */
static const struct config *apistop_cfg;

static int apistop_lock(const char *, int *);
static int apistop_write(struct act *, const char *, const struct apipause *);
static int apistop_note_resumed(struct act *, const char *,
    const struct apierr *);
static int apistop_resume(struct act *, const char *, const char *,
    const struct apierr *, const char *, struct apipause *, time_t);
static int apistop_fold(struct act *, const char *, const char *, int,
    const char *, const struct apierr *, const struct apistop_probe *, time_t);
static int apistop_probe_wanted(const char *, const struct apierr *);
static void apistop_probe(const char *, struct apistop_probe *);
static void apistop_probe_fold(struct apipause *, const struct apistop_probe *,
    time_t);
static int apistop_turn_done(const char *, time_t);
static int apistop_other_done(const char *, time_t);
static const char *apistop_evidence(const char *, const struct apierr *,
    time_t);
static int apistop_unpause(struct act *, const char *, const struct apierr *);
static int apistop_issue(struct act *, const char *, const char *, const char *,
    const char *, const struct apierr *, const char *);
static int apistop_over(struct act *, const char *, time_t);
static void apistop_wake_at(const struct act *, const char *,
    const struct apipause *, time_t);

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

void
apistop_use(const struct config *cfg)
{
	apistop_cfg = cfg;
}

/*
 * Whether e calls for a probe: a rate limit, an overload or an error of
 * either's, the probe on, and the pause not probed since e.  1 or 0.
 */
static int
apistop_probe_wanted(const char *project, const struct apierr *e)
{
	char *path;
	struct apipause p;
	int r;

	if (apistop_cfg == NULL || !apistop_cfg->agent_api_probe ||
	    (strcmp(e->error, "rate_limit") != 0 &&
		strcmp(e->error, "overloaded") != 0 &&
		api_error_class(e->error) != API_ERROR_EITHER))
		return 0;
	path = runfiles_api_pause(project);
	r = apipause_read(path, &p);
	free(path);
	return r == 0 && !(p.since != 0 && p.probed >= e->at);
}

/*
 * One small request to the model API with the agent's API key (never
 * logged): its status, retry-after and rate-limit reset into *out.
 * Without an API key (an OAuth login) none is made.
 */
static void
apistop_probe(const char *who, struct apistop_probe *out)
{
	const char *key, *base, *model, *hdrs[4];
	char *url, *body, *auth, err[512];
	struct http_response resp;
	struct http_extra x;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->done = 1;
	out->retry_after = -1;
	if ((key = config_agent_var(apistop_cfg, "ANTHROPIC_API_KEY")) ==
	    NULL) {
		log_msg("%s: no ANTHROPIC_API_KEY (an OAuth login?) — the API "
			"is not probed",
		    who);
		return;
	}
	if ((base = config_agent_var(apistop_cfg, "ANTHROPIC_BASE_URL")) ==
	    NULL)
		base = "https://api.anthropic.com";
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	model = apistop_cfg->claude_model;
	if (model == NULL || strncmp(model, "claude-", 7) != 0 ||
	    strpbrk(model, "\"\\") != NULL)
		model = APISTOP_PROBE_MODEL;
	url = xasprintf("%.*s/v1/messages", (int)n, base);
	body = xasprintf("{\"model\":\"%s\",\"max_tokens\":1,\"messages\":"
			 "[{\"role\":\"user\",\"content\":\"ping\"}]}",
	    model);
	auth = xasprintf("x-api-key: %s", key);
	hdrs[0] = auth;
	hdrs[1] = "anthropic-version: 2023-06-01";
	hdrs[2] = NULL;
	memset(&x, 0, sizeof(x));
	x.headers = hdrs;
	x.connect_timeout_ms = APISTOP_PROBE_CONNECT_MS;
	x.timeout_ms = APISTOP_PROBE_TIMEOUT_MS;
	x.max_body = 64 * 1024;
	if (http_request_with(&x, "POST", url, body, &resp, err, sizeof(err)) ==
	    -1)
		log_warn("%s: the API probe failed: %s", who, err);
	else {
		out->status = resp.status;
		out->retry_after = resp.retry_after;
		out->reset = resp.reset_at;
		log_msg("%s: the API probe answered %ld (retry-after %lld)",
		    who, resp.status, resp.retry_after);
	}
	http_response_free(&resp);
	explicit_bzero(auth, strlen(auth));
	free(auth);
	free(body);
	free(url);
}

/*
 * The probe's word on the pause p at now: recorded; its retry-after or
 * reset holds the pause at least that long (at most APIPAUSE_MAX_S); a
 * success ends it on the next tick.
 */
static void
apistop_probe_fold(struct apipause *p, const struct apistop_probe *pr,
    time_t now)
{
	time_t t;

	if (pr == NULL || !pr->done)
		return;
	p->probed = now;
	p->probe = pr->status;
	p->retry_after = pr->retry_after;
	if (pr->status >= 200 && pr->status < 300) {
		p->until = now;
		return;
	}
	t = pr->retry_after >= 0 ? now + (time_t)pr->retry_after : 0;
	if (pr->reset > t)
		t = pr->reset;
	if (t > now + APIPAUSE_MAX_S)
		t = now + APIPAUSE_MAX_S;
	if (t > p->until)
		p->until = t;
}

/* Fold e into the pause under its lock; resume the session when over. */
static int
apistop_fold(struct act *a, const char *project, const char *session, int alive,
    const char *who, const struct apierr *e, const struct apistop_probe *pr,
    time_t now)
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
	apistop_probe_fold(&p, pr, now);
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
	struct apistop_probe pr;
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
	memset(&pr, 0, sizeof(pr));
	if (!a->dry_run && apistop_probe_wanted(project, &e))
		apistop_probe(who, &pr);
	if (phase_path != NULL &&
	    api_error_class(e.error) == API_ERROR_EITHER && pr.status >= 200 &&
	    pr.status < 300)
		return apistop_issue(a, project, session, phase_path, who, &e,
		    "a request to the API succeeded after it");
	if (pr.done && pr.status >= 200 && pr.status < 300)
		log_msg("%s: a request to the API succeeded after its error "
			"(%s) — the pause ends on the next tick",
		    who, e.error);
	return apistop_fold(a, project, session, alive, who, &e, &pr, now);
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

/*
 * The pause's end is an event no hook or webhook sees: a process of this
 * tool's sleeps until p's UNTIL and then wakes it (wakecmd.h), one per
 * tool and project (it holds runfiles_pause_wake_lock() while it sleeps:
 * a pause made longer meanwhile is found by the tick it wakes, which
 * arranges the next).  With DISINTO_WAKE, not in a dry run.
 */
static void
apistop_wake_at(const struct act *a, const char *project,
    const struct apipause *p, time_t now)
{
	static const char script[] = "sleep \"$1\"; shift; exec \"$@\"";
	char exe[PATH_MAX], secs[24], **wake = NULL, *argv[16];
	const char *prog, *toml;
	char *lock = NULL;
	int fd = -1, keep[2] = {-1, -1};
	struct spawn_detached_opts o = {.keep_fds = keep};
	size_t i;

	if (apistop_cfg == NULL || !apistop_cfg->wake || a->dry_run ||
	    p->until <= now || agent_exec_self(exe, sizeof(exe)) == -1)
		return;
	prog = (prog = strrchr(exe, '/')) != NULL ? prog + 1 : exe;
	lock = runfiles_pause_wake_lock(prog, project);
	if (lock_take(lock, &fd) != 0)
		goto out; /* one sleeps already, or the lock cannot be had */
	toml =
	    apistop_cfg->project_toml != NULL ? apistop_cfg->project_toml : "";
	wake = wakecmd_argv(exe, apistop_cfg->run_dir, toml, "api pause over");
	snprintf(secs, sizeof(secs), "%lld", (long long)(p->until - now + 1));
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)script;
	argv[3] = "sh";
	argv[4] = secs;
	for (i = 0; wake[i] != NULL && i + 6 < sizeof(argv) / sizeof(argv[0]);
	     i++)
		argv[5 + i] = wake[i];
	argv[5 + i] = NULL;
	keep[0] = fd;
	if (spawn_detached_ex(argv, &o, NULL) == -1)
		log_warn("cannot arrange the wake at the pause's end: %s — the "
			 "schedule's tick ends it",
		    strerror(errno));
	else
		log_msg("paused: %s is woken at the pause's end, in %s s", prog,
		    secs);
out:
	if (fd != -1)
		(void)close(fd); /* the sleeper holds the lock now */
	strv_free(wake);
	free(lock);
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
		apistop_wake_at(a, project, &p, now);
		r = 1;
	} else if (p.since != 0)
		(void)apistop_over(a, project, now);
	if (out != NULL)
		*out = p;
	free(path);
	return r;
}
