/*
 * Typed calls to the Gitea/Forgejo API v1 for one repository.
 *
 * Every call returns 0 on success and -1 on failure, with the endpoint and
 * the reason (HTTP status and the forge's message, transport error,
 * malformed JSON, wrong JSON type) in forge_error(): a failed read is
 * never reported as an empty list.  Lists are read page by page
 * (limit=50) until the forge's X-Total-Count (or Link header, or an empty
 * page) says they end (a short page does not: the forge's page cap may
 * be below 50), and returned as one array.
 *
 * Results of reads are borrowed from the handle's per-run cache: valid
 * until forge_close(), never freed by the caller.  Each GET URL is fetched
 * at most once per handle; any write (POST, PATCH, DELETE), whatever its
 * outcome, clears the cache so that later reads see its effect, while
 * results handed out before stay valid.  Label IDs and the login of the
 * token's user are kept per handle across writes.
 *
 * Every object handed out by the typed calls below passed its kind's
 * table of fields (forge.c), and is read through its view
 * (forge_pull_view(), ...): these fields are there with their types; the
 * others, when there, have their types too (absent or null otherwise):
 *   issue:   number, title, state; body, labels[].name, user.login,
 *            pull_request (object), created_at, updated_at
 *   PR:      number, title, state, head.ref, head.sha, base.ref; body,
 *            head.label, merged, mergeable, draft, labels[].name,
 *            user.login, created_at, updated_at, merged_at
 *            (head.ref is the branch name even after the branch was
 *            deleted: the forge's "refs/pull/N/head" is replaced by
 *            head.label, the branch it keeps)
 *   comment: id, body, user.login; created_at, updated_at
 *   review:  id, state, user.login; commit_id, body, stale, dismissed,
 *            submitted_at
 *   label:   id, name
 *   file:    filename
 *   commit status: state; statuses[] (status, context, target_url)
 * A single object that fails its table fails the call (the field and the
 * fault in forge_error()); an element of a list that does is left out,
 * with one log line per handle ("skipping PR #3 of '/pulls?state=open':
 * 'head.sha' is an array, not a string").
 */
#ifndef FORGE_H
#define FORGE_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>
#include "http_client.h"

/*
 * Typed views of the objects the calls below hand out: the fields of
 * each kind's table, by type, with strings borrowed from the object
 * (valid as long as it is).  A field the object does not have reads as
 * NULL (strings), 0 (numbers, times, flags) or as said.  The executables
 * read forge objects through these, never by a field's name.
 */
struct forge_pull {
	long long number;
	const char *title, *state;
	const char *body;   /* NULL when it has none */
	const char *branch; /* head.ref, the branch even once deleted */
	const char *sha;    /* head.sha */
	const char *base;   /* base.ref */
	const char *author; /* user.login */
	int merged, draft;
	int mergeable;		     /* 1, 0, or -1 when not said */
	time_t created, updated;     /* created_at, updated_at */
	time_t merged_at, closed_at; /* 0 while not merged, closed */
};

struct forge_issue {
	long long number;
	const char *title, *state;
	const char *body; /* NULL when it has none */
	const char *author;
	int pull;		 /* a PR in an issue list (pull_request) */
	time_t created, updated; /* created_at, updated_at */
	time_t closed;		 /* closed_at, 0 while open */
};

struct forge_comment {
	long long id;
	const char *body, *author;
	const char *created_at; /* as the forge wrote it, or NULL */
};

struct forge_review {
	long long id;
	const char *state; /* APPROVED, REQUEST_CHANGES, COMMENT, ... */
	const char *author;
	const char *commit; /* commit_id: the head it reviewed, or NULL */
	const char *body;
	int dismissed;
};

void forge_pull_view(const cJSON *pr, struct forge_pull *out);
void forge_issue_view(const cJSON *issue, struct forge_issue *out);
void forge_comment_view(const cJSON *comment, struct forge_comment *out);
void forge_review_view(const cJSON *review, struct forge_review *out);
/* A changed file's name (forge_pull_files()), or NULL. */
const char *forge_file_name(const cJSON *file);
/* 1 when the issue or PR carries the label called name, else 0. */
int forge_labelled(const cJSON *item, const char *name);

/* The outcome of a call that may find its object there already, or none. */
enum forge_res {
	FORGE_ERROR = -1, /* no usable answer: see forge_error() */
	FORGE_OK = 0,
	FORGE_CONFLICT,	 /* forge_pull_create(): one is open already */
	FORGE_NOT_FOUND, /* no label or PR of that name */
};

struct forge;

/* The outcome of forge_pull_merge(). */
struct forge_merge {
	long status;	   /* HTTP status of the merge request */
	int merged;	   /* merged now, or found merged after a non-2xx */
	char message[256]; /* the forge's explanation of a refusal */
};

