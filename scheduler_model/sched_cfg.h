/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sched_cfg.h - the simulated machine's configuration
 * (sched_cfg.c): the thread groups and the machine, their defaults and
 * rules, and the exact clocks at any simulated time. What a scenario fills
 * and the dispatcher (sched.h) runs.
 */
#ifndef SCHEDULER_MODEL_SCHED_CFG_H
#define SCHEDULER_MODEL_SCHED_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/trace_sink.h"
#include "scheduler_model/sim.h"

#define SCHED_MAX_CPUS	    1024
#define SCHED_MAX_GROUPS    64
#define SCHED_WAIT_REASONS  64
#define SCHED_MAX_THREADS   262144  /* live threads (sum of the groups' counts) */
#define SCHED_FIRST_TID	    0x1000u /* plain: TIDs are 0x1000, 0x1004, ... never reused */
#define SCHED_MAX_TAKEN_IDS 512u    /* lived-in: client IDs the TIDs must avoid (PIDs) */

/** enum sched_thread_state - KTHREAD_STATE (KERNEL_FACTS 7). */
enum sched_thread_state {
	SCHED_TS_INITIALIZED = 0,
	SCHED_TS_READY = 1,
	SCHED_TS_RUNNING = 2,
	SCHED_TS_STANDBY = 3,
	SCHED_TS_TERMINATED = 4,
	SCHED_TS_WAITING = 5,
	SCHED_TS_TRANSITION = 6,
	SCHED_TS_DEFERRED_READY = 7,
};

/** enum sched_wait_reason - KWAIT_REASON (KERNEL_FACTS 7), the ones the model names. */
enum sched_wait_reason {
	SCHED_WR_EXECUTIVE = 0,
	SCHED_WR_PAGE_IN = 2,
	SCHED_WR_DELAY_EXECUTION = 4,
	SCHED_WR_USER_REQUEST = 6,
	SCHED_WR_WR_USER_REQUEST = 13,
	SCHED_WR_WR_QUEUE = 15,
	SCHED_WR_WR_LPC_RECEIVE = 16,
	SCHED_WR_WR_RESOURCE = 27,
	SCHED_WR_WR_PUSH_LOCK = 28,
	SCHED_WR_WR_MUTEX = 29,
	SCHED_WR_WR_QUANTUM_END = 30,
	SCHED_WR_WR_PREEMPTED = 32,
	SCHED_WR_WR_ALERT_BY_THREAD_ID = 37,
};

/** enum sched_behaviour - what the threads of a group do between waits. */
enum sched_behaviour {
	SCHED_CPU_BOUND = 0, /* runs until preempted or its quantum ends; rare waits */
	SCHED_IO_BOUND,	     /* short bursts, then waits on I/O-like objects */
	SCHED_INTERACTIVE,   /* mostly waiting for input, short bursts, boosted */
	SCHED_PERIODIC,	     /* wakes every @period_ns, runs @duty percent of it */
};

/**
 * struct sched_group - @count threads that behave alike.
 * @name:          for messages and the config printout
 * @count:         threads at start
 * @base_priority: 1..31 (0 is the idle thread's)
 * @behaviour:     see enum sched_behaviour
 * @period_ns:     PERIODIC: wake-up period; others: mean run burst
 * @duty_pct:      PERIODIC: percent of the period spent running (1..100)
 * @wait_weights:  relative weight of each KWAIT_REASON for this group's
 *                 waits (index = wait reason; all zero = the behaviour's
 *                 default mix). Reasons >= the target's MaximumWaitReason
 *                 must have weight 0.
 * @user_wait_pct: percent of waits in UserMode (the rest KernelMode)
 * @affinity:      CPU bitmap words (bit c of word c/64); all zero = any CPU
 * @wait_ns:       the mean wait between bursts (0: the behaviour's, cpu_bound
 *                 1 ms, io_bound 3 ms, interactive 25 ms; periodic waits for
 *                 its period)
 * @burst_sigma, @wait_sigma: lived-in, the spread of the threads' own
 *                 burst and wait means around the group's: the sigma of a
 *                 log-normal in hundredths, up to SCHED_SIGMA_MAX (0: the
 *                 default, 0.8 for bursts and 1.3 for waits;
 *                 SCHED_SIGMA_ZERO: every thread alike)
 * @lifetime_ns:   0 = lives for the whole run; else each thread terminates
 *                 after about this long and a new one (new TID) replaces it
 * @start_ns:      its threads are created at this time (0: they exist at
 *                 the start) -- its process starts then
 * @exit_ns:       no thread of it is created (or replaced) from this time
 *                 on, and each terminates the next time it runs (0: never)
 *                 -- its process exits then
 */
#define SCHED_SIGMA_ZERO UINT16_MAX
#define SCHED_SIGMA_MAX	 300 /* 3.00 */

