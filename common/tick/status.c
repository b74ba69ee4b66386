/*
 * The status report of `--status`: gathered from the run files, the
 * state files and the logs of each project, rendered as text or JSON.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "apipause.h"
#include "backoff.h"
#include "buf.h"
#include "ciwatch.h"
#include "config.h"
#include "file.h"
#include "json.h"
#include "log.h"
#include "phase.h"
#include "record.h"
#include "runfiles.h"
#include "status.h"
#include "statusforge.h"
#include "termsafe.h"
#include "valid.h"
#include "xmalloc.h"

/* The end of a log read for its last line, and a line's longest form. */
#define STATUS_TAIL 8192
#define STATUS_LINE_MAX 1024
/* The CI-fix tracker and the failure records, read whole up to this. */
#define STATUS_FILE_MAX (1024 * 1024)

/* A dev or review session, from its phase file and the session list. */
struct status_session {
	const char *kind; /* "dev" or "review" */
	long long number; /* the issue, or the PR */
	char *name;	  /* the session name */
	char *phase;	  /* the phase line ("" none yet), NULL: no file */
	char *reason;	  /* "" when none */
	time_t since;	  /* when the phase file was written */
	int alive;	  /* 1, 0, or -1 when not known */
	int has_progress; /* the agent's own report, when it gives one */
	struct agent_progress progress;
	long queued;	/* messages in its mailbox (agent_queued()), or -1 */
	enum phase ph;	/* the phase read, PHASE_NONE: no file */
	long long pr;	/* its PR, 0 when none is known */
	char *ci;	/* the CI state of the PR's head, or NULL */
	char *ci_sha;	/* that head (printable, short), or NULL */
	int pr_fresh;	/* the PR and CI were read from the forge now */
	char *pr_state; /* from the forge: "open", "closed", "merged" */
	char *pr_error; /* why the forge could not say, or NULL */
	char *stopped;	/* why its agent is stopped, or NULL */
	/* Its CI watcher's PID, -1 while it starts, 0 none (ciwatch.h). */
	long long watch;
};

/* What keeps the backlog from moving, and the next ready issue. */
struct status_backlog {
	const struct status_session *slot; /* the session in the slot */
	int read;	   /* the forge was asked (--forge) and answered */
	char *error;	   /* why it could not be read, or NULL */
	long long ready;   /* the next ready issue, 0 when none */
	char *ready_title; /* its title (printable), or NULL */
	long long waiting; /* else the first issue waiting, 0 when none */
	long long dep;	   /* for the dependency */
	char *dep_state;   /* "open", or what the forge said */
	size_t nissues;	   /* backlog issues read */
};

/* The last tick of a tool: its metrics file. */
struct status_tick {
	time_t at;	/* when it was written, 0 when it is missing */
	long long exit; /* disinto_tick_exit_code, -1 when not there */
};

/* An issue whose launch is backed off (backoff.h). */
struct status_backoff {
	long long issue;
	struct backoff b;
};

/* A PR's CI-fix count. */
struct status_cifix {
	long long pr;
	long long attempts;
};

/* A session waiting in PHASE:escalate. */
struct status_escalation {
	long long issue;
	time_t since;
	char *reason;
	int notified; /* the notice is on the issue */
	int reminded; /* the 6-hour reminder was sent */
	int answered; /* a reply was typed into the session */
	int parked;   /* its agent ended until a reply resumes it */
};

/* The last line of supervisor/escalations-P.jsonl, and the count. */
struct status_failures {
	long long count;
	char *ts;
	long long issue;
	long long pr;
	char *reason;
};

struct status_project {
	char *name;
	char *repo;
	char *file;  /* the project file, or NULL */
	char *error; /* what could not be read, or NULL */
	struct status_session *sessions;
	size_t nsessions;
	struct status_cifix *cifix;
	size_t ncifix;
	struct status_backoff *backoffs;
	size_t nbackoffs;
	struct status_escalation *esc;
	size_t nesc;
	struct status_failures failures;
	char **lines; /* of the per-project files (NULL: none read) */
	struct status_tick *ticks; /* of the same files, for the ticks */
	struct apipause pause;	   /* the API pause (apipause.h), or all 0 */
	struct status_backlog backlog;
	long long stale; /* a status line's "#N: session running" while N
			    has no session, else 0 */
	char *socket;	 /* the sessions' tmux server (-L), or NULL: none */
};

struct status {
	time_t now;
	int listed; /* the live sessions were listed */
	char **live;
	size_t nlive;
	struct status_project *projects;
	size_t nprojects;
	const struct status_file *files; /* the tools' lines to show */
	size_t nfiles;
	char **lines; /* of the factory's files, NULL for a project's */
	struct status_tick *ticks;
	int forge; /* a fresh read of the forge (--forge) */
};

static char *status_clean(const char *, size_t);
static char *status_session_stopped(const struct status *,
    const struct status_session *);
static void status_progress(struct status_project *);
static void status_text_progress(const struct status *,
    const struct status_session *, struct buf *);
static cJSON *status_json_progress(const struct status *,
    const struct status_session *);
static char *status_first_line(const char *);
static char *status_last_line(const char *);
static char **status_lines(const struct status *, const char *);
static void status_lines_free(const struct status *, char **);
static void status_text_lines(const struct status *, char *const *,
    const struct status_tick *, int, struct buf *);
static const char *status_esc_waits(const struct status_escalation *);
static const char *status_phase_word(const char *);
static void status_json_lines(const struct status *, char *const *,
    const struct status_tick *, int, cJSON *);
static int status_is_live(const struct status *, const char *);
static struct status_session *status_session_add(struct status_project *,
    const char *, long long, const char *);
static void status_session_read(const struct status *, struct status_session *,
    const char *);
static int status_dev_sessions(const struct status *, struct status_project *,
    const char *);
static int status_review_sessions(const struct status *,
    struct status_project *, const char *);
static void status_live_sessions(const struct status *, struct status_project *,
    const char *);
static int status_session_cmp(const void *, const void *);
static void status_escalations(struct status_project *, const char *);
static int status_cifix_cmp(const void *, const void *);
static void status_cifix_read(struct status_project *, const char *);
static int status_backoff_cmp(const void *, const void *);
static void status_backoffs_read(struct status_project *, const char *);
static void status_text_backoffs(const struct status *,
    const struct status_project *, struct buf *);
static cJSON *status_json_backoffs(const struct status_project *);
static void status_failures_read(struct status_project *, const char *);
static void status_project_free(const struct status *, struct status_project *);
static void status_text_sessions(const struct status *,
    const struct status_project *, struct buf *);
static void status_text_rest(const struct status *,
    const struct status_project *, struct buf *);
static void status_text_pause(const struct status *,
    const struct status_project *, struct buf *);
static cJSON *status_json_pause(const struct status *,
    const struct status_project *);
static void status_text_project(const struct status *,
    const struct status_project *, struct buf *);
static void status_json_time(cJSON *, const struct status *, time_t);
static cJSON *status_json_session(const struct status *,
    const struct status_session *);
static cJSON *status_json_escalation(const struct status *,
    const struct status_escalation *);
static cJSON *status_json_failures(const struct status_failures *);
static cJSON *status_json_project(const struct status *,
    const struct status_project *);
