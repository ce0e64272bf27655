// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/counts.c - the counts and CPU times of a whole trace a
 * batch at a time (ETWFORGE_DETAIL_COUNTS): the same sums as the full pass
 * (pass.c), without the time order the full pass needs for what spans CPUs.
 *
 *   each CPU, its buffers in order      a CPU's time is the CPU's own: the
 *     compact batch: summed per slot    thread a switch put there ran until
 *       (producer's etw_ccswap_sum()),  the next switch of that CPU; a
 *       the slots' sums added to their  batch's slots are added to their
 *       threads' rows at once           rows, a record at a time only where
 *     plain CSwitch: a switch           a TID changes rows inside the batch
 *     sample: its thread's row
 *     ReadyThread: kept (TID, time)
 *   then the ReadyThreads kept          a wake-up is a ReadyThread whose
 *                                       thread switches in at its time or
 *                                       later: at or before the thread's
 *                                       last switch-in (known by then)
 *
 * A CPU with both plain and compact switches (or switches in buffer 0)
 * needs the time order: the counts give up (-EAGAIN) and the analysis runs
 * the full pass instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap_expand.h"
#include "producer/ccswap_sums.h"
#include "producer/etw_encode.h"
#include "producer/etw_layout.h"
#include "tools/lib/analysis/state.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/id_map.h"
#include "tools/lib/read/read.h"
#include "writer/etl_reader.h"

#define CACHE_SLOTS 8192u /* thread rows by TID: the batches' tables name them again and again */

/*
 * A thread row remembered with its TID and span: no trip to the row to
 * tell; and where the TID's rows lie in struct row_index's @spans, and the
 * one it last found there, where the next look for the TID starts.
 */
struct row_cache {
	uint32_t tid;
	int64_t row; /* -1: empty */
	uint64_t lo, hi;
	uint32_t off, end; /* the TID's spans (@off == @end: none) */
	uint32_t at;	   /* the last span found, in [@off, @end] */
};

/* A thread row's span, in a TID's run of them (struct row_index). */
struct row_span {
	uint64_t lo, hi;
	int64_t row;
};

/* Where a TID's rows lie in struct row_index's @spans. */
struct tid_rows {
	uint32_t off, n;
};

/*
 * The thread rows of the file's start, each TID's side by side in time
 * order: a row looked up without a trip to the rows (big, far apart). Each
 * CPU's walk starts at time 0 again, so a TID's many rows (reused) would
 * miss a cache of one row per TID a row at a time, on every CPU.
 */
struct row_index {
	struct row_span *spans;
	struct id_map tids; /* TID -> struct tid_rows */
};

/*
 * A thread row's sums of the walk, side by side (the rows are big and far
 * apart): added to the row when the walk is over (flush_sums()).
 */
struct row_sum {
	uint64_t cpu_t, ins;
	uint64_t last_in; /* as struct an_thread's: + 1, 0 never */
};

#ifndef COUNTS_READY_MAX		     /* a test build sets it low: the second walk's test */
#define COUNTS_READY_MAX (UINT64_C(1) << 22) /* ReadyThreads kept for pairing (64 MiB) */
#endif

/* A ReadyThread of a CPU: its thread and time, paired when the walk is over. */
struct ready_at {
	uint64_t ts;
	uint32_t tid;
};

/* A walk of the file. */
struct walk {
	struct row_cache *cache; /* thread rows by TID */
	struct row_index idx;	 /* the rows there were before the walk */
	struct row_sum *sums;	 /* theirs (a row made later: its own sums) */
	size_t nsums;
	struct ready_at *readies; /* theirs, paired once the walk is over (@nready) */
	size_t nready, cap_ready;
	bool ready_overflow;	 /* more than COUNTS_READY_MAX: a second walk pairs them */
	struct etl_error damage; /* the first damage kept going past (msg "" none) */
};

/* One CPU's walk. */
struct cpu_sum {
	bool plain, compact; /* the kinds of switches met */
	bool seen, known;    /* a switch was met; the thread running is known */
	uint32_t tid;	     /* plain: the thread running since @prev */
	int64_t row;
	uint64_t prev;		 /* the last switch's time */
	struct row_cache *cache; /* the walk's */
	const struct row_index *idx;
	struct row_sum *sums; /* the walk's */
	size_t nsums;
};

/* Index the thread rows of @a (struct row_index). Return: 0, or -ENOMEM. */
static int index_rows(const struct etwforge_analysis *a, struct row_index *x)
{
	const struct an_identity *id = &a->id;
	uint32_t n = 0;

	x->tids.elem_size = sizeof(struct tid_rows);
	x->spans = malloc((id->nthreads ? id->nthreads : 1) * sizeof(*x->spans));
	if (!x->spans || id->nthreads > UINT32_MAX || id_map_reserve(&x->tids, id->tids.n) < 0) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < id->tids.cap; i++) {
		uint32_t tid;
		const struct an_tid *e = id_map_at(&id->tids, i, &tid);
		struct tid_rows *t = e ? id_map_add(&x->tids, tid) : NULL;

		if (!t) {
			continue;
		}
		t->off = n;
		for (int64_t r = e->head; r >= 0 && n < id->nthreads; r = id->threads[r].next) {
			x->spans[n++] = (struct row_span){id->threads[r].lo, id->threads[r].hi, r};
		}
		t->n = n - t->off;
	}
	return 0;
}

