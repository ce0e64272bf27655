// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit_locks.c - spin-lock families for the lookalike (see
 * fit_locks.h). A SpinLock 0x0529 event is a release the kernel chose to
 * log: every hold longer than HoldThreshold cycles, one in
 * ContentionSampleRate contended acquisitions, one in AcquireSampleRate of
 * the rest (the analysis says which clause each met). So each logged
 * release stands for 1, ContentionSampleRate or AcquireSampleRate
 * releases, and the rates, hold times, modes and takers are those weights
 * summed. Per lock address the pass keeps these sums, the CPUs that took
 * it and its 8 busiest taking threads; at the end addresses at most four
 * cache lines apart join into one family (an array of locks, as gen lays
 * out a family's instances), the 256 most logged kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/fit/fit_doc.h"
#include "tools/lib/fit/fit_locks.h"
#include "tools/lib/fit/fit_model.h"

#define HOLD_BUCKETS 48u   /* log2 of a hold in cycles */
#define TAKERS	     8u	   /* threads kept per address (and locks[].taken_by's limit) */
#define MAX_FAMILIES 256u  /* locks[]: the language's limit */
#define MAX_COUNT    4096u /* locks[].count */
#define JOIN_LINES   4u	   /* addresses this many cache lines apart or fewer: one family */
#define MODES	     5u	   /* AcquireMode 0..4 */
#define SHARE_MIN    0.1   /* a kind of taker named in taken_by from this share on */

struct taker {
	int64_t row; /* thread row, -1 empty */
	double w;
};

struct lock_addr {
	uint64_t addr;
	bool used, nested, wide;
	uint64_t cpus; /* CPUs 0..63 that took it */
	uint64_t logged;
	double w, w_dpc, w_isr, w_thread;
	double modes[MODES];
	double hist_w[HOLD_BUCKETS], hist_cycles[HOLD_BUCKETS];
	uint64_t max_cycles;
	struct taker takers[TAKERS];
};

struct fit_locks {
	struct etwforge_spinlock_config cfg;
	bool have_cfg;
	struct lock_addr *v; /* open addressing by address */
	size_t n, cap;
	uint64_t logged;
};

struct fit_locks *fit_locks_new(const struct etwforge_spinlock_config *cfg, bool from_file)
{
	struct fit_locks *l = calloc(1, sizeof(*l));

	if (l) {
		l->cfg = *cfg;
		l->have_cfg = from_file;
	}
	return l;
}

void fit_locks_free(struct fit_locks *l)
{
	if (l) {
		free(l->v);
		free(l);
	}
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The slot of @addr, made when new. NULL: no memory. */
static struct lock_addr *addr_of(struct fit_locks *l, uint64_t addr)
{
	size_t k;

	if (2 * (l->n + 1) > l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct lock_addr *v = calloc(cap, sizeof(*v));

		if (!v) {
			return NULL;
		}
		for (size_t i = 0; i < l->cap; i++) {
			if (l->v[i].used) {
				for (k = mix(l->v[i].addr) & (cap - 1); v[k].used;
				     k = (k + 1) & (cap - 1)) {
				}
				v[k] = l->v[i];
			}
		}
		free(l->v);
		l->v = v;
		l->cap = cap;
	}
	for (k = mix(addr) & (l->cap - 1); l->v[k].used; k = (k + 1) & (l->cap - 1)) {
		if (l->v[k].addr == addr) {
			return &l->v[k];
		}
	}
	l->v[k] = (struct lock_addr){.addr = addr, .used = true};
	for (unsigned i = 0; i < TAKERS; i++) {
		l->v[k].takers[i].row = -1;
	}
	l->n++;
	return &l->v[k];
}

static unsigned log2u(uint64_t x)
{
	unsigned k = 0;

	while (x >>= 1) {
		k++;
	}
	return k < HOLD_BUCKETS ? k : HOLD_BUCKETS - 1;
}

/* @row took the lock (weight @w): counted among the address's takers, the least one replaced. */
static void add_taker(struct lock_addr *a, int64_t row, double w)
{
	unsigned least = 0;

	for (unsigned i = 0; i < TAKERS; i++) {
		if (a->takers[i].row == row) {
			a->takers[i].w += w;
			return;
		}
		if (a->takers[i].w < a->takers[least].w) {
			least = i;
		}
	}
	a->takers[least].row = row; /* its count goes on from the one it replaces (space saving) */
	a->takers[least].w += w;
}

int fit_locks_note(struct fit_locks *l, const struct etwforge_item *it)
{
	const struct etwforge_spinlock *s = it->lock;
	struct lock_addr *a;
	uint64_t hold;
	double w;

	if (it->kind != ETWFORGE_ITEM_SPIN || !s) {
		return 0;
	}
	if (!(a = addr_of(l, s->lock))) {
		return -ENOMEM;
	}
	w = it->reason == ETWFORGE_SPIN_SAMPLED	    ? (double)l->cfg.acquire_sample_rate
	    : it->reason == ETWFORGE_SPIN_CONTENDED ? (double)l->cfg.contention_sample_rate
						    : 1.0;
	w = w < 1 ? 1 : w;
	hold = s->release_time > s->acquire_time ? s->release_time - s->acquire_time : 0;
	l->logged++;
	a->logged++;
	a->w += w;
	if (it->cpu < 64) {
		a->cpus |= 1ull << it->cpu;
	} else {
		a->wide = true;
	}
	a->nested |= s->depth > 0;
	if (s->isr) {
		a->w_isr += w;
	} else if (s->dpc) {
		a->w_dpc += w;
	} else {
		a->w_thread += w;
		if (it->thread >= 0) {
			add_taker(a, it->thread, w);
		}
	}
	a->modes[s->mode < MODES ? s->mode : 0] += w;
	a->hist_w[log2u(hold)] += w;
	a->hist_cycles[log2u(hold)] += w * (double)hold;
	a->max_cycles = hold > a->max_cycles ? hold : a->max_cycles;
	return 0;
}

/* ---- families --------------------------------------------------------------------------- */

struct family {
	size_t first, n; /* addresses sorted[first .. first + n) */
	uint64_t logged;
	bool per_cpu;
};

/*
 * per_cpu: CPU c takes instance c % count. So the @n addresses' CPU sets
 * (in address order, as gen lays instances out) each hold CPUs of one
 * residue mod @n, the residues all different; some CPU past the first @n
 * confirms it (else any spread of @n CPUs over @n locks would do).
 */
static bool per_cpu(struct lock_addr *const *a, size_t n)
{
	uint64_t seen = 0;
	bool past = false;

	if (n < 2 || n > 64) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		int res = -1;

		if (a[i]->wide || !a[i]->cpus) {
			return false;
		}
		for (unsigned c = 0; c < 64; c++) {
			if (!(a[i]->cpus >> c & 1u)) {
				continue;
			}
			if (res >= 0 && (unsigned)res != c % n) {
				return false;
			}
			res = (int)(c % n);
			past |= c >= n;
		}
		if (seen >> res & 1u) {
			return false;
		}
		seen |= 1ull << res;
	}
	return past;
}

static int by_addr(const void *x, const void *y)
{
	const struct lock_addr *a = *(const struct lock_addr *const *)x;
	const struct lock_addr *b = *(const struct lock_addr *const *)y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int by_logged(const void *x, const void *y)
{
	const struct family *a = x, *b = y;

	if (a->logged != b->logged) {
		return a->logged > b->logged ? -1 : 1;
	}
	return a->first < b->first ? -1 : a->first > b->first;
}

/* The group of thread row @row, SIZE_MAX none. */
static size_t group_of_row(const struct fit *fit, int64_t row)
{
	for (size_t i = 0; row >= 0 && i < fit->nth; i++) {
		if (fit->th[i].row == (size_t)row) {
			return fit->th[i].group;
		}
	}
	return SIZE_MAX;
}

/* taken_by: DPCs, ISRs and the groups of the busiest taking threads, by their share. */
static void write_takers(struct fit *fit, struct lock_addr **a, const struct family *fm,
			 struct fit_node *m)
{
	double dpc = 0, isr = 0, thr = 0, all, gw[FIT_MAX_GROUPS] = {0};
	struct fit_node *list;
	unsigned named = 0;

	for (size_t i = fm->first; i < fm->first + fm->n; i++) {
		dpc += a[i]->w_dpc;
		isr += a[i]->w_isr;
		thr += a[i]->w_thread;
		for (unsigned k = 0; k < TAKERS; k++) {
			size_t g = group_of_row(fit, a[i]->takers[k].row);

			if (g < fit->ngrp && g < FIT_MAX_GROUPS) {
				gw[g] += a[i]->takers[k].w;
			}
		}
	}
	all = dpc + isr + thr;
	if (all <= 0 || (thr >= (1 - SHARE_MIN) * all)) {
		return; /* threads take it: [] is every group */
	}
	list = fit_add_list(m, "taken_by");
	if (list) {
		list->flow = true;
	}
	if (dpc >= SHARE_MIN * all) {
		fit_add_word(list, NULL, "dpc");
		named++;
	}
	if (isr >= SHARE_MIN * all) {
		fit_add_word(list, NULL, "isr");
		named++;
	}
	while (thr >= SHARE_MIN * all && named < TAKERS) {
		size_t best = SIZE_MAX;

		for (size_t g = 0; g < fit->ngrp && g < FIT_MAX_GROUPS; g++) {
			if (gw[g] > 0 && (best == SIZE_MAX || gw[g] > gw[best])) {
				best = g;
			}
		}
		if (best == SIZE_MAX) {
			break;
		}
		fit_add_str(list, NULL, fit->grp[best].name);
		gw[best] = 0;
		named++;
	}
	if (list && list->n == 0) {
		fit_add_word(list, NULL, "dpc"); /* unreachable: some kind holds 10 % */
	}
}

/* hold, hold_tail, hold_tail_max and modes of a family, from its weighted holds. */
static void write_holds(const struct fit_locks *l, const struct fit *fit, struct lock_addr **a,
			const struct family *fm, struct fit_node *m)
{
	static const char *const mode_names[MODES] = {"ordinary", "queued", "shared", "exclusive",
						      "converted"};
	double hw[HOLD_BUCKETS] = {0}, hc[HOLD_BUCKETS] = {0}, modes[MODES] = {0};
	double all = 0, half = 0, body_w = 0, body_c = 0, tail_w = 0, mhz = fit->info->cpu_mhz;
	uint64_t max = 0;
	unsigned median = 0, tail_pct;
	struct fit_node *mm;

	(void)l;
	mhz = mhz > 0 ? mhz : 3000;
	for (size_t i = fm->first; i < fm->first + fm->n; i++) {
		for (unsigned k = 0; k < HOLD_BUCKETS; k++) {
			hw[k] += a[i]->hist_w[k];
			hc[k] += a[i]->hist_cycles[k];
		}
		for (unsigned k = 0; k < MODES; k++) {
			modes[k] += a[i]->modes[k];
		}
		max = a[i]->max_cycles > max ? a[i]->max_cycles : max;
	}
	for (unsigned k = 0; k < HOLD_BUCKETS; k++) {
		all += hw[k];
	}
	for (unsigned k = 0; k < HOLD_BUCKETS; k++) {
		half += hw[k];
		if (2 * half >= all) {
			median = k;
			break;
		}
	}
	/* the tail: holds 16 times the median's bucket or more */
	for (unsigned k = 0; k < HOLD_BUCKETS; k++) {
		if (k >= median + 4) {
			tail_w += hw[k];
		} else {
			body_w += hw[k];
			body_c += hc[k];
		}
	}
	{
		double hold_ns = body_w > 0 ? body_c / body_w * 1000.0 / mhz : 1000;
		double max_ns = (double)max * 1000.0 / mhz;

		hold_ns = hold_ns < 1 ? 1 : hold_ns > 1e9 ? 1e9 : hold_ns;
		fit_add_duration(m, "hold", (uint64_t)(hold_ns + 0.5));
		tail_pct = all > 0 ? (unsigned)(100.0 * tail_w / all + 0.5) : 0;
		if (tail_w > 0 && tail_pct == 0) {
			tail_pct = 1;
		}
		fit_add_u64(m, "hold_tail", tail_pct > 100 ? 100 : tail_pct);
		if (tail_pct && max_ns > hold_ns) {
			fit_add_duration(m, "hold_tail_max",
					 (uint64_t)(max_ns > 1e9 ? 1e9 : max_ns + 0.5));
		}
	}
	mm = fit_add_map(m, "modes");
	if (mm) {
		mm->flow = true;
	}
	{
		double total = 0;

		for (unsigned k = 0; k < MODES; k++) {
			total += modes[k];
		}
		for (unsigned k = 0; k < MODES; k++) {
			uint64_t pct = total > 0 ? (uint64_t)(100.0 * modes[k] / total + 0.5) : 0;

			if (modes[k] > 0) {
				fit_add_u64(mm, mode_names[k], pct ? pct : 1);
			}
		}
		if (total <= 0) {
			fit_add_u64(mm, "ordinary", 1);
		}
	}
}

static int write_families(struct fit_locks *l, struct fit *fit, struct lock_addr **a,
			  struct family *fm, size_t nfm, struct fit_node *root)
{
	struct fit_node *list = fit_add_list(root, "locks");
	double dur = (double)(fit->to_ns - fit->from_ns) / 1e9;
	size_t keep = nfm < MAX_FAMILIES ? nfm : MAX_FAMILIES;
	bool nested = false;

	fit_comment(list,
		    "%" PRIu64 " logged spin-lock releases on %zu lock addresses in %zu families "
		    "(addresses at most %u cache lines apart); each release weighed by the "
		    "sampling that let it through",
		    l->logged, l->n, nfm, JOIN_LINES);
	if (nfm > keep) {
		fit_comment(list,
			    "%zu more families, the least logged: not kept (the language "
			    "holds 256)",
			    nfm - keep);
	}
	for (size_t f = 0; f < keep; f++) {
		struct fit_node *m = fit_add_map(list, NULL);
		double w = 0;
		char name[32];

		for (size_t i = fm[f].first; i < fm[f].first + fm[f].n; i++) {
			w += a[i]->w;
			nested |= a[i]->nested;
		}
		snprintf(name, sizeof(name), "lock_%zu", f + 1);
		fit_comment(fit_add_str(m, "name", name),
			    "%" PRIu64 " releases logged on %zu address%s", fm[f].logged, fm[f].n,
			    fm[f].n == 1 ? "" : "es");
		fit_add_u64(m, "count", fm[f].n < MAX_COUNT ? fm[f].n : MAX_COUNT);
		if (fm[f].per_cpu) {
			fit_add_bool(m, "per_cpu", true);
		}
		write_takers(fit, a, &fm[f], m);
		{
			double rate = dur > 0 ? w / dur : w;

			fit_add_u64(m, "rate",
				    rate < 1	 ? 1
				    : rate > 1e9 ? 1000000000u
						 : (uint64_t)(rate + 0.5));
		}
		write_holds(l, fit, a, &fm[f], m);
	}
	if (nested) {
		fit_comment(list, "locks taken inside others (Depth > 0): nesting not fitted");
	}
	return list ? 0 : -ENOMEM;
}

/* kernel.spinlock: the sampling the trace was logged with, so the lookalike logs alike. */
static void write_config(const struct fit_locks *l, struct fit_node *root)
{
	struct fit_node *k = fit_add_map(root, "kernel"), *s = fit_add_map(k, "spinlock");
	uint32_t hold = l->cfg.hold_threshold;

	fit_comment(s, l->have_cfg ? "the trace's spin-lock configuration rundown"
				   : "the trace has no spin-lock configuration: the kernel's "
				     "defaults");
	fit_add_u64(s, "spin_threshold", l->cfg.spin_threshold ? l->cfg.spin_threshold : 1);
	fit_add_u64(s, "acquire_sample_rate",
		    l->cfg.acquire_sample_rate < 1000 ? 1000 : l->cfg.acquire_sample_rate);
	fit_add_u64(s, "contention_sample_rate",
		    l->cfg.contention_sample_rate ? l->cfg.contention_sample_rate : 1);
	fit_add_u64(s, "hold_threshold", hold && hold < 1000000 ? 1000000 : hold);
}

int fit_locks_write(struct fit_locks *l, struct fit *fit, struct fit_node *root)
{
	struct lock_addr **a;
	struct family *fm;
	size_t n = 0, nfm = 0;
	uint64_t line = fit->info->pointer_size == 4 ? 32 : 64;
	int rc;

	if (!l || l->n == 0) {
		return 0;
	}
	a = malloc(l->n * sizeof(*a));
	fm = malloc(l->n * sizeof(*fm));
	if (!a || !fm) {
		free(a);
		free(fm);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->cap; i++) {
		if (l->v[i].used) {
			a[n++] = &l->v[i];
		}
	}
	qsort(a, n, sizeof(*a), by_addr);
	for (size_t i = 0; i < n; i++) {
		if (nfm == 0 || a[i]->addr - a[i - 1]->addr > JOIN_LINES * line ||
		    fm[nfm - 1].n >= MAX_COUNT) {
			fm[nfm++] = (struct family){.first = i};
		}
		fm[nfm - 1].n++;
		fm[nfm - 1].logged += a[i]->logged;
	}
	for (size_t f = 0; f < nfm; f++) {
		fm[f].per_cpu = per_cpu(a + fm[f].first, fm[f].n);
	}
	qsort(fm, nfm, sizeof(*fm), by_logged);
	write_config(l, root);
	rc = write_families(l, fit, a, fm, nfm, root);
	free(a);
	free(fm);
	return rc;
}
