/*
 * Escalations to a person: the pass shared with dev-poll
 * (pollers/escalate.c), run for each project with supervisor-poll's
 * reports: a step that could not be completed fails the tick, a fix goes
 * to the fix command's list, and a reply kept for a parked conversation
 * wakes dev-poll, who resumes it.
 */
#include <stddef.h>

#include "config.h"
#include "escalate.h"
#include "supervisor-poll.h"
#include "tools.h"

static void sup_esc_fail(void *, const char *);
static void sup_esc_fixed(void *, const char *);

static void
sup_esc_fail(void *arg, const char *msg)
{
	sup_fail(arg, "%s", msg);
}

static void
sup_esc_fixed(void *arg, const char *msg)
{
	sup_fixed(arg, "%s", msg);
}

void
sup_escalation_ctx(struct sup *s)
{
	s->esc.cfg = s->cfg;
	s->esc.forge = s->forge;
	s->esc.act = &s->act;
	s->esc.now = s->now;
	s->esc.fail = sup_esc_fail;
	s->esc.fixed = sup_esc_fixed;
	s->esc.arg = s;
}

void
sup_escalations(struct sup *s)
{
	sup_status(s, "P2: %s: checking escalate sessions",
	    s->cfg->project_name);
	sup_escalation_ctx(s);
	s->esc.kept = 0;
	(void)escalate_check(&s->esc);
	/* dev-poll resumes the parked conversation: now, not on its timer. */
	if (s->esc.kept > 0)
		(void)tools_wake_other(&s->act, s->cfg, "dev-poll",
		    "escalation reply kept");
}