static void index_free(struct row_index *x)
{
	free(x->spans);
	id_map_free(&x->tids);
}

/* Where @tid's spans lie in the index: [*@off, *@end). */
static void index_rows_of(const struct row_index *x, uint32_t tid, uint32_t *off, uint32_t *end)
{
	const struct tid_rows *t = id_map_get(&x->tids, tid);

	*off = t ? t->off : 0;
	*end = t ? t->off + t->n : 0;
}

#define SCAN_MAX 8u /* spans stepped over one by one before a binary search */

/*
 * The span in @v[@from, @end) (a TID's, in time order, @from no later than
 * the one sought) that holds @ts, or NULL. A CPU's walk looks for a TID's
 * rows forward in time: the one sought is the next, or a few further; a
 * binary search on a TID of many rows would wait for a line at each step.
 */
static const struct row_span *span_find(const struct row_span *v, uint32_t from, uint32_t end,
					uint64_t ts)
{
	uint32_t lo = from, hi = end;

	for (unsigned k = 0; lo < end && k < SCAN_MAX; k++, lo++) {
		if (ts <= v[lo].hi) {
			return v[lo].lo <= ts ? &v[lo] : NULL;
		}
	}
	if (lo >= end) {
		return NULL;
	}
	/* the last span starting at or before @ts */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].lo <= ts) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return v[lo].lo <= ts && ts <= v[lo].hi ? &v[lo] : NULL;
}

/*
 * The row of @tid at @lo (made for its gap when none has it, as the full
 * pass makes it), when it also holds @hi: the cached one when it does.
 * Return: it; -2 when @hi is another row's (a TID reused: walk the
 * records); -1 out of memory.
 */
static int64_t row_of(struct etwforge_analysis *a, struct cpu_sum *cs, uint32_t tid, uint64_t lo,
		      uint64_t hi)
{
	struct row_cache *c = &cs->cache[(tid >> 2) % CACHE_SLOTS];
	const struct row_span *v;
	uint32_t off, end, from;
	int64_t row;

	if (c->row >= 0 && c->tid == tid && c->lo <= lo && hi <= c->hi) {
		return c->row;
	}
	if (c->row >= 0 && c->tid == tid) {
		/* forward from the span found last, unless @lo is before it (another CPU) */
		off = c->off;
		end = c->end;
		from = lo >= c->lo ? c->at : off;
	} else {
		index_rows_of(cs->idx, tid, &off, &end);
		from = off;
	}
	/* the rows do not overlap: the index's row holding @lo is the one */
	v = span_find(cs->idx->spans, from, end, lo);
	if (v) {
		if (v->hi < hi) {
			return -2;
		}
		*c = (struct row_cache){
			tid, v->row, v->lo, v->hi, off, end, (uint32_t)(v - cs->idx->spans)};
		return v->row;
	}
	row = an_thread_at(&a->id, tid, lo);
	if (row < 0) {
		return -1;
	}
	if (a->id.threads[row].hi < hi) {
		return -2;
	}
	/* a row made for a gap: the next look starts at the span before it */
	for (from = off; from + 1u < end && cs->idx->spans[from + 1u].lo <= lo; from++) {
	}
	*c = (struct row_cache){tid, row, a->id.threads[row].lo, a->id.threads[row].hi, off,
				end, from};
	return row;
}

