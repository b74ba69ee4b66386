/*
 * Whole-file reads and atomic replacement.  Every run file and state file
 * is written through file_write_atomic(): a temporary file in the same
 * directory, then rename(2), so a reader never sees half a file and a
 * symlink at the destination is replaced, never followed.
 */
#ifndef FILE_H
#define FILE_H

#include <stddef.h>
#include <time.h>

struct buf;

/*
 * Replace path with len bytes of data, created with mode.  With sync set
 * the data is fsync'd before the rename (for counters that must survive a
 * crash).  Returns 0, or -1 with errno set; the temporary is removed.
 */
int file_write_atomic(const char *path, const void *data, size_t len, int mode,
    int sync);
/*
 * Read at most max bytes of path into out (appended).  Returns 0, 1 when
 * the file was longer than max (out holds the first max bytes), or -1 with
 * errno set (ENOENT when it does not exist).
 */
int file_read(const char *path, size_t max, struct buf *out);
/*
 * Create path exclusively (O_CREAT|O_EXCL) with the given contents.
 * Returns 0 when created, 1 when it already existed, -1 on error.
 */
int file_create_excl(const char *path, const char *contents, int mode);
/* Modification time in *mtime: 0, or -1 (errno ENOENT when missing). */
int file_mtime(const char *path, time_t *mtime);
/* 1 if path exists (without following a final symlink), else 0. */
int file_exists(const char *path);
/* unlink(2) that treats a missing file as success: 0 or -1. */
int file_remove(const char *path);
/* mkdir -p of the directory holding path (mode 0755): 0 or -1. */
int file_mkdir_parent(const char *path);
/*
 * Append line and a newline to path in one write (O_APPEND, so lines of
 * concurrent writers never interleave), creating the file (0644) and its
 * directory when missing; a symlink at path is refused.  0, or -1 with
 * errno set.
 */
int file_append_line(const char *path, const char *line);
/* mkdir -p with mode for new components: 0 or -1. */
int file_mkdirs(const char *path, int mode);

#endif
