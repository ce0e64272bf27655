/* SPDX-License-Identifier: MIT */
/*
 * producer/producer.h - the NT Kernel Logger's logging code for context
 * switches and spin locks: system-logger sessions, the per-CPU x per-clock
 * compact CSwitch batches with the kernel's flush rules, plain CSwitch and
 * SpinLock events with PEBS/PMC items, fan-out to each session's backend.
 *
 * Allocation happens only in producer_create(); the event path
 * (producer_cswitch() and friends) neither allocates nor does I/O.
 */
#ifndef PRODUCER_PRODUCER_H
#define PRODUCER_PRODUCER_H

#include <stdbool.h>
#include <stdint.h>

#include "writer/backend.h"
#include "producer/etw_encode.h"
#include "producer/flush_reason.h"
#include "producer/targets.h"
#include "producer/trace_sink.h"

/* Session flags (the group-mask bits that matter here, KERNEL_FACTS 5.1, 6). */
#define PRODUCER_F_CSWITCH  0x1u /* PERF_CONTEXT_SWITCH 0x20000004 */
#define PRODUCER_F_COMPACT  0x2u /* PERF_COMPACT_CSWITCH 0x20000100 */
#define PRODUCER_F_SPINLOCK 0x4u /* PERF_SPINLOCK 0x20010000 */
/* The identity records (RUNDOWN_FACTS 7.1): EnableFlags PROCESS|THREAD, DISPATCHER, PROFILE. */
#define PRODUCER_F_PROC_THREAD 0x8u  /* Masks[0] 0x3: 0x0301-0x0304, 0x0501-0x0504, 0x0548 */
#define PRODUCER_F_DISPATCHER  0x10u /* Masks[1] 0x200: 0x0532 */
#define PRODUCER_F_PROFILE     0x20u /* Masks[1] 0x2: 0x0F2E, 0x0F48-0x0F4A */
/* The image records (STACK_IMAGE_FACTS 2): EnableFlags IMAGE_LOAD, xperf's LOADER. */
#define PRODUCER_F_LOADER 0x40u /* Masks[0] 0x4: 0x030A, 0x1402-0x1404, 0x1421/0x1422 */
/*
 * Stack walks (STACK_IMAGE_FACTS 3.7): no mask bit, asked per event (xperf
 * -stackwalk, TraceStackTracingInfo). StackWalk 0x1820 after each event of
 * the kinds named: SampledProfile, CSwitch, ReadyThread.
 */
#define PRODUCER_F_STACK_PROFILE 0x80u
#define PRODUCER_F_STACK_CSWITCH 0x100u
#define PRODUCER_F_STACK_READY	 0x200u
/*
 * The file as a merge leaves it (xperf -merge, PerfView; STACK_IMAGE_FACTS
 * 6): the KernelTraceControl identity of each image (ImageID, then
 * DbgID_RSDS or None, FULL_HEADER, the image event's time) right before
 * each image record. No mask bit: the merge adds them after the fact.
 */
#define PRODUCER_F_MERGED 0x400u
/*
 * DPC and ISR time (STACK_IMAGE_FACTS 5, 7): EnableFlags DPC 0x20 and
 * INTERRUPT 0x40, xperf's DPC and INTERRUPT.
 */
#define PRODUCER_F_DPC	     0x800u  /* Masks[1] 0x80 PERF_DPC: 0x0F42, 0x0F44, 0x0F45 */
#define PRODUCER_F_INTERRUPT 0x1000u /* Masks[1] 0x4000 PERF_INTERRUPT: 0x0F43 */
#define PRODUCER_F_STACKS                                                                          \
	(PRODUCER_F_STACK_PROFILE | PRODUCER_F_STACK_CSWITCH | PRODUCER_F_STACK_READY)

/**
 * producer_stamps - the one PMC-stamping policy (KERNEL_FACTS 3.2, 9): does
 * a session with @flags (PRODUCER_F_*) and @pebs, whose ProfileEventList is
 * @events[@nevents], put its PMC counter items on the events it logs with
 * @hook? It logs 0x0524 with cswitch and not compact_cswitch, 0x0525 with
 * both, 0x0529 with spinlock; it stamps the hooks its list names, except
 * 0x0524 when it has PEBS: the kernel's PEBS item wins there, unless
 * @pebs_and_pmc asks for both. (A session without counters stamps zero
 * items: callers check the count.)
 */
bool producer_stamps(unsigned flags, bool pebs, const uint16_t *events, unsigned nevents,
		     bool pebs_and_pmc, uint16_t hook);

/**
 * struct producer_session - one system logger.
 * @name:        LoggerName (borrowed)
 * @clock:       its clock type
 * @flags:       PRODUCER_F_*
 * @pebs:        PEBS index item on 0x0524 (PebsTracing)
 * @pmc_count:   counters per stamped event (0..7)
 * @pmc_ids:     which machine counters (index into sim_cswitch.pmc), in order
 * @pmc_events:  hook ids that get the PMC item (ProfileEventList, <= 4)
 * @pmc_event_count: entries in @pmc_events
 * @stack_cache: stack caching (producer/stack_cache.h): entries per CPU, a
 *               multiple of 4 up to 16384; 0 logs every stack as StackWalk
 * @backend/@backend_ctx: its buffers (writer/backend.h; writer_backend_ops())
 */
