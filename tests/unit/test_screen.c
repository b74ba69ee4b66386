/*
 * Unit tests for common/agent/screen.c on screens captured from the real agent
 * CLI (Claude Code 2.1.197 in tmux, 200x50, tests/fixtures/screens/):
 * its first-run dialogs are never taken for its input box.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "check.h"
#include "file.h"
#include "screen.h"

#define GLYPH "\xe2\x9d\xaf"
#define RULE10                                                         \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80" \
	"\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"

/* The fixture screen name, as captured.  Caller frees. */
static char *
fixture(const char *name)
{
	const char *top = getenv("TOP");
	char path[4096];
	struct buf b;

	snprintf(path, sizeof(path), "%s/tests/fixtures/screens/%s",
	    top != NULL ? top : ".", name);
	buf_init(&b, 0);
	if (file_read(path, 1 << 20, &b) != 0)
		printf("#   cannot read %s\n", path);
	return buf_steal(&b);
}

/* screen_input_box() and screen_dialog() of a fixture. */
static void
classify(const char *name, int *box, enum screen_dialog *d)
{
	char *s = fixture(name);

	*box = screen_input_box(s, GLYPH);
	*d = screen_dialog(s);
	free(s);
}

static void
test_ready_screens(void)
{
	static const char *const ready[] = {"claude-ready.txt",
	    "claude-typed.txt", "claude-pasted.txt"};
	enum screen_dialog d;
	size_t i;
	int box;

	for (i = 0; i < sizeof(ready) / sizeof(ready[0]); i++) {
		classify(ready[i], &box, &d);
		CHECK_INT(box, 1);
		CHECK_INT(d, SCREEN_NO_DIALOG);
	}
}

static void
test_dialogs(void)
{
	static const struct {
		const char *name;
		enum screen_dialog want;
	} cases[] = {
	    {"claude-trust.txt", SCREEN_TRUST},
	    {"claude-apikey.txt", SCREEN_API_KEY},
	    {"claude-bypass.txt", SCREEN_BYPASS},
	    {"claude-offline.txt", SCREEN_ONBOARDING},
	};
	enum screen_dialog d;
	size_t i;
	int box;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		classify(cases[i].name, &box, &d);
		CHECK_INT(box, 0);
		CHECK_INT(d, cases[i].want);
	}
	/* Each names a line with the glyph: the old test took it. */
	{
		char *s = fixture("claude-bypass.txt");

		CHECK(strstr(s, GLYPH " 1. No, exit") != NULL);
		free(s);
	}
	CHECK_INT(screen_dialog("x\n  Enter to confirm \xc2\xb7 Esc\n"),
	    SCREEN_OTHER);
	CHECK_INT(screen_dialog(""), SCREEN_NO_DIALOG);
	CHECK_INT(screen_dialog(NULL), SCREEN_NO_DIALOG);
}

static void
test_box_shapes(void)
{
	/* The box with multi-line input grows between its rules. */
	CHECK_INT(screen_input_box(
		      RULE10 "\n" GLYPH " one\n  two\n" RULE10 "\n", GLYPH),
	    1);
	/* No rule below, a rule too short, no rule above. */
	CHECK_INT(screen_input_box(RULE10 "\n" GLYPH " x\nmore\n", GLYPH), 0);
	CHECK_INT(screen_input_box("\xe2\x94\x80\xe2\x94\x80\n" GLYPH
				   " x\n" RULE10 "\n",
		      GLYPH),
	    0);
	CHECK_INT(screen_input_box("text\n" GLYPH " x\n" RULE10 "\n", GLYPH),
	    0);
	/* An option line right under a rule, a rule below, is not the box
	 * when the glyph is indented. */
	CHECK_INT(
	    screen_input_box(RULE10 "\n  " GLYPH " 1. No\n" RULE10 "\n", GLYPH),
	    0);
	/* A rule with trailing blanks is a rule; other text is not. */
	CHECK_INT(
	    screen_input_box(RULE10 "   \n" GLYPH "\n" RULE10 " \n", GLYPH), 1);
	CHECK_INT(screen_input_box(RULE10 "x\n" GLYPH "\n" RULE10 "\n", GLYPH),
	    0);
	CHECK_INT(screen_input_box(RULE10 "\n" GLYPH "\n" RULE10 "\n", ""), 0);
	CHECK_INT(screen_input_box(RULE10 "\n" GLYPH "\n" RULE10 "\n", NULL),
	    0);
	CHECK_INT(screen_input_box(NULL, GLYPH), 0);
	CHECK_INT(screen_input_box(RULE10 "\n> \n" RULE10 "\n", ">"), 1);
}

