/*
 * The configuration of one run, from the sources the bash scripts read
 * (DESIGN section 2), in their order of precedence: the process
 * environment, then $FACTORY_ROOT/.env (or .env.enc through sops) over
 * it, then the project file over both for the keys it sets;
 * FACTORY_ROOT and DISINTO_RUN_DIR from the environment always win.
 * Every setting is one row of the table in config.c, which drives
 * loading, defaults, bounds, validation, wiping secrets and the
 * documentation (config_help(), config_markdown()).  Everything is
 * checked before any side effect.  getenv(3) is called here and nowhere
 * else.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

/* woodpecker_repo_id when WOODPECKER_REPO_ID is set nowhere. */
#define CONFIG_REPO_ID_UNSET (-1)

struct mirror {
	char *name;
	char *url;
};

/* One variable the .env file assigned, in the order of first assignment. */
struct config_var {
	char *key;
	char *value;
};

/* review-poll's settings: [review] in the project file. */
struct config_review {
	char *model;		    /* --model of the review agent */
	size_t max_diff;	    /* diff bytes put into a prompt */
	int max_reviews;	    /* review sessions alive at once */
	long long idle_timeout_s;   /* a review session's run files age */
	long long no_review_s;	    /* awaiting_review without a review */
	long long min_available_mb; /* memory needed to launch */
	int ready_timeout_s;	    /* wait for the agent's prompt */
	long long pr_timeout_s;	    /* review-poll --pr: the verdict's wait */
	long long agent_timeout_s;  /* an agent writing no phase */
};

/* Settings whose origin is kept (config_origin()). */
#define CONFIG_NORIGINS 6

struct config {
	char *factory_root;
	char *run_dir;	    /* DISINTO_RUN_DIR, default /tmp/disinto-UID */
	char *project_toml; /* the file given, or NULL */
	int container;	    /* DISINTO_CONTAINER=1 */
	char *log_dest;	    /* DISINTO_LOG: "file" or "stderr" */
	char *log_dir;	    /* DISINTO_LOG_DIR, or "": the factory */
	/* run_dir is the default (DISINTO_RUN_DIR not set). */
	int run_dir_default;

	char *forge_token;
	char *forge_review_token;
	char *forge_agent_token;   /* the dev agents' own, or "" */
	int agent_trust_dev_token; /* AGENT_TRUST_DEV_BOT_TOKEN */
	char *forge_bot_usernames; /* comma-separated logins */
	char *forge_repo;	   /* owner/name */
	char *forge_url;
	char *forge_api; /* $FORGE_URL/api/v1/repos/$FORGE_REPO */
	char *forge_web;
	/* Whose verdicts count (reviewers.h): a login or NULL, a list. */
	char *forge_review_bot;
	char *forge_reviewers;

	char *project_name;
	char *project_repo_root;
	char *primary_branch;

	char *woodpecker_server;
	char *woodpecker_token;
	char *webhook_secret; /* forge webhook deliveries' HMAC key */
	/* 0: no CI; CONFIG_REPO_ID_UNSET: CI from the forge's status only */
	long long woodpecker_repo_id;
	long long ci_stale_minutes;

	long long claude_timeout; /* seconds */
	long long api_pause_alert_minutes;
	char *claude_model; /* or NULL */
	int agent_api_probe;
	char *agent_cmd; /* the agent command line */
	char *agent_ready_pattern;
	char *session_lock;	       /* the Claude session lock; "" none */
	int session_lock_wait_s;       /* its longest wait */
	char *agent_protocol;	       /* [agent] protocol (agent.h) */
	int marker_ready_s;	       /* markers: the ready marker's wait */
	int idle_grace_s;	       /* a stopped agent idle after this */
	int marker_ack_s;	       /* markers: an acknowledgement's wait */
	long long agent_run_timeout_s; /* a checkpoint run's longest */
	char *dev_agent_cmd;	       /* legacy DEV_AGENT_CMD, or NULL */
	char *agent_env_pass;	       /* AGENT_ENV_PASS: more names, or NULL */
	char *agent_sandbox;	       /* AGENT_SANDBOX (sandbox.h) */
	char *agent_sandbox_bwrap;     /* its bubblewrap command */
	char *agent_user;	       /* AGENT_USER, or NULL */
	char *agent_sandbox_ro;	       /* more read-only paths, or NULL */
	char *agent_sandbox_rw;	       /* more read-write paths, or NULL */
	char *supervisor_fix_cmd;      /* "" disables */
	int drop_caches;	       /* SUPERVISOR_DROP_CACHES */
	int docker_prune;	       /* SUPERVISOR_DOCKER_PRUNE */
	char *tmux_socket;	       /* -L name ("disinto"), or NULL */
	char *meminfo_path;
	char *formulas_dir; /* prompt templates */
	char *proc_dir;	    /* DISINTO_PROC_DIR, default /proc */
	char *disk_path;    /* DISINTO_DISK_PATH, default / */
	char *test_crash;   /* DISINTO_TEST_CRASH (crashpoint.h), tests only */
	/* DISINTO_TEST_CI_WATCH_S (ciwake.h), tests only. */
	int test_ci_watch_s;
	int wake; /* DISINTO_WAKE: agent events start ticks */
	/* DISINTO_REVIEW_POLL: the review-poll supervisor-poll starts. */
	char *review_poll_path;

