/*
 * The PID files upstream's bash scripts keep while they run by hand or
 * from a fix command (dev-agent.sh N: dev-agent-P.lock; review-pr.sh R:
 * P-review.lock, both in the run directory), read so that the tools
 * stand back from the issue or PR such a run works on.  A run is told by
 * its process: alive, and its command line naming the script; the
 * number it works on is the script's first argument.
 */
#ifndef BASHLOCK_H
#define BASHLOCK_H

#include <sys/types.h>

enum bashlock_state {
	BASHLOCK_NONE, /* no file, no PID in it, or not the script's process */
	BASHLOCK_HELD, /* a live run of the script */
	BASHLOCK_DEAD  /* a PID that is gone */
};

struct bashlock {
	enum bashlock_state state;
	pid_t pid;	  /* the PID in the file, or 0 */
	long long number; /* HELD: the script's first argument, 0 unknown */
};

/*
 * Read the PID file at path and tell whether a live process running the
 * script called script (a word of its command line ending in "/script"
 * or equal to it) holds it, from proc_dir's PID/cmdline.  0 with *out
 * filled, or -1 when the file cannot be read (errno set).
 */
int bashlock_read(const char *path, const char *script, const char *proc_dir,
    struct bashlock *out);

#endif
