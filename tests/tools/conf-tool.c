/*
 * conf-tool: the configuration readers on the command line, for the
 * integration tests that compare them with bash and tomllib, and for the
 * generated table of docs/CONFIG.md.
 *
 *   conf-tool env FILE NAME       evaluate FILE as a .env file (over the
 *                                 environment); print NAME's value
 *   conf-tool toml FILE KEY       print the value of the dotted KEY as
 *                                 load-project.sh exported it
 *   conf-tool load [TOML] VAR...  load the configuration; print each
 *                                 setting (by variable name) on a line
 *   conf-tool agent-env dev|review|other [TOML]
 *                                 print the environment of an agent
 *   conf-tool path HOME PATH      print config_path()
 *   conf-tool doc                 print docs/CONFIG.md's settings table
 *   conf-tool man                 print the settings list of disinto-c.5
 *
 * Exit status: 0 ok, 1 the file was refused (message on stderr) or the
 * name is not set, 2 usage.
 */
#include <err.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "envfile.h"
#include "file.h"
#include "toml.h"
#include "xmalloc.h"

/* What the env command evaluated so far. */
struct assigned {
	char **key, **value;
	size_t n;
};

/* The toml command's search. */
struct want {
	const char *key;
	char *text;
};

static void usage(void) __attribute__((noreturn));
static const char *env_get(void *, const char *);
static int env_set(void *, const char *, const char *, int, char *, size_t);
static int cmd_env(int, char **);
static char *value_text(const struct toml_value *);
static int toml_find(void *, const struct toml_item *, char *, size_t);
static int cmd_toml(int, char **);
static const char *setting_text(const struct config *, const char *, char *,
    size_t);
static int cmd_load(int, char **);
static int cmd_agent_env(int, char **);

static void
usage(void)
{
	fprintf(stderr,
	    "usage: conf-tool env FILE NAME | toml FILE KEY | "
	    "load [TOML] VAR... | agent-env ROLE [TOML] | path HOME PATH | "
	    "doc | man\n");
	exit(2);
}

static const char *
env_get(void *arg, const char *name)
{
	struct assigned *a = arg;
	size_t i;

	for (i = a->n; i > 0; i--)
		if (strcmp(a->key[i - 1], name) == 0)
			return a->value[i - 1];
	return getenv(name);
}

static int
env_set(void *arg, const char *name, const char *value, int line, char *err,
    size_t errsz)
{
	struct assigned *a = arg;

	(void)line;
	(void)err;
	(void)errsz;
	a->key = xreallocarray(a->key, a->n + 1, sizeof(*a->key));
	a->value = xreallocarray(a->value, a->n + 1, sizeof(*a->value));
	a->key[a->n] = xstrdup(name);
	a->value[a->n++] = xstrdup(value);
	return 0;
}

static int
cmd_env(int argc, char **argv)
{
	struct assigned a = {NULL, NULL, 0};
	struct envfile_ops ops = {env_get, env_set, &a};
	struct buf text;
	const char *v;
	char errbuf[512];
	size_t i;
	int r;

	if (argc != 3)
		usage();
	buf_init(&text, 0);
	if (file_read(argv[1], 1024 * 1024, &text) != 0)
		err(1, "%s", argv[1]);
	r = envfile_parse(argv[1], buf_str(&text), text.len, &ops, errbuf,
	    sizeof(errbuf));
	if (r == -1)
		fprintf(stderr, "%s\n", errbuf);
	else if ((v = env_get(&a, argv[2])) != NULL)
		printf("%s\n", v);
	else
		r = -1;
	for (i = 0; i < a.n; i++) {
		free(a.key[i]);
		free(a.value[i]);
	}
	free(a.key);
	free(a.value);
	buf_free(&text);
	return r == 0 ? 0 : 1;
}

/* A value as load-project.sh exported it (arrays joined by blanks). */
static char *
value_text(const struct toml_value *v)
{
	struct buf b;
	size_t i;

	if (v->type != TOML_ARRAY)
		return xstrdup(v->str != NULL ? v->str : "");
	buf_init(&b, 0);
	for (i = 0; i < v->nitems; i++) {
		char *item = value_text(&v->items[i]);

		buf_printf(&b, "%s%s", i ? " " : "", item);
		free(item);
	}
	return buf_steal(&b);
}

static int
toml_find(void *arg, const struct toml_item *it, char *err, size_t errsz)
{
	struct want *w = arg;
	char *path = toml_path_str(it->path, it->depth);

	(void)err;
	(void)errsz;
	if (strcmp(path, w->key) == 0) {
		free(w->text);
		w->text = value_text(it->value);
	}
	free(path);
	return 0;
}

static int
cmd_toml(int argc, char **argv)
{
	struct want w = {NULL, NULL};
	char errbuf[512];
	int r = 1;

	if (argc != 3)
		usage();
	w.key = argv[2];
	if (toml_parse_file(argv[1], toml_find, &w, errbuf, sizeof(errbuf)) ==
	    -1)
		fprintf(stderr, "%s\n", errbuf);
	else if (w.text != NULL) {
		printf("%s\n", w.text);
		r = 0;
	}
	free(w.text);
	return r;
}

