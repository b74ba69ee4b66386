/*
 * The confinement of an agent (sandbox.h): the bubblewrap or sudo words
 * put before the agent's command line, and the choice between them.
 */
#define _XOPEN_SOURCE 700 /* nftw(3) */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "file.h"
#include "log.h"
#include "runfiles.h"
#include "sandbox.h"
#include "spawn.h"
#include "strv.h"
#include "xmalloc.h"

/* How long a probe may take. */
#define SANDBOX_PROBE_S 10
/* The first line of a git worktree's .git file. */
#define SANDBOX_GITDIR "gitdir: "

/* The vector being built. */
struct sandbox_v {
	char **v;
	size_t n;
};

static struct sandbox_conf sandbox_conf;
/* sandbox_set() copies the members as strings. */
_Static_assert(sizeof(struct sandbox_conf) == 11 * sizeof(const char *),
    "struct sandbox_conf holds strings only");
static int sandbox_have;
/* The choice, tried once: 0 not yet, 1 made, -1 refused (why below). */
static int sandbox_chosen;
static enum sandbox_kind sandbox_kind_chosen;
static char sandbox_why[1024];
/* The agents' group (AGENT_USER's), for sandbox_share_one(). */
static gid_t sandbox_gid;
static int sandbox_have_user;

static void sandbox_push(struct sandbox_v *, const char *);
static void sandbox_push3(struct sandbox_v *, const char *, const char *,
    const char *);
static void sandbox_conf_free(void);
static int sandbox_below(const char *, const char *);
static int sandbox_hidden(const struct sandbox_conf *, const char *);
static void sandbox_bind_list(struct sandbox_v *, const char *, const char *);
static void sandbox_home(struct sandbox_v *, const struct sandbox_conf *);
static void sandbox_home_path(struct sandbox_v *, const struct sandbox_conf *);
static void sandbox_secrets(struct sandbox_v *, const struct sandbox_conf *);
static char *sandbox_git_common(const char *, char **);
static void sandbox_git(struct sandbox_v *, const char *);
static void sandbox_bwrap(struct sandbox_v *, const struct sandbox_conf *,
    const struct sandbox_target *);
static void sandbox_user(struct sandbox_v *, const struct sandbox_conf *,
    const struct sandbox_target *);
static const char *sandbox_env(const struct sandbox_target *, const char *);
static char **sandbox_true(enum sandbox_kind);
static void sandbox_settings(const char *);
static int sandbox_share_one(const char *, const struct stat *, int,
    struct FTW *);
static int sandbox_share(const char *, const struct sandbox_target *);

static void
sandbox_push(struct sandbox_v *s, const char *w)
{
	s->v = xreallocarray(s->v, s->n + 2, sizeof(*s->v));
	s->v[s->n++] = xstrdup(w);
	s->v[s->n] = NULL;
}

/* An option with two arguments (b, c NULL: fewer). */
static void
sandbox_push3(struct sandbox_v *s, const char *a, const char *b, const char *c)
{
	sandbox_push(s, a);
	if (b != NULL)
		sandbox_push(s, b);
	if (c != NULL)
		sandbox_push(s, c);
}

static void
sandbox_conf_free(void)
{
	const char **f[] = {&sandbox_conf.mode, &sandbox_conf.bwrap,
	    &sandbox_conf.user, &sandbox_conf.home, &sandbox_conf.path,
	    &sandbox_conf.factory_root, &sandbox_conf.run_dir,
	    &sandbox_conf.exe, &sandbox_conf.tmux_dir, &sandbox_conf.ro,
	    &sandbox_conf.rw};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		free((char *)*f[i]);
		*f[i] = NULL;
	}
}

