/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sched.h - a discrete-event simulation of a Windows-like
 * dispatcher on 1..1024 CPUs: per-CPU idle threads and ready queues by
 * priority, base/dynamic priorities with boosts and decay, quanta,
 * preemption, ideal processors and migration, waits with KWAIT_REASONs,
 * thread creation and termination, the interrupt tick, idle C-states.
 *
 * It fires one struct sim_cswitch per context switch into a trace_sink,
 * with the time in every clock type (QPC ticks, 100 ns system time, CPU
 * cycles) computed exactly from integer nanoseconds. Integer arithmetic and
 * a seeded RNG of our own only: the same configuration and seed give the
 * same records with any compiler at any -O level. Memory is bounded by the
 * number of threads and CPUs, never by the simulated duration.
 */
#ifndef SCHEDULER_MODEL_SCHED_H
#define SCHEDULER_MODEL_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/trace_sink.h"
#include "scheduler_model/sim.h"

#include "scheduler_model/sched_cfg.h"

/** struct sched_stats - what happened so far. */
struct sched_stats {
	uint64_t now_ns;
	uint64_t switches;
	uint64_t idle_switches; /* old or new thread is idle */
	uint64_t preemptions;
	uint64_t migrations;
	uint64_t threads_created; /* including the ones that exist at time 0 */
	uint64_t threads_terminated;
};

struct sched;

/**
 * sched_create - build the machine (threads, queues, RNG streams).
 * Return: the scheduler, or NULL with errno EINVAL (bad cfg) or ENOMEM.
 */
struct sched *sched_create(const struct sched_cfg *cfg, struct trace_sink sink);

/**
 * sched_run_until - simulate up to @t_ns (capped at duration), firing
 * records into the sink. Call repeatedly for progress reporting.
 * Return: 1 when the duration is reached (the end record was fired),
 * 0 when more remains, or the sink's negative error.
 */
int sched_run_until(struct sched *s, uint64_t t_ns);

/**
 * sched_attach - attach a model: @ops are called as scheduler_model/sim.h
 * says (and @ops->destroy with @ctx by sched_destroy()). Attach before
 * running.
 * Return: the model's handle (>= 0) for sched_model_arm(), or -ENOSPC past
 * SIM_MAX_HOOKS models.
 */
int sched_attach(struct sched *s, const struct sim_hook_ops *ops, void *ctx);

/**
 * sched_model_arm - the model @handle wants its ops->event at @t_ns (not
 * before now; SCHED_NEVER_NS: not at all). Replaces its previous arming.
 */
void sched_model_arm(struct sched *s, int handle, uint64_t t_ns);
#define SCHED_NEVER_NS UINT64_MAX

/**
 * sched_cpu_release - a CPU a model said was busy may let its thread go: a
 * decision it postponed (a wait, a quantum end, a preemption) is taken now.
 */
void sched_cpu_release(struct sched *s, unsigned cpu);

/**
 * struct sched_cpu_view - what runs on a CPU now, for a model.
 * @tid:   the running thread's TID (0: the idle thread)
 * @group: its index into cfg.groups, or -1 for the idle thread
 * @act:   the kind of code it runs
 * @pri:   its priority (0: the idle thread)
 */
struct sched_cpu_view {
	uint32_t tid;
	int group;
	enum sim_activity act;
	int8_t pri;
};

/** sched_cpu_view - who runs on @cpu now. */
void sched_cpu_view(const struct sched *s, unsigned cpu, struct sched_cpu_view *v);

/** sched_now - the simulation time (ns). */
uint64_t sched_now(const struct sched *s);

/** sched_now_cycles - the cycle clock now (the value records carry as "cycles"). */
uint64_t sched_now_cycles(struct sched *s);

/** sched_ticks_now - the interrupt ticks since boot, now (not cut to 32 bits). */
uint64_t sched_ticks_now(const struct sched *s);

/**
 * sched_fire_spinlock - send a spin-lock release on @sl->cpu to the sink,
 * now: fills @sl->tick and @sl->ts, and @sl->pmc from the models' counters
 * when @counters (zeros otherwise).
 * Return: 0 or the sink's negative error (also returned by every later
 * sched_run_until()).
 */
int sched_fire_spinlock(struct sched *s, struct sim_spinlock *sl, bool counters);

/**
 * sched_fire_record - send an identity or rundown record to the sink, now:
 * fills its ts (every clock in use; the others 0). @r->u.head.cpu is the
 * caller's.
 * Return: 0 or the sink's negative error (also returned by every later
 * sched_run_until()).
 */
int sched_fire_record(struct sched *s, struct sim_record *r);

/**
 * struct sched_thread_view - a live thread, for a model.
 * @cpu:    where it last ran (its ideal processor if it never ran)
 * @cycles: the CPU cycles it has run (CycleTime)
 */
struct sched_thread_view {
	uint32_t tid;
	unsigned group;
	unsigned cpu;
	int8_t base_pri;
	unsigned ideal;
	uint64_t cycles;
};

/** sched_thread_slots - how many thread slots there are (live or not). */
unsigned sched_thread_slots(const struct sched *s);

/** sched_thread_at - slot @slot's thread, if it is alive now. Return: whether it is. */
bool sched_thread_at(const struct sched *s, unsigned slot, struct sched_thread_view *v);

/** sched_get_cfg - the machine the core simulates (for models that attach). */
const struct sched_cfg *sched_get_cfg(const struct sched *s);

/**
 * struct sched_thread_event - a thread started (replacing one that ended)
 * or terminated during the run, at simulation time @t_ns.
 */
struct sched_thread_event {
	uint32_t tid;
	unsigned group;
	bool exit;
	uint64_t t_ns;
};

/**
 * sched_set_thread_listener - @fn(@ctx, event) for every thread created
 * after time 0 and every thread that terminates (NULL: none). The threads
 * that exist at time 0 are sched_initial_tids()'.
 */
void sched_set_thread_listener(struct sched *s,
			       void (*fn)(void *ctx, const struct sched_thread_event *e),
			       void *ctx);

/**
 * sched_initial_tids - group @group's threads at time 0: their TIDs in
 * @tids (the first @cap of them; plain machines number them on from
 * SCHED_FIRST_TID, group after group). Call before the first step.
 * Return: how many there are.
 */
unsigned sched_initial_tids(const struct sched *s, unsigned group, uint32_t *tids, unsigned cap);

/** sched_get_stats - counters so far. */
void sched_get_stats(const struct sched *s, struct sched_stats *st);

/** sched_destroy - NULL is a no-op. */
void sched_destroy(struct sched *s);

#endif /* SCHEDULER_MODEL_SCHED_H */
