/*
 * Unit tests for common/base/redact.c: each rule, what must survive, and the
 * masking of registered values in their raw, URL-encoded and base64
 * forms.
 */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "check.h"
#include "redact.h"

#define HEX40 "0123456789abcdef0123456789abcdef01234567"
#define HEX64                              \
	"0123456789abcdef0123456789abcdef" \
	"0123456789abcdef0123456789abcdef"

/* redact_secrets(in) compared with want. */
static int
same(const char *in, const char *want)
{
	char *got = redact_secrets(in);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("#   got  \"%s\"\n#   want \"%s\"\n", got, want);
	free(got);
	return ok;
}

static void
test_akia(void)
{
	CHECK(same("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED] here"));
	CHECK(same("AKIAIOSFODNN7EXAMPLEXY", "[REDACTED]XY"));
	CHECK(same("AKIAiosfodnn7example", "AKIAiosfodnn7example"));
	CHECK(same("AKIA1234", "AKIA1234"));
}

static void
test_0x(void)
{
	CHECK(same("pk=0x" HEX64 ".", "pk=[REDACTED]."));
	/* Short 0x values stay; a 40-digit address falls to rule 3. */
	CHECK(same("mov 0xdeadbeef, 0x1f", "mov 0xdeadbeef, 0x1f"));
	CHECK(same("to 0x52908400098527886E0F7030069857D2E4169EE7",
	    "to 0x[REDACTED]"));
	/* 65 digits: the 0x rule takes 64, the last one stays. */
	CHECK(same("0x" HEX64 "9", "[REDACTED]9"));
}

static void
test_hex_runs(void)
{
	CHECK(same("token " HEX40 " end", "token [REDACTED] end"));
	CHECK(same(HEX40, "[REDACTED]"));
	CHECK(same("x:0123456789ABCDEF0123456789abcdef;", "x:[REDACTED];"));
	/* 31 digits are not enough. */
	CHECK(same("0123456789abcdef0123456789abcde",
	    "0123456789abcdef0123456789abcde"));
	/* Embedded in a word: still a run. */
	CHECK(same("sha256:" HEX64, "sha256:[REDACTED]"));
}

static void
test_hex_kept(void)
{
	CHECK(
	    same("commit " HEX40 "\nAuthor: x", "commit " HEX40 "\nAuthor: x"));
	CHECK(same("Merge " HEX40 " into main", "Merge " HEX40 " into main"));
	/* Only a 40-digit lowercase SHA in that context. */
	CHECK(same("commit " HEX64, "commit [REDACTED]"));
	CHECK(same("commit 0123456789ABCDEF0123456789abcdef01234567",
	    "commit [REDACTED]"));
	CHECK(same("merge " HEX40, "merge [REDACTED]"));
	CHECK(same("see " HEX40, "see [REDACTED]"));
	/* Variable references. */
	CHECK(same("$DEADBEEFDEADBEEFDEADBEEFDEADBEEF00",
	    "$DEADBEEFDEADBEEFDEADBEEFDEADBEEF00"));
	CHECK(same("${DEADBEEFDEADBEEFDEADBEEFDEADBEEF00}",
	    "${DEADBEEFDEADBEEFDEADBEEFDEADBEEF00}"));
}

static void
test_url(void)
{
	CHECK(same("https://api.example.com/v1/deadbeefdeadbeef1234/x",
	    "https://api.example.com/v1/[REDACTED]/x"));
	CHECK(same("see http://h/?k=0123456789abcdef0123&b=1 ok",
	    "see http://h/?k=[REDACTED]&b=1 ok"));
	/* Every long run of the URL. */
	CHECK(same("http://h/0123456789abcdef0123/0123456789abcdef0123",
	    "http://h/[REDACTED]/[REDACTED]"));
	/* 19 digits stay; outside a URL, 20 digits stay. */
	CHECK(same("http://h/0123456789abcdef012",
	    "http://h/0123456789abcdef012"));
	CHECK(same("id 0123456789abcdef0123", "id 0123456789abcdef0123"));
	/* The URL ends at white space. */
	CHECK(same("http://h/a 0123456789abcdef0123",
	    "http://h/a 0123456789abcdef0123"));
	CHECK(same("http://localhost:3000/org/repo/pulls/12",
	    "http://localhost:3000/org/repo/pulls/12"));
}

