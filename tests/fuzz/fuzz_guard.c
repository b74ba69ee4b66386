/*
 * The guard of agent commands (common/agent/agent_guard.c over
 * guard_shell.c and guard_http.c): whatever the text, it never crashes
 * or leaks; its verdict is 0 or 1, a refusal has its reason ("BLOCKED:
 * ...") and an allowed text none; judging the same text twice gives the
 * same verdict and reason; and the work it does (characters the
 * splitter looks at, automaton steps over request paths) stays within a
 * bound linear in the text's length.
 *
 * The first byte of the input chooses what is judged: odd, the rest as
 * a shell command (in a worktree below /run, and again with /tmp as the
 * run directory); even, the rest as a file the file tools would write,
 * and with its bit 1 set also as a PreToolUse hook's input
 * (agent_guard_hook(): read whole, and cut short, which is refused).
 */
#include "agent_guard.h"
#include "fuzz.h"
#include "guard_http.h"
#include "guard_shell.h"

/*
 * The most work per byte of text (and for an empty one).  A character
 * is looked at once per level of nesting (at most seven) and by the
 * scans of its quotes and substitutions; a request path is run through
 * every rule's patterns at up to four levels of leniency.
 */
#define FUZZ_WORK_PER_BYTE 2048ULL
#define FUZZ_WORK_BASE 65536ULL

static const char *const fuzz_own[] = {"/run/dev-session-p-1.phase",
    "/run/dev-impl-summary-p-1.txt", "/run/sessions/active/dev-p-1/", NULL};

static const struct agent_guard fuzz_guard = {
    .primary_branch = "master",
    .worktree = "/run/p-worktree-1",
    .factory_root = "/srv/factory",
    .run_dir = "/run",
    .home = "/home/agent",
    .cwd = "/run/p-worktree-1/src",
    .forge_url = "http://forge:3000",
    .forge_api = "http://forge:3000/api/v1/repos/o/r",
    .own = fuzz_own,
};

static unsigned long long
fuzz_work(void)
{
	return guard_shell_work() + guard_http_work();
}

/* One verdict, checked: returns it. */
static int
fuzz_verdict(int r, const char *why, size_t whysz)
{
	FUZZ_ASSERT(r == 0 || r == 1);
	FUZZ_ASSERT(memchr(why, '\0', whysz) != NULL);
	if (r)
		FUZZ_ASSERT(strncmp(why, "BLOCKED: ", 9) == 0);
	else
		FUZZ_ASSERT(why[0] == '\0');
	return r;
}

static void
fuzz_command(const struct agent_guard *g, const char *text, size_t size)
{
	char why[512], again[512];
	unsigned long long before = fuzz_work();
	int r;

	r = fuzz_verdict(agent_guard_check(g, text, why, sizeof(why)), why,
	    sizeof(why));
	FUZZ_ASSERT(
	    fuzz_work() - before <= FUZZ_WORK_BASE + FUZZ_WORK_PER_BYTE * size);
	FUZZ_ASSERT(agent_guard_check(g, text, again, sizeof(again)) == r);
	FUZZ_ASSERT(strcmp(why, again) == 0);
	/* A small reason buffer is cut, never overrun. */
	(void)fuzz_verdict(agent_guard_check(g, text, why, 12), why, 12);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_guard tmp = fuzz_guard;
	static const char *const tmp_own[] = {"/tmp/dev-session-p-1.phase",
	    NULL};
	char *text, why[512];

	if (size == 0)
		return 0;
	text = fuzz_cstr(data + 1, size - 1);
	if (data[0] & 1) {
		fuzz_command(&fuzz_guard, text, size - 1);
		tmp.run_dir = "/tmp";
		tmp.own = tmp_own;
		tmp.forge_api = NULL;
		fuzz_command(&tmp, text, size - 1);
	} else {
		(void)fuzz_verdict(agent_guard_check_write(&fuzz_guard, text,
				       why, sizeof(why)),
		    why, sizeof(why));
		if (data[0] & 2) {
			tmp.cwd = NULL;
			(void)fuzz_verdict(agent_guard_hook(&tmp, text,
					       strlen(text), 1, why,
					       sizeof(why)),
			    why, sizeof(why));
			FUZZ_ASSERT(
			    fuzz_verdict(agent_guard_hook(&tmp, text,
					     strlen(text), 0, why, sizeof(why)),
				why, sizeof(why)) == 1);
		}
	}
	free(text);
	return 0;
}
