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
/* The longest screen_text(): a log line, not the screen. */
#define SCREEN_TEXT_MAX 1024

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
static int box_below(const char *);
static int is_drawing(const char *, size_t);
static void screen_line(const char *, const char *, struct buf *);
static int has_word(const char *);

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
		    "run the agent once by hand, unconfined, with "
		    "--dangerously-skip-permissions and choose \"Yes, I "
		    "accept\" (it records \"skipDangerousModePermissionPrompt\": "
		    "true in ~/.claude/settings.json, which a confined agent "
		    "only reads)");
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

/*
 * The character at s (len bytes left) is drawing: box drawing
 * (U+2500..U+257F) or a block element (U+2580..U+259F), the banner's
 * art.  Its length in bytes (3), else 0.
 */
static int
is_drawing(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len < 3 || u[0] != 0xe2)
		return 0;
	if (u[1] == 0x94 || u[1] == 0x95 ||
	    (u[1] == 0x96 && u[2] >= 0x80 && u[2] <= 0x9f))
		return 3;
	return 0;
}

/*
 * The line [line, end) without its drawing, blanks squeezed to one, into
 * out (trimmed; nothing when only drawing and blanks are left).
 */
static void
screen_line(const char *line, const char *end, struct buf *out)
{
	int blank = 0, n;

	while (line < end) {
		if ((n = is_drawing(line, (size_t)(end - line))) > 0 ||
		    *line == ' ' || *line == '\r') {
			blank = out->len > 0;
			line += n > 0 ? n : 1;
			continue;
		}
		if (blank)
			buf_puts(out, " ");
		blank = 0;
		buf_append(out, line++, 1);
	}
}

/* 1 when s has a word (two letters in a row): not a banner's art. */
static int
has_word(const char *s)
{
	for (; s[0] != '\0' && s[1] != '\0'; s++)
		if (((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z') &&
		    ((s[1] | 0x20) >= 'a' && (s[1] | 0x20) <= 'z'))
			return 1;
	return 0;
}

char *
screen_text(const char *screen)
{
	const char *line, *nl;
	struct buf b, one;
	size_t cut;

	buf_init(&b, 0);
	buf_init(&one, 0);
	for (line = screen; line != NULL && *line != '\0';
	     line = *nl != '\0' ? nl + 1 : nl) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		buf_reset(&one);
		screen_line(line, nl, &one);
		if (one.len == 0 || !has_word(buf_str(&one)))
			continue;
		if (b.len > 0)
			buf_puts(&b, " | ");
		buf_append(&b, one.data, one.len);
	}
	buf_free(&one);
	if (b.len > SCREEN_TEXT_MAX) {
		/* Cut at a character's start, and say so. */
		for (cut = SCREEN_TEXT_MAX;
		     cut > 0 && ((unsigned char)b.data[cut] & 0xc0) == 0x80;
		     cut--)
			;
		b.len = cut;
		b.data[cut] = '\0';
		buf_puts(&b, " ...");
	}
	return buf_steal(&b);
}
