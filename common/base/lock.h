/*
 * Advisory locks: flock(2) on a descriptor opened O_CLOEXEC, so spawned
 * programs never inherit them and a dead holder never leaves a stale
 * lock.  The holder's PID is written into the file for operators only.
 */
#ifndef LOCK_H
#define LOCK_H

#include <sys/types.h>

/*
 * Try to take the lock at path without waiting.  The file is opened with
 * file_open_lock(): a symlink, a non-regular file or a file of another
 * user is refused (-1, errno ELOOP, EISDIR, EINVAL or EPERM), a missing
 * one is created (0644) whole.  Returns 0 when taken (*fd holds it; the
 * file then contains "PID\n"), 1 when another process holds it, -1 on
 * error with errno set.
 */
int lock_take(const char *path, int *fd);

/*
 * Whether a process holds the lock at path, asked without taking it for
 * more than an instant and without writing anything (for a report):
 * 1 held, 0 free or no file there, -1 on error with errno set (what is
 * there is not a regular file of ours: file_open_read()).  A taker
 * trying at that instant finds the lock busy.
 */
int lock_held(const char *path);

/*
 * Take the lock at path, retrying every 50 ms for at most timeout_s
 * seconds.  Returns 0 when taken (*fd holds it), 1 on timeout, -1 on
 * error with errno set.
 */
int lock_wait(const char *path, int *fd, int timeout_s);

/*
 * Write this process's PID into the lock file held on fd (a lock handed
 * over by its holder), for operators; best effort.
 */
void lock_note_pid(int fd);

/*
 * Release a lock taken above and close fd (-1 is ignored).  The file is
 * left in place (a lock other programs share with flock: the agent
 * session lock).
 */
void lock_release(int fd);
/*
 * Release the lock at path held on fd and remove the file first, so that
 * no file with a PID that is gone stays behind for tools that read it
 * (upstream's supervisor preflight lists lock files with PIDs).  Safe
 * with the takers above: one that took the lock on the removed file sees
 * that path names another file, or none, and opens it again.
 */
void lock_release_remove(const char *path, int fd);

/*
 * For lock files written by the bash scripts, which hold only a PID: read
 * it into *pid (0 when there is none) and test whether that process
 * exists.  Returns 1 when it does, 0 when it does not or the file is
 * missing, empty or not a PID, -1 when the file cannot be read.
 */
int lock_pid_alive(const char *path, pid_t *pid);

#endif