void
sandbox_set(const struct sandbox_conf *conf)
{
	const char *const *from;
	const char **to;
	size_t i, n = sizeof(*conf) / sizeof(const char *);

	sandbox_conf_free();
	sandbox_chosen = 0;
	sandbox_have = conf != NULL;
	if (conf == NULL)
		return;
	/* Every member is a string. */
	from = (const char *const *)(const void *)conf;
	to = (const char **)(void *)&sandbox_conf;
	for (i = 0; i < n; i++)
		to[i] = from[i] != NULL && *from[i] != '\0' ? xstrdup(from[i]) :
							      NULL;
	/*
	 * The agents' user's files in the session directories are its
	 * claims, read as the tools' own (file.h) where it may run agents.
	 */
	sandbox_have_user = 0;
	file_claims(NULL, 0);
	if (sandbox_conf.user != NULL && sandbox_conf.run_dir != NULL &&
	    (sandbox_conf.mode == NULL ||
		strcmp(sandbox_conf.mode, SANDBOX_AUTO) == 0 ||
		strcmp(sandbox_conf.mode, SANDBOX_USER) == 0)) {
		struct passwd *pw = getpwnam(sandbox_conf.user);

		if (pw != NULL && pw->pw_uid != geteuid()) {
			file_claims(sandbox_conf.run_dir, pw->pw_uid);
			sandbox_gid = pw->pw_gid;
			sandbox_have_user = 1;
		}
	}
}

const char *
sandbox_kind_name(enum sandbox_kind kind)
{
	switch (kind) {
	case SANDBOX_KIND_BWRAP:
		return SANDBOX_BWRAP;
	case SANDBOX_KIND_USER:
		return SANDBOX_USER;
	default:
		return "none";
	}
}

