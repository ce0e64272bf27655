/* SPDX-License-Identifier: MIT */
/*
 * producer/trace_sink.h - what the simulated machine tells the kernel's
 * logging code: one record per context switch, spin-lock release, and the
 * end of tracing. Models fire these into a struct trace_sink the way kernel
 * code fires a tracepoint; they never see bytes. The same records are the
 * ground truth (`--truth`) and the replay input (DESIGN.md schema).
 *
 * Below them, which spin-lock releases the kernel logs: the sampling
 * parameters of EVENT_TRACE_SPINLOCK_INFORMATION with their defaults and
 * set-time rules (KERNEL_FACTS 6.3), and the predicate of
 * PerfLogSpinLockRelease (6.2), defined once in producer/spin_sample.c.
 * The spin-lock model asks it at every release (a logged release costs
 * the CPU time of logging, so the model must know); verify asks it again
 * of every truth row.
 *
 *   log if   HoldThreshold != 0 and (u32)(Release - Acquire) > HoldThreshold     "hold"
 *        or  SpinCount >= SpinThreshold
 *            and ContentionCount % ContentionSampleRate == 0                    "contended"
 *        or  SpinCount == 0
 *            and (AcquireCount - ContentionCount) % AcquireSampleRate == 0       "acquire_sample"
 *
 * The counters are the processor's PRCB counters (ULONG) at the release;
 * the reason reported is the first test that holds, in that order.
 */
#ifndef PRODUCER_TRACE_SINK_H
#define PRODUCER_TRACE_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/records/control.h"
#include "producer/records/cswitch.h"
#include "producer/records/dpc.h"
#include "producer/records/image.h"
#include "producer/records/process.h"
#include "producer/records/profile.h"
#include "producer/records/ready.h"
#include "producer/records/stack.h"
#include "producer/records/spinlock.h"
#include "producer/records/sysconfig.h"
#include "producer/records/thread.h"

/* Clock types, indexed like ReservedFlags (1 QPC, 2 system time, 3 cycles). */
enum sim_clock {
	SIM_CLOCK_QPC = 1,
	SIM_CLOCK_SYSTIME = 2,
	SIM_CLOCK_CYCLES = 3,
};
#define SIM_CLOCK_SLOTS 4 /* ts[] is indexed by enum sim_clock; slot 0 unused */

#define SIM_MAX_SESSIONS 8  /* system loggers */
#define SIM_MAX_COUNTERS 16 /* distinct PMC sources across all sessions */
#define SIM_MAX_PMC	 7  /* counters one event can carry (3-bit count) */

/*
 * A struct's members from its table (producer/records/): one per F row, an
 * array for the fields that are one per clock (TS) or machine counter (PMC).
 */
#define SIM_MEMBER(x, name, ctype, how, ...) ctype name SIM_DIM_##how;
#define SIM_DIM_TS			     [SIM_CLOCK_SLOTS]
#define SIM_DIM_PMC			     [SIM_MAX_COUNTERS]
#define SIM_DIM_U
#define SIM_DIM_I
#define SIM_DIM_CPU
#define SIM_DIM_PEBS
#define SIM_DIM_ADDR
#define SIM_DIM_BOOL
#define SIM_DIM_WHY
#define SIM_DIM_STR
#define SIM_DIM_GROUP
#define SIM_DIM_EVENT
#define SIM_DIM_CLOCK
#define SIM_DIM_SID
#define SIM_DIM_TEXT
#define SIM_DIM_BUF
#define SIM_NO_CHECK(x, name)

/**
 * struct sim_cswitch - one context switch, as the kernel's
 * EtwTraceContextSwap sees it: its members, their ranges and their place
 * in the truth line are SIM_CSWITCH_FIELDS (producer/records/cswitch.h).
 */
struct sim_cswitch {
	SIM_CSWITCH_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};

/** enum sim_spin_why - why a release was (or was not) logged. */
enum sim_spin_why {
	SIM_SPIN_NONE = 0,
	SIM_SPIN_HOLD,
	SIM_SPIN_CONTENDED,
	SIM_SPIN_ACQUIRE_SAMPLE,
};