static bool hooked(const struct etl_record *r)
{
	return r->kind == ETL_KIND_PERFINFO || r->kind == ETL_KIND_SYSTEM;
}

static void decode(const struct etl_record *r, struct etw_payload *pl)
{
	etw_decode_payload(r->hook_id, r->version, r->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86,
			   r->payload, r->payload_len, pl);
}

/* Thread row @row was switched in at @ts: its latest switch-in is that or later. */
static void note_in(struct etwforge_analysis *a, int64_t row, uint64_t ts)
{
	struct an_thread *t = &a->id.threads[row];

	t->last_in = ts + 1 > t->last_in ? ts + 1 : t->last_in; /* + 1: 0 is never */
}

/* Is a ReadyThread of @tid at @ts a wake-up: does @tid switch in at @ts or later? */
static bool wakes(const struct etwforge_analysis *a, uint32_t tid, uint64_t ts)
{
	const struct an_tid *e = tid ? id_map_get(&a->id.tids, tid) : NULL;

	for (int64_t r = e ? e->head : -1; r >= 0; r = a->id.threads[r].next) {
		if (a->id.threads[r].last_in > ts) {
			return true;
		}
	}
	return false;
}

/* @ticks of CPU @c to thread @tid (row @row: -1 idle), and @ins switch-ins of it. */
static void add_time(struct etwforge_analysis *a, unsigned c, uint32_t tid, int64_t row,
		     uint64_t ticks, uint64_t ins)
{
	struct an_cpu *cw = &a->cpu[c];

	if (tid == 0) {
		cw->idle_t += ticks;
		return;
	}
	cw->busy_t += ticks;
	a->id.threads[row].cpu_t += ticks;
	a->id.threads[row].ins += ins;
	a->tot.switch_ins += ins;
	*(a->id.threads[row].named ? &a->tot.attributed : &a->tot.unattributed) += ins;
}

/*
 * @ticks of CPU @c to thread @tid (row @row), @ins switch-ins of it, the
 * latest at @last_in: as add_time() and note_in(), into the walk's sums
 * where it has the row's.
 */
static void add_sum(struct etwforge_analysis *a, const struct cpu_sum *cs, unsigned c, uint32_t tid,
		    int64_t row, uint64_t ticks, uint64_t ins, uint64_t last_in)
{
	struct row_sum *rs;

	if (tid == 0 || (uint64_t)row >= cs->nsums) {
		add_time(a, c, tid, row, ticks, ins);
		if (ins) {
			note_in(a, row, last_in);
		}
		return;
	}
	rs = &cs->sums[row];
	a->cpu[c].busy_t += ticks;
	a->tot.switch_ins += ins;
	rs->cpu_t += ticks;
	rs->ins += ins;
	if (ins && last_in + 1 > rs->last_in) {
		rs->last_in = last_in + 1;
	}
}

/* The walk's sums to their rows (the attributed switch-ins by then known). */
static void flush_sums(struct etwforge_analysis *a, struct walk *w)
{
	for (size_t r = 0; r < w->nsums; r++) {
		struct an_thread *t = &a->id.threads[r];
		const struct row_sum *rs = &w->sums[r];

		t->cpu_t += rs->cpu_t;
		t->ins += rs->ins;
		*(t->named ? &a->tot.attributed : &a->tot.unattributed) += rs->ins;
		t->last_in = rs->last_in > t->last_in ? rs->last_in : t->last_in;
	}
	memset(w->sums, 0, w->nsums * sizeof(*w->sums));
}

