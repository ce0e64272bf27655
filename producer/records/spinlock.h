/* SPDX-License-Identifier: MIT */
/*
 * producer/records/spinlock.h - the spin-lock release and the spin-lock
 * configuration rundown, described once (the columns are those of
 * producer/records/cswitch.h):
 *
 * SIM_SPINLOCK_FIELDS(F, C, x) - struct sim_spinlock, one release (logged or
 * not), and the truth's "spinlock" line, in the line's order.
 *
 * ETW_SPINLOCK_FIELDS(F, x) - WMI_SPINLOCK, the payload of a 0x0529 event,
 * as struct etwforge_spinlock: from the decoder's struct etw_spinlock *w,
 * verify's want from the truth's struct sim_spinlock *sl (mask: the
 * pointer size's), back from the public o to sl. verify's messages give
 * the record's offset (the payload's layout depends on the pointer size).
 *
 * ETW_SPINLOCK_CONFIG_FIELDS(F, x) - PERFINFO_SPINLOCK_CONFIG, the payload
 * of the rundown 0x0F4B / 0x0F4C, as struct etwforge_spinlock_config: from
 * struct etw_spinlock_config *w, verify's want from the truth's sampling
 * parameters (struct spin_sampling *spin, the meta line's), back to the
 * mutator's struct spin_sampling *sp.
 */
#ifndef PRODUCER_RECORDS_SPINLOCK_H
#define PRODUCER_RECORDS_SPINLOCK_H

#define SIM_IRQL_MAX	  31
#define SIM_SPIN_MODE_MAX 0x3F /* AcquireMode bits (etw_encode_spinlock) */

/* clang-format off */
#define SIM_SPINLOCK_FIELDS(F, C, x)                                                               \
	F(x, cpu,              uint32_t,          CPU,  0, 0,                 REQ,  0, ALWAYS)     \
	F(x, tick,             uint32_t,          U,    0, UINT32_MAX,        LAST, 0, ALWAYS)     \
	F(x, ts,               uint64_t,          TS,   0, 0,                 REQ,  0, ALWAYS)     \
	F(x, lock,             uint64_t,          ADDR, 0, 0,                 REQ,  0, ALWAYS)     \
	F(x, caller,           uint64_t,          ADDR, 0, 0,                 REQ,  0, ALWAYS)     \
	/* rdtsc cycles, whatever the clock type */                                                \
	F(x, acquire_time,     uint64_t,          U,    0, INT64_MAX,         OPT,  0, ALWAYS)     \
	F(x, release_time,     uint64_t,          U,    0, INT64_MAX,         OPT,  0, ALWAYS)     \
	/* AcquireTime - T0; WaitTimeInCycles keeps 32 bits */                                     \
	F(x, wait_cycles,      uint64_t,          U,    0, INT64_MAX,         OPT,  0, ALWAYS)     \
	F(x, spin_count,       uint32_t,          U,    0, UINT32_MAX,        OPT,  0, ALWAYS)     \
	F(x, tid,              uint32_t,          U,    0, UINT32_MAX,        OPT,  0, ALWAYS)     \
	F(x, interrupt_count,  uint32_t,          U,    0, UINT32_MAX,        OPT,  0, ALWAYS)     \
	F(x, irql,             uint8_t,           U,    0, SIM_IRQL_MAX,      OPT,  0, ALWAYS)     \
	F(x, depth,            uint8_t,           U,    1, UINT8_MAX,         OPT,  1, ALWAYS)     \
	F(x, mode,             uint8_t,           U,    0, SIM_SPIN_MODE_MAX, OPT,  0, ALWAYS)     \
	F(x, dpc,              bool,              BOOL, 0, 1,                 OPT,  0, ALWAYS)     \
	F(x, isr,              bool,              BOOL, 0, 1,                 OPT,  0, ALWAYS)     \
	F(x, logged,           bool,              BOOL, 0, 1,                 REQ,  0, ALWAYS)     \
	/* why a release was (or was not) logged */                                                \
	F(x, why,              enum sim_spin_why, WHY,  0, 0,                 OPT,  0, ALWAYS)     \
	/* the lock family's name (NULL: unknown) */                                               \
	F(x, name,             const char *,      STR,  0, 0,                 OPT,  0, SET)        \
	/* the CPU's PRCB counters at the release (what the sampling predicate read) */            \
	F(x, acquire_count,    uint32_t,          U,    0, UINT32_MAX,        OPT,  0, ROWS)       \
	F(x, contention_count, uint32_t,          U,    0, UINT32_MAX,        OPT,  0, ROWS)       \
	/* acquired past the 8-deep stack: the kernel logs nothing */                              \
	F(x, untracked,        bool,              BOOL, 0, 1,                 OPT,  0, TRUE)       \
	/* released inside the logger (re-entrancy guard): not logged */                           \
	F(x, guarded,          bool,              BOOL, 0, 1,                 OPT,  0, TRUE)       \
	F(x, pmc,              uint64_t,          PMC,  0, INT64_MAX,         OPT,  0, ALWAYS)