/*
 * Open a handle on api_base ("$FORGE_URL/api/v1/repos/OWNER/REPO") with
 * token (sent as "Authorization: token ...", may be NULL).  The API root
 * used for /user is api_base without its "/repos/OWNER/REPO" tail.
 * Returns the handle; free it with forge_close().
 */
struct forge *forge_open(const char *api_base, const char *token);
/* Free the handle and every result it handed out.  NULL is accepted. */
void forge_close(struct forge *);
/* Why the last call failed ("" after a success); valid until the next. */
const char *forge_error(const struct forge *f);
/* Writes sent so far (http_client_writes()). */
unsigned long forge_writes(const struct forge *f);
/* HTTP status behind the last call's failure (404 ...), else 0. */
long forge_last_status(const struct forge *f);
/*
 * 1 when the last call failed because the forge's answer was over the
 * body cap (an issue with more comments than a tick takes), else 0.
 */
int forge_too_large(const struct forge *f);

/*
 * Read path (relative to api_base, e.g. "/issues/3") as a JSON object or
 * array (type cJSON_Object, cJSON_Array, or 0 for either); *out is
 * borrowed from the cache.  Raw: its fields are not checked (for tools
 * that print what the forge says; the executables use the typed calls).
 */
int forge_get(struct forge *f, const char *path, int type, const cJSON **out);
/* Read every page of the list at path (which may carry a query); raw. */
int forge_get_list(struct forge *f, const char *path, const cJSON **out);

/*
 * Issues and PRs.  state "open", "closed" or "all"; labels a comma
 * separated list of names or NULL; type "issues", "pulls" or NULL.  The
 * list is in the tools' order, oldest first (forge_issue_key_cmp()),
 * whatever order the forge used.
 */
int forge_issues_list(struct forge *f, const char *state, const char *labels,
    const char *type, const cJSON **out);
/*
 * The tools' order of issues: created_at, then number, oldest first (a
 * missing created_at counts as the oldest).  A caller of
 * forge_issues_each(), which visits the forge's pages in the forge's
 * order, keeps each issue's key and sorts by it.
 */
struct forge_issue_key {
	time_t created;
	long long number;
};
void forge_issue_key(const cJSON *issue, struct forge_issue_key *out);
int forge_issue_key_cmp(const struct forge_issue_key *,
    const struct forge_issue_key *);
int forge_issue_get(struct forge *f, long long number, const cJSON **out);
/* Set the issue's state to closed (closing a closed issue succeeds). */
int forge_issue_close(struct forge *f, long long number);

/* Every comment of an issue or PR, oldest first (Gitea: one page). */
int forge_comments_list(struct forge *f, long long number, const cJSON **out);
/* Post a comment; its ID in *id (may be NULL). */
int forge_comment_create(struct forge *f, long long number, const char *body,
    long long *id);
int forge_comment_edit(struct forge *f, long long comment_id, const char *body);

/* Every label of the repository. */
int forge_labels_list(struct forge *f, const cJSON **out);
/*
 * The ID of the label called name in *id.  Missing: with create set it
 * is created (blocked red, priority amber, others grey) and 0 returned;
 * without, FORGE_NOT_FOUND.  Cached per handle.
 */
enum forge_res forge_label_id(struct forge *f, const char *name, int create,
    long long *id);
/* Add labels by ID to an issue or PR. */
int forge_issue_add_labels(struct forge *f, long long number,
    const long long *ids, size_t n);
/*
 * Remove one label by ID.  Gitea answers 204 when the issue does not
 * carry it; a 404 or 422 (a label ID the repository does not have) is an
 * error here, with its status in forge_last_status(): only the issue's
 * labels, read back, can say the label is absent (act_labels()).
 */
int forge_issue_remove_label(struct forge *f, long long number, long long id);
/* Add the label called name, creating it in the repository if needed. */
int forge_issue_add_label_name(struct forge *f, long long number,
    const char *name);
/*
 * Remove every label called name the issue carries (an organisation's
 * label, two labels of one name), by the IDs the issue read says; none
 * of that name on the issue is success.
 */
int forge_issue_remove_label_name(struct forge *f, long long number,
    const char *name);

/* Pull requests.  state "open", "closed" or "all". */
int forge_pulls_list(struct forge *f, const char *state, const cJSON **out);
/*
 * The lists above visited page by page (http_client_each_page()): each
 * checked element passed to fn, nothing kept or cached.  0 or -1.
 */
int forge_pulls_each(struct forge *f, const char *state, http_each_fn fn,
    void *arg);
int forge_issues_each(struct forge *f, const char *state, const char *labels,
    const char *type, http_each_fn fn, void *arg);
/* The first page (at most limit, newest first) of the PRs in state. */
int forge_pulls_recent(struct forge *f, const char *state, int limit,
    const cJSON **out);
