/*
 * Unit tests for supervisor-poll's escalation clock, linked with its
 * archive (supervisor-poll/libsupervisorpoll.a): a reminder after 6 hours
 * without an answer, the timeout after 24 hours whatever happened.
 */
#include "check.h"
#include "supervisor-poll.h"

static void
test_clock(void)
{
	CHECK_INT(escalate_due(0, 0), ESCALATE_WAIT);
	CHECK_INT(escalate_due(ESCALATE_RENOTIFY_S - 1, 0), ESCALATE_WAIT);
	CHECK_INT(escalate_due(ESCALATE_RENOTIFY_S, 0), ESCALATE_RENOTIFY);
	CHECK_INT(escalate_due(ESCALATE_TIMEOUT_S - 1, 0), ESCALATE_RENOTIFY);
	CHECK_INT(escalate_due(ESCALATE_TIMEOUT_S, 0), ESCALATE_TIMEOUT);
}

/* An answer (or a session gone) means no reminder, but still a timeout. */
static void
test_answered(void)
{
	CHECK_INT(escalate_due(ESCALATE_RENOTIFY_S, 1), ESCALATE_WAIT);
	CHECK_INT(escalate_due(ESCALATE_TIMEOUT_S - 1, 1), ESCALATE_WAIT);
	CHECK_INT(escalate_due(ESCALATE_TIMEOUT_S, 1), ESCALATE_TIMEOUT);
	CHECK_INT(escalate_due(10 * ESCALATE_TIMEOUT_S, 1), ESCALATE_TIMEOUT);
	CHECK(ESCALATE_RENOTIFY_S == 6 * 3600);
	CHECK(ESCALATE_TIMEOUT_S == 24 * 3600);
}

int
main(void)
{
	RUN(test_clock);
	RUN(test_answered);
	return check_main();
}
