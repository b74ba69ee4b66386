/*
 * Reading an agent's screen.  The texts below are those Claude Code 2.1
 * draws (captured from the real CLI in tmux, 200x50): the input box is
 *
 *   ──────────...   (a rule across the pane)
 *   ❯ ‸             (the prompt line, the glyph then a no-break space)
 *   ──────────...
 *
 * and the first-run dialogs are option lists ending in "Enter to confirm ·
 * Esc to cancel", drawn below a single rule, with the selected option
 * marked by the glyph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "screen.h"
#include "xmalloc.h"

/* U+2500 BOX DRAWINGS LIGHT HORIZONTAL, the box's rules. */
#define RULE "\xe2\x94\x80"
/* Shorter runs of it are drawing, not the box. */
#define RULE_MIN 8

struct dialog_sign {
	enum screen_dialog dialog;
	const char *text; /* shown only by this dialog */
};

/* Checked in order: the specific dialogs first, any dialog last. */
static const struct dialog_sign signs[] = {
    {SCREEN_TRUST, "Yes, I trust this folder"},
    {SCREEN_TRUST, "Do you trust the files in this folder?"},
    {SCREEN_API_KEY, "Detected a custom API key in your environment"},
    {SCREEN_BYPASS, "running in Bypass Permissions mode"},
    {SCREEN_ONBOARDING, "Choose the text style that looks best"},
    {SCREEN_ONBOARDING, "Select login method"},
    {SCREEN_ONBOARDING, "Unable to connect to Anthropic services"},
    {SCREEN_OTHER, "Enter to confirm"},
};

static const char *const names[] = {
    [SCREEN_NO_DIALOG] = "no dialog",
    [SCREEN_TRUST] = "folder trust dialog",
    [SCREEN_API_KEY] = "API key confirmation dialog",
    [SCREEN_BYPASS] = "bypass-permissions confirmation dialog",
    [SCREEN_ONBOARDING] = "first-run setup",
    [SCREEN_OTHER] = "unknown dialog",
};

static int is_rule(const char *, size_t);
static int is_border(const char *, size_t);
static int box_below(const char *);

/* Is the line [s, s+len) a rule: U+2500 at least RULE_MIN times, then
 * blanks only? */
static int
is_rule(const char *s, size_t len)
{
	size_t n = 0;

	while (len >= 3 && memcmp(s, RULE, 3) == 0) {
		s += 3;
		len -= 3;
		n++;
	}
	while (len > 0 && (*s == ' ' || *s == '\r')) {
		s++;
		len--;
	}
	return len == 0 && n >= RULE_MIN;
}

/* Is the line only box-drawing characters (U+2500..U+257F) and blanks? */
static int
is_border(const char *s, size_t len)
{
	size_t i = 0;
	int any = 0;

	while (i < len) {
		if (s[i] == ' ') {
			i++;
		} else if (i + 3 <= len && (unsigned char)s[i] == 0xe2 &&
		    ((unsigned char)s[i + 1] == 0x94 ||
			(unsigned char)s[i + 1] == 0x95)) {
			i += 3;
			any = 1;
		} else
			return 0;
	}
	return any;
}

/* 1 if a rule follows (from the line starting at s) before the end. */
static int
box_below(const char *s)
{
	const char *nl;

	for (; *s != '\0'; s = nl + 1) {
		if ((nl = strchr(s, '\n')) == NULL)
			return is_rule(s, strlen(s));
		if (is_rule(s, (size_t)(nl - s)))
			return 1;
	}
	return 0;
}

int
screen_input_box(const char *screen, const char *glyph)
{
	const char *line, *nl, *prev = NULL;
	size_t glen, prevlen = 0;

	if (screen == NULL || glyph == NULL || *glyph == '\0')
		return 0;
	glen = strlen(glyph);
	for (line = screen; *line != '\0'; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			break;
		if (strncmp(line, glyph, glen) == 0 && prev != NULL &&
		    is_rule(prev, prevlen) && box_below(nl + 1))
			return 1;
		prev = line;
		prevlen = (size_t)(nl - line);
	}
	return 0;
}

enum screen_dialog
screen_dialog(const char *screen)
{
	size_t i;

	if (screen == NULL)
		return SCREEN_NO_DIALOG;
	for (i = 0; i < sizeof(signs) / sizeof(signs[0]); i++)
		if (strstr(screen, signs[i].text) != NULL)
			return signs[i].dialog;
	return SCREEN_NO_DIALOG;
}

const char *
screen_dialog_name(enum screen_dialog d)
{
	if ((size_t)d >= sizeof(names) / sizeof(names[0]))
		return names[SCREEN_OTHER];
	return names[d];
}

void
screen_dialog_advice(enum screen_dialog d, const char *workdir,
    const char *trust_dir, char *out, size_t outsz)
{
	switch (d) {
	case SCREEN_TRUST:
		/*
		 * Claude Code trusts a git worktree through its own path or
		 * its main repository's, never through a parent folder: the
		 * repository is the one place that holds for every worktree.
		 */
		snprintf(out, outsz,
		    "run the agent once by hand in '%s' (the repository the "
		    "worktrees come from: the agent trusts a worktree through "
		    "it) and choose \"Yes, I trust this folder\"",
		    trust_dir != NULL	? trust_dir :
			workdir != NULL ? workdir :
					  ".");
		break;
	case SCREEN_API_KEY:
		snprintf(out, outsz,
		    "run the agent once by hand with the same "
		    "ANTHROPIC_API_KEY and answer \"Yes\" to use it");
		break;
	case SCREEN_BYPASS:
		snprintf(out, outsz,
		    "run the agent once by hand with "
		    "--dangerously-skip-permissions and choose \"Yes, I "
		    "accept\"");
		break;
	case SCREEN_ONBOARDING:
		snprintf(out, outsz,
		    "run the agent once by hand and finish its first-run "
		    "setup (theme, login, network)");
		break;
	default:
		snprintf(out, outsz,
		    "run the agent once by hand in '%s' and answer the "
		    "dialog",
		    workdir != NULL ? workdir : ".");
		break;
	}
}

char *
screen_text(const char *screen)
{
	const char *line, *nl, *end;
	struct buf b;

	buf_init(&b, 0);
	for (line = screen; line != NULL && *line != '\0';
	     line = *nl != '\0' ? nl + 1 : nl) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		end = nl;
		while (line < end && *line == ' ')
			line++;
		while (end > line && (end[-1] == ' ' || end[-1] == '\r'))
			end--;
		if (end == line || is_border(line, (size_t)(end - line)))
			continue;
		if (b.len > 0)
			buf_puts(&b, " | ");
		buf_append(&b, line, (size_t)(end - line));
	}
	return buf_steal(&b);
}
