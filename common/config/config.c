/*
 * Configuration: one table of settings (settings[] below) drives
 * loading, defaults, bounds, validation, wiping secrets and the
 * documentation.  Values are gathered as text, keyed by variable name,
 * the way the bash scripts saw them: the environment, then .env over it,
 * then what load-project.sh would have exported for the project file's
 * keys; then each row turns its text into its field, in table order (a
 * derived default may use the rows above it).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "envfile.h"
#include "file.h"
#include "log.h"
#include "redact.h"
#include "spawn.h"
#include "strv.h"
#include "toml.h"
#include "valid.h"
#include "xmalloc.h"

#define ENV_MAX (1024 * 1024)
/* The longest line config_mdoc() writes, words allowing. */
#define MDOC_WIDTH 72

enum set_type {
	T_STR,	  /* char * */
	T_INT,	  /* int */
	T_LONG,	  /* long */
	T_LLONG,  /* long long */
	T_SIZE,	  /* size_t */
	T_BOOL,	  /* int, from true/false/1/0 */
	T_WORDS,  /* char ** (NULL-ended) and its count at off2 */
	T_MIRRORS /* [mirrors] NAME = URL */
};

/* Row flags. */
#define S_SECRET 0x01	/* wiped when freed, never shown in messages */
#define S_EMPTY 0x02	/* an empty value is a value, not "unset" */
#define S_ENV_ONLY 0x04 /* only the process environment sets it */
#define S_ENV_WINS 0x08 /* the environment wins over .env */
#define S_PROJECT 0x10	/* with a project file, only the file sets it */
#define S_NEEDED 0x20	/* a project file must set it */
#define S_EARLY 0x40	/* filled by config_load() before the others */

struct load;

/* One setting. */
struct setting {
	const char *env;     /* variable name */
	const char *legacy;  /* older name, read when env is unset or empty */
	const char *section; /* project file table ("" top level), or NULL */
	const char *key;     /* project file key */
	enum set_type type;
	unsigned flags;
	const char *def;		      /* default, or NULL */
	char *(*derive)(const struct load *); /* computed default */
	long long min, max, scale;	      /* numbers: bounds, factor */
	const char *(*check)(const char *);   /* NULL, or why not */
	size_t off, off2;    /* the field(s) in struct config */
	const char *doc;     /* what it is */
	const char *def_doc; /* a derived default, explained */
};

/* One variable of the merged view; later layers replace earlier ones. */
struct var {
	char *key;
	char *value;
	const char *origin; /* the file it came from, NULL: the environment */
	int line;
};

struct load {
	struct config *cfg;
	const char *exe;
	struct var *vars;
	size_t nvars;
	char *env_path; /* the .env file read (origin of its variables) */
};

static char *derive_root(const struct load *);
static char *derive_run_dir(const struct load *);
static char *derive_api(const struct load *);
static char *derive_web(const struct load *);
static char *derive_name(const struct load *);
static char *derive_repo_root(const struct load *);
static char *derive_agent_cmd(const struct load *);
static char *derive_session_lock(const struct load *);
static char *derive_review_poll(const struct load *);
static char *derive_formulas(const struct load *);
static const char *check_word(const char *);
static const char *check_protocol(const char *);
static const char *check_sandbox(const char *);
static const char *check_repo(const char *);
static const char *check_optional_name(const char *);
static const char *check_log(const char *);
static const char *check_log_dir(const char *);
static int env_pass_next(const char **, char *, size_t);
static const char *check_env_pass(const char *);
static int config_env_passed(const char *, const char *);
static int config_agent_env_cli(const char *);
static void config_agent_env_cli_environ(char ***, size_t *);
static const char *env_value(const struct config *, const char *);
static void *field(const struct config *, size_t);
static void vars_set(struct load *, const char *, const char *, const char *,
    int);
