// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit_groups.c - the trace's threads as at most 64 thread
 * groups, and what each group's keys say of them.
 *
 * Groups: one per process, busiest first (CPU time, then threads); with
 * room left, a process whose threads partly ran and partly only waited is
 * split in two, most threads first, since a lived-in machine is mostly
 * threads that hardly run beside a few that do.
 *
 * Keys, from context switches (gen's model: a thread's bursts of work and
 * its waits are exponential, their means the group's times a per-thread
 * log-normal factor whose mean is 1 for bursts and whose reciprocal's mean
 * is 1 for waits):
 *   period        mean over the threads that waited of CPU time / bursts
 *                 of work (switch-outs in state Waiting)
 *   wait          the group's count over the sum of its threads' wake rates
 *                 (bursts / time off CPU): the harmonic mean gen's waits
 *                 keep, and a thread that never woke adds rate 0
 *   *_spread      the spread of log(mean burst) and log(rate) over threads,
 *                 less the noise of a mean of n exponential draws (1/n)
 *   wait_reasons  the counts of the reasons of the Waiting switch-outs
 *   behaviour     interactive where WrUserRequest is half the waits or
 *                 more, cpu_bound for bursts of 4 ms or more, else io_bound
 * From samples alone the CPU share is what is known: period is the
 * profile interval and wait gives the share; from the rundown alone the
 * threads wait as a lived-in machine's background threads do.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_names.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/fit/fit_groups.h"
#include "tools/lib/fit/fit_images.h"
#include "tools/lib/fit/fit_model.h"

#define WR_USER_REQUEST	  13u	      /* KWAIT_REASON WrUserRequest */
#define CPU_BOUND_NS	  4000000.0   /* a mean burst this long: cpu_bound */
#define IDLE_BURST_NS	  30000u      /* a rundown-only group's bursts ... */
#define IDLE_WAIT_NS	  2500000000u /* ... and waits (a background thread's) */
#define MAX_WAIT_NS	  (86400ull * 1000000000u)
#define MAX_PERIOD_NS	  (60ull * 1000000000u)
#define THREAD_NAME_BYTES 127u

/* A process (or thread) and the key it is picked by: larger first, then by index. */
struct pick {
	uint64_t key, key2;
	size_t i;
};

