/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_sched.h - the schedule of an ETL file as the pictures of
 * `etwforge dump` need it: per CPU, which thread ran from when to when
 * (slices), where compact batches were flushed and why, and which spin-lock
 * releases were logged and why; times in nanoseconds since the session
 * started, one pass over the file in time order, memory bounded by the
 * number of CPUs. The timeline (dump_timeline.c) and the Chrome trace
 * (dump_chrome.c) consume it.
 */
#ifndef TOOLS_DUMP_SCHED_H
#define TOOLS_DUMP_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "dump_infer.h"
#include "dump_wakeup.h"
#include "etwforge/etwforge.h"

#define SCHED_MAX_CPUS 65536u /* ProcessorIndex is 16 bits */

/**
 * struct sched_frame - the file's clock and the part of it asked for.
 * @info:       the file's header
 * @hz:         session clock units per second (QPC: PerfFreq; system time:
 *              10^7; CPU cycles: CpuSpeedInMHz x 10^6)
 * @tick_ns:    the interrupt tick, TimerResolution x 100 ns (0: unknown)
 * @end_ns:     the end of tracing (EndTime, else the last buffer's time)
 * @from_ns/@to_ns: the window asked for (INT64_MIN/INT64_MAX: not given)
 * @nlanes:     CPUs shown, in increasing order; @lane_cpu[lane] is the CPU
 * @cpu_lane:   CPU -> lane, -1 for a CPU not shown (@info->cpus entries)
 */
struct sched_frame {
	const struct etwforge_file_info *info;
	uint64_t hz;
	uint64_t tick_ns;
	int64_t end_ns;
	int64_t from_ns;
	int64_t to_ns;
	unsigned nlanes;
	unsigned *lane_cpu;
	int *cpu_lane;
	struct etwforge_spinlock_config spin; /* the file's 0x0F4B, else the defaults */
};

/**
 * sched_frame_init - the frame of @f for the window [@from_ns, @to_ns] and
 * the CPUs whose bit is set in @cpu_mask (NULL: every CPU of the file).
 * Return: 0; -ERANGE a CPU of @cpu_mask is not in the file (its number in
 * *@bad_cpu); -ENOMEM.
 */
int sched_frame_init(struct sched_frame *fr, struct etwforge_file *f, int64_t from_ns,
		     int64_t to_ns, const uint8_t *cpu_mask, unsigned *bad_cpu);

/** sched_frame_finish - free what sched_frame_init() made. */
void sched_frame_finish(struct sched_frame *fr);

/**
 * sched_ns - @ts (session clock) as nanoseconds since the session started
 * (the file's start_ts); negative before it.
 */
int64_t sched_ns(const struct sched_frame *fr, uint64_t ts);

/**
 * struct sched_slice - a thread on a CPU, clipped to the window.
 * @t0/@t1: from the switch that put it there (or the start of tracing,
 *          @opened false) to the next switch on the CPU (or the end)
 * @tid:    the thread (0 idle), if @known: after a CPU's last compact
 *          switch (or before a damaged batch) the file does not say which
 *          thread ran
 */
struct sched_slice {
	unsigned lane;
	unsigned cpu;
	int64_t t0;
	int64_t t1;
	uint32_t tid;
	bool known;
	bool opened;
};

/**
 * struct sched_flush - a compact batch flushed at @t.
 * @batch:        the flushed batch's number on its CPU
 * @tids:         its TidTable entries
 * @record_bytes: its bytes of records
 */
struct sched_flush {
	unsigned lane;
	unsigned cpu;
	int64_t t;
	enum flush_reason reason;
	uint64_t batch;
	unsigned tids;
	uint64_t record_bytes;
};

/** struct sched_spin - a logged spin-lock release at @t (its ReleaseTime's record). */
struct sched_spin {
	unsigned lane;
	unsigned cpu;
	int64_t t;
	enum spin_kind kind;
	const struct etwforge_spinlock *lock;
};

/** struct sched_ops - a consumer of the schedule; any callback may be NULL. */
struct sched_ops {
	void (*slice)(void *ctx, const struct sched_slice *s);
	void (*flush)(void *ctx, const struct sched_flush *fl);
	void (*spin)(void *ctx, const struct sched_spin *sp);
	/* a ReadyThread and the readied thread's next switch-in, when [t_ready,
	 * t_run] meets the window (dump_wakeup.h) */
	void (*wake)(void *ctx, const struct sched_wake *wk);
};

/** struct sched_consumer - one consumer and its context. */
struct sched_consumer {
	const struct sched_ops *ops;
	void *ctx;
};

/**
 * struct sched_totals - what the walk saw in the window, on the CPUs shown.
 * @switches:  switches (plain and compact) in the window
 * @compact:   of which from compact batches
 * @slices:    slices handed out (idle ones too)
 * @flushes:   batch flushes by reason
 * @spins:     logged spin-lock releases by kind
 * @wakes:     wake-ups handed out (ReadyThread paired with a switch-in)
 * @damaged:   damaged places skipped (with keep_going)
 * @last_ns:   the latest event time in the file (any CPU)
 */
struct sched_totals {
	uint64_t switches;
	uint64_t compact;
	uint64_t slices;
	uint64_t flushes[FLUSH_REASONS];
	uint64_t spins[SPIN_KINDS];
	uint64_t wakes;
	uint64_t damaged;
	int64_t last_ns;
};

/**
 * sched_walk - one pass over @f's switches, spin locks and ReadyThread
 * events in time order, handing each consumer of @cons (@ncons of them)
 * every slice, flush, spin-lock event and wake-up of the window, and
 * filling @tot. With @keep_going a
 * damaged batch is skipped (counted in @tot->damaged) instead of ending
 * the walk.
 * Return: 0; -EINVAL damage (@err: `file: offset 0x...: what`); -ENOMEM.
 */
int sched_walk(struct etwforge_file *f, const struct sched_frame *fr,
	       const struct sched_consumer *cons, unsigned ncons, bool keep_going,
	       struct sched_totals *tot, struct etwforge_error *err);

#endif /* TOOLS_DUMP_SCHED_H */
