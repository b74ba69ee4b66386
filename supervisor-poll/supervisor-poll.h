/*
 * supervisor-poll's private interfaces: the tick context and the checks
 * each topic file provides.
 */
#ifndef SUPERVISOR_POLL_H
#define SUPERVISOR_POLL_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"

struct config;
struct forge;
struct woodpecker;

/* Alert priorities, as upstream: P0 memory ... P4 housekeeping. */
enum { P0, P1, P2, P3, P4, NPRIO };

/* act_inject() in --dry-run: nothing was typed. */
#define ACT_DRY 2

/* An escalated dev session found alive this tick. */
struct esc_target {
	char *project;
	long long issue;
	char *session;
	char *phase_path;
	time_t since; /* when the agent escalated */
};

/* One tick. */
struct sup {
	const struct config *base; /* environment-only configuration */
	const struct config *cfg;  /* the project being checked */
	struct forge *forge;	   /* the project's forge, or NULL */
	struct woodpecker *wp;	   /* its CI, or NULL */
	int dry_run;
	time_t now;
	int failed; /* some check could not be completed */

	struct buf alerts[NPRIO];
	size_t nalerts;
	struct buf fixes;

	/* Host figures for the metric and the summary. */
	int have_mem;
	long long mem_total_mb, mem_avail_mb, swap_used_mb;
	int have_disk;
	int disk_pct;
	size_t agent_procs;
	int stale_reaped; /* the one-shot process sweep already ran */

	struct esc_target *esc;
	size_t nesc;
	int review_started;
};

/* alerts.c */
void sup_alert(struct sup *, int prio, const char *, ...)
    __attribute__((format(printf, 3, 4)));
void sup_fixed(struct sup *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void sup_fail(struct sup *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void sup_status(struct sup *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void sup_free(struct sup *);
void fixer_run(struct sup *);

/* act.c: every side effect, logged instead of taken under --dry-run. */
int act_comment(struct sup *, long long issue, const char *body, long long *id);
int act_add_label(struct sup *, long long issue, const char *name);
int act_remove_label(struct sup *, long long issue, const char *name);
int act_inject(struct sup *, const char *session, const char *text);
int act_kill(struct sup *, const char *session);
int act_write(struct sup *, const char *path, const char *text, int sync);
int act_remove(struct sup *, const char *path);
int act_truncate(struct sup *, const char *path);
int act_rename(struct sup *, const char *from, const char *to);
int act_git(struct sup *, const char *repo, const char *const *args);
int act_signal(struct sup *, pid_t pid);
int act_restart(struct sup *, long long pipeline, long long *new_number);
int act_review_poll(struct sup *);
int git_read(const char *repo, const char *const *args, struct buf *out,
    int *status);

/* metrics.c */
cJSON *metrics_new(const struct sup *, const char *type);
void metrics_emit(struct sup *, cJSON *obj);
void metrics_rotate(struct sup *);

/* host.c */
void host_check(struct sup *);

/* procs.c */
struct proc_hit {
	pid_t pid;
	long long age; /* seconds since it started */
};
int procs_agents(const struct config *, struct proc_hit **out, size_t *n);
int procs_cwd_under(const struct config *, const char *dir);

/* pipelines.c */
void pipelines_check(struct sup *);

/* devhealth.c */
void devhealth_check(struct sup *);

/* prs.c */
void prs_check(struct sup *);

/* backlog.c */
void backlog_check(struct sup *);

/* escalate.c */
void escalate_check(struct sup *);
void escalate_reply_file(struct sup *);

/* sweep.c */
void sweep_sessions(struct sup *);
void sweep_worktrees(struct sup *);

/* util.c */
int iso_time(const char *text, time_t *out);
int read_tail(const char *path, size_t max, struct buf *out);
char *cut_text(const char *text, size_t max);
int state_read(const char *path, long long *id, long long *at);
int state_write(struct sup *, const char *path, long long id, long long at);

#endif
