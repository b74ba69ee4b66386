/*
 * The ticks the Claude session lock turned away (agent_lock.h), woken
 * when it is let go.  A tick whose launch found the lock busy for the
 * whole of its wait leaves a waiter file (runfiles_lock_waiter(): its
 * executable and project file), written by the tick alone in the run
 * directory, where no agent writes.  Whoever lets go of the lock wakes
 * them: a tick, at its end, when it finds the lock free (it let go of a
 * lock it had reserved, or the holder did meanwhile), and a session's
 * wrapper, which wakes its own tool when it lets go with waiters left
 * (agent_exec.h), whose tick then finds the lock free.  A waiter is
 * woken once (its file removed first) through the tool's wake
 * (wakecmd_spawn()); a tick that was not turned away removes its own.
 * Nothing of this without DISINTO_WAKE.
 */
#ifndef LOCKWAIT_H
#define LOCKWAIT_H

struct tick;

/* The tick t ends: record it as a waiter or not, then wake the waiters. */
void lockwait_tick_end(const struct tick *t);

#endif