static const struct var *vars_get(const struct load *, const char *);
static void vars_free(struct load *);
static void add_msg(char ***, size_t *, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static const struct setting *row_by_env(const char *);
static const struct setting *row_by_key(const char *const *, size_t);
static size_t key_prefix(const char *const *, size_t);
static const struct var *row_value(const struct load *, const struct setting *);
static int bad(const struct load *, const struct setting *, const struct var *,
    char *, size_t, const char *, ...) __attribute__((format(printf, 6, 7)));
static void origin_note(struct load *, const struct setting *,
    const struct var *);
static int fill_str(struct load *, const struct setting *, const struct var *,
    char *, size_t);
static int fill_num(struct load *, const struct setting *, const struct var *,
    char *, size_t);
static int fill_bool(struct load *, const struct setting *, const struct var *,
    char *, size_t);
static int fill_row(struct load *, const struct setting *, char *, size_t);
static int fill(struct load *, char *, size_t);
static int root_refused(struct load *, char *, size_t);
static const char *env_get(void *, const char *);
static int env_set(void *, const char *, const char *, int, char *, size_t);
static int find_in_path(const char *);
static int load_env_enc(struct load *, const char *, char *, size_t);
static int load_env_file(struct load *, char *, size_t);
static char *config_toml_text(const struct toml_value *, enum set_type, char *,
    size_t);
static int add_mirror(struct load *, const struct toml_item *, char *, size_t);
static int config_toml_item_cb(void *, const struct toml_item *, char *,
    size_t);
static char *name_from_file(const char *);
static void locate(struct load *);
static void early(struct load *);
static void env_wins(struct load *);
static void secrets_register(const struct config *);
static int ver_cmp(const void *, const void *);
static void path_add(struct buf *, const char *);
static void env_put(char ***, size_t *, const char *, const char *);
static void config_project_env(const struct config *, char ***, size_t *);
static int config_env_secret(const char *, const char *);
static char **config_env_factory(const struct config *, int);
static char *row_default_doc(const struct setting *);
static char *row_key_doc(const struct setting *);
static void mdoc_text(struct buf *, const char *);
static void mdoc_line(struct buf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

#define F(member) offsetof(struct config, member)

/*
 * Every setting, in the order they are filled (a derived default uses
 * the rows above it).  Numbers have min..max bounds and the field holds
 * value * scale (scale 0 is 1).
 */
static const struct setting settings[] = {
    {.env = "FACTORY_ROOT",
	.type = T_STR,
	.flags = S_EARLY | S_ENV_ONLY,
	.derive = derive_root,
	.off = F(factory_root),
	.doc = "the factory checkout: `.env`, `state/`, logs, `projects/`",
	.def_doc = "parent of the executable's directory"},
    {.env = "DISINTO_RUN_DIR",
	.type = T_STR,
	.flags = S_EARLY | S_ENV_WINS,
	.derive = derive_run_dir,
	.off = F(run_dir),
	.doc = "where every run file lives; only files of the running user "
	       "that group and others cannot write are read from it",
	.def_doc = "`/tmp/disinto-$UID`, created with mode 0700 and refused "
		   "when it is not a directory of that user's alone"},
    {.env = "DISINTO_LOG",
	.type = T_STR,
	.flags = S_EARLY | S_ENV_WINS,
	.def = "file",
	.check = check_log,
	.off = F(log_dest),
	.doc = "where the log goes: `file` (the tool's log file, for cron) "
	       "or `stderr` (no timestamp, syslog priority prefixes `<3>` "
	       "`<4>` `<5>` `<6>`, for journald); `--log=` overrides it"},
    {.env = "DISINTO_LOG_DIR",
	.type = T_STR,
	.flags = S_ENV_ONLY,
	.def = "",
	.check = check_log_dir,
	.off = F(log_dir),
	.doc = "the directory of the logs, as upstream's newer main sets it "
	       "for a factory mounted read-only (its container): "
	       "`dev/dev-agent-P.log`, `dev/dev-agent.log`, "
	       "`dev/ci-fixes-P.json`, `review/review-poll.log` and "
	       "`supervisor/supervisor.log` below it (the subdirectories "
	       "made as needed), none of them in the factory",
	.def_doc = "none: those files in the factory, review-poll's log as "
		   "`review/review.log`"},
    {.env = "DISINTO_CONTAINER",
	.type = T_BOOL,
	.flags = S_EARLY | S_ENV_ONLY,
	.off = F(container),
	.doc = "`1`: inside the agent container, `.env` is not read"},
    {.env = "FORGE_TOKEN",
	.legacy = "CODEBERG_TOKEN",
	.type = T_STR,
	.flags = S_SECRET,
	.def = "",
	.off = F(forge_token),
	.doc = "API token of the dev bot"},
    {.env = "FORGE_REVIEW_TOKEN",
	.legacy = "REVIEW_BOT_TOKEN",
	.type = T_STR,
	.flags = S_SECRET,
	.def = "",
	.off = F(forge_review_token),
	.doc = "API token of the review bot"},
    {.env = "FORGE_AGENT_TOKEN",
	.type = T_STR,
	.flags = S_SECRET,
	.def = "",
	.off = F(forge_agent_token),
	.doc = "API token of the dev agents' own forge user, given to them "
	       "as `FORGE_TOKEN` in place of the dev bot's (which keeps "
	       "merging); a user that can push `fix/*` branches and comment "
	       "but not merge, close or edit protection (docs/SECURITY.md, "
	       "\"Least privilege\")",
	.def_doc = "none: no dev agent starts (unless "
		   "`AGENT_TRUST_DEV_BOT_TOKEN`)"},
    {.env = "AGENT_TRUST_DEV_BOT_TOKEN",
	.type = T_BOOL,
	.def = "false",
	.off = F(agent_trust_dev_token),
	.doc = "`true`: with `FORGE_AGENT_TOKEN` unset, the dev agents get "
	       "the dev bot's `FORGE_TOKEN`, which merges (the operator "
	       "trusts the agents with it); `false`: no dev agent starts "
	       "without `FORGE_AGENT_TOKEN`"},
    {.env = "FORGE_BOT_USERNAMES",
	.legacy = "CODEBERG_BOT_USERNAMES",
	.type = T_STR,
	.def = "",
	.off = F(forge_bot_usernames),
	.doc = "comma-separated logins whose comments are not human replies"},
    {.env = "FORGE_REVIEW_BOT",
	.type = T_STR,
	.check = check_optional_name,
	.off = F(forge_review_bot),
	.doc = "login of the review bot, whose APPROVED and REQUEST_CHANGES "
	       "reviews count (never the dev bot's)",
	.def_doc = "the login of `FORGE_REVIEW_TOKEN` (asked once, "
		   "remembered in the run directory); none when that token "
		   "is unset or the dev bot's"},
    {.env = "FORGE_REVIEWERS",
	.type = T_STR,
	.def = "",
	.off = F(forge_reviewers),
	.doc = "comma-separated logins of people whose APPROVED and "
	       "REQUEST_CHANGES reviews count too"},
    {.env = "FORGE_REPO",
	.legacy = "CODEBERG_REPO",
	.section = "",
	.key = "repo",
	.type = T_STR,
	.flags = S_PROJECT | S_NEEDED,
	.def = "",
	.check = check_repo,
	.off = F(forge_repo),
	.doc = "`owner/name` of the forge repository"},
    {.env = "FORGE_URL",
	.section = "",
	.key = "forge_url",
	.type = T_STR,
	.def = "http://localhost:3000",
	.check = valid_url,
	.off = F(forge_url),
	.doc = "forge base URL"},
    {.env = "FORGE_API",
	.type = T_STR,
	.flags = S_PROJECT,
	.derive = derive_api,
	.off = F(forge_api),
	.doc = "repository API URL (set it only without a project file)",
	.def_doc = "`$FORGE_URL/api/v1/repos/$FORGE_REPO`"},
    {.env = "FORGE_WEB",
	.type = T_STR,
	.flags = S_PROJECT,
	.derive = derive_web,
	.off = F(forge_web),
	.doc = "repository web URL (set it only without a project file)",
	.def_doc = "`$FORGE_URL/$FORGE_REPO`"},
    {.env = "PROJECT_NAME",
	.section = "",
	.key = "name",
	.type = T_STR,
	.flags = S_PROJECT,
	.derive = derive_name,
	.check = check_optional_name,
	.off = F(project_name),
	.doc = "part of run-file and tmux session names",
	.def_doc = "the repository name"},
    {.env = "PROJECT_REPO_ROOT",
	.section = "",
	.key = "repo_root",
	.type = T_STR,
	.derive = derive_repo_root,
	.off = F(project_repo_root),
	.doc = "the project's local clone",
	.def_doc = "`/home/$USER/$PROJECT_NAME`"},
    {.env = "PRIMARY_BRANCH",
	.section = "",
	.key = "primary_branch",
	.type = T_STR,
	.def = "master",
	.check = valid_branch,
	.off = F(primary_branch),
	.doc = "the branch PRs target"},
    {.env = "WOODPECKER_SERVER",
	.type = T_STR,
	.def = "http://localhost:8000",
	.check = valid_url,
	.off = F(woodpecker_server),
	.doc = "Woodpecker URL"},
    {.env = "WOODPECKER_TOKEN",
	.type = T_STR,
	.flags = S_SECRET,
	.def = "",
	.off = F(woodpecker_token),
	.doc = "Woodpecker API token"},
    {.env = "WEBHOOK_SECRET",
	.type = T_STR,
	.flags = S_SECRET,
	.def = "",
	.off = F(webhook_secret),
	.doc = "the secret of the forge's webhooks (`--webhook`): "
	       "deliveries not signed with it are refused",
	.def_doc = "empty: every delivery is refused"},
    {.env = "WOODPECKER_REPO_ID",
	.section = "ci",
	.key = "woodpecker_repo_id",
	.type = T_LLONG,
	.min = 0,
	.max = LLONG_MAX,
	.off = F(woodpecker_repo_id),
	.doc = "Woodpecker repository ID; `0`: no CI configured",
	.def_doc = "unset: CI required, read from the forge's commit "
		   "status"},
    {.env = "CI_STALE_MINUTES",
	.section = "ci",
	.key = "stale_minutes",
	.type = T_LLONG,
	.def = "60",
	.min = 1,
	.max = LLONG_MAX,
	.off = F(ci_stale_minutes),
	.doc = "minutes after which a pipeline counts as stale"},
    {.env = "PROJECT_CONTAINERS",
	.section = "services",
	.key = "containers",
	.type = T_WORDS,
	.off = F(containers),
	.off2 = F(ncontainers),
	.doc = "containers of the project, blank-separated"},
    {.env = "CHECK_PRS",
	.section = "monitoring",
	.key = "check_prs",
	.type = T_BOOL,
	.def = "true",
	.off = F(check_prs),
	.doc = "supervisor-poll checks PRs"},
    {.env = "CHECK_DEV_AGENT",
	.section = "monitoring",
	.key = "check_dev_agent",
	.type = T_BOOL,
	.def = "true",
	.off = F(check_dev_agent),
	.doc = "supervisor-poll checks the dev agent"},
    {.env = "CHECK_PIPELINE_STALL",
	.section = "monitoring",
	.key = "check_pipeline_stall",
	.type = T_BOOL,
	.def = "true",
	.off = F(check_pipeline_stall),
	.doc = "supervisor-poll checks for stalled pipelines"},
    {.env = "CHECK_INFRA_RETRY",
	.section = "monitoring",
	.key = "check_infra_retry",
	.type = T_BOOL,
	.def = "true",
	.off = F(check_infra_retry),
	.doc = "supervisor-poll restarts pipelines failed by infrastructure"},
    {.section = "mirrors",
	.type = T_MIRRORS,
	.off = F(mirrors),
	.off2 = F(nmirrors),
	.doc = "`NAME = \"URL\"`: push the primary branch there after each "
	       "merge"},
    {.env = "CLAUDE_TIMEOUT",
	.type = T_LLONG,
	.def = "7200",
	.min = 1,
	.max = LLONG_MAX,
	.off = F(claude_timeout),
	.doc = "seconds a phase may stay unchanged before a session counts as "
	       "crashed"},
    {.env = "API_PAUSE_ALERT_MINUTES",
	.section = "monitoring",
	.key = "api_pause_alert_minutes",
	.type = T_LLONG,
	.def = "120",
	.min = 1,
	.max = LLONG_MAX,
	.off = F(api_pause_alert_minutes),
	.doc = "minutes the project may stay paused by an API error of the "
	       "agent CLI's before supervisor-poll raises an alert"},
    {.env = "AGENT_API_PROBE",
	.type = T_BOOL,
	.def = "true",
	.off = F(agent_api_probe),
	.doc = "after a rate limit, an overload or an API error that may be "
	       "either the issue's or the project's, one small request to "
	       "the model API with the agent's `ANTHROPIC_API_KEY`: its "
	       "`retry-after` sets the pause's end, a success ends it or "
	       "fails the issue"},
    {.env = "CLAUDE_MODEL",
	.type = T_STR,
	.off = F(claude_model),
	.doc = "adds `--model` to the default agent command"},
    {.env = "AGENT_CMD",
	.type = T_STR,
	.derive = derive_agent_cmd,
	.off = F(agent_cmd),
	.doc = "agent command, split on blanks, run without a shell",
	.def_doc = "`claude --dangerously-skip-permissions`"},
    {.env = "AGENT_READY_PATTERN",
	.type = T_STR,
	.def = "\xe2\x9d\xaf",
	.off = F(agent_ready_pattern),
	.doc = "the prompt glyph of the agent's input box (a line "
	       "starting with it between two horizontal rules); a "
	       "first-run dialog is never taken for it"},
    {.env = "AGENT_PROTOCOL",
	.section = "agent",
	.key = "protocol",
	.type = T_STR,
	.def = "phase",
	.check = check_protocol,
	.off = F(agent_protocol),
	.doc = "how the tools talk to agents: `phase` (a tmux session "
	       "writing a phase file), `checkpoint` (one-shot runs ending "
	       "in a JSON checkpoint, resumed), `markers` (a tmux session "
	       "with a file handshake)"},
    {.env = "AGENT_RUN_TIMEOUT",
	.section = "agent",
	.key = "run_timeout_seconds",
	.type = T_LLONG,
	.def = "1800",
	.min = 1,
	.max = LLONG_MAX,
	.off = F(agent_run_timeout_s),
	.doc = "protocol `checkpoint`: seconds a run may take before its "
	       "process group is killed"},
    {.env = "CLAUDE_SESSION_LOCK",
	.type = T_STR,
	.flags = S_EMPTY,
	.derive = derive_session_lock,
	.off = F(session_lock),
	.doc = "the lock (`flock`) agent sessions share with the factory's "
	       "other Claude sessions: held while an agent works; empty: "
	       "none",
	.def_doc = "`$HOME/.claude/session.lock`"},
    {.env = "CLAUDE_SESSION_LOCK_WAIT",
	.type = T_INT,
	.def = "300",
	.min = 0,
	.max = 86400,
	.off = F(session_lock_wait_s),
	.doc = "seconds a launch waits for that lock (a message for a "
	       "session never waits: it goes to the session's mailbox)"},
    {.env = "AGENT_MARKER_READY_TIMEOUT",
	.section = "agent",
	.key = "marker_ready_timeout",
	.type = T_INT,
	.def = "30",
	.min = 1,
	.max = 3600,
	.off = F(marker_ready_s),
	.doc = "`markers`: seconds a new agent may take to create its "
	       "ready marker"},
    {.env = "AGENT_IDLE_SECONDS",
	.section = "agent",
	.key = "idle_seconds",
	.type = T_INT,
	.def = "90",
	.min = 0,
	.max = 86400,
	.off = F(idle_grace_s),
	.doc = "seconds a dev agent whose turn ended (its Stop hook) without "
	       "a phase may stay at its prompt before dev-poll ends it as "
	       "idle (`idle_prompt`); the tick the hook starts looks, and "
	       "the session's wrapper wakes dev-poll again when this long "
	       "is over (with `DISINTO_WAKE`), else the first tick after "
	       "it acts"},
    {.env = "AGENT_MARKER_ACK_TIMEOUT",
	.section = "agent",
	.key = "marker_ack_timeout",
	.type = T_INT,
	.def = "10",
	.min = 1,
	.max = 600,
	.off = F(marker_ack_s),
	.doc = "`markers`: seconds an agent may take to acknowledge a "
	       "prompt"},
    {.env = "AGENT_SANDBOX",
	.section = "agent",
	.key = "sandbox",
	.type = T_STR,
	.def = "auto",
	.check = check_sandbox,
	.off = F(agent_sandbox),
	.doc = "what confines every agent process: `auto` (bubblewrap when "
	       "it can run, else `user` when `AGENT_USER` is set), `bwrap`, "
	       "`user` (the agent runs as `AGENT_USER` through `sudo -n`), "
	       "or `unconfined-trust-agent`; when none can run, no agent "
	       "starts"},
    {.env = "AGENT_SANDBOX_BWRAP",
	.type = T_STR,
	.def = "bwrap",
	.off = F(agent_sandbox_bwrap),
	.doc = "the bubblewrap command"},
    {.env = "AGENT_USER",
	.type = T_STR,
	.off = F(agent_user),
	.doc = "the Unix user agents run as when confined by `user`"},
    {.env = "AGENT_SANDBOX_RO",
	.type = T_STR,
	.off = F(agent_sandbox_ro),
	.doc = "more paths an agent sees read-only in its sandbox, "
	       "`:`-separated"},
    {.env = "AGENT_SANDBOX_RW",
	.type = T_STR,
	.off = F(agent_sandbox_rw),
	.doc = "more paths an agent may write in its sandbox, `:`-separated "
	       "(a local remote it pushes to)"},
    {.env = "DEV_AGENT_CMD",
	.type = T_STR,
	.off = F(dev_agent_cmd),
	.doc = "legacy mode: a command started with the issue number instead "
	       "of a tmux session"},
    {.env = "AGENT_ENV_PASS",
	.type = T_STR,
	.check = check_env_pass,
	.off = F(agent_env_pass),
	.doc = "more variables agents get, by name, comma-separated (from "
	       "`.env`, else the environment); never the factory's tokens",
	.def_doc = "none: agents get the agent CLI's `ANTHROPIC_*` and "
		   "`CLAUDE_*` settings, `PATH`, `HOME`, the project's and "
		   "forge's names and URLs and their role's token"},
    {.env = "SUPERVISOR_FIX_CMD",
	.type = T_STR,
	.flags = S_EMPTY,
	.def = "claude -p --model sonnet --dangerously-skip-permissions",
	.off = F(supervisor_fix_cmd),
	.doc = "run once per tick with the alerts as its prompt, on its "
	       "standard input, never during a memory or disk crisis; empty "
	       "disables"},
    {.env = "SUPERVISOR_DROP_CACHES",
	.type = T_BOOL,
	.def = "true",
	.off = F(drop_caches),
	.doc = "supervisor-poll drops the page cache on a memory crisis (as "
	       "root, else with `sudo -n`)"},
    {.env = "SUPERVISOR_DOCKER_PRUNE",
	.type = T_BOOL,
	.def = "true",
	.off = F(docker_prune),
	.doc = "supervisor-poll runs `docker system prune -f` on disk "
	       "pressure when docker is installed (with `sudo -n` unless "
	       "root)"},
    {.env = "DISINTO_TMUX_SOCKET",
	.type = T_STR,
	.def = "disinto",
	.check = valid_name,
	.off = F(tmux_socket),
	.doc = "`tmux -L` socket name of the agent sessions' tmux server, "
	       "a server of the tools' own that holds no secret (`default` "
	       "shares upstream's agents' server: docs/AGENTS.md, "
	       "\"What an agent session gets\")"},
    {.env = "DISINTO_MEMINFO",
	.type = T_STR,
	.def = "/proc/meminfo",
	.off = F(meminfo_path),
	.doc = "memory figures (tests point it at a fixture)"},
    {.env = "DISINTO_PROC_DIR",
	.type = T_STR,
	.def = "/proc",
	.off = F(proc_dir),
	.doc = "where supervisor-poll reads processes"},
    {.env = "DISINTO_DISK_PATH",
	.type = T_STR,
	.def = "/",
	.off = F(disk_path),
	.doc = "the file system whose use supervisor-poll checks"},
    {.env = "DISINTO_WAKE",
	.type = T_BOOL,
	.def = "true",
	.off = F(wake),
	.doc = "the agents' hooks (an agent stopped, ended, failed or wrote "
	       "its phase) and checkpoint runs start a tick of their tool at "
	       "once (`--wake`), and a tool wakes the one that reacts to "
	       "what it did (a PR ready for review, a verdict, an "
	       "escalation, a kept reply; a merge runs its tick once more); "
	       "`false`: only the schedule starts ticks"},
    {.env = "DISINTO_TEST_CRASH",
	.type = T_STR,
	.def = "",
	.off = F(test_crash),
	.doc = "tests only: end the tool as `kill -9` would at these "
	       "points (comma-separated): `session-started` (a dev session "
	       "started, its prompt not typed), `recorded` (a message's "
	       "intent recorded, not typed), `typed` (typed, not recorded "
	       "as delivered), `mailbox-typed` (a session's wrapper typed "
	       "a message of its mailbox, not recorded: given to the "
	       "wrappers of the sessions the tool starts); never set it in "
	       "a factory",
	.def_doc = "none"},
    {.env = "DISINTO_TEST_CI_WATCH_S",
	.type = T_INT,
	.def = "15",
	.min = 1,
	.max = 15,
	.off = F(test_ci_watch_s),
	.doc = "tests only: seconds between two looks of a CI watcher "
	       "(`dev-poll --ci-watch`) at its head's CI; the default is "
	       "the watcher's budget, never set it in a factory"},
    {.env = "DISINTO_REVIEW_POLL",
	.type = T_STR,
	.derive = derive_review_poll,
	.off = F(review_poll_path),
	.doc = "started by supervisor-poll for green, unreviewed PRs",
	.def_doc = "`review/review-poll.sh` if present, else "
		   "`review-poll/review-poll`"},
    {.env = "DISINTO_FORMULAS_DIR",
	.type = T_STR,
	.derive = derive_formulas,
	.off = F(formulas_dir),
	.doc = "the factory's formulas; a template here overrides the "
	       "compiled-in one",
	.def_doc = "`$FACTORY_ROOT/formulas`"},
    {.env = "DISINTO_HTTP_TIMEOUT",
	.type = T_LONG,
	.def = "30",
	.min = 1,
	.max = 3600,
	.scale = 1000,
	.off = F(http_timeout_ms),
	.doc = "seconds per request"},
    {.env = "DISINTO_HTTP_CONNECT_TIMEOUT",
	.type = T_LONG,
	.def = "10",
	.min = 1,
	.max = 600,
	.scale = 1000,
	.off = F(http_connect_timeout_ms),
	.doc = "seconds to connect"},
    {.env = "DISINTO_HTTP_RETRIES",
	.type = T_INT,
	.def = "3",
	.min = 1,
	.max = 10,
	.off = F(http_retries),
	.doc = "attempts per request"},
    {.env = "DISINTO_HTTP_BACKOFF_MS",
	.type = T_LONG,
	.def = "1000",
	.min = 0,
	.max = 60000,
	.off = F(http_backoff_ms),
	.doc = "first back-off between attempts, doubling"},
    {.env = "REVIEW_MODEL",
	.section = "review",
	.key = "model",
	.type = T_STR,
	.def = "sonnet",
	.check = check_word,
	.off = F(review.model),
	.doc = "`--model` of the review agent"},
    {.env = "REVIEW_MAX_DIFF_BYTES",
	.section = "review",
	.key = "max_diff_bytes",
	.type = T_SIZE,
	.def = "25000",
	.min = 1000,
	.max = 1000000,
	.off = F(review.max_diff),
	.doc = "bytes of a PR's diff put into the review prompt (cut beyond)"},
    {.env = "REVIEW_MAX_REVIEWS_PER_TICK",
	.section = "review",
	.key = "max_reviews_per_tick",
	.type = T_INT,
	.def = "3",
	.min = 0,
	.max = 100,
	.off = F(review.max_reviews),
	.doc = "review sessions alive at once (so also started per tick)"},
    {.env = "REVIEW_IDLE_TIMEOUT_MINUTES",
	.section = "review",
	.key = "idle_timeout_minutes",
	.type = T_LLONG,
	.def = "240",
	.min = 1,
	.max = 100000,
	.scale = 60,
	.off = F(review.idle_timeout_s),
	.doc = "a review session unchanged this long is removed"},
    {.env = "REVIEW_SESSION_TIMEOUT_SECONDS",
	.section = "review",
	.key = "session_timeout_seconds",
	.type = T_LLONG,
	.def = "600",
	.min = 60,
	.max = 86400,
	.off = F(review.agent_timeout_s),
	.doc = "a review agent that writes no phase this long is stopped, "
	       "its try counted as failed"},
    {.env = "REVIEW_NO_REVIEW_ESCALATE_MINUTES",
	.section = "review",
	.key = "no_review_escalate_minutes",
	.type = T_LLONG,
	.def = "180",
	.min = 1,
	.max = 100000,
	.scale = 60,
	.off = F(review.no_review_s),
	.doc = "a dev session waiting this long for a review is told to "
	       "escalate"},
    {.env = "REVIEW_MIN_AVAILABLE_MB",
	.section = "review",
	.key = "min_available_mb",
	.type = T_LLONG,
	.def = "1500",
	.min = 0,
	.max = 10000000,
	.off = F(review.min_available_mb),
	.doc = "memory needed to start a review session"},
    {.env = "REVIEW_READY_TIMEOUT_SECONDS",
	.section = "review",
	.key = "ready_timeout_seconds",
	.type = T_INT,
	.def = "120",
	.min = 1,
	.max = 3600,
	.off = F(review.ready_timeout_s),
	.doc = "how long a review session may take to show its prompt"},
    {.env = "REVIEW_PR_TIMEOUT_SECONDS",
	.section = "review",
	.key = "pr_timeout_seconds",
	.type = T_LLONG,
	.def = "1800",
	.min = 1,
	.max = 86400,
	.off = F(review.pr_timeout_s),
	.doc = "how long `review-poll --pr` waits for the verdict"},
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

/* Variables the environment brings in besides the table's names. */
static const char *const env_extra[] = {"USER", "HOME"};

static void *
field(const struct config *c, size_t off)
{
	return (char *)c + off;
}

static void
vars_set(struct load *l, const char *key, const char *value, const char *origin,
    int line)
{
	struct var *v = (struct var *)vars_get(l, key);

	if (v == NULL) {
		l->vars =
		    xreallocarray(l->vars, l->nvars + 1, sizeof(*l->vars));
		v = &l->vars[l->nvars++];
		v->key = xstrdup(key);
	} else {
		explicit_bzero(v->value, strlen(v->value));
		free(v->value);
	}
	v->value = xstrdup(value);
	v->origin = origin;
	v->line = line;
}

static const struct var *
vars_get(const struct load *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->nvars; i++)
		if (strcmp(l->vars[i].key, key) == 0)
			return &l->vars[i];
	return NULL;
}

static void
vars_free(struct load *l)
{
	size_t i;

	for (i = 0; i < l->nvars; i++) {
		explicit_bzero(l->vars[i].value, strlen(l->vars[i].value));
		free(l->vars[i].key);
		free(l->vars[i].value);
	}
	free(l->vars);
	l->vars = NULL;
	l->nvars = 0;
}

static void
add_msg(char ***list, size_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*list = xreallocarray(*list, *n + 1, sizeof(**list));
	(*list)[(*n)++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static const struct setting *
row_by_env(const char *env)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (settings[i].env != NULL &&
		    strcmp(settings[i].env, env) == 0)
			return &settings[i];
	return NULL;
}

/* The row of a project file key (path of depth 1 or 2), or NULL. */
static const struct setting *
row_by_key(const char *const *path, size_t depth)
{
	const char *section = depth == 2 ? path[0] : "";
	size_t i;

	if (depth > 2)
		return NULL;
	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];

		if (s->section == NULL || strcmp(s->section, section) != 0)
			continue;
		if (s->type == T_MIRRORS ? depth == 2 :
					   strcmp(s->key, path[depth - 1]) == 0)
			return s;
	}
	return NULL;
}

/*
 * How many parts of path name a key the tools use, with a table in the
 * place of its value (0: none).
 */
static size_t
key_prefix(const char *const *path, size_t depth)
{
	const struct setting *s;
	size_t n;

	for (n = 1; n < depth && n <= 2; n++)
		if ((s = row_by_key(path, n)) != NULL && s->type != T_MIRRORS)
			return n;
	return 0;
}

/*
 * The variable that sets row s, or NULL (the default applies): the
 * row's name, else its legacy name, each only when not empty (unless
 * S_EMPTY); from the places the row's flags allow.
 */
static const struct var *
row_value(const struct load *l, const struct setting *s)
{
	const char *names[2] = {s->env, s->legacy};
	const char *file = l->cfg->project_toml;
	const struct var *v;
	size_t i;

	for (i = 0; i < 2 && names[i] != NULL; i++) {
		if ((v = vars_get(l, names[i])) == NULL)
			continue;
		if ((s->flags & S_PROJECT) && file != NULL && v->origin != file)
			continue;
		if ((s->flags & S_ENV_ONLY) && v->origin != NULL)
			continue;
		if (v->value[0] != '\0' || (s->flags & S_EMPTY))
			return v;
	}
	return NULL;
}

/*
 * A bad value: err = "file:line: NAME: why, got 'value'" (no value for
 * secrets; the project file's key instead of the variable name when the
 * value came from it).  Returns -1.
 */
static int
bad(const struct load *l, const struct setting *s, const struct var *v,
    char *err, size_t errsz, const char *fmt, ...)
{
	char why[200], where[PATH_MAX + 32] = "", *name = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (v != NULL && v->origin != NULL)
		snprintf(where, sizeof(where), "%s:%d: ", v->origin, v->line);
	if (v != NULL && v->origin != NULL &&
	    v->origin == l->cfg->project_toml && s->key != NULL)
		name = row_key_doc(s);
	snprintf(err, errsz, "%s%s: %s", where,
	    name != NULL  ? name :
		v != NULL ? v->key :
			    s->env,
	    why);
	if (v != NULL && !(s->flags & S_SECRET))
		snprintf(err + strlen(err), errsz - strlen(err),
		    ", got '%.60s'", v->value);
	free(name);
	return -1;
}

/* The settings whose origin is kept, in config_origin()'s slots. */
static const char *const origin_rows[CONFIG_NORIGINS] = {"FORGE_URL",
    "FORGE_API", "FORGE_TOKEN", "FORGE_REVIEW_TOKEN", "WOODPECKER_SERVER",
    "WOODPECKER_TOKEN"};

/* Keep where s's value v (NULL: derived or default) came from. */
static void
origin_note(struct load *l, const struct setting *s, const struct var *v)
{
	struct config_origin *o;
	char *key;
	size_t i;

	for (i = 0; i < CONFIG_NORIGINS; i++)
		if (strcmp(origin_rows[i], s->env) == 0)
			break;
	if (i == CONFIG_NORIGINS)
		return;
	o = &l->cfg->origins[i];
	o->env = origin_rows[i];
	free(o->where);
	if (v == NULL && l->cfg->env_missing != NULL)
		o->where = xasprintf("the default: '%s' not found",
		    l->cfg->env_missing);
	else if (v == NULL)
		o->where = xstrdup("the default");
	else if (v->origin == NULL)
		o->where = xstrdup("the environment");
	else if (v->origin == l->cfg->project_toml && s->key != NULL) {
		key = row_key_doc(s);
		o->where = xasprintf("%s:%d as %s", v->origin, v->line, key);
		free(key);
	} else
		o->where = xasprintf("%s:%d", v->origin, v->line);
}

const char *
config_origin(const struct config *c, const char *env)
{
	size_t i;

	for (i = 0; i < CONFIG_NORIGINS; i++)
		if (c->origins[i].env != NULL &&
		    strcmp(c->origins[i].env, env) == 0)
			return c->origins[i].where;
	return NULL;
}

static int
fill_str(struct load *l, const struct setting *s, const struct var *v,
    char *err, size_t errsz)
{
	char **out = field(l->cfg, s->off);
	const char *why;

	origin_note(l, s, v);
	if (v != NULL)
		*out = xstrdup(v->value);
	else if (s->derive != NULL)
		*out = s->derive(l);
	else
		*out = s->def != NULL ? xstrdup(s->def) : NULL;
	if (*out != NULL && s->check != NULL && (why = s->check(*out)) != NULL)
		return bad(l, s, v, err, errsz, "%s", why);
	if ((s->flags & S_NEEDED) && l->cfg->project_toml != NULL &&
	    (*out == NULL || **out == '\0')) {
		snprintf(err, errsz, "%s: no '%s' (%s)", l->cfg->project_toml,
		    s->key, s->doc);
		return -1;
	}
	return 0;
}

static int
fill_num(struct load *l, const struct setting *s, const struct var *v,
    char *err, size_t errsz)
{
	const char *text = v != NULL ? v->value : s->def;
	void *out = field(l->cfg, s->off);
	long long n;
	char *end;

	if (text == NULL)
		return 0;
	errno = 0;
	n = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || n < s->min ||
	    n > s->max) {
		if (s->max == LLONG_MAX)
			return bad(l, s, v, err, errsz,
			    "expected a whole number >= %lld", s->min);
		return bad(l, s, v, err, errsz,
		    "expected a whole number from %lld to %lld", s->min,
		    s->max);
	}
	n *= s->scale != 0 ? s->scale : 1;
	if (s->type == T_INT)
		*(int *)out = (int)n;
	else if (s->type == T_LONG)
		*(long *)out = (long)n;
	else if (s->type == T_SIZE)
		*(size_t *)out = (size_t)n;
	else
		*(long long *)out = n;
	return 0;
}

