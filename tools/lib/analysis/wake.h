/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/wake.h - wake-ups (wake.c): each ReadyThread paired
 * with the readied thread's next switch-in, as the time-ordered pass meets
 * them. A thread's ReadyThreads wait until it switches in; all of them
 * pair with that switch-in (a thread readied twice before it runs has two
 * wake-ups, each with its own latency), and a ReadyThread at the very time
 * of a switch-in of its thread pairs with it, whichever the pass met
 * first. Memory grows with the ReadyThreads waiting, not with the file.
 */
#ifndef TOOLS_LIB_ANALYSIS_WAKE_H
#define TOOLS_LIB_ANALYSIS_WAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/lib/common/id_map.h"

/** struct wake_ready - a ReadyThread waiting for its thread's switch-in. */
struct wake_ready {
	uint64_t ts;
	uint32_t waker;
	unsigned cpu;
};

/** struct wake_pairing - the waiting ReadyThreads; zero-initialise. */
struct wake_pairing {
	struct id_map pending; /* TID -> struct wake_list */
	uint64_t waiting;      /* ReadyThreads waiting now */
};

/** wake_add - thread @tid readied at @ts on @cpu by @waker. Return: 0, or -ENOMEM. */
int wake_add(struct wake_pairing *p, uint32_t tid, const struct wake_ready *r);

/**
 * wake_take - thread @tid switched in at @ts: its waiting ReadyThreads (at
 * @ts or before) into *@out (valid until the next call for @tid), *@n of
 * them, and forgotten.
 */
void wake_take(struct wake_pairing *p, uint32_t tid, uint64_t ts, const struct wake_ready **out,
	       unsigned *n);

/** wake_pairing_free - NULL-safe on a zeroed one. */
void wake_pairing_free(struct wake_pairing *p);

#endif /* TOOLS_LIB_ANALYSIS_WAKE_H */