static int cmp_pick(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;

	if (a->key != b->key) {
		return a->key > b->key ? -1 : 1;
	}
	if (a->key2 != b->key2) {
		return a->key2 > b->key2 ? -1 : 1;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_grp_order(const void *x, const void *y)
{
	const struct fit_group *a = x, *b = y;

	if (a->proc != b->proc) {
		return a->proc < b->proc ? -1 : 1;
	}
	if ((a->single == SIZE_MAX) != (b->single == SIZE_MAX)) {
		return a->single == SIZE_MAX ? 1 : -1; /* its singles first */
	}
	if (a->single != b->single) {
		return a->nth < b->nth ? -1 : 1;
	}
	return a->mask < b->mask ? -1 : a->mask > b->mask;
}

/* The threads of process @p of the classes @mask not in a group of their own. */
static size_t members(const struct fit *fit, size_t p, unsigned mask)
{
	size_t n = 0;

	for (size_t k = 0; k < fit->pr[p].nthreads; k++) {
		const struct fit_thread *t = &fit->th[fit->order[fit->pr[p].first + k]];

		n += (t->cls & mask) && t->group != SIZE_MAX - 1;
	}
	return n;
}

/* Split group @g's classes @part off into a group of their own, when both sides hold threads. */
static bool split(struct fit *fit, size_t g, unsigned part)
{
	struct fit_group *gr = &fit->grp[g];

	if (fit->ngrp >= FIT_MAX_GROUPS || gr->single != SIZE_MAX || !(gr->mask & part) ||
	    gr->mask == part || !members(fit, gr->proc, gr->mask & part) ||
	    !members(fit, gr->proc, gr->mask & ~part)) {
		return false;
	}
	fit->grp[fit->ngrp++] =
		(struct fit_group){.proc = gr->proc, .mask = gr->mask & part, .single = SIZE_MAX};
	gr->mask &= ~part;
	return true;
}

void fit_groups_choose(struct fit *fit)
{
	struct pick *pk = calloc(fit->npr + fit->nth + 1, sizeof(*pk));
	size_t n = 0;

	fit->ngrp = 0;
	if (!pk) {
		return; /* no groups: the caller's build finds none and says so */
	}
	/* 1. a group per process, the busiest first */
	for (size_t i = 0; i < fit->npr; i++) {
		if (fit->pr[i].nthreads) {
			pk[n++] = (struct pick){fit->pr[i].cpu_ns, fit->pr[i].nthreads, i};
		}
	}
	qsort(pk, n, sizeof(*pk), cmp_pick);
	for (size_t i = 0; i < n && fit->ngrp < FIT_MAX_GROUPS; i++) {
		fit->grp[fit->ngrp++] =
			(struct fit_group){.proc = pk[i].i, .mask = FIT_ALL, .single = SIZE_MAX};
	}
	/* 2. the busy threads apart, busiest processes first (the groups are in that order) */
	for (size_t g = 0, ng = fit->ngrp; g < ng; g++) {
		split(fit, g, FIT_BUSY);
	}
	/* 2b. the threads that came and went apart (a lifetime of their own), busiest processes first */
	for (size_t g = 0, ng = fit->ngrp; g < ng; g++) {
		split(fit, g, FIT_CHURN);
	}
	/* 3. the threads that never ran apart, most of them first */
	n = 0;
	for (size_t g = 0; g < fit->ngrp; g++) {
		if (fit->grp[g].mask & FIT_IDLE) {
			pk[n++] = (struct pick){members(fit, fit->grp[g].proc, FIT_IDLE), 0, g};
		}
	}
	qsort(pk, n, sizeof(*pk), cmp_pick);
	for (size_t i = 0; i < n; i++) {
		split(fit, pk[i].i, FIT_IDLE);
	}
	/* 4. busy threads in groups of their own, busiest first, while room is left */
	n = 0;
	for (size_t t = 0; t < fit->nth; t++) {
		if (fit->th[t].cls == FIT_BUSY) {
			pk[n++] = (struct pick){fit->th[t].cpu_ns, 0, t};
		}
	}
	qsort(pk, n, sizeof(*pk), cmp_pick);
	for (size_t i = 0; i < n && fit->ngrp < FIT_MAX_GROUPS; i++) {
		struct fit_thread *t = &fit->th[pk[i].i];
		size_t g = 0;
		unsigned nth = 0;

		while (g < fit->ngrp &&
		       (fit->grp[g].proc != t->proc || fit->grp[g].single != SIZE_MAX ||
			!(fit->grp[g].mask & t->cls))) {
			g++;
		}
		if (g == fit->ngrp || members(fit, t->proc, fit->grp[g].mask) < 2) {
			continue; /* not grouped, or alone in its group already */
		}
		for (size_t k = 0; k < fit->ngrp; k++) {
			nth += fit->grp[k].proc == t->proc && fit->grp[k].single != SIZE_MAX;
		}
		t->group = SIZE_MAX - 1; /* taken out of the class groups (members()) */
		fit->grp[fit->ngrp++] = (struct fit_group){
			.proc = t->proc, .mask = t->cls, .single = pk[i].i, .nth = nth + 1};
	}
	qsort(fit->grp, fit->ngrp, sizeof(fit->grp[0]), cmp_grp_order);
	for (size_t t = 0; t < fit->nth; t++) {
		fit->th[t].group = SIZE_MAX;
		for (size_t g = 0; g < fit->ngrp && fit->th[t].group == SIZE_MAX; g++) {
			const struct fit_group *gr = &fit->grp[g];

			if (gr->single == t) {
				fit->th[t].group = g;
			}
		}
		for (size_t g = 0; g < fit->ngrp && fit->th[t].group == SIZE_MAX; g++) {
			const struct fit_group *gr = &fit->grp[g];
			bool single = false;

			for (size_t k = 0; k < fit->ngrp && !single; k++) {
				single = fit->grp[k].single == t;
			}
			if (!single && gr->single == SIZE_MAX && gr->proc == fit->th[t].proc &&
			    (gr->mask & fit->th[t].cls)) {
				fit->th[t].group = g;
			}
		}
	}
	free(pk);
}

/* What a group's threads add up to. */
#define PRIO_SAMPLES_MIN 20u /* samples a group needs for its priority */
/*
 * A group's affinity: the CPUs its threads were seen on, when they are too
 * few for what the threads did: on a machine that spreads work evenly, k
 * moves from CPU to CPU all stay inside some s of n CPUs with odds of about
 * C(n, s) (s/n)^k. Threads keep to their ideal processor and other work
 * keeps them off some CPUs, so the bar is e^-30 (7 of 8 CPUs: 241 moves;
 * 32 of 64: 104).
 */
#define AFFINITY_LOG_ODDS 30.0

#define REGULAR_SHARE 0.9 /* of bursts and of waits within a factor of 4: periodic */
#define REGULAR_MIN   20u /* waits a group needs to be called periodic */

struct sums {
	size_t n, at_start, born, ended, waited, named;
	uint64_t cpu, vol, samples, reasons[FIT_WAITS];
	double life, exposure, rate, burst_mean;
	size_t churned;		/* threads that began and ended in the trace */
	double churn_life;	/* their lives summed */
	double bx, bxx, bnoise; /* log mean burst of threads with 2 bursts or more */
	size_t bn;
	double wy, wyy, wnoise; /* log wake rate (or sample rate) of every thread */
	size_t wn;
};

static void add_thread(struct fit *fit, const struct fit_thread *t, struct sums *s)
{
	const struct etwforge_thread_row *r = analysis_thread(fit->a, t->row);
	double events = fit->source == FIT_FROM_SAMPLES ? (double)t->samples : (double)t->vol;

	s->n++;
	s->at_start += t->at_start;
	s->born += !t->at_start;
	s->ended += r->end_ns < INT64_MAX && r->end_ns <= fit->to_ns;
	s->named += r->name && *r->name;
	s->cpu += t->cpu_ns;
	s->vol += t->vol;
	s->samples += t->samples;
	s->life += t->life_ns;
	s->exposure += t->exposure;
	if (!t->at_start && r->end_ns < INT64_MAX && r->end_ns <= fit->to_ns) {
		s->churned++;
		s->churn_life += t->life_ns;
	}
	for (unsigned k = 0; r->wait_reasons && k < r->nreasons && k < FIT_WAITS; k++) {
		s->reasons[k] += r->wait_reasons[k];
	}
	if (t->life_ns <= 0) {
		return;
	}
	if (t->vol > 0 || (t->cpu_ns > 0 && fit->source == FIT_FROM_SWITCHES)) {
		s->burst_mean += (double)t->cpu_ns / (double)(t->vol ? t->vol : 1);
		s->waited++;
	}
	s->rate += (double)t->vol / t->exposure;
	if (t->vol >= 2) {
		double x = log((double)t->cpu_ns / (double)t->vol + 1);

		s->bx += x;
		s->bxx += x * x;
		s->bnoise += 1.0 / (double)t->vol;
		s->bn++;
	}
	{
		double y = log((events + 0.5) / t->life_ns);

		s->wy += y;
		s->wyy += y * y;
		s->wnoise += 1.0 / (events + 0.5);
		s->wn++;
	}
}

/* sigma of a log-normal from n values' sums, less their noise: -1 too few to say. */
static double spread(double x, double xx, double noise, size_t n)
{
	double var;

	if (n < 3) {
		return -1;
	}
	var = (xx - x * x / (double)n) / (double)(n - 1) - noise / (double)n;
	var = var > 0 ? sqrt(var) : 0;
	return var > 3 ? 3 : floor(var * 100 + 0.5) / 100;
}

/* The most common thread name of group @g when half its threads have it, else NULL. */
static const char *common_name(struct fit *fit, size_t g, size_t n)
{
	const char *best = NULL;
	size_t best_n = 0;

	for (size_t i = 0; i < fit->nth; i++) {
		const char *nm = analysis_thread(fit->a, fit->th[i].row)->name;
		size_t c = 0;

		if (fit->th[i].group != g || !nm || !*nm || (best && !strcmp(best, nm))) {
			continue;
		}
		for (size_t j = i; j < fit->nth; j++) {
			const char *o = analysis_thread(fit->a, fit->th[j].row)->name;

			c += fit->th[j].group == g && o && !strcmp(o, nm);
		}
		if (c > best_n) {
			best = nm;
			best_n = c;
		}
	}
	return 2 * best_n >= n ? best : NULL;
}

static int thread_name(struct fit *fit, size_t g, size_t n, struct fit_node *m)
{
	const char *nm = common_name(fit, g, n);
	char out[THREAD_NAME_BYTES + 1];
	size_t len;
	int rc;

	if (!nm) {
		return 0;
	}
	if (fit->names.mode != FIT_ANON_NONE) {
		if ((rc = fit_name(&fit->names, FIT_NAME_THREAD, nm, out, sizeof(out)))) {
			return rc;
		}
	} else {
		len = strlen(nm);
		if (len > THREAD_NAME_BYTES) {
			len = THREAD_NAME_BYTES;
			while (len > 0 && ((unsigned char)nm[len] & 0xC0) == 0x80) {
				len--;
			}
		}
		memcpy(out, nm, len);
		out[len] = '\0';
		/* "{n}" is the thread's index to gen: a brace of the trace's is not */
		for (char *p = out; *p; p++) {
			*p = *p == '{' ? '(' : *p == '}' ? ')' : *p;
		}
	}
	fit_add_str(m, "thread_name", out);
	return 0;
}

static void wait_reasons(struct fit *fit, const struct sums *s, struct fit_node *m)
{
	uint64_t top = 0, dropped = 0, all = 0;
	struct fit_node *w;

	for (unsigned k = 0; k < FIT_WAITS; k++) {
		all += s->reasons[k];
		if (k < fit->max_wait_reason && k < etw_wait_reason_count()) {
			top = s->reasons[k] > top ? s->reasons[k] : top;
		} else {
			dropped += s->reasons[k];
		}
	}
	if (!top) {
		return;
	}
	w = fit_add_map(m, "wait_reasons");
	if (w) {
		w->flow = true;
	}
	for (unsigned k = 0; k < fit->max_wait_reason && k < etw_wait_reason_count(); k++) {
		if (s->reasons[k]) {
			/* weights up to 1000000: the counts, scaled down past that */
			uint64_t v = top <= 1000000 ? s->reasons[k]
						    : (s->reasons[k] * 1000000 + top / 2) / top;

			fit_add_u64(w, etw_wait_reason_name(k), v ? v : 1);
		}
	}
	if (dropped) {
		fit_comment(w,
			    "%" PRIu64 " of %" PRIu64 " waits give a reason at or past the "
			    "target's MaximumWaitReason: not in the mix",
			    dropped, all);
	}
}

/*
 * Does group @g wake like a clock: REGULAR_SHARE of its bursts of work and
 * of its waits each in two neighbouring power-of-two buckets (within a
 * factor of 4), over REGULAR_MIN waits or more?
 */
static bool regular(const struct fit *fit, size_t g)
{
	uint64_t wh[ETWFORGE_HIST_BUCKETS] = {0}, bh[ETWFORGE_HIST_BUCKETS] = {0}, nw = 0, nb = 0;
	uint64_t wtop = 0, btop = 0;

	for (size_t i = 0; i < fit->nth; i++) {
		const struct etwforge_thread_row *r;

		if (fit->th[i].group != g) {
			continue;
		}
		r = analysis_thread(fit->a, fit->th[i].row);
		for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
			wh[k] += r->wait_hist ? r->wait_hist[k] : 0;
			bh[k] += r->burst_hist ? r->burst_hist[k] : 0;
		}
	}
	for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
		nw += wh[k];
		nb += bh[k];
		if (k + 1 < ETWFORGE_HIST_BUCKETS) {
			wtop = wh[k] + wh[k + 1] > wtop ? wh[k] + wh[k + 1] : wtop;
			btop = bh[k] + bh[k + 1] > btop ? bh[k] + bh[k + 1] : btop;
		}
	}
	return nw >= REGULAR_MIN && nb >= REGULAR_MIN &&
	       (double)wtop >= REGULAR_SHARE * (double)nw &&
	       (double)btop >= REGULAR_SHARE * (double)nb;
}

