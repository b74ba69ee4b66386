/*
 * git, always through spawn_run() with an argv array and a time limit.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "buf.h"
#include "git.h"
#include "spawn.h"
#include "valid.h"
#include "xmalloc.h"

/* Output kept from a command read for its first line. */
#define GIT_LINE_MAX 4096

static int git_is_dir(const char *);
static char *git_unescape(const char *, size_t);

char **
git_argv(const char *dir, const char *const *args)
{
	size_t n = 0, i;
	char **argv;

	while (args[n] != NULL)
		n++;
	argv = xreallocarray(NULL, n + 4, sizeof(*argv));
	argv[0] = (char *)"git";
	argv[1] = (char *)"-C";
	argv[2] = (char *)dir;
	for (i = 0; i < n; i++)
		argv[3 + i] = (char *)args[i];
	argv[3 + n] = NULL;
	return argv;
}

int
git_run(const char *dir, const char *const *args, struct buf *out)
{
	static const char *const env[] = {"GIT_TERMINAL_PROMPT=0", NULL};
	struct spawn_opts o = {.env_add = env,
	    .timeout_s = GIT_TIMEOUT_S,
	    .child_env = 1};
	char **argv = git_argv(dir, args);
	int status, r;

	r = spawn_run(argv, &o, out, &status);
	free(argv);
	return r == -1 ? -1 : status;
}

char *
git_line(const char *dir, const char *const *args, int *status)
{
	struct buf out;
	char *line = NULL;
	int r;

	buf_init(&out, GIT_LINE_MAX);
	if ((r = git_run(dir, args, &out)) == 0)
		line = xstrndup(buf_str(&out), strcspn(buf_str(&out), "\r\n"));
	if (status != NULL)
		*status = r;
	buf_free(&out);
	return line;
}

char *
git_cmdline(const char *dir, const char *const *args)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	buf_printf(&b, "git -C %s", dir);
	for (i = 0; args[i] != NULL; i++)
		buf_printf(&b, " %s", args[i]);
	return buf_steal(&b);
}

const char *
git_last_line(const char *text, char *line, size_t linesz)
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

static int
git_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
git_in_rebase(const char *dir)
{
	static const char *const args[] = {"rev-parse", "--git-dir", NULL};
	char *gitdir, *top, *merge, *apply;
	int r;

	if ((gitdir = git_line(dir, args, NULL)) == NULL)
		return -1;
	top = gitdir[0] == '/' ? xstrdup(gitdir) :
				 xasprintf("%s/%s", dir, gitdir);
	merge = xasprintf("%s/rebase-merge", top);
	apply = xasprintf("%s/rebase-apply", top);
	r = git_is_dir(merge) || git_is_dir(apply);
	free(merge);
	free(apply);
	free(top);
	free(gitdir);
	return r;
}

/* The n bytes at s with %XX decoded.  Caller frees. */
static char *
git_unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n &&
		    valid_hex_digit((unsigned char)s[i + 1]) >= 0 &&
		    valid_hex_digit((unsigned char)s[i + 2]) >= 0) {
			out[k++] =
			    (char)(valid_hex_digit((unsigned char)s[i + 1]) *
				    16 +
				valid_hex_digit((unsigned char)s[i + 2]));
			i += 2;
		} else
			out[k++] = s[i];
	}
	out[k] = '\0';
	return out;
}

void
git_remote_auth(const char *url, char **clean, char ***env)
{
	const char *p = strstr(url, "://"), *info;
	char *user, *basic, *cred;
	size_t len, n = 0;

	*env = xcalloc(5, sizeof(**env));
	(*env)[n++] = xstrdup("GIT_TERMINAL_PROMPT=0");
	*clean = NULL;
	if (p == NULL ||
	    (strncmp(url, "http://", 7) != 0 &&
		strncmp(url, "https://", 8) != 0))
		goto plain;
	info = p + 3;
	len = strcspn(info, "/?#@");
	if (info[len] != '@' || len == 0)
		goto plain;
	*clean = xasprintf("%.*s%s", (int)(info - url), url, info + len + 1);
	user = git_unescape(info, len);
	/* A user alone is a token: "TOKEN:" (empty password). */
	cred =
	    strchr(user, ':') != NULL ? xstrdup(user) : xasprintf("%s:", user);
	basic = base64_encode(cred, strlen(cred));
	(*env)[n++] = xstrdup("GIT_CONFIG_COUNT=1");
	(*env)[n++] = xasprintf("GIT_CONFIG_KEY_0=http.%s.extraHeader", *clean);
	(*env)[n++] =
	    xasprintf("GIT_CONFIG_VALUE_0=Authorization: Basic %s", basic);
	explicit_bzero(user, strlen(user));
	explicit_bzero(cred, strlen(cred));
	explicit_bzero(basic, strlen(basic));
	free(user);
	free(cred);
	free(basic);
	return;
plain:
	*clean = xstrdup(url);
}

void
git_env_free(char **env)
{
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		explicit_bzero(env[i], strlen(env[i]));
		free(env[i]);
	}
	free(env);
}

char *
git_common_path(const char *dir, const char *rel)
{
	static const char *const common[] = {"rev-parse", "--git-common-dir",
	    NULL};
	char *d = git_line(dir, common, NULL), *path = NULL;

	if (d != NULL && *d != '\0')
		path = *d == '/' ? xasprintf("%s/%s", d, rel) :
				   xasprintf("%s/%s/%s", dir, d, rel);
	free(d);
	return path;
}
