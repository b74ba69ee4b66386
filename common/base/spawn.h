/*
 * The only fork/exec code: run a program from an argv array (never through
 * a shell), optionally capturing its output under a time limit, or start
 * one detached so it outlives the caller.
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <sys/types.h>

struct buf;

struct spawn_opts {
	const char *cwd;	    /* NULL: the caller's */
	const char *const *env_add; /* "K=V" entries, NULL-ended */
	int timeout_s;		    /* 0: no limit */
	int grace_ms;		    /* SIGTERM to SIGKILL; 0: 2000 */
	const char *in_path;	    /* stdin; NULL: /dev/null */
	int child_env; /* 1: the tool's child environment under env_add */
	/* Which of the caller's variables the child inherits (name: 1
	 * keep, 0 drop); NULL: all.  env_add's are set either way. */
	int (*env_keep)(const char *name);
};

/*
 * The environment the tool's own children (git, the fix command, a
 * mirror push, the tools it starts) get on top of what it inherits, when
 * their options ask for it (child_env): env is copied ("K=V",
 * NULL-ended); NULL frees the copy, wiping it.
 */
void spawn_set_child_env(const char *const *env);

/*
 * Run argv[0] (looked up in PATH) with argv, stdin from /dev/null (or
 * opts->in_path, a file, never followed through a symbolic link) and
 * stdout+stderr into out (appended; bytes past out's cap, or past 16 MiB
 * when it has none, are read and dropped) or to /dev/null when out is
 * NULL.  The child gets its own process group and no descriptor above 2.
 * *status receives the exit code, or 128 + the signal number, or 127
 * when the program could not be started.  Returns 0 when the child ran to
 * an exit status of any value, -1 on a fork or pipe failure, or on
 * timeout (errno ETIMEDOUT; the group got SIGTERM, then SIGKILL after the
 * grace period, and *status is still filled).
 */
int spawn_run(char *const argv[], const struct spawn_opts *opts,
    struct buf *out, int *status);

/*
 * Start argv detached, like nohup: in a new session and a process group
 * of its own, SIGHUP ignored, stdin from /dev/null, stdout+stderr
 * appended to log_path (NULL: /dev/null), in cwd (NULL: the caller's),
 * with no inherited descriptor above 2, and never a zombie of the caller
 * (spawn_detached_ex() with those options).  *pid (may be NULL) receives
 * its process ID.  Returns 0 once the program has been executed, -1 with
 * errno set when it could not be (fork failure, missing program, bad cwd
 * or log path).
 */
int spawn_detached(char *const argv[], const char *cwd, const char *log_path,
    pid_t *pid);

/* How spawn_detached_ex() starts a program. */
struct spawn_detached_opts {
	const char *cwd;	    /* NULL: the caller's */
	const char *const *env_add; /* "K=V" entries, NULL-ended, or NULL */
	const char *out_path;	    /* stdout, truncated (0600); NULL: none */
	const char *err_path;	    /* stderr, likewise */
	const char *log_path;	    /* or both appended to it (0644) */
	/* Inherited as descriptors 3, 4, ... (locks the program holds for
	 * as long as it runs): -1-ended, at most SPAWN_KEEP_MAX, or NULL. */
	const int *keep_fds;
	/* stdin: a file (never followed through a symbolic link); NULL:
	 * /dev/null. */
	const char *in_path;
	/* Which of the caller's variables the program inherits (name: 1
	 * keep, 0 drop); NULL: all.  env_add's are set either way. */
	int (*env_keep)(const char *name);
	/* 1: the tool's child environment (spawn_set_child_env()) under
	 * env_add; never for an agent, whose variables are its own. */
	int child_env;
};

#define SPAWN_KEEP_MAX 4

/*
 * Start argv detached as spawn_detached() says, with the options of o:
 * the program leads a process group of its own (its ID is *pid), and
 * keeps o->keep_fds.  Returns 0 once the program has been executed, -1 with
 * errno set when it could not be.
 */
int spawn_detached_ex(char *const argv[], const struct spawn_detached_opts *o,
    pid_t *pid);

/*
 * The number of programs spawn_run() and spawn_detached() have started
 * (forked) in this process so far.
 */
unsigned long spawn_count(void);

#endif
