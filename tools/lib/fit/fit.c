// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit.c - `etwforge fit`: one full analysis of a trace read
 * into a scenario that gen runs into a trace like it.
 *
 *   file ──► analysis (FULL; slices and samples handed out only to say
 *   │        how far the pass is) ──► tables: threads, processes, images,
 *   │                                 sampled addresses
 *   └─ header ──► machine, session      │
 *                                       ├─► fit_groups.c: threads[]
 *                                       └─► fit_images.c: images, hot
 *
 * Memory: the analysis's tables (threads, processes, images, distinct
 * sampled addresses), not the trace's length. Output: the same bytes for
 * the same file (no clock, no address of ours, no hash order).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "producer/targets.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/common/error.h"
#include "tools/lib/fit/fit.h"
#include "tools/lib/fit/fit_groups.h"
#include "tools/lib/fit/fit_images.h"
#include "tools/lib/fit/fit_locks.h"
#include "tools/lib/fit/fit_model.h"
#include "tools/lib/read/read.h"

#define STATE_WAITING	5u /* KTHREAD_STATE Waiting: a switch-out that ends a burst of work */
#define ITEMS_PER_NOTE	65536u
#define ANALYSIS_SHARE	0.75 /* of the progress line: the analysis; the rest the stack tally */
#define RUNDOWN_SPAN_NS 1000000000u /* a rundown-only lookalike's length */
#define BUSY_SHARE	0.01	    /* a thread that ran this share of its time is busy */

/* ---- the pass ----------------------------------------------------------- */

/* The stack tally's progress: its offset in the file, after the analysis's share. */
static void stacks_progress(void *ctx, uint64_t offset)
{
	struct fit *fit = ctx;
	double len = (double)fit->info->buffers * (double)fit->info->buffer_size;
	double done = len > 0 ? (double)offset / len : 0;

	done = done > 1 ? 1 : done;
	fit->o->progress(fit->o->progress_ctx, ANALYSIS_SHARE + (0.999 - ANALYSIS_SHARE) * done);
}

/* Where a slice or sample's thread ran and (a sample) at what priority. Return: 0, -ENOMEM. */
static int note_seen(struct fit *fit, const struct etwforge_item *it)
{
	size_t row = (size_t)it->thread;
	struct fit_seen *s;

	if (row >= fit->nseen) {
		size_t n = fit->nseen ? fit->nseen : 256;
		struct fit_seen *v;

		while (n <= row) {
			n *= 2;
		}
		v = realloc(fit->seen, n * sizeof(*v));
		if (!v) {
			return -ENOMEM;
		}
		memset(v + fit->nseen, 0, (n - fit->nseen) * sizeof(*v));
		for (size_t i = fit->nseen; i < n; i++) {
			v[i].last_cpu = UINT_MAX;
		}
		fit->seen = v;
		fit->nseen = n;
	}
	s = &fit->seen[row];
	if (it->cpu < 64) {
		s->cpus |= 1ull << it->cpu;
	} else {
		s->wide = true;
	}
	s->items += s->items < UINT32_MAX;
	s->moves += s->last_cpu != UINT_MAX && s->last_cpu != it->cpu && s->moves < UINT32_MAX;
	s->last_cpu = it->cpu;
	if (it->kind == ETWFORGE_ITEM_SAMPLE) {
		s->prio[(it->reason >> 3) & 31u]++;
	}
	return 0;
}

