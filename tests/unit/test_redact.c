/*
 * Unit tests for common/redact.c: each rule, and what must survive.
 */
#include <stdlib.h>
#include <string.h>

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
	return check_main();
}
