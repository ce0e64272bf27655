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
 *     a model's own event, armed with sched_model_arm(): ops->event(ctx,
 *     now), in (time, id) order with the core's events (after them at the
 *     same time); it may fire records with sched_fire_spinlock(), which
 *     asks every hook's ops->counters for the record's PMC values
 *     before a CPU's thread would leave it: ops->busy(ctx, cpu) of every
 *     hook; while one says busy (the CPU is at DISPATCH_LEVEL or above in
 *     the model's code) the decision waits, until the model calls
 *     sched_cpu_release()
 *   a thread created (after time 0) or terminated: ops->thread(ctx, change)
 *   a waiting (or new) thread is readied: ops->ready(ctx, wake), before
 *     the thread can be seen running anywhere
 *   the run reaches its duration: ops->stop(ctx, now), before the end record
 *   sched_destroy(): ops->destroy(ctx) for each hook
 */
#ifndef SCHEDULER_MODEL_SIM_H
#define SCHEDULER_MODEL_SIM_H

#include <stdbool.h>
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
 * struct sim_thread_change - a thread created or terminated, now.
 * @slot:  its slot (sched_thread_at(); a new thread takes an ended one's)
 * @tid:   its TID
 * @group: its group (index into cfg.groups)
 * @exit:  terminated (false: created)
 * @cpu:   the CPU it exits on; for a creation, the CPU it was readied for
 */
struct sim_thread_change {
	uint32_t slot;
	uint32_t tid;
	unsigned group;
	bool exit;
	unsigned cpu;
};

/**
 * struct sim_wake - a thread made ready, now (KiReadyThread after a wait or
 * a creation).
 * @slot, @tid, @group: the readied thread
 * @cpu:           the processor whose code readied it (where its wait was
 *                 satisfied: the CPU it last ran on, or its ideal one)
 * @wait_reason:   the KWAIT_REASON it waited for (0 for a new thread)
 * @timer:         the wait ended by a timer (DelayExecution, a periodic
 *                 thread's period): readied from the timer DPC
 * @created:       a new thread (no wait)
 * @boost:         the priority increment it received (0: none)
 */
struct sim_wake {
	uint32_t slot;
	uint32_t tid;
	unsigned group;
	unsigned cpu;
	uint8_t wait_reason;
	bool timer;
	bool created;
	int8_t boost;
};

/**
 * struct sim_hook_ops - a model attached to the core. Every member may be
 * NULL.
 * @cswitch:  a context switch on @cpu at simulation time @now_ns is about to
 *            be logged; the interval since the previous switch on @cpu ran
 *            code of kind @ran. Fill the model's fields of @cs.
 * @counters: another record (a spin-lock release) on @cpu at @now_ns: fill
 *            @pmc with the counters' values, as @cswitch does for a switch.
 * @event:    the time the model armed with sched_model_arm() has come (the
 *            arming is used up). Return: 0 or a sink's negative error,
 *            which stops the run.
 * @busy:     may the thread running on @cpu not leave it now? True while
 *            the model's code holds the CPU above PASSIVE_LEVEL.
 * @thread:   a thread was created or terminated (sim_thread_change).
 * @ready:    a thread was readied (sim_wake).
 * @switched: the context switch @cs was logged (the new thread runs on
 *            @cs->cpu); records fired now come right after it.
 * @stop:     the run reached its duration: the last records before the end.
 *            Return: 0 or a sink's negative error.
 * @destroy:  the core is destroyed: free the model.
 */
struct sim_hook_ops {
	void (*cswitch)(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			struct sim_cswitch *cs);
	void (*counters)(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			 uint64_t pmc[SIM_MAX_COUNTERS]);
	int (*event)(void *ctx, uint64_t now_ns);
	bool (*busy)(void *ctx, unsigned cpu);
	void (*thread)(void *ctx, uint64_t now_ns, const struct sim_thread_change *c);
	void (*ready)(void *ctx, uint64_t now_ns, const struct sim_wake *w);
	void (*switched)(void *ctx, uint64_t now_ns, const struct sim_cswitch *cs);
	int (*stop)(void *ctx, uint64_t now_ns);
	void (*destroy)(void *ctx);
};

#define SIM_MAX_HOOKS 4

#endif /* SCHEDULER_MODEL_SIM_H */
