/*
 * Every open of a run file, state file, log or configuration file.  The
 * run directory is /tmp by default, where anyone can plant a symlink, a
 * FIFO or a directory under a name the tools use, so:
 * - nothing here follows a symlink at the final component (O_NOFOLLOW:
 *   ELOOP), or blocks on a FIFO (O_NONBLOCK);
 * - whatever is opened must be a regular file (fstat), else it is refused
 *   with errno EISDIR (a directory) or EINVAL (a FIFO, socket or device);
 *   files that are written in place (locks, touches, truncation) must
 *   also belong to the effective user (else EPERM);
 * - reads are capped by the caller's limit;
 * - files are replaced by file_write_atomic() (a temporary file in the
 *   same directory, then rename(2), so a reader never sees half a file and
 *   a symlink at the destination is replaced, never followed) and created
 *   whole under a temporary name, then link(2)ed into place.
 * A refusal is logged here ("refusing 'PATH': a FIFO, ..."), once per path
 * and process; the caller sees -1 with errno set, as for any failure.
 *
 * Below the private directory (file_private_dir(): the run directory,
 * whose files decide what the tools do) a file is trusted only when only
 * the running user can have written it: a regular file owned by the
 * effective user and writable by neither group nor others.  What another
 * user owns, or what group or others can write (a directory too), is
 * refused as above and then is not there for the tools: it reads as
 * missing (file_read(), file_open_read(), file_mtime(): errno ENOENT;
 * file_exists(): 0), so a tick goes on without it; it is never removed
 * (file_remove() leaves it and succeeds); the writes that would open it
 * in place refuse it (EPERM), file_write_atomic() replaces it where the
 * directory allows.  A symlink, FIFO or directory of the user's own is
 * refused as before (errno ELOOP, EINVAL, EISDIR: there, but unknown).
 */
#ifndef FILE_H
#define FILE_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

struct buf;

/*
 * Hold every path below dir (dir followed by '/') to the rule of files
 * only this user can have written (above).  One directory at a time: a
 * new call replaces the last; NULL turns the rule off.  dir is copied.
 */
void file_private_dir(const char *dir);
/*
 * Where the agents' user writes (AGENT_SANDBOX=user): below the session
 * directories (run_dir/sessions/active/NAME/...) and the worktrees
 * (run_dir/NAME-worktree-N...) of run_dir, take the files of uid as the
 * effective user's (its claims), and those of either as trusted when
 * writable by group (theirs) but not by others.  Anywhere else another
 * user's file stays refused.  NULL: none.  run_dir is copied.
 */
void file_claims(const char *run_dir, uid_t uid);
/*
 * 1 when a regular file is at path that passes the rule of the private
 * directory when path is below it; 0 when nothing is there or what is
 * there is refused (logged as above).  For a caller that renames a file
 * before reading it.
 */
int file_trusted(const char *path);

/*
 * Replace path with len bytes of data, created with mode.  With sync set
 * the data is fsync'd before the rename (for counters that must survive a
 * crash).  Anything but a regular file at path is refused.  Returns 0, or
 * -1 with errno set; the temporary is removed.
 */
int file_write_atomic(const char *path, const void *data, size_t len, int mode,
    int sync);
/*
 * Read at most max bytes of the regular file path into out (appended).
 * Returns 0, 1 when the file was longer than max (out holds the first max
 * bytes), or -1 with errno set (ENOENT when it does not exist; ELOOP,
 * EISDIR, EINVAL when it is not a regular file).
 */
int file_read(const char *path, size_t max, struct buf *out);
/*
 * A record file read whole and handed to parse(ctx, text, len): 0 when it
 * parsed, and 0 without parsing when there is no file; -1 with errno set
 * when it cannot be read, or (EINVAL) is longer than max or refused by
 * parse.
 */
int file_load(const char *path, size_t max,
    int (*parse)(void *ctx, const char *text, size_t len), void *ctx);
/*
 * Create path with the given contents (NULL: empty), whole from its first
 * moment, unless something is there already.  Returns 0 when created, 1
 * when a regular file already existed, -1 on error (a symlink or another
 * non-regular file there is refused).
 */
int file_create_excl(const char *path, const char *contents, int mode);
/*
 * Open the regular file path for reading (O_CLOEXEC), refusing anything
 * else as above.  The descriptor (caller closes), or -1 with errno set.
 */
int file_open_read(const char *path);
/*
 * Read all of fd, a file that must be this user's and of no one else
 * (mode 0600 or less), into out, the bytes read on the stack wiped
 * after: 0, or -1 (errno EPERM when the file is not private).  The
 * caller closes fd.
 */
int file_read_private(int fd, struct buf *out);
/*
 * Open the regular file path for appending, created with mode when
 * missing.  Allocates and logs nothing, so a child may call it between
 * fork and exec (and the log itself can be opened with it).  The
 * descriptor (caller closes), or -1 with errno set.
 */
int file_open_append(const char *path, int mode);
/*
 * Open the lock file path read-write: an existing one must be a regular
 * file owned by the effective user; a missing one is created (0644)
 * holding contents.  The descriptor (caller closes), or -1 with errno
 * set.
 */
int file_open_lock(const char *path, const char *contents);
/*
 * Create the marker path (empty, 0644) or set an existing one's times to
 * now; an existing one must be a regular file owned by the effective
 * user.  0, or -1 with errno set.
 */
int file_touch(const char *path);
/*
 * Empty the regular file path, owned by the effective user.  0, or -1
 * with errno set.
 */
int file_truncate(const char *path);
/*
 * Modification time of the regular file path (never of what a symlink
 * points to) in *mtime: 0, or -1 (errno ENOENT when missing; anything
 * else there is refused).
 */
int file_mtime(const char *path, time_t *mtime);
/*
 * 1 when path is below the private directory and what is there belongs
 * to another user (refused, logged once as above), else 0: for a write
 * that failed because another user's file holds its name.  errno is kept.
 */
int file_foreign(const char *path);
/*
 * 1 if path exists (without following a final symlink), else 0; below
 * the private directory, only what passes its rule counts.
 */
int file_exists(const char *path);
/*
 * unlink(2) that treats a missing file as success: 0 or -1.  Below the
 * private directory, what belongs to another user is left in place
 * (refused, logged) and counts as removed: it is never read anyway.
 */
int file_remove(const char *path);
/* mkdir -p of the directory holding path (mode 0755): 0 or -1. */
int file_mkdir_parent(const char *path);
/*
 * Append line and a newline to path in one write (O_APPEND, so lines of
 * concurrent writers never interleave), creating the file (0644) and its
 * directory when missing; anything but a regular file at path is
 * refused.  0, or -1 with errno set.
 */
int file_append_line(const char *path, const char *line);
/* mkdir -p with mode for new components: 0 or -1. */
int file_mkdirs(const char *path, int mode);
/*
 * Make dir a directory of this user alone: created with mode 0700 when
 * missing (its parent must exist); one already there must be a directory,
 * not a symlink, owned by the effective user, that group and others
 * can neither read nor write (0700, or 0711: passed through).  0, or -1 with
 * why set (what is wrong, and with what).
 */
int file_mkdir_private(const char *dir, char *why, size_t whysz);

#endif
