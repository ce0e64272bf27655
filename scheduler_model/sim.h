/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sim.h - the simulation core's contract with the models
 * that attach to it (pebs_model/, spinlock_model/): what runs where, and
 * the hooks the core calls. The core (sched.c) includes no model; a model
 * includes this header and sched.h, and attaches with sched_attach().
 *
 *   sched_run_until()
 *     each context switch on a CPU: for every attached hook, in the order
 *     attached, ops->cswitch(ctx, cpu, now, what ran since the last switch
 *     there, the record) -- the model fills its part of the record (PMC
 *     values, PebsIndex) before it reaches the sink
 *   sched_destroy(): ops->destroy(ctx) for each hook
 */
#ifndef SCHEDULER_MODEL_SIM_H
#define SCHEDULER_MODEL_SIM_H

#include <stdint.h>

#include "producer/trace_sink.h"
#include "scheduler_model/sim_rng.h"

/**
 * enum sim_activity - what the code that ran for an interval looks like to
 * the hardware (instructions per cycle, cache and branch behaviour). The
 * core gives each thread group one, from its behaviour.
 */
enum sim_activity {
	SIM_ACT_IDLE = 0, /* the idle loop: mostly halted in a C-state */
	SIM_ACT_COMPUTE,  /* tight loops: high IPC, few misses */
	SIM_ACT_MEMORY,	  /* I/O paths, copies: low IPC, many LLC misses */
	SIM_ACT_BRANCHY,  /* UI and message handling: many mispredicts */
	SIM_ACT_MEDIA,	  /* DSP-like periodic work: SIMD, streaming */
	SIM_ACTIVITIES,
};

/**
 * struct sim_hook_ops - a model attached to the core.
 * @cswitch: a context switch on @cpu at simulation time @now_ns is about to
 *           be logged; the interval since the previous switch on @cpu ran
 *           code of kind @ran. Fill the model's fields of @cs (may be NULL).
 * @destroy: the core is destroyed: free the model (may be NULL).
 */
struct sim_hook_ops {
	void (*cswitch)(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			struct sim_cswitch *cs);
	void (*destroy)(void *ctx);
};

#define SIM_MAX_HOOKS 4

#endif /* SCHEDULER_MODEL_SIM_H */