	long http_connect_timeout_ms;
	long http_timeout_ms;
	int http_retries;
	long http_backoff_ms;

	char **containers; /* NULL-ended, or NULL */
	size_t ncontainers;
	int check_prs;
	int check_dev_agent;
	int check_pipeline_stall;
	int check_infra_retry;
	struct mirror *mirrors;
	size_t nmirrors;

	struct config_review review;

	struct config_var *env_vars; /* what .env assigned (secrets too) */
	size_t nenv_vars;

	char *env_missing; /* the $FACTORY_ROOT/.env not found, or NULL */

	char **warnings; /* always logged: a .env.enc not decrypted... */
	size_t nwarnings;
	char **notes; /* logged with -v: keys the tools do not use */
	size_t nnotes;

	/* Where the values config_origin() knows came from (owned). */
	struct config_origin {
		const char *env; /* the setting's variable name */
		char *where;
	} origins[CONFIG_NORIGINS];
};

/*
 * Where the value of setting env (FORGE_URL, FORGE_API, FORGE_TOKEN,
 * FORGE_REVIEW_TOKEN, WOODPECKER_SERVER, WOODPECKER_TOKEN) came from, for
 * a message that names the setting to fix: "FILE:LINE" (.env, or the
 * project file with its key: "projects/x.toml:3 as forge_url"), "the
 * environment" or "the default" (with ": '$FACTORY_ROOT/.env' not
 * found" when that file is missing); NULL for another setting or before
 * config_load().
 */
const char *config_origin(const struct config *, const char *env);
/*
 * The factory as config_load() finds it, without loading anything:
 * FACTORY_ROOT, else the parent of exe's directory.  Caller frees.
 */
char *config_factory_root(const char *exe);

/* Whose agent an environment is for (config_agent_env()). */
enum config_role {
	CONFIG_ROLE_DEV,    /* gets FORGE_TOKEN */
	CONFIG_ROLE_REVIEW, /* gets no forge token */
	CONFIG_ROLE_OTHER   /* gets no token beyond the .env ones */
};

/*
 * Fill cfg from the environment, $FACTORY_ROOT/.env and the project file
 * (NULL for env-only).  exe is the running executable's path, used to
 * find FACTORY_ROOT when the environment does not name it.  Without a
 * project file, FORGE_REPO or PROJECT_NAME, project_name and forge_repo
 * are both "": no project is configured.
 *
 * Every secret read is handed to the masker (redact_add(): the token
 * settings, .env and environment variables with secret names, the
 * credentials in configured URLs), so that logs and forge texts never
 * carry it.
 *
 * Returns 0, or -1 with err set ("projects/x.toml:7: ...").  Even then
 * factory_root, run_dir and project_name are set, so that the failure
 * can be logged where the operator looks: project_name is the file's
 * `name =` when it can be read, else its base name without ".toml".
 * Free with config_free() either way.
 */
int config_load(struct config *cfg, const char *project_toml, const char *exe,
    char *err, size_t errsz);
/* Free everything, wiping the secrets first. */
void config_free(struct config *);
/* 1 when login is one of FORGE_BOT_USERNAMES. */
int config_is_bot(const struct config *, const char *login);
/*
 * 1 when CI is required (WOODPECKER_REPO_ID unset or not 0): a PR needs
 * a successful commit status; unset, as bash's ${WOODPECKER_REPO_ID:-2}
 * did, CI is read from the forge's commit status alone.
 */
int config_ci_configured(const struct config *);
/* 1 when the Woodpecker API is asked (WOODPECKER_REPO_ID set above 0). */
int config_woodpecker_configured(const struct config *);

/*
 * 1 when the configuration reads variable name from the process
 * environment (a setting of the environment, which a wake takes from the
 * scheduled tick's record, common/run/tickenv.h): a row's name or legacy
 * name, FACTORY_ROOT, DISINTO_RUN_DIR, USER, HOME, PATH, the agent CLI's
 * ANTHROPIC_* and CLAUDE_*, and, with cfg, a name cfg's AGENT_ENV_PASS
 * lists; else 0.
 */
int config_env_setting(const struct config *cfg, const char *name);

