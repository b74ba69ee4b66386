/*
 * git, always through spawn_run() with an argv array and a time limit:
 * reads run even under --dry-run, commands that change a repository are
 * logged instead.  The forge remote, the fast-forward of the primary
 * branch after a merge and the mirror pushes live here too.
 */
#include <sys/types.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "dev-poll.h"
#include "log.h"
#include "spawn.h"
#include "xmalloc.h"

/* Seconds a git command may take (fetches over a slow link included). */
#define GIT_TIMEOUT 300
/* Output kept from one git command. */
#define GIT_OUT_MAX (256 * 1024)
#define GIT_ARGS_MAX 16

static size_t git_argv(char **, const char *, va_list);
static int git_run(char *const *, struct buf *);
static void git_describe(struct buf *, char *const *);
static const char *last_line(const char *, char *, size_t);
static void forge_host(const char *, char *, size_t);

/* Fill argv with "git -C dir" and the NULL-ended arguments: the count. */
static size_t
git_argv(char **argv, const char *dir, va_list ap)
{
	const char *a;
	size_t n = 0;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)dir;
	while ((a = va_arg(ap, const char *)) != NULL && n < GIT_ARGS_MAX - 1)
		argv[n++] = (char *)a;
	argv[n] = NULL;
	return n;
}

/* Run git: its exit status, or -1 when it could not run or timed out. */
static int
git_run(char *const *argv, struct buf *out)
{
	static const char *const env[] = {"GIT_TERMINAL_PROMPT=0", NULL};
	struct spawn_opts o = {.env_add = env, .timeout_s = GIT_TIMEOUT};
	int status;

	if (spawn_run(argv, &o, out, &status) == -1)
		return -1;
	return status;
}

/* "git -C dir a b c" for the log (arguments are paths, names, refs). */
static void
git_describe(struct buf *b, char *const *argv)
{
	size_t i;

	for (i = 0; argv[i] != NULL; i++)
		buf_printf(b, "%s%s", i ? " " : "", argv[i]);
}

/* The last non-empty line of text into line. */
static const char *
last_line(const char *text, char *line, size_t linesz)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(line, linesz, "%.*s", (int)(end - start), start);
	return line;
}

int
dp_git(struct dev_ctx *c, const char *dir, struct buf *out, ...)
{
	char *argv[GIT_ARGS_MAX];
	va_list ap;

	(void)c;
	va_start(ap, out);
	git_argv(argv, dir, ap);
	va_end(ap);
	return git_run(argv, out);
}

int
dp_git_change(struct dev_ctx *c, const char *dir, ...)
{
	char *argv[GIT_ARGS_MAX], line[256];
	struct buf cmd, out;
	va_list ap;
	int r;

	va_start(ap, dir);
	git_argv(argv, dir, ap);
	va_end(ap);
	buf_init(&cmd, 0);
	buf_init(&out, GIT_OUT_MAX);
	git_describe(&cmd, argv);
	if (c->dry_run) {
		log_msg("dry-run: would run '%s'", buf_str(&cmd));
		r = 0;
		goto out;
	}
	if ((r = git_run(argv, &out)) != 0)
		log_msg("'%s' failed (%s %d): %s", buf_str(&cmd),
		    r == -1 ? "error" : "exit", r,
		    last_line(buf_str(&out), line, sizeof(line)));
out:
	buf_free(&out);
	buf_free(&cmd);
	return r;
}

char *
dp_git_line(struct dev_ctx *c, const char *dir, ...)
{
	char *argv[GIT_ARGS_MAX], *nl, *line = NULL;
	struct buf out;
	va_list ap;

	(void)c;
	va_start(ap, dir);
	git_argv(argv, dir, ap);
	va_end(ap);
	buf_init(&out, GIT_OUT_MAX);
	if (git_run(argv, &out) == 0) {
		line = buf_steal(&out);
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
	}
	buf_free(&out);
	return line;
}

/* The host (with port) of url: "http://h:3000/x" gives "h:3000". */
static void
forge_host(const char *url, char *host, size_t hostsz)
{
	const char *p = strstr(url, "://"), *end;

	p = p != NULL ? p + 3 : url;
	if ((end = strchr(p, '/')) == NULL)
		end = p + strlen(p);
	snprintf(host, hostsz, "%.*s", (int)(end - p), p);
}

char *
dp_forge_remote(struct dev_ctx *c)
{
	char host[256], name[128], url[1024], kind[16], *line, *save = NULL;
	char *found = NULL;
	struct buf out;

	forge_host(c->cfg->forge_url, host, sizeof(host));
	buf_init(&out, GIT_OUT_MAX);
	if (*host != '\0' &&
	    dp_git(c, c->cfg->project_repo_root, &out, "remote", "-v", NULL) ==
		0 &&
	    out.data != NULL) {
		for (line = strtok_r(out.data, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%127s %1023s %15s", name, url,
				kind) == 3 &&
			    strcmp(kind, "(push)") == 0 &&
			    strstr(url, host) != NULL) {
				found = xstrdup(name);
				break;
			}
		}
	}
	buf_free(&out);
	return found != NULL ? found : xstrdup("origin");
}

int
dp_git_ff_primary(struct dev_ctx *c)
{
	const char *root = c->cfg->project_repo_root;
	const char *primary = c->cfg->primary_branch;
	char *remote = dp_forge_remote(c);
	int r = 0;

	if (dp_git_change(c, root, "fetch", remote, primary, NULL) != 0 ||
	    dp_git_change(c, root, "checkout", primary, NULL) != 0 ||
	    dp_git_change(c, root, "pull", "--ff-only", remote, primary,
		NULL) != 0)
		r = -1;
	free(remote);
	return r;
}

void
dp_mirror_push(struct dev_ctx *c)
{
	const struct config *cfg = c->cfg;
	char *argv[] = {"git", "-C", cfg->project_repo_root, "push", NULL,
	    cfg->primary_branch, "--tags", NULL};
	size_t i;
	pid_t pid;

	for (i = 0; i < cfg->nmirrors; i++) {
		if (cfg->mirrors[i].url == NULL || *cfg->mirrors[i].url == '\0')
			continue;
		if (c->dry_run) {
			log_msg("dry-run: would push %s to mirror %s",
			    cfg->primary_branch, cfg->mirrors[i].name);
			continue;
		}
		argv[4] = cfg->mirrors[i].url;
		if (spawn_detached(argv, NULL, NULL, &pid) == -1)
			log_msg("mirror: cannot push to %s",
			    cfg->mirrors[i].name);
		else
			log_msg("mirror: pushed to %s (pid %ld)",
			    cfg->mirrors[i].name, (long)pid);
	}
}
