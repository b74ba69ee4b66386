/*
 * Where the agent CLI (Claude Code) keeps the conversations of a working
 * directory: HOME/.claude/projects/NAME, NAME the directory's absolute
 * path with every character but an ASCII letter or digit made '-' (one
 * per UTF-16 code unit, as the CLI's JavaScript counts them); a NAME
 * over 200 characters is cut there and gets '-' and the base-36 hash of
 * the path (the CLI's: Java's String.hashCode, its absolute value).
 * A session that ended for good leaves its conversation there; the next
 * session in the same directory would find it.
 */
#ifndef CONVDIR_H
#define CONVDIR_H

/* The directory's NAME for path.  Caller frees. */
char *convdir_name(const char *path);
/*
 * HOME/.claude/projects/NAME for the working directory path, or NULL
 * when home is no absolute path.  Caller frees.
 */
char *convdir_path(const char *home, const char *path);

#endif
