/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/wake.h - wake-ups (wake.c): each ReadyThread paired
 * with the readied thread's next switch-in, as the time-ordered pass meets
 * them. A thread's ReadyThreads wait until it switches in; all of them
 * pair with that switch-in (a thread readied twice before it runs has two
 * wake-ups, each with its own latency), and a ReadyThread at the very time
 * of a switch-in of its thread pairs with it, whichever the pass met
 * first. Memory grows with the ReadyThreads waiting, not with the file;
 * the lists are kept per TID (identity.h's struct an_tid).
 */
#ifndef TOOLS_LIB_ANALYSIS_WAKE_H
#define TOOLS_LIB_ANALYSIS_WAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct wake_ready - a ReadyThread waiting for its thread's switch-in. */
struct wake_ready {
	uint64_t ts;
	uint32_t waker;
	unsigned cpu;
};

/**
 * struct wake_list - one thread's waiting ReadyThreads (kept with what is
 * kept of its TID); zero-initialise.
 */
struct wake_list {
	struct wake_ready *v; /* [done, n) wait; [0, done) were handed out last */
	size_t n, cap;
	size_t done;
};

/** wake_add - the thread of @l readied as @r. Return: 0, or -ENOMEM. */
int wake_add(struct wake_list *l, const struct wake_ready *r);

/**
 * wake_take - the thread of @l switched in at @ts: its waiting
 * ReadyThreads (at @ts or before) into *@out (valid until the next call on
 * @l), *@n of them, and forgotten.
 */
void wake_take(struct wake_list *l, uint64_t ts, const struct wake_ready **out, size_t *n);

/** wake_waiting - are ReadyThreads waiting in @l? */
static inline bool wake_waiting(const struct wake_list *l)
{
	return l->n > l->done;
}

/** wake_list_free - NULL-safe on a zeroed one. */
void wake_list_free(struct wake_list *l);

#endif /* TOOLS_LIB_ANALYSIS_WAKE_H */
