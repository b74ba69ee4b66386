/*
 * Unit tests for SHA-256 and HMAC-SHA256 (common/base/sha256.c): the
 * FIPS 180-4 examples, a message fed in pieces, the test cases of RFC
 * 4231 (all but 5, whose output is truncated), and the comparison of a
 * hex signature with a MAC.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sha256.h"

/* The bytes of hex (even length) into out: how many. */
static size_t
unhex(const char *hex, unsigned char *out)
{
	size_t n = 0;
	unsigned v;

	for (; hex[0] != '\0' && hex[1] != '\0'; hex += 2) {
		(void)sscanf(hex, "%2x", &v);
		out[n++] = (unsigned char)v;
	}
	return n;
}

static void
tohex(const unsigned char *d, char *out)
{
	size_t i;

	for (i = 0; i < SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
test_digests(void)
{
	static const struct {
		const char *msg, *want;
	} rows[] = {
	    {"",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b"
		"855"},
	    {"abc",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f2"
		"0015ad"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db0"
		"6c1"},
	};
	unsigned char d[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		sha256(rows[i].msg, strlen(rows[i].msg), d);
		tohex(d, hex);
		CHECK_STR(hex, rows[i].want);
	}
}

/* A million 'a', fed in pieces of 997 bytes and one remainder. */
static void
test_pieces(void)
{
	unsigned char a[997], d[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	struct sha256 s;
	size_t left = 1000000, n;

	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	for (; left > 0; left -= n) {
		n = left < sizeof(a) ? left : sizeof(a);
		sha256_update(&s, a, n);
	}
	sha256_final(&s, d);
	tohex(d, hex);
	CHECK_STR(hex,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* RFC 4231 section 4: test cases 1, 2, 3, 4, 6 and 7. */
static void
test_rfc4231(void)
{
	static const struct {
		const char *key, *data, *want;
	} rows[] = {
	    {"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32c"
		"ff7"},
	    {"4a656665",
		"7768617420646f2079612077616e7420666f72206e6f7468696e673f",
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3"
		"843"},
	    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
		"dddddddddddddddddddddddddddddddddddddd",
		"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced56"
		"5fe"},
	    {"0102030405060708090a0b0c0d0e0f10111213141516171819",
		"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
		"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
		"82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff467296"
		"65b"},
	    {NULL,
		"54657374205573696e67204c6172676572205468616e20426c6f636b2d5369"
		"7a65204b6579202d2048617368204b6579204669727374",
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37"
		"f54"},
	    {NULL,
		"5468697320697320612074657374207573696e672061206c6172676572207468"
		"616e20626c6f636b2d73697a65206b657920616e642061206c61726765722074"
		"68616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565"
		"647320746f20626520686173686564206265666f7265206265696e6720757365"
		"642062792074686520484d414320616c676f726974686d2e",
		"9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a3"
		"5e2"},
	};
	unsigned char key[256], data[256], mac[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	size_t i, klen, dlen;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].key != NULL)
			klen = unhex(rows[i].key, key);
		else {
			/* Cases 6 and 7: 131 bytes of 0xaa. */
			memset(key, 0xaa, 131);
			klen = 131;
		}
		dlen = unhex(rows[i].data, data);
		hmac_sha256(key, klen, data, dlen, mac);
		tohex(mac, hex);
		CHECK_STR(hex, rows[i].want);
		CHECK_INT(sha256_hex_equal(rows[i].want, mac), 1);
	}
}

/* Upper case counts; a digit off, short, long or not hex does not. */
static void
test_hex_equal(void)
{
	unsigned char mac[SHA256_LEN];
	char hex[2 * SHA256_LEN + 2];

	hmac_sha256("k", 1, "m", 1, mac);
	tohex(mac, hex);
	CHECK_INT(sha256_hex_equal(hex, mac), 1);
	hex[0] = hex[0] == 'A' || hex[0] == 'a' ? 'B' : 'A';
	hex[1] = (char)(hex[1] >= 'a' ? hex[1] - 'a' + 'A' : hex[1]);
	CHECK_INT(sha256_hex_equal(hex, mac), 0);
	tohex(mac, hex);
	hex[63] = hex[63] == '0' ? '1' : '0';
	CHECK_INT(sha256_hex_equal(hex, mac), 0);
	tohex(mac, hex);
	hex[5] = 'g';
	CHECK_INT(sha256_hex_equal(hex, mac), 0);
	tohex(mac, hex);
	hex[63] = '\0';
	CHECK_INT(sha256_hex_equal(hex, mac), 0);
	tohex(mac, hex);
	strcat(hex, "0");
	CHECK_INT(sha256_hex_equal(hex, mac), 0);
	CHECK_INT(sha256_hex_equal(NULL, mac), 0);
	CHECK_INT(sha256_hex_equal("", mac), 0);
}

/* Upper-case hex of the right MAC is the same signature. */
static void
test_hex_upper(void)
{
	unsigned char mac[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	size_t i;

	hmac_sha256("secret", 6, "{}", 2, mac);
	tohex(mac, hex);
	for (i = 0; hex[i] != '\0'; i++)
		if (hex[i] >= 'a' && hex[i] <= 'f')
			hex[i] = (char)(hex[i] - 'a' + 'A');
	CHECK_INT(sha256_hex_equal(hex, mac), 1);
}

int
main(void)
{
	RUN(test_digests);
	RUN(test_pieces);
	RUN(test_rfc4231);
	RUN(test_hex_equal);
	RUN(test_hex_upper);
	return check_main();
}
