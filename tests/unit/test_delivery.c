/*
 * Unit tests for common/run/delivery.c: a delivery taken once is known
 * by its ID or by its payload's HMAC for an hour, then forgotten; the
 * file keeps the newest DELIVERY_MAX lines and drops what is not its
 * own; keys that cannot be one are neither recorded nor matched.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "check.h"
#include "delivery.h"
#include "file.h"
#include "xmalloc.h"

static char tmpdir[] = "/tmp/test-delivery-XXXXXX";
static char path[PATH_MAX], lockpath[PATH_MAX];

#define T0 1800000000

/* delivery_seen() of a and b (may be NULL) at T0 + now. */
static int
seen2(long long now, const char *a, const char *b)
{
	const char *keys[2] = {a, b};

	return delivery_seen(path, lockpath, keys, b != NULL ? 2 : 1,
	    (time_t)(T0 + now));
}

/* The number of lines of the file. */
static size_t
lines(void)
{
	struct buf b;
	size_t n = 0;
	const char *p;

	buf_init(&b, 0);
	if (file_read(path, 1 << 24, &b) == 0)
		for (p = buf_str(&b); *p != '\0'; p++)
			n += *p == '\n';
	buf_free(&b);
	return n;
}

static void
test_delivery_key(void)
{
	char longest[DELIVERY_KEY_MAX + 2];

	CHECK(delivery_key_ok("3c1f9a40-6f5e-4a4b-9d43-0e9a0b6f2c11"));
	CHECK(delivery_key_ok("hmac:0123abcdef"));
	CHECK(!delivery_key_ok(NULL));
	CHECK(!delivery_key_ok(""));
	CHECK(!delivery_key_ok("a b"));
	CHECK(!delivery_key_ok("a\nb"));
	CHECK(!delivery_key_ok("a/b"));
	memset(longest, 'a', sizeof(longest));
	longest[DELIVERY_KEY_MAX] = '\0';
	CHECK(delivery_key_ok(longest));
	longest[DELIVERY_KEY_MAX] = 'a';
	longest[DELIVERY_KEY_MAX + 1] = '\0';
	CHECK(!delivery_key_ok(longest));
}

/* Once by its ID or its payload within the hour; forgotten after. */
static void
test_delivery_seen(void)
{
	unlink(path);
	CHECK_INT(seen2(0, "id-1", "mac-1"), 0);
	CHECK_INT(lines(), 2);
	CHECK_INT(seen2(1, "id-1", "mac-1"), 1);
	/* The same payload under another ID: a replay. */
	CHECK_INT(seen2(2, "id-2", "mac-1"), 1);
	/* Another payload under a known ID: the forge's ID is one delivery. */
	CHECK_INT(seen2(3, "id-1", "mac-2"), 1);
	CHECK_INT(lines(), 2);
	CHECK_INT(seen2(10, "id-3", "mac-3"), 0);
	CHECK_INT(seen2(DELIVERY_KEEP - 1, "id-1", NULL), 1);
	/* An hour on, the first is forgotten and pruned; the second not. */
	CHECK_INT(seen2(DELIVERY_KEEP, "id-1", "mac-1"), 0);
	CHECK_INT(seen2(DELIVERY_KEEP + 1, "mac-3", NULL), 1);
	CHECK_INT(seen2(DELIVERY_KEEP + 10, "id-4", NULL), 0);
	/* id-3 and mac-3 pruned: id-1 and mac-1 again, id-4. */
	CHECK_INT(lines(), 3);
	CHECK_INT(seen2(2 * DELIVERY_KEEP + 10, "id-9", NULL), 0);
	CHECK_INT(lines(), 1);
}

/* Keys that cannot be one are left out; lines not ours are dropped. */
static void
test_delivery_bad(void)
{
	const char *junk = "garbage\n12 \n x y\n-5 id-5\n99999999999999999 a\n";

	unlink(path);
	CHECK_INT(seen2(0, "a b", NULL), 0);
	CHECK_INT(seen2(1, "a b", NULL), 0);
	CHECK_INT(lines(), 0);
	CHECK_INT(seen2(2, "ok", "a\nb"), 0);
	CHECK_INT(lines(), 1);
	CHECK_INT(file_write_atomic(path, junk, strlen(junk), 0644, 0), 0);
	CHECK_INT(seen2(3, "id-5", NULL), 0);
	CHECK_INT(lines(), 1);
	/* A file that cannot be replaced: not known, and said. */
	unlink(path);
	CHECK_INT(mkdir(path, 0755), 0);
	CHECK_INT(seen2(4, "id-6", NULL), -1);
	rmdir(path);
}

/* The newest DELIVERY_MAX lines are kept. */
static void
test_delivery_max(void)
{
	size_t n = DELIVERY_MAX + 10, i;
	const char **keys = xcalloc(n, sizeof(*keys));
	char **own = xcalloc(n, sizeof(*own));

	unlink(path);
	for (i = 0; i < n; i++)
		keys[i] = own[i] = xasprintf("k%zu", i);
	CHECK_INT(delivery_seen(path, lockpath, keys, n, T0), 0);
	CHECK_INT(lines(), DELIVERY_MAX);
	CHECK_INT(seen2(1, "k10", NULL), 1);
	CHECK_INT(seen2(2, keys[n - 1], NULL), 1);
	/* k9 was left out; taken now, it pushes k10, the oldest, out. */
	CHECK_INT(seen2(3, "k9", NULL), 0);
	CHECK_INT(lines(), DELIVERY_MAX);
	CHECK_INT(seen2(4, "k10", NULL), 0);
	for (i = 0; i < n; i++)
		free(own[i]);
	free(own);
	free(keys);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/webhook-seen-p", tmpdir);
	snprintf(lockpath, sizeof(lockpath), "%s/webhook-seen-p.lock", tmpdir);
	RUN(test_delivery_key);
	RUN(test_delivery_seen);
	RUN(test_delivery_bad);
	RUN(test_delivery_max);
	unlink(path);
	unlink(lockpath);
	rmdir(tmpdir);
	return check_main();
}
