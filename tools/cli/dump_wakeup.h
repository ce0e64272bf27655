/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_wakeup.h - wake-ups for the pictures (dump_wakeup.c): each
 * ReadyThread paired with the readied thread's next switch-in, during the
 * time-ordered walk of dump_sched.c. Per thread only its latest ReadyThread
 * not yet followed by a switch-in is kept (several readies before one
 * switch-in: the last one is its wake-up), so memory grows with threads.
 */
#ifndef TOOLS_DUMP_WAKEUP_H
#define TOOLS_DUMP_WAKEUP_H

#include <stdbool.h>
#include <stdint.h>

#include "tid_map.h"

/**
 * struct sched_wake - thread @tid readied at @t_ready on CPU @from_cpu by
 * thread @waker (the ReadyThread header's; 0: idle, a DPC or interrupt),
 * switched in at @t_run on CPU @to_cpu. Lanes are -1 for a CPU not shown.
 */
struct sched_wake {
	int64_t t_ready;
	int64_t t_run;
	uint32_t waker;
	uint32_t tid;
	unsigned from_cpu;
	unsigned to_cpu;
	int from_lane;
	int to_lane;
};

/** struct wake_pairing - the pending readies; zero-initialise. */
struct wake_pairing {
	struct tid_map pending;
};

/** wake_ready - thread @tid readied at @t on @cpu by @waker. Return: 0, or -ENOMEM. */
int wake_ready(struct wake_pairing *p, uint32_t tid, uint32_t waker, unsigned cpu, int64_t t);

/**
 * wake_switch_in - thread @tid switched in at @t on @cpu: when a ReadyThread
 * of it is pending, fill @out (lanes left -1) and forget it.
 * Return: true when @out is a wake-up.
 */
bool wake_switch_in(struct wake_pairing *p, uint32_t tid, unsigned cpu, int64_t t,
		    struct sched_wake *out);

/** wake_pairing_free - NULL-safe on a zeroed one. */
void wake_pairing_free(struct wake_pairing *p);

#endif /* TOOLS_DUMP_WAKEUP_H */
