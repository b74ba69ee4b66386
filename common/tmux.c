/*
 * tmux through argv arrays.
 */
#include <sys/types.h>

#include <errno.h>
#include <time.h>

#include "buf.h"
#include "tmux.h"

void tmux_set_socket(const char *name) { (void)name; }
void tmux_set_tmpdir(const char *dir) { (void)dir; }
int tmux_valid_name(const char *name) { (void)name; return 0; }
int tmux_has_session(const char *name) { (void)name; return -1; }
int
tmux_list_sessions(const char *prefix, char ***names, size_t *n)
{
	(void)prefix; *names = NULL; *n = 0; return -1;
}
void tmux_list_free(char **names, size_t n) { (void)names; (void)n; }
int
tmux_new_session(const char *name, const char *cwd, char *const argv[],
    const char *const *env)
{
	(void)name; (void)cwd; (void)argv; (void)env; return -1;
}
int tmux_kill_session(const char *name) { (void)name; return -1; }
int
tmux_capture(const char *name, int lines, struct buf *out)
{
	(void)name; (void)lines; (void)out; return -1;
}
int
tmux_session_activity(const char *name, time_t *when)
{
	(void)name; (void)when; return -1;
}
int tmux_pane_pid(const char *name, pid_t *pid) { (void)name; (void)pid; return -1; }
int tmux_inject(const char *name, const char *text) { (void)name; (void)text; return -1; }
int
tmux_wait_ready(const char *name, const char *pattern, const char *marker_path,
    int timeout_s)
{
	(void)name; (void)pattern; (void)marker_path; (void)timeout_s;
	errno = ENOSYS;
	return -1;
}