static int
fill_bool(struct load *l, const struct setting *s, const struct var *v,
    char *err, size_t errsz)
{
	const char *text = v != NULL ? v->value : s->def;
	int *out = field(l->cfg, s->off);

	if (text == NULL)
		return 0;
	if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
		*out = 1;
	else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
		*out = 0;
	else
		return bad(l, s, v, err, errsz, "expected true or false");
	return 0;
}

static int
fill_row(struct load *l, const struct setting *s, char *err, size_t errsz)
{
	const struct var *v = row_value(l, s);

	switch (s->type) {
	case T_STR:
		return fill_str(l, s, v, err, errsz);
	case T_BOOL:
		return fill_bool(l, s, v, err, errsz);
	case T_WORDS:
		if (v != NULL)
			*(char ***)field(l->cfg, s->off) =
			    strv_split(v->value, field(l->cfg, s->off2));
		return 0;
	case T_MIRRORS:
		return 0; /* read straight from the project file */
	default:
		return fill_num(l, s, v, err, errsz);
	}
}

static int
fill(struct load *l, char *err, size_t errsz)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (!(settings[i].flags & S_EARLY) &&
		    fill_row(l, &settings[i], err, errsz) == -1)
			return -1;
	return 0;
}

/* The parent of the directory holding the executable.  Caller frees. */
static char *
derive_root(const struct load *l)
{
	const char *exe = l->exe;
	char path[PATH_MAX], *d1, *copy;
	ssize_t n;

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n > 0)
		path[n] = '\0';
	else if (exe == NULL || realpath(exe, path) == NULL)
		return xstrdup(".");
	copy = xstrdup(path);
	d1 = dirname(copy);
	d1 = xstrdup(dirname(d1));
	free(copy);
	return d1;
}

