// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/sampled.c - what a sample adds beyond its thread (see
 * state.h): its process, the image its IP is in (the totals' and the
 * image row's counts), its stack, joined by the sample's time and thread
 * (the stack's row and depth counted), and in FULL detail its place in
 * the call tree. The full pass and the batch counts both call it.
 */
#include <errno.h>

#include "tools/lib/analysis/state.h"

/* The histogram bucket of @n (> 0): k with 2^k <= n < 2^(k+1). */
static unsigned depth_bucket(uint64_t n)
{
	unsigned k = 0;

	while (n >>= 1) {
		k++;
	}
	return k < ETWFORGE_HIST_BUCKETS ? k : ETWFORGE_HIST_BUCKETS - 1;
}

int an_sample_seen(struct etwforge_analysis *a, uint32_t tid, int64_t row, uint64_t ip, uint64_t ts,
		   uint32_t *pid, int64_t *stack)
{
	const struct an_stack_event *se = an_stack_of(&a->st, ts, tid);
	int64_t proc = tid == 0 ? AN_PROC_IDLE : -1;
	int64_t image;

	*pid = 0;
	*stack = -1;
	if (row >= 0) {
		*pid = a->id.threads[row].pub.pid;
		proc = a->id.threads[row].pub.process;
	}
	if (*pid == 0 && tid != 0 && se) {
		*pid = se->pid;
	}
	image = an_image_at(&a->im, *pid, ip, ts);
	if (image >= 0) {
		a->tot.samples_in_image++;
		a->im.rows[image].pub.samples++;
	}
	if (se) {
		size_t n;

		an_run_frames(&a->st.joined, se->stack, &n);
		*stack = se->stack;
		a->tot.samples_stacked++;
		a->st.samples[se->stack]++;
		a->depth_hist[depth_bucket(n ? n : 1)]++;
	}
	if (a->id.full &&
	    an_calls_add(&a->calls, proc, *pid, se ? se->stack : UINT32_MAX, ip, ts) < 0) {
		return -ENOMEM;
	}
	return 0;
}
