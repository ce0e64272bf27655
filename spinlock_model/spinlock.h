/* SPDX-License-Identifier: MIT */
/*
 * spinlock_model/spinlock.h - the simulated spin-lock subsystem: families
 * of locks taken by thread groups (at DISPATCH_LEVEL), DPCs and ISRs on
 * every CPU, in the five acquire modes of KERNEL_FACTS 2, nested as the
 * scenario says. It attaches to the simulation core (scheduler_model/sim.h)
 * and runs in its time:
 *
 *   arrivals   each CPU: Poisson, rate = sum of the families' rates / cpus;
 *              an arrival picks a family (by rate), then one of its takers
 *   a section  query (T0, PRCB counters) -> acquire: at once if the lock is
 *              free, else spin until its holder hands it over -> hold (its
 *              own work, and inside it each nested family once) -> release:
 *              the per-CPU stack of 8, the sampling predicate
 *              (producer/trace_sink.h), a struct sim_spinlock to the sink
 *   the CPU    a thread that holds or spins is not switched out (the core
 *              asks ops->busy); a DPC waits until the CPU is free of lock
 *              work; an ISR interrupts a holder below its IRQL (not a
 *              spinner), which makes the hold longer and the interrupts count
 *
 * Contention is not drawn: a lock is contended when another CPU holds it
 * (exclusively, for a shared acquisition) at the moment of acquisition.
 * Integer arithmetic and the core's seeded RNG only: the same scenario and
 * seed give the same releases anywhere.
 */
#ifndef SPINLOCK_MODEL_SPINLOCK_H
#define SPINLOCK_MODEL_SPINLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/trace_sink.h"
#include "scheduler_model/sched.h"

#define SPIN_MAX_LOCKS	 256  /* lock families */
#define SPIN_MAX_COUNT	 4096 /* instances of one family */
#define SPIN_MAX_NESTED	 8    /* families taken inside one */
#define SPIN_MAX_CHAIN	 12   /* longest chain of nested families */
#define SPIN_NAME_MAX	 64
#define SPIN_STACK_DEPTH 8 /* the PRCB's acquire stack (KERNEL_FACTS 6.2) */

/* AcquireMode (KERNEL_FACTS 2). */
enum spin_mode {
	SPIN_MODE_ORDINARY = 0,
	SPIN_MODE_QUEUED = 1,
	SPIN_MODE_SHARED = 2,	 /* executive spin lock, shared */
	SPIN_MODE_EXCLUSIVE = 3, /* executive spin lock, exclusive */
	SPIN_MODE_CONVERTED = 4, /* executive, taken shared then converted to exclusive */
	SPIN_MODES,
};

/* What the model assumes where the kernel does not say (README "Spin locks"). */
#define SPIN_CYCLES_PER_SPIN	140u /* one spin: PAUSE and a test of the lock word */
#define SPIN_ACQUIRE_CYCLES_MIN 20u  /* an uncontended acquisition costs 20..60 cycles */
#define SPIN_ACQUIRE_CYCLES_MAX 60u
#define SPIN_HANDOFF_CYCLES	150u  /* the lock's cache line moving to the next owner */
#define SPIN_LOG_CYCLES		1000u /* logging one 0x0529 (the re-entrancy guard is up) */
#define SPIN_DISPATCH_LEVEL	2u
#define SPIN_DEVICE_IRQL	8u  /* ISRs, and locks taken in them: a device IRQL */
#define SPIN_DPC_QUEUE		64u /* DPCs waiting on one CPU; more are dropped */
#define SPIN_ISR_PENDING	8u  /* interrupts pending on one CPU; more are dropped */

/**
 * struct spin_lock_cfg - a family of @count alike locks.
 * @name:          "ndis!RxQueueLock": the module before '!' places its addresses
 * @per_cpu:       CPU c takes instance c % @count (else a random one)
 * @rate:          arrivals per second over the machine (0: only taken nested)
 * @by_dpc/@by_isr: DPCs / ISRs take it
 * @groups:        bit g: thread group g takes it
 * @hold_ns:       mean of the exponential body of the hold time (own work)
 * @hold_tail_pct: percent of holds drawn from the long tail instead
 * @hold_tail_max_ns: the tail is log-uniform in [@hold_ns, this] (0: 100 x @hold_ns)
 * @mode_weight:   relative weights of the acquire modes (enum spin_mode)
 * @nested:        families taken once each, in order, inside every hold
 */
struct spin_lock_cfg {
	char name[SPIN_NAME_MAX];
	unsigned count;
	bool per_cpu;
	uint64_t rate;
	bool by_dpc;
	bool by_isr;
	uint64_t groups;
	uint64_t hold_ns;
	unsigned hold_tail_pct;
	uint64_t hold_tail_max_ns;
	uint32_t mode_weight[SPIN_MODES];
	unsigned nnested;
	uint16_t nested[SPIN_MAX_NESTED];
};