/**
 * struct sim_spinlock - one spin-lock release (logged or not): its members
 * are SIM_SPINLOCK_FIELDS (producer/records/spinlock.h).
 */
struct sim_spinlock {
	SIM_SPINLOCK_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};

/**
 * struct sim_ccswap_stop - EtwpCCSwapStop for one clock type (a group-mask
 * update or a trace flush): every CPU's pending batch of that clock is
 * written at its next context switch. An etwforge extension of the truth
 * schema ("kind":"ccswap_stop").
 */
struct sim_ccswap_stop {
	uint32_t tick;
	uint64_t ts[SIM_CLOCK_SLOTS];
	enum sim_clock clock;
};

/** struct sim_end - end of tracing: pending batches are flushed at @ts. */
struct sim_end {
	uint32_t tick;
	uint64_t ts[SIM_CLOCK_SLOTS];
};

/**
 * enum sim_event - which event of a record's family a line is (the truth's
 * "event"): Process/Thread Start, End, DCStart (rundown at the start), DCEnd
 * (rundown at the stop), Process Defunct; profile interval Set, DCStart,
 * DCEnd; group masks new (0x0005) or end (0x0020, the previous masks).
 */
enum sim_event {
	SIM_EVENT_START = 0,
	SIM_EVENT_END,
	SIM_EVENT_DCSTART,
	SIM_EVENT_DCEND,
	SIM_EVENT_DEFUNCT,
	SIM_EVENT_SET,
	SIM_EVENT_NEW,
	SIM_EVENT_LOAD,
	SIM_EVENT_UNLOAD,
	SIM_EVENT_KERNEL_BASE,
	SIM_EVENT_HYPERCALL_PAGE,
	SIM_EVENT_PROFILE,
	SIM_EVENT_CSWITCH,
	SIM_EVENT_READY_THREAD,
	SIM_EVENT_DPC,		/* DPC 0x0F44 */
	SIM_EVENT_TIMER_DPC,	/* TimerDPC 0x0F45 */
	SIM_EVENT_THREADED_DPC, /* ThreadedDPC 0x0F42 */
	SIM_EVENT_ISR,		/* ISR 0x0F43 */
	SIM_EVENTS,
};

/* The events each family has (the EVENT column's "hi": a set of 1 << event). */
#define SIM_EV_BIT(e) (1u << (e))
#define SIM_EV_PROCESS                                                                             \
	(SIM_EV_BIT(SIM_EVENT_START) | SIM_EV_BIT(SIM_EVENT_END) | SIM_EV_BIT(SIM_EVENT_DCSTART) | \
	 SIM_EV_BIT(SIM_EVENT_DCEND) | SIM_EV_BIT(SIM_EVENT_DEFUNCT))
#define SIM_EV_THREAD                                                                              \
	(SIM_EV_BIT(SIM_EVENT_START) | SIM_EV_BIT(SIM_EVENT_END) | SIM_EV_BIT(SIM_EVENT_DCSTART) | \
	 SIM_EV_BIT(SIM_EVENT_DCEND))
#define SIM_EV_INTERVAL                                                                            \
	(SIM_EV_BIT(SIM_EVENT_SET) | SIM_EV_BIT(SIM_EVENT_DCSTART) | SIM_EV_BIT(SIM_EVENT_DCEND))
#define SIM_EV_MASKS (SIM_EV_BIT(SIM_EVENT_NEW) | SIM_EV_BIT(SIM_EVENT_END))
#define SIM_EV_IMAGE                                                                               \
	(SIM_EV_BIT(SIM_EVENT_LOAD) | SIM_EV_BIT(SIM_EVENT_UNLOAD) |                               \
	 SIM_EV_BIT(SIM_EVENT_DCSTART) | SIM_EV_BIT(SIM_EVENT_DCEND) |                             \
	 SIM_EV_BIT(SIM_EVENT_KERNEL_BASE) | SIM_EV_BIT(SIM_EVENT_HYPERCALL_PAGE))