static void
test_assignment(void)
{
	CHECK(same("FORGE_TOKEN=abcdefghijklmnopqrstu rest",
	    "FORGE_TOKEN=[REDACTED] rest"));
	CHECK(same("API_KEY=sk-live-1234567890abc", "API_KEY=[REDACTED]"));
	CHECK(same("DB_PASSWORD=correct-horse-battery",
	    "DB_PASSWORD=[REDACTED]"));
	CHECK(same("MY_SECRET=zzzzzzzzzzzzzzzz", "MY_SECRET=[REDACTED]"));
	CHECK(same("INFURA=zzzzzzzzzzzzzzzz\nALCHEMY=yyyyyyyyyyyyyyyy",
	    "INFURA=[REDACTED]\nALCHEMY=[REDACTED]"));
	CHECK(same("PRIVATE_KEY=zzzzzzzzzzzzzzzzzz", "PRIVATE_KEY=[REDACTED]"));
	/* Quotes are kept, the value is not. */
	CHECK(same("TOKEN=\"abcdefghijklmnopqrstu\"", "TOKEN=\"[REDACTED]\""));
	CHECK(same("export TOKEN='abcdefghijklmnopqrstu'",
	    "export TOKEN='[REDACTED]'"));
	/* Short values, other names, lower case and references stay. */
	CHECK(same("TOKEN=short", "TOKEN=short"));
	CHECK(same("TOKENS=abcdefghijklmnopqrstu",
	    "TOKENS=abcdefghijklmnopqrstu"));
	CHECK(
	    same("token=abcdefghijklmnopqrstu", "token=abcdefghijklmnopqrstu"));
	CHECK(same("FORGE_TOKEN=$FORGE_TOKEN_FROM_ENV",
	    "FORGE_TOKEN=$FORGE_TOKEN_FROM_ENV"));
	CHECK(same("FORGE_TOKEN=${FORGE_TOKEN_FROM_ENV}",
	    "FORGE_TOKEN=${FORGE_TOKEN_FROM_ENV}"));
	CHECK(same("TOKEN=$abcdefghijklmnop-secret", "TOKEN=[REDACTED]"));
}

static void
test_bearer(void)
{
	CHECK(same("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x",
	    "Authorization: Bearer [REDACTED].x"));
	CHECK(same("Bearer abc/def+ghi=jkl-mno_pqrs", "Bearer [REDACTED]"));
	CHECK(same("Bearer short", "Bearer short"));
	CHECK(same("Bearer $TOKEN_VARIABLE_NAME_LONG",
	    "Bearer $TOKEN_VARIABLE_NAME_LONG"));
	CHECK(same("bearer abcdefghijklmnopqrstuvwxyz",
	    "bearer abcdefghijklmnopqrstuvwxyz"));
}

static void
test_plain_text(void)
{
	const char *pane = "❯ run the tests\n"
			   "  ✓ 42 passed (1.2s)\n"
			   "error: cannot open 'src/main.c'\n"
			   "\tSC2086 at line 7, PR #123, issue #45\n";

	CHECK(same(pane, pane));
	CHECK(same("", ""));
	CHECK(same("[REDACTED]", "[REDACTED]"));
	CHECK(same(NULL, ""));
}

static void
test_combined(void)
{
	CHECK(same("curl -H 'Authorization: token " HEX40 "' "
		   "https://x/api?key=0123456789abcdef0123 && "
		   "export FORGE_TOKEN=" HEX40 " AKIAIOSFODNN7EXAMPLE",
	    "curl -H 'Authorization: token [REDACTED]' "
	    "https://x/api?key=[REDACTED] && "
	    "export FORGE_TOKEN=[REDACTED] [REDACTED]"));
}