static void status_json_str(cJSON *, const char *, const char *);
static struct status_tick *status_ticks(const struct status *, const char *);
static void status_tick_read(const char *, struct status_tick *);
static void status_session_pr(struct status_session *, const char *);
static void status_session_watch(struct status_session *, const char *);
static int status_sessions_forge(struct status_project *, struct statusforge *);
static void status_backlog_forge(struct status_project *, struct statusforge *);
static void status_forge(const struct status *, struct status_project *,
    const struct config *);
static void status_slot(struct status_project *);
static void status_stale(const struct status *, struct status_project *);
static void status_text_session(const struct status *,
    const struct status_session *, struct buf *);
static void status_text_backlog(const struct status *,
    const struct status_project *, struct buf *);
static cJSON *status_json_backlog(const struct status *,
    const struct status_project *);
static void status_text_tick(const struct status *, const struct status_tick *,
    struct buf *);
static cJSON *status_json_tick(const struct status *,
    const struct status_tick *);

struct status *
status_new(time_t now, int list_sessions, const struct status_file *files)
{
	struct status *st = xcalloc(1, sizeof(*st));

	st->now = now;
	st->files = files;
	while (files != NULL && files[st->nfiles].label != NULL)
		st->nfiles++;
	if (list_sessions && agent_list("", &st->live, &st->nlive) == 0)
		st->listed = 1;
	st->lines = status_lines(st, NULL);
	st->ticks = status_ticks(st, NULL);
	return st;
}

void
status_use_forge(struct status *st)
{
	st->forge = 1;
}

/*
 * The lines of the per-project files for project, or of the factory's
 * for NULL (one per file of the table, NULL where it is not one of those
 * or cannot be read).  Free with status_lines_free().
 */
static char **
status_lines(const struct status *st, const char *project)
{
	const struct status_file *f;
	char **lines = xcalloc(st->nfiles + 1, sizeof(*lines)), *path;
	size_t i;

	for (i = 0; i < st->nfiles; i++) {
		f = &st->files[i];
		if (f->per_project != (project != NULL))
			continue;
		if (f->tick)
			continue;
		path = f->path(project);
		lines[i] =
		    f->log ? status_last_line(path) : status_first_line(path);
		free(path);
	}
	return lines;
}

/*
 * The last ticks of the metrics files of the table, for project or the
 * factory's (NULL), as status_lines().  Caller frees.
 */
static struct status_tick *
status_ticks(const struct status *st, const char *project)
{
	struct status_tick *t = xcalloc(st->nfiles + 1, sizeof(*t));
	const struct status_file *f;
	char *path;
	size_t i;

	for (i = 0; i < st->nfiles; i++) {
		f = &st->files[i];
		t[i].exit = -1;
		if (!f->tick || f->per_project != (project != NULL))
			continue;
		if ((path = f->path(project)) != NULL)
			status_tick_read(path, &t[i]);
		free(path);
	}
	return t;
}

/* The time of the metrics file at path and its tick's exit code. */
static void
status_tick_read(const char *path, struct status_tick *t)
{
	static const char key[] = "disinto_tick_exit_code";
	const char *line, *end, *value;
	struct stat sb;
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, STATUS_FILE_MAX, &b) == -1 || stat(path, &sb) != 0)
		goto out;
	t->at = sb.st_mtime;
	/* "disinto_tick_exit_code{labels} 0": the value after the blank. */
	for (line = buf_str(&b); *line != '\0'; line = end + (*end != '\0')) {
		end = line + strcspn(line, "\n");
		if (strncmp(line, key, sizeof(key) - 1) != 0 ||
		    strchr("{ ", line[sizeof(key) - 1]) == NULL)
			continue;
		for (value = end; value > line && value[-1] != ' '; value--)
			;
		if (value > line)
			t->exit = strtoll(value, NULL, 10);
		break;
	}
out:
	buf_free(&b);
}

static void
status_lines_free(const struct status *st, char **lines)
{
	size_t i;

	for (i = 0; lines != NULL && i < st->nfiles; i++)
		free(lines[i]);
	free(lines);
}

static void
status_project_free(const struct status *st, struct status_project *p)
{
	size_t i;

	for (i = 0; i < p->nsessions; i++) {
		free(p->sessions[i].name);
		free(p->sessions[i].phase);
		free(p->sessions[i].reason);
		free(p->sessions[i].ci);
		free(p->sessions[i].ci_sha);
		free(p->sessions[i].pr_state);
		free(p->sessions[i].pr_error);
		free(p->sessions[i].stopped);
	}
	free(p->backlog.error);
	free(p->backlog.ready_title);
	free(p->backlog.dep_state);
	free(p->ticks);
	for (i = 0; i < p->nesc; i++)
		free(p->esc[i].reason);
	free(p->sessions);
	free(p->socket);
	free(p->cifix);
	free(p->backoffs);
	free(p->esc);
	free(p->failures.ts);
	free(p->failures.reason);
	free(p->name);
	free(p->repo);
	free(p->file);
	free(p->error);
	status_lines_free(st, p->lines);
}

void
status_free(struct status *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->nprojects; i++)
		status_project_free(st, &st->projects[i]);
	free(st->projects);
	if (st->listed)
		agent_list_free(st->live, st->nlive);
	status_lines_free(st, st->lines);
	free(st->ticks);
	free(st);
}

void
status_age(long long s, char *out, size_t outsz)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, outsz, "%llds", s);
	else if (s < 3600)
		snprintf(out, outsz, "%lldm", s / 60);
	else if (s < 86400)
		snprintf(out, outsz, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	else
		snprintf(out, outsz, "%lldd%02lldh", s / 86400,
		    s % 86400 / 3600);
}

/* len bytes of file text as one printable line.  Caller frees. */
static char *
status_clean(const char *text, size_t len)
{
	struct buf b;

	buf_init(&b, 0);
	termsafe_line(text, len, STATUS_LINE_MAX, &b);
	return buf_steal(&b);
}

/* The first line of the file at path, printable, or NULL. */
static char *
status_first_line(const char *path)
{
	struct buf b;
	char *line = NULL;

	buf_init(&b, 0);
	if (file_read(path, STATUS_LINE_MAX, &b) != -1 && b.len > 0)
		line = status_clean(buf_str(&b), strcspn(buf_str(&b), "\n"));
	buf_free(&b);
	return line;
}

