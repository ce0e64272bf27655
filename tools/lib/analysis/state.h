/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/state.h - what the files of the analysis
 * room share: the analysis itself (analysis.c: options, tables, items),
 * the full pass in time order (pass.c) and the batch-at-a-time counts
 * (counts.c), which add into the same sums, and what both do with a
 * sample's image and stack (sampled.c).
 */
#ifndef TOOLS_LIB_ANALYSIS_STATE_H
#define TOOLS_LIB_ANALYSIS_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/calltree.h"
#include "tools/lib/analysis/clock.h"
#include "tools/lib/analysis/identity.h"
#include "tools/lib/analysis/images.h"
#include "tools/lib/analysis/ip_counts.h"
#include "tools/lib/analysis/stacks.h"
#include "tools/lib/analysis/wake.h"

struct etl_record;

#define AN_MAX_CPUS 2048u /* ProcessorIndex: 11 bits */
#define AN_BOOSTS   63u	  /* priority - base priority, -31..31, at [+31] */

/*
 * struct an_cpu - one CPU: what runs on it now (the pass), the batch being
 * read (flush reasons), and its sums.
 * @known/@tid/@row: the thread running since @t0 (@row -1: idle, unknown)
 * @opened:  a switch put it there (not: since the trace began)
 */
struct an_cpu {
	bool seen;
	bool known;
	bool opened;
	uint32_t tid;
	int64_t row;
	uint64_t t0;
	bool batch;
	uint64_t number;
	uint64_t first_ts;
	uint64_t last_ts;
	uint64_t header_ts;
	unsigned tids;
	uint32_t table[16];
	uint64_t record_bytes;
	bool counted;
	uint64_t busy_t, idle_t, unknown_t;
	struct etwforge_cpu_row pub;
};

/* One queued item, with its own copy of what it points to. */
struct an_queued {
	struct etwforge_item item;
	struct etwforge_spinlock lock;
};

struct etwforge_analysis {
	struct etwforge_file *f;
	struct etwforge_analysis_opts o;
	struct an_clock clock;
	struct an_identity id;
	struct etwforge_spinlock_config spin;
	bool spin_from_file; /* @spin is the file's configuration rundown, not defaults */
	struct an_cpu *cpu;  /* by CPU number */
	unsigned ncpu;
	unsigned *counted; /* the CPUs counted, in order (the cpu table) */
	unsigned ncounted;
	uint64_t from_ts, to_ts; /* the window in clock units (the whole trace: 0, max) */
	int64_t from_ns, to_ns;
	/* the full pass */
	struct etwforge_iter *it;
	bool no_raw; /* read compact switches as public events (the fast path's test) */
	bool started, ended;
	int failed; /* the error that ended the pass */
	struct an_queued *q;
	size_t qn, qi, qcap;
	bool nomem;
	/* sums */
	struct etwforge_analysis_totals tot;
	uint64_t busy_t, idle_t, unknown_t;
	uint64_t wake_hist[ETWFORGE_HIST_BUCKETS];
	/* the full pass only: how threads leave and come back (what traits.c reads) */
	uint64_t ready_reasons[AN_REASONS]; /* wait reasons of plain switch-outs to Ready */
	uint64_t boosts[AN_BOOSTS];	    /* woken threads' priority over base at switch-in */
	bool any_switch;
	uint64_t forms[4];	 /* compact switches by record form */
	uint64_t interval_100ns; /* the profile interval the file gives, 0 none */
	struct ip_counts idle_ips;
	struct etwforge_ip_count *ips_out; /* the last etwforge_analysis_ips() answer */
	/*
	 * per process row: its threads' CPU time, switch-ins and samples, summed
	 * from its threads' rows (@proc_rows[@proc_start[p] .. @proc_start[p +
	 * 1]]) when first asked for and kept up to date from then on
	 * (an_thread_sums_add()): @proc_fresh[p] says they are; the index is
	 * made again when rows were added or linked to a process since
	 * (@proc_made), and every process's sums with it
	 */
	uint64_t *proc_t, *proc_in, *proc_samples;
	bool *proc_fresh;
	size_t *proc_start, *proc_rows;
	size_t proc_made[3]; /* processes, threads, threads linked when indexed */
	/* images and stacks: read with the identity, the samples counted into them */
	struct an_images im;
	struct an_stacks st;
	struct an_calls calls; /* FULL only */
	uint64_t depth_hist[ETWFORGE_HIST_BUCKETS];
	struct etwforge_stack_row *stack_rows; /* the public view of @st's joined stacks */
	char where_text[1024];		       /* the last etwforge_analysis_locate()'s text */
	/* COUNTS: what else reads each record of the batch sums' walk (analysis_tap()) */
	void (*tap)(void *ctx, const struct etl_record *r);
	void *tap_ctx;
	bool tapped_all; /* the walk handed it every record of the file */
};

/** an_counted - does CPU @c count? */
static inline bool an_counted(const struct etwforge_analysis *a, unsigned c)
{
	return c < a->ncpu && a->cpu[c].counted;
}

/** an_in_window - is the time @ts (clock units) in the window? */
static inline bool an_in_window(const struct etwforge_analysis *a, uint64_t ts)
{
	return ts >= a->from_ts && ts <= a->to_ts;
}

/**
 * an_sample_seen - what a counted sample of thread @tid (0 idle; @row its
 * thread row, -1 none) at @ts with IP @ip adds to the images, the stacks
 * and (FULL) the call tree. *@pid its process (its thread's, else its
 * stack's), *@stack its stack's row, -1 none.
 * Return: 0, or -ENOMEM.
 */
int an_sample_seen(struct etwforge_analysis *a, uint32_t tid, int64_t row, uint64_t ip, uint64_t ts,
		   uint32_t *pid, int64_t *stack);

/**
 * pass_next - read on until the queue holds an item (or the end).
 * Return: 1 an item is queued, 0 the end (the last slices closed), -EINVAL
 * damage (@err; with keep_going the pass goes on at the next call), -ENOMEM.
 */
int pass_next(struct etwforge_analysis *a, struct etwforge_error *err);

/**
 * counts_run - the counts and CPU times of the whole trace a batch at a
 * time (ETWFORGE_DETAIL_COUNTS). Return: 0; -EAGAIN the file is one the
 * batch sums cannot read exactly (a CPU with plain and compact switches):
 * nothing was added, run the full pass; -EINVAL damage (@err); -ENOMEM.
 */
int counts_run(struct etwforge_analysis *a, struct etwforge_error *err);

/*
 * Thread row @th was given @t clock units of CPU time, @ins switch-ins and
 * @samples samples: its process's sums, when made, get them too (a reading
 * that asks for a process at each event would otherwise sum all its
 * threads again each time).
 */
static inline void an_thread_sums_add(struct etwforge_analysis *a, const struct an_thread *th,
				      uint64_t t, uint64_t ins, uint64_t samples)
{
	size_t p = (size_t)th->pub.process;

	if (th->pub.process >= 0 && p < a->proc_made[0] && a->proc_fresh && a->proc_fresh[p]) {
		a->proc_t[p] += t;
		a->proc_in[p] += ins;
		a->proc_samples[p] += samples;
	}
}

/* Every thread row's sums may have changed (the counts a batch at a time). */
static inline void an_all_sums_changed(struct etwforge_analysis *a)
{
	if (a->proc_fresh) {
		memset(a->proc_fresh, 0, a->proc_made[0] * sizeof(*a->proc_fresh));
	}
}

#endif /* TOOLS_LIB_ANALYSIS_STATE_H */
