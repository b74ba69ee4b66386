/*
 * The Makefile compiles this file with DISINTO_VERSION and DISINTO_COMMIT
 * (`git describe --always --dirty`, empty outside a git checkout), and
 * again whenever either changes.
 */
#include "version.h"

#ifndef DISINTO_VERSION
#define DISINTO_VERSION "unknown"
#endif
#ifndef DISINTO_COMMIT
#define DISINTO_COMMIT ""
#endif

const char *
version_string(void)
{
	return DISINTO_COMMIT[0] != '\0' ?
	    DISINTO_VERSION " (commit " DISINTO_COMMIT ")" :
	    DISINTO_VERSION " (built outside git)";
}
