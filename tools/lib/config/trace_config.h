/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/config/trace_config.h - the machine and its sessions: everything the truth
 * stream's meta line says (DESIGN.md "Truth / replay stream"), shared by
 * gen, replay and verify. trace_config_* turn it into the producer's and
 * the writers' configurations.
 */
#ifndef TOOLS_LIB_TRACE_CONFIG_H
#define TOOLS_LIB_TRACE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/producer.h"
#include "producer/trace_sink.h"
#include "producer/targets.h"
#include "writer/writer.h"

#define TRACE_NAME_MAX	       128
#define TRACE_PATH_MAX	       4096
#define TRACE_COUNTER_NAME_MAX 48

/**
 * struct trace_session_cfg - one session (system logger).
 * @pmc_counters: indices into trace_config.counters (the machine counters),
 *                in this session's order
 * @file:         the ETL it is written to, as given on the command line
 */
struct trace_session_cfg {
	char name[TRACE_NAME_MAX];
	enum sim_clock clock;
	unsigned flags; /* PRODUCER_F_* */
	bool pebs;
	unsigned pmc_count;
	uint8_t pmc_counters[SIM_MAX_PMC];
	unsigned pmc_event_count;
	uint16_t pmc_events[4];
	uint32_t buffer_size;
	uint32_t pool_buffers;	/* extension: 0 = unlimited */
	uint64_t flush_latency; /* extension: clock units */
	bool compress;		/* extension "compressed": XPRESS data buffers */
	bool merged; /* "merged": KernelTraceControl image identities (PRODUCER_F_MERGED) */
	uint32_t stack_cache; /* "stack_cache": entries per CPU, 0 = StackWalks only */
	char file[TRACE_PATH_MAX];
};

#define TRACE_MAX_GROUPS 64

/**
 * struct trace_group - a thread group of the scenario and its threads at
 * the start: @tids (@count of them; borrowed), or when NULL the TIDs
 * @first_tid, @first_tid + 4, ... Later threads are the truth's "thread"
 * lines.
 */
struct trace_group {
	char name[64];
	const uint32_t *tids;
	uint32_t first_tid;
	unsigned count;
};

/*
 * Which spin-lock releases the truth has a line for (meta "spinlock"."rows"):
 * unknown (a stream without the key: verify checks the logged ones' fields
 * only), every one, or only the logged ones.
 */
enum trace_spin_rows {
	TRACE_SPIN_ROWS_UNKNOWN = 0,
	TRACE_SPIN_ROWS_ALL,
	TRACE_SPIN_ROWS_LOGGED,
};

/**
 * struct trace_config - the meta line.
 * @counters:     names of the machine's PMC sources (union over sessions, in
 *                order of first appearance); sim records index values by it
 * @start_ts:     clock values at session start (extension "start_ts"); when
 *                @have_start_ts is false, replay uses each clock's first value
 * @boot_time:    FILETIME of boot (extension; default start_time - 1 hour)
 * @spin:         the spin-lock sampling parameters (extension "spinlock",
 *                written when a session logs spin locks; kernel defaults)
 */
struct trace_config {
	const struct etw_target *target;
	enum etl_arch arch;
	unsigned cpus;
	uint32_t cpu_mhz;
	uint64_t perf_freq;
	uint32_t timer_resolution;
	uint8_t max_wait_reason;
	int64_t start_time;
	int64_t boot_time;
	bool quirks;
	bool flush_at_end;
	bool pebs_and_pmc;
	struct spin_sampling spin;
	enum trace_spin_rows spin_rows;
	uint64_t seed;
	uint64_t start_ts[SIM_CLOCK_SLOTS];
	bool have_start_ts;
	unsigned ncounters;
	char counters[SIM_MAX_COUNTERS][TRACE_COUNTER_NAME_MAX];
	unsigned nsessions;
	struct trace_session_cfg sessions[SIM_MAX_SESSIONS];
	unsigned ngroups; /* gen: the thread groups (meta "groups"); 0 otherwise */
	struct trace_group groups[TRACE_MAX_GROUPS];
};

/* a session's flags by name, as scenarios and truths spell them: trace_flag_names[k] is the
 * producer bit trace_flag_bits[k] */
#define TRACE_NFLAGS 9u
extern const char *const trace_flag_names[TRACE_NFLAGS];
extern const unsigned trace_flag_bits[TRACE_NFLAGS];

/* the events whose stacks a session logs, as scenarios and truths spell them ("stacks"):
 * trace_stack_names[k] is the producer bit trace_stack_bits[k] (PRODUCER_F_STACK_*) */
#define TRACE_NSTACKS 3u
extern const char *const trace_stack_names[TRACE_NSTACKS];
extern const unsigned trace_stack_bits[TRACE_NSTACKS];

/** sim_clock_name - "qpc", "systime", "cycles". */
const char *sim_clock_name(enum sim_clock c);
/** sim_clock_parse - by name; Return: 0 or -EINVAL. */
int sim_clock_parse(const char *name, enum sim_clock *out);

/** trace_config_clock_used - does any session use clock @c? */
bool trace_config_clock_used(const struct trace_config *cfg, enum sim_clock c);

/**
 * trace_config_defaults - win10-1709 x64, 8 CPUs, 3000 MHz, PerfFreq 1e7,
 * TimerResolution 156250, StartTime 133000000000000000, quirks on, flush at
 * end, no sessions.
 */
void trace_config_defaults(struct trace_config *cfg);

/**
 * trace_config_counter_id - the machine counter id of @name, adding it.
 * Return: id >= 0, or -ENOSPC when SIM_MAX_COUNTERS are in use.
 */
int trace_config_counter_id(struct trace_config *cfg, const char *name);

/**
 * trace_config_check - cross-field rules (sessions 1..8, compact needs
 * cswitch, buffer sizes, pmc counts, unique session names; files are
 * checked where they are opened, tools/lib/run/out_file.h).
 * Return: 0 or -EINVAL with *@why set to a static message.
 */
int trace_config_check(const struct trace_config *cfg, const char **why);

/**
 * trace_config_producer - fill @pc (backends left NULL: the caller sets
 * sessions[i].backend/backend_ctx).
 */
void trace_config_producer(const struct trace_config *cfg, struct producer_cfg *pc);

/** trace_config_writer - the writer options of session @i (path = its file). */
void trace_config_writer(const struct trace_config *cfg, unsigned i, struct writer_opts *wo);

/**
 * trace_config_time - FILETIME of a clock value @v of clock @c, using
 * start_ts as the origin (for EndTime).
 */
int64_t trace_config_filetime(const struct trace_config *cfg, enum sim_clock c, uint64_t v);

#endif /* TOOLS_LIB_TRACE_CONFIG_H */
