/*
 * The confinement of an agent: the command line put before the agent's
 * own, so that the agent CLI and everything it starts (its tools, its
 * hooks, their children) see only what the session needs.
 *
 * bubblewrap (the default): its own PID and IPC namespaces (a fresh
 * /proc: the tools' processes and their environments are not there), no
 * capabilities, the filesystem read-only, a private /tmp, HOME empty but
 * for the agent CLI's configuration (~/.claude and ~/.claude.json
 * read-write, ~/.claude/settings.json read-only so that it cannot drop
 * the hooks of later sessions), ~/.gitconfig and the directories of the
 * PATH under HOME read-only; the run directory empty but for the
 * session's worktree and session directory (runfiles.h), read-write;
 * the factory's checkout read-only with its secret files (.env, .env.*,
 * *.enc) hidden; the project repository's git directory read-write
 * where the worktree commits (objects, refs, its own worktrees/NAME),
 * its config, hooks and the other worktrees' entries read-only; the
 * tmux servers' sockets gone with /tmp and the run directory.  The
 * network stays: the forge and the model's API.
 *
 * A separate user: `sudo -n -H -u USER --preserve-env=NAMES --`, the
 * variables the agent gets kept by name (a rule docs/SECURITY.md gives).
 *
 * Not --new-session for a session in tmux: the agent's TUI needs the
 * pane as its controlling terminal (SIGWINCH, the terminal's process
 * group that tmux signals); the only reader of that terminal after the
 * agent is its wrapper, never a shell, so a TIOCSTI of the agent's
 * reaches no one.  A one-shot run has no terminal and gets it.
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>

/* The settings (AGENT_SANDBOX). */
#define SANDBOX_AUTO "auto"
#define SANDBOX_BWRAP "bwrap"
#define SANDBOX_USER "user"
#define SANDBOX_TRUST "unconfined-trust-agent"

/* What confines an agent. */
enum sandbox_kind {
	SANDBOX_KIND_NONE,  /* the operator trusts the agent */
	SANDBOX_KIND_BWRAP, /* bubblewrap */
	SANDBOX_KIND_USER   /* another Unix user, through sudo */
};

/* The factory's side of the sandbox; strings are copied. */
struct sandbox_conf {
	const char *mode;  /* one of the settings above; NULL: auto */
	const char *bwrap; /* the bwrap command; NULL: "bwrap" */
	const char *user;  /* AGENT_USER, or NULL */
	const char *home;  /* the agent's HOME, or NULL */
	const char *path;  /* the agent's PATH, or NULL */
	const char *factory_root;
	const char *run_dir;
	const char *exe;      /* the running executable (its hooks') */
	const char *tmux_dir; /* $TMUX_TMPDIR, or NULL */
	const char *ro;	      /* more paths read-only, ':'-separated */
	const char *rw;	      /* more paths read-write, ':'-separated */
};

/* What one agent needs. */
struct sandbox_target {
	const char *workdir;	 /* its worktree */
	const char *session_dir; /* its session directory */
	int oneshot;		 /* no terminal: a session of its own */
	/*
	 * The variables it is given ("K=V", NULL-ended, or NULL): its HOME
	 * and PATH (else the conf's), their names for sudo.
	 */
	const char *const *env;
};

/* Keep conf for the calls below (NULL: none, unconfined). */
void sandbox_set(const struct sandbox_conf *conf);
/*
 * Which confinement is in force: the setting's, or for auto bubblewrap
 * when it can run, else the separate user when AGENT_USER is set.  The
 * answer is tried once per process (a confined `true`).  0 with *kind
 * set, or -1 with why the agent cannot be confined in why (the launch
 * is refused).
 */
int sandbox_choose(enum sandbox_kind *kind, char *why, size_t whysz);
/* Try kind now, uncached: 0, or -1 with why.  For --check. */
int sandbox_probe(enum sandbox_kind kind, char *why, size_t whysz);
/* "bwrap", "user", "none". */
const char *sandbox_kind_name(enum sandbox_kind kind);
/*
 * The confined command line: kind's words for t, then cmd (NULL-ended);
 * cmd alone for SANDBOX_KIND_NONE.  Free with strv_free().
 */
char **sandbox_argv(enum sandbox_kind kind, const struct sandbox_target *t,
    char *const *cmd);
/*
 * sandbox_choose(), then sandbox_argv(): 0 with *argv set, or -1 with
 * why (nothing to free).
 */
int sandbox_wrap(const struct sandbox_target *t, char *const *cmd, char ***argv,
    char *why, size_t whysz);
/*
 * The command line of session's agent (cmd, in workdir, given env),
 * confined, in its session directory (runfiles.h); the confinement is
 * logged.  NULL when the agent cannot be confined: why in err (logged),
 * and the session must not start.  Free with strv_free().
 */
char **sandbox_session_argv(const char *session, const char *workdir,
    char *const *cmd, const char *const *env, int oneshot, char *err,
    size_t errsz);
/* argv as one line for the log ("a b 'c d'").  Caller frees. */
char *sandbox_line(char *const *argv);

#endif
