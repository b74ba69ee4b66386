/*
 * The environment a tick runs with (DESIGN section 13).  A scheduled
 * tick records the settings it took from its environment
 * (tickenv_record(), in runfiles_tick_settings()); a wake, and the tick
 * it starts, drop the waker's values of those settings and take the
 * recorded ones (tickenv_adopt()), so that the agent's environment, a git
 * hook's or the webhook receiver's is never a source of configuration:
 * one run directory and one tick lock per tool and project.  Every tick
 * drops git's hook variables before anything runs git
 * (tickenv_scrub_git()).
 */
#ifndef TICKENV_H
#define TICKENV_H

#include <stddef.h>

struct buf;
struct config;

/* The largest record read. */
#define TICKENV_MAX (256 * 1024)

/*
 * Record at path the variables of this process's environment that cfg
 * reads as settings (config_env_setting()), each "NAME=VALUE" and a NUL
 * byte: a file of mode 0600, replaced atomically, left alone when it
 * holds them already.  0, or -1 with errno set.
 */
int tickenv_record(const char *path, const struct config *cfg);
/*
 * Read the record at path into rec: only a regular file of this user
 * that group and others can neither read nor write is a record.  1 read,
 * 0 when there is none, -1 when one is there but refused (errno EPERM)
 * or unreadable (errno set).
 */
int tickenv_load(const char *path, struct buf *rec);
/*
 * The value rec records for name, or NULL.  Borrowed from rec.
 */
const char *tickenv_get(const struct buf *rec, const char *name);
/*
 * Drop from this process's environment every variable that cfg (loaded
 * from it) reads as a setting and every name rec holds, then set rec's.
 */
void tickenv_adopt(const struct config *cfg, const struct buf *rec);
/*
 * Whether dir cannot be the run directory a wake names (--run-dir): 0
 * when it is an absolute path to a directory (not a symlink) that is
 * either this user's and writable by no one else, or root's and sticky
 * (/tmp, which DISINTO_RUN_DIR may name), and is no place where the
 * agents write (runfiles_agent_area()); else -1 with why set.
 */
int tickenv_run_dir_bad(const char *dir, char *why, size_t whysz);
/*
 * Unset git's variables of a hook and of one repository (GIT_DIR,
 * GIT_WORK_TREE, GIT_INDEX_FILE, GIT_QUARANTINE_PATH, GIT_OBJECT_DIRECTORY,
 * GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_PREFIX, GIT_PUSH_OPTION_*, the
 * command line's configuration GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT,
 * GIT_CONFIG_KEY_*, GIT_CONFIG_VALUE_*, ...): a tick started from a git
 * hook would run every git command on the hook's repository.  The
 * user's own (GIT_AUTHOR_*, GIT_CONFIG_GLOBAL, GIT_SSH_COMMAND, ...) stay.
 */
void tickenv_scrub_git(void);

#endif
