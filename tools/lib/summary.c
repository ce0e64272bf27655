// SPDX-License-Identifier: MIT
/*
 * tools/lib/summary.c - the end of a run in numbers (struct etwforge_summary):
 * filled from the producer's and writers' counters, printed as text for
 * people or as the one JSON object `gen --json` and `replay --json` write.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/api.h"
#include "tools/lib/common/json_out.h"

const char *etwforge_flush_reason_name(unsigned reason)
{
	return producer_flush_reason_name((enum producer_flush_reason)reason);
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

void api_summary_fill(struct etwforge_summary *sum, const struct trace_config *cfg,
		      const struct session_run *run, const struct sim_end *end, double wall)
{
	const struct producer_stats *ps = &run->pstats;

	static_assert(ETWFORGE_FLUSH_REASONS == PRODUCER_FLUSH_REASONS, "flush reasons");
	static_assert(ETWFORGE_MAX_SESSIONS == SIM_MAX_SESSIONS, "sessions");
	memset(sum, 0, sizeof(*sum));
	sum->seed = cfg->seed;
	sum->duration_ns = duration_ns(cfg, end);
	sum->cpus = cfg->cpus;
	sum->wall_seconds = wall;
	sum->switches = ps->switches;
	sum->spinlock_releases = ps->spinlocks;
	sum->spinlock_events = ps->spinlock_events;
	sum->batches = ps->batches;
	sum->batch_records = ps->batch_records;
	memcpy(sum->batches_by_reason, ps->batches_by_reason, sizeof(sum->batches_by_reason));
	sum->batches_dropped = ps->batches_dropped;
	sum->nsessions = cfg->nsessions;
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct writer_stats *w = &run->wstats[i];
		struct etwforge_session_summary *s = &sum->sessions[i];

		snprintf(s->name, sizeof(s->name), "%s", cfg->sessions[i].name);
		snprintf(s->file, sizeof(s->file), "%s", cfg->sessions[i].file);
		s->events = w->events_written;
		s->events_lost = w->events_lost;
		s->buffers = w->buffers_written;
		s->bytes = w->bytes_written;
		s->bytes_per_switch =
			ps->switches ? (double)w->event_bytes / (double)ps->switches : 0.0;
		s->xxh3 = w->xxh3;
		s->discarded = w->discarded;
		sum->events_lost += w->events_lost;
	}
}

size_t api_summary_json(const struct etwforge_summary *sum, char *buf, size_t cap)
{
	struct jout j;
	char hex[17];

	jout_init(&j, buf, cap);
	jout_open(&j, '{');
	jout_ku64(&j, "seed", sum->seed);
	jout_ku64(&j, "duration_ns", sum->duration_ns);
	jout_ku64(&j, "cpus", sum->cpus);
	jout_key(&j, "wall_seconds");
	jout_double(&j, sum->wall_seconds, 3);
	jout_ku64(&j, "switches", sum->switches);
	jout_ku64(&j, "spinlock_releases", sum->spinlock_releases);
	jout_ku64(&j, "spinlock_events", sum->spinlock_events);
	jout_ku64(&j, "batches", sum->batches);
	jout_ku64(&j, "batch_records", sum->batch_records);
	jout_key(&j, "batches_by_reason");
	jout_open(&j, '{');
	for (unsigned r = 0; r < ETWFORGE_FLUSH_REASONS; r++) {
		jout_ku64(&j, etwforge_flush_reason_name(r), sum->batches_by_reason[r]);
	}
	jout_close(&j, '}');
	jout_ku64(&j, "batches_dropped", sum->batches_dropped);
	jout_ku64(&j, "events_lost", sum->events_lost);
	jout_key(&j, "sessions");
	jout_open(&j, '[');
	for (unsigned i = 0; i < sum->nsessions; i++) {
		const struct etwforge_session_summary *s = &sum->sessions[i];

		jout_sep(&j);
		jout_open(&j, '{');
		jout_kstr(&j, "name", s->name);
		jout_kstr(&j, "file", s->file);
		jout_ku64(&j, "events", s->events);
		jout_ku64(&j, "events_lost", s->events_lost);
		jout_ku64(&j, "buffers", s->buffers);
		jout_ku64(&j, "bytes", s->bytes);
		jout_key(&j, "bytes_per_switch");
		jout_double(&j, s->bytes_per_switch, 3);
		if (s->discarded) {
			/* the bytes were thrown away unwritten: there is no file to hash */
			jout_key(&j, "xxh3");
			jout_raw(&j, "null", 4);
			jout_kbool(&j, "discarded", true);
		} else {
			snprintf(hex, sizeof(hex), "%016" PRIx64, s->xxh3);
			jout_kstr(&j, "xxh3", hex);
		}
		jout_close(&j, '}');
	}
	jout_close(&j, ']');
	if (sum->nlocks) {
		jout_key(&j, "locks");
		jout_open(&j, '[');
		for (unsigned i = 0; i < sum->nlocks && i < ETWFORGE_MAX_LOCKS; i++) {
			const struct etwforge_lock_summary *l = &sum->locks[i];

			jout_sep(&j);
			jout_open(&j, '{');
			jout_kstr(&j, "name", l->name);
			jout_ku64(&j, "acquisitions", l->acquisitions);
			jout_ku64(&j, "contended", l->contended);
			jout_key(&j, "contended_fraction");
			jout_double(&j,
				    l->acquisitions ? (double)l->contended / (double)l->acquisitions
						    : 0.0,
				    4);
			jout_ku64(&j, "spin_mean_cycles", l->spin_mean);
			jout_ku64(&j, "spin_p99_cycles", l->spin_p99);
			jout_ku64(&j, "hold_mean_cycles", l->hold_mean);
			jout_ku64(&j, "hold_p99_cycles", l->hold_p99);
			jout_key(&j, "logged");
			jout_open(&j, '{');
			jout_ku64(&j, "hold", l->logged_hold);
			jout_ku64(&j, "contended", l->logged_contended);
			jout_ku64(&j, "acquire_sample", l->logged_acquire_sample);
			jout_close(&j, '}');
			jout_ku64(&j, "untracked", l->untracked);
			jout_ku64(&j, "guarded", l->guarded);
			jout_ku64(&j, "dropped", l->dropped);
			jout_close(&j, '}');
		}
		jout_close(&j, ']');
	}
	jout_close(&j, '}');
	jout_raw(&j, "\n", 1);
	return jout_finish(&j);
}

