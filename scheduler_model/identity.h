/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/identity.h - who runs: the machine's processes and the
 * names of its threads, and the records that tell a consumer so. A model
 * attached to the scheduler core (sim.h) that fires, into the core's sink:
 *
 *   ident_start()      at the session start (the controller's thread):
 *                      masks end (previous: zeros), masks new (the
 *                      sessions'), the DCStart rundown -- Idle and its one
 *                      thread per CPU (TID 0), System, then every process
 *                      alive at the start in creation order, each followed
 *                      by its threads [and its images; System's by the
 *                      kernel modules] -- [the profile interval DCStart],
 *                      rundown complete. Plain: all at time 0 on CPU 0.
 *                      Lived-in: the masks at 0, then one process at a time
 *                      from a few tens of microseconds in, 1-5 us a record,
 *                      on one CPU and then another, live records
 *                      between; a process that changes (a thread starts or
 *                      ends, an image loads) before its turn is run down
 *                      first; a stop before the end finishes it at once
 *   live               Thread Start as the core creates a thread (its
 *                      process's Start first when it is the process's
 *                      first, [its images' Loads after]), Thread End as it
 *                      terminates ([its images' Unloads and] Process End
 *                      after its last thread once the process has exited);
 *                      [Image Load / Unload at the times the address
 *                      spaces give];
 *                      ReadyThread at every wake-up (dispatcher);
 *                      SampledProfile on every CPU every interval (profile);
 *                      [StackWalk after a sample, a switch or a wake-up]
 *   ident_stop()       at the end (on CPU 0): [SystemConfig CPU], masks end
 *                      (the sessions'), Idle's threads, Idle, [KernelBase,
 *                      HypercallPage, the kernel modules], then every live
 *                      process's [images,] threads and the process (DCEnd),
 *                      [profile interval DCEnd], masks new (zeros), rundown
 *                      complete
 *
 * Everything is drawn from the configuration and the model's own RNG
 * stream: attaching it never changes what the scheduler does, so a
 * scenario's context switches are the same with or without it.
 */
#ifndef SCHEDULER_MODEL_IDENTITY_H
#define SCHEDULER_MODEL_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler_model/sched.h"

#define IDENT_MAX_PROCESSES 130	       /* Idle, System and 128 of the scenario's */
#define IDENT_IDLE	    0	       /* processes[0]: Idle, PID 0 */
#define IDENT_SYSTEM	    1	       /* processes[1]: System, PID 4 */
#define IDENT_NO_SESSION    UINT32_MAX /* SessionId -1: Idle, System, services' hosts */
#define IDENT_NO_EXIT	    UINT64_MAX

/* The profile interval Windows accepts (TraceSetInformation, 100-ns units): 0.1221 ms .. 1 s. */
#define IDENT_PROFILE_MIN_100NS	    1221u
#define IDENT_PROFILE_MAX_100NS	    10000000u
#define IDENT_PROFILE_DEFAULT_100NS 10000u /* 1 ms */

/**
 * struct ident_process - one process.
 * @image:    ImageFileName (ANSI: 7-bit ASCII only), e.g. "explorer.exe"
 * @pid:      a multiple of 4 below the first TID (4096); unique
 * @ppid:     the parent's PID (need not be a process of the scenario)
 * @session:  the Terminal Services session (IDENT_NO_SESSION: -1)
 * @cmdline:  UTF-8, NULL: none
 * @sid:      the user's SID ("S-1-5-18"), NULL: none (the NULL form)
 * @start_ns: when it starts (0: it exists at the session start)
 * @exit_ns:  when it exits (IDENT_NO_EXIT: it does not)
 * @exit_status: its exit code at End (0)
 */
struct ident_process {
	const char *image;
	uint32_t pid;
	uint32_t ppid;
	uint32_t session;
	const char *cmdline;
	const char *sid;
	uint64_t start_ns;
	uint64_t exit_ns;
	int32_t exit_status;
};

struct mod_cfg;

/**
 * struct ident_cfg - the model's configuration; the strings are borrowed
 * for the model's life.
 * @proc_thread:  fire Process / Thread records and the rundowns
 * @loader:       fire the image records (rundowns, loads, unloads) of
 *                @modules
 * @dispatcher:   fire ReadyThread at wake-ups
 * @profile:      fire SampledProfile every @profile_interval (100-ns units)
 * @stacks:       the events whose call stacks follow them (StackWalk, the
 *                kernel part then the user part, call_stacks.h), as
 *                SIM_EV_BIT()s: SIM_EVENT_PROFILE (a sample's thread; an
 *                idle one has none but in a DPC or an ISR: kernel frames,
 *                process 0, thread 0), _CSWITCH (the new thread, where it
 *                waited), _READY_THREAD (the waker; an idle CPU's DPC);
 *                needs @modules
 * @dpc:          fire DPC / TimerDPC records: the timer DPC that readies a
 *                thread at its timer's expiry, and on an idle CPU the DPC of
 *                the I/O that completes a wait (with driver modules)
 * @interrupt:    fire ISR records: the clock interrupt before a timer's DPC,
 *                the driver's before an I/O completion's
 * @sysconfig:    fire SystemConfig CPU at the stop
 * @names_in_thread_records: the target's Thread records carry ThreadName;
 *                otherwise a named thread gets ThreadSetName after its
 *                Start / DCStart
 * @ptr64:        the machine is x64 (addresses are drawn from its ranges)
 * @processes:    [IDENT_IDLE], [IDENT_SYSTEM], then the scenario's
 * @group_process: each thread group's process (index into @processes)
 * @thread_name:  each group's thread name pattern ("{n}": the thread's
 *                index in its group, from 0), NULL: unnamed
 * @memory_mb, @computer_name: for SystemConfig CPU
 * @modules:      the address spaces (scheduler_model/modules.h), finished:
 *                sampled IPs come from its hot functions; NULL: from
 *                made-up ranges
 */
struct ident_cfg {
	bool proc_thread;
	bool loader;
	bool dispatcher;
	bool profile;
	unsigned stacks;
	bool dpc;
	bool interrupt;
	bool sysconfig;
	bool names_in_thread_records;
	bool ptr64;
	uint32_t profile_interval;
	uint32_t memory_mb;
	const char *computer_name;
	unsigned nprocesses;
	struct ident_process processes[IDENT_MAX_PROCESSES];
	uint16_t group_process[SCHED_MAX_GROUPS];
	const char *thread_name[SCHED_MAX_GROUPS];
	const struct mod_cfg *modules;
};

/**
 * ident_cfg_defaults - nothing on; Idle (PID 0, image "Idle") and System
 * (PID 4, "System", parent 0) in place and nothing else; every group's
 * process IDENT_SYSTEM until the scenario says otherwise; no names; profile
 * interval 1 ms; 16384 MB; computer name "ETWFORGE".
 */
void ident_cfg_defaults(struct ident_cfg *c);

/**
 * ident_cfg_check - PIDs (multiples of 4, unique, below 4096, not 0 or 4
 * except Idle's and System's), images (non-empty, 7-bit), start before
 * exit, the interval in range, every group's process in range.
 * Return: 0 or -EINVAL with *@why a static message.
 */
int ident_cfg_check(const struct ident_cfg *c, unsigned ngroups, const char **why);

/**
 * ident_wanted - does @c fire anything (so gen attaches the model)?
 */
bool ident_wanted(const struct ident_cfg *c);

struct ident;

/**
 * ident_attach - attach the model to @s (before it runs). @c is copied;
 * its strings are borrowed.
 * Return: 0, -ENOMEM, or -ENOSPC (no hook slot left).
 */
int ident_attach(struct sched *s, const struct ident_cfg *c, struct ident **out);

/** ident_start - fire the start rundown (before the first sched_run_until). Return: 0 or the sink's error. */
int ident_start(struct ident *m);

#endif /* SCHEDULER_MODEL_IDENTITY_H */