/* The value of the setting named by variable name, as text. */
static const char *
setting_text(const struct config *c, const char *name, char *num, size_t numsz)
{
	static const struct {
		const char *name;
		size_t off;
	} strs[] = {
#define S(n, f) {n, offsetof(struct config, f)}
	    S("FACTORY_ROOT", factory_root),
	    S("DISINTO_RUN_DIR", run_dir),
	    S("FORGE_TOKEN", forge_token),
	    S("FORGE_REVIEW_TOKEN", forge_review_token),
	    S("FORGE_BOT_USERNAMES", forge_bot_usernames),
	    S("FORGE_REPO", forge_repo),
	    S("FORGE_URL", forge_url),
	    S("FORGE_API", forge_api),
	    S("FORGE_WEB", forge_web),
	    S("PROJECT_NAME", project_name),
	    S("PROJECT_REPO_ROOT", project_repo_root),
	    S("PRIMARY_BRANCH", primary_branch),
	    S("WOODPECKER_SERVER", woodpecker_server),
	    S("AGENT_CMD", agent_cmd),
	    S("REVIEW_MODEL", review.model),
#undef S
	};
	size_t i;
	char *const *p;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (strcmp(strs[i].name, name) != 0)
			continue;
		p = (char *const *)((const char *)c + strs[i].off);
		return *p != NULL ? *p : "(null)";
	}
	if (strcmp(name, "WOODPECKER_REPO_ID") == 0)
		snprintf(num, numsz, "%lld", c->woodpecker_repo_id);
	else if (strcmp(name, "CI_STALE_MINUTES") == 0)
		snprintf(num, numsz, "%lld", c->ci_stale_minutes);
	else if (strcmp(name, "CHECK_PRS") == 0)
		snprintf(num, numsz, "%d", c->check_prs);
	else if (strcmp(name, "PROJECT_CONTAINERS") == 0)
		snprintf(num, numsz, "%zu", c->ncontainers);
	else if (strcmp(name, "REVIEW_MAX_REVIEWS_PER_TICK") == 0)
		snprintf(num, numsz, "%d", c->review.max_reviews);
	else if (strcmp(name, "REVIEW_IDLE_TIMEOUT_MINUTES") == 0)
		snprintf(num, numsz, "%llds", c->review.idle_timeout_s);
	else
		return NULL;
	return num;
}

static int
cmd_load(int argc, char **argv)
{
	struct config cfg;
	const char *toml = NULL, *v;
	char errbuf[1024], num[64];
	int i = 1, r = 0;

	if (argc > 1 && strstr(argv[1], ".toml") != NULL)
		toml = argv[i++];
	if (config_load(&cfg, toml, NULL, errbuf, sizeof(errbuf)) == -1) {
		fprintf(stderr, "%s\n", errbuf);
		config_free(&cfg);
		return 1;
	}
	for (; i < argc; i++) {
		if ((v = setting_text(&cfg, argv[i], num, sizeof(num))) == NULL)
			errx(2, "unknown setting '%s'", argv[i]);
		printf("%s=%s\n", argv[i], v);
	}
	config_free(&cfg);
	return r;
}

static int
cmd_agent_env(int argc, char **argv)
{
	struct config cfg;
	enum config_role role;
	char errbuf[1024], **env;
	size_t i;

	if (argc < 2 || argc > 3)
		usage();
	role = strcmp(argv[1], "dev") == 0 ? CONFIG_ROLE_DEV :
	    strcmp(argv[1], "review") == 0 ? CONFIG_ROLE_REVIEW :
					     CONFIG_ROLE_OTHER;
	if (config_load(&cfg, argc == 3 ? argv[2] : NULL, NULL, errbuf,
		sizeof(errbuf)) == -1) {
		fprintf(stderr, "%s\n", errbuf);
		config_free(&cfg);
		return 1;
	}
	env = config_agent_env(&cfg, role);
	for (i = 0; env[i] != NULL; i++)
		printf("%s\n", env[i]);
	config_env_free(env);
	config_free(&cfg);
	return 0;
}

int
main(int argc, char **argv)
{
	char *s;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "env") == 0)
		return cmd_env(argc - 1, argv + 1);
	if (strcmp(argv[1], "toml") == 0)
		return cmd_toml(argc - 1, argv + 1);
	if (strcmp(argv[1], "load") == 0)
		return cmd_load(argc - 1, argv + 1);
	if (strcmp(argv[1], "agent-env") == 0)
		return cmd_agent_env(argc - 1, argv + 1);
	if (strcmp(argv[1], "path") == 0 && argc == 4)
		s = config_path(argv[2], argv[3]);
	else if (strcmp(argv[1], "doc") == 0 && argc == 2)
		s = config_markdown();
	else if (strcmp(argv[1], "man") == 0 && argc == 2)
		s = config_mdoc();
	else
		usage();
	fputs(s, stdout);
	if (strcmp(argv[1], "path") == 0)
		putchar('\n');
	free(s);
	return 0;
}
