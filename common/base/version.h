/*
 * The version and the git commit the executables were built from, as the
 * Makefile passes them in.
 */
#ifndef VERSION_H
#define VERSION_H

/* "0.1.0 (commit 0123456789ab)", or "0.1.0 (built outside git)". */
const char *version_string(void);

#endif
