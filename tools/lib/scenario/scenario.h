/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/scenario.h - what `etwforge gen` simulates: a YAML (or JSON)
 * scenario over built-in defaults, with `--set key.path=value` overrides,
 * turned into the truth/trace configuration and the scheduler model's.
 *
 * Layers apply in order: scenario_default(), one file, each --set. Maps
 * merge key by key; a list (sessions, threads, locks, flags, pmc lists,
 * affinity) and the wait_reasons mix replace what was there. Then
 * scenario_finish() checks what spans keys and fills derived fields.
 * Every error is one line `file:line:col: key.path: what is wrong`.
 *
 * The shape (every key optional; scenario_print() shows every one):
 *
 *   seed: 1                      RNG seed (integer)
 *   duration: 2s                 simulated time: ns integer, or "2s" "500ms"
 *                                "250us" "100ns" "1.5s" (exact decimals)
 *   machine:
 *     cpus: 8                    1..1024
 *     cpu_mhz: 3000              cycle clock, 1..100000
 *     perf_freq: 10000000        QPC frequency in Hz, 1..10^10
 *     timer_resolution: 156250   clock tick in 100 ns units, 5000..156250
 *     target: win10-1709         a build from producer/targets.c
 *     arch: x64                  x64 | x86
 *     start_time: 133000000000000000   FILETIME at time 0
 *     boot_time: ...             FILETIME of boot; default start_time - 1 h
 *     quantum: 31250us           full quantum, 100us..10s; default 2 ticks
 *     memory_mb: 16384           1..4194304, for the machine's description
 *     computer_name: ETWFORGE    1..15 bytes
 *   kernel:                      producer-level switches
 *     quirks: true               reproduce the kernel's known quirks
 *     flush_at_end: true         flush pending batches when tracing stops
 *     pebs_and_pmc: false        PEBS and PMC items on the same event
 *     spinlock:                  EVENT_TRACE_SPINLOCK_INFORMATION (KERNEL_FACTS 6.3)
 *       spin_threshold: 1        >= 1
 *       acquire_sample_rate: 1000      >= 1000
 *       contention_sample_rate: 1      >= 1
 *       hold_threshold: 1000000  cycles; 0 (off) or >= 1000000
 *   sessions:                    1..8 system loggers
 *     - name: NT Kernel Logger   unique
 *       clock: qpc               qpc | systime | cycles (or 1 | 2 | 3)
 *       flags: [cswitch, compact_cswitch]   and/or spinlock, proc_thread,
 *                                dispatcher, profile
 *       pebs: false
 *       pmc: {counters: [TotalCycles], events: ["0x0524"]}  <= 7 and <= 4
 *       buffer_size: 65536       multiple of 4096, 4 KiB..16 MiB
 *       pool_buffers: 0          0 = never exhausted, else <= 1048576
 *       flush_latency: 0         duration a flushed buffer stays in flight
 *       file: ""                 the session's ETL ("" = named by gen's -o)
 *   processes:                   0..128 besides Idle and System (scenario_process.c)
 *     - name: explorer.exe       unique; the image unless image: says
 *       image: ""                7-bit ASCII (ImageFileName is ANSI)
 *       pid: auto                a multiple of 4 in 8..4092, unique; auto:
 *                                the first free of 1000, 1020, ...
 *       parent: services.exe     a name, System or a PID; default services.exe
 *                                if the list has it, else System
 *       session: 1               0..65535, or none (-1)
 *       user: S-1-5-18           a SID (<= 15 sub-authorities) or none
 *       cmdline: ""              UTF-8
 *       start: 0                 from the session start
 *       exit: none               after start; or lifetime: (exit - start)
 *       exit_status: 0           -2^31..2^32-1
 *   threads:                     1..64 groups of alike threads (>= 1 thread)
 *     - name: ui
 *       count: 4                 threads at start, 0..4096
 *       priority: 10             base priority 1..31
 *       behaviour: interactive   cpu_bound | io_bound | interactive | periodic
 *       period: 1ms              periodic: wake period; others: mean burst
 *                                (1us..60s)
 *       duty: 20                 periodic: percent of the period running
 *       wait_reasons: {WrUserRequest: 3, UserRequest: 1}   KWAIT_REASON
 *                                names or numbers -> relative weights;
 *                                {} = the behaviour's default mix
 *       user_wait: 90            percent of waits in UserMode
 *       affinity: [0, "2-3"]     CPUs or "a-b" ranges; [] = any CPU
 *       lifetime: 0              0 = whole run, else 10us..86400s lifetime
 *       process: ""              a processes name or System; "" = its own
 *                                ("<group>.exe")
 *       thread_name: ""          "{n}" = the thread's index in the group
 *   locks:                       0..256 spin-lock families (spinlock_model/);
 *                                none given and a session with spinlock:
 *                                a default set (README "Spin locks")
 *     - name: "ndis!RxQueueLock" module!name; the module places its addresses
 *       count: 1                 instances (distinct addresses), 1..4096
 *       per_cpu: false           CPU c takes instance c % count, else any
 *       taken_by: []             dpc, isr and/or thread group names;
 *                                [] = every thread group
 *       rate: 10000              arrivals per second over the machine,
 *                                split evenly between dpc, isr and threads;
 *                                0..10^9 (0: only taken nested)
 *       hold: 1us                mean hold (own work), 1ns..1s
 *       hold_tail: 1             percent of holds from the long tail, 0..100
 *       hold_tail_max: 0         the tail's end (log-uniform from hold);
 *                                0 = 100 x hold, at most 1s
 *       modes: {ordinary: 1}     AcquireMode weights: ordinary, queued,
 *                                shared, exclusive, converted
 *       nested: []               lock names taken once each inside the hold
 *                                (no cycles, chains <= 12)
 *     (contention is measured, not set: the key is refused)
 *   profile_interval: 1ms        122100ns..1s, whole 100 ns (what Windows takes)
 *   sysconfig: true              describe the machine at a proc_thread stop
 *
 * A thread group item given in a file gets the defaults of its behaviour
 * for period and user_wait when it does not name them (an item edited by
 * --set keeps its values).
 *
 * Values: integers are unquoted decimal or 0x hex (a quoted "8" is a
 * string, and an error where a number is due); bools are true or false;
 * durations may be quoted or not. An empty value (or ~ or null) is "" for a
 * string, [] for a list and {} for a map. Errors that are not about a
 * position say `file: cannot read: why`; a scenario_finish() error about a
 * value nothing set (a built-in default) says `(default):0:0: key: ...`.
 */
