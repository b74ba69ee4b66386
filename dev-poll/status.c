/*
 * The operators' status line, dev-agent-status-P: what the tick is
 * doing, one line, replaced at each step.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "act.h"
#include "config.h"
#include "dev-poll.h"
#include "runfiles.h"
#include "xmalloc.h"

int
dp_status(struct dev_ctx *c, const char *fmt, ...)
{
	char *msg, *path;
	va_list ap;
	int r;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	path = runfiles_dev_status(c->cfg->project_name);
	r = act_status(&c->act, path, "dev-poll", "%s", msg);
	free(path);
	free(msg);
	return r;
}