/* 1 when path is dir or below it. */
static int
sandbox_below(const char *path, const char *dir)
{
	size_t n;

	if (path == NULL || dir == NULL)
		return 0;
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/* 1 when path lies under one of the empty directories of the sandbox. */
static int
sandbox_hidden(const struct sandbox_conf *c, const char *path)
{
	return sandbox_below(path, "/tmp") || sandbox_below(path, c->home) ||
	    sandbox_below(path, c->run_dir) || sandbox_below(path, c->tmux_dir);
}

/* opt SRC SRC for each absolute path of the ':'-separated list. */
static void
sandbox_bind_list(struct sandbox_v *s, const char *opt, const char *list)
{
	char *copy, *p, *save = NULL;

	if (list == NULL)
		return;
	copy = xstrdup(list);
	for (p = strtok_r(copy, ":", &save); p != NULL;
	     p = strtok_r(NULL, ":", &save))
		if (p[0] == '/')
			sandbox_push3(s, opt, p, p);
	free(copy);
}

/*
 * The directories of the PATH under HOME, read-only: each by its first
 * component below HOME (~/.local for ~/.local/bin, ~/.pyenv for its
 * shims, whose interpreters are in ~/.pyenv/versions).  HOME itself
 * never.
 */
static void
sandbox_home_path(struct sandbox_v *s, const struct sandbox_conf *c)
{
	const char *home = c->home;
	char *copy, *p, *save = NULL, *top, *slash;
	size_t n;

	if (c->path == NULL || home == NULL)
		return;
	n = strlen(home);
	copy = xstrdup(c->path);
	for (p = strtok_r(copy, ":", &save); p != NULL;
	     p = strtok_r(NULL, ":", &save)) {
		if (!sandbox_below(p, home) || p[n] != '/' || p[n + 1] == '\0')
			continue;
		top = xstrdup(p);
		if ((slash = strchr(top + n + 1, '/')) != NULL)
			*slash = '\0';
		sandbox_push3(s, "--ro-bind-try", top, top);
		free(top);
	}
	free(copy);
}

/* HOME: empty, its agent CLI's configuration and git's read-only. */
static void
sandbox_home(struct sandbox_v *s, const struct sandbox_conf *c)
{
	const char *ro[] = {".gitconfig", ".config/git", NULL};
	const char *h = c->home;
	char *p;
	size_t i;

	sandbox_home_path(s, c);
	for (i = 0; ro[i] != NULL; i++) {
		p = xasprintf("%s/%s", h, ro[i]);
		sandbox_push3(s, "--ro-bind-try", p, p);
		free(p);
	}
}

/*
 * The factory's secrets, hidden: its .env, .env.* and *.enc files (an
 * empty file over each), and a secrets/ directory (an empty one).
 */
static void
sandbox_secrets(struct sandbox_v *s, const struct sandbox_conf *c)
{
	const char *pats[] = {"%s/.env", "%s/.env.*", "%s/*.enc", "%s/secrets",
	    "%s/projects/*.env", NULL};
	struct stat st;
	char *pat;
	glob_t g;
	size_t i, k;

	if (c->factory_root == NULL)
		return;
	for (i = 0; pats[i] != NULL; i++) {
		pat = xasprintf(pats[i], c->factory_root);
		if (glob(pat, GLOB_NOSORT, NULL, &g) == 0)
			for (k = 0; k < g.gl_pathc; k++) {
				if (lstat(g.gl_pathv[k], &st) == -1)
					continue;
				if (S_ISDIR(st.st_mode))
					sandbox_push3(s, "--tmpfs",
					    g.gl_pathv[k], NULL);
				else
					sandbox_push3(s, "--ro-bind",
					    "/dev/null", g.gl_pathv[k]);
			}
		globfree(&g);
		free(pat);
	}
}

/*
 * The git directory workdir's commits go to: its repository's common
 * directory, and in *name the worktree's entry under its worktrees/
 * (NULL: workdir is a clone, its .git inside it).  NULL when workdir has
 * no .git.  Caller frees both.
 */
static char *
sandbox_git_common(const char *workdir, char **name)
{
	char *dotgit = xasprintf("%s/.git", workdir), *gitdir = NULL;
	char *common = NULL, line[PATH_MAX + 16], abs[PATH_MAX], *base;
	struct stat st;
	FILE *f = NULL;
	size_t n;

	*name = NULL;
	if (lstat(dotgit, &st) == -1)
		goto out;
	if (S_ISDIR(st.st_mode)) {
		common = xstrdup(dotgit);
		goto out;
	}
	if ((f = fopen(dotgit, "re")) == NULL ||
	    fgets(line, sizeof(line), f) == NULL ||
	    strncmp(line, SANDBOX_GITDIR, strlen(SANDBOX_GITDIR)) != 0)
		goto out;
	line[strcspn(line, "\r\n")] = '\0';
	gitdir = line[strlen(SANDBOX_GITDIR)] == '/' ?
	    xstrdup(line + strlen(SANDBOX_GITDIR)) :
	    xasprintf("%s/%s", workdir, line + strlen(SANDBOX_GITDIR));
	/* .../.git/worktrees/NAME: the common directory two levels up. */
	n = strlen(gitdir);
	while (n > 1 && gitdir[n - 1] == '/')
		gitdir[--n] = '\0';
	if ((base = strrchr(gitdir, '/')) == NULL)
		goto out;
	*name = xstrdup(base + 1);
	*base = '\0';
	if (strcmp(strrchr(gitdir, '/') ? strrchr(gitdir, '/') + 1 : gitdir,
		"worktrees") != 0 ||
	    realpath(gitdir, abs) == NULL) {
		free(*name);
		*name = NULL;
		goto out;
	}
	*strrchr(abs, '/') = '\0';
	common = xstrdup(abs);
out:
	if (f != NULL)
		fclose(f);
	free(gitdir);
	free(dotgit);
	return common;
}

/*
 * The repository's git directory read-write for the worktree's commits;
 * its config, hooks and the other worktrees' entries read-only.
 */
static void
sandbox_git(struct sandbox_v *s, const char *workdir)
{
	char *name = NULL, *common = sandbox_git_common(workdir, &name), *p;
	const char *ro[] = {"config", "hooks", "info", NULL};
	size_t i;

	if (common == NULL)
		return;
	sandbox_push3(s, "--bind", common, common);
	for (i = 0; ro[i] != NULL; i++) {
		p = xasprintf("%s/%s", common, ro[i]);
		sandbox_push3(s, "--ro-bind-try", p, p);
		free(p);
	}
	if (name != NULL) {
		p = xasprintf("%s/worktrees", common);
		sandbox_push3(s, "--ro-bind", p, p);
		free(p);
		p = xasprintf("%s/worktrees/%s", common, name);
		sandbox_push3(s, "--bind", p, p);
		free(p);
	}
	free(name);
	free(common);
}

/*
 * The bubblewrap words (sandbox.h says what each protects).  The
 * operator's additions come before what is hidden whatever they say:
 * the run directory, tmux's sockets, the factory's secrets.
 */
static void
sandbox_bwrap(struct sandbox_v *s, const struct sandbox_conf *c,
    const struct sandbox_target *t)
{
	char *p, *exedir;

	sandbox_push(s, c->bwrap != NULL ? c->bwrap : "bwrap");
	sandbox_push3(s, "--die-with-parent", "--unshare-pid", NULL);
	sandbox_push3(s, "--unshare-ipc", "--cap-drop", "ALL");
	if (t->oneshot)
		sandbox_push(s, "--new-session");
	sandbox_push3(s, "--ro-bind", "/", "/");
	sandbox_push3(s, "--dev", "/dev", NULL);
	sandbox_push3(s, "--proc", "/proc", NULL);
	sandbox_push3(s, "--tmpfs", "/tmp", NULL);
	if (c->home != NULL && strcmp(c->home, "/") != 0) {
		sandbox_push3(s, "--tmpfs", c->home, NULL);
		sandbox_home(s, c);
	}
	sandbox_bind_list(s, "--ro-bind-try", c->ro);
	sandbox_bind_list(s, "--bind-try", c->rw);
	/* Empty whatever was bound above: the run directory, tmux's. */
	if (c->run_dir != NULL && strcmp(c->run_dir, "/") != 0)
		sandbox_push3(s, "--tmpfs", c->run_dir, NULL);
	if (c->tmux_dir != NULL && !sandbox_below(c->tmux_dir, c->run_dir))
		sandbox_push3(s, "--tmpfs", c->tmux_dir, NULL);
	/* Read-only: the factory, the hooks' executable; no secrets. */
	if (c->factory_root != NULL)
		sandbox_push3(s, "--ro-bind-try", c->factory_root,
		    c->factory_root);
	if (c->exe != NULL && (p = strrchr(c->exe, '/')) != NULL &&
	    sandbox_hidden(c, c->exe)) {
		exedir = xstrndup(c->exe, (size_t)(p - c->exe));
		sandbox_push3(s, "--ro-bind", exedir, exedir);
		free(exedir);
	}
	sandbox_secrets(s, c);
	/* Read-write: the CLI's own state, the session's places. */
	if (c->home != NULL) {
		p = xasprintf("%s/.claude", c->home);
		sandbox_push3(s, "--bind-try", p, p);
		free(p);
		p = xasprintf("%s/.claude.json", c->home);
		sandbox_push3(s, "--bind-try", p, p);
		free(p);
	}
	sandbox_git(s, t->workdir);
	sandbox_push3(s, "--bind", t->workdir, t->workdir);
	sandbox_push3(s, "--bind", t->session_dir, t->session_dir);
	/*
	 * Its global settings read-only: the hooks of later sessions.  One
	 * that is not there yet is made empty ("{}"), so that the agent
	 * cannot make it either.
	 */
	if (c->home != NULL) {
		p = xasprintf("%s/.claude/settings.json", c->home);
		sandbox_settings(p);
		sandbox_push3(s, "--ro-bind-try", p, p);
		free(p);
	}
	/* Nothing written into the emptied run directory itself. */
	if (c->run_dir != NULL && strcmp(c->run_dir, "/") != 0)
		sandbox_push3(s, "--remount-ro", c->run_dir, NULL);
	sandbox_push3(s, "--chdir", t->workdir, NULL);
	sandbox_push(s, "--");
}

/* Create the empty settings file path when its directory is there. */
static void
sandbox_settings(const char *path)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1)
		return;
	(void)!write(fd, "{}\n", 3);
	(void)close(fd);
}

