// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/summary.c - the end of a run in numbers (struct
 * etwforge_summary): filled from the producer's and writers' counters, the
 * one JSON object `gen --json` and `replay --json` write, and the note a
 * run that logged nothing leaves.
 */
#include "tools/lib/run/summary.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/json_out.h"

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

void summary_fill(struct etwforge_summary *sum, const struct trace_config *cfg,
		  const struct session_run *run, const struct sim_end *end, double wall)
{
	const struct producer_stats *ps = &run->pstats;

	static_assert(SUMMARY_FLUSH_REASONS == PRODUCER_FLUSH_REASONS, "flush reasons");
	static_assert(SUMMARY_MAX_SESSIONS == SIM_MAX_SESSIONS, "sessions");
	memset(sum, 0, sizeof(*sum));
	sum->t.seed = cfg->seed;
	sum->t.duration_ns = duration_ns(cfg, end);
	sum->t.cpus = cfg->cpus;
	sum->t.wall_seconds = wall;
	sum->t.switches = ps->switches;
	sum->t.spinlock_releases = ps->spinlocks;
	sum->t.spinlock_events = ps->spinlock_events;
	sum->t.batches = ps->batches;
	sum->t.batch_records = ps->batch_records;
	memcpy(sum->batches_by_reason, ps->batches_by_reason, sizeof(sum->batches_by_reason));
	sum->t.batches_dropped = ps->batches_dropped;
	sum->nsessions = cfg->nsessions;
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct writer_stats *w = &run->wstats[i];
		struct etwforge_session_summary *s = &sum->sessions[i];

		snprintf(sum->session_name[i], sizeof(sum->session_name[i]), "%s",
			 cfg->sessions[i].name);
		snprintf(sum->session_file[i], sizeof(sum->session_file[i]), "%s",
			 cfg->sessions[i].file);
		s->name = sum->session_name[i];
		s->file = sum->session_file[i];
		s->events = w->events_written;
		s->events_lost = w->events_lost;
		s->buffers = w->buffers_written;
		s->bytes = w->bytes_written;
		s->bytes_per_switch =
			ps->switches ? (double)w->event_bytes / (double)ps->switches : 0.0;
		s->xxh3 = w->xxh3;
		s->discarded = w->discarded;
		sum->t.events_lost += w->events_lost;
	}
}

size_t summary_json(const struct etwforge_summary *sum, char *buf, size_t cap)
{
	struct jout j;
	char hex[17];

	jout_init(&j, buf, cap);
	jout_open(&j, '{');
	jout_ku64(&j, "seed", sum->t.seed);
	jout_ku64(&j, "duration_ns", sum->t.duration_ns);
	jout_ku64(&j, "cpus", sum->t.cpus);
	jout_key(&j, "wall_seconds");
	jout_double(&j, sum->t.wall_seconds, 3);
	jout_ku64(&j, "switches", sum->t.switches);
	jout_ku64(&j, "spinlock_releases", sum->t.spinlock_releases);
	jout_ku64(&j, "spinlock_events", sum->t.spinlock_events);
	jout_ku64(&j, "batches", sum->t.batches);
	jout_ku64(&j, "batch_records", sum->t.batch_records);
	jout_key(&j, "batches_by_reason");
	jout_open(&j, '{');
	for (unsigned r = 0; r < SUMMARY_FLUSH_REASONS; r++) {
		jout_ku64(&j, producer_flush_reason_name((enum producer_flush_reason)r),
			  sum->batches_by_reason[r]);
	}
	jout_close(&j, '}');
	jout_ku64(&j, "batches_dropped", sum->t.batches_dropped);
	jout_ku64(&j, "events_lost", sum->t.events_lost);
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
		for (unsigned i = 0; i < sum->nlocks && i < SUMMARY_MAX_LOCKS; i++) {
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

void summary_note_empty(FILE *notes, const char *prog, const struct etwforge_summary *sum,
			const char *span)
{
	if (sum->t.switches || sum->t.spinlock_releases) {
		return;
	}
	if (span) {
		fprintf(notes,
			"etwforge %s: note: no context switch or spin lock in %s of simulated "
			"time: the files hold their headers only\n",
			prog, span);
	} else {
		fprintf(notes,
			"etwforge %s: note: the stream has no context switch or spin lock: the "
			"files hold their headers only\n",
			prog);
	}
}