struct producer_session {
	const char *name;
	enum sim_clock clock;
	unsigned flags;
	bool pebs;
	unsigned pmc_count;
	uint8_t pmc_ids[SIM_MAX_PMC];
	uint16_t pmc_events[4];
	unsigned pmc_event_count;
	unsigned stack_cache;
	const struct etl_backend_ops *backend;
	void *backend_ctx;
};

/**
 * struct producer_cfg - the machine as the logging code sees it.
 * @arch:            x64 / x86 (PERFINFO64 / PERFINFO32 markers, WMI_SPINLOCK size)
 * @cpus:            processors (1..1024)
 * @cswitch_version: 0x0524 event version: 2 (<= 1607) or 4 (>= 1709)
 * @max_wait_reason: the target's MaximumWaitReason: the OldThreadStateWr bias
 * @quirks:          reproduce the kernel's table quirks (default true)
 * @pebs_and_pmc:    on 0x0524 emit both PEBS and PMC items (PEBS first) when
 *                   a session has both; the kernel emits only PEBS (fuzzing aid)
 * @flush_at_end:    write pending batches at the end of tracing with TS = end
 *                   (default true); false drops them, as a restart would
 * @spin:            the spin-lock sampling parameters, for the configuration
 *                   rundown of spin-lock sessions (producer_start, _end)
 * @target:          the Windows build: the identity records' versions and
 *                   header forms, the kernel event version of the masks
 */
struct producer_cfg {
	enum etl_arch arch;
	unsigned cpus;
	uint8_t cswitch_version;
	uint8_t max_wait_reason;
	bool quirks;
	bool pebs_and_pmc;
	bool flush_at_end;
	struct spin_sampling spin;
	const struct etw_target *target;
	unsigned nsessions;
	struct producer_session sessions[SIM_MAX_SESSIONS];
};

/** struct producer_stats - what was logged; lost events are counted, never hidden. */
struct producer_stats {
	uint64_t switches;
	uint64_t spinlocks;		 /* releases seen */
	uint64_t cswitch_events;	 /* 0x0524 events offered to backends */
	uint64_t spinlock_events;	 /* 0x0529 events offered */
	uint64_t spinlock_config_events; /* 0x0F4B / 0x0F4C events written */
	uint64_t batches;		 /* 0x0525 batches closed (per CPU x clock) */
	uint64_t batch_events;		 /* 0x0525 events offered (x sessions) */
	uint64_t batch_records;		 /* compact records in closed batches */
	uint64_t batches_by_reason[PRODUCER_FLUSH_REASONS];
	uint64_t batches_dropped;	    /* pending at end with flush_at_end false */
	uint64_t events_lost;		    /* backend said -ENOBUFS */
	uint64_t records[SIM_RECORD_KINDS]; /* identity / rundown events written (x sessions) */
};

struct producer;

/**
 * producer_create - validate @cfg and allocate one batch block per
 * (CPU, clock type used by a compact session).
 * Return: the producer, or NULL with errno EINVAL (bad cfg) or ENOMEM.
 */
struct producer *producer_create(const struct producer_cfg *cfg);

/** producer_destroy - free. NULL is a no-op. */
void producer_destroy(struct producer *p);

/**
 * producer_cswitch - log one context switch (EtwTraceContextSwap).
 * Return: 0 (lost events included: counted), -EINVAL (cpu out of range),
 * -E2BIG or -EIO from a backend.
 */
int producer_cswitch(struct producer *p, const struct sim_cswitch *cs);

/** producer_spinlock - log a release if sl->logged, for spinlock sessions. Return: as above. */
int producer_spinlock(struct producer *p, const struct sim_spinlock *sl);

/** producer_ccswap_stop - set the stop flag of every CPU's block of @st->clock. */
int producer_ccswap_stop(struct producer *p, const struct sim_ccswap_stop *st);

/**
 * producer_start - tracing starts at @start_ts (each clock's value): the
 * spin-lock configuration rundown (0x0F4B) of every spin-lock session.
 * Call once, before the first record. Return: as producer_cswitch.
 */
int producer_start(struct producer *p, const uint64_t start_ts[SIM_CLOCK_SLOTS]);

/**
 * producer_end - end of tracing: flush (or drop, see flush_at_end) every
 * pending batch, header TS = @end->ts of its clock, then the spin-lock
 * configuration rundown (0x0F4C), then the stack keys still cached
 * (KeyRundown 0x1824) of each session with stack caching, in each CPU's
 * buffer. Return: as producer_cswitch.
 */
int producer_end(struct producer *p, const struct sim_end *end);

/**
 * producer_group_masks - PERFINFO_GROUPMASK (the eight dwords of 0x0005 and
 * 0x0020) of a session with @flags (PRODUCER_F_*).
 */