/*
 * priority: the lowest priority that holds 2 % of the group's samples or
 * more (a sample shows the thread's priority then, a boost included; the
 * base is below the boosts), when it has PRIO_SAMPLES_MIN samples.
 * affinity: the CPUs its threads ran or were sampled on, when that is not
 * every CPU though they moved between CPUs enough (AFFINITY_LOG_ODDS).
 */
static void priority_affinity(struct fit *fit, size_t g, struct fit_node *m)
{
	uint64_t prio[32] = {0}, all = 0, cpus = 0, items = 0, moves = 0;
	unsigned ncpu = fit->tot->cpus, base = 0, seen;
	bool wide = false;

	for (size_t i = 0; i < fit->nth; i++) {
		const struct fit_seen *s;

		if (fit->th[i].group != g || fit->th[i].row >= fit->nseen) {
			continue;
		}
		s = &fit->seen[fit->th[i].row];
		for (unsigned k = 0; k < 32; k++) {
			prio[k] += s->prio[k];
			all += s->prio[k];
		}
		cpus |= s->cpus;
		wide |= s->wide;
		items += s->items;
		moves += s->moves;
	}
	if (all >= PRIO_SAMPLES_MIN) {
		for (base = 1; base < 31 && 50 * prio[base] < all; base++) {
		}
		if (base != 8) {
			fit_comment(fit_add_u64(m, "priority", base),
				    "the lowest priority of 2 %% of its %" PRIu64
				    " samples or more",
				    all);
		}
	}
	seen = (unsigned)__builtin_popcountll(cpus);
	if (!wide && ncpu > 1 && ncpu <= 64 && seen && seen < ncpu &&
	    -(lgamma(ncpu + 1.0) - lgamma(seen + 1.0) - lgamma(ncpu - seen + 1.0)) -
			    (double)moves * log((double)seen / ncpu) >=
		    AFFINITY_LOG_ODDS) {
		struct fit_node *list = fit_add_list(m, "affinity");
		unsigned n = 0;

		if (list) {
			list->flow = true;
		}
		for (unsigned c = 0; c < ncpu; c++) {
			if (cpus >> c & 1u) {
				fit_add_u64(list, NULL, c);
				n++;
			}
		}
		fit_comment(list,
			    "%" PRIu64 " slices and samples, %" PRIu64
			    " moves between CPUs, on %u of %u CPUs only",
			    items, moves, n, ncpu);
	}
}

