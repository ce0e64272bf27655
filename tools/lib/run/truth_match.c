// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/truth_match.c - see truth_match.h. The header fields are the
 * ones the writer fills from the meta line, so a file and its own truth
 * always agree, also for a stream typed by hand and replayed.
 */
#include "tools/lib/run/truth_match.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* One field: the truth's value and the file's, as unsigned 64-bit. */
struct field {
	const char *meta;   /* the meta line's name */
	const char *header; /* the logfile header's */
	uint64_t want;
	uint64_t got;
};

int truth_match(const struct trace_config *cfg, int session, const struct etl_logfile *lf,
		const char *truth, const char *etl, struct etwforge_error *err)
{
	const struct trace_session_cfg *s = NULL;

	if (session < 0) {
		for (unsigned i = 0; i < cfg->nsessions && !s; i++) {
			if (!strcmp(cfg->sessions[i].name, lf->logger_name)) {
				s = &cfg->sessions[i];
			}
		}
		if (!s) {
			return error_fail_at(
				err, -EBADMSG, ERR_DATA,
				"%s is not the truth of %s: none of its sessions is named \"%s\" "
				"(the file's LoggerName)",
				truth, etl, lf->logger_name);
		}
	} else {
		s = &cfg->sessions[session];
	}
	const struct field fields[] = {
		{"cpus", "NumberOfProcessors", cfg->cpus, lf->number_of_processors},
		{"arch", "PointerSize", cfg->arch == ETL_ARCH_X86 ? 4u : 8u, lf->pointer_size},
		{"target", "ProviderVersion", cfg->target->build, lf->provider_version},
		{"timer_resolution", "TimerResolution", cfg->timer_resolution,
		 lf->timer_resolution},
		{"cpu_mhz", "CpuSpeedInMHz", cfg->cpu_mhz, lf->cpu_speed_mhz},
		{"perf_freq", "PerfFreq", cfg->perf_freq, (uint64_t)lf->perf_freq},
		{"start_time", "StartTime", (uint64_t)cfg->start_time, (uint64_t)lf->start_time},
		{"boot_time", "BootTime", (uint64_t)cfg->boot_time, (uint64_t)lf->boot_time},
		{"clock", "ReservedFlags", (uint64_t)s->clock, lf->reserved_flags},
		{"buffer_size", "BufferSize", s->buffer_size, lf->buffer_size},
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];
		char whose[TRACE_NAME_MAX + 16] = "";

		if (f->want == f->got) {
			continue;
		}
		if (i >= 8) {
			snprintf(whose, sizeof(whose), "session \"%s\" ", s->name);
		}
		if (i == 1) {
			error_fail_at(
				err, -EBADMSG, ERR_DATA,
				"%s is not the truth of %s: its arch is %s, the file's PointerSize "
				"is %" PRIu64,
				truth, etl, cfg->arch == ETL_ARCH_X86 ? "x86" : "x64", f->got);
		} else if (i == 2) {
			error_fail_at(err, -EBADMSG, ERR_DATA,
				      "%s is not the truth of %s: its target is %s (build %" PRIu64
				      "), the file's ProviderVersion is %" PRIu64,
				      truth, etl, cfg->target->name, f->want, f->got);
		} else if (i == 8) {
			error_fail_at(err, -EBADMSG, ERR_DATA,
				      "%s is not the truth of %s: its %sclock is %s (%" PRIu64
				      "), the file's %s is %" PRIu64,
				      truth, etl, whose, sim_clock_name(s->clock), f->want,
				      f->header, f->got);
		} else {
			error_fail_at(err, -EBADMSG, ERR_DATA,
				      "%s is not the truth of %s: its %s%s is %" PRIu64
				      ", the file's %s is %" PRIu64,
				      truth, etl, whose, f->meta, f->want, f->header, f->got);
		}
		return -EBADMSG;
	}
	return 0;
}