/*
 * The run directory of this user alone: the same for cron, a login
 * shell and a systemd unit (so never $XDG_RUNTIME_DIR, which cron does
 * not set and which goes with the last login).  Caller frees.
 */
static char *
derive_run_dir(const struct load *l)
{
	(void)l;
	return xasprintf("/tmp/disinto-%lu", (unsigned long)geteuid());
}

static char *
derive_api(const struct load *l)
{
	return xasprintf("%s/api/v1/repos/%s", l->cfg->forge_url,
	    l->cfg->forge_repo);
}

static char *
derive_web(const struct load *l)
{
	return xasprintf("%s/%s", l->cfg->forge_url, l->cfg->forge_repo);
}

/* The repository's name (FORGE_REPO after its '/'), or "". */
static char *
derive_name(const struct load *l)
{
	const char *slash = strrchr(l->cfg->forge_repo, '/');

	return xstrdup(slash != NULL ? slash + 1 : l->cfg->forge_repo);
}

static char *
derive_repo_root(const struct load *l)
{
	const struct var *user = vars_get(l, "USER");

	return xasprintf("/home/%s/%s", user != NULL ? user->value : "",
	    l->cfg->project_name);
}

static char *
derive_agent_cmd(const struct load *l)
{
	if (l->cfg->claude_model != NULL)
		return xasprintf("claude --dangerously-skip-permissions "
				 "--model %s",
		    l->cfg->claude_model);
	return xstrdup("claude --dangerously-skip-permissions");
}