static int write_group(struct fit *fit, size_t g, struct fit_node *threads)
{
	struct fit_group *gr = &fit->grp[g];
	const struct fit_proc *p = &fit->pr[gr->proc];
	struct sums s = {0};
	struct fit_node *m = fit_add_map(threads, NULL);
	char name[FIT_NAME + 16];
	double period, wait, bs = -1, ws = -1, share, duty = 0;
	const char *behaviour = "io_bound";
	static const char *const suffix[16] = {
		"", " busy", "", "",	  " idle", "",	    " rest", "", " short-lived",
		"", " rest", "", " rest", "",	   " rest", ""};
	static const char *const what[16] = {
		"",
		" that ran 1 % of their time or more",
		" that ran less than 1 % of their time",
		" that ran",
		" that never ran",
		" that were busy or never ran",
		" that ran less than 1 % of their time or never",
		" that were there from the start or ended after",
		" that began and ended in the trace",
		" that were busy or came and went",
		" that ran less than 1 % of their time or came and went",
		" that ran or came and went",
		" that never ran or came and went",
		" that were busy, never ran, or came and went",
		" that ran less than 1 % of their time, never ran, or came and went",
		"",
	};
	int rc;

	for (size_t i = 0; i < fit->nth; i++) {
		if (fit->th[i].group == g) {
			add_thread(fit, &fit->th[i], &s);
		}
	}
	share = s.life > 0 ? (double)s.cpu / s.life : 0;
	switch (fit->source) {
	case FIT_FROM_SWITCHES:
		period = s.waited ? s.burst_mean / (double)s.waited : IDLE_BURST_NS;
		/* no thread woke: long enough that the group's threads wake half a time */
		wait = s.rate > 0 ? (double)s.n / s.rate : 2 * s.exposure;
		bs = spread(s.bx, s.bxx, s.bnoise, s.bn);
		ws = spread(s.wy, s.wyy, s.wnoise, s.wn);
		break;
	case FIT_FROM_SAMPLES:
		period = (double)fit->tot->sample_interval_ns;
		wait = share > 0 ? period * (1 - share) / share : 2 * s.exposure;
		bs = 0;
		ws = spread(s.wy, s.wyy, s.wnoise, s.wn);
		break;
	default:
		period = IDLE_BURST_NS;
		wait = IDLE_WAIT_NS;
		break;
	}
	{
		uint64_t all = 0;

		for (unsigned k = 0; k < FIT_WAITS; k++) {
			all += s.reasons[k];
		}
		if (all && 2 * s.reasons[WR_USER_REQUEST] >= all) {
			behaviour = "interactive";
		} else if (period >= CPU_BOUND_NS) {
			behaviour = "cpu_bound";
		}
	}
	if (fit->source == FIT_FROM_SWITCHES && strcmp(behaviour, "cpu_bound") && regular(fit, g)) {
		behaviour = "periodic"; /* period: the whole cycle, duty: its share of work */
		duty = 100.0 * period / (period + wait);
		period += wait;
	}
	if (gr->single != SIZE_MAX) {
		snprintf(name, sizeof(name), "%s #%u", p->name, gr->nth);
	} else {
		snprintf(name, sizeof(name), "%s%s", p->name, suffix[gr->mask & FIT_ALL]);
	}
	snprintf(fit->grp[g].name, sizeof(fit->grp[g].name), "%s", name);
	fit_add_str(m, "name", name);
	fit_comment(m->n ? m->kids[0] : NULL,
		    "%zu thread%s of %s%s: CPU %.3f ms (%.2f %% of their time), %" PRIu64
		    " bursts of work, %" PRIu64 " samples",
		    s.n, s.n == 1 ? "" : "s", p->name,
		    gr->single != SIZE_MAX ? " (a group of its own)" : what[gr->mask & FIT_ALL],
		    (double)s.cpu / 1e6, 100 * share, s.vol, s.samples);
	fit_add_str(m, "process", p->system ? "System" : p->name);
	if (s.churned >= 2 && 3 * s.churn_life >= 2 * s.life) {
		/* threads come and go (most of the group's time is theirs): as many at a
		 * time as the trace has on average, each living as long as those that
		 * began and ended in it */
		double dur = (double)(fit->to_ns - fit->from_ns);
		uint64_t count = dur > 0 ? (uint64_t)(s.life / dur + 0.5) : 1;

		fit_add_u64(m, "count", count ? count : 1);
		fit_comment(fit_add_duration(m, "lifetime",
					     fit_clamp_ns(s.churn_life / (double)s.churned, 10000,
							  MAX_WAIT_NS)),
			    "%zu of its threads began and ended in the trace: each lives this "
			    "long and a new one replaces it",
			    s.churned);
	} else {
		fit_add_u64(m, "count", s.at_start ? s.at_start : 1);
		if (s.born || s.ended) {
			fit_comment(m->kids[m->n - 1],
				    "%zu of its threads began during the trace and %zu ended: not "
				    "fitted (count: those there from the start)",
				    s.born, s.ended);
		}
	}
	fit_add_word(m, "behaviour", behaviour);
	fit_add_duration(m, "period", fit_clamp_ns(period, 1000, MAX_PERIOD_NS));
	if (duty > 0) {
		fit_comment(
			fit_add_u64(m, "duty",
				    duty < 1	 ? 1
				    : duty > 100 ? 100
						 : (uint64_t)(duty + 0.5)),
			"its bursts and waits each keep within a factor of 4: a clock wakes it");
		bs = ws = -1;
	} else {
		fit_add_duration(m, "wait", fit_clamp_ns(wait, 1000, MAX_WAIT_NS));
	}
	if (bs >= 0) {
		fit_add_fixed2(m, "burst_spread", bs);
	}
	if (ws >= 0) {
		fit_add_fixed2(m, "wait_spread", ws);
	}
	wait_reasons(fit, &s, m);
	priority_affinity(fit, g, m);
	if ((rc = thread_name(fit, g, s.n, m)) || (rc = fit_images_hot(fit, g, m))) {
		return rc;
	}
	return m ? 0 : -ENOMEM;
}