/*
 * The batch at @payload of CPU @c, a record at a time: each span to the row
 * of its thread at its switch-in (a TID whose rows change inside the batch).
 */
static int batch_by_record(struct etwforge_analysis *a, unsigned c, const uint8_t *payload,
			   size_t len, uint64_t prev, enum etw_ccswap_first first)
{
	struct etw_cswitch_compact cc;
	struct etw_ccswap_iter it;
	size_t bad;
	bool one = true;

	if (etw_ccswap_expand_begin(&it, payload, len, read_file_info(a->f)->max_wait_reason) < 0) {
		return -EINVAL;
	}
	while (etw_ccswap_expand_next(&it, &cc, &bad) > 0) {
		uint64_t span = cc.ts > prev ? cc.ts - prev : 0;
		bool in = !one || first == ETW_CCSWAP_FIRST_RAN;
		int64_t row = -1;

		if (one && first == ETW_CCSWAP_FIRST_UNKNOWN) {
			a->cpu[c].unknown_t += span;
		} else {
			if (cc.old_tid && (row = an_thread_at(&a->id, cc.old_tid, prev)) < 0) {
				return -ENOMEM;
			}
			add_time(a, c, cc.old_tid, row, span, in);
			if (in && cc.old_tid) {
				note_in(a, row, prev);
			}
		}
		prev = cc.ts;
		one = false;
	}
	return 0;
}

/* A compact batch of CPU @c (record @r). Return: 0, -EINVAL damage (@e), -ENOMEM. */
static int on_batch(struct etwforge_analysis *a, unsigned c, struct cpu_sum *cs,
		    const struct etl_record *r, struct etl_error *e)
{
	struct etw_ccswap_sums s;
	int64_t rows[ETW_CCSWAP_IDLE_SLOT];
	bool one_row = true;
	uint32_t seen;
	enum etw_ccswap_first first = !cs->seen	  ? ETW_CCSWAP_FIRST_RUNNING
				      : cs->known ? ETW_CCSWAP_FIRST_RAN
						  : ETW_CCSWAP_FIRST_UNKNOWN;
	uint64_t prev;
	size_t bad = 0;
	int rc;

	if (!cs->seen) {
		/* its first switch's old thread ran since the session start */
		struct etw_ccswap_buffer h;

		if (etw_decode_ccswap_buffer(r->payload, r->payload_len, &h) < 0) {
			h.first_ts = 0;
		}
		cs->prev = (uint64_t)h.first_ts < a->clock.start_ts ? (uint64_t)h.first_ts
								    : a->clock.start_ts;
	}
	prev = cs->prev;
	rc = etw_ccswap_sum(r->payload, r->payload_len, prev, first, &s, &bad);
	if (rc < 0) {
		e->offset = r->file_offset + (uint64_t)(r->payload - r->data) + bad;
		e->unopened = false;
		snprintf(e->msg, sizeof(e->msg), "%s: offset 0x%llx: %s",
			 etl_reader_name(read_file_reader(a->f)), (unsigned long long)e->offset,
			 bad == 0 ? "compact CSwitch batch shorter than its 0x58-byte header"
				  : "compact CSwitch record runs past the batch or names an empty "
				    "TidTable slot");
		if (bad == 0) {
			return -EINVAL;
		}
		/* the records before the damage count; after them nobody is known */
	}
	a->tot.switches += s.records;
	a->tot.compact += s.records;
	for (unsigned k = 0; k < 4; k++) {
		a->forms[k] += s.forms[k];
	}
	a->cpu[c].pub.switches += s.records;
	/* each slot's sums to the row of its TID, when one row holds all the batch;
	 * else (a TID new, reused or started inside it) the batch a record at a time,
	 * each span to the row of its thread where it began, as the full pass does */
	seen = s.seen & ((1u << ETW_CCSWAP_IDLE_SLOT) - 1u);
	for (unsigned k = 0; k < ETW_CCSWAP_IDLE_SLOT; k++) {
		if ((seen >> k) & 1u) {
			/* from its first span's start to its last's */
			rows[k] = row_of(a, cs, s.hdr.tid_table[k], s.first_at[k], s.last_in[k]);
			if (rows[k] == -1) {
				return -ENOMEM;
			}
			one_row &= rows[k] >= 0;
		}
	}
	if (!one_row) {
		if (batch_by_record(a, c, r->payload, r->payload_len, prev, first) < 0) {
			return -ENOMEM;
		}
	} else {
		a->cpu[c].unknown_t += s.unknown;
		if ((s.seen >> ETW_CCSWAP_IDLE_SLOT) & 1u) {
			a->cpu[c].idle_t += s.ticks[ETW_CCSWAP_IDLE_SLOT];
		}
		for (unsigned k = 0; k < ETW_CCSWAP_IDLE_SLOT; k++) {
			if (!((seen >> k) & 1u)) {
				continue;
			}
			add_sum(a, cs, c, s.hdr.tid_table[k], rows[k], s.ticks[k], s.ins[k],
				s.last_in[k]);
		}
	}
	if (s.records) {
		cs->seen = true;
		cs->known = rc == 0;
		cs->prev = s.last_ts;
	}
	return rc;
}

