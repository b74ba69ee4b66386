/*
 * The configuration of one run: the process environment, the factory's
 * .env (or .env.enc through sops), and the project file, merged as the
 * bash scripts merged them, then defaults and derived values filled in
 * and everything validated before any side effect.  getenv(3) is called
 * here and nowhere else.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

struct mirror {
	char *name;
	char *url;
};

struct config {
	char *factory_root;
	char *run_dir;	    /* DISINTO_RUN_DIR, default /tmp */
	char *project_toml; /* the file given, or NULL */
	int container;	    /* DISINTO_CONTAINER=1 */

	char *forge_token;
	char *forge_review_token;
	char *forge_bot_usernames; /* comma-separated logins */
	char *forge_repo;	   /* owner/name */
	char *forge_url;
	char *forge_api; /* $FORGE_URL/api/v1/repos/$FORGE_REPO */
	char *forge_web;

	char *project_name;
	char *project_repo_root;
	char *primary_branch;

	char *woodpecker_server;
	char *woodpecker_token;
	long long woodpecker_repo_id; /* 0 = no CI configured */
	long long ci_stale_minutes;

	long long claude_timeout; /* seconds */
	char *claude_model;	  /* or NULL */
	char *agent_cmd;	  /* the agent command line */
	char *agent_ready_pattern;
	char *dev_agent_cmd;	  /* legacy DEV_AGENT_CMD, or NULL */
	char *supervisor_fix_cmd; /* "" disables */
	char *tmux_socket;	  /* -L name, or NULL */
	char *meminfo_path;
	char *formulas_dir; /* prompt templates */
	char *proc_dir;	    /* DISINTO_PROC_DIR, default /proc */
	char *disk_path;    /* DISINTO_DISK_PATH, default / */
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

	char **warnings; /* unknown keys and the like */
	size_t nwarnings;
};

/*
 * Without a project file, FORGE_REPO or PROJECT_NAME, project_name and
 * forge_repo are both "": no project is configured.
 *
 * Fill cfg from the environment, $FACTORY_ROOT/.env and the project file
 * (NULL for env-only).  exe is the running executable's path, used to
 * find FACTORY_ROOT when the environment does not name it.  Returns 0, or
 * -1 with err set ("projects/x.toml:7: expected a quoted string").  Free
 * with config_free() either way.
 */
int config_load(struct config *cfg, const char *project_toml, const char *exe,
    char *err, size_t errsz);
void config_free(struct config *);
/* 1 when login is one of FORGE_BOT_USERNAMES. */
int config_is_bot(const struct config *, const char *login);
/* 1 when a CI system is configured (WOODPECKER_REPO_ID not 0). */
int config_ci_configured(const struct config *);

#endif
