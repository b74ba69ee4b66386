/*
 * Unit tests for common/tick/status.c: the short ages, a report gathered
 * without listing the sessions (liveness unknown), a project whose file
 * did not load, hostile run files (a FIFO as a status file, control
 * characters in a phase reason and a log line, a tracker that is not
 * JSON), and the JSON form.
 */
#include <sys/stat.h>

#include <fcntl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "config.h"
#include "runfiles.h"
#include "status.h"

static char dir[] = "/tmp/test_status.XXXXXX";

static char *test_tool_status(const char *);
static char *test_tool_log(const char *);

/*
 * The tools' files as a caller lists them (status.c knows none): two of
 * each project, a status line and a log of the factory's.
 */
static const struct status_file files[] = {
    {"  dev-poll:", "dev_status", 1, 0, 0, runfiles_dev_status},
    {"  last log line:", "dev_last_log", 1, 1, 0, runfiles_dev_log},
    {"some-tool:", "tool.status", 0, 0, 0, test_tool_status},
    {"  its log:", "tool.last_log", 0, 1, 0, test_tool_log},
    {NULL, NULL, 0, 0, 0, NULL}};

/* The factory's files of the table (project is NULL). */
static char *
test_tool_status(const char *project)
{
	return project == NULL ? runfiles_supervisor_status() : NULL;
}

static char *
test_tool_log(const char *project)
{
	return project == NULL ? runfiles_supervisor_log() : NULL;
}

static void
put(const char *name, const char *text, time_t mtime)
{
	char path[512];
	struct timespec ts[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	(void)runfiles_session_mkdir_for(path);
	if ((f = fopen(path, "w")) == NULL)
		return;
	fputs(text, f);
	fclose(f);
	ts[0].tv_sec = ts[1].tv_sec = mtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	(void)utimensat(AT_FDCWD, path, ts, 0);
}

/* The files put() made, removed at the end. */
static const char *const made[] = {
    "sessions/active/dev-p-4/dev-session-p-4.phase",
    "sessions/active/review-p-8/review-session-p-8.phase",
    "dev/ci-fixes-p.json", "dev/dev-agent-p.log", "dev-agent-status-p",
    "supervisor/supervisor.log", "dev", "supervisor", "sessions/active/dev-p-4",
    "sessions/active/review-p-8", "sessions/active", "sessions", ""};

static void
test_age(void)
{
	static const struct {
		long long s;
		const char *want;
	} cases[] = {{-5, "0s"}, {0, "0s"}, {59, "59s"}, {60, "1m"},
	    {3599, "59m"}, {3600, "1h00m"}, {7500, "2h05m"}, {86399, "23h59m"},
	    {86400, "1d00h"}, {90000 + 86400, "2d01h"}};
	char out[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		status_age(cases[i].s, out, sizeof(out));
		CHECK_STR(out, cases[i].want);
	}
}

/* A project's report from its run files alone, sessions not listed. */
static void
test_unlisted(void)
{
	time_t now = 1714557600; /* 2024-05-01 10:00:00 UTC */
	struct config cfg;
	struct status *st;
	char path[512], *text;

	memset(&cfg, 0, sizeof(cfg));
	cfg.project_name = "p";
	cfg.forge_repo = "o/p";
	put("sessions/active/dev-p-4/dev-session-p-4.phase",
	    "PHASE:escalate\nReason: a\x1b[2Jb\n", now - 600);
	put("sessions/active/review-p-8/review-session-p-8.phase",
	    "PHASE:done\n", now - 30);
	put("dev/ci-fixes-p.json", "not json", now);
	put("dev/dev-agent-p.log", "[x] poll: first\n[x] poll: la\tst\n\n",
	    now);
	put("supervisor/supervisor.log", "[s] one\n[s] the last\n", now);
	snprintf(path, sizeof(path), "%s/dev-agent-status-p", dir);
	CHECK_INT(mkfifo(path, 0600), 0);
	st = status_new(now, 0, files);
	status_add_project(st, &cfg);
	status_add_broken(st, "q", "/x/q.toml", "/x/q.toml:1: bad");
	text = status_text(st);
	CHECK(strstr(text, "project p (o/p)\n") != NULL);
	CHECK(strstr(text, "  dev-poll:      (no status file)\n") != NULL);
	CHECK(strstr(text, "  last log line: [x] poll: la\\tst\n") != NULL);
	CHECK(strstr(text, "PHASE:escalate") != NULL);
	CHECK(strstr(text, "10m  ?  no PR recorded  Reason: a\\x1b[2Jb\n") !=
	    NULL);
	CHECK(strstr(text, "PHASE:done") != NULL);
	CHECK(strstr(text, "30s  ?  PR #8\n") != NULL);
	CHECK(strstr(text, "  error:         cannot read '") != NULL);
	CHECK(strstr(text, "  escalations:   #4 for 10m (not notified)\n") !=
	    NULL);
	CHECK(strstr(text,
		  "project q\n  file:          /x/q.toml\n"
		  "  error:         /x/q.toml:1: bad\n") != NULL);
	CHECK(strstr(text, "liveness unknown") != NULL);
	CHECK(strstr(text,
		  "some-tool:       (no status file)\n"
		  "  its log:       [s] the last\n") != NULL);
	CHECK(strchr(text, '\x1b') == NULL);
	free(text);
	status_free(st);
}

/* The JSON form parses back, with nulls for what is not known. */
static void
test_json(void)
{
	time_t now = 1714557600;
	struct config cfg;
	struct status *st;
	const cJSON *p, *s;
	cJSON *d;
	char *text;

	memset(&cfg, 0, sizeof(cfg));
	cfg.project_name = "p";
	cfg.forge_repo = "o/p";
	cfg.tmux_socket = "disinto";
	st = status_new(now, 0, files);
	status_add_project(st, &cfg);
	text = status_json(st);
	d = cJSON_Parse(text);
	CHECK(d != NULL);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(d, "generated_at")),
	    "2024-05-01T10:00:00Z");
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(d, "sessions_listed")));
	p = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "projects"), 0);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(p, "name")), "p");
	/* Which tmux server to attach to (-L). */
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(p, "tmux_socket")),
	    "disinto");
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(p, "dev_status")));
	CHECK(cJSON_GetObjectItem(p, "tool") == NULL);
	s = cJSON_GetObjectItem(d, "tool");
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(s, "status")));
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(s, "last_log")),
	    "[s] the last");
	s = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "sessions"), 0);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(s, "session")),
	    "dev-p-4");
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(s, "alive")));
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "age_seconds")),
	    600);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(s, "since")),
	    "2024-05-01T09:50:00Z");
	cJSON_Delete(d);
	free(text);
	status_free(st);
}

int
main(void)
{
	char sub[600];

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(sub, sizeof(sub), "%s/dev", dir);
	(void)mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/supervisor", dir);
	(void)mkdir(sub, 0755);
	runfiles_init(dir, dir);
	RUN(test_age);
	RUN(test_unlisted);
	RUN(test_json);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, made[i]);
		(void)remove(sub);
	}
	return check_main();
}