/* The last non-empty line of the file at path, printable, or NULL. */
static char *
status_last_line(const char *path)
{
	char tail[STATUS_TAIL + 1], *line = NULL, *start;
	struct stat sb;
	ssize_t n;
	off_t at;
	int fd;

	if ((fd = file_open_read(path)) == -1)
		return NULL;
	if (fstat(fd, &sb) == 0) {
		at = sb.st_size > STATUS_TAIL ? sb.st_size - STATUS_TAIL : 0;
		if ((n = pread(fd, tail, STATUS_TAIL, at)) > 0) {
			tail[n] = '\0';
			while (n > 0 &&
			    (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
				tail[--n] = '\0';
			start = strrchr(tail, '\n');
			start = start != NULL ? start + 1 : tail;
			if (*start != '\0')
				line = status_clean(start, strlen(start));
		}
	}
	close(fd);
	return line;
}

static int
status_is_live(const struct status *st, const char *name)
{
	size_t i;

	for (i = 0; st->listed && i < st->nlive; i++)
		if (strcmp(st->live[i], name) == 0)
			return 1;
	return 0;
}

/* A session of the project, or the one already there of that name. */
static struct status_session *
status_session_add(struct status_project *p, const char *kind, long long number,
    const char *name)
{
	struct status_session *s;
	size_t i;

	for (i = 0; i < p->nsessions; i++)
		if (strcmp(p->sessions[i].name, name) == 0)
			return &p->sessions[i];
	p->sessions =
	    xreallocarray(p->sessions, p->nsessions + 1, sizeof(*p->sessions));
	s = &p->sessions[p->nsessions++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->number = number;
	s->name = xstrdup(name);
	s->reason = xstrdup("");
	s->queued = agent_queued(name);
	return s;
}

/*
 * Why the session's agent is stopped, when it is: an API error stopped
 * it (its record, apipause.h; the project's pause resumes it), or its
 * turn ended at the prompt with no phase written (the Stop hook's idle
 * mark: dev-poll ends such a session after IDLE_GRACE).  NULL when
 * neither (an agent waiting in a phase is not stopped).  Caller frees.
 */
static char *
status_session_stopped(const struct status *st, const struct status_session *s)
{
	const char *name = s->name;
	char *path = runfiles_api_error(name), *why = NULL, age[16];
	struct apierr e;
	struct buf b;
	time_t at = 0;

	if (apierr_read(path, &e) == 1 && e.error[0] != '\0') {
		if (e.at > 0)
			status_age((long long)(st->now - e.at), age,
			    sizeof(age));
		why = xasprintf("API error %s%s%s%s (the project's pause "
				"resumes it)",
		    e.error, e.at > 0 ? ", " : "", e.at > 0 ? age : "",
		    e.at > 0 ? " ago" : "");
		goto out;
	}
	free(path);
	path = runfiles_idle_marker(name);
	if (s->ph != PHASE_NONE)
		goto out;
	buf_init(&b, 0);
	if (file_read(path, 64, &b) != -1) {
		at = (time_t)strtoll(buf_str(&b), NULL, 10);
		if (at <= 0 && file_mtime(path, &at) == -1)
			at = 0;
		if (at > 0) {
			status_age((long long)(st->now - at), age, sizeof(age));
			why = xasprintf("idle at its prompt with no phase "
					"for %s",
			    age);
		} else
			why = xstrdup("idle at its prompt with no phase");
	}
	buf_free(&b);
out:
	free(path);
	return why;
}

/* The session's signal from the phase file at path. */
static void
status_session_read(const struct status *st, struct status_session *s,
    const char *path)
{
	struct phase_info sig;

	s->alive = st->listed ? status_is_live(st, s->name) : -1;
	if (agent_read_signal(s->name, path, &sig) == -1 || sig.mtime == 0)
		goto out;
	free(s->phase);
	free(s->reason);
	s->phase = status_clean(sig.raw, strlen(sig.raw));
	s->reason = status_clean(sig.reason, strlen(sig.reason));
	s->since = sig.mtime;
	s->ph = sig.phase;
out:
	free(s->stopped);
	s->stopped = status_session_stopped(st, s);
}

/* Whether a CI watcher runs for the dev session (ciwatch.h). */
static void
status_session_watch(struct status_session *s, const char *proj)
{
	struct ciwatch w;

	if (ciwatch_find(proj, s->number, &w) == 1)
		s->watch = w.pid > 0 ? w.pid : -1;
}

/*
 * What the run files remember of the session's PR: a dev session's in
 * dev-state-P-N, and the CI state recorded for its head; a review
 * session's is its number, and the head it reviews.
 */
static void
status_session_pr(struct status_session *s, const char *proj)
{
	char *path, value[PHASE_SHA_MAX];
	struct buf b;

	buf_init(&b, 0);
	if (strcmp(s->kind, "review") == 0) {
		s->pr = s->number;
		path = runfiles_review_request(proj, s->number);
	} else {
		path = runfiles_dev_state(proj, s->number);
		if (record_load(path, &b) == 0 &&
		    (record_get_ll(buf_str(&b), "PR:", &s->pr) == -1 ||
			s->pr < 0))
			s->pr = 0;
		free(path);
		status_session_watch(s, proj);
		path = runfiles_ci_result(proj, s->number);
		buf_reset(&b);
		if (record_load(path, &b) == 0 &&
		    record_get(buf_str(&b), "STATE:", value, sizeof(value)) ==
			0)
			s->ci = status_clean(value, strlen(value));
	}
	if (b.len == 0 && record_load(path, &b) == -1)
		buf_reset(&b);
	if (record_get(buf_str(&b), "SHA:", value, sizeof(value)) == 0)
		s->ci_sha =
		    status_clean(value, strlen(value) < 8 ? strlen(value) : 8);
	buf_free(&b);
	free(path);
}

/* The dev sessions of the phase files: 0, or -1 (not listed). */
static int
status_dev_sessions(const struct status *st, struct status_project *p,
    const char *proj)
{
	struct status_session *s;
	long long *nums;
	size_t i, n;
	char *name, *path;

	if (runfiles_phase_issues(proj, &nums, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		name = runfiles_dev_session(proj, nums[i]);
		path = runfiles_phase(proj, nums[i]);
		s = status_session_add(p, "dev", nums[i], name);
		status_session_read(st, s, path);
		free(path);
		free(name);
	}
	free(nums);
	return 0;
}

/* The review sessions of the phase files: 0, or -1 (not listed). */
static int
status_review_sessions(const struct status *st, struct status_project *p,
    const char *proj)
{
	struct status_session *s;
	long long *nums;
	size_t i, n;
	char *name, *path;

	if (runfiles_review_phase_prs(proj, &nums, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		name = runfiles_review_session(proj, nums[i]);
		path = runfiles_review_phase(proj, nums[i]);
		s = status_session_add(p, "review", nums[i], name);
		status_session_read(st, s, path);
		free(path);
		free(name);
	}
	free(nums);
	return 0;
}

/* Live sessions of the project that have no phase file. */
static void
status_live_sessions(const struct status *st, struct status_project *p,
    const char *proj)
{
	struct status_session *s;
	long long n;
	size_t i;

	for (i = 0; st->listed && i < st->nlive; i++) {
		if ((n = runfiles_dev_session_issue(proj, st->live[i])) >= 0)
			s = status_session_add(p, "dev", n, st->live[i]);
		else if ((n = runfiles_review_session_pr(proj, st->live[i])) >=
		    0)
			s = status_session_add(p, "review", n, st->live[i]);
		else
			continue;
		s->alive = 1;
		if (s->stopped == NULL)
			s->stopped = status_session_stopped(st, s);
	}
}

/* What the agents of the sessions report of their progress. */
static void
status_progress(struct status_project *p)
{
	size_t i;

	for (i = 0; i < p->nsessions; i++)
		p->sessions[i].has_progress =
		    agent_progress(p->sessions[i].name,
			&p->sessions[i].progress) == 0;
}

/* Dev sessions first, then reviews, each by number. */
static int
status_session_cmp(const void *a, const void *b)
{
	const struct status_session *x = a, *y = b;
	int k = strcmp(x->kind, y->kind);

	if (k != 0)
		return k;
	return x->number < y->number ? -1 : x->number > y->number;
}

/* The escalated sessions and how far their escalation went. */
static void
status_escalations(struct status_project *p, const char *proj)
{
	struct status_escalation *e;
	const struct status_session *s;
	char *path;
	size_t i;

	for (i = 0; i < p->nsessions; i++) {
		s = &p->sessions[i];
		if (strcmp(s->kind, "dev") != 0 || s->phase == NULL ||
		    strcmp(s->phase, phase_name(PHASE_ESCALATE)) != 0)
			continue;
		p->esc = xreallocarray(p->esc, p->nesc + 1, sizeof(*p->esc));
		e = &p->esc[p->nesc++];
		e->issue = s->number;
		e->since = s->since;
		e->reason = xstrdup(s->reason);
		path = runfiles_escalation_notified(proj, s->number);
		e->notified = file_exists(path);
		free(path);
		path = runfiles_renotify(proj, s->number);
		e->reminded = file_exists(path);
		free(path);
		path = runfiles_escalation_injected(proj, s->number);
		e->answered = file_exists(path);
		free(path);
		path = runfiles_escalation_parked(proj, s->number);
		e->parked = file_exists(path);
		free(path);
	}
}

static int
status_cifix_cmp(const void *a, const void *b)
{
	const struct status_cifix *x = a, *y = b;

	return x->pr < y->pr ? -1 : x->pr > y->pr;
}

/* dev/ci-fixes-P.json: { "PR": attempts, ... }. */
static void
status_cifix_read(struct status_project *p, const char *proj)
{
	char *path = runfiles_ci_fixes(proj), err[256];
	const cJSON *item;
	cJSON *d;
	long long pr, n;

	if ((d = json_load_object(path, STATUS_FILE_MAX, err, sizeof(err))) ==
	    NULL) {
		free(p->error);
		p->error = xasprintf("cannot read '%s': %s", path, err);
		free(path);
		return;
	}
	cJSON_ArrayForEach (item, d) {
		if (valid_number_text(item->string, &pr) != NULL ||
		    json_item_int(item, &n) == -1)
			continue;
		p->cifix =
		    xreallocarray(p->cifix, p->ncifix + 1, sizeof(*p->cifix));
		p->cifix[p->ncifix].pr = pr;
		p->cifix[p->ncifix++].attempts = n;
	}
	if (p->ncifix > 1)
		qsort(p->cifix, p->ncifix, sizeof(*p->cifix), status_cifix_cmp);
	cJSON_Delete(d);
	free(path);
}

/* supervisor/escalations-P.jsonl: how many, and the last one. */
static void
status_failures_read(struct status_project *p, const char *proj)
{
	char *path = runfiles_escalations(proj), *line, *next, *last = NULL;
	struct status_failures *f = &p->failures;
	const char *ts, *reason;
	char err[128];
	cJSON *o;
	struct buf b;

	buf_init(&b, 0);
	if (file_read(path, STATUS_FILE_MAX, &b) != -1) {
		for (line = b.data; line != NULL && *line != '\0';
		     line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			if (*line != '\0') {
				f->count++;
				last = line;
			}
		}
	}
	if (last != NULL &&
	    (o = json_parse(last, strlen(last), err, sizeof(err))) != NULL) {
		ts = json_str(o, "ts");
		reason = json_str(o, "reason");
		f->ts = status_clean(ts ? ts : "?", strlen(ts ? ts : "?"));
		f->reason = status_clean(reason ? reason : "",
		    reason ? strlen(reason) : 0);
		(void)json_int(o, "issue", &f->issue);
		(void)json_int(o, "pr", &f->pr);
		cJSON_Delete(o);
	}
	buf_free(&b);
	free(path);
}

static int
status_backoff_cmp(const void *a, const void *b)
{
	const struct status_backoff *x = a, *y = b;

	return (x->issue > y->issue) - (x->issue < y->issue);
}

/* The issues whose launch was backed off, in number order. */
static void
status_backoffs_read(struct status_project *p, const char *proj)
{
	struct status_backoff *s;
	long long *issues;
	size_t i, n;
	char *path;

	if (runfiles_launch_backoff_issues(proj, &issues, &n) == -1)
		return;
	for (i = 0; i < n; i++) {
		p->backoffs = xreallocarray(p->backoffs, p->nbackoffs + 1,
		    sizeof(*p->backoffs));
		s = &p->backoffs[p->nbackoffs];
		s->issue = issues[i];
		path = runfiles_launch_backoff(proj, issues[i]);
		if (backoff_read(path, &s->b) == 0 && s->b.failures > 0)
			p->nbackoffs++;
		free(path);
	}
	free(issues);
	if (p->nbackoffs > 1)
		qsort(p->backoffs, p->nbackoffs, sizeof(*p->backoffs),
		    status_backoff_cmp);
}

/*
 * The dev session that holds the agent slot, as dev-poll sees it (slot.c):
 * a live session, else a phase file in a phase that is not terminal and
 * not a parked escalation (its agent ended: the slot is free).
 */
static void
status_slot(struct status_project *p)
{
	const struct status_session *s;
	char *parked;
	size_t i;
	int free_slot;

	for (i = 0; i < p->nsessions && p->backlog.slot == NULL; i++)
		if (strcmp(p->sessions[i].kind, "dev") == 0 &&
		    p->sessions[i].alive == 1)
			p->backlog.slot = &p->sessions[i];
	for (i = 0; i < p->nsessions && p->backlog.slot == NULL; i++) {
		s = &p->sessions[i];
		if (strcmp(s->kind, "dev") != 0 || s->phase == NULL ||
		    phase_is_terminal(s->ph))
			continue;
		parked = runfiles_escalation_parked(p->name, s->number);
		free_slot = file_exists(parked);
		free(parked);
		if (!free_slot)
			p->backlog.slot = s;
	}
}

/*
 * The dev status line is what the last tick did; when it says a session
 * runs ("#N: session running") and issue N has no session now, it is
 * marked as past.
 */
static void
status_stale(const struct status *st, struct status_project *p)
{
	static const char running[] = ": session running";
	const char *at, *num;
	long long n;
	size_t i, k;

	for (i = 0; i < st->nfiles; i++) {
		if (p->lines[i] == NULL || st->files[i].log ||
		    (at = strstr(p->lines[i], running)) == NULL)
			continue;
		for (num = at;
		     num > p->lines[i] && num[-1] >= '0' && num[-1] <= '9';
		     num--)
			;
		if (num == at || num == p->lines[i] || num[-1] != '#')
			continue;
		n = strtoll(num, NULL, 10);
		for (k = 0; k < p->nsessions; k++)
			if (strcmp(p->sessions[k].kind, "dev") == 0 &&
			    p->sessions[k].number == n)
				break;
		if (k == p->nsessions)
			p->stale = n;
	}
}

/*
 * Each session's PR (and a dev session's found by its branch), fresh; a
 * failed read is said on the session, and unless the forge only did not
 * have that PR, the forge is not asked again.
 */
static int
status_sessions_forge(struct status_project *p, struct statusforge *sf)
{
	struct statusforge_pr pr;
	struct status_session *s;
	size_t i;

	for (i = 0; i < p->nsessions; i++) {
		s = &p->sessions[i];
		if ((s->pr == 0 && strcmp(s->kind, "dev") == 0 &&
			statusforge_issue_pr(sf, s->number, &s->pr) == -1) ||
		    (s->pr != 0 && statusforge_pr(sf, s->pr, &pr) == -1)) {
			s->pr_error = status_clean(statusforge_error(sf),
			    strlen(statusforge_error(sf)));
			/* Only a missing PR lets the next sessions be asked. */
			if (!statusforge_missing(sf))
				break;
			continue;
		}
		if (s->pr == 0) {
			s->pr_fresh = 1;
			continue;
		}
		free(s->ci);
		free(s->ci_sha);
		s->ci = xstrdup(pr.ci);
		s->ci_sha = xstrndup(pr.sha, 8);
		s->pr_state = xstrdup(pr.state);
		s->pr_fresh = 1;
	}
	return i < p->nsessions ? -1 : 0;
}

/* The next ready issue, or what the first one waits for, fresh. */
static void
status_backlog_forge(struct status_project *p, struct statusforge *sf)
{
	struct statusforge_backlog b;
	struct status_backlog *k = &p->backlog;

	if (statusforge_backlog(sf, &b) == -1) {
		k->error = xstrdup(statusforge_error(sf));
		return;
	}
	k->read = 1;
	k->nissues = b.n;
	k->ready = b.ready;
	k->ready_title = xstrdup(b.title);
	k->waiting = b.waiting;
	k->dep = b.dep;
	k->dep_state = xstrdup(b.dep_state);
}

/* With --forge: the sessions' PRs and the backlog as the forge says. */
static void
status_forge(const struct status *st, struct status_project *p,
    const struct config *cfg)
{
	struct statusforge *sf;

	if (!st->forge)
		return;
	sf = statusforge_open(cfg);
	if (status_sessions_forge(p, sf) == 0)
		status_backlog_forge(p, sf);
	else
		p->backlog.error = xstrdup("not asked after that failure");
	statusforge_close(sf);
}

void
status_add_project(struct status *st, const struct config *cfg)
{
	const char *proj = cfg->project_name;
	struct status_project *p;
	char *path;
	size_t i;

	st->projects = xreallocarray(st->projects, st->nprojects + 1,
	    sizeof(*st->projects));
	p = &st->projects[st->nprojects++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(proj);
	p->repo = xstrdup(cfg->forge_repo);
	p->file = cfg->project_toml ? xstrdup(cfg->project_toml) : NULL;
	/* The checkpoint protocol's runs have no tmux session to attach. */
	if (cfg->tmux_socket != NULL &&
	    (cfg->agent_protocol == NULL ||
		strcmp(cfg->agent_protocol, "checkpoint") != 0))
		p->socket = xstrdup(cfg->tmux_socket);
	if (status_dev_sessions(st, p, proj) == -1 ||
	    status_review_sessions(st, p, proj) == -1)
		p->error = xstrdup("cannot list the run directory");
	status_live_sessions(st, p, proj);
	status_progress(p);
	if (p->nsessions > 1)
		qsort(p->sessions, p->nsessions, sizeof(*p->sessions),
		    status_session_cmp);
	for (i = 0; i < p->nsessions; i++)
		status_session_pr(&p->sessions[i], proj);
	status_slot(p);
	status_escalations(p, proj);
	status_cifix_read(p, proj);
	status_backoffs_read(p, proj);
	status_failures_read(p, proj);
	p->lines = status_lines(st, proj);
	p->ticks = status_ticks(st, proj);
	status_stale(st, p);
	path = runfiles_api_pause(proj);
	if (apipause_read(path, &p->pause) == -1)
		memset(&p->pause, 0, sizeof(p->pause));
	free(path);
	status_forge(st, p, cfg);
}

void
status_add_broken(struct status *st, const char *name, const char *file,
    const char *why)
{
	struct status_project *p;

	st->projects = xreallocarray(st->projects, st->nprojects + 1,
	    sizeof(*st->projects));
	p = &st->projects[st->nprojects++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name != NULL ? name : "");
	p->repo = xstrdup("");
	p->file = file != NULL ? xstrdup(file) : NULL;
	p->error = xstrdup(why);
}

/* The sessions table. */
static void
status_text_sessions(const struct status *st, const struct status_project *p,
    struct buf *b)
{
	const struct status_session *s;
	size_t i;

	if (p->nsessions == 0) {
		buf_puts(b, "  sessions:      none\n");
		return;
	}
	buf_puts(b, "  sessions:\n");
	for (i = 0; i < p->nsessions; i++) {
		s = &p->sessions[i];
		status_text_session(st, s, b);
		if (s->has_progress)
			status_text_progress(st, s, b);
	}
	for (i = 0; p->socket != NULL && i < p->nsessions; i++)
		if (p->sessions[i].alive == 1) {
			buf_printf(b,
			    "  attach:        tmux -L %s attach -r -t =%s\n",
			    p->socket, p->sessions[i].name);
			break;
		}
}

/*
 * "name phase age alive  PR #N[ state], CI state at sha[  Reason: ...]"
 */
static void
status_text_session(const struct status *st, const struct status_session *s,
    struct buf *b)
{
	int dev = strcmp(s->kind, "dev") == 0;
	char age[16];

	if (s->since != 0)
		status_age((long long)(st->now - s->since), age, sizeof(age));
	else
		snprintf(age, sizeof(age), "-");
	buf_printf(b, "    %-24s %-24s %6s  %s", s->name,
	    s->phase == NULL	  ? "(no phase file)" :
		*s->phase != '\0' ? s->phase :
				    "(no phase yet)",
	    age,
	    s->alive == 1     ? "alive" :
		s->alive == 0 ? "gone" :
				"?");
	if (s->pr > 0)
		buf_printf(b, "  PR #%lld", s->pr);
	else if (dev)
		buf_puts(b,
		    s->pr_fresh || st->forge ? "  no PR" : "  no PR recorded");
	if (s->pr_state != NULL)
		buf_printf(b, " %s", s->pr_state);
	if (s->ci != NULL)
		buf_printf(b, ", CI %s", s->ci);
	else if (dev && s->pr > 0)
		buf_puts(b, ", CI not recorded");
	if (s->ci_sha != NULL)
		buf_printf(b, " at %s", s->ci_sha);
	if (s->pr_error != NULL)
		buf_printf(b, " (the forge could not be read: %s)",
		    s->pr_error);
	if (*s->reason != '\0')
		buf_printf(b, "  Reason: %s", s->reason);
	if (s->stopped != NULL)
		buf_printf(b, "  Stopped: %s", s->stopped);
	if (s->queued > 0)
		buf_printf(b, "  queued: %ld", s->queued);
	if (s->watch > 0)
		buf_printf(b, "  CI watched (pid %lld)", s->watch);
	else if (s->watch == -1)
		buf_puts(b, "  CI watcher starting");
	buf_puts(b, "\n");
}

/* An escalation still waiting for a person, and for what. */
static const char *
status_esc_waits(const struct status_escalation *e)
{
	if (e->answered)
		return NULL;
	if (!e->notified)
		return "the notice is not on the issue yet";
	return "waiting for a reply on the issue";
}

/* A phase line without its prefix (the slot's holder). */
static const char *
status_phase_word(const char *phase)
{
	const char *colon;

	if (phase == NULL || *phase == '\0')
		return "no phase yet";
	colon = strchr(phase, ':');
	return colon != NULL ? colon + 1 : phase;
}

/*
 * What keeps the backlog from moving: the agent slot's holder, the
 * escalations waiting for a person; with --forge the next ready issue,
 * or the dependency the first one waits for.
 */
static void
status_text_backlog(const struct status *st, const struct status_project *p,
    struct buf *b)
{
	const struct status_backlog *k = &p->backlog;
	const char *sep = "";
	char age[16];
	const char *why;
	size_t i;

	buf_puts(b, "  backlog:      ");
	if (k->slot != NULL) {
		status_age((long long)(st->now - k->slot->since), age,
		    sizeof(age));
		buf_printf(b, " slot busy: %s (#%lld, %s %s)", k->slot->name,
		    k->slot->number, status_phase_word(k->slot->phase),
		    k->slot->since != 0 ? age : "-");
	} else
		buf_puts(b, " slot free");
	sep = "\n                ";
	for (i = 0; i < p->nesc; i++) {
		if ((why = status_esc_waits(&p->esc[i])) == NULL)
			continue;
		status_age((long long)(st->now - p->esc[i].since), age,
		    sizeof(age));
		buf_printf(b, "%s #%lld escalated %s ago, %s%s", sep,
		    p->esc[i].issue, age, why,
		    p->esc[i].parked ? " (parked: its agent ended, the slot "
				       "is free)" :
				       "");
	}
	if (k->error != NULL)
		buf_printf(b, "%s the forge could not be read: %s", sep,
		    k->error);
	else if (!k->read)
		buf_printf(b, "%s next ready issue: not asked (--forge)", sep);
	else if (k->nissues == 0)
		buf_printf(b, "%s no backlog issue", sep);
	else {
		if (k->waiting != 0)
			buf_printf(b, "%s #%lld waits for #%lld (%s)", sep,
			    k->waiting, k->dep, k->dep_state);
		if (k->ready != 0)
			buf_printf(b, "%s next ready: #%lld %s", sep, k->ready,
			    k->ready_title);
		else
			buf_printf(b, "%s no issue is ready", sep);
	}
	buf_puts(b, "\n");
}

/* "2024-05-01T10:00:00Z (12m ago), exit 0", or what is missing. */
static void
status_text_tick(const struct status *st, const struct status_tick *t,
    struct buf *b)
{
	char iso[32], age[16];

	if (t->at == 0) {
		buf_puts(b, "(no tick recorded)");
		return;
	}
	log_iso8601(t->at, iso, sizeof(iso));
	status_age((long long)(st->now - t->at), age, sizeof(age));
	buf_printf(b, "%s (%s ago), exit ", iso, age);
	if (t->exit >= 0)
		buf_printf(b, "%lld", t->exit);
	else
		buf_puts(b, "unknown");
}

/* "progress: processing 40% executing, 2m ago: message" */
static void
status_text_progress(const struct status *st, const struct status_session *s,
    struct buf *b)
{
	const struct agent_progress *g = &s->progress;
	char age[16];

	buf_printf(b, "      progress: %s",
	    *g->state != '\0' ? g->state : "(no state)");
	if (g->progress >= 0)
		buf_printf(b, " %d%%", g->progress);
	if (*g->phase != '\0')
		buf_printf(b, " %s", g->phase);
	if (g->updated_at != 0) {
		status_age((long long)(st->now - g->updated_at), age,
		    sizeof(age));
		buf_printf(b, ", %s ago", age);
	}
	if (*g->message != '\0')
		buf_printf(b, ": %s", g->message);
	buf_puts(b, "\n");
}

/* CI fixes, escalations, failures. */
/* "backed off: #3 until ... (2 failures: why)", each on a line. */
static void
status_text_backoffs(const struct status *st, const struct status_project *p,
    struct buf *b)
{
	const struct status_backoff *s;
	char until[32];
	size_t i;

	buf_puts(b, "  backed off:   ");
	for (i = 0; i < p->nbackoffs; i++) {
		s = &p->backoffs[i];
		log_iso8601(s->b.next, until, sizeof(until));
		buf_printf(b, "%s #%lld %s %s (%lld failure%s: ",
		    i ? "\n                " : "", s->issue,
		    s->b.next > st->now ? "until" : "due since", until,
		    s->b.failures, s->b.failures == 1 ? "" : "s");
		termsafe_line(s->b.reason, strlen(s->b.reason), 0, b);
		buf_puts(b, ")");
	}
	buf_puts(b, p->nbackoffs == 0 ? " none\n" : "\n");
}

static void
status_text_rest(const struct status *st, const struct status_project *p,
    struct buf *b)
{
	const struct status_escalation *e;
	char age[16];
	size_t i;

	buf_puts(b, "  CI fixes:     ");
	for (i = 0; i < p->ncifix; i++)
		buf_printf(b, "%s PR #%lld: %lld", i ? "," : "", p->cifix[i].pr,
		    p->cifix[i].attempts);
	buf_puts(b, p->ncifix == 0 ? " none\n" : "\n");
	status_text_backoffs(st, p, b);
	buf_puts(b, "  escalations:  ");
	for (i = 0; i < p->nesc; i++) {
		e = &p->esc[i];
		status_age((long long)(st->now - e->since), age, sizeof(age));
		buf_printf(b, "%s #%lld for %s (%s%s%s%s)", i ? "," : "",
		    e->issue, age, e->notified ? "notified" : "not notified",
		    e->reminded ? ", reminded" : "",
		    e->answered ? ", answered" : "",
		    !e->parked	    ? "" :
			e->answered ? ", parked, the reply waits for the slot" :
				      ", parked, waiting for a human reply");
	}
	buf_puts(b, p->nesc == 0 ? " none\n" : "\n");
	if (p->failures.count == 0)
		buf_puts(b, "  failures:      none recorded\n");
	else
		buf_printf(b,
		    "  failures:      %lld recorded, the last #%lld at %s: %s\n",
		    p->failures.count, p->failures.issue,
		    p->failures.ts ? p->failures.ts : "?",
		    p->failures.reason ? p->failures.reason : "");
}

/* The API pause, when there is one: paused, or over and resuming. */
static void
status_text_pause(const struct status *st, const struct status_project *p,
    struct buf *b)
{
	char desc[256];

	if (p->pause.since == 0)
		return;
	apipause_describe(&p->pause, desc, sizeof(desc));
	if (apipause_active(&p->pause, st->now))
		buf_printf(b, "  paused:        %s\n", desc);
	else
		buf_printf(b, "  API pause:     over (%s), %s\n", desc,
		    p->pause.resumed ? "sessions resumed, waiting for a turn "
				       "to complete" :
				       "sessions to be resumed");
}

/* The API pause as JSON, or NULL when there is none. */
static cJSON *
status_json_pause(const struct status *st, const struct status_project *p)
{
	char iso[32];
	cJSON *o;

	if (p->pause.since == 0)
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "reason", p->pause.reason);
	cJSON_AddBoolToObject(o, "active", apipause_active(&p->pause, st->now));
	status_json_time(o, st, p->pause.since);
	log_iso8601(p->pause.until, iso, sizeof(iso));
	cJSON_AddStringToObject(o, "until", iso);
	cJSON_AddNumberToObject(o, "count", (double)p->pause.count);
	if (p->pause.resumed != 0) {
		log_iso8601(p->pause.resumed, iso, sizeof(iso));
		cJSON_AddStringToObject(o, "resumed", iso);
	} else
		cJSON_AddNullToObject(o, "resumed");
	return o;
}

static void
status_text_project(const struct status *st, const struct status_project *p,
    struct buf *b)
{
	buf_printf(b, "project %s", p->name);
	if (*p->repo != '\0')
		buf_printf(b, " (%s)", p->repo);
	buf_puts(b, "\n");
	if (p->file != NULL)
		buf_printf(b, "  file:          %s\n", p->file);
	if (p->error != NULL)
		buf_printf(b, "  error:         %s\n", p->error);
	if (*p->repo == '\0')
		return;
	status_text_pause(st, p, b);
	status_text_lines(st, p->lines, p->ticks, 1, b);
	if (p->stale != 0)
		buf_printf(b,
		    "  (that status line is past: #%lld has no session "
		    "now)\n",
		    p->stale);
	status_text_sessions(st, p, b);
	status_text_backlog(st, p, b);
	status_text_rest(st, p, b);
}

/*
 * The lines of the files (the per-project ones, or the factory's), each
 * after its label; what is missing says so.
 */
static void
status_text_lines(const struct status *st, char *const *lines,
    const struct status_tick *ticks, int per_project, struct buf *b)
{
	const struct status_file *f;
	size_t i;

	for (i = 0; i < st->nfiles; i++) {
		f = &st->files[i];
		if (f->per_project != per_project)
			continue;
		if (f->tick) {
			buf_printf(b, "%-16s ", f->label);
			status_text_tick(st, &ticks[i], b);
			buf_puts(b, "\n");
			continue;
		}
		buf_printf(b, "%-16s %s\n", f->label,
		    lines != NULL && lines[i] != NULL ? lines[i] :
			f->log			      ? "(no log)" :
							"(no status file)");
	}
}

char *
status_text(const struct status *st)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	if (st->nprojects == 0)
		buf_puts(&b, "no projects\n");
	for (i = 0; i < st->nprojects; i++)
		status_text_project(st, &st->projects[i], &b);
	status_text_lines(st, st->lines, st->ticks, 0, &b);
	if (!st->listed)
		buf_puts(&b,
		    "(the sessions could not be listed: liveness "
		    "unknown)\n");
	return buf_steal(&b);
}

/* When something was written ("since") and its age, or nulls (t 0). */
static void
status_json_time(cJSON *o, const struct status *st, time_t t)
{
	char iso[32];

	if (t == 0) {
		cJSON_AddNullToObject(o, "since");
		cJSON_AddNullToObject(o, "age_seconds");
		return;
	}
	log_iso8601(t, iso, sizeof(iso));
	cJSON_AddStringToObject(o, "since", iso);
	cJSON_AddNumberToObject(o, "age_seconds",
	    (double)(st->now > t ? st->now - t : 0));
}

/* A string member, or null for NULL. */
static void
status_json_str(cJSON *o, const char *key, const char *value)
{
	if (value == NULL)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddStringToObject(o, key, value);
}

/*
 * The lines of the files into o (null where missing): a member of o, or
 * for "object.member" a member of o's object of that name.
 */
static void
status_json_lines(const struct status *st, char *const *lines,
    const struct status_tick *ticks, int per_project, cJSON *o)
{
	const struct status_file *f;
	const char *dot;
	char name[64];
	cJSON *in;
	size_t i;

	for (i = 0; i < st->nfiles; i++) {
		f = &st->files[i];
		if (f->per_project != per_project)
			continue;
		in = o;
		if ((dot = strchr(f->member, '.')) != NULL) {
			snprintf(name, sizeof(name), "%.*s",
			    (int)(dot - f->member), f->member);
			if ((in = cJSON_GetObjectItem(o, name)) == NULL)
				in = cJSON_AddObjectToObject(o, name);
		}
		if (f->tick)
			cJSON_AddItemToObject(in,
			    dot != NULL ? dot + 1 : f->member,
			    status_json_tick(st, &ticks[i]));
		else
			status_json_str(in, dot != NULL ? dot + 1 : f->member,
			    lines != NULL ? lines[i] : NULL);
	}
}

static cJSON *
status_json_session(const struct status *st, const struct status_session *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "session", s->name);
	cJSON_AddStringToObject(o, "kind", s->kind);
	cJSON_AddNumberToObject(o, strcmp(s->kind, "dev") == 0 ? "issue" : "pr",
	    (double)s->number);
	status_json_str(o, "phase", s->phase);
	cJSON_AddStringToObject(o, "reason", s->reason);
	status_json_time(o, st, s->since);
	if (s->alive == -1)
		cJSON_AddNullToObject(o, "alive");
	else
		cJSON_AddBoolToObject(o, "alive", s->alive);
	/* Messages waiting in its mailbox for its wrapper (agent.h). */
	if (s->queued > 0)
		cJSON_AddNumberToObject(o, "queued", (double)s->queued);
	if (strcmp(s->kind, "dev") == 0 && s->pr > 0)
		cJSON_AddNumberToObject(o, "pr", (double)s->pr);
	else if (strcmp(s->kind, "dev") == 0)
		cJSON_AddNullToObject(o, "pr");
	status_json_str(o, "pr_state", s->pr_state);
	status_json_str(o, "ci", s->ci);
	status_json_str(o, "head", s->ci_sha);
	cJSON_AddBoolToObject(o, "from_forge", s->pr_fresh);
	/* Its CI watcher (ciwake.h): its PID, -1 while it starts. */
	if (s->watch != 0)
		cJSON_AddNumberToObject(o, "ci_watch", (double)s->watch);
	if (s->pr_error != NULL)
		cJSON_AddStringToObject(o, "forge_error", s->pr_error);
	if (s->stopped != NULL)
		cJSON_AddStringToObject(o, "stopped", s->stopped);
	/* Only from a backend whose agents report it (agent_progress()). */
	if (s->has_progress)
		cJSON_AddItemToObject(o, "progress",
		    status_json_progress(st, s));
	return o;
}

/* The agent's report: state, percent, phase, message, updated_at. */
static cJSON *
status_json_progress(const struct status *st, const struct status_session *s)
{
	const struct agent_progress *g = &s->progress;
	cJSON *o = cJSON_CreateObject();
	char iso[32];

	cJSON_AddStringToObject(o, "state", g->state);
	if (g->progress >= 0)
		cJSON_AddNumberToObject(o, "percent", g->progress);
	else
		cJSON_AddNullToObject(o, "percent");
	cJSON_AddStringToObject(o, "phase", g->phase);
	cJSON_AddStringToObject(o, "message", g->message);
	if (g->updated_at == 0) {
		cJSON_AddNullToObject(o, "updated_at");
		return o;
	}
	log_iso8601(g->updated_at, iso, sizeof(iso));
	cJSON_AddStringToObject(o, "updated_at", iso);
	cJSON_AddNumberToObject(o, "age_seconds",
	    (double)(st->now > g->updated_at ? st->now - g->updated_at : 0));
	return o;
}

/* {"since", "age_seconds", "exit"}, or null when no tick was recorded. */
static cJSON *
status_json_tick(const struct status *st, const struct status_tick *t)
{
	cJSON *o;

	if (t->at == 0)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	status_json_time(o, st, t->at);
	if (t->exit >= 0)
		cJSON_AddNumberToObject(o, "exit", (double)t->exit);
	else
		cJSON_AddNullToObject(o, "exit");
	return o;
}

/*
 * {"slot": {"session", "issue", "phase", "since", "age_seconds"} or
 * null, "escalations_waiting": [{"issue", "waiting_for"}], "forge_read",
 * "error", "issues", "next_ready", "next_ready_title", "waiting",
 * "waits_for", "waits_for_state"}.
 */
static cJSON *
status_json_backlog(const struct status *st, const struct status_project *p)
{
	const struct status_backlog *k = &p->backlog;
	cJSON *o = cJSON_CreateObject(), *a, *e;
	const char *why;
	size_t i;

	if (k->slot != NULL) {
		e = cJSON_AddObjectToObject(o, "slot");
		cJSON_AddStringToObject(e, "session", k->slot->name);
		cJSON_AddNumberToObject(e, "issue", (double)k->slot->number);
		status_json_str(e, "phase", k->slot->phase);
		status_json_time(e, st, k->slot->since);
	} else
		cJSON_AddNullToObject(o, "slot");
	a = cJSON_AddArrayToObject(o, "escalations_waiting");
	for (i = 0; i < p->nesc; i++) {
		if ((why = status_esc_waits(&p->esc[i])) == NULL)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "issue", (double)p->esc[i].issue);
		cJSON_AddStringToObject(e, "waiting_for", why);
		cJSON_AddItemToArray(a, e);
	}
	cJSON_AddBoolToObject(o, "forge_read", k->read);
	status_json_str(o, "error", k->error);
	if (!k->read)
		return o;
	cJSON_AddNumberToObject(o, "issues", (double)k->nissues);
	cJSON_AddNumberToObject(o, "next_ready", (double)k->ready);
	status_json_str(o, "next_ready_title", k->ready_title);
	cJSON_AddNumberToObject(o, "waiting", (double)k->waiting);
	cJSON_AddNumberToObject(o, "waits_for", (double)k->dep);
	status_json_str(o, "waits_for_state", k->dep_state);
	return o;
}

static cJSON *
status_json_escalation(const struct status *st,
    const struct status_escalation *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "issue", (double)e->issue);
	status_json_time(o, st, e->since);
	cJSON_AddStringToObject(o, "reason", e->reason);
	cJSON_AddBoolToObject(o, "notified", e->notified);
	cJSON_AddBoolToObject(o, "reminded", e->reminded);
	cJSON_AddBoolToObject(o, "answered", e->answered);
	cJSON_AddBoolToObject(o, "parked", e->parked);
	return o;
}

static cJSON *
status_json_failures(const struct status_failures *f)
{
	cJSON *o = cJSON_CreateObject(), *last;

	cJSON_AddNumberToObject(o, "count", (double)f->count);
	if (f->count == 0 || f->ts == NULL) {
		cJSON_AddNullToObject(o, "last");
		return o;
	}
	last = cJSON_AddObjectToObject(o, "last");
	cJSON_AddStringToObject(last, "ts", f->ts);
	cJSON_AddNumberToObject(last, "issue", (double)f->issue);
	cJSON_AddNumberToObject(last, "pr", (double)f->pr);
	cJSON_AddStringToObject(last, "reason", f->reason);
	return o;
}

/* [{"issue", "failures", "until", "reason"}]. */
static cJSON *
status_json_backoffs(const struct status_project *p)
{
	cJSON *a = cJSON_CreateArray(), *o;
	char until[32];
	size_t i;

	for (i = 0; i < p->nbackoffs; i++) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "issue",
		    (double)p->backoffs[i].issue);
		cJSON_AddNumberToObject(o, "failures",
		    (double)p->backoffs[i].b.failures);
		log_iso8601(p->backoffs[i].b.next, until, sizeof(until));
		cJSON_AddStringToObject(o, "until", until);
		cJSON_AddStringToObject(o, "reason", p->backoffs[i].b.reason);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *
status_json_project(const struct status *st, const struct status_project *p)
{
	cJSON *o = cJSON_CreateObject(), *a, *c;
	size_t i;

	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "repo", p->repo);
	status_json_str(o, "file", p->file);
	status_json_str(o, "error", p->error);
	status_json_str(o, "tmux_socket", p->socket);
	status_json_lines(st, p->lines, p->ticks, 1, o);
	if (p->stale != 0)
		cJSON_AddNumberToObject(o, "status_line_past_issue",
		    (double)p->stale);
	else
		cJSON_AddNullToObject(o, "status_line_past_issue");
	if ((c = status_json_pause(st, p)) != NULL)
		cJSON_AddItemToObject(o, "api_pause", c);
	a = cJSON_AddArrayToObject(o, "sessions");
	for (i = 0; i < p->nsessions; i++)
		cJSON_AddItemToArray(a,
		    status_json_session(st, &p->sessions[i]));
	a = cJSON_AddArrayToObject(o, "ci_fixes");
	for (i = 0; i < p->ncifix; i++) {
		c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "pr", (double)p->cifix[i].pr);
		cJSON_AddNumberToObject(c, "attempts",
		    (double)p->cifix[i].attempts);
		cJSON_AddItemToArray(a, c);
	}
	cJSON_AddItemToObject(o, "backoffs", status_json_backoffs(p));
	a = cJSON_AddArrayToObject(o, "escalations");
	for (i = 0; i < p->nesc; i++)
		cJSON_AddItemToArray(a, status_json_escalation(st, &p->esc[i]));
	cJSON_AddItemToObject(o, "failures",
	    status_json_failures(&p->failures));
	cJSON_AddItemToObject(o, "backlog", status_json_backlog(st, p));
	return o;
}

char *
status_json(const struct status *st)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char iso[32], *text, *out;
	size_t i;

	log_iso8601(st->now, iso, sizeof(iso));
	cJSON_AddStringToObject(o, "generated_at", iso);
	cJSON_AddBoolToObject(o, "sessions_listed", st->listed);
	a = cJSON_AddArrayToObject(o, "projects");
	for (i = 0; i < st->nprojects; i++)
		cJSON_AddItemToArray(a,
		    status_json_project(st, &st->projects[i]));
	status_json_lines(st, st->lines, st->ticks, 0, o);
	text = cJSON_Print(o);
	cJSON_Delete(o);
	out = xasprintf("%s\n", text);
	cJSON_free(text);
	return out;
}