/* A plain CSwitch of CPU @c. */
static int on_cswitch(struct etwforge_analysis *a, unsigned c, struct cpu_sum *cs,
		      const struct etw_cswitch *w, uint64_t ts)
{
	uint64_t span;

	if (!cs->seen) {
		cs->seen = true;
		cs->known = true;
		cs->tid = w->old_tid;
		cs->prev = ts < a->clock.start_ts ? ts : a->clock.start_ts;
		cs->row = cs->tid ? an_thread_at(&a->id, cs->tid, cs->prev) : -1;
		if (cs->tid && cs->row < 0) {
			return -ENOMEM;
		}
	}
	span = ts > cs->prev ? ts - cs->prev : 0;
	if (cs->known) {
		add_time(a, c, cs->tid, cs->row, span, 0);
	} else {
		a->cpu[c].unknown_t += span;
	}
	a->tot.switches++;
	a->cpu[c].pub.switches++;
	cs->known = true;
	cs->tid = w->new_tid;
	cs->row = -1;
	cs->prev = ts;
	if (w->new_tid) {
		cs->row = an_thread_at(&a->id, w->new_tid, ts);
		if (cs->row < 0) {
			return -ENOMEM;
		}
		note_in(a, cs->row, ts);
		add_time(a, c, w->new_tid, cs->row, 0, 1);
	}
	return 0;
}

static int on_sample(struct etwforge_analysis *a, unsigned c, const struct etw_sampled_profile *s,
		     uint64_t ts)
{
	int64_t row = -1, stack;
	uint32_t pid;

	a->tot.samples++;
	a->cpu[c].pub.samples++;
	if (s->thread_id == 0) {
		a->tot.idle_samples++;
		a->cpu[c].pub.idle_samples++;
	} else {
		row = an_thread_at(&a->id, s->thread_id, ts);
		if (row < 0) {
			return -ENOMEM;
		}
		a->id.threads[row].samples++;
		a->tot.samples_attributed += a->id.threads[row].named;
	}
	return an_sample_seen(a, s->thread_id, row, s->instruction_pointer, ts, &pid, &stack);
}

/*
 * ReadyThread of @tid at @ts kept for pairing once the walk is over (its
 * thread's last switch-in known then): the records are not read again. Past
 * COUNTS_READY_MAX of them, none is kept and a second walk reads them. Return: 0,
 * or -ENOMEM.
 */
