/*
 * The one git runner: "git -C DIR ARGS..." through spawn_run() with an
 * argv array (never a shell), a time limit and no terminal prompt.  It
 * only runs; commands that change a repository go through act_git() so
 * that --dry-run logs them instead.
 */
#ifndef GIT_H
#define GIT_H

#include <stddef.h>

struct buf;

/* Seconds a git command may take (a fetch over a slow link included). */
#define GIT_TIMEOUT_S 300

/*
 * Run git -C dir with args (NULL-ended), its output appended to out (may
 * be NULL; out's cap applies).  Returns git's exit status, or -1 when it
 * could not run or timed out.
 */
int git_run(const char *dir, const char *const *args, struct buf *out);
/*
 * The first line git printed, when it exited 0; else NULL, with its exit
 * status (or -1) in *status (may be NULL).  Caller frees.
 */
char *git_line(const char *dir, const char *const *args, int *status);
/*
 * The argv of "git -C dir args..." (NULL-ended), for a git that runs
 * detached.  Free the array only, not the strings.
 */
char **git_argv(const char *dir, const char *const *args);
/*
 * The path of rel inside the clone's common git directory (the one its
 * linked worktrees share: info/exclude, info/attributes), for the
 * checkout or worktree at dir, or NULL when dir is none.  Caller frees.
 */
char *git_common_path(const char *dir, const char *rel);
/* "git -C dir args..." for the log.  Caller frees. */
char *git_cmdline(const char *dir, const char *const *args);
/* The last non-empty line of text (git's last words) into line. */
const char *git_last_line(const char *text, char *line, size_t linesz);
/*
 * Whether the clone at dir is in the middle of a rebase: 1, 0, or -1 when
 * its git directory cannot be found.
 */
int git_in_rebase(const char *dir);
/*
 * How git reaches the remote url without the credentials in it on a
 * command line (where every local user reads them): the URL without its
 * user information into *clean (caller frees), and the variables of the
 * git that uses it into *env (NULL-ended; free with git_env_free(),
 * which wipes them): GIT_TERMINAL_PROMPT=0 and, for an http(s) URL with
 * credentials, an Authorization header (Basic, of its user and password,
 * percent-decoded) for that URL alone, as configuration given in the
 * environment (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0),
 * which only this user can read.  Other URLs (ssh, paths) come back as
 * they are.
 */
void git_remote_auth(const char *url, char **clean, char ***env);
void git_env_free(char **env);

#endif