/* upstream's lock of Claude sessions, in the home directory. */
static char *
derive_session_lock(const struct load *l)
{
	const struct var *home = vars_get(l, "HOME");

	if (home == NULL || home->value[0] == '\0')
		return xstrdup("");
	return xasprintf("%s/.claude/session.lock", home->value);
}

/*
 * The review-poll that supervisor-poll starts: the drop-in name inside a
 * factory checkout (review/review-poll.sh) when it is there, else the
 * executable of this source tree's layout.
 */
static char *
derive_review_poll(const struct load *l)
{
	char *p = xasprintf("%s/review/review-poll.sh", l->cfg->factory_root);

	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xasprintf("%s/review-poll/review-poll", l->cfg->factory_root);
}

static char *
derive_formulas(const struct load *l)
{
	return xasprintf("%s/formulas", l->cfg->factory_root);
}

/* A non-empty word without '/' or blanks (a model name). */
static const char *
check_word(const char *s)
{
	if (*s == '\0' || strpbrk(s, "/ \t\n") != NULL)
		return "expected a non-empty word without '/' or blanks";
	return NULL;
}

/*
 * The next name of a list separated by commas or blanks, from *p into
 * name: 1, or 0 at its end, or -1 when a name is not a variable's name
 * (or too long).
 */
static int
env_pass_next(const char **p, char *name, size_t namesz)
{
	size_t n;

	*p += strspn(*p, ", \t");
	if (**p == '\0')
		return 0;
	n = strcspn(*p, ", \t");
	if (n >= namesz || (!isalpha((unsigned char)**p) && **p != '_'))
		return -1;
	memcpy(name, *p, n);
	name[n] = '\0';
	*p += n;
	return strspn(name,
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_") == n ?
	    1 :
	    -1;
}

/*
 * AGENT_ENV_PASS: variable names, none of them a secret of the table
 * (the factory's tokens, legacy names too: an agent's own comes by its
 * role, and never another).
 */
static const char *
check_env_pass(const char *s)
{
	char name[256];
	size_t k;
	int r;

	while ((r = env_pass_next(&s, name, sizeof(name))) == 1)
		for (k = 0; k < NSETTINGS; k++)
			if ((settings[k].flags & S_SECRET) &&
			    (strcmp(name, settings[k].env) == 0 ||
				(settings[k].legacy != NULL &&
				    strcmp(name, settings[k].legacy) == 0)))
				return "names a token of the factory, which "
				       "agents never get (the role's own "
				       "comes by its role)";
	return r == -1 ? "expected variable names separated by commas" : NULL;
}

/* Where the log goes: "file" or "stderr". */
static const char *
check_log(const char *s)
{
	if (strcmp(s, "file") == 0 || strcmp(s, "stderr") == 0)
		return NULL;
	return "expected 'file' or 'stderr'";
}

/* "" (the factory) or an absolute directory. */
static const char *
check_log_dir(const char *s)
{
	return *s == '\0' || *s == '/' ? NULL : "expected an absolute path";
}

/* One of the agent seam's protocols (agent.h). */
static const char *
check_protocol(const char *s)
{
	if (strcmp(s, "phase") != 0 && strcmp(s, "checkpoint") != 0 &&
	    strcmp(s, "markers") != 0)
		return "expected \"phase\", \"checkpoint\" or \"markers\"";
	return NULL;
}

/* AGENT_SANDBOX's values (sandbox.h names them). */
static const char *
check_sandbox(const char *s)
{
	if (strcmp(s, "auto") != 0 && strcmp(s, "bwrap") != 0 &&
	    strcmp(s, "user") != 0 && strcmp(s, "unconfined-trust-agent") != 0)
		return "expected \"auto\", \"bwrap\", \"user\" or "
		       "\"unconfined-trust-agent\"";
	return NULL;
}

/* "" (no project) or owner/name. */
static const char *
check_repo(const char *s)
{
	return *s == '\0' ? NULL : valid_repo(s);
}

static const char *
check_optional_name(const char *s)
{
	return *s == '\0' ? NULL : valid_name(s);
}

/* envfile's view of variables: .env's own so far, then the process's. */
static const char *
env_get(void *arg, const char *name)
{
	struct load *l = arg;
	const struct config *c = l->cfg;
	size_t i;

	for (i = c->nenv_vars; i > 0; i--)
		if (strcmp(c->env_vars[i - 1].key, name) == 0)
			return c->env_vars[i - 1].value;
	if (strcmp(name, "FACTORY_ROOT") == 0)
		return c->factory_root;
	return getenv(name);
}

static int
env_set(void *arg, const char *name, const char *value, int line, char *err,
    size_t errsz)
{
	struct load *l = arg;
	struct config *c = l->cfg;
	size_t i;

	(void)err;
	(void)errsz;
	for (i = 0; i < c->nenv_vars; i++)
		if (strcmp(c->env_vars[i].key, name) == 0)
			break;
	if (i == c->nenv_vars) {
		c->env_vars =
		    xreallocarray(c->env_vars, i + 1, sizeof(*c->env_vars));
		c->env_vars[i].key = xstrdup(name);
		c->nenv_vars++;
	} else {
		explicit_bzero(c->env_vars[i].value,
		    strlen(c->env_vars[i].value));
		free(c->env_vars[i].value);
	}
	c->env_vars[i].value = xstrdup(value);
	vars_set(l, name, value, l->env_path, line);
	return 0;
}

/* 1 when an executable named prog is found on PATH. */
static int
find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	if (path == NULL)
		return 0;
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", dir, prog);

		found = access(full, X_OK) == 0;
		free(full);
	}
	free(copy);
	return found;
}

/*
 * Decrypt .env.enc with sops and read its dotenv output.  A failure to
 * decrypt is a warning, as in the bash scripts: the run goes on without
 * those secrets.
 */
static int
load_env_enc(struct load *l, const char *path, char *err, size_t errsz)
{
	char *argv[] = {"sops", "-d", "--output-type", "dotenv", NULL, NULL};
	struct envfile_ops ops = {env_get, env_set, l};
	struct spawn_opts opts;
	struct buf out;
	int status = 0, r = 0;

	argv[4] = (char *)path;
	memset(&opts, 0, sizeof(opts));
	opts.timeout_s = 60;
	buf_init(&out, ENV_MAX);
	if (spawn_run(argv, &opts, &out, &status) == -1 || status != 0)
		add_msg(&l->cfg->warnings, &l->cfg->nwarnings,
		    "cannot decrypt '%s': secrets not loaded", path);
	else
		r = envfile_parse(path, buf_str(&out), out.len, &ops, err,
		    errsz);
	if (out.data != NULL)
		explicit_bzero(out.data, out.len);
	buf_free(&out);
	return r;
}

/* $FACTORY_ROOT/.env.enc (when sops is there) or .env, if present. */
static int
load_env_file(struct load *l, char *err, size_t errsz)
{
	struct envfile_ops ops = {env_get, env_set, l};
	const char *root = l->cfg->factory_root;
	struct buf text;
	int r = 0, rr;

	l->env_path = xasprintf("%s/.env.enc", root);
	if (file_exists(l->env_path) && find_in_path("sops"))
		return load_env_enc(l, l->env_path, err, errsz);
	free(l->env_path);
	l->env_path = xasprintf("%s/.env", root);
	buf_init(&text, 0);
	rr = file_read(l->env_path, ENV_MAX, &text);
	if (rr == -1 && errno == ENOENT) {
		/* Named where a setting's default is reported. */
		l->cfg->env_missing = xstrdup(l->env_path);
		goto out;
	}
	if (rr != 0) {
		snprintf(err, errsz, "%s: %s", l->env_path,
		    rr == 1 ? "larger than 1 MiB" : strerror(errno));
		r = -1;
		goto out;
	}
	r = envfile_parse(l->env_path, buf_str(&text), text.len, &ops, err,
	    errsz);
out:
	if (text.data != NULL)
		explicit_bzero(text.data, text.len);
	buf_free(&text);
	return r;
}

/*
 * The text load-project.sh exported for a project file value: scalars
 * as written, arrays (for word lists) joined by blanks.  NULL with err
 * set when the value cannot stand for a row of type t.  Caller frees.
 */
static char *
config_toml_text(const struct toml_value *v, enum set_type t, char *err,
    size_t errsz)
{
	struct buf b;
	size_t i;

	if (v->type != TOML_ARRAY)
		return xstrdup(v->str);
	if (t != T_WORDS) {
		snprintf(err, errsz, "expected a single value, not an array");
		return NULL;
	}
	buf_init(&b, 0);
	for (i = 0; i < v->nitems; i++) {
		if (v->items[i].type == TOML_ARRAY ||
		    v->items[i].type == TOML_TABLE) {
			snprintf(err, errsz, "expected an array of strings");
			buf_free(&b);
			return NULL;
		}
		buf_printf(&b, "%s%s", i ? " " : "", v->items[i].str);
	}
	return buf_steal(&b);
}