static int keep_ready(struct walk *w, uint32_t tid, uint64_t ts)
{
	if (w->ready_overflow) {
		return 0;
	}
	if (w->nready == w->cap_ready) {
		size_t cap = w->cap_ready ? 2 * w->cap_ready : 1024;
		struct ready_at *v;

		if (cap > COUNTS_READY_MAX) {
			free(w->readies);
			w->readies = NULL;
			w->nready = w->cap_ready = 0;
			w->ready_overflow = true;
			return 0;
		}
		v = realloc(w->readies, cap * sizeof(*v));
		if (!v) {
			return -ENOMEM;
		}
		w->readies = v;
		w->cap_ready = cap;
	}
	w->readies[w->nready++] = (struct ready_at){ts, tid};
	return 0;
}

/*
 * The records of buffer @b (of CPU @c, or buffer 0), all of them, or only
 * the ReadyThreads (@readies: the second walk, when too many to keep). Return: 0; -EAGAIN the
 * file needs the time order; -EINVAL damage (@e; with keep_going counted
 * and gone past); -ENOMEM.
 */
static int walk_buffer(struct etwforge_analysis *a, struct walk *w, const struct etl_buffer *b,
		       bool header, struct cpu_sum *cs, bool readies, struct etl_error *e)
{
	const struct etl_reader *d = read_file_reader(a->f);
	unsigned c = b->processor_index;
	struct etl_record r;
	size_t pos = 0;
	int rc;

	while ((rc = etl_buffer_next(d, b, &pos, &r, e)) > 0) {
		struct etw_payload pl;

		if (readies) {
			if (r.hook_id == ETW_HOOK_READY_THREAD && hooked(&r)) {
				decode(&r, &pl);
				if (pl.kind == ETW_PAYLOAD_READY_THREAD && c < a->ncpu) {
					a->tot.readies++;
					a->tot.wakeups += wakes(a, pl.u.rt.thread_id, r.ts);
				}
			}
			continue;
		}
		if (a->tap) {
			a->tap(a->tap_ctx, &r);
		}
		if (r.hook_id == ETW_HOOK_READY_THREAD && hooked(&r)) {
			decode(&r, &pl);
			if (pl.kind == ETW_PAYLOAD_READY_THREAD && c < a->ncpu &&
			    keep_ready(w, pl.u.rt.thread_id, r.ts) < 0) {
				return -ENOMEM;
			}
			continue;
		}
		if (r.kind == ETL_KIND_PERFINFO && r.hook_id == ETW_HOOK_CSWITCH_BATCH) {
			if (header || cs->plain) {
				return -EAGAIN;
			}
			cs->compact = true;
			a->any_switch = true;
			rc = on_batch(a, c, cs, &r, e);
			if (rc == -EINVAL && a->o.keep_going) {
				a->tot.damaged++;
				if (!w->damage.msg[0]) {
					w->damage = *e; /* said once the walk is over */
				}
				continue;
			}
			if (rc < 0) {
				return rc;
			}
			continue;
		}
		if (!hooked(&r) ||
		    (r.hook_id != ETW_HOOK_CSWITCH && r.hook_id != ETW_HOOK_SAMPLED_PROFILE &&
		     r.hook_id != ETW_HOOK_PROFILE_INTERVAL_DC_S &&
		     r.hook_id != ETW_HOOK_PROFILE_INTERVAL_DC_E &&
		     r.hook_id != ETW_HOOK_PROFILE_SET_INTERVAL)) {
			continue;
		}
		decode(&r, &pl);
		switch (pl.kind) {
		case ETW_PAYLOAD_CSWITCH:
			if (header || cs->compact) {
				return -EAGAIN;
			}
			cs->plain = true;
			a->any_switch = true;
			rc = on_cswitch(a, c, cs, &pl.u.cs, r.ts);
			break;
		case ETW_PAYLOAD_SAMPLED_PROFILE:
			rc = c < a->ncpu ? on_sample(a, c, &pl.u.sp, r.ts) : 0;
			break;
		case ETW_PAYLOAD_PROFILE_INTERVAL:
			if (pl.u.pi.source == 0 && pl.u.pi.new_interval) {
				a->interval_100ns = pl.u.pi.new_interval;
			}
			rc = 0;
			break;
		default:
			rc = 0;
			break;
		}
		if (rc < 0) {
			return rc;
		}
	}
	if (rc < 0) {
		if (!a->o.keep_going) {
			return -EINVAL;
		}
		a->tot.damaged++;
		if (!w->damage.msg[0]) {
			w->damage = *e;
		}
		cs->known = false; /* the rest of the buffer is gone */
	}
	return 0;
}