#ifndef TOOLS_LIB_SCENARIO_H
#define TOOLS_LIB_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scheduler_model/identity.h"
#include "scheduler_model/modules.h"
#include "scheduler_model/sched.h"
#include "spinlock_model/spinlock.h"
#include "tools/lib/scenario/scenario_image.h"
#include "tools/lib/scenario/scenario_process.h"
#include "tools/lib/scenario/schema.h"
#include "tools/lib/config/trace_config.h"

#define SCENARIO_MAX_LOCKS 256
#define SCENARIO_NAME_MAX  64
#define SCENARIO_MAX_FILES 8		/* scenario files whose names a run keeps (inputs) */
#define SCENARIO_PATH_MAX  SK_PATH_MAX	/* a key path such as "threads.12.wait_reasons.WrQueue" */
#define SCENARIO_MAX_WHERE SK_WHERE_MAX /* remembered key positions (for scenario_finish) */

#define SCENARIO_LOCK_NAMES 8 /* taken_by and nested entries */

/**
 * struct scenario_lock - one family of spin locks, as the scenario names
 * it; scenario_finish() resolves the names into @cfg.
 * @cfg:      everything but the names' indices (name, count, per_cpu,
 *            rate, hold, hold_tail, hold_tail_max, modes)
 * @taken_by: "dpc", "isr" or thread group names
 * @nested:   lock family names
 */
struct scenario_lock {
	struct spin_lock_cfg cfg;
	unsigned ntaken_by;
	char taken_by[SCENARIO_LOCK_NAMES][SCENARIO_NAME_MAX];
	unsigned nnested;
	char nested[SCENARIO_LOCK_NAMES][SCENARIO_NAME_MAX];
};

/**
 * struct scenario_session_x - what a session says in scenario terms, kept
 * until scenario_finish() maps it onto struct trace_session_cfg.
 * @counters:         PMC source names in this session's order, in their
 *                    canonical spelling (pebs_model/pmc_sources.h); the
 *                    machine's counter table is built from them
 * @flush_latency_ns: converted to the session clock's units
 */
struct scenario_session_x {
	char counters[SIM_MAX_PMC][TRACE_COUNTER_NAME_MAX];
	uint64_t flush_latency_ns;
};

/**
 * struct scenario - the whole configuration of a `gen` run.
 * @trace:         machine and sessions (the truth meta line); after
 *                 scenario_finish() complete and checked
 * @sched:         the scheduler model's machine and thread groups; its
 *                 machine fields are copied from @trace by scenario_finish()
 * @nlocks/@locks: the locks list (kernel.spinlock is @trace.spin)
 * @lock_model:    the spin-lock subsystem, resolved by scenario_finish()
 * @sess_x:        per-session extras (parallel to @trace.sessions)
 * @boot_time_set: machine.boot_time was given (else start_time - 1 hour)
 * @quantum_set:   machine.quantum was given (else 2 clock ticks)
 * @source:        name of the file loaded (for messages)
 * @files:         the files loaded, as given ("-" = standard input), the
 *                 first SCENARIO_MAX_FILES: no output of the run may be one
 * @where:         where each key got its value (for scenario_finish errors)
 * @nprocesses/@processes: the processes list, as written
 * @group_x:       per-group extras (parallel to @sched.groups)
 * @computer_name: machine.computer_name
 * @ident:         the identity model's configuration: its flags, interval,
 *                 memory and processes filled by scenario_finish(); the
 *                 strings live in the arrays above and its pointers to them
 *                 are left NULL (Idle's and System's point to constants),
 *                 so a copy of the struct stays whole and compares equal;
 *                 scenario_ident_cfg() gives the complete configuration
 */