/* redact_values(in) compared with want. */
static int
same_values(const char *in, const char *want)
{
	char *got = redact_values(in);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("#   got  \"%s\"\n#   want \"%s\"\n", got, want);
	free(got);
	return ok;
}

static void
test_secret_names(void)
{
	CHECK(redact_secret_name("FORGE_TOKEN"));
	CHECK(redact_secret_name("FORGE_REVIEW_TOKEN"));
	CHECK(redact_secret_name("WOODPECKER_TOKEN"));
	CHECK(redact_secret_name("ANTHROPIC_API_KEY"));
	CHECK(redact_secret_name("SOPS_AGE_KEY"));
	CHECK(redact_secret_name("DB_PASSWORD"));
	CHECK(redact_secret_name("client_secret"));
	CHECK(redact_secret_name("TOKEN"));
	CHECK(redact_secret_name("AWS_CREDENTIALS"));
	CHECK(!redact_secret_name("TOKENS"));
	CHECK(!redact_secret_name("MONKEY"));
	CHECK(!redact_secret_name("SOPS_AGE_KEY_FILE"));
	CHECK(!redact_secret_name("AGENT_ENV_PASS"));
	CHECK(!redact_secret_name("CLAUDE_MODEL"));
	CHECK(!redact_secret_name(""));
	CHECK(!redact_secret_name(NULL));
}

static void
test_values_raw(void)
{
	redact_clear();
	redact_add("wp-0a1b2c3d");
	redact_add("short");
	redact_add(NULL);
	CHECK(same_values("token wp-0a1b2c3d in a line",
	    "token [REDACTED] in a line"));
	CHECK(same_values("wp-0a1b2c3dwp-0a1b2c3d", "[REDACTED][REDACTED]"));
	/* Too short to be masked: a setting, not a credential. */
	CHECK(same_values("a short line", "a short line"));
	/* redact_secrets() masks the values too. */
	CHECK(same("x=wp-0a1b2c3d", "x=[REDACTED]"));
	redact_clear();
	CHECK(same_values("token wp-0a1b2c3d", "token wp-0a1b2c3d"));
}

/*
 * A key shown by its last characters, as the agent CLI's API key dialog
 * shows its last 20: every tail of 12 to 40 bytes is masked, shorter
 * ones and the rest of the text are kept.
 */
static void
test_values_tails(void)
{
	const char *key =
	    "sk-ant-api03-Q7x9Zk2LmN4pR8sT1vW3yB5dF6gH0jK_abcdEFGH-1234";
	char line[160], want[160];
	size_t len = strlen(key), n;

	redact_clear();
	redact_add(key);
	for (n = REDACT_TAIL_MIN; n <= REDACT_TAIL_MAX; n++) {
		snprintf(line, sizeof(line), "key ...%s here", key + len - n);
		CHECK(same_values(line, "key ...[REDACTED] here"));
	}
	/* The dialog's own line, the tail after an ellipsis character. */
	snprintf(line, sizeof(line), "ANTHROPIC_API_KEY: sk-ant-\u2026%s",
	    key + len - 20);
	snprintf(want, sizeof(want), "ANTHROPIC_API_KEY: sk-ant-\u2026%s",
	    REDACT_MARK);
	CHECK(same_values(line, want));
	/* Under REDACT_TAIL_MIN: too short to tell from text. */
	snprintf(line, sizeof(line), "end %s", key + len - 11);
	CHECK(same_values(line, line));
	/* A short value has no tails of its own. */
	redact_clear();
	redact_add("wp-0a1b2c3d99");
	CHECK(same_values("b2c3d99 and a1b2c3d99", "b2c3d99 and a1b2c3d99"));
	redact_clear();
}

static void
test_values_url_encoded(void)
{
	redact_clear();
	redact_add("p@ss w0rd/+&x");
	CHECK(same_values("raw p@ss w0rd/+&x", "raw [REDACTED]"));
	CHECK(same_values("?pw=p%40ss%20w0rd%2F%2B%26x&a=1",
	    "?pw=[REDACTED]&a=1"));
	CHECK(same_values("?pw=p%40ss%20w0rd%2f%2b%26x", "?pw=[REDACTED]"));
	redact_clear();
}

