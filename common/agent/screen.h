/*
 * What an agent's captured screen shows: its input box (ready for a
 * prompt) or one of the dialogs the agent CLI (Claude Code 2.1) shows on
 * a first run before the box.  A dialog's selected option starts with
 * the same glyph as the box's prompt line ("❯ 2. No (recommended)"), so a
 * bare search for the glyph mistakes a dialog for readiness; a prompt
 * pasted there, and its Enter, would answer the dialog ("No, exit").
 */
#ifndef SCREEN_H
#define SCREEN_H

#include <stddef.h>

enum screen_dialog {
	SCREEN_NO_DIALOG,
	SCREEN_TRUST,	   /* "Accessing workspace: ... trust this folder" */
	SCREEN_API_KEY,	   /* "Detected a custom API key ..." */
	SCREEN_BYPASS,	   /* "... running in Bypass Permissions mode" */
	SCREEN_ONBOARDING, /* first-run setup: theme, login, connectivity */
	SCREEN_OTHER	   /* some other "Enter to confirm" dialog */
};

/*
 * 1 when screen (a capture, lines ending in LF) shows the input box: a
 * line starting with glyph whose line above is a horizontal rule (a line
 * of U+2500 only) with another rule further down and no other rule in
 * between (the box grows with multi-line input).  0 otherwise, and for a
 * NULL or empty glyph.
 */
int screen_input_box(const char *screen, const char *glyph);
/* The known dialog the screen shows, or SCREEN_NO_DIALOG. */
enum screen_dialog screen_dialog(const char *screen);
/* "the folder trust dialog" and so on. */
const char *screen_dialog_name(enum screen_dialog);
/*
 * What the operator must do once by hand for dialog d of an agent run in
 * workdir, a worktree of trust_dir (or NULL), into out: "run the agent
 * once by hand in '/home/f/harb' ... and choose ...".
 */
void screen_dialog_advice(enum screen_dialog d, const char *workdir,
    const char *trust_dir, char *out, size_t outsz);
/*
 * The screen's text on one line, for a log: each line without its box
 * drawing and block elements (a banner's art), blanks squeezed, lines
 * without a word dropped, joined with " | ", at most 1024 bytes (then
 * " ..." ends it).  Caller frees.
 */
char *screen_text(const char *screen);

#endif