struct scenario {
	struct trace_config trace;
	struct sched_cfg sched;
	unsigned nlocks;
	struct scenario_lock locks[SCENARIO_MAX_LOCKS];
	struct spin_cfg lock_model;
	struct scenario_session_x sess_x[SIM_MAX_SESSIONS];
	bool boot_time_set;
	bool start_time_set;
	int realism;	/* machine.realism: 0 plain, 1 lived-in (the default) */
	int background; /* machine.background: 0 none, 1 desktop (the default), 2 server */
	bool quantum_set;
	char source[TRACE_PATH_MAX];
	unsigned nfiles;
	char files[SCENARIO_MAX_FILES][TRACE_PATH_MAX];
	struct sk_where_log where;
	unsigned nprocesses;
	struct scenario_process processes[SCENARIO_MAX_PROCESSES];
	struct scenario_group_x group_x[SCHED_MAX_GROUPS];
	char computer_name[SCENARIO_COMPUTER_NAME_MAX];
	struct ident_cfg ident;
	struct scenario_images images;
	struct mod_cfg modules;
};

/**
 * scenario_default - the built-in scenario: 8 CPUs, 2 s, seed 1,
 * win10-1709 x64, sessions "NT Kernel Logger" (qpc, cswitch +
 * compact_cswitch) and "etwforge CSwitch" (qpc, cswitch), and a desktop
 * load: interactive UI threads, I/O workers, a periodic audio thread at
 * priority 24, short-lived pool threads and CPU-bound background work.
 */
void scenario_default(struct scenario *sc);

/**
 * scenario_load_file - apply a YAML or JSON file over @sc.
 * @sc:     usually fresh from scenario_default()
 * @path:   the file (its name appears in messages as given)
 * @err:    one line on failure; every scenario error is ERR_INPUT and
 *          located, whatever its errno (NULL allowed)
 * Return: 0; -EINVAL (bad scenario: @err says where and what), -EIO (the
 * file cannot be read), -EFBIG (over 16 MiB) or -ENOMEM. On failure @sc
 * is partly applied: discard it.
 */
int scenario_load_file(struct scenario *sc, const char *path, struct etwforge_error *err);

/**
 * scenario_load_string - apply YAML/JSON @text named @name over @sc.
 * Return: as scenario_load_file().
 */
int scenario_load_string(struct scenario *sc, const char *name, const char *text,
			 struct etwforge_error *err);

/**
 * scenario_set - apply one `--set key.path=value` override.
 * @assignment: "machine.cpus=4", "sessions.1.clock=cycles",
 *              "sessions.0.flags=[cswitch]", "threads.0.wait_reasons.WrQueue=2".
 *              List items are named by index and must exist; the value is
 *              a YAML scalar or flow node. A map value merges, a list
 *              value replaces. Errors are reported as `--set:1:COL:`, COL
 *              being the column in @assignment.
 * Return: 0, -EINVAL or -ENOMEM.
 */
int scenario_set(struct scenario *sc, const char *assignment, struct etwforge_error *err);

/**
 * scenario_finish - rules across keys and derived fields, once all layers
 * are applied: duplicate session names or files, compact_cswitch without
 * cswitch, more PMC counters in a session than the target allows (4 before
 * build 15063, else 7), more than 16 distinct PMC counters, affinity CPUs
 * >= cpus, wait reasons >= the target's MaximumWaitReason, boot after
 * start, the processes' rules (scenario_process.c: unique names and PIDs,
 * parents and groups' processes by name, exit after start), then
 * trace_config_check(), ident_cfg_check() and sched_cfg_check(). Fills
 * trace.max_wait_reason, trace.seed, the PMC counter table, flush latencies
 * in clock units, sched's machine fields, clocks, ncounters, counter
 * sources and pebs, the groups' start_ns / exit_ns, the missing PIDs and
 * @ident. Idempotent.
 * Return: 0 or -EINVAL with @err.
 */
int scenario_finish(struct scenario *sc, struct etwforge_error *err);

/**
 * scenario_ident_cfg - the identity model's configuration of a finished
 * @sc: @sc->ident with its strings pointing into @sc (images, command
 * lines, SIDs, thread names, computer name). Call it on the copy the run
 * keeps: @out borrows from @sc and lives no longer than it.
 */
void scenario_ident_cfg(const struct scenario *sc, struct ident_cfg *out);

/**
 * scenario_print - the effective scenario as YAML: every key, in the
 * order above, loadable again to the same configuration.
 */
void scenario_print(FILE *f, const struct scenario *sc);

/** scenario_wait_reason_name - KWAIT_REASON @r's name, NULL if none (>= 43). */
const char *scenario_wait_reason_name(unsigned r);

#endif /* TOOLS_LIB_SCENARIO_H */