/* sudo as the agents' user, its variables kept by name. */
static void
sandbox_user(struct sandbox_v *s, const struct sandbox_conf *c,
    const struct sandbox_target *t)
{
	const char *const *e;
	struct buf keep;
	size_t n;

	sandbox_push3(s, "sudo", "-n", "-H");
	sandbox_push3(s, "-u", c->user, NULL);
	buf_init(&keep, 0);
	for (e = t->env; e != NULL && *e != NULL; e++) {
		n = strcspn(*e, "=");
		/* The agents' user has a HOME of its own. */
		if ((n == 4 && strncmp(*e, "HOME", 4) == 0) ||
		    (n == 4 && strncmp(*e, "USER", 4) == 0) ||
		    (n == 7 && strncmp(*e, "LOGNAME", 7) == 0))
			continue;
		buf_printf(&keep, "%s%.*s", keep.len ? "," : "", (int)n, *e);
	}
	if (keep.len != 0) {
		char *opt = xasprintf("--preserve-env=%s", buf_str(&keep));

		sandbox_push(s, opt);
		free(opt);
	}
	buf_free(&keep);
	/*
	 * Its git takes the worktree, the tools' user's, as safe; its files
	 * group-writable, for the tools' user of its group.
	 */
	sandbox_push(s, "--");
	if (t->workdir != NULL) {
		char *v = xasprintf("GIT_CONFIG_VALUE_0=%s", t->workdir);

		sandbox_push3(s, "env", "GIT_CONFIG_COUNT=1",
		    "GIT_CONFIG_KEY_0=safe.directory");
		sandbox_push(s, v);
		free(v);
	}
	sandbox_push3(s, "sh", "-c", NULL);
	sandbox_push3(s, "umask 002; exec \"$@\"", "sh", NULL);
}

