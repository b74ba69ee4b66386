/*
 * Tests for the agent CLI's conversation directory (common/agent/
 * convdir.c) and its removal when a session ends for good
 * (worktree_forget_agent()): the names as Claude Code makes them (every
 * character but an ASCII letter or digit made '-', one per UTF-16 unit;
 * past 200 cut, with the base-36 hash of the path: the expected names
 * were made by the CLI's own function), and the removal that takes the
 * one directory under HOME/.claude/projects and follows no link.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "act.h"
#include "convdir.h"
#include "file.h"
#include "worktree.h"
#include "xmalloc.h"

static char dir[] = "/tmp/test_convdir.XXXXXX";

static void
test_convdir_names(void)
{
	char *n, *path;
	size_t i;

	/* As Claude Code 2.1.197 named a directory of the test's. */
	n = convdir_name("/tmp/clierr-cli/enc/a.b_c d+e");
	CHECK_STR(n, "-tmp-clierr-cli-enc-a-b-c-d-e");
	free(n);
	n = convdir_name("/srv/factory/proj-worktree-12");
	CHECK_STR(n, "-srv-factory-proj-worktree-12");
	free(n);
	/* é one unit, U+1F600 two (a surrogate pair). */
	n = convdir_name("/home/a/\xc3\xa9\xf0\x9f\x98\x80z");
	CHECK_STR(n, "-home-a----z");
	free(n);
	/* Past 200: cut, and the hash of the whole path. */
	path = xasprintf("/srv/factory/%0220d/wt-1", 0);
	for (i = strlen("/srv/factory/"); i < strlen("/srv/factory/") + 220;
	     i++)
		path[i] = 'x';
	n = convdir_name(path);
	CHECK_INT(strlen(n), 207);
	CHECK_STR(n + 195, "xxxxx-6op5xg");
	free(n);
	free(path);
	path = xcalloc(5 + 250 * 2 + 1, 1);
	strcpy(path, "/tmp/");
	for (i = 0; i < 250; i++)
		memcpy(path + 5 + 2 * i, "\xc3\xa9", 2);
	n = convdir_name(path);
	CHECK_STR(n + 195, "------wtvgxz");
	free(n);
	free(path);
	n = convdir_path("/home/agent", "/w/p-1");
	CHECK_STR(n, "/home/agent/.claude/projects/-w-p-1");
	free(n);
	CHECK(convdir_path(NULL, "/w/p-1") == NULL);
	CHECK(convdir_path("home", "/w/p-1") == NULL);
}

/* mkdir -p dir/rel.  The path, caller frees. */
static char *
mk(const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);

	CHECK_INT(file_mkdirs(p, 0755), 0);
	return p;
}

static void
test_convdir_forget(void)
{
	struct act a = {0};
	char *home = mk("home"), *wt = mk("wt/p-worktree-1"), *name, *conv;
	char *other, *kept, *outside, *link;

	name = convdir_name(wt);
	conv = xasprintf("%s/.claude/projects/%s", home, name);
	CHECK_INT(file_mkdirs(conv, 0755), 0);
	other = mk("home/.claude/projects/-w-other");
	kept = xasprintf("%s/s.jsonl", conv);
	CHECK_INT(file_write_atomic(kept, "{}\n", 3, 0644, 0), 0);
	/* Dry run: nothing goes. */
	a.dry_run = 1;
	CHECK_INT(worktree_forget_agent(&a, home, wt), 0);
	CHECK(file_exists(kept));
	a.dry_run = 0;
	CHECK_INT(worktree_forget_agent(&a, home, wt), 0);
	CHECK(!file_exists(conv));
	CHECK(file_exists(other));
	CHECK_INT(worktree_forget_agent(&a, home, wt), 0);
	CHECK_INT(worktree_forget_agent(&a, NULL, wt), 0);

	/* A link as the conversation's directory: not followed. */
	outside = mk("outside");
	free(kept);
	kept = xasprintf("%s/keep", outside);
	CHECK_INT(file_write_atomic(kept, "x\n", 2, 0644, 0), 0);
	CHECK_INT(symlink(outside, conv), 0);
	CHECK_INT(worktree_forget_agent(&a, home, wt), 0);
	CHECK(file_exists(kept));
	unlink(conv);
	/* projects itself a link: nothing under it is touched. */
	link = xasprintf("%s/.claude/projects", home);
	free(conv);
	conv = xasprintf("%s/%s", outside, name);
	CHECK_INT(file_mkdirs(conv, 0755), 0);
	CHECK_INT(act_remove_tree(&a, link), 0);
	CHECK_INT(symlink(outside, link), 0);
	CHECK_INT(worktree_forget_agent(&a, home, wt), 0);
	CHECK(file_exists(conv));
	unlink(link);
	free(link);
	free(kept);
	free(outside);
	free(other);
	free(conv);
	free(name);
	free(wt);
	free(home);
}

int
main(void)
{
	struct act a = {0};

	if (mkdtemp(dir) == NULL)
		return 1;
	RUN(test_convdir_names);
	RUN(test_convdir_forget);
	(void)act_remove_tree(&a, dir);
	return check_main();
}