#define ETW_SPINLOCK_FIELDS(F, x)                                                                  \
	F(x, lock, uint64_t, HEX, 1, 1, w->lock_address, 0, "SpinLockAddress", 1, sl->lock & mask, \
	  sl->lock = o->lock)                                                                      \
	F(x, caller, uint64_t, HEX, 1, 1, w->caller_address, 0, "CallerAddress", 1,                \
	  sl->caller & mask, sl->caller = o->caller)                                               \
	F(x, acquire_time, uint64_t, U, 1, 1, w->acquire_time, 0, "AcquireTime", 1,                \
	  sl->acquire_time, sl->acquire_time = o->acquire_time)                                    \
	F(x, release_time, uint64_t, U, 1, 1, w->release_time, 0, "ReleaseTime", 1,                \
	  sl->release_time, sl->release_time = o->release_time)                                    \
	/* the wire keeps the low 32 bits */                                                       \
	F(x, wait_cycles, uint32_t, U, 1, 1, w->wait_cycles, 0, "WaitTimeInCycles", 1,             \
	  (uint32_t)sl->wait_cycles, sl->wait_cycles = o->wait_cycles)                             \
	F(x, spin_count, uint32_t, U, 1, 1, w->spin_count, 0, "SpinCount", 1, sl->spin_count,      \
	  sl->spin_count = o->spin_count)                                                          \
	F(x, tid, uint32_t, U, 1, 1, w->tid, 0, "ThreadId", 1, sl->tid, sl->tid = o->tid)          \
	F(x, interrupt_count, uint32_t, U, 1, 1, w->interrupt_count, 0, "InterruptCount", 1,       \
	  sl->interrupt_count, sl->interrupt_count = o->interrupt_count)                           \
	F(x, irql, uint8_t, U, 1, 1, w->irql, 0, "Irql", 1, sl->irql, sl->irql = o->irql)          \
	F(x, depth, uint8_t, U, 1, 1, w->depth, 0, "AcquireDepth", 1, sl->depth,                   \
	  sl->depth = o->depth)                                                                    \
	F(x, mode, uint8_t, U, 1, 1, w->acquire_mode, 0, "AcquireMode", 1, sl->mode,               \
	  sl->mode = o->mode)                                                                      \
	F(x, dpc, bool, BOOL, 1, 1, w->execute_dpc, 0, "ExecuteDpc", 1, sl->dpc, sl->dpc = o->dpc) \
	F(x, isr, bool, BOOL, 1, 1, w->execute_isr, 0, "ExecuteIsr", 1, sl->isr, sl->isr = o->isr)

#define ETW_SPINLOCK_CONFIG_FIELDS(F, x)                                                           \
	F(x, spin_threshold, uint32_t, U, 1, 1, w->spin_threshold, 0, "SpinLockSpinThreshold", 1,  \
	  spin->spin_threshold, sp->spin_threshold = o->spin_threshold)                            \
	F(x, contention_sample_rate, uint32_t, U, 1, 1, w->contention_sample_rate, 0,              \
	  "SpinLockContentionSampleRate", 1, spin->contention_sample_rate,                         \
	  sp->contention_sample_rate = o->contention_sample_rate)                                  \
	F(x, acquire_sample_rate, uint32_t, U, 1, 1, w->acquire_sample_rate, 0,                    \
	  "SpinLockAcquireSampleRate", 1, spin->acquire_sample_rate,                               \
	  sp->acquire_sample_rate = o->acquire_sample_rate)                                        \
	F(x, hold_threshold, uint32_t, U, 1, 1, w->hold_threshold, 0, "SpinLockHoldThreshold", 1,  \
	  spin->hold_threshold, sp->hold_threshold = o->hold_threshold)
/* clang-format on */

#endif /* PRODUCER_RECORDS_SPINLOCK_H */
