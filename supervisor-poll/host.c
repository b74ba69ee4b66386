/*
 * The host layer, once per tick: memory crisis, disk pressure, stale
 * one-shot agent runs, log rotation and the "infra" metric.  It touches
 * only this user's one-shot agent processes and this toolkit's logs.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "log.h"
#include "meminfo.h"
#include "runfiles.h"
#include "strv.h"
#include "supervisor-poll.h"
#include "xmalloc.h"

#define MEM_CRIT_MB 500
#define SWAP_HIGH_MB 3000
#define MEM_LOW_MB 2000
#define DISK_HIGH_PCT 80
#define STALE_AGENT_S (3 * 3600)
#define LOG_TRUNCATE_BYTES (10LL * 1024 * 1024)
#define LOG_ROTATE_BYTES (5LL * 1024 * 1024)
#define DROP_CACHES "/proc/sys/vm/drop_caches"

static int host_mem_read(struct sup *);
static void host_mem_check(struct sup *);
static void host_drop_caches(struct sup *);
static void host_reap_stale(struct sup *);
static int host_disk_read(struct sup *);
static void host_disk_check(struct sup *);
static char **host_log_files(void);
static void host_truncate_logs(struct sup *);
static void host_rotate_logs(struct sup *);
static void host_infra_metric(struct sup *);
static long long host_file_size(const char *);

static int
host_mem_read(struct sup *s)
{
	const char *path = s->base->meminfo_path;
	long long swap_total = 0, swap_free = 0;

	s->have_mem = 0;
	if (meminfo_mb(path, "MemAvailable", &s->mem_avail_mb) == -1 ||
	    meminfo_mb(path, "MemTotal", &s->mem_total_mb) == -1) {
		sup_fail(s, "cannot read memory figures from '%s'", path);
		return -1;
	}
	if (meminfo_mb(path, "SwapTotal", &swap_total) == -1 ||
	    meminfo_mb(path, "SwapFree", &swap_free) == -1)
		swap_total = swap_free = 0;
	s->swap_used_mb = swap_total > swap_free ? swap_total - swap_free : 0;
	s->have_mem = 1;
	return 0;
}

/* Memory crisis: stale one-shot runs stopped, caches dropped, re-check. */
static void
host_mem_check(struct sup *s)
{
	if (host_mem_read(s) == -1)
		return;
	if (s->mem_avail_mb >= MEM_CRIT_MB &&
	    (s->swap_used_mb <= SWAP_HIGH_MB || s->mem_avail_mb >= MEM_LOW_MB))
		return;
	log_msg("memory crisis: %lld MB available, %lld MB swap used — "
		"fixing",
	    s->mem_avail_mb, s->swap_used_mb);
	host_reap_stale(s);
	host_drop_caches(s);
	if (host_mem_read(s) == -1)
		return;
	if (s->mem_avail_mb < MEM_CRIT_MB || s->swap_used_mb > SWAP_HIGH_MB)
		sup_alert(s, P0,
		    "memory still critical after the fixes: %lld MB "
		    "available, %lld MB swap used",
		    s->mem_avail_mb, s->swap_used_mb);
	else
		log_msg("memory recovered: %lld MB available, %lld MB swap "
			"used",
		    s->mem_avail_mb, s->swap_used_mb);
}

/*
 * Only on the real host (the proc directory is /proc, not a test's) and
 * only where this user may write the kernel's switch.
 */
static void
host_drop_caches(struct sup *s)
{
	if (strcmp(s->base->proc_dir, "/proc") != 0 ||
	    access(DROP_CACHES, W_OK) == -1)
		return;
	if (!s->act.dry_run)
		sync();
	if (act_write_in_place(&s->act, DROP_CACHES, "3\n") == 0)
		sup_fixed(s, "dropped the filesystem caches");
}

/* Stop this user's one-shot agent runs older than 3 hours. */
static void
host_reap_stale(struct sup *s)
{
	struct proc_hit *hits = NULL;
	struct buf pids;
	size_t n, i, killed = 0;

	if (s->stale_reaped)
		return;
	s->stale_reaped = 1;
	buf_init(&pids, 0);
	if (procs_agents(s->base, &hits, &n) == -1) {
		sup_fail(s, "cannot list processes in '%s'", s->base->proc_dir);
		goto out;
	}
	s->agent_procs = n;
	for (i = 0; i < n; i++) {
		if (hits[i].age <= STALE_AGENT_S ||
		    act_signal(&s->act, hits[i].pid) == -1)
			continue;
		buf_printf(&pids, "%s%ld", killed++ ? " " : "",
		    (long)hits[i].pid);
	}
	if (killed > 0)
		sup_fixed(s,
		    "stopped %zu one-shot agent run(s) older than 3 h "
		    "(pid %s)",
		    killed, buf_str(&pids));
out:
	free(hits);
	buf_free(&pids);
}

