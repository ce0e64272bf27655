// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_wakeup.c - ReadyThread to switch-in pairing (dump_wakeup.h).
 */
#include <errno.h>
#include <string.h>

#include "dump_wakeup.h"

/*
 * A thread's ReadyThreads not yet paired, oldest first. A CPU's records do
 * not come in time order: a compact batch's switches come when the batch is
 * written, after the ReadyThreads logged on that CPU meanwhile. So a
 * thread's next ReadyThread may come before the switch-in that ends its
 * previous one: a few are kept, and a switch-in takes the latest at or
 * before its time, dropping the older ones (their switch-in was missed).
 */
#define PENDING_MAX 4

struct pending_ready {
	unsigned n;
	struct {
		uint32_t waker;
		unsigned cpu;
		int64_t t;
	} r[PENDING_MAX];
};

int wake_ready(struct wake_pairing *p, uint32_t tid, uint32_t waker, unsigned cpu, int64_t t)
{
	struct pending_ready *r;

	p->pending.elem_size = sizeof(*r);
	r = tid_map_add(&p->pending, tid);
	if (!r) {
		return -ENOMEM;
	}
	if (r->n == PENDING_MAX) {
		memmove(&r->r[0], &r->r[1], sizeof(r->r[0]) * (PENDING_MAX - 1));
		r->n--;
	}
	r->r[r->n].waker = waker;
	r->r[r->n].cpu = cpu;
	r->r[r->n].t = t;
	r->n++;
	return 0;
}

bool wake_switch_in(struct wake_pairing *p, uint32_t tid, unsigned cpu, int64_t t,
		    struct sched_wake *out)
{
	struct pending_ready *r = tid_map_get(&p->pending, tid);
	unsigned k = 0;

	if (!r) {
		return false;
	}
	while (k < r->n && r->r[k].t <= t) {
		k++;
	}
	if (k == 0) {
		return false; /* none at or before it: a later wake-up's */
	}
	*out = (struct sched_wake){.t_ready = r->r[k - 1].t,
				   .t_run = t,
				   .waker = r->r[k - 1].waker,
				   .tid = tid,
				   .from_cpu = r->r[k - 1].cpu,
				   .to_cpu = cpu,
				   .from_lane = -1,
				   .to_lane = -1};
	memmove(&r->r[0], &r->r[k], sizeof(r->r[0]) * (r->n - k));
	r->n -= k;
	return true;
}

void wake_pairing_free(struct wake_pairing *p)
{
	tid_map_free(&p->pending);
}
