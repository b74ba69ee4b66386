/*
 * The agent slot (one dev session per project at a time) and the memory
 * guard that gates every launch.
 */
#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "lock.h"
#include "log.h"
#include "meminfo.h"
#include "parked.h"
#include "runfiles.h"
#include "xmalloc.h"

/* Launches need this much available memory (MB), as upstream. */
#define MEM_NEEDED_MB 2000

static enum dp_step slot_legacy(struct dev_ctx *);
static enum dp_step slot_session(struct dev_ctx *, long long);
static enum dp_step slot_phase(struct dev_ctx *, long long);

/* Legacy mode: the slot is the PID in dev-agent-P.lock. */
static enum dp_step
slot_legacy(struct dev_ctx *c)
{
	char *path = runfiles_dev_agent_lock(c->cfg->project_name);
	enum dp_step s = DP_NEXT;
	pid_t pid = 0;
	int r;

	if ((r = lock_pid_alive(path, &pid)) == 1) {
		log_msg("agent running (PID %ld)", (long)pid);
		s = DP_DONE;
	} else if (r == -1) {
		log_warn("cannot read '%s': %s", path, strerror(errno));
		s = DP_FAIL;
	} else if (file_exists(path)) {
		log_msg("removing stale dev-agent lock (PID %ld)", (long)pid);
		(void)act_remove(&c->act, path);
	}
	free(path);
	return s;
}

/*
 * A live dev-P-N session but except's: DP_DONE (logged), DP_NEXT none, or
 * DP_FAIL.
 */
static enum dp_step
slot_session(struct dev_ctx *c, long long except)
{
	const char *p = c->cfg->project_name;
	char *prefix = runfiles_dev_session_prefix(p), **names;
	enum dp_step r = DP_NEXT;
	long long num;
	size_t n, i;

	if (agent_list(prefix, &names, &n) == -1) {
		log_warn("cannot list the agent sessions");
		free(prefix);
		return DP_FAIL;
	}
	for (i = 0; i < n && r == DP_NEXT; i++) {
		num = runfiles_dev_session_issue(p, names[i]);
		if (num >= 0 && num != except) {
			log_msg("agent running (session %s)", names[i]);
			r = DP_DONE;
		}
	}
	agent_list_free(names, n);
	free(prefix);
	return r;
}

/*
 * A phase file but except's in a phase not terminal, and not a parked
 * escalation (its agent ended; a live session of it counts above):
 * DP_DONE (logged).
 */
static enum dp_step
slot_phase(struct dev_ctx *c, long long except)
{
	const char *p = c->cfg->project_name;
	struct phase_info sig;
	long long *issues;
	size_t n, i;
	char *path, *session;
	enum dp_step r = DP_NEXT;
	struct parked pk;
	int parked;

	if (dp_phase_issues(c, &issues, &n) == -1)
		return DP_FAIL;
	for (i = 0; i < n && r == DP_NEXT; i++) {
		if (issues[i] == except)
			continue;
		if ((parked = dp_parked(c, issues[i], &pk)) == -1) {
			r = DP_FAIL;
			break;
		}
		if (parked == 1)
			continue;
		path = runfiles_phase(p, issues[i]);
		session = runfiles_dev_session(p, issues[i]);
		if (agent_read_signal(session, path, &sig) == -1) {
			log_warn("cannot read '%s'", path);
			r = DP_FAIL;
		} else if (file_exists(path) && !phase_is_terminal(sig.phase)) {
			log_msg("agent running (#%lld in %s)", issues[i],
			    *sig.raw != '\0' ? sig.raw : "no phase yet");
			r = DP_DONE;
		}
		free(session);
		free(path);
	}
	free(issues);
	return r;
}

enum dp_step
dp_slot(struct dev_ctx *c)
{
	return dp_slot_except(c, 0);
}

enum dp_step
dp_slot_except(struct dev_ctx *c, long long except)
{
	enum dp_step s;

	if (c->legacy)
		return slot_legacy(c);
	if ((s = slot_session(c, except)) == DP_NEXT)
		s = slot_phase(c, except);
	return s;
}

enum dp_step
dp_memory(struct dev_ctx *c)
{
	long long mb;

	if (meminfo_mb(c->cfg->meminfo_path, "MemAvailable", &mb) == -1) {
		log_warn("cannot read MemAvailable from '%s'",
		    c->cfg->meminfo_path);
		return DP_FAIL;
	}
	if (mb < MEM_NEEDED_MB) {
		log_msg("SKIP: only %lldMB available (need %dMB)", mb,
		    MEM_NEEDED_MB);
		return DP_DONE;
	}
	return DP_NEXT;
}
