// SPDX-License-Identifier: MIT
/*
 * tools/run_report.c - the end-of-run summary (see run_report.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "tools/run_report.h"

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

static bool hash_of(const char *path, uint64_t *h)
{
	return strcmp(path, "-") && run_report_file_xxh3(path, h) == 0;
}

void run_report_print(FILE *f, const struct trace_config *cfg, const struct session_run *run,
		      bool json)
{
	const struct producer_stats *ps = &run->pstats;
	uint64_t lost = 0;

	for (unsigned i = 0; i < cfg->nsessions; i++) {
		lost += run->wstats[i].events_lost;
	}
	if (json) {
		fprintf(f, "{\"switches\":%llu,\"spinlock_releases\":%llu,\"batches\":%llu,"
			   "\"batch_records\":%llu,\"batches_by_reason\":{",
			(unsigned long long)ps->switches, (unsigned long long)ps->spinlocks,
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
			uint64_t h;

			fprintf(f, "%s{\"file\":\"", i ? "," : "");
			for (const char *p = cfg->sessions[i].file; *p; p++) {
				if (*p == '"' || *p == '\\') {
					fputc('\\', f);
				}
				if ((unsigned char)*p < 0x20) {
					fprintf(f, "\\u%04x", (unsigned char)*p);
				} else {
					fputc(*p, f);
				}
			}
			fprintf(f, "\",\"events\":%llu,\"events_lost\":%llu,\"buffers\":%llu,"
				   "\"bytes\":%llu,\"bytes_per_switch\":%.3f",
				(unsigned long long)w->events_written,
				(unsigned long long)w->events_lost,
				(unsigned long long)w->buffers_written,
				(unsigned long long)w->bytes_written,
				ps->switches ? (double)w->event_bytes / (double)ps->switches : 0.0);
			if (hash_of(cfg->sessions[i].file, &h)) {
				fprintf(f, ",\"xxh3\":\"%016llx\"", (unsigned long long)h);
			}
			fputc('}', f);
		}
		fprintf(f, "]}\n");
		return;
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
		uint64_t h;

		fprintf(f, "%s: %llu events, %llu buffers, %llu bytes, %.2f bytes/switch",
			cfg->sessions[i].file, (unsigned long long)w->events_written,
			(unsigned long long)w->buffers_written, (unsigned long long)w->bytes_written,
			ps->switches ? (double)w->event_bytes / (double)ps->switches : 0.0);
		if (hash_of(cfg->sessions[i].file, &h)) {
			fprintf(f, ", xxh3 %016llx", (unsigned long long)h);
		}
		fprintf(f, "\n");
	}
}