/* The analysis's pass, then the stack tally's (kept apart: flat memory on a long trace). */
static int read_all(struct fit *fit, struct etwforge_error *err)
{
	const struct etwforge_item *it;
	uint64_t items = 0;
	int rc;

	while ((rc = analysis_next(fit->a, &it, err)) == 1) {
		if (it->kind == ETWFORGE_ITEM_SPIN) {
			if (fit_locks_note(fit->locks, it) < 0) {
				return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			}
			continue;
		}
		if (it->thread >= 0 && note_seen(fit, it) < 0) {
			return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		}
		fit->last_ns = it->t1 > fit->last_ns ? it->t1 : fit->last_ns;
		if (++items % ITEMS_PER_NOTE == 0 && fit->o->progress) {
			const struct etwforge_analysis_totals *t = analysis_totals(fit->a);
			double span = (double)(t->end_ns - t->from_ns);
			double done = span > 0 ? (double)(it->t0 - t->from_ns) / span : 0;

			done = done < 0 ? 0 : done > 1 ? 1 : done;
			fit->o->progress(fit->o->progress_ctx, ANALYSIS_SHARE * done);
		}
	}
	if (rc == 0) {
		rc = fit_stacks_read(fit->f, read_file_keep_going(fit->f), &fit->stk,
				     fit->o->progress ? stacks_progress : NULL, fit, err);
	}
	if (rc == 0 && fit->o->progress) {
		fit->o->progress(fit->o->progress_ctx, 1.0);
	}
	return rc;
}

/* ---- processes and threads --------------------------------------------- */

/* A process and what it is ranked by (CPU time, then threads, then its index). */
struct rank {
	uint64_t cpu;
	size_t threads, i;
};

