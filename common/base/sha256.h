/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for checking the
 * signature a forge puts on a webhook delivery.  Small and slow enough
 * for a few kilobytes a delivery; no library is linked for it.
 */
#ifndef SHA256_H
#define SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	unsigned char block[SHA256_BLOCK];
	size_t used; /* bytes in block */
};

void sha256_init(struct sha256 *);
void sha256_update(struct sha256 *, const void *data, size_t len);
void sha256_final(struct sha256 *, unsigned char out[SHA256_LEN]);
/* The digest of len bytes at data. */
void sha256(const void *data, size_t len, unsigned char out[SHA256_LEN]);
/* HMAC-SHA256 of msg with key. */
void hmac_sha256(const void *key, size_t keylen, const void *msg, size_t msglen,
    unsigned char out[SHA256_LEN]);
/*
 * 1 when hex (upper or lower case, exactly 64 digits) spells mac, in a
 * time that does not depend on where they differ; else 0.
 */
int sha256_hex_equal(const char *hex, const unsigned char mac[SHA256_LEN]);

#endif
