// SPDX-License-Identifier: MIT
/*
 * tools/lib/config/trace_config.c - defaults and cross-checks of the machine/session
 * configuration, and its translation into producer and writer options.
 */
#include <errno.h>
#include <string.h>

#include "tools/lib/config/trace_config.h"

const char *const trace_flag_names[TRACE_NFLAGS] = {
	"cswitch", "compact_cswitch", "spinlock", "proc_thread", "dispatcher",
	"profile", "loader",	      "dpc",	  "interrupt",
};
const unsigned trace_flag_bits[TRACE_NFLAGS] = {
	PRODUCER_F_CSWITCH,	PRODUCER_F_COMPACT,    PRODUCER_F_SPINLOCK,
	PRODUCER_F_PROC_THREAD, PRODUCER_F_DISPATCHER, PRODUCER_F_PROFILE,
	PRODUCER_F_LOADER,	PRODUCER_F_DPC,	       PRODUCER_F_INTERRUPT,
};

const char *const trace_stack_names[TRACE_NSTACKS] = {"profile", "cswitch", "ready_thread"};
const unsigned trace_stack_bits[TRACE_NSTACKS] = {
	PRODUCER_F_STACK_PROFILE,
	PRODUCER_F_STACK_CSWITCH,
	PRODUCER_F_STACK_READY,
};

static const char *const clock_names[SIM_CLOCK_SLOTS] = {NULL, "qpc", "systime", "cycles"};

const char *sim_clock_name(enum sim_clock c)
{
	return (unsigned)c < SIM_CLOCK_SLOTS && clock_names[c] ? clock_names[c] : "?";
}

int sim_clock_parse(const char *name, enum sim_clock *out)
{
	for (unsigned c = 1; c < SIM_CLOCK_SLOTS; c++) {
		if (!strcmp(name, clock_names[c])) {
			*out = (enum sim_clock)c;
			return 0;
		}
	}
	return -EINVAL;
}

bool trace_config_clock_used(const struct trace_config *cfg, enum sim_clock c)
{
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		if (cfg->sessions[i].clock == c) {
			return true;
		}
	}
	return false;
}

/* 2022-06-15 08:53:20 UTC as a FILETIME: a fixed, documented default. */
#define DEFAULT_START_TIME 133000000000000000LL
/* One hour of uptime before the trace starts. */
#define DEFAULT_UPTIME_100NS (3600LL * 10000000LL)

void trace_config_defaults(struct trace_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->target = etw_target_find("win10-1709");
	cfg->arch = ETL_ARCH_X64;
	cfg->cpus = 8;
	cfg->cpu_mhz = 3000;
	cfg->perf_freq = 10000000;
	cfg->timer_resolution = 156250;
	cfg->max_wait_reason = cfg->target->max_wait_reason;
	cfg->start_time = DEFAULT_START_TIME;
	cfg->boot_time = DEFAULT_START_TIME - DEFAULT_UPTIME_100NS;
	cfg->quirks = true;
	cfg->flush_at_end = true;
	spin_sampling_defaults(&cfg->spin);
	cfg->seed = 1;
}

int trace_config_counter_id(struct trace_config *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->ncounters; i++) {
		if (!strcmp(cfg->counters[i], name)) {
			return (int)i;
		}
	}
	if (cfg->ncounters >= SIM_MAX_COUNTERS || strlen(name) >= TRACE_COUNTER_NAME_MAX) {
		return -ENOSPC;
	}
	strcpy(cfg->counters[cfg->ncounters], name);
	return (int)cfg->ncounters++;
}

int trace_config_check(const struct trace_config *cfg, const char **why)
{
	const char *w = NULL;

	if (!cfg->target) {
		w = "no target";
	} else if (cfg->cpus == 0 || cfg->cpus > 1024) {
		w = "cpus must be 1..1024";
	} else if (cfg->cpu_mhz == 0) {
		w = "cpu_mhz must be > 0";
	} else if (cfg->perf_freq == 0) {
		w = "perf_freq must be > 0";
	} else if (cfg->timer_resolution == 0) {
		w = "timer_resolution must be > 0";
	} else if (cfg->max_wait_reason == 0 || cfg->max_wait_reason >= 64) {
		w = "max_wait_reason must be 1..63";
	} else if (cfg->nsessions == 0 || cfg->nsessions > SIM_MAX_SESSIONS) {
		w = "there must be 1..8 sessions (system loggers)";
	} else {
		(void)spin_sampling_check(&cfg->spin, &w);
	}
	for (unsigned i = 0; !w && i < cfg->nsessions; i++) {
		const struct trace_session_cfg *s = &cfg->sessions[i];

		if (s->clock < SIM_CLOCK_QPC || s->clock > SIM_CLOCK_CYCLES) {
			w = "session clock must be qpc, systime or cycles";
		} else if ((s->flags & PRODUCER_F_COMPACT) && !(s->flags & PRODUCER_F_CSWITCH)) {
			w = "compact_cswitch needs cswitch too (the kernel needs both group masks)";
		} else if (s->buffer_size % 4096 || s->buffer_size < 4096 ||
			   s->buffer_size > 16u * 1024 * 1024) {
			w = "buffer_size must be a multiple of 4096 from 4096 to 16 MiB";
		} else if (s->pmc_count > SIM_MAX_PMC) {
			w = "at most 7 PMC counters per session";
		} else if (s->pmc_event_count > 4) {
			w = "at most 4 PMC events per session";
		}
		for (unsigned j = 0; !w && j < i; j++) {
			/* files are checked where they are opened (tools/lib/run/out_file.h) */
			if (!strcmp(s->name, cfg->sessions[j].name)) {
				w = "session names must be unique";
			}
		}
	}
	if (why) {
		*why = w;
	}
	return w ? -EINVAL : 0;
}