static int
host_disk_read(struct sup *s)
{
	struct statvfs vf;
	unsigned long long used, avail;

	s->have_disk = 0;
	if (statvfs(s->base->disk_path, &vf) == -1) {
		sup_fail(s, "cannot read disk usage of '%s': %s",
		    s->base->disk_path, strerror(errno));
		return -1;
	}
	used = (unsigned long long)(vf.f_blocks - vf.f_bfree);
	avail = (unsigned long long)vf.f_bavail;
	/* As df(1): rounded up, of the space usable by non-root users. */
	s->disk_pct = used + avail == 0 ?
	    0 :
	    (int)((used * 100 + used + avail - 1) / (used + avail));
	s->have_disk = 1;
	return 0;
}

static void
host_disk_check(struct sup *s)
{
	if (host_disk_read(s) == -1 || s->disk_pct <= DISK_HIGH_PCT)
		return;
	log_msg("disk pressure: %d%% used — cleaning", s->disk_pct);
	host_truncate_logs(s);
	if (host_disk_read(s) == -1)
		return;
	if (s->disk_pct > DISK_HIGH_PCT)
		sup_alert(s, P1, "disk still %d%% used after cleaning",
		    s->disk_pct);
	else
		log_msg("disk recovered: %d%% used", s->disk_pct);
}

static long long
host_file_size(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode))
		return -1;
	return (long long)st.st_size;
}

/*
 * The toolkit's logs: every regular *.log in the directories of the dev,
 * review and supervisor logs.  NULL-ended; free with strv_free().
 */
static char **
host_log_files(void)
{
	char *anchors[3], **out = NULL;
	size_t n = 0, i;

	anchors[0] = runfiles_dev_log("x");
	anchors[1] = runfiles_review_log();
	anchors[2] = runfiles_supervisor_log();
	for (i = 0; i < 3; i++) {
		char *slash = strrchr(anchors[i], '/');
		struct dirent *de;
		DIR *d;

		if (slash == NULL)
			continue;
		*slash = '\0';
		if ((d = opendir(anchors[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);

			if (len < 5 || strcmp(de->d_name + len - 4, ".log"))
				continue;
			out = xreallocarray(out, n + 2, sizeof(*out));
			out[n++] = xasprintf("%s/%s", anchors[i], de->d_name);
			out[n] = NULL;
		}
		closedir(d);
	}
	for (i = 0; i < 3; i++)
		free(anchors[i]);
	return out;
}

static void
host_truncate_logs(struct sup *s)
{
	char **logs = host_log_files();
	size_t i;

	for (i = 0; logs != NULL && logs[i] != NULL; i++) {
		long long size = host_file_size(logs[i]);

		if (size > LOG_TRUNCATE_BYTES &&
		    act_truncate(&s->act, logs[i]) == 0)
			sup_fixed(s, "truncated %s (was %lld kB)", logs[i],
			    size / 1024);
	}
	strv_free(logs);
}

static void
host_rotate_logs(struct sup *s)
{
	char **logs = host_log_files(), *old;
	size_t i;

	for (i = 0; logs != NULL && logs[i] != NULL; i++) {
		if (host_file_size(logs[i]) <= LOG_ROTATE_BYTES)
			continue;
		old = xasprintf("%s.old", logs[i]);
		if (act_rename(&s->act, logs[i], old) == 0)
			sup_fixed(s, "rotated %s", logs[i]);
		free(old);
	}
	strv_free(logs);
}

static void
host_infra_metric(struct sup *s)
{
	cJSON *m = metrics_new(s, "infra");

	if (s->have_mem) {
		cJSON_AddNumberToObject(m, "ram_used_pct",
		    s->mem_total_mb > 0 ?
			(double)((s->mem_total_mb - s->mem_avail_mb) * 100 /
			    s->mem_total_mb) :
			0);
		cJSON_AddNumberToObject(m, "swap_mb", (double)s->swap_used_mb);
	}
	if (s->have_disk)
		cJSON_AddNumberToObject(m, "disk_used_pct", s->disk_pct);
	metrics_emit(s, m);
}

void
host_check(struct sup *s)
{
	sup_status(s, "P0: checking memory");
	host_mem_check(s);
	sup_status(s, "P1: checking disk");
	host_disk_check(s);
	host_infra_metric(s);
	sup_status(s, "P4: infra housekeeping");
	host_reap_stale(s);
	host_rotate_logs(s);
}