static int cmp_rank(const void *x, const void *y)
{
	const struct rank *a = x, *b = y;

	if (a->cpu != b->cpu) {
		return a->cpu > b->cpu ? -1 : 1;
	}
	if (a->threads != b->threads) {
		return a->threads > b->threads ? -1 : 1;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

/* A thread index and what it is sorted by: its process, then its row. */
struct by_proc {
	size_t proc, row, i;
};

static int cmp_thread(const void *x, const void *y)
{
	const struct by_proc *a = x, *b = y;

	if (a->proc != b->proc) {
		return a->proc < b->proc ? -1 : 1;
	}
	return a->row < b->row ? -1 : a->row > b->row;
}

/* The process of PID 4, made on first need. Return: its index, SIZE_MAX out of memory. */
static size_t system_proc(struct fit *fit, size_t *sys)
{
	if (*sys == SIZE_MAX) {
		struct fit_proc *p = &fit->pr[fit->npr];

		memset(p, 0, sizeof(*p));
		p->row = -1;
		p->system = true;
		p->pid = 4;
		p->start_ns = INT64_MIN;
		p->end_ns = INT64_MAX;
		snprintf(p->name, sizeof(p->name), "System");
		snprintf(p->image, sizeof(p->image), "System");
		*sys = fit->npr++;
	}
	return *sys;
}

static int read_tables(struct fit *fit)
{
	const struct etwforge_analysis_totals *t = fit->tot;
	size_t *proc_of = calloc(t->processes + 1, sizeof(*proc_of));
	size_t sys = SIZE_MAX;

	fit->pr = calloc(t->processes + 2, sizeof(*fit->pr));
	fit->th = calloc(t->threads + 1, sizeof(*fit->th));
	fit->order = calloc(t->threads + 1, sizeof(*fit->order));
	if (!proc_of || !fit->pr || !fit->th || !fit->order) {
		free(proc_of);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->processes; i++) {
		const struct etwforge_process_row *r = analysis_process(fit->a, i);
		struct fit_proc *p;

		proc_of[i] = SIZE_MAX;
		if (r->pid == 0) {
			continue; /* Idle: every machine has it */
		}
		if (r->pid == 4) {
			proc_of[i] = system_proc(fit, &sys);
			fit->pr[sys].row = (int64_t)i;
			continue;
		}
		p = &fit->pr[fit->npr];
		p->row = (int64_t)i;
		p->pid = r->pid;
		p->ppid = r->ppid;
		p->start_ns = r->start_ns;
		p->end_ns = r->end_ns;
		p->image_in = r->image ? r->image : "";
		proc_of[i] = fit->npr++;
	}
	for (size_t i = 0; i < t->threads; i++) {
		const struct etwforge_thread_row *r = analysis_thread(fit->a, i);
		struct fit_thread *th = &fit->th[fit->nth];
		size_t pi;
		int64_t lo, hi;

		if (r->pid == 0 && r->process < 0) {
			continue; /* the idle threads */
		}
		if (r->pid == 4 && (r->process < 0 || proc_of[r->process] == SIZE_MAX)) {
			pi = system_proc(fit, &sys);
		} else if (r->process >= 0 && proc_of[r->process] != SIZE_MAX) {
			pi = proc_of[r->process];
		} else {
			continue; /* a thread of no process the trace names */
		}
		th->row = i;
		th->proc = pi;
		th->group = SIZE_MAX;
		th->cpu_ns = r->cpu_ns;
		th->samples = r->samples;
		th->vol = r->nstates > STATE_WAITING ? r->states[STATE_WAITING] : r->waits;
		lo = r->start_ns > fit->from_ns ? r->start_ns : fit->from_ns;
		hi = r->end_ns < fit->to_ns ? r->end_ns : fit->to_ns;
		th->life_ns = hi > lo ? (double)(hi - lo) : 0;
		th->exposure = th->life_ns - (double)r->cpu_ns;
		if (th->exposure < 1000) {
			th->exposure = 1000;
		}
		th->mid_ns = lo + (hi > lo ? (hi - lo) / 2 : 0);
		th->ran = r->cpu_ns > 0 || r->samples > 0 || r->switch_ins > 0;
		th->cls = !th->ran					  ? FIT_IDLE
			  : (double)r->cpu_ns >= BUSY_SHARE * th->life_ns ? FIT_BUSY
									  : FIT_RAN;
		{
			const struct fit_proc *p = &fit->pr[pi];
			int64_t born = p->start_ns > fit->from_ns ? p->start_ns : fit->from_ns;

			th->at_start = r->start_ns <= born + 5000000;
		}
		if (!th->at_start && r->end_ns < INT64_MAX && r->end_ns <= fit->to_ns) {
			th->cls = FIT_CHURN; /* came and went: with its like, apart from the rest */
		}
		fit->pr[pi].nthreads++;
		fit->pr[pi].nran += th->ran;
		fit->pr[pi].cpu_ns += th->cpu_ns;
		fit->nth++;
	}
	free(proc_of);
	{
		struct by_proc *o = calloc(fit->nth + 1, sizeof(*o));

		if (!o) {
			return -ENOMEM;
		}
		for (size_t i = 0; i < fit->nth; i++) {
			o[i] = (struct by_proc){fit->th[i].proc, fit->th[i].row, i};
		}
		qsort(o, fit->nth, sizeof(*o), cmp_thread);
		for (size_t i = 0; i < fit->nth; i++) {
			fit->order[i] = o[i].i;
		}
		free(o);
	}
	for (size_t i = fit->nth; i-- > 0;) {
		fit->pr[fit->th[fit->order[i]].proc].first = i;
	}
	return 0;
}

/* Names for the processes: unique, never Idle or System but System's own. */
static int name_processes(struct fit *fit)
{
	for (size_t i = 0; i < fit->npr; i++) {
		struct fit_proc *p = &fit->pr[i];
		unsigned dup = 1;
		int rc;

		if (p->system) {
			continue;
		}
		if ((rc = fit_name(&fit->names, FIT_NAME_PROCESS,
				   *p->image_in ? p->image_in : "unnamed.exe", p->image,
				   sizeof(p->image)))) {
			return rc;
		}
		for (;;) {
			bool taken =
				!strcasecmp(p->image, "System") || !strcasecmp(p->image, "Idle");

			if (dup == 1) {
				snprintf(p->name, sizeof(p->name), "%s", p->image);
			} else {
				snprintf(p->name, sizeof(p->name), "%.60s#%u", p->image, dup);
			}
			taken = dup == 1 && taken;
			for (size_t j = 0; j < i && !taken; j++) {
				taken = !strcmp(fit->pr[j].name, p->name);
			}
			if (!taken) {
				break;
			}
			dup++;
		}
	}
	return 0;
}

/* ---- the document ------------------------------------------------------- */

static const char *target_of(struct fit *fit, struct fit_node *machine)
{
	const struct etw_target *tg = etw_target_by_build(fit->info->provider_version);

	if (!tg) {
		tg = etw_target_at(0);
		fit_comment(machine,
			    "the trace's build (%" PRIu32 ") is older than any target: "
			    "the oldest, %s",
			    fit->info->provider_version, tg->name);
	}
	fit->max_wait_reason = tg->max_wait_reason;
	return tg->name;
}

static int write_machine(struct fit *fit)
{
	const struct etwforge_file_info *in = fit->info;
	struct fit_node *m = fit_add_map(fit->root, "machine"), *r;
	uint64_t tr = in->timer_resolution;

	fit_comment(m, "the machine of the trace's header");
	fit_add_u64(m, "cpus",
		    in->cpus && in->cpus <= 1024 ? in->cpus
		    : fit->tot->cpus		 ? fit->tot->cpus
						 : 1);
	if (in->cpu_mhz >= 1 && in->cpu_mhz <= 100000) {
		fit_add_u64(m, "cpu_mhz", in->cpu_mhz);
	}
	if (in->perf_freq >= 1 && in->perf_freq <= 10000000000ll) {
		fit_add_u64(m, "perf_freq", (uint64_t)in->perf_freq);
	}
	if (tr) {
		fit_add_u64(m, "timer_resolution", tr < 5000 ? 5000 : tr > 156250 ? 156250 : tr);
	}
	fit_add_word(m, "target", target_of(fit, m));
	fit_add_word(m, "arch",
		     in->pointer_size == 4 || (!in->is64 && in->pointer_size != 8) ? "x86" : "x64");
	if (fit->o->anonymize == FIT_ANON_NONE && in->start_time > 0 && in->boot_time > 0 &&
	    in->boot_time <= in->start_time) {
		fit_add_u64(m, "start_time", (uint64_t)in->start_time);
		fit_add_u64(m, "boot_time", (uint64_t)in->boot_time);
	}
	r = fit_add_word(m, "realism", "lived-in");
	fit_comment(r, "computer name, memory size: not read from the trace (gen's defaults)");
	if (fit->o->anonymize != FIT_ANON_NONE) {
		fit_comment(r, "start and boot time: drawn from the seed (anonymized)");
	}
	fit_comment(fit_add_word(m, "background", "none"),
		    "the trace's own processes are listed below, nothing else");
	return m ? 0 : -ENOMEM;
}

static bool merged_trace(const struct fit *fit)
{
	for (size_t i = 0; i < fit->tot->images; i++) {
		if (analysis_image(fit->a, i)->pdb) {
			return true;
		}
	}
	return false;
}

static int write_session(struct fit *fit)
{
	static const char *const clocks[] = {"qpc", "qpc", "systime", "cycles"};
	const struct etwforge_analysis_totals *t = fit->tot;
	struct fit_node *list = fit_add_list(fit->root, "sessions");
	struct fit_node *s = fit_add_map(list, NULL), *flags, *stacks;
	const char *logger = fit->info->logger_name ? fit->info->logger_name : "";
	char name[128];
	uint64_t bs = fit->info->buffer_size;

	fit_comment(list, "one session: what the trace's events show it logged");
	if (fit->o->anonymize == FIT_ANON_NONE && *logger) {
		fit_ascii(logger, name, sizeof(name));
	} else if (!strcasecmp(logger, "NT Kernel Logger") && fit->o->anonymize == FIT_ANON_NAMES) {
		snprintf(name, sizeof(name), "NT Kernel Logger");
	} else {
		snprintf(name, sizeof(name), "etwforge session");
	}
	fit_add_str(s, "name", name);
	fit_add_word(s, "clock", clocks[fit->info->clock_type < 4 ? fit->info->clock_type : 1]);
	flags = fit_add_list(s, "flags");
	flags->flow = flags ? true : false;
	if (t->switches) {
		fit_add_word(flags, NULL, "cswitch");
	}
	if (t->compact) {
		fit_add_word(flags, NULL, "compact_cswitch");
	}
	if (t->processes || t->threads) {
		fit_add_word(flags, NULL, "proc_thread");
	}
	if (t->readies) {
		fit_add_word(flags, NULL, "dispatcher");
	}
	if (t->samples) {
		fit_add_word(flags, NULL, "profile");
	}
	if (t->images) {
		fit_add_word(flags, NULL, "loader");
	}
	if (t->spins) {
		fit_add_word(flags, NULL, "spinlock");
		fit_comment(flags, "%" PRIu64 " spin-lock releases: see locks", t->spins);
	}
	if (!flags || flags->n == 0) {
		/* a session logs something: the trace shows nothing gen writes */
		fit_add_word(flags, NULL, "proc_thread");
		fit_comment(flags, "the trace has no event gen writes: processes and threads only");
	}
	fit_comment(flags, "DPC and interrupt records: not read (not in the flags)");
	stacks = fit_add_list(s, "stacks");
	if (stacks) {
		stacks->flow = true;
	}
	if (fit->stk.samples && t->samples) {
		fit_add_word(stacks, NULL, "profile");
	}
	if (t->switches && fit->stk.events > fit->stk.samples) {
		fit_add_word(stacks, NULL, "cswitch");
		fit_comment(stacks,
			    "%" PRIu64 " stacks of events other than samples: given to "
			    "context switches (the file does not say which events)",
			    fit->stk.events - fit->stk.samples);
	}
	if (fit->stk.events) {
		fit_comment(stacks,
			    "stack shapes: gen's own (a function's callers), not the trace's");
	}
	if (t->images && merged_trace(fit)) {
		fit_add_bool(s, "merged", true);
	}
	if (bs >= 4096 && bs <= 16u * 1024 * 1024 && bs % 4096 == 0) {
		fit_add_u64(s, "buffer_size", bs);
	}
	return s ? 0 : -ENOMEM;
}

/* The name @ppid has in the scenario: a listed process's, System, a PID, or none. */
static void parent_of(struct fit *fit, const struct fit_proc *p, struct fit_node *m)
{
	if (p->ppid == 4) {
		fit_add_str(m, "parent", "System");
		return;
	}
	for (size_t j = 0; j < fit->npr; j++) {
		const struct fit_proc *q = &fit->pr[j];

		if (q != p && q->listed && !q->system && q->pid == p->ppid &&
		    q->start_ns <= (p->start_ns > INT64_MIN ? p->start_ns : INT64_MIN)) {
			fit_add_str(m, "parent", q->name);
			return;
		}
	}
	if (fit->o->anonymize == FIT_ANON_NONE && p->ppid % 4 == 0 && p->ppid >= 8 &&
	    p->ppid <= 4092 && p->ppid != p->pid) {
		fit_add_u64(m, "parent", p->ppid);
	}
}

static bool pid_unique(const struct fit *fit, const struct fit_proc *p)
{
	for (size_t j = 0; j < fit->npr; j++) {
		if (&fit->pr[j] != p && fit->pr[j].listed && fit->pr[j].pid == p->pid) {
			return false;
		}
	}
	return true;
}

/*
 * Anonymized: PIDs drawn anew, distinct multiples of 4 from 8 up to the
 * largest PID of the listed processes (4092 at most), so thread IDs keep
 * below them as the trace's do. @drawn[i] for fit->pr[i], 0 none.
 */
static void draw_pids(const struct fit *fit, uint32_t *drawn)
{
	uint32_t top = 0;
	uint64_t x = 0x9E3779B97F4A7C15ull;

	for (size_t i = 0; i < fit->npr; i++) {
		const struct fit_proc *p = &fit->pr[i];

		if (p->listed && !p->system && p->pid > top) {
			top = p->pid;
		}
	}
	top = top > 4092 ? 4092 : top;
	for (size_t i = 0; i < fit->npr && top >= 8 * FIT_MAX_PROCESSES; i++) {
		bool taken = true;

		if (!fit->pr[i].listed || fit->pr[i].system) {
			continue;
		}
		while (taken) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			drawn[i] = 8 + 4 * (uint32_t)(x % ((top - 8) / 4 + 1));
			taken = false;
			for (size_t j = 0; j < i && !taken; j++) {
				taken = drawn[j] == drawn[i];
			}
		}
	}
}

static int write_processes(struct fit *fit)
{
	struct fit_node *list = fit_add_list(fit->root, "processes");
	size_t listed = 0, dropped = 0, dropped_threads = 0;
	uint32_t *drawn = calloc(fit->npr + 1, sizeof(*drawn));

	if (!drawn) {
		return -ENOMEM;
	}
	if (fit->o->anonymize != FIT_ANON_NONE) {
		draw_pids(fit, drawn);
	}

	for (size_t i = 0; i < fit->npr; i++) {
		const struct fit_proc *p = &fit->pr[i];

		if (p->system) {
			continue;
		}
		if (!p->listed) {
			dropped++;
			dropped_threads += p->nthreads;
		}
	}
	for (size_t i = 0; i < fit->npr; i++) {
		struct fit_proc *p = &fit->pr[i];
		const struct etwforge_process_row *r;
		struct fit_node *m;

		if (p->system || !p->listed) {
			continue;
		}
		r = analysis_process(fit->a, (size_t)p->row);
		m = fit_add_map(list, NULL);
		fit_add_str(m, "name", p->name);
		if (strcmp(p->name, p->image)) {
			fit_add_str(m, "image", p->image);
		}
		if (fit->o->anonymize == FIT_ANON_NONE && p->pid % 4 == 0 && p->pid >= 8 &&
		    p->pid <= 4092 && pid_unique(fit, p)) {
			fit_add_u64(m, "pid", p->pid);
		} else if (fit->o->anonymize != FIT_ANON_NONE && drawn[i]) {
			fit_add_u64(m, "pid", drawn[i]);
		}
		parent_of(fit, p, m);
		if (fit->o->anonymize == FIT_ANON_NONE && r->cmdline && *r->cmdline) {
			char cmd[512];
			size_t n = strlen(r->cmdline);

			if (n > sizeof(cmd) - 1) {
				n = sizeof(cmd) - 1;
				/* cut on a character's first byte */
				while (n > 0 && ((unsigned char)r->cmdline[n] & 0xC0) == 0x80) {
					n--;
				}
			}
			memcpy(cmd, r->cmdline, n);
			cmd[n] = '\0';
			fit_add_str(m, "cmdline", cmd);
		}
		if (p->start_ns > fit->from_ns && p->start_ns < fit->to_ns) {
			fit_add_duration(m, "start", (uint64_t)(p->start_ns - fit->from_ns));
		}
		if (p->end_ns < INT64_MAX && p->end_ns <= fit->to_ns &&
		    p->end_ns > (p->start_ns > fit->from_ns ? p->start_ns : fit->from_ns)) {
			fit_add_duration(m, "exit", (uint64_t)(p->end_ns - fit->from_ns));
		}
		p->node = m;
		p->images = NULL;
		listed++;
		if (!m) {
			free(drawn);
			return -ENOMEM;
		}
	}
	free(drawn);
	fit_comment(list, "%zu processes besides Idle and System%s", listed,
		    fit->o->anonymize ? " (names anonymized, process IDs drawn anew; command "
					"lines, users and sessions dropped)"
				      : "; users (SIDs) and sessions: not read (gen's defaults)");
	if (dropped) {
		fit_comment(list,
			    "not listed: %zu processes (%zu threads), past the language's %u "
			    "processes and 64 thread groups",
			    dropped, dropped_threads, FIT_MAX_PROCESSES);
	}
	return list ? 0 : -ENOMEM;
}

/* Which processes are listed: those with a group, then by rank up to the limit. */
static int list_processes(struct fit *fit)
{
	struct rank *rank = calloc(fit->npr + 1, sizeof(*rank));
	size_t n = 0, listed = 0;

	if (!rank) {
		return -ENOMEM;
	}
	for (size_t g = 0; g < fit->ngrp; g++) {
		struct fit_proc *p = &fit->pr[fit->grp[g].proc];

		if (!p->system && !p->listed) {
			p->listed = true;
			listed++;
		}
	}
	for (size_t i = 0; i < fit->npr; i++) {
		rank[n++] = (struct rank){fit->pr[i].cpu_ns, fit->pr[i].nthreads, i};
	}
	qsort(rank, n, sizeof(*rank), cmp_rank);
	for (size_t i = 0; i < n && listed < FIT_MAX_PROCESSES; i++) {
		struct fit_proc *p = &fit->pr[rank[i].i];

		if (!p->system && !p->listed) {
			p->listed = true;
			listed++;
		}
	}
	free(rank);
	return 0;
}

static char *header_text(const struct fit *fit)
{
	static const char *const from[] = {
		[FIT_FROM_SWITCHES] = "context switches (run bursts, waits, wait reasons)",
		[FIT_FROM_SAMPLES] = "SampledProfile alone (CPU share per thread; bursts and "
				     "waits are set to give it)",
		[FIT_FROM_RUNDOWN] = "the rundown alone (who exists; what they do is gen's "
				     "default for a waiting thread)",
	};
	const struct etwforge_analysis_totals *t = fit->tot;
	char *h = malloc(2048);
	uint64_t wake_med = 0, half = 0, seen = 0, depth_med = 0;

	if (!h) {
		return NULL;
	}
	for (unsigned k = 0; t->wake_hist && k < ETWFORGE_HIST_BUCKETS; k++) {
		half += t->wake_hist[k];
	}
	for (unsigned k = 0; t->wake_hist && k < ETWFORGE_HIST_BUCKETS; k++) {
		seen += t->wake_hist[k];
		if (2 * seen >= half && half) {
			wake_med = k ? 1ull << k : 0;
			break;
		}
	}
	half = seen = 0;
	for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
		half += fit->stk.depth_hist[k];
	}
	for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
		seen += fit->stk.depth_hist[k];
		if (2 * seen >= half && half) {
			depth_med = 1ull << k;
			break;
		}
	}
	{
		char wake[160] = "", depth[120] = "";

		if (wake_med) {
			snprintf(wake, sizeof(wake),
				 "- wake-up latency (median about %" PRIu64
				 " ns) and who wakes whom: "
				 "they follow\n  from gen's machine (C-states, DPCs, preemption), "
				 "not "
				 "from a key\n",
				 wake_med);
		}
		if (depth_med) {
			snprintf(depth, sizeof(depth),
				 "- stack depths (median about %" PRIu64
				 " frames) and shapes: gen's "
				 "own\n",
				 depth_med);
		}
		snprintf(h, 2048,
			 "A lookalike scenario made by etwforge fit%s: `etwforge gen` runs it into "
			 "a trace\nlike the one read. Fitted from %s.\n"
			 "The trace: %u CPUs, %.3f s, %" PRIu64 " context switches, %" PRIu64
			 " samples, %zu processes, %zu threads, %zu images.\n"
			 "Not expressed by the scenario language, or not read (so not in the "
			 "lookalike):\n"
			 "- wait modes (user/kernel), and priorities where the trace has no "
			 "samples: not read\n  (gen's defaults)\n%s%s"
			 "- DPC and interrupt records",
			 fit->o->anonymize == FIT_ANON_ALL     ? " --anonymize=all"
			 : fit->o->anonymize == FIT_ANON_NAMES ? " --anonymize"
							       : "",
			 from[fit->source], t->cpus, (double)(fit->to_ns - fit->from_ns) / 1e9,
			 t->switches, t->samples, t->processes, t->threads, fit->images_in_trace,
			 wake, depth);
	}
	return h;
}