/* Every buffer once: buffer 0, then each CPU's in order. */
static int walk(struct etwforge_analysis *a, struct walk *w, bool readies, struct etl_error *e)
{
	const struct etl_reader *d = read_file_reader(a->f);
	unsigned norder;
	const unsigned *order = etl_reader_cpu_order(d, &norder);
	struct cpu_sum none = {0};
	int rc;

	if (etl_reader_buffer_count(d) > 0 &&
	    (rc = walk_buffer(a, w, etl_reader_buffer(d, 0), true, &none, readies, e)) < 0) {
		return rc;
	}
	for (unsigned i = 0; i < norder;) {
		unsigned c = etl_reader_buffer(d, order[i])->processor_index, n;
		const unsigned *bufs = etl_reader_cpu_buffers(d, c, &n);
		struct cpu_sum cs = {.row = -1,
				     .cache = w->cache,
				     .idx = &w->idx,
				     .sums = w->sums,
				     .nsums = w->nsums};

		for (unsigned k = 0; k < n; k++) {
			rc = walk_buffer(a, w, etl_reader_buffer(d, bufs[k]), false, &cs, readies,
					 e);
			if (rc < 0) {
				return rc;
			}
		}
		if (!readies && cs.seen && c < a->ncpu) {
			/* the last switch's new thread ran until the end; a compact one names nobody */
			uint64_t end = a->clock.end_ts > cs.prev ? a->clock.end_ts : cs.prev;

			if (cs.plain && cs.known) {
				add_time(a, c, cs.tid, cs.row, end - cs.prev, 0);
			} else {
				a->cpu[c].unknown_t += end - cs.prev;
			}
		}
		i += n ? n : 1;
	}
	return 0;
}

int counts_run(struct etwforge_analysis *a, struct etwforge_error *err)
{
	struct etl_error e;
	struct walk w = {.cache = malloc(CACHE_SLOTS * sizeof(*w.cache))};
	int rc = w.cache ? index_rows(a, &w.idx) : -ENOMEM;

	w.nsums = a->id.nthreads;
	w.sums = calloc(w.nsums ? w.nsums : 1, sizeof(*w.sums));
	rc = w.sums ? rc : -ENOMEM;

	for (unsigned k = 0; w.cache && k < CACHE_SLOTS; k++) {
		w.cache[k].row = -1;
	}
	if (rc == 0) {
		rc = walk(a, &w, false, &e);
		flush_sums(a, &w);
		an_all_sums_changed(a);
		a->tapped_all = rc == 0 && !w.damage.msg[0];
	}
	if (rc == 0 && w.ready_overflow) {
		rc = walk(a, &w, true, &e);
	} else if (rc == 0) {
		for (size_t i = 0; i < w.nready; i++) {
			a->tot.readies++;
			a->tot.wakeups += wakes(a, w.readies[i].tid, w.readies[i].ts);
		}
	}
	free(w.readies);
	free(w.cache);
	free(w.sums);
	index_free(&w.idx);
	if (rc == 0 && w.damage.msg[0]) {
		/* kept going past damage: its first place is said */
		return error_fail_at(err, -EINVAL, ERR_DATA, "%s", w.damage.msg);
	}
	if (rc == -EAGAIN) {
		return rc;
	}
	if (rc == -ENOMEM) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	if (rc < 0) {
		return error_fail_at(err, rc, ERR_DATA, "%s", e.msg);
	}
	return 0;
}