static void
test_text_and_advice(void)
{
	char *s = fixture("claude-bypass.txt"), *t = screen_text(s), out[256];

	CHECK(strncmp(t,
		  "WARNING: Claude Code running in Bypass Permissions mode | "
		  "In Bypass Permissions mode,",
		  84) == 0);
	CHECK(strstr(t,
		  " | " GLYPH " 1. No, exit | 2. Yes, I accept | "
		  "Enter to confirm \xc2\xb7 Esc to cancel") != NULL);
	CHECK(strstr(t, "\xe2\x94\x80") == NULL);
	CHECK(strchr(t, '\n') == NULL);
	free(t);
	free(s);
	screen_dialog_advice(SCREEN_TRUST, "/tmp/harb-worktree-3",
	    "/home/f/harb", out, sizeof(out));
	CHECK_STR(out,
	    "run the agent once by hand in '/home/f/harb' (the repository "
	    "the worktrees come from: the agent trusts a worktree through "
	    "it) and choose \"Yes, I trust this folder\"");
	/* No repository known: the worktree itself. */
	screen_dialog_advice(SCREEN_TRUST, "/tmp/harb-worktree-3", NULL, out,
	    sizeof(out));
	CHECK(strstr(out, "in '/tmp/harb-worktree-3'") != NULL);
	screen_dialog_advice(SCREEN_BYPASS, "/tmp/x", NULL, out, sizeof(out));
	CHECK(strstr(out, "\"Yes, I accept\"") != NULL);
	screen_dialog_advice(SCREEN_API_KEY, "/tmp/x", NULL, out, sizeof(out));
	CHECK(strstr(out, "ANTHROPIC_API_KEY") != NULL);
	CHECK_STR(screen_dialog_name(SCREEN_TRUST), "folder trust dialog");
}

/*
 * The first-run screen's banner (block-element art, stars, a box round
 * the welcome): one clean line, capped.
 */
static void
test_banner(void)
{
	const char *screen =
	    "     *                           \xe2\x96\x88\xe2\x96\x88\xe2\x96\x93\xe2\x96\x91\n"
	    "   \xe2\x96\x91\xe2\x96\x91\xe2\x96\x91   *       \xe2\x96\x88\xe2\x96\x88\n"
	    "\xe2\x80\xa6\xe2\x80\xa6\xe2\x96\x88 \xe2\x96\x88   \xe2\x96\x88\xe2\x80\xa6\xe2\x80\xa6\n"
	    "\xe2\x95\xad\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x95\xae\n"
	    "\xe2\x94\x82 \xe2\x9c\xbb Welcome to Claude Code!   \xe2\x94\x82\n"
	    "\xe2\x95\xb0\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x95\xaf\n"
	    "\n"
	    " \xe2\x96\x90\xe2\x96\x9b\xe2\x96\x88\xe2\x96\x9c\xe2\x96\x8c   Let's get started.\n"
	    " " GLYPH " 1. Dark mode\n"
	    "   2. Light mode\n";
	char *t = screen_text(screen), big[8192], *c;
	size_t i;

	CHECK_STR(t,
	    "\xe2\x9c\xbb Welcome to Claude Code! | Let's get "
	    "started. | " GLYPH " 1. Dark mode | 2. Light mode");
	free(t);
	/* A screen of text: capped, cut at a character's start. */
	for (i = 0; i + 13 < sizeof(big); i += 13)
		memcpy(big + i, "word \xc3\xa9 more\n", 13);
	big[i] = '\0';
	t = screen_text(big);
	CHECK(strlen(t) <= 1024 + 4);
	CHECK((c = strstr(t, " ...")) != NULL && c[4] == '\0');
	CHECK(((unsigned char)c[-1] & 0xc0) != 0xc0);
	free(t);
}

int
main(void)
{
	RUN(test_ready_screens);
	RUN(test_dialogs);
	RUN(test_banner);
	RUN(test_box_shapes);
	RUN(test_text_and_advice);
	return check_main();
}