/* The value of name in the target's variables, or NULL. */
static const char *
sandbox_env(const struct sandbox_target *t, const char *name)
{
	const char *const *e;
	size_t n = strlen(name);

	for (e = t->env; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

char **
sandbox_argv(enum sandbox_kind kind, const struct sandbox_target *t,
    char *const *cmd)
{
	struct sandbox_conf c = sandbox_conf;
	struct sandbox_v s = {NULL, 0};
	const char *v;
	size_t i;

	/* The agent's own HOME and PATH, where it is given them. */
	if ((v = sandbox_env(t, "HOME")) != NULL && *v == '/')
		c.home = v;
	if ((v = sandbox_env(t, "PATH")) != NULL)
		c.path = v;
	if (kind == SANDBOX_KIND_BWRAP)
		sandbox_bwrap(&s, &c, t);
	else if (kind == SANDBOX_KIND_USER)
		sandbox_user(&s, &c, t);
	for (i = 0; cmd[i] != NULL; i++)
		sandbox_push(&s, cmd[i]);
	if (s.v == NULL)
		s.v = xcalloc(1, sizeof(*s.v));
	return s.v;
}

/* A confined `true` of kind.  Free with strv_free(). */
static char **
sandbox_true(enum sandbox_kind kind)
{
	char *const cmd[] = {"true", NULL};
	struct sandbox_target t = {.workdir = "/",
	    .session_dir = "/tmp",
	    .oneshot = 1};
	struct sandbox_v s = {NULL, 0};
	size_t i;

	if (kind != SANDBOX_KIND_BWRAP)
		return sandbox_argv(kind, &t, cmd);
	/* What every confined agent gets, without its places. */
	sandbox_push(&s, sandbox_conf.bwrap ? sandbox_conf.bwrap : "bwrap");
	{
		const char *w[] = {"--die-with-parent", "--unshare-pid",
		    "--unshare-ipc", "--cap-drop", "ALL", "--new-session",
		    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		    "--tmpfs", "/tmp", "--", "true", NULL};

		for (i = 0; w[i] != NULL; i++)
			sandbox_push(&s, w[i]);
	}
	return s.v;
}

int
sandbox_probe(enum sandbox_kind kind, char *why, size_t whysz)
{
	struct spawn_opts o = {.timeout_s = SANDBOX_PROBE_S};
	char **argv;
	struct buf out;
	int status = 0, r;

	if (kind == SANDBOX_KIND_NONE)
		return 0;
	if (kind == SANDBOX_KIND_USER && sandbox_conf.user == NULL) {
		snprintf(why, whysz, "no AGENT_USER is set");
		return -1;
	}
	argv = sandbox_true(kind);
	buf_init(&out, 4096);
	r = spawn_run(argv, &o, &out, &status);
	if (r == 0 && status == 0) {
		buf_free(&out);
		strv_free(argv);
		return 0;
	}
	{
		const char *text = buf_str(&out);
		size_t n = strcspn(text, "\n");

		snprintf(why, whysz, "'%s' %s: %s%.*s", argv[0],
		    status == 127 ? "cannot be run" : "fails",
		    n ? "" : "exit status ", n ? (int)(n > 200 ? 200 : n) : 3,
		    n ? text : "");
		if (!n)
			snprintf(why + strlen(why), whysz - strlen(why), "%d",
			    status);
	}
	buf_free(&out);
	strv_free(argv);
	return -1;
}

int
sandbox_choose(enum sandbox_kind *kind, char *why, size_t whysz)
{
	const char *m = sandbox_conf.mode ? sandbox_conf.mode : SANDBOX_AUTO;
	char b[256], u[256];

	if (!sandbox_have || strcmp(m, SANDBOX_TRUST) == 0) {
		*kind = SANDBOX_KIND_NONE;
		return 0;
	}
	if (sandbox_chosen == 0) {
		sandbox_chosen = -1;
		if (strcmp(m, SANDBOX_BWRAP) == 0) {
			if (sandbox_probe(SANDBOX_KIND_BWRAP, b, sizeof(b)) ==
			    0)
				sandbox_chosen = 1;
			sandbox_kind_chosen = SANDBOX_KIND_BWRAP;
		} else if (strcmp(m, SANDBOX_USER) == 0) {
			if (sandbox_probe(SANDBOX_KIND_USER, u, sizeof(u)) == 0)
				sandbox_chosen = 1;
			sandbox_kind_chosen = SANDBOX_KIND_USER;
		} else if (sandbox_probe(SANDBOX_KIND_BWRAP, b, sizeof(b)) ==
		    0) {
			sandbox_kind_chosen = SANDBOX_KIND_BWRAP;
			sandbox_chosen = 1;
		} else if (sandbox_conf.user != NULL &&
		    sandbox_probe(SANDBOX_KIND_USER, u, sizeof(u)) == 0) {
			sandbox_kind_chosen = SANDBOX_KIND_USER;
			sandbox_chosen = 1;
		} else if (sandbox_conf.user == NULL)
			snprintf(u, sizeof(u), "no AGENT_USER is set");
		if (sandbox_chosen == -1)
			snprintf(sandbox_why, sizeof(sandbox_why),
			    "the agent cannot be confined (AGENT_SANDBOX=%s): "
			    "%s%s%s%s; set AGENT_SANDBOX=" SANDBOX_TRUST
			    " to run it unconfined",
			    m,
			    strcmp(m, SANDBOX_USER) != 0 ? "bubblewrap: " : "",
			    strcmp(m, SANDBOX_USER) != 0 ? b : "",
			    strcmp(m, SANDBOX_AUTO) == 0     ? "; user: " :
				strcmp(m, SANDBOX_USER) == 0 ? "user: " :
							       "",
			    strcmp(m, SANDBOX_BWRAP) != 0 ? u : "");
	}
	if (sandbox_chosen == -1) {
		snprintf(why, whysz, "%s", sandbox_why);
		return -1;
	}
	*kind = sandbox_kind_chosen;
	return 0;
}

int
sandbox_wrap(const struct sandbox_target *t, char *const *cmd, char ***argv,
    char *why, size_t whysz)
{
	enum sandbox_kind kind;

	*argv = NULL;
	if (sandbox_choose(&kind, why, whysz) == -1)
		return -1;
	*argv = sandbox_argv(kind, t, cmd);
	return 0;
}

/*
 * One file of a tree given to the agents' group: group-readable and
 * -writable, a directory set-group-ID (what is made in it stays the
 * group's); a symlink keeps its target's modes.
 */
static int
sandbox_share_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	mode_t m = st->st_mode & 07777;

	(void)ftw;
	if (type == FTW_SL)
		return 0;
	if (st->st_gid != sandbox_gid &&
	    lchown(path, (uid_t)-1, sandbox_gid) == -1)
		return -1;
	m |= S_IRGRP | S_IWGRP;
	if (S_ISDIR(st->st_mode))
		m |= S_IXGRP | S_ISGID;
	return (m == (st->st_mode & 07777) && st->st_gid == sandbox_gid) ?
	    0 :
	    chmod(path, m);
}

/*
 * Give the places of t's agent to the agents' user (AGENT_SANDBOX=user),
 * through its group, which the tools' user is in (or is root): the run
 * directory and the sessions' directories passed through only (0711: no
 * listing, no writing), the session directory, the worktree and what
 * git writes for it in the repository (objects, refs, logs, its
 * worktrees/NAME) group-writable.  0, or -1 with errno set.
 */
static int
sandbox_share(const char *session_dir, const struct sandbox_target *t)
{
	const char *git[] = {"objects", "refs", "logs", NULL};
	char *name = NULL, *common = NULL, *p = NULL, *top = NULL;
	size_t i;
	int r = -1;

	if (!sandbox_have_user) {
		errno = ENOENT;
		return -1;
	}
	top = xasprintf("%s/sessions", sandbox_conf.run_dir);
	p = xasprintf("%s/active", top);
	if (chmod(sandbox_conf.run_dir, 0711) == -1 || chmod(top, 0711) == -1 ||
	    chmod(p, 0711) == -1 ||
	    nftw(session_dir, sandbox_share_one, 16, FTW_PHYS) != 0 ||
	    nftw(t->workdir, sandbox_share_one, 16, FTW_PHYS) != 0)
		goto out;
	if ((common = sandbox_git_common(t->workdir, &name)) != NULL) {
		for (i = 0; git[i] != NULL; i++) {
			free(p);
			p = xasprintf("%s/%s", common, git[i]);
			if (access(p, F_OK) == 0 &&
			    nftw(p, sandbox_share_one, 16, FTW_PHYS) != 0)
				goto out;
		}
		if (name != NULL) {
			free(p);
			p = xasprintf("%s/worktrees/%s", common, name);
			if (nftw(p, sandbox_share_one, 16, FTW_PHYS) != 0)
				goto out;
		}
	}
	r = 0;
out:
	free(common);
	free(name);
	free(p);
	free(top);
	return r;
}

char **
sandbox_session_argv(const char *session, const char *workdir, char *const *cmd,
    const char *const *env, int oneshot, char *err, size_t errsz)
{
	char *dir = runfiles_session_dir(session), **argv = NULL, *line;
	struct sandbox_target t = {.workdir = workdir,
	    .session_dir = dir,
	    .oneshot = oneshot,
	    .env = env};
	char why[768];

	if (sandbox_wrap(&t, cmd, &argv, why, sizeof(why)) == -1) {
		snprintf(err, errsz, "session '%s' not started: %s", session,
		    why);
		log_msg("%s", err);
		goto out;
	}
	if (strcmp(argv[0], "sudo") == 0 && strv_len(argv) != strv_len(cmd) &&
	    sandbox_share(dir, &t) == -1) {
		snprintf(err, errsz,
		    "session '%s' not started: cannot give its places to "
		    "the agents' user '%s': %s",
		    session, sandbox_conf.user, strerror(errno));
		log_msg("%s", err);
		strv_free(argv);
		argv = NULL;
		goto out;
	}
	if (strv_len(argv) != strv_len(cmd)) {
		line = sandbox_line(argv);
		log_msg("session %s confined: %s", session, line);
		free(line);
	}
out:
	free(dir);
	return argv;
}

char *
sandbox_line(char *const *argv)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_puts(&b, " ");
		if (argv[i][0] != '\0' && strpbrk(argv[i], " '\"\\$\t") == NULL)
			buf_puts(&b, argv[i]);
		else
			buf_printf(&b, "'%s'", argv[i]);
	}
	return buf_steal(&b);
}
