/*
 * SHA-256 and HMAC-SHA256: see sha256.h.
 */
#include <string.h>

#include "sha256.h"
#include "valid.h"

static const uint32_t sha256_k[64] = {0x428a2f98, 0x71374491, 0xb5c0fbcf,
    0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
    0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
    0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
    0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c,
    0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee,
    0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t sha256_rotr(uint32_t, int);
static void sha256_block(struct sha256 *, const unsigned char *);

static uint32_t
sha256_rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* Compress one 64-byte block into the state. */
static void
sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8], t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] +
		    (sha256_rotr(w[i - 15], 7) ^ sha256_rotr(w[i - 15], 18) ^
			(w[i - 15] >> 3)) +
		    w[i - 7] +
		    (sha256_rotr(w[i - 2], 17) ^ sha256_rotr(w[i - 2], 19) ^
			(w[i - 2] >> 10));
	memcpy(v, s->h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] +
		    (sha256_rotr(v[4], 6) ^ sha256_rotr(v[4], 11) ^
			sha256_rotr(v[4], 25)) +
		    ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		t2 = (sha256_rotr(v[0], 2) ^ sha256_rotr(v[0], 13) ^
			 sha256_rotr(v[0], 22)) +
		    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		s->h[i] += v[i];
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
	    0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memset(s, 0, sizeof(*s));
	memcpy(s->h, h0, sizeof(h0));
}

void
sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	s->len += len;
	while (len > 0) {
		n = SHA256_BLOCK - s->used;
		if (n > len)
			n = len;
		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == SHA256_BLOCK) {
			sha256_block(s, s->block);
			s->used = 0;
		}
	}
}

void
sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, len[8];
	int i;

	sha256_update(s, &pad, 1);
	while (s->used != SHA256_BLOCK - 8)
		sha256_update(s, &zero, 1);
	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, len, 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
	memset(s, 0, sizeof(*s));
}

void
sha256(const void *data, size_t len, unsigned char out[SHA256_LEN])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, out);
}

void
hmac_sha256(const void *key, size_t keylen, const void *msg, size_t msglen,
    unsigned char out[SHA256_LEN])
{
	unsigned char k[SHA256_BLOCK], pad[SHA256_BLOCK], inner[SHA256_LEN];
	struct sha256 s;
	size_t i;

	memset(k, 0, sizeof(k));
	if (keylen > SHA256_BLOCK)
		sha256(key, keylen, k);
	else if (keylen > 0)
		memcpy(k, key, keylen);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, msg, msglen);
	sha256_final(&s, inner);
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, inner, sizeof(inner));
	sha256_final(&s, out);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

int
sha256_hex_equal(const char *hex, const unsigned char mac[SHA256_LEN])
{
	unsigned diff = 0;
	int hi, lo;
	size_t i;

	if (hex == NULL || strlen(hex) != 2 * SHA256_LEN)
		return 0;
	for (i = 0; i < SHA256_LEN; i++) {
		hi = valid_hex_digit((unsigned char)hex[2 * i]);
		lo = valid_hex_digit((unsigned char)hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return 0;
		diff |= (unsigned)((hi << 4 | lo) ^ mac[i]);
	}
	return diff == 0;
}
