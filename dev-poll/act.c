/*
 * Every side effect of a tick goes through here: forge writes, run-file
 * writes and removals.  Under --dry-run each is logged ("dry-run: would
 * ...") and not taken.  Failures are logged with the forge's reason.
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dev-poll.h"
#include "file.h"
#include "forge.h"
#include "log.h"
#include "runfiles.h"
#include "xmalloc.h"

static int rm_entry(const char *, const struct stat *, int, struct FTW *);

int
dp_comment(struct dev_ctx *c, long long issue, const char *body)
{
	if (c->dry_run) {
		log_msg("dry-run: would comment on #%lld (%zu bytes)", issue,
		    strlen(body));
		return 0;
	}
	if (forge_comment_create(c->forge, issue, body, NULL) == -1) {
		log_msg("cannot comment on #%lld: %s", issue,
		    forge_error(c->forge));
		return -1;
	}
	return 0;
}

int
dp_label_add(struct dev_ctx *c, long long issue, const char *name)
{
	if (c->dry_run) {
		log_msg("dry-run: would add label '%s' to #%lld", name, issue);
		return 0;
	}
	if (forge_issue_add_label_name(c->forge, issue, name) == -1) {
		log_msg("cannot add label '%s' to #%lld: %s", name, issue,
		    forge_error(c->forge));
		return -1;
	}
	return 0;
}

int
dp_label_remove(struct dev_ctx *c, long long issue, const char *name)
{
	if (c->dry_run) {
		log_msg("dry-run: would remove label '%s' from #%lld", name,
		    issue);
		return 0;
	}
	if (forge_issue_remove_label_name(c->forge, issue, name) == -1) {
		log_msg("cannot remove label '%s' from #%lld: %s", name, issue,
		    forge_error(c->forge));
		return -1;
	}
	return 0;
}

int
dp_issue_close(struct dev_ctx *c, long long issue)
{
	if (c->dry_run) {
		log_msg("dry-run: would close #%lld", issue);
		return 0;
	}
	if (forge_issue_close(c->forge, issue) == -1) {
		log_msg("cannot close #%lld: %s", issue, forge_error(c->forge));
		return -1;
	}
	return 0;
}

int
dp_write(struct dev_ctx *c, const char *path, const char *text, int sync)
{
	if (c->dry_run) {
		log_msg("dry-run: would write '%s'", path);
		return 0;
	}
	if (file_write_atomic(path, text, strlen(text), 0644, sync) == -1) {
		log_msg("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
dp_remove(struct dev_ctx *c, const char *path)
{
	if (!file_exists(path))
		return 0;
	if (c->dry_run) {
		log_msg("dry-run: would remove '%s'", path);
		return 0;
	}
	if (file_remove(path) == -1) {
		log_msg("cannot remove '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* nftw(3) callback: remove one entry, children before their directory. */
static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) == -1 ? -1 : 0;
	return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
}

int
dp_remove_tree(struct dev_ctx *c, const char *path)
{
	if (!file_exists(path))
		return 0;
	if (c->dry_run) {
		log_msg("dry-run: would remove the tree '%s'", path);
		return 0;
	}
	if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1) {
		log_msg("cannot remove '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
dp_mkdir(struct dev_ctx *c, const char *path)
{
	if (c->dry_run) {
		log_msg("dry-run: would create the directory '%s'", path);
		return 0;
	}
	if (file_mkdirs(path, 0755) == -1) {
		log_msg("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
dp_status(struct dev_ctx *c, const char *fmt, ...)
{
	char *msg, *path;
	va_list ap;
	int r = 0;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	path = runfiles_dev_status(c->cfg->project_name);
	if (c->dry_run)
		log_msg("dry-run: would set the status to '%s'", msg);
	else if ((r = log_status(path, "dev-poll", "%s", msg)) == -1)
		log_msg("cannot write '%s': %s", path, strerror(errno));
	free(path);
	free(msg);
	return r;
}