int forge_pull_get(struct forge *f, long long number, const cJSON **out);
/*
 * Open a PR from head into base; its number in *number.  Returns
 * FORGE_OK, FORGE_CONFLICT when one already exists (409: see
 * forge_pull_find_head), or FORGE_ERROR.
 */
enum forge_res forge_pull_create(struct forge *f, const char *title,
    const char *body, const char *head, const char *base, long long *number);
/*
 * The number of the open PR whose head branch is head (its head.ref or
 * head.label), in *number.
 * Returns FORGE_OK, FORGE_NOT_FOUND when there is none, or FORGE_ERROR.
 */
enum forge_res forge_pull_find_head(struct forge *f, const char *head,
    long long *number);
/* The files a PR changes (Gitea's objects with "filename"). */
int forge_pull_files(struct forge *f, long long number, const cJSON **out);
/*
 * The same, at most 1000 of them (a PR may change 100 000 files): *complete
 * says whether that was all.  0, or -1 when none could be read.
 */
int forge_pull_files_some(struct forge *f, long long number, const cJSON **out,
    int *complete);
/*
 * The PR's unified diff, at most max bytes of it, in *text (borrowed);
 * *truncated (may be NULL) tells whether it was longer.
 */
int forge_pull_diff(struct forge *f, long long number, size_t max,
    const char **text, int *truncated);
/*
 * Merge the PR ("Do": "merge") only if its head is still head_sha (NULL:
 * any), deleting the branch when asked.  Returns 0 once the forge
 * answered, with the status and whether the PR is merged in *out; after
 * any answer but 2xx the PR is read again, since the forge may have
 * merged it all the same (merged by another poller: 405; merged, then
 * the branch deletion failed: 403, 404 or 500).  Returns -1 when no
 * answer arrived or that read failed: whether it merged is unknown.
 */
int forge_pull_merge(struct forge *f, long long number, const char *head_sha,
    int delete_branch, struct forge_merge *out);

/* Every review of a PR. */
int forge_reviews_list(struct forge *f, long long number, const cJSON **out);
/*
 * Free the cached reviews (or changed files) of PR number, read by
 * forge_reviews_list() or forge_pull_files() or read ahead: for a caller
 * that took what it needs and will not ask again this run (a later call
 * asks the forge again).  What those calls handed out is invalid after.
 */
void forge_reviews_forget(struct forge *f, long long number);
void forge_files_forget(struct forge *f, long long number);
/*
 * Read ahead, in parallel (at most HTTP_PARALLEL at once), the reviews
 * (forge_reviews_prefetch()) or the changed files (forge_files_prefetch())
 * of the n PRs numbers, so that forge_reviews_list() and
 * forge_pull_files() answer them from the cache.  What did not arrive is
 * read (and its failure told) by those calls as before.
 */
void forge_reviews_prefetch(struct forge *f, const long long *numbers,
    size_t n);
void forge_files_prefetch(struct forge *f, const long long *numbers, size_t n);
/*
 * Submit a review: event "APPROVE", "REQUEST_CHANGES" or "COMMENT", on
 * commit_id (NULL: the head).  Its ID in *id (may be NULL).
 */
int forge_review_create(struct forge *f, long long number, const char *body,
    const char *event, const char *commit_id, long long *id);
int forge_review_dismiss(struct forge *f, long long number, long long review_id,
    const char *message);

/* The combined commit status object of sha ("state", "statuses"). */
int forge_commit_status(struct forge *f, const char *sha, const cJSON **out);
/*
 * How many contexts sha has by the X-Total-Count of the answer
 * forge_commit_status() kept (Gitea's GetCombinedCommitStatusByRef counts
 * them all but answers one page of them), -1 when unknown.
 */
long long forge_commit_status_total(struct forge *f, const char *sha);
/*
 * Every status of sha, all pages of /commits/SHA/statuses (each context's
 * earlier statuses too; "id" orders them).
 */
int forge_commit_statuses(struct forge *f, const char *sha, const cJSON **out);
/*
 * The server's version string (GET /version), asked once per handle (a
 * failed read is not tried again on it).
 */
int forge_server_version(struct forge *f, const char **version);
/* The version a caller kept from an earlier read (no request then). */
void forge_server_version_set(struct forge *f, const char *version);
/* The API root (.../api/v1) of the handle. */
const char *forge_api_root(const struct forge *f);
/* The login of the token's user in *login (valid until forge_close()). */
int forge_user_login(struct forge *f, const char **login);
/*
 * The teams of the token's user in every organisation (GET /user/teams,
 * the first 50), each with its "name" and its "organization".
 */
int forge_user_teams(struct forge *f, const cJSON **out);
/* Delete a branch; one that does not exist (404) counts as deleted. */
int forge_branch_delete(struct forge *f, const char *branch);

#endif