/*
 * The value inside a longer base64 text, at every alignment: what is
 * left of the text beside the mark are only the characters that also
 * hold bits of the bytes around the value.
 */
static void
test_values_base64(void)
{
	const char *value = "glpat-Zx9_secret-token-77";
	char plain[64], *enc, *got;
	size_t pre, post, left;

	redact_clear();
	redact_add(value);
	for (pre = 0; pre < 6; pre++)
		for (post = 0; post < 4; post++) {
			snprintf(plain, sizeof(plain), "%.*s%s%.*s", (int)pre,
			    "ABCDEF", value, (int)post, "uvwx");
			enc = base64_encode(plain, strlen(plain));
			got = redact_values(enc);
			left = strlen(got) - strlen(REDACT_MARK);
			if (strstr(got, REDACT_MARK) == NULL ||
			    left > (pre + post) * 4 / 3 + 6) {
				printf("#   %zu+%zu: %s -> %s\n", pre, post,
				    enc, got);
				CHECK(0);
			}
			free(got);
			free(enc);
		}
	/* The URL-safe alphabet too. */
	enc = base64_encode("xysecret?value>>with~bits", 25);
	CHECK(strchr(enc, '/') != NULL || strchr(enc, '+') != NULL);
	redact_add("secret?value>>with~bits");
	for (got = enc; *got != '\0'; got++)
		*got = *got == '+' ? '-' : *got == '/' ? '_' : *got;
	got = redact_values(enc);
	CHECK(strstr(got, REDACT_MARK) != NULL);
	free(got);
	free(enc);
	redact_clear();
}

static void
test_values_url(void)
{
	redact_clear();
	redact_add_url("https://bot:s3cret-pass@forge.example/api");
	redact_add_url("https://0123456789abcdefghij@git.example/x.git");
	redact_add_url("http://localhost:3000");
	redact_add_url(NULL);
	CHECK(same_values("pass s3cret-pass, token 0123456789abcdefghij",
	    "pass [REDACTED], token [REDACTED]"));
	/* The user name alone is no secret. */
	CHECK(same_values("bot", "bot"));
	redact_clear();
}

static void
test_patterns_kept_out(void)
{
	CHECK(same_values("push https://bot:hunter2@forge.example/o/r.git",
	    "push https://bot:[REDACTED]@forge.example/o/r.git"));
	CHECK(same_values("GET https://glpat-0123456789abcdefghij@h/x",
	    "GET https://[REDACTED]@h/x"));
	/* A user alone, an '@' past the host, e-mail: no credentials. */
	CHECK(
	    same_values("ssh://git@host/repo.git", "ssh://git@host/repo.git"));
	CHECK(same_values("https://h/@user:x@y", "https://h/@user:x@y"));
	CHECK(same_values("mail bot@example.com", "mail bot@example.com"));
	CHECK(same_values("key AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQ"
			  "GPQYQSZQGPQYQSZQGPQYQSZQGPQYQS end",
	    "key [REDACTED] end"));
	CHECK(same_values("AGE-SECRET-KEY-1 is the prefix",
	    "AGE-SECRET-KEY-1 is the prefix"));
	/* SHAs and hex stay in redact_values(): logs are full of them. */
	CHECK(
	    same_values("commit " HEX40 " " HEX64, "commit " HEX40 " " HEX64));
	CHECK(same("x https://u:pw@h/ y", "x https://u:[REDACTED]@h/ y"));
}

int
main(void)
{
	RUN(test_akia);
	RUN(test_0x);
	RUN(test_hex_runs);
	RUN(test_hex_kept);
	RUN(test_url);
	RUN(test_assignment);
	RUN(test_bearer);
	RUN(test_plain_text);
	RUN(test_combined);
	RUN(test_secret_names);
	RUN(test_values_raw);
	RUN(test_values_tails);
	RUN(test_values_url_encoded);
	RUN(test_values_base64);
	RUN(test_values_url);
	RUN(test_patterns_kept_out);
	return check_main();
}