static int build(struct fit *fit)
{
	const struct etwforge_analysis_totals *t = fit->tot;
	struct fit_node *threads;
	uint64_t dur = fit->to_ns > fit->from_ns ? (uint64_t)(fit->to_ns - fit->from_ns) : 0;
	int rc;

	fit->root = fit_doc_map();
	fit_add_u64(fit->root, "seed", 1);
	if (fit->source == FIT_FROM_RUNDOWN && dur > RUNDOWN_SPAN_NS) {
		fit_comment(fit_add_duration(fit->root, "duration", RUNDOWN_SPAN_NS),
			    "the trace spans %.3f s with nothing but its rundowns: the lookalike "
			    "runs 1 s (nothing happens between them)",
			    (double)dur / 1e9);
	} else {
		fit_add_duration(fit->root, "duration", dur < 1000 ? 1000 : fit_round3(dur));
	}
	if (t->samples) {
		uint64_t iv = t->sample_interval_ns / 100 * 100;

		fit_add_duration(fit->root, "profile_interval",
				 iv < 122100	   ? 122100
				 : iv > 1000000000 ? 1000000000
						   : iv);
	}
	if (!fit->root || (rc = write_machine(fit)) || (rc = write_session(fit)) ||
	    (rc = write_processes(fit)) || (rc = fit_images_write(fit, fit->root))) {
		return fit->root ? rc : -ENOMEM;
	}
	threads = fit_add_list(fit->root, "threads");
	if (!threads) {
		return -ENOMEM;
	}
	if ((rc = fit_groups_write(fit, threads))) {
		return rc;
	}
	return fit_locks_write(fit->locks, fit, fit->root);
}

