// SPDX-License-Identifier: MIT
/*
 * tools/dump_wakeup.c - ReadyThread to switch-in pairing (dump_wakeup.h).
 */
#include <errno.h>

#include "dump_wakeup.h"

struct pending_ready {
	bool valid;
	uint32_t waker;
	unsigned cpu;
	int64_t t;
};

int wake_ready(struct wake_pairing *p, uint32_t tid, uint32_t waker, unsigned cpu, int64_t t)
{
	struct pending_ready *r;

	p->pending.elem_size = sizeof(*r);
	r = tid_map_add(&p->pending, tid);
	if (!r) {
		return -ENOMEM;
	}
	*r = (struct pending_ready){.valid = true, .waker = waker, .cpu = cpu, .t = t};
	return 0;
}

bool wake_switch_in(struct wake_pairing *p, uint32_t tid, unsigned cpu, int64_t t,
		    struct sched_wake *out)
{
	struct pending_ready *r = tid_map_get(&p->pending, tid);

	if (!r || !r->valid) {
		return false;
	}
	r->valid = false;
	*out = (struct sched_wake){.t_ready = r->t,
				   .t_run = t,
				   .waker = r->waker,
				   .tid = tid,
				   .from_cpu = r->cpu,
				   .to_cpu = cpu,
				   .from_lane = -1,
				   .to_lane = -1};
	return true;
}

void wake_pairing_free(struct wake_pairing *p)
{
	tid_map_free(&p->pending);
}
