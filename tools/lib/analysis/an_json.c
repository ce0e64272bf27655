// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/an_json.c - an analysis's counts as JSON members
 * (analysis.h): what `dump --stats --jsonl` adds to the file's counts
 * about where the CPU went, by process and by CPU, and about the samples'
 * images and stacks.
 */
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/analysis/state.h"
#include "tools/lib/common/json_out.h"

void analysis_json(struct jout *j, const void *ctx)
{
	const struct etwforge_analysis *a = ctx;
	const struct etwforge_analysis_totals *t = analysis_totals(a);
	uint64_t named_ns = 0;

	jout_ku64(j, "wakeups", t->wakeups);
	jout_ku64(j, "samples_in_image", t->samples_in_image);
	jout_ku64(j, "samples_stacked", t->samples_stacked);
	jout_ku64(j, "images", t->images);
	jout_key(j, "stacks");
	jout_open(j, '{');
	jout_ku64(j, "records", t->stack_records);
	jout_ku64(j, "keys_unresolved", t->keys_unresolved);
	jout_ku64(j, "events", t->stack_events);
	jout_ku64(j, "distinct", t->stacks);
	jout_ku64(j, "frames", t->frames);
	jout_ku64(j, "frames_in_image", t->frames_in_image);
	jout_close(j, '}');
	jout_key(j, "cpu_time");
	jout_open(j, '{');
	jout_ku64(j, "busy_ns", t->busy_ns);
	jout_ku64(j, "idle_ns", t->idle_ns);
	jout_ku64(j, "unknown_ns", t->unknown_ns);
	jout_kbool(j, "from_samples", t->cpu_from_samples);
	jout_key(j, "by_process");
	jout_open(j, '[');
	for (size_t i = 0; i < t->processes; i++) {
		const struct etwforge_process_row *p = analysis_process(a, i);

		if (!p) {
			break;
		}
		named_ns += p->cpu_ns;
		jout_sep(j);
		jout_open(j, '{');
		jout_ku64(j, "pid", p->pid);
		jout_kstr(j, "image", p->image);
		jout_ku64(j, "cpu_ns", p->cpu_ns);
		jout_ku64(j, "switch_ins", p->switch_ins);
		jout_ku64(j, "samples", p->samples);
		jout_ku64(j, "threads", p->threads);
		jout_close(j, '}');
	}
	jout_close(j, ']');
	/* threads no Process record's process holds */
	jout_ku64(j, "outside_processes_ns", t->busy_ns > named_ns ? t->busy_ns - named_ns : 0);
	jout_key(j, "by_cpu");
	jout_open(j, '[');
	for (unsigned i = 0; i < analysis_cpus(a); i++) {
		const struct etwforge_cpu_row *c = analysis_cpu(a, i);

		jout_sep(j);
		jout_open(j, '{');
		jout_ku64(j, "cpu", c->cpu);
		jout_ku64(j, "busy_ns", c->busy_ns);
		jout_ku64(j, "idle_ns", c->idle_ns);
		jout_ku64(j, "unknown_ns", c->unknown_ns);
		jout_close(j, '}');
	}
	jout_close(j, ']');
	jout_close(j, '}');
}
