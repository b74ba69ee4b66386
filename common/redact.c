/*
 * Secret redaction.
 */
#include "redact.h"
#include "xmalloc.h"

char *
redact_secrets(const char *text)
{
	return xstrdup(text ? text : "");
}
