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

#include "spinlock_model/spin_cfg.h"

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