#define SIM_EV_STACK                                                                               \
	(SIM_EV_BIT(SIM_EVENT_PROFILE) | SIM_EV_BIT(SIM_EVENT_CSWITCH) |                           \
	 SIM_EV_BIT(SIM_EVENT_READY_THREAD))
#define SIM_EV_DPC                                                                                 \
	(SIM_EV_BIT(SIM_EVENT_DPC) | SIM_EV_BIT(SIM_EVENT_TIMER_DPC) |                             \
	 SIM_EV_BIT(SIM_EVENT_THREADED_DPC) | SIM_EV_BIT(SIM_EVENT_ISR))

/**
 * sim_event_name - "start", "end", "dcstart", "dcend", "defunct", "set", "new",
 * "load", "unload", "kernel_base", "hypercall_page", and the events a stack
 * belongs to, "profile", "cswitch", "ready_thread", and the DPC and ISR
 * records', "dpc", "timer_dpc", "threaded_dpc", "isr"; NULL past them.
 */
static inline const char *sim_event_name(enum sim_event e)
{
	static const char *const names[SIM_EVENTS] = {
		"start",   "end",	   "dcstart", "dcend",	     "defunct",	       "set",
		"new",	   "load",	   "unload",  "kernel_base", "hypercall_page", "profile",
		"cswitch", "ready_thread", "dpc",     "timer_dpc",   "threaded_dpc",   "isr",
	};

	return (unsigned)e < SIM_EVENTS ? names[e] : NULL;
}

/*
 * The identity and rundown records (producer/records/process.h, thread.h,
 * ready.h, profile.h, sysconfig.h): what the machine tells the logging code
 * about processes, threads, wake-ups, samples and itself. Each goes to the
 * sessions whose flags ask for it (producer.h): process, thread and
 * thread_name to proc_thread sessions, ready to dispatcher ones, sample and
 * interval to profile ones, masks and rundown to sessions with a rundown
 * (proc_thread or profile), cpu_config to every session; image
 * (producer/records/image.h) to loader sessions; stack
 * (producer/records/stack.h) to the sessions whose stacks option names its
 * event; dpc (producer/records/dpc.h) to dpc sessions, an ISR's to
 * interrupt ones.
 */