int fit_groups_write(struct fit *fit, struct fit_node *threads)
{
	size_t left = 0, left_threads = 0;
	int rc;

	for (size_t i = 0; i < fit->nth; i++) {
		left_threads += fit->th[i].group == SIZE_MAX;
	}
	for (size_t i = 0; i < fit->npr; i++) {
		bool grouped = false;

		for (size_t g = 0; g < fit->ngrp && !grouped; g++) {
			grouped = fit->grp[g].proc == i;
		}
		left += fit->pr[i].nthreads && !grouped;
	}
	fit_comment(threads,
		    "%zu groups for %zu threads (priority: from the samples' priorities where "
		    "there are some, else gen's default, 8)",
		    fit->ngrp, fit->nth - left_threads);
	if (left) {
		fit_comment(threads,
			    "no group: the %zu threads of %zu more processes (the language "
			    "holds 64 groups)",
			    left_threads, left);
	}
	if (fit->ngrp == 0) {
		/* a scenario has a thread: one that only waits, said as such */
		struct fit_node *m = fit_add_map(threads, NULL);

		fit_comment(fit_add_str(m, "name", "waiting"),
			    "the trace names no thread: one that only waits, so the scenario runs");
		fit_add_u64(m, "count", 1);
		fit_add_word(m, "behaviour", "io_bound");
		fit_add_duration(m, "period", IDLE_BURST_NS);
		fit_add_duration(m, "wait", IDLE_WAIT_NS);
		return m ? 0 : -ENOMEM;
	}
	for (size_t g = 0; g < fit->ngrp; g++) {
		if ((rc = write_group(fit, g, threads))) {
			return rc;
		}
	}
	return 0;
}