struct sched_group {
	char name[64];
	unsigned count;
	int8_t base_priority;
	enum sched_behaviour behaviour;
	uint64_t period_ns;
	unsigned duty_pct;
	uint32_t wait_weights[SCHED_WAIT_REASONS];
	unsigned user_wait_pct;
	uint64_t affinity[SCHED_MAX_CPUS / 64];
	uint64_t lifetime_ns;
	uint64_t wait_ns;
	uint16_t burst_sigma;
	uint16_t wait_sigma;
	uint64_t start_ns;
	uint64_t exit_ns;
};

/**
 * struct sched_cfg - the simulated machine.
 * @cpus:             1..1024 (ideal processors > 255 truncate in 0x0524)
 * @cpu_mhz:          CPU cycles clock (cycles = ns * MHz / 1000)
 * @perf_freq:        QPC frequency in Hz
 * @timer_resolution: interrupt tick in 100 ns units (default 156250)
 * @start_time:       FILETIME at simulation time 0 (system-time clock origin)
 * @boot_time:        FILETIME of boot: QPC, cycles and the tick count run
 *                    from it, so they are non-zero at time 0
 * @duration_ns:      simulated time to run
 * @seed:             the RNG seed
 * @max_wait_reason:  the target's MaximumWaitReason (wait reasons below it)
 * @quantum_ns:       a full quantum (default 2 ticks' worth: 31.25 ms; 0 = two
 *                    ticks of @timer_resolution)
 * @clocks:           which clock types to fill in sim_cswitch.ts (index =
 *                    enum sim_clock; the others stay 0)
 * @ncounters:        the machine's PMC counters (0..16): read by the PMU
 *                    model attached to the core (pebs_model/pebs_attach())
 * @counter_source:   what each of them counts, for that model: a source id
 *                    of pebs_model/pmc_sources.h (0 = the id's default)
 * @pebs:             the machine's PMU keeps a PebsIndex per CPU (the same)
 * @lived_in:         behave like a machine in use rather than a minimal model:
 *                    a thread left Ready says why (WrPreempted, WrQuantumEnd),
 *                    each thread of a group draws its own burst and wait means,
 *                    each group's ideal processors start at a CPU of the seed,
 *                    wake-up latencies vary (C-state exit, IPI, a DPC before),
 *                    and the profile timer fires as hardware does (one grid,
 *                    each CPU late by its own interrupt latency, a tick now
 *                    and then lost); thread IDs come from one pool with the
 *                    process IDs (below), drawn where a free one is; false:
 *                    the behaviour before these
 * @taken_ids:        lived-in: the process IDs (and parents' IDs) a TID must
 *                    not take, @ntaken of them
 */
struct sched_cfg {
	unsigned cpus;
	uint32_t cpu_mhz;
	uint64_t perf_freq;
	uint32_t timer_resolution;
	int64_t start_time;
	int64_t boot_time;
	uint64_t duration_ns;
	uint64_t seed;
	uint8_t max_wait_reason;
	uint64_t quantum_ns;
	bool clocks[SIM_CLOCK_SLOTS];
	unsigned ncounters;
	uint8_t counter_source[SIM_MAX_COUNTERS];
	bool pebs;
	bool lived_in;
	unsigned ntaken;
	uint32_t taken_ids[SCHED_MAX_TAKEN_IDS];
	unsigned ngroups;
	struct sched_group groups[SCHED_MAX_GROUPS];
};

/** sched_cfg_defaults - an 8-CPU desktop-like machine with a few groups. */
void sched_cfg_defaults(struct sched_cfg *cfg);

/**
 * sched_cfg_check - ranges and cross-field rules.
 * Return: 0 or -EINVAL with *@why a static message naming the field.
 */
int sched_cfg_check(const struct sched_cfg *cfg, const char **why);

/**
 * sched_clocks_at - the clock values and tick count at simulation time
 * @t_ns (exact integer conversions). @ts is indexed by enum sim_clock.
 */
void sched_clocks_at(const struct sched_cfg *cfg, uint64_t t_ns, uint64_t ts[SIM_CLOCK_SLOTS],
		     uint32_t *tick);

/** sched_behaviour_name - "cpu_bound", "io_bound", "interactive", "periodic" ("?" else). */
const char *sched_behaviour_name(enum sched_behaviour b);

/** sched_behaviour_parse - by name. Return: 0 or -EINVAL. */
int sched_behaviour_parse(const char *name, enum sched_behaviour *out);

/** sched_wait_reason_name - "Executive", "WrQueue", ... (KWAIT_REASON 0..42), "?" else. */
const char *sched_wait_reason_name(unsigned reason);

#endif /* SCHEDULER_MODEL_SCHED_CFG_H */