/**
 * struct spin_cfg - the subsystem.
 * @sampling:     the kernel's sampling parameters
 * @instrumented: a session logs spin locks: releases are sampled and sent
 *                to the sink (else the locks only shape the schedule)
 * @counters:     a session stamps 0x0529 with PMC counters
 * @x86:          32-bit addresses (0x8xxxxxxx), else x64 (0xFFFFF80x...)
 */
struct spin_cfg {
	unsigned nlocks;
	struct spin_lock_cfg locks[SPIN_MAX_LOCKS];
	struct spin_sampling sampling;
	bool instrumented;
	bool counters;
	bool x86;
};

/**
 * spin_cfg_check - ranges, the nesting graph (no cycles, chains of at most
 * SPIN_MAX_CHAIN), takers (a family with a rate needs one), the sampling
 * parameters, @ngroups thread groups.
 * Return: 0 or -EINVAL with *@why a static message and *@lock the family
 * it is about (or -1).
 */
int spin_cfg_check(const struct spin_cfg *cfg, unsigned ngroups, const char **why, int *lock);

/** spin_mode_name - "ordinary", "queued", "shared", "exclusive", "converted" (NULL past them). */
const char *spin_mode_name(unsigned mode);

/** spin_lock_irql - the IRQL family @i is held at: device IRQL if an ISR takes it or a family it nests in. */
unsigned spin_lock_irql(const struct spin_cfg *cfg, unsigned i);

/** spin_lock_address - instance @k of family @i (stable, canonical kernel address). */
uint64_t spin_lock_address(const struct spin_cfg *cfg, unsigned i, unsigned k);

/** spin_caller_address - the return address of call site @site (0 thread, 1 DPC, 2 ISR, 3 nested) of family @i. */
uint64_t spin_caller_address(const struct spin_cfg *cfg, unsigned i, unsigned site);

#define SPIN_HIST_BUCKETS 1024 /* 64 powers of two x 16 steps */

/**
 * struct spin_lock_stats - one family over the run.
 * @acquisitions:  acquired (queries that ended with the lock held)
 * @contended:     of them, the ones that spun
 * @spin_cycles:   sum of WaitTimeInCycles of the contended ones
 * @hold_cycles:   sum of ReleaseTime - AcquireTime over the releases
 * @releases:      releases
 * @logged:        releases logged, by enum sim_spin_why (index 0: not logged)
 * @untracked:     acquisitions past the 8-deep stack (their release logs nothing)
 * @guarded:       releases the re-entrancy guard kept from being logged
 * @dropped:       arrivals that found no taker running, a busy CPU or a full queue
 * @spin_hist/@hold_hist: log-linear histograms of the same cycles
 */
struct spin_lock_stats {
	uint64_t acquisitions;
	uint64_t contended;
	uint64_t spin_cycles;
	uint64_t hold_cycles;
	uint64_t releases;
	uint64_t logged[4];
	uint64_t untracked;
	uint64_t guarded;
	uint64_t dropped;
	uint32_t spin_hist[SPIN_HIST_BUCKETS];
	uint32_t hold_hist[SPIN_HIST_BUCKETS];
};

/** spin_hist_quantile - the value below which @permille/1000 of @hist lies (bucket upper bound). */
uint64_t spin_hist_quantile(const uint32_t hist[SPIN_HIST_BUCKETS], unsigned permille);

struct spin;

/**
 * spin_attach - build the subsystem of @cfg (copied) on @s's machine and
 * attach it to the core. A configuration without locks attaches nothing.
 * @out: the model (for its statistics; freed with the core), may be NULL
 * Return: 0, -EINVAL (bad @cfg), -ENOMEM or -ENOSPC.
 */
int spin_attach(struct sched *s, const struct spin_cfg *cfg, struct spin **out);

/** spin_get_stats - family @i's statistics so far. */
void spin_get_stats(const struct spin *sp, unsigned i, struct spin_lock_stats *st);

/**
 * spin_stall_describe - why the model stopped the run, in one line. The
 * model stops it (its event returns -EDEADLK, which sched_run_until()
 * returns from then on) when CPUs would spin for ever: a lock is free
 * while CPUs wait in its queue, or CPUs spin and no CPU has lock work
 * pending that could release anything. That is a fault of the model, not
 * of the scenario. The line names the lock, the simulated time and what
 * was stuck.
 * @buf: the line (no newline), cut to @len bytes as snprintf() does
 * Return: its length (as snprintf()), 0 when the model did not stop a run.
 */
int spin_stall_describe(const struct spin *sp, char *buf, size_t len);

#endif /* SPINLOCK_MODEL_SPINLOCK_H */
