/*
 * Process spawning without a shell.
 */
#include <sys/types.h>

#include <errno.h>

#include "buf.h"
#include "spawn.h"

int
spawn_run(char *const argv[], const struct spawn_opts *opts, struct buf *out,
    int *status)
{
	(void)argv; (void)opts; (void)out; (void)status;
	errno = ENOSYS;
	return -1;
}

int
spawn_detached(char *const argv[], const char *cwd, const char *log_path,
    pid_t *pid)
{
	(void)argv; (void)cwd; (void)log_path; (void)pid;
	errno = ENOSYS;
	return -1;
}