void trace_config_producer(const struct trace_config *cfg, struct producer_cfg *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->arch = cfg->arch;
	pc->cpus = cfg->cpus;
	pc->cswitch_version = cfg->target->cswitch_version;
	pc->max_wait_reason = cfg->max_wait_reason;
	pc->quirks = cfg->quirks;
	pc->pebs_and_pmc = cfg->pebs_and_pmc;
	pc->flush_at_end = cfg->flush_at_end;
	pc->spin = cfg->spin;
	pc->target = cfg->target;
	pc->nsessions = cfg->nsessions;
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct trace_session_cfg *s = &cfg->sessions[i];
		struct producer_session *ps = &pc->sessions[i];

		ps->name = s->name;
		ps->clock = s->clock;
		ps->flags = s->flags | (s->merged ? PRODUCER_F_MERGED : 0u);
		ps->stack_cache = s->stack_cache;
		ps->pebs = s->pebs;
		ps->pmc_count = s->pmc_count;
		memcpy(ps->pmc_ids, s->pmc_counters, sizeof(ps->pmc_ids));
		ps->pmc_event_count = s->pmc_event_count;
		memcpy(ps->pmc_events, s->pmc_events, sizeof(ps->pmc_events));
	}
}

void trace_config_writer(const struct trace_config *cfg, unsigned i, struct writer_opts *wo)
{
	const struct trace_session_cfg *s = &cfg->sessions[i];

	memset(wo, 0, sizeof(*wo));
	wo->path = s->file;
	wo->logger_name = s->name;
	wo->logfile_name = s->file;
	wo->arch = cfg->arch;
	wo->cpus = cfg->cpus;
	wo->buffer_size = s->buffer_size;
	wo->pool_buffers = s->pool_buffers;
	wo->flush_latency = s->flush_latency;
	wo->compress = s->compress;
	wo->clock = (enum etl_clock)s->clock;
	wo->os_major = cfg->target->os_major;
	wo->os_minor = cfg->target->os_minor;
	wo->provider_version = cfg->target->build;
	wo->timer_resolution = cfg->timer_resolution;
	wo->perf_freq = cfg->perf_freq;
	wo->cpu_mhz = cfg->cpu_mhz;
	wo->start_time = cfg->start_time;
	wo->boot_time = cfg->boot_time;
	wo->start_ts = cfg->start_ts[s->clock];
	wo->log_file_mode = ETL_MODE_SYSTEM_LOGGER | ETL_MODE_FILE_MODE_SEQUENTIAL;
	wo->logger_id = (uint16_t)(i + 1);
	producer_group_masks(s->flags, wo->group_masks);
	wo->kernel_event_version = cfg->target->kernel_event_version;
}

int64_t trace_config_filetime(const struct trace_config *cfg, enum sim_clock c, uint64_t v)
{
	uint64_t d = v >= cfg->start_ts[c] ? v - cfg->start_ts[c] : 0;
	uint64_t t100;

	switch (c) {
	case SIM_CLOCK_QPC:
		/* ticks -> 100 ns without overflow: split whole seconds */
		t100 = d / cfg->perf_freq * 10000000u +
		       d % cfg->perf_freq * 10000000u / cfg->perf_freq;
		break;
	case SIM_CLOCK_CYCLES:
		/* cycles / MHz = microseconds; x 10 = 100 ns */
		t100 = d / cfg->cpu_mhz * 10u + d % cfg->cpu_mhz * 10u / cfg->cpu_mhz;
		break;
	default:
		t100 = d;
		break;
	}
	return cfg->start_time + (int64_t)t100;
}
