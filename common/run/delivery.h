/*
 * The forge webhook deliveries taken lately, so that one delivered again
 * (the forge's retry, or a captured delivery replayed) is answered and
 * ignored: a run file (runfiles_webhook_seen()) of "AT KEY" lines, the
 * last DELIVERY_KEEP seconds' and at most DELIVERY_MAX of them, replaced
 * atomically under its lock.  A delivery's keys are its ID (the
 * X-Gitea-Delivery header) and the hex HMAC of its payload: the ID is
 * not signed, so a replay under another ID is known by its payload.
 */
#ifndef DELIVERY_H
#define DELIVERY_H

#include <stddef.h>
#include <time.h>

/* How long a delivery is remembered, and how many at most. */
#define DELIVERY_KEEP 3600
#define DELIVERY_MAX 4096
/* The longest key. */
#define DELIVERY_KEY_MAX 128
/* The most seconds waited for the lock. */
#define DELIVERY_LOCK_WAIT 5

/*
 * Whether key can be one: 1 to DELIVERY_KEY_MAX letters, digits, '-',
 * '_', '.' or ':' (a UUID, a hex digest).
 */
int delivery_key_ok(const char *key);

/*
 * Whether any of the n keys (each delivery_key_ok(); others are left
 * out) was taken less than DELIVERY_KEEP seconds before now by the file
 * at path: 1, nothing written; else 0, with the keys recorded at now.
 * lockpath is the file's lock.  -1 with errno set when it cannot tell
 * (the lock not taken in DELIVERY_LOCK_WAIT seconds: EWOULDBLOCK) or
 * cannot record them.
 */
int delivery_seen(const char *path, const char *lockpath,
    const char *const *keys, size_t n, time_t now);

#endif
