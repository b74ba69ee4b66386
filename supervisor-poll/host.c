/*
 * The host layer, once per tick: memory crisis, disk pressure, stale
 * one-shot agent runs, log rotation and the "infra" metric.  It touches
 * only this user's one-shot agent processes and this toolkit's logs, and,
 * as upstream did (each switchable), the page cache on a memory crisis and
 * docker's unused data on disk pressure.  A crisis its own fixes did not
 * end holds the fix command back (host_crisis()).
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
#include "spawn.h"
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
/* Under the proc directory: the kernel's switch for dropping caches. */
#define DROP_CACHES "sys/vm/drop_caches"
/* docker system prune may take a while on a full disk. */
#define PRUNE_TIMEOUT_S 300
#define SUDO_TIMEOUT_S 60

static int host_mem_read(struct sup *);
static void host_mem_check(struct sup *);
static int host_mem_critical(const struct sup *);
static int host_in_path(const char *);
static void host_last_line(const struct buf *, char *, size_t);
static int host_privileged(struct sup *, const char *const *, int,
    const char *);
static void host_drop_caches(struct sup *);
static void host_docker_prune(struct sup *);
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
	if (host_mem_critical(s))
		sup_alert(s, P0,
		    "memory still critical after the fixes: %lld MB "
		    "available, %lld MB swap used",
		    s->mem_avail_mb, s->swap_used_mb);
	else
		log_msg("memory recovered: %lld MB available, %lld MB swap "
			"used",
		    s->mem_avail_mb, s->swap_used_mb);
}

/* Still critical once the fixes ran (upstream's re-check). */
static int
host_mem_critical(const struct sup *s)
{
	return s->mem_avail_mb < MEM_CRIT_MB || s->swap_used_mb > SWAP_HIGH_MB;
}

/* 1 when an executable name is on PATH, else 0. */
static int
host_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char *full;
	int found = 0;

	for (p = path != NULL ? path : ""; *p != '\0' && !found; p = end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		full = xasprintf("%.*s/%s", (int)(end - p), p, name);
		found = end > p && access(full, X_OK) == 0;
		free(full);
		if (*end == ':')
			end++;
	}
	return found;
}

/* The last non-empty line of a command's output, for one log line. */
static void
host_last_line(const struct buf *out, char *line, size_t linesz)
{
	const char *text = buf_str(out), *end = text + strlen(text), *p;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (p = end; p > text && p[-1] != '\n'; p--)
		;
	snprintf(line, linesz, "%.*s", (int)(end - p), p);
}

/*
 * Run argv with root's rights as upstream did: through "sudo -n" (never
 * asking for a password) when sudo is installed, else as it is (root, or
 * a user the program lets in).  A refusal or a failure is one log line
 * naming what was skipped.  0 when it ran and exited 0, -1 otherwise.
 */
static int
host_privileged(struct sup *s, const char *const *argv, int timeout_s,
    const char *what)
{
	const char *args[16];
	struct spawn_opts opts;
	struct buf out;
	char line[200];
	size_t i, n = 0;
	int status = 0, r;

	if (host_in_path("sudo")) {
		args[n++] = "sudo";
		args[n++] = "-n";
	}
	for (i = 0; argv[i] != NULL && n < 15; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	memset(&opts, 0, sizeof(opts));
	opts.timeout_s = timeout_s;
	opts.child_env = 1;
	buf_init(&out, 64 * 1024);
	r = act_run(&s->act, (char *const *)args, &opts, &out, &status, what);
	if (r == 0 && status == 0) {
		buf_free(&out);
		return 0;
	}
	host_last_line(&out, line, sizeof(line));
	if (r == -1 && errno == ETIMEDOUT)
		log_msg("%s skipped: no end after %d s", what, timeout_s);
	else
		log_warn("%s skipped: not permitted or failed (exit %d): %s",
		    what, status, line[0] ? line : "no output");
	buf_free(&out);
	return -1;
}

/*
 * Drop the page cache, as upstream did on a memory crisis: "sudo -n
 * sysctl" when sudo is installed, else root writes the kernel's switch
 * itself; anyone else skips it.
 */
static void
host_drop_caches(struct sup *s)
{
	static const char *const sysctl[] = {"sysctl", "-q", "-w",
	    "vm.drop_caches=3", NULL};
	char *path;

	if (!s->base->drop_caches) {
		log_msg("not dropping the caches: SUPERVISOR_DROP_CACHES is "
			"off");
		return;
	}
	path = xasprintf("%s/%s", s->base->proc_dir, DROP_CACHES);
	if (!s->act.dry_run)
		sync();
	if (host_in_path("sudo")) {
		if (host_privileged(s, sysctl, SUDO_TIMEOUT_S,
			"dropping the caches (sudo -n sysctl)") == 0)
			sup_fixed(s, "dropped the filesystem caches");
	} else if (geteuid() != 0)
		log_warn("dropping the caches skipped: not root and no sudo");
	else if (access(path, W_OK) == -1)
		log_warn("dropping the caches skipped: cannot write '%s': %s",
		    path, strerror(errno));
	else if (act_write_in_place(&s->act, path, "3\n") == 0)
		sup_fixed(s, "dropped the filesystem caches");
	free(path);
}

/*
 * On disk pressure, as upstream: "docker system prune -f" (it keeps
 * images in use and volumes) when docker is installed.
 */
static void
host_docker_prune(struct sup *s)
{
	static const char *const prune[] = {"docker", "system", "prune", "-f",
	    NULL};

	if (!s->base->docker_prune) {
		log_msg("not pruning docker: SUPERVISOR_DOCKER_PRUNE is off");
		return;
	}
	if (!host_in_path("docker")) {
		log_msg("docker prune skipped: docker is not installed");
		return;
	}
	if (host_privileged(s, prune, PRUNE_TIMEOUT_S, "docker prune") == 0)
		sup_fixed(s, "docker prune (docker system prune -f)");
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
	host_docker_prune(s);
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

const char *
host_crisis(const struct sup *s, char *why, size_t whysz)
{
	if (s->have_mem && host_mem_critical(s)) {
		snprintf(why, whysz,
		    "memory crisis: %lld MB available, %lld MB swap used",
		    s->mem_avail_mb, s->swap_used_mb);
		return why;
	}
	if (s->have_disk && s->disk_pct > DISK_HIGH_PCT) {
		snprintf(why, whysz, "disk crisis: %d%% used", s->disk_pct);
		return why;
	}
	return NULL;
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