static int
add_mirror(struct load *l, const struct toml_item *it, char *err, size_t errsz)
{
	struct config *c = l->cfg;

	if (it->value->type != TOML_STRING || it->value->str[0] == '\0') {
		snprintf(err, errsz, "[mirrors] %s: expected a quoted URL",
		    it->path[1]);
		return -1;
	}
	c->mirrors =
	    xreallocarray(c->mirrors, c->nmirrors + 1, sizeof(*c->mirrors));
	c->mirrors[c->nmirrors].name = xstrdup(it->path[1]);
	c->mirrors[c->nmirrors].url = xstrdup(it->value->str);
	c->nmirrors++;
	return 0;
}

/* One key of the project file. */
static int
config_toml_item_cb(void *arg, const struct toml_item *it, char *err,
    size_t errsz)
{
	struct load *l = arg;
	const struct setting *s = row_by_key(it->path, it->depth);
	size_t n = key_prefix(it->path, it->depth);
	char *text, *name;

	if (s == NULL && n > 0) {
		name = toml_path_str(it->path, n);
		snprintf(err, errsz, "%s: expected a value, not a table", name);
		free(name);
		return -1;
	}
	if (s == NULL) {
		name = toml_path_str(it->path, it->depth);
		add_msg(&l->cfg->notes, &l->cfg->nnotes,
		    "%s:%d: ignored '%s' (not used by these tools)",
		    l->cfg->project_toml, it->lineno, name);
		free(name);
		return 0;
	}
	if (it->in_array) {
		snprintf(err, errsz, "[[%s]]: expected a table [%s]",
		    it->path[0], it->path[0]);
		return -1;
	}
	if (s->type == T_MIRRORS)
		return add_mirror(l, it, err, errsz);
	if ((text = config_toml_text(it->value, s->type, err, errsz)) == NULL)
		return -1;
	vars_set(l, s->env, text, l->cfg->project_toml, it->lineno);
	free(text);
	return 0;
}

/*
 * The project name of a file that could not be loaded: its `name =`
 * line when it can be read, else its base name without ".toml"; NULL
 * when neither is a valid name, or when no such file exists (a typo
 * names no project, so nothing is written under its name).  Caller
 * frees.
 */
static char *
name_from_file(const char *path)
{
	struct buf text;
	struct stat st;
	const char *p, *q;
	char *name = NULL, *copy;
	size_t n;

	if (stat(path, &st) == -1 && (errno == ENOENT || errno == ENOTDIR))
		return NULL;
	buf_init(&text, 0);
	if (file_read(path, 64 * 1024, &text) != -1) {
		for (p = buf_str(&text); p != NULL && *p != '['; p = q) {
			q = strchr(p, '\n');
			q = q != NULL ? q + 1 : NULL;
			p += strspn(p, " \t");
			if (strncmp(p, "name", 4) != 0)
				continue;
			p += 4 + strspn(p + 4, " \t");
			if (*p != '=')
				continue;
			p += 1 + strspn(p + 1, " \t");
			if ((*p != '"' && *p != '\'') ||
			    (n = strcspn(p + 1, "\"'\n")) == 0)
				continue;
			name = xstrndup(p + 1, n);
			break;
		}
	}
	buf_free(&text);
	if (name != NULL && valid_name(name) == NULL)
		return name;
	free(name);
	copy = xstrdup(path);
	name = xstrdup(basename(copy));
	free(copy);
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, ".toml") == 0)
		name[n - 5] = '\0';
	if (valid_name(name) == NULL)
		return name;
	free(name);
	return NULL;
}

/* After a failure: the run dir and a project name to log under. */
static void
locate(struct load *l)
{
	struct config *c = l->cfg;
	char err[256];

	if (c->run_dir == NULL &&
	    fill_row(l, row_by_env("DISINTO_RUN_DIR"), err, sizeof(err)) == -1)
		c->run_dir = derive_run_dir(l);
	c->run_dir_default =
	    row_value(l, row_by_env("DISINTO_RUN_DIR")) == NULL;
	if (c->log_dest == NULL)
		(void)fill_row(l, row_by_env("DISINTO_LOG"), err, sizeof(err));
	if (c->project_name != NULL && c->project_name[0] != '\0')
		return;
	free(c->project_name);
	c->project_name =
	    c->project_toml != NULL ? name_from_file(c->project_toml) : NULL;
	if (c->project_name == NULL)
		c->project_name = xstrdup("");
}

/*
 * A FACTORY_ROOT derived from the executable's place (DESIGN section 2:
 * the parent of its directory) that is no factory, as after `make
 * install` into /usr/local: neither state/ nor lib/env.sh.  Nothing may
 * be created there (no log, no metrics), so factory_root is let go of.
 * 1 with err set, else 0.
 */
static int
root_refused(struct load *l, char *err, size_t errsz)
{
	struct config *c = l->cfg;
	char *state, *env;
	struct stat st;
	int factory;

	if (row_value(l, row_by_env("FACTORY_ROOT")) != NULL)
		return 0;
	state = xasprintf("%s/state", c->factory_root);
	env = xasprintf("%s/lib/env.sh", c->factory_root);
	factory =
	    (stat(state, &st) == 0 && S_ISDIR(st.st_mode)) || file_exists(env);
	free(env);
	free(state);
	if (factory)
		return 0;
	snprintf(err, errsz,
	    "FACTORY_ROOT is not set, and '%s' (the parent of the "
	    "executable's directory) is no factory (no state/, no "
	    "lib/env.sh): set FACTORY_ROOT",
	    c->factory_root);
	free(c->factory_root);
	c->factory_root = NULL;
	return 1;
}

char *
config_factory_root(const char *exe)
{
	const char *v = getenv("FACTORY_ROOT");
	struct load l;

	if (v != NULL && v[0] != '\0')
		return xstrdup(v);
	memset(&l, 0, sizeof(l));
	l.exe = exe;
	return derive_root(&l);
}

/* FACTORY_ROOT, DISINTO_CONTAINER and the environment's variables. */
static void
early(struct load *l)
{
	struct config *c = l->cfg;
	const char *v;
	char err[64];
	size_t i;

	for (i = 0; i < NSETTINGS; i++) {
		const char *names[2] = {settings[i].env, settings[i].legacy};
		size_t k;

		for (k = 0; k < 2; k++)
			if (names[k] != NULL && (v = getenv(names[k])) != NULL)
				vars_set(l, names[k], v, NULL, 0);
	}
	for (i = 0; i < sizeof(env_extra) / sizeof(env_extra[0]); i++)
		if ((v = getenv(env_extra[i])) != NULL)
			vars_set(l, env_extra[i], v, NULL, 0);
	(void)fill_row(l, row_by_env("FACTORY_ROOT"), err, sizeof(err));
	v = getenv("DISINTO_CONTAINER");
	c->container = v != NULL && strcmp(v, "1") == 0;
}

/* Rows whose environment value wins over .env take it back. */
static void
env_wins(struct load *l)
{
	const char *v;
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if ((settings[i].flags & S_ENV_WINS) &&
		    (v = getenv(settings[i].env)) != NULL)
			vars_set(l, settings[i].env, v, NULL, 0);
}

/*
 * Hand every secret read to the masker (redact.h): the secret rows, the
 * .env variables and those of the environment whose names say they are
 * secrets, and the credentials of every URL configured or assigned in
 * .env.
 */
static void
secrets_register(const struct config *c)
{
	extern char **environ;
	const char *eq;
	char *name;
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if ((settings[i].flags & S_SECRET) && settings[i].type == T_STR)
			redact_add(*(char **)field(c, settings[i].off));
	for (i = 0; i < c->nenv_vars; i++) {
		if (redact_secret_name(c->env_vars[i].key))
			redact_add(c->env_vars[i].value);
		redact_add_url(c->env_vars[i].value);
	}
	for (i = 0; environ[i] != NULL; i++) {
		if ((eq = strchr(environ[i], '=')) == NULL)
			continue;
		name = xstrndup(environ[i], (size_t)(eq - environ[i]));
		if (redact_secret_name(name))
			redact_add(eq + 1);
		free(name);
	}
	redact_add_url(c->forge_url);
	redact_add_url(c->forge_api);
	redact_add_url(c->woodpecker_server);
	for (i = 0; i < c->nmirrors; i++)
		redact_add_url(c->mirrors[i].url);
}

int
config_load(struct config *cfg, const char *project_toml, const char *exe,
    char *err, size_t errsz)
{
	struct load l;
	int r = -1;

	memset(cfg, 0, sizeof(*cfg));
	memset(&l, 0, sizeof(l));
	/* Unset unless a source sets it (bash: ${WOODPECKER_REPO_ID:-2}). */
	cfg->woodpecker_repo_id = CONFIG_REPO_ID_UNSET;
	l.cfg = cfg;
	l.exe = exe;
	cfg->project_toml = project_toml != NULL ? xstrdup(project_toml) : NULL;
	early(&l);
	if (root_refused(&l, err, errsz))
		goto out;
	if (!cfg->container && load_env_file(&l, err, errsz) == -1)
		goto out;
	env_wins(&l);
	if (fill_row(&l, row_by_env("DISINTO_RUN_DIR"), err, errsz) == -1 ||
	    fill_row(&l, row_by_env("DISINTO_LOG"), err, errsz) == -1)
		goto out;
	cfg->run_dir_default =
	    row_value(&l, row_by_env("DISINTO_RUN_DIR")) == NULL;
	if (project_toml != NULL &&
	    toml_parse_file(project_toml, config_toml_item_cb, &l, err,
		errsz) == -1)
		goto out;
	if (fill(&l, err, errsz) == -1)
		goto out;
	r = 0;
out:
	if (r == -1)
		locate(&l);
	/* The logs' names are built below it (log.h, runfiles.c): only a
	 * value that passed its check, even for the log of a failure. */
	log_set_dir(
	    cfg->log_dir != NULL && check_log_dir(cfg->log_dir) == NULL ?
		cfg->log_dir :
		NULL);
	secrets_register(cfg);
	vars_free(&l);
	free(l.env_path);
	return r;
}

