/*
 * Memory figures from a file in /proc/meminfo format (the path comes
 * from configuration, DISINTO_MEMINFO, so tests can give a fixture).
 */
#ifndef MEMINFO_H
#define MEMINFO_H

/*
 * The value of field ("MemAvailable", "SwapTotal", ...) in megabytes
 * (the file's kB divided by 1024, rounded down) in *mb.  Returns 0, or
 * -1 when the file cannot be read or has no such field with a number.
 */
int meminfo_mb(const char *path, const char *field, long long *mb);

#endif
