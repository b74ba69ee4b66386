/*
 * For tests only: end the process at a named point as kill -9 would, so
 * that a test can stop a tick between two steps whose order matters
 * (DISINTO_TEST_CRASH, a comma-separated list of points).  The points:
 *
 *   session-started  a dev session started, its first prompt not typed
 *   recorded         a message's intent recorded, the message not typed
 *   typed            a message typed, not yet recorded as delivered
 *   mailbox-typed    a session's wrapper typed a message of its mailbox,
 *                    not yet recorded as delivered (agent_exec.h: the
 *                    wrapper is given the points when it starts)
 *
 * Unset (the default), nothing ever happens here.
 */
#ifndef CRASHPOINT_H
#define CRASHPOINT_H

/* The points to end the process at ("" or NULL: none). */
void crashpoint_set(const char *points);
/* The points set, or NULL when there are none. */
const char *crashpoint_get(void);
/* End the process with SIGKILL when point is one of them. */
void crashpoint(const char *point);

#endif