static void print_text(FILE *f, const struct etwforge_summary *sum)
{
	fprintf(f, "switches            %" PRIu64 "\n", sum->switches);
	if (sum->spinlock_releases) {
		fprintf(f, "spinlock releases   %" PRIu64 " (%" PRIu64 " events)\n",
			sum->spinlock_releases, sum->spinlock_events);
	}
	if (sum->batches || sum->batches_dropped) {
		fprintf(f,
			"compact batches     %" PRIu64 " (%" PRIu64 " records, %.1f per batch)\n",
			sum->batches, sum->batch_records,
			sum->batches ? (double)sum->batch_records / (double)sum->batches : 0.0);
		fprintf(f, "  flushed by       ");
		for (unsigned r = 0; r < ETWFORGE_FLUSH_REASONS; r++) {
			fprintf(f, " %s %" PRIu64, etwforge_flush_reason_name(r),
				sum->batches_by_reason[r]);
		}
		fprintf(f, "\n");
		if (sum->batches_dropped) {
			fprintf(f, "  dropped at end    %" PRIu64 "\n", sum->batches_dropped);
		}
	}
	if (sum->nlocks) {
		fprintf(f, "spin locks          %-24s %10s %7s %17s %17s %23s %9s %9s\n", "",
			"acquired", "spun", "spin mean/p99", "hold mean/p99",
			"logged hold/cont/sample", "untracked", "dropped");
		for (unsigned i = 0; i < sum->nlocks && i < ETWFORGE_MAX_LOCKS; i++) {
			const struct etwforge_lock_summary *l = &sum->locks[i];
			char spin[40], hold[40], logged[48];

			snprintf(spin, sizeof(spin), "%" PRIu64 "/%" PRIu64, l->spin_mean,
				 l->spin_p99);
			snprintf(hold, sizeof(hold), "%" PRIu64 "/%" PRIu64, l->hold_mean,
				 l->hold_p99);
			snprintf(logged, sizeof(logged), "%" PRIu64 "/%" PRIu64 "/%" PRIu64,
				 l->logged_hold, l->logged_contended, l->logged_acquire_sample);
			fprintf(f,
				"  %-42s %10" PRIu64 " %6.2f%% %17s %17s %23s %9" PRIu64
				" %9" PRIu64 "\n",
				l->name, l->acquisitions,
				l->acquisitions
					? 100.0 * (double)l->contended / (double)l->acquisitions
					: 0.0,
				spin, hold, logged, l->untracked, l->dropped);
		}
		fprintf(f, "  (cycles; spin over the acquisitions that spun)\n");
	}
	fprintf(f, "events lost         %" PRIu64 "\n", sum->events_lost);
	for (unsigned i = 0; i < sum->nsessions; i++) {
		const struct etwforge_session_summary *s = &sum->sessions[i];

		fprintf(f,
			"%s: %" PRIu64 " events, %" PRIu64 " buffers, %" PRIu64
			" bytes, %.2f bytes/switch, ",
			s->file, s->events, s->buffers, s->bytes, s->bytes_per_switch);
		if (s->discarded) {
			fprintf(f, "discarded (not written, no xxh3)\n");
		} else {
			fprintf(f, "xxh3 %016" PRIx64 "\n", s->xxh3);
		}
	}
}

int etwforge_summary_print(FILE *f, const struct etwforge_summary *sum, bool json)
{
	if (json) {
		size_t cap = 4096 + ETWFORGE_MAX_SESSIONS * 4400 + (size_t)sum->nlocks * 640;
		char *buf = malloc(cap);
		size_t n;

		if (!buf) {
			return -ENOMEM;
		}
		n = api_summary_json(sum, buf, cap);
		fwrite(buf, 1, n < cap ? n : cap - 1, f);
		free(buf);
	} else {
		print_text(f, sum);
	}
	return ferror(f) ? -EIO : 0;
}