/*
 * The PATH lib/env.sh gave the tools and their agents: home's
 * .local/bin and .foundry/bin, every nvm node bin (newest version
 * first), /usr/local/bin, /usr/bin and /bin, then inherited (entries
 * already listed are not repeated, which keeps the order of lookup).
 * home or inherited may be NULL.  Caller frees.
 */
char *config_path(const char *home, const char *inherited);
/*
 * Put config_path() of $HOME and $PATH into this process's environment,
 * so that git, tmux, the agent and sops are found there: 0 or -1.
 */
int config_apply_path(void);
/*
 * The environment an agent of role gets ("KEY=value" strings, NULL
 * ended), on top of what it inherits (agent_exec_inherits()): the
 * agent CLI's settings .env assigned (ANTHROPIC_*, CLAUDE_*), the
 * variables AGENT_ENV_PASS names (from .env, else the environment),
 * CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, PATH as config_path()
 * makes it, HOME, FACTORY_ROOT, PROJECT_TOML (absolute), PROJECT_NAME,
 * PROJECT_REPO_ROOT, PRIMARY_BRANCH, the forge's FORGE_URL, FORGE_REPO,
 * FORGE_API and FORGE_WEB (without credentials), and the token of its
 * role: a dev agent FORGE_TOKEN (FORGE_AGENT_TOKEN's value when that is
 * set, else the dev bot's with AGENT_TRUST_DEV_BOT_TOKEN, else none:
 * dev-poll starts no dev agent then), a review agent none (it writes its
 * verdict, review-poll posts it); never FORGE_REVIEW_TOKEN, never
 * WOODPECKER_TOKEN.  Later entries of one key replace
 * earlier ones.  Free with config_env_free() (which wipes it).
 */
char **config_agent_env(const struct config *, enum config_role role);
/*
 * The HOME the agents run with: the configuration's HOME (.env), else
 * the tool's own; NULL when neither is set.
 */
const char *config_agent_home(const struct config *);
/*
 * An agent variable name's value: .env's last assignment, else the
 * environment's; NULL when unset or empty.
 */
const char *config_agent_var(const struct config *, const char *name);
void config_env_free(char **env);
/*
 * The environment a tmux server this factory's tools start gets: the
 * non-secret part of .env (every variable .env assigned but those whose
 * name says they hold a secret, redact_secret_name(), those whose value
 * holds a registered secret, and the external-action tokens lib/env.sh
 * unsets), FACTORY_ROOT and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
 * and their names (CONFIG_SERVER_ENV_NAMES).  No token: anyone who
 * reaches the server's socket reads its global environment.  Our own
 * agents never see it either: their wrapper drops every name listed
 * before it sets theirs.  Free with config_env_free().
 */
char **config_server_env(const struct config *);
/*
 * The environment the tools' own children get (git, the fix command, a
 * mirror push, review-poll started by the supervisor: spawn's
 * child_env), as bash's children had it from lib/env.sh: every .env
 * variable, secrets too, but GITHUB_TOKEN and CLAWHUB_TOKEN, with
 * FACTORY_ROOT, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 and their names
 * (CONFIG_SERVER_ENV_NAMES),
 * with a project file its PROJECT_TOML (absolute), PROJECT_NAME,
 * PROJECT_REPO_ROOT, PRIMARY_BRANCH, FORGE_REPO and the forge's URLs
 * without credentials, and FORGE_TOKEN.  PATH is the tool's own
 * (config_apply_path()).  Never an agent's: agents get config_agent_env(), and
 * their wrapper drops what CONFIG_SERVER_ENV_NAMES lists (a legacy
 * DEV_AGENT_CMD started with it included).  Free with config_env_free().
 */
char **config_child_env(const struct config *);
/*
 * The variable of config_server_env() that names the others (names only,
 * comma-separated): an agent's wrapper drops them all before it sets its
 * own (agent_exec.c), so a server's environment never reaches an agent.
 */
#define CONFIG_SERVER_ENV_NAMES "DISINTO_SERVER_ENV"

/*
 * url (NULL: "") without the user information of its authority, where
 * credentials go ("https://bot:tok@host/x" gives "https://host/x"), for
 * what an agent is told.  Caller frees.
 */
char *config_url_public(const char *url);
/*
 * The settings for --help: one line per environment variable with what
 * it is and its default.  Caller frees.
 */
char *config_help(void);
/*
 * The configuration table of docs/CONFIG.md, in markdown, generated from
 * the same table (tests/tools/conf-tool doc; a test keeps it current).
 * Caller frees.
 */
char *config_markdown(void);
/*
 * The same table as an mdoc tag list (.Bl ... .El) for disinto-c.5
 * (tests/tools/conf-tool man; a test keeps the page current).  Caller
 * frees.
 */
char *config_mdoc(void);

#endif
