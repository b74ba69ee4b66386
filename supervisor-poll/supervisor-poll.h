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

#include "act.h"
#include "backlog.h"
#include "buf.h"
#include "escalate.h"
#include "promtick.h"

struct config;
struct promtick;
struct pulls;
struct reviewers;
struct forge;
struct woodpecker;

/* Alert priorities, as upstream: P0 memory ... P4 housekeeping. */
enum { P0, P1, P2, P3, P4, NPRIO };

/* A dependency open for more than this many days is stale (depgraph.c). */
#define SUP_DEP_STALE_DAYS 30

/* One tick. */
struct sup {
	const struct config *base; /* environment-only configuration */
	const struct config *cfg;  /* the project being checked */
	struct forge *forge;	   /* the project's forge, or NULL */
	struct woodpecker *wp;	   /* its CI, or NULL */
	struct act act;		   /* side effects, the project's forge */
	/* Whose formal verdicts count (common/world/reviewers.h). */
	struct reviewers *reviewers;
	time_t now;
	int failed; /* some check could not be completed */
	/* What was not checked (sup_fail()'s reasons, "; " between). */
	struct buf unchecked;
	size_t nunchecked;

	struct buf alerts[NPRIO];
	size_t nprio[NPRIO]; /* alerts of each priority */
	size_t nalerts;
	struct buf fixes;

	/* Host figures for the metric and the summary. */
	int have_mem;
	long long mem_total_mb, mem_avail_mb, swap_used_mb;
	int have_disk;
	int disk_pct;
	size_t agent_procs;
	int stale_reaped; /* the one-shot process sweep already ran */

	struct promtick *prom; /* the tick's metrics, or NULL */

	/* The escalation pass (pollers/escalate.h), its sessions found. */
	struct escalation esc;
	int review_started;

	/*
	 * The project's shared lists, read once (lists.c): the open PRs,
	 * their CI and verdicts (common/world/pulls.h; NULL until asked
	 * for), and the backlog (common/world/backlog.h).
	 */
	struct pulls *pulls;
	struct backlog backlog;
};

/* alerts.c */
/* Log an alert of priority prio and keep it for the fix command. */
void sup_alert(struct sup *, int prio, const char *, ...)
    __attribute__((format(printf, 3, 4)));
/* Drop the alerts of priority prio (resolved since): how many went. */
size_t sup_alert_clear(struct sup *, int prio);
/* Log a fix that was applied and keep it for the fix command. */
void sup_fixed(struct sup *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
/* Log a check that could not be completed; the tick then exits 1. */
void sup_fail(struct sup *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
/* Replace the status file with the step now running (logged too). */
void sup_status(struct sup *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
/* Free what the tick collected (alerts, fixes, escalated sessions). */
void sup_free(struct sup *);
/*
 * When alerts remain, run SUPERVISOR_FIX_CMD once with the alerts, the
 * fixes and a system summary on its standard input (300 s limit, output
 * tail logged), in the tools' child environment; never during a memory
 * or disk crisis (host_crisis()).  Then write the final status.
 */
void fixer_run(struct sup *);

/* metrics.c */
/* A new metric object with "ts" and "type".  Pass it to metrics_emit(). */
cJSON *metrics_new(const struct sup *, const char *type);
/* Append obj as one line to the metrics file, then free it. */
void metrics_emit(struct sup *, cJSON *obj);
/* Drop lines older than 30 days (or unreadable) by an atomic rewrite. */
void metrics_rotate(struct sup *);

/* promfile.c */
/*
 * supervisor-poll's own families of the tick's metrics (promtick.h), of
 * the host, or of --project P's alone (supervisor-poll-P.prom: two such
 * ticks on one host must not replace each other's file).
 */
extern const struct promtick_family sup_prom_families[];
/* The tick's alerts, host figures and nprojects checked into pt. */
void sup_prom_tick(struct promtick *pt, const struct sup *, size_t nprojects);

/* lists.c */
/*
 * Read the project's open PRs into the forge model s->pulls (with
 * s->reviewers for their verdicts) unless they are there: 0, or -1 when
 * they could not be read (logged; nothing kept, a later call asks
 * again).
 */
int lists_prs(struct sup *);
/* The same for the backlog (backlog.h), into s->backlog. */
int lists_backlog(struct sup *);
/*
 * 1 when the issue (a forge object) is open for more than
 * SUP_DEP_STALE_DAYS, the days in *days; else 0 and -1.
 */
int lists_stale(const struct sup *, const cJSON *issue, long long *days);
/* How many issues the backlog holds. */
long long lists_backlog_labelled(const struct sup *);
/*
 * The number of open issues carrying label, counted as the list is read
 * (the items are checked for the label themselves: Gitea ignores a
 * filter naming a label the repository does not have).  0 or -1 (logged).
 */
int lists_count_labelled(struct sup *, const char *label, long long *n);
/* Drop the project's lists (the next project reads its own). */
void lists_free(struct sup *);

/* host.c */
/* Memory, disk, stale one-shot runs, log rotation, the "infra" metric. */
void host_check(struct sup *);
/*
 * The host's crisis host_check() left (memory still critical, or the
 * disk still over 80 %, after its own fixes: the P0 and P1 alerts), in
 * why, or NULL when there is none.  No fix command runs then.
 */
const char *host_crisis(const struct sup *, char *why, size_t whysz);

/* procs.c */
struct proc_hit {
	pid_t pid;
	long long age; /* seconds since it started */
};
/*
 * This user's processes whose command line starts with the one-shot
 * agent command (the first words of SUPERVISOR_FIX_CMD), *n of them in
 * *out (caller frees).  0, or -1 when the proc directory cannot be read.
 */
int procs_agents(const struct config *, struct proc_hit **out, size_t *n);
/* 1 when some process works inside dir, 0 if none, -1 unknown. */
int procs_cwd_under(const struct config *, const char *dir);

/* pipelines.c: stuck pipelines, the "ci" metric, the infra retrigger. */
void pipelines_check(struct sup *);

/* devhealth.c: legacy lock and status, the clone, stall, productivity. */
void devhealth_check(struct sup *);

/* prs.c: conflicts, stale CI failures, unreviewed green PRs. */
void prs_check(struct sup *);

/* depgraph.c: dependency cycles, stale dependencies, the "dev" metric. */
void depgraph_check(struct sup *);

/* escalate.c: the escalation pass of the project (pollers/escalate.h). */
void sup_escalations(struct sup *);
/* Point the pass's context at the project (and forge) now checked. */
void sup_escalation_ctx(struct sup *);

/* replyfile.c: the legacy reply file, to the session it is for. */
void replyfile_check(struct sup *);

/* sweep.c: orphaned dev sessions; stale unused worktrees. */
void sweep_sessions(struct sup *);
void sweep_worktrees(struct sup *);

#endif