struct sim_process {
	SIM_PROCESS_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_thread {
	SIM_THREAD_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_thread_name {
	SIM_THREAD_SET_NAME_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_ready {
	SIM_READY_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_sample {
	SIM_PROFILE_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_interval {
	SIM_PROFILE_INTERVAL_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_cpu_config {
	SIM_CPU_CONFIG_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_masks {
	SIM_GROUP_MASKS_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_rundown {
	SIM_RUNDOWN_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
struct sim_image {
	SIM_IMAGE_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};
/*
 * A stack line's frames either as its text (@frames, what a truth holds) or,
 * from the model, as @ips[@nips] with @frames NULL: the producer encodes the
 * addresses, the truth writer prints them as @frames.
 */
struct sim_stack {
	SIM_STACK_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
	const uint64_t *ips;
	uint32_t nips;
};
struct sim_dpc {
	SIM_DPC_FIELDS(SIM_MEMBER, SIM_NO_CHECK, )
};

/* enum sim_record_kind - which member of struct sim_record's union holds the record. */
enum sim_record_kind {
	SIM_REC_PROCESS = 0,
	SIM_REC_THREAD,
	SIM_REC_THREAD_NAME,
	SIM_REC_READY,
	SIM_REC_SAMPLE,
	SIM_REC_INTERVAL,
	SIM_REC_CPU_CONFIG,
	SIM_REC_MASKS,
	SIM_REC_RUNDOWN,
	SIM_REC_IMAGE,
	SIM_REC_STACK,
	SIM_REC_DPC,
	SIM_RECORD_KINDS,
};

/**
 * struct sim_record - one identity or rundown record. Every member starts
 * with cpu (whose buffer it goes to) and ts (each clock's value); the
 * strings are borrowed for the call.
 */
struct sim_record_head {
	uint32_t cpu;
	uint64_t ts[SIM_CLOCK_SLOTS];
};

struct sim_record {
	enum sim_record_kind kind;
	union {
		struct sim_record_head head; /* the members' common start */
		struct sim_process process;
		struct sim_thread thread;
		struct sim_thread_name thread_name;
		struct sim_ready ready;
		struct sim_sample sample;
		struct sim_interval interval;
		struct sim_cpu_config cpu_config;
		struct sim_masks masks;
		struct sim_rundown rundown;
		struct sim_image image;
		struct sim_stack stack;
		struct sim_dpc dpc;
	} u;
};

/**
 * struct trace_sink_ops - receivers of the machine's records. Each returns
 * 0 or a negative errno that stops the run (a write error, a bad record).
 * Lost events are not errors: the producer counts them.
 */
struct trace_sink_ops {
	int (*cswitch)(void *ctx, const struct sim_cswitch *cs);
	int (*spinlock)(void *ctx, const struct sim_spinlock *sl);
	int (*ccswap_stop)(void *ctx, const struct sim_ccswap_stop *st);
	int (*end)(void *ctx, const struct sim_end *end);
	int (*record)(void *ctx, const struct sim_record *r);
};

struct trace_sink {
	const struct trace_sink_ops *ops;
	void *ctx;
};

/* ---- spin-lock sampling (producer/spin_sample.c) ----------------------- */

/* The kernel's defaults (KERNEL_FACTS 6.3). */
#define SPIN_DEFAULT_SPIN_THRESHOLD	    1u
#define SPIN_DEFAULT_ACQUIRE_SAMPLE_RATE    1000u
#define SPIN_DEFAULT_CONTENTION_SAMPLE_RATE 1u
#define SPIN_DEFAULT_HOLD_THRESHOLD	    1000000u

/* Set-time minimums (STATUS_INVALID_PARAMETER below them). */
#define SPIN_MIN_ACQUIRE_SAMPLE_RATE 1000u
#define SPIN_MIN_HOLD_THRESHOLD	     1000000u /* or 0: off */

/**
 * struct spin_sampling - EVENT_TRACE_SPINLOCK_INFORMATION's parameters.
 * @spin_threshold:         a release with SpinCount >= this is "contended" (>= 1)
 * @acquire_sample_rate:    1 in this many uncontended acquisitions (>= 1000)
 * @contention_sample_rate: 1 in this many contended ones (>= 1)
 * @hold_threshold:         cycles held; 0 = off, else >= 1000000
 */
struct spin_sampling {
	uint32_t spin_threshold;
	uint32_t acquire_sample_rate;
	uint32_t contention_sample_rate;
	uint32_t hold_threshold;
};

/** spin_sampling_defaults - the kernel's defaults: 1, 1000, 1, 1000000. */
void spin_sampling_defaults(struct spin_sampling *p);

/**
 * spin_sampling_check - the kernel's set-time rules.
 * Return: 0, or -EINVAL with *@why naming the parameter and its rule.
 */
int spin_sampling_check(const struct spin_sampling *p, const char **why);

/**
 * struct spin_prcb - the processor's counters at a release.
 * @acquire_count:    SpinLockAcquireCount (every acquisition, at its query)
 * @contention_count: SpinLockContentionCount (contended ones, once acquired)
 */
struct spin_prcb {
	uint32_t acquire_count;
	uint32_t contention_count;
};

/**
 * spin_sample - the predicate above for one release.
 * Return: SIM_SPIN_HOLD, SIM_SPIN_CONTENDED, SIM_SPIN_ACQUIRE_SAMPLE, or
 * SIM_SPIN_NONE (not logged).
 */
enum sim_spin_why spin_sample(const struct spin_sampling *p, const struct spin_prcb *prcb,
			      uint64_t acquire_time, uint64_t release_time, uint32_t spin_count);

#endif /* PRODUCER_TRACE_SINK_H */