void
config_free(struct config *c)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		char **p = field(c, s->off);

		if (s->type == T_WORDS)
			strv_free(*(char ***)p);
		if (s->type != T_STR || *p == NULL)
			continue;
		if (s->flags & S_SECRET)
			explicit_bzero(*p, strlen(*p));
		free(*p);
	}
	free(c->project_toml);
	free(c->env_missing);
	for (i = 0; i < CONFIG_NORIGINS; i++)
		free(c->origins[i].where);
	for (i = 0; i < c->nmirrors; i++) {
		free(c->mirrors[i].name);
		free(c->mirrors[i].url);
	}
	free(c->mirrors);
	for (i = 0; i < c->nenv_vars; i++) {
		explicit_bzero(c->env_vars[i].value,
		    strlen(c->env_vars[i].value));
		free(c->env_vars[i].key);
		free(c->env_vars[i].value);
	}
	free(c->env_vars);
	for (i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	for (i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	memset(c, 0, sizeof(*c));
}

int
config_is_bot(const struct config *c, const char *login)
{
	const char *p = c->forge_bot_usernames;
	size_t n = strlen(login);

	if (n == 0)
		return 0;
	while (*p != '\0') {
		size_t len;

		p += strspn(p, ", ");
		len = strcspn(p, ", ");
		if (len == n && strncmp(p, login, n) == 0)
			return 1;
		p += len;
	}
	return 0;
}

int
config_ci_configured(const struct config *c)
{
	return c->woodpecker_repo_id != 0;
}

int
config_woodpecker_configured(const struct config *c)
{
	return c->woodpecker_repo_id > 0;
}

/*
 * Newest version first: "v22.2.0/bin" before "v9.10.0/bin" before
 * "v9.9.0/bin" (runs of digits compare as numbers).
 */
static int
ver_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)b, *y = *(char *const *)a;

	while (*x != '\0' && *y != '\0') {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			unsigned long long m = strtoull(x, (char **)&x, 10);
			unsigned long long n = strtoull(y, (char **)&y, 10);

			if (m != n)
				return m < n ? -1 : 1;
		} else if (*x != *y)
			return (unsigned char)*x - (unsigned char)*y;
		else {
			x++;
			y++;
		}
	}
	return (unsigned char)*x - (unsigned char)*y;
}

/* Append dir to the ':'-list in b unless it is there already. */
static void
path_add(struct buf *b, const char *dir)
{
	const char *p = buf_str(b);
	size_t n = strlen(dir);

	if (n == 0)
		return;
	while (*p != '\0') {
		size_t len = strcspn(p, ":");

		if (len == n && strncmp(p, dir, n) == 0)
			return;
		p += len + (p[len] == ':');
	}
	buf_printf(b, "%s%s", b->len ? ":" : "", dir);
}

char *
config_path(const char *home, const char *inherited)
{
	static const char *const fixed[] = {"/usr/local/bin", "/usr/bin",
	    "/bin"};
	struct buf b;
	glob_t g;
	char *p, *dir, *copy, *save = NULL;
	size_t i;

	buf_init(&b, 0);
	if (home != NULL && home[0] != '\0') {
		p = xasprintf("%s/.local/bin", home);
		path_add(&b, p);
		free(p);
		p = xasprintf("%s/.foundry/bin", home);
		path_add(&b, p);
		free(p);
		p = xasprintf("%s/.nvm/versions/node/*/bin", home);
		if (glob(p, 0, NULL, &g) == 0) {
			qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv),
			    ver_cmp);
			for (i = 0; i < g.gl_pathc; i++)
				path_add(&b, g.gl_pathv[i]);
			globfree(&g);
		}
		free(p);
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		path_add(&b, fixed[i]);
	copy = xstrdup(inherited != NULL ? inherited : "");
	for (dir = strtok_r(copy, ":", &save); dir != NULL;
	     dir = strtok_r(NULL, ":", &save))
		path_add(&b, dir);
	free(copy);
	return buf_steal(&b);
}

int
config_apply_path(void)
{
	char *path = config_path(getenv("HOME"), getenv("PATH"));
	int r = setenv("PATH", path, 1);

	free(path);
	return r;
}

/* Set key=value in the list (replacing an earlier key). */
static void
env_put(char ***env, size_t *n, const char *key, const char *value)
{
	size_t i, klen = strlen(key);

	for (i = 0; i < *n; i++) {
		if (strncmp((*env)[i], key, klen) == 0 &&
		    (*env)[i][klen] == '=') {
			explicit_bzero((*env)[i], strlen((*env)[i]));
			free((*env)[i]);
			memmove(&(*env)[i], &(*env)[i + 1],
			    (*n - i) * sizeof(**env));
			(*n)--;
			break;
		}
	}
	*env = xreallocarray(*env, *n + 2, sizeof(**env));
	(*env)[(*n)++] = xasprintf("%s=%s", key, value != NULL ? value : "");
	(*env)[*n] = NULL;
}

/* The agent CLI's own settings (its model, its API, its key). */
static int
config_agent_env_cli(const char *name)
{
	return strncmp(name, "ANTHROPIC_", 10) == 0 ||
	    strncmp(name, "CLAUDE_", 7) == 0;
}

const char *
config_agent_home(const struct config *c)
{
	const char *v = env_value(c, "HOME");

	if (v == NULL || *v == '\0')
		v = getenv("HOME");
	return v != NULL && *v != '\0' ? v : NULL;
}

