/* SPDX-License-Identifier: MIT */
/*
 * spinlock_model/spin_cfg.h - the spin-lock subsystem's configuration
 * (spin_cfg.c): the lock families, the subsystem's constants, the rules a
 * configuration must keep, and what follows from it alone (IRQLs, lock and
 * caller addresses). What a scenario fills and the model (spinlock.h) runs.
 */
#ifndef SPINLOCK_MODEL_SPIN_CFG_H
#define SPINLOCK_MODEL_SPIN_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/trace_sink.h"

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

#endif /* SPINLOCK_MODEL_SPIN_CFG_H */