int fit_trace(struct etwforge_file *f, const struct fit_opts *o, struct fit_result *out,
	      struct etwforge_error *err)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, ao, .detail = ETWFORGE_DETAIL_FULL,
		      .items = ETWFORGE_ITEM_SLICE | ETWFORGE_ITEM_SAMPLE | ETWFORGE_ITEM_SPIN,
		      .keep_going = read_file_keep_going(f), .stacks = ETWFORGE_STACKS_NONE);
	struct fit fit = {.f = f, .o = o, .last_ns = INT64_MIN};
	char *header = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	fit_names_init(&fit.names, o->anonymize);
	fit.info = read_file_info(f);
	fit.a = analysis_new(f, &ao, err);
	if (!fit.a) {
		rc = errno ? -errno : -EINVAL;
		goto out;
	}
	{
		struct etwforge_spinlock_config cfg;
		bool from_file = analysis_spin_config(fit.a, &cfg);

		if (!(fit.locks = fit_locks_new(&cfg, from_file))) {
			rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			goto out;
		}
	}
	if ((rc = read_all(&fit, err)) < 0) {
		goto out;
	}
	fit.tot = analysis_totals(fit.a);
	if (!fit.tot->processes && !fit.tot->threads && !fit.tot->switches && !fit.tot->samples) {
		rc = error_fail(err, -EINVAL, ERR_DATA,
				"%s: no process, thread, context switch or sample: no kernel trace "
				"to fit",
				fit.info->name);
		goto out;
	}
	fit.from_ns = fit.tot->from_ns;
	fit.to_ns = fit.tot->to_ns > fit.tot->from_ns ? fit.tot->to_ns : fit.tot->from_ns;
	if (fit.last_ns > fit.from_ns && fit.last_ns < fit.to_ns) {
		/* a header's end of tracing long after its last event (a logger left
		 * running): the events' span is what a lookalike needs */
		fit.to_ns = fit.last_ns;
	}
	fit.source = fit.tot->switches	? FIT_FROM_SWITCHES
		     : fit.tot->samples ? FIT_FROM_SAMPLES
					: FIT_FROM_RUNDOWN;
	if ((rc = read_tables(&fit)) || (rc = name_processes(&fit))) {
		goto nomem;
	}
	fit_groups_choose(&fit);
	if ((rc = list_processes(&fit)) || (rc = fit_images_place(&fit)) || (rc = build(&fit))) {
		goto nomem;
	}
	header = header_text(&fit);
	out->yaml = header ? fit_doc_yaml(fit.root, header) : NULL;
	out->json = fit_doc_json(fit.root);
	if (!out->yaml || !out->json) {
		fit_result_free(out);
		rc = -ENOMEM;
		goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
out:
	free(header);
	fit_doc_free(fit.root);
	fit_names_finish(&fit.names);
	free(fit.th);
	free(fit.order);
	free(fit.pr);
	free(fit.hits);
	free(fit.seen);
	fit_locks_free(fit.locks);
	analysis_free(fit.a);
	return rc;
}

void fit_result_free(struct fit_result *r)
{
	free(r->yaml);
	free(r->json);
	r->yaml = r->json = NULL;
}
