// SPDX-License-Identifier: MIT
/*
 * tools/lib/run_report.c - the end-of-run summary (see run_report.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "tools/lib/run_report.h"

int run_report_file_xxh3(const char *path, uint64_t *out)
{
	static unsigned char buf[1 << 16];
	XXH3_state_t *st;
	FILE *f;
	size_t n;
	int rc = 0;

	f = fopen(path, "rb");
	if (!f) {
		return -errno;
	}
	st = XXH3_createState();
	if (!st) {
		fclose(f);
		return -ENOMEM;
	}
	XXH3_64bits_reset(st);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		XXH3_64bits_update(st, buf, n);
	}
	if (ferror(f)) {
		rc = -EIO;
	}
	*out = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	fclose(f);
	return rc;
}

static void json_string(FILE *f, const char *str)
{
	fputc('"', f);
	for (const char *p = str; *p; p++) {
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
		}
		if ((unsigned char)*p < 0x20) {
			fprintf(f, "\\u%04x", (unsigned char)*p);
		} else {
			fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Simulated (or streamed) time from session start to @end, in ns. */
static uint64_t duration_ns(const struct trace_config *cfg, const struct sim_end *end)
{
	for (unsigned c = SIM_CLOCK_QPC; c < SIM_CLOCK_SLOTS; c++) {
		if (trace_config_clock_used(cfg, (enum sim_clock)c)) {
			int64_t ft = trace_config_filetime(cfg, (enum sim_clock)c, end->ts[c]);

			return ft > cfg->start_time ? (uint64_t)(ft - cfg->start_time) * 100u : 0;
		}
	}
	return 0;
}

static void print_json(FILE *f, const struct trace_config *cfg, const struct session_run *run,
		       const struct sim_end *end, double wall_s)
{
	const struct producer_stats *ps = &run->pstats;
	uint64_t lost = 0;

	for (unsigned i = 0; i < cfg->nsessions; i++) {
		lost += run->wstats[i].events_lost;
	}
	fprintf(f,
		"{\"seed\":%llu,\"duration_ns\":%llu,\"cpus\":%u,\"wall_seconds\":%.3f,"
		"\"switches\":%llu,\"spinlock_releases\":%llu,\"batches\":%llu,"
		"\"batch_records\":%llu,\"batches_by_reason\":{",
		(unsigned long long)cfg->seed, (unsigned long long)duration_ns(cfg, end), cfg->cpus,
		wall_s, (unsigned long long)ps->switches, (unsigned long long)ps->spinlocks,
		(unsigned long long)ps->batches, (unsigned long long)ps->batch_records);
	for (unsigned r = 0; r < PRODUCER_FLUSH_REASONS; r++) {
		fprintf(f, "%s\"%s\":%llu", r ? "," : "",
			producer_flush_reason_name((enum producer_flush_reason)r),
			(unsigned long long)ps->batches_by_reason[r]);
	}
	fprintf(f, "},\"batches_dropped\":%llu,\"events_lost\":%llu,\"sessions\":[",
		(unsigned long long)ps->batches_dropped, (unsigned long long)lost);
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct writer_stats *w = &run->wstats[i];

		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_string(f, cfg->sessions[i].name);
		fprintf(f, ",\"file\":");
		json_string(f, cfg->sessions[i].file);
		fprintf(f,
			",\"events\":%llu,\"events_lost\":%llu,\"buffers\":%llu,"
			"\"bytes\":%llu,\"bytes_per_switch\":%.3f,\"xxh3\":\"%016llx\"}",
			(unsigned long long)w->events_written, (unsigned long long)w->events_lost,
			(unsigned long long)w->buffers_written, (unsigned long long)w->bytes_written,
			ps->switches ? (double)w->event_bytes / (double)ps->switches : 0.0,
			(unsigned long long)w->xxh3);
	}
	fprintf(f, "]}\n");
}

void run_report_print(FILE *f, const struct trace_config *cfg, const struct session_run *run,
		      const struct sim_end *end, double wall_s, bool json)
{
	const struct producer_stats *ps = &run->pstats;
	uint64_t lost = 0;

	if (json) {
		print_json(f, cfg, run, end, wall_s);
		return;
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		lost += run->wstats[i].events_lost;
	}
	fprintf(f, "switches            %llu\n", (unsigned long long)ps->switches);
	if (ps->spinlocks) {
		fprintf(f, "spinlock releases   %llu (%llu events)\n",
			(unsigned long long)ps->spinlocks, (unsigned long long)ps->spinlock_events);
	}
	if (ps->batches || ps->batches_dropped) {
		fprintf(f, "compact batches     %llu (%llu records, %.1f per batch)\n",
			(unsigned long long)ps->batches, (unsigned long long)ps->batch_records,
			ps->batches ? (double)ps->batch_records / (double)ps->batches : 0.0);
		fprintf(f, "  flushed by       ");
		for (unsigned r = 0; r < PRODUCER_FLUSH_REASONS; r++) {
			fprintf(f, " %s %llu", producer_flush_reason_name((enum producer_flush_reason)r),
				(unsigned long long)ps->batches_by_reason[r]);
		}
		fprintf(f, "\n");
		if (ps->batches_dropped) {
			fprintf(f, "  dropped at end    %llu\n", (unsigned long long)ps->batches_dropped);
		}
	}
	fprintf(f, "events lost         %llu\n", (unsigned long long)lost);
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct writer_stats *w = &run->wstats[i];

		fprintf(f, "%s: %llu events, %llu buffers, %llu bytes, %.2f bytes/switch, xxh3 %016llx\n",
			cfg->sessions[i].file, (unsigned long long)w->events_written,
			(unsigned long long)w->buffers_written, (unsigned long long)w->bytes_written,
			ps->switches ? (double)w->event_bytes / (double)ps->switches : 0.0,
			(unsigned long long)w->xxh3);
	}
}