void producer_group_masks(unsigned flags, uint32_t masks[8]);

/**
 * producer_record_flags - the session flags that want a record of @kind
 * (any one of them will do); every bit for the records every session gets.
 */
unsigned producer_record_flags(enum sim_record_kind kind);

/**
 * producer_stack_flag - the session flag that wants the stacks of @ev
 * (SIM_EVENT_PROFILE, _CSWITCH, _READY_THREAD); 0 for another event.
 */
unsigned producer_stack_flag(enum sim_event ev);

/**
 * producer_dpc_flag - the session flag that logs a dpc record of event @ev:
 * PRODUCER_F_INTERRUPT for SIM_EVENT_ISR, PRODUCER_F_DPC for the DPCs, 0
 * for another event.
 */
unsigned producer_dpc_flag(enum sim_event ev);

/**
 * producer_stack_frames - the addresses of a stack line's @text ("0x..."
 * separated by single spaces) into @out[@cap]. Return: how many (1 ..
 * @cap), or -EINVAL (empty, not such a list, more than @cap, or on @x86 an
 * address above 32 bits).
 */
int producer_stack_frames(const char *text, bool x86, uint64_t *out, size_t cap);

/**
 * producer_record_hook - the hook a record of @kind with event @ev is
 * written with (the event matters for process, thread, interval and masks
 * records). Return: the hook, or 0 for an event the family does not have.
 */
uint16_t producer_record_hook(enum sim_record_kind kind, enum sim_event ev);

struct etw_image;
struct etw_event_form;

/**
 * producer_image_form - the header form and version @t writes image record
 * @im with (a kernel module's rundown SYSTEM, a process's PERFINFO).
 * Return: 0 or -EINVAL (an event images do not have).
 */
int producer_image_form(const struct etw_target *t, const struct sim_image *im,
			struct etw_event_form *form);

/**
 * producer_image_payload - the WMI_IMAGELOAD_INFORMATION @t writes for @im
 * (its FileName left empty): TimeDateStamp 0 in a process's DCStart/DCEnd,
 * no signature bytes before version 3. Return: 0.
 */
int producer_image_payload(const struct etw_target *t, const struct sim_image *im,
			   struct etw_image *w);

/**
 * producer_record - log an identity or rundown record (trace_sink.h says
 * which sessions get it) into its CPU's buffer of each, with the header
 * form and version of cfg.target.
 * Return: as producer_cswitch, or -EINVAL for a record the encoders refuse
 * (a string that is not UTF-8, a SID that does not parse).
 */
int producer_record(struct producer *p, const struct sim_record *r);

/*
 * Lanes: the producer fed by several threads, each with a share of the CPUs
 * (lane k: the CPUs c with c % n == k), in the same order a single feeder
 * would give each CPU's records. Each lane keeps its own counters and pool
 * clocks; the CPUs' batch blocks and buffers are only ever touched by their
 * lane. The writers behind must defer (writer_defer()), and each record's
 * order key is told first (producer_lane_key()).
 */
struct producer_lane;

/** producer_lanes - make @n lanes (once). Return: 0, -EINVAL, -ENOMEM. */
int producer_lanes(struct producer *p, unsigned n);

/** producer_lane - lane @k (past the lanes: the producer's own, that of producer_cswitch()). */
struct producer_lane *producer_lane(struct producer *p, unsigned k);

/** producer_lane_key - the order key of the record @l logs next (etl_buf.key of a buffer it fills). */
void producer_lane_key(struct producer_lane *l, uint64_t key);

/* As producer_cswitch(), producer_spinlock(), producer_record(), for lane @l's CPUs. */
int producer_lane_cswitch(struct producer_lane *l, const struct sim_cswitch *cs);
int producer_lane_spinlock(struct producer_lane *l, const struct sim_spinlock *sl);
int producer_lane_record(struct producer_lane *l, const struct sim_record *r);
/** producer_lane_stop - producer_ccswap_stop() for lane @l's CPUs. */
int producer_lane_stop(struct producer_lane *l, const struct sim_ccswap_stop *st);

/**
 * producer_clock_max - session @i's pool clock over every lane (the
 * largest timestamp logged to it), which the producer's own lane then
 * goes on from.
 */
uint64_t producer_clock_max(struct producer *p, unsigned i);

/* What a record is, for producer_event_max(). */
enum producer_event_of {
	PRODUCER_OF_CSWITCH = 0,
	PRODUCER_OF_SPINLOCK,
	PRODUCER_OF_RECORD, /* an identity or rundown record */
};

/**
 * producer_event_max - the most bytes session @i's buffer of a CPU takes
 * for one record of @of on it (0: none), alignment included.
 */
uint32_t producer_event_max(const struct producer *p, unsigned i, enum producer_event_of of);

/** producer_get_stats - counters so far, over every lane. */
void producer_get_stats(const struct producer *p, struct producer_stats *st);

/** producer_sink - a trace_sink that feeds @p. */
struct trace_sink producer_sink(struct producer *p);

#endif /* PRODUCER_PRODUCER_H */
