/*
 * Woodpecker CI API (2.x and 3.x) for one repository: pipelines, restarts
 * and step logs.  A pipeline's times are read under the 3.x names
 * (created, started, finished, updated) whichever version answered: the
 * 2.x names (created_at, ...) are copied to them as each pipeline
 * arrives.  Same rules as the forge client: 0 / -1 with the reason in
 * woodpecker_error(), results borrowed from a per-handle cache that every
 * write clears, valid until woodpecker_close().
 */
#ifndef WOODPECKER_H
#define WOODPECKER_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "http_client.h"

/* woodpecker_latest_for_commit(), woodpecker_step_log(): nothing there. */
#define WOODPECKER_NONE 1

struct woodpecker;

/*
 * A pipeline of the list (or woodpecker_pipeline()) as the tools read it:
 * its fields by type, 0 or NULL when not there, strings borrowed from
 * the object; its times under the 3.x names (see above).
 */
struct woodpecker_pipeline_info {
	long long number, parent;
	long long created, started, finished;
	const char *status, *commit;
};
void woodpecker_pipeline_view(const cJSON *pipeline,
    struct woodpecker_pipeline_info *out);

/*
 * Open a handle on server ("http://host:8000"; the API is under /api),
 * token sent as a Bearer token, repository repo_id.  Free it with
 * woodpecker_close().
 */
struct woodpecker *woodpecker_open(const char *server, const char *token,
    long long repo_id);
/* Free the handle and every result it handed out.  NULL is accepted. */
void woodpecker_close(struct woodpecker *);
/* Why the last call failed ("" after a success). */
const char *woodpecker_error(const struct woodpecker *);
/* HTTP status behind the last call's failure, else 0. */
long woodpecker_last_status(const struct woodpecker *);

/*
 * The newest pipelines, newest first: up to 3 pages of 50 (older ones
 * are not needed to find the latest pipeline of a recent commit).
 */
int woodpecker_pipelines(struct woodpecker *, const cJSON **out);
/*
 * The same pipelines visited page by page (http_client_each_page()):
 * each checked pipeline passed to fn, the pages not kept or cached.  A
 * list cut at 3 pages is no failure.  What a scan needs of them is kept
 * as woodpecker_pipelines() keeps it, unless fn stops early.  0 or -1.
 */
int woodpecker_pipelines_each(struct woodpecker *, http_each_fn fn, void *arg);
/*
 * Read the pipeline list (newest first) page by page, keeping of each
 * pipeline only its number, commit and status, until the latest
 * pipeline of each of the n commits shas has been seen, the list ends,
 * or 3 + n / 25 pages (room for two pipelines a commit) were read: one
 * list for the CI states of every head of a tick.  Later calls and
 * woodpecker_latest_for_commit() go on from the pages already read.
 * Returns 0 or -1.
 */
int woodpecker_scan(struct woodpecker *, const char *const *shas, size_t n);
/*
 * The pipeline with the highest number whose commit is sha: its number
 * in *number and its status in *status (borrowed, valid until the next
 * call on the handle), from the pages woodpecker_scan() read, reading
 * more (up to 3 pages in all) when sha is not among them.  Returns 0,
 * WOODPECKER_NONE when there is none among the pipelines read, or -1.
 */
int woodpecker_latest_for_commit(struct woodpecker *, const char *sha,
    long long *number, const char **status);
/*
 * The status of the latest pipeline of sha among the pages already read,
 * asking nothing: 0 with *status (borrowed), or WOODPECKER_NONE.
 */
int woodpecker_known(const struct woodpecker *, const char *sha,
    const char **status);
/* One pipeline with its workflows and steps. */
int woodpecker_pipeline(struct woodpecker *, long long number,
    const cJSON **out);
/* The token's user (GET /api/user): its "login", "admin", ... */
int woodpecker_user(struct woodpecker *, const cJSON **out);
/* The repository of the handle (GET /api/repos/ID): its "full_name", ... */
int woodpecker_repo(struct woodpecker *, const cJSON **out);
/*
 * Restart a pipeline; the number of the new pipeline in *new_number (may
 * be NULL; 0 when the answer does not say).
 */
int woodpecker_restart(struct woodpecker *, long long number,
    long long *new_number);
/*
 * The log of one step, addressed by the step's "id" (not its "pid"),
 * decoded to text and cut to its last max_lines lines and max_bytes bytes
 * (0: no limit).  *text is the caller's to free.  Returns 0,
 * WOODPECKER_NONE when the step has no readable log (404; 400, a step
 * not of the pipeline on 2.x; or larger than the HTTP body cap) with
 * *text NULL, or -1.
 */
int woodpecker_step_log(struct woodpecker *, long long number,
    long long step_id, size_t max_bytes, size_t max_lines, char **text);
/*
 * Decode an array of Woodpecker log entries (their "data" is base64 of
 * the line's bytes; data that is not valid base64 is taken as it is) into
 * text, one entry a line, and keep its tail as woodpecker_step_log()
 * does.  An entry without data is an empty line; one that is not an
 * object, or whose data is not a string, is left out.  Caller frees.
 */
char *woodpecker_log_text(const cJSON *entries, size_t max_bytes,
    size_t max_lines);

#endif