const char *
config_agent_var(const struct config *c, const char *name)
{
	const char *v = env_value(c, name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/*
 * The agent CLI's settings in the tool's own environment (cron's, a
 * unit's Environment=), before .env's, which override them: they reach
 * the agent through its private file, never through the tmux server.
 */
static void
config_agent_env_cli_environ(char ***env, size_t *n)
{
	extern char **environ;
	char **e, name[256];
	size_t len;

	for (e = environ; e != NULL && *e != NULL; e++) {
		len = strcspn(*e, "=");
		if ((*e)[len] != '=' || len >= sizeof(name))
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		if (config_agent_env_cli(name))
			env_put(env, n, name, *e + len + 1);
	}
}

/* Whether name is one the list AGENT_ENV_PASS holds names. */
static int
config_env_passed(const char *list, const char *name)
{
	char one[256];

	while (list != NULL && env_pass_next(&list, one, sizeof(one)) == 1)
		if (strcmp(one, name) == 0)
			return 1;
	return 0;
}

int
config_env_setting(const struct config *c, const char *name)
{
	size_t i;

	/* PATH: config_apply_path() builds on it. */
	if (row_by_env(name) != NULL || config_agent_env_cli(name) ||
	    strcmp(name, "PATH") == 0)
		return 1;
	for (i = 0; i < NSETTINGS; i++)
		if (settings[i].legacy != NULL &&
		    strcmp(settings[i].legacy, name) == 0)
			return 1;
	for (i = 0; i < sizeof(env_extra) / sizeof(env_extra[0]); i++)
		if (strcmp(env_extra[i], name) == 0)
			return 1;
	return c != NULL && config_env_passed(c->agent_env_pass, name);
}

/* name's value: .env's last assignment, else the environment's; NULL. */
static const char *
env_value(const struct config *c, const char *name)
{
	size_t i;

	for (i = c->nenv_vars; i > 0; i--)
		if (strcmp(c->env_vars[i - 1].key, name) == 0)
			return c->env_vars[i - 1].value;
	return getenv(name);
}

char *
config_url_public(const char *url)
{
	const char *p = url != NULL ? strstr(url, "://") : NULL;
	size_t len;

	if (p == NULL)
		return xstrdup(url != NULL ? url : "");
	len = strcspn(p + 3, "/?#@");
	if (p[3 + len] != '@')
		return xstrdup(url);
	return xasprintf("%.*s%s", (int)(p + 3 - url), url, p + 3 + len + 1);
}

char **
config_agent_env(const struct config *c, enum config_role role)
{
	char **env = xcalloc(1, sizeof(*env)), *path, cwd[PATH_MAX], *toml;
	const struct {
		const char *name, *value;
	} urls[] = {{"FORGE_URL", c->forge_url}, {"FORGE_API", c->forge_api},
	    {"FORGE_WEB", c->forge_web}};
	const char *list = c->agent_env_pass, *v;
	char name[256], *url;
	size_t n = 0, i;

	config_agent_env_cli_environ(&env, &n);
	for (i = 0; i < c->nenv_vars; i++)
		if (config_agent_env_cli(c->env_vars[i].key))
			env_put(&env, &n, c->env_vars[i].key,
			    c->env_vars[i].value);
	while (list != NULL && env_pass_next(&list, name, sizeof(name)) == 1)
		if ((v = env_value(c, name)) != NULL)
			env_put(&env, &n, name, v);
	env_put(&env, &n, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
	path = config_path(getenv("HOME"), getenv("PATH"));
	env_put(&env, &n, "PATH", path);
	free(path);
	if ((v = env_value(c, "HOME")) != NULL)
		env_put(&env, &n, "HOME", v);
	env_put(&env, &n, "FACTORY_ROOT", c->factory_root);
	if (c->project_toml != NULL) {
		toml = c->project_toml[0] == '/' ||
			getcwd(cwd, sizeof(cwd)) == NULL ?
		    xstrdup(c->project_toml) :
		    xasprintf("%s/%s", cwd, c->project_toml);
		env_put(&env, &n, "PROJECT_TOML", toml);
		free(toml);
	}
	env_put(&env, &n, "PROJECT_NAME", c->project_name);
	env_put(&env, &n, "PROJECT_REPO_ROOT", c->project_repo_root);
	env_put(&env, &n, "PRIMARY_BRANCH", c->primary_branch);
	env_put(&env, &n, "FORGE_REPO", c->forge_repo);
	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		url = config_url_public(urls[i].value);
		env_put(&env, &n, urls[i].name, url);
		free(url);
	}
	/* A review agent writes its verdict; review-poll posts it. */
	if (role == CONFIG_ROLE_DEV && c->forge_agent_token[0] != '\0')
		env_put(&env, &n, "FORGE_TOKEN", c->forge_agent_token);
	else if (role == CONFIG_ROLE_DEV && c->agent_trust_dev_token)
		env_put(&env, &n, "FORGE_TOKEN", c->forge_token);
	return env;
}

void
config_env_free(char **env)
{
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		explicit_bzero(env[i], strlen(env[i]));
		free(env[i]);
	}
	free(env);
}

/* The names of env's n entries, as CONFIG_SERVER_ENV_NAMES=A,B,... */
static void
config_server_env_names(char ***env, size_t *n)
{
	struct buf b;
	size_t i, n0 = *n;

	buf_init(&b, 0);
	for (i = 0; i < n0; i++) {
		if (i > 0)
			buf_puts(&b, ",");
		buf_append(&b, (*env)[i], strcspn((*env)[i], "="));
	}
	env_put(env, n, CONFIG_SERVER_ENV_NAMES, buf_str(&b));
	buf_free(&b);
}

/*
 * 1 when .env's variable name=value holds a secret: by its name
 * (redact_secret_name()), or by its value (a registered secret in it,
 * such as ${FORGE_TOKEN} expanded, or a URL's credentials).
 */
static int
config_env_secret(const char *name, const char *value)
{
	char *masked;
	int r;

	if (redact_secret_name(name))
		return 1;
	masked = redact_values(value != NULL ? value : "");
	r = strcmp(masked, value != NULL ? value : "") != 0;
	free(masked);
	return r;
}

/*
 * Every variable .env assigned but the external-action tokens lib/env.sh
 * unsets (and with public 1 every secret, config_env_secret()), then
 * FACTORY_ROOT and the no-telemetry switch.  Caller frees with
 * config_env_free().
 */
static char **
config_env_factory(const struct config *c, int public)
{
	static const char *const never[] = {"GITHUB_TOKEN", "CLAWHUB_TOKEN"};
	char **env = xcalloc(1, sizeof(*env));
	size_t n = 0, i, k;

	for (i = 0; i < c->nenv_vars; i++) {
		for (k = 0; k < sizeof(never) / sizeof(never[0]); k++)
			if (strcmp(c->env_vars[i].key, never[k]) == 0)
				break;
		if (k < sizeof(never) / sizeof(never[0]))
			continue;
		if (public &&
		    config_env_secret(c->env_vars[i].key, c->env_vars[i].value))
			continue;
		env_put(&env, &n, c->env_vars[i].key, c->env_vars[i].value);
	}
	env_put(&env, &n, "FACTORY_ROOT", c->factory_root);
	env_put(&env, &n, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
	return env;
}

char **
config_server_env(const struct config *c)
{
	char **env = config_env_factory(c, 1);
	size_t n = 0;

	while (env[n] != NULL)
		n++;
	config_server_env_names(&env, &n);
	return env;
}

/*
 * A project file's names, as config_agent_env() gives them, into env;
 * nothing without a project file (supervisor-poll's environment-only
 * configuration), so that a tool started for another project never
 * takes this one's.
 */
static void
config_project_env(const struct config *c, char ***env, size_t *n)
{
	const struct {
		const char *name, *value;
	} vars[] = {{"PROJECT_NAME", c->project_name},
	    {"PROJECT_REPO_ROOT", c->project_repo_root},
	    {"PRIMARY_BRANCH", c->primary_branch},
	    {"FORGE_REPO", c->forge_repo}},
	  urls[] = {{"FORGE_URL", c->forge_url}, {"FORGE_API", c->forge_api},
	      {"FORGE_WEB", c->forge_web}};
	char cwd[PATH_MAX], *v;
	size_t i;

	if (c->project_toml == NULL)
		return;
	v = c->project_toml[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL ?
	    xstrdup(c->project_toml) :
	    xasprintf("%s/%s", cwd, c->project_toml);
	env_put(env, n, "PROJECT_TOML", v);
	free(v);
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (vars[i].value != NULL)
			env_put(env, n, vars[i].name, vars[i].value);
	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		if (urls[i].value == NULL)
			continue;
		v = config_url_public(urls[i].value);
		env_put(env, n, urls[i].name, v);
		free(v);
	}
}

char **
config_child_env(const struct config *c)
{
	char **env = config_env_factory(c, 0);
	size_t n = 0;

	while (env[n] != NULL)
		n++;
	config_server_env_names(&env, &n);
	config_project_env(c, &env, &n);
	if (c->forge_token != NULL && c->forge_token[0] != '\0')
		env_put(&env, &n, "FORGE_TOKEN", c->forge_token);
	return env;
}

/* A row's default as documented.  Caller frees. */
static char *
row_default_doc(const struct setting *s)
{
	if (s->def_doc != NULL)
		return xstrdup(s->def_doc);
	if (s->def == NULL || s->def[0] == '\0')
		return xstrdup("");
	return xasprintf("`%s`", s->def);
}

/* A row's project file key as documented ("repo", "[ci] x").  Caller frees. */
static char *
row_key_doc(const struct setting *s)
{
	if (s->section == NULL)
		return xstrdup("");
	if (s->type == T_MIRRORS)
		return xasprintf("[%s] NAME", s->section);
	if (s->section[0] == '\0')
		return xstrdup(s->key);
	return xasprintf("[%s] %s", s->section, s->key);
}

char *
config_help(void)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	buf_puts(&b,
	    "settings (environment, $FACTORY_ROOT/.env; in brackets "
	    "the project file's key):\n");
	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		char *key = row_key_doc(s), *def = row_default_doc(s);

		buf_printf(&b, "  %-34s %s%s%s%s%s%s\n",
		    s->env != NULL ? s->env : "", s->doc, key[0] ? " [" : "",
		    key, key[0] ? "]" : "", def[0] ? "; default " : "", def);
		free(key);
		free(def);
	}
	return buf_steal(&b);
}

char *
config_markdown(void)
{
	struct buf b;
	size_t i;

	buf_init(&b, 0);
	buf_puts(&b,
	    "| variable | project file | default | meaning |\n"
	    "|---|---|---|---|\n");
	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		char *key = row_key_doc(s), *def = row_default_doc(s);

		if (s->env != NULL)
			buf_printf(&b, "| `%s`%s%s%s", s->env,
			    s->legacy ? " (legacy `" : "",
			    s->legacy ? s->legacy : "", s->legacy ? "`)" : "");
		else
			buf_puts(&b, "|");
		buf_printf(&b, " | %s%s%s | %s | %s%s |\n", key[0] ? "`" : "",
		    key, key[0] ? "`" : "", def, s->doc,
		    (s->flags & S_SECRET) ? " (secret)" : "");
		free(key);
		free(def);
	}
	return buf_steal(&b);
}

/*
 * Append s as mdoc text: backslashes escaped, `code` spans in single
 * quotes, characters beyond ASCII as \[uXXXX] (mandoc wants ASCII).
 */
static void
mdoc_text(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long cp;
	int code = 0, n;

	for (; *p != '\0'; p++) {
		if (*p == '`')
			buf_puts(b, (code = !code) ? "\\(oq" : "\\(cq");
		else if (*p == '\\')
			buf_puts(b, "\\e");
		else if (*p < 0x80)
			buf_append(b, (const char *)p, 1);
		else {
			n = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : 1;
			cp = *p & (0x3f >> n);
			while (n-- > 0 && (p[1] & 0xc0) == 0x80)
				cp = cp << 6 | (*++p & 0x3f);
			buf_printf(b, "\\[u%04lX]", cp);
		}
	}
}

/*
 * Text as mdoc lines of at most MDOC_WIDTH bytes where the words allow
 * (broken at blanks; a line starting with a dot or a quote made
 * harmless).
 */
static void
mdoc_line(struct buf *b, const char *fmt, ...)
{
	struct buf text;
	va_list ap;
	char *raw, *p, *word;
	size_t col = 0, len;

	va_start(ap, fmt);
	raw = xvasprintf(fmt, ap);
	va_end(ap);
	buf_init(&text, 0);
	mdoc_text(&text, raw);
	for (p = text.data; (word = strsep(&p, " ")) != NULL;) {
		if ((len = strlen(word)) == 0)
			continue;
		if (col > 0 && col + 1 + len > MDOC_WIDTH) {
			buf_puts(b, "\n");
			col = 0;
		}
		if (col > 0)
			buf_puts(b, " ");
		else if (word[0] == '.' || word[0] == '\'')
			buf_puts(b, "\\&");
		buf_puts(b, word);
		col += (col > 0) + len;
	}
	buf_puts(b, "\n");
	buf_free(&text);
	free(raw);
}

char *
config_mdoc(void)
{
	struct buf b;
	size_t i;
	int cap;

	buf_init(&b, 0);
	buf_puts(&b, ".Bl -tag -width Ds\n");
	for (i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		char *key = row_key_doc(s), *def = row_default_doc(s);

		if (s->env == NULL)
			buf_printf(&b, ".It Li %s\n", key);
		else if (s->legacy != NULL)
			buf_printf(&b, ".It Ev %s Pq legacy Ev %s\n", s->env,
			    s->legacy);
		else
			buf_printf(&b, ".It Ev %s\n", s->env);
		/* A sentence, unless it starts with a tool's name. */
		cap = strcspn(s->doc, " ") < 5 ||
		    strncmp(s->doc + strcspn(s->doc, " ") - 5, "-poll", 5) != 0;
		mdoc_line(&b, "%c%s%s.",
		    cap ? toupper((unsigned char)s->doc[0]) : s->doc[0],
		    s->doc + 1, (s->flags & S_SECRET) ? " (a secret)" : "");
		if (s->env != NULL && key[0] != '\0')
			mdoc_line(&b, "In the project file: `%s`.", key);
		if (def[0] != '\0')
			mdoc_line(&b, "Default: %s.", def);
		free(key);
		free(def);
	}
	buf_puts(&b, ".El\n");
	return buf_steal(&b);
}
