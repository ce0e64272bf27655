// SPDX-License-Identifier: MIT
/*
 * writer/writer_defer.c - a writer fed by several threads at once: buffers
 * put while deferring are kept, not written, and written later in the order
 * the caller gives them (writer_defer.h).
 *
 *   lane k: the CPUs c with c % nlanes == k, fed by one thread
 *
 *   buffer_put(b, ts)   b->events == 0: dropped, as ever
 *                       else kept in lane k's list {key, ts, memory, ...};
 *                       the CPU holds no buffer (its memory went with it)
 *   buffer_get(cpu)     a fresh buffer from lane k's spares (or a new
 *                       one); never refused: the caller made sure that the
 *                       pool cannot run out meanwhile (writer_defer_room())
 *   writer_defer_flush  (no lane running) every kept buffer, in key order:
 *                       the sequence number, the file offset and the pool
 *                       model exactly as if each had been written when put;
 *                       its memory back to its lane's spares
 *
 * Why the pool model comes out the same: when a CPU takes a buffer, the
 * pool holds n_held + #{buffers flushed so far whose flush_ts + latency is
 * past the pool clock} (the largest timestamp logged so far: it only grows,
 * so a buffer once back stays back). When no take is refused, which the
 * caller checked, the takes change nothing but n_held, and the flushes only
 * add return times: pushing them at the flush and retiring at the pool
 * clock then gives the state the writer would have had.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer/etl_layout.h"
#include "writer/writer_buffer.h"
#include "writer/writer_defer.h"

/* A buffer put while deferring: its memory and what writing it needs. */
struct kept {
	uint64_t key;
	uint64_t ts;
	struct etl_buf buf; /* base, pos, cpu, events, event_bytes as put */
	bool lost;	    /* the CPU lost events before it (EVENTS_LOST) */
};

/*
 * One thread's CPUs: what they put, and spare memory for their next buffers.
 * @scratch: a writer that discards: the buffer this lane's CPUs write over
 */
struct writer_lane {
	struct kept *kept;
	size_t nkept, capkept;
	uint8_t **spare;
	size_t nspare, capspare;
	uint8_t *scratch;
	int err; /* an allocation failed in this lane */
};

static void *grow(void *p, size_t *cap, size_t size)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *q = realloc(p, n * size);

	if (q) {
		*cap = n;
	}
	return q;
}

static int spare_put(struct writer_lane *l, uint8_t *base)
{
	if (l->nspare == l->capspare) {
		uint8_t **s = grow(l->spare, &l->capspare, sizeof(*s));

		if (!s) {
			return -ENOMEM;
		}
		l->spare = s;
	}
	l->spare[l->nspare++] = base;
	return 0;
}

int writer_defer(struct etl_writer *w, unsigned nlanes)
{
	if (w->done || w->err || nlanes == 0) {
		return w->err ? w->err : -EINVAL;
	}
	if (w->nlanes != nlanes) {
		writer_defer_free(w);
		w->lanes = calloc(nlanes, sizeof(*w->lanes));
		if (!w->lanes) {
			return -ENOMEM;
		}
		w->nlanes = nlanes;
		for (unsigned k = 0; w->scratch && k < nlanes; k++) {
			/* a lane's CPUs write over their own: no two threads on one */
			w->lanes[k].scratch = writer_buf_alloc(w->o.buffer_size, true);
			if (!w->lanes[k].scratch) {
				return -ENOMEM;
			}
		}
		for (unsigned i = 0; w->scratch && i < w->o.cpus; i++) {
			w->cpu[i].buf.base = w->lanes[i % nlanes].scratch;
		}
	}
	w->defer = true;
	return 0;
}

void writer_undefer(struct etl_writer *w)
{
	w->defer = false;
}

void writer_defer_free(struct etl_writer *w)
{
	for (unsigned k = 0; k < w->nlanes; k++) {
		struct writer_lane *l = &w->lanes[k];

		for (size_t i = 0; !l->scratch && i < l->nkept; i++) {
			writer_buf_free(l->kept[i].buf.base, w->o.buffer_size);
		}
		for (size_t i = 0; i < l->nspare; i++) {
			writer_buf_free(l->spare[i], w->o.buffer_size);
		}
		writer_buf_free(l->scratch, w->o.buffer_size);
		free(l->kept);
		free(l->spare);
	}
	free(w->lanes);
	w->lanes = NULL;
	w->nlanes = 0;
	for (unsigned i = 0; w->scratch && w->cpu && i < w->o.cpus; i++) {
		w->cpu[i].buf.base = w->scratch; /* the lanes' are gone */
	}
}

uint8_t *writer_defer_memory(struct etl_writer *w, unsigned cpu)
{
	struct writer_lane *l = w->nlanes ? &w->lanes[cpu % w->nlanes] : NULL;

	/* a spare of its lane (memory already used, so faulted in), else a new one */
	return l && l->nspare ? l->spare[--l->nspare] : writer_buf_alloc(w->o.buffer_size, false);
}

int writer_defer_get(struct etl_writer *w, unsigned cpu, struct etl_buf **out)
{
	struct cpu_state *c = &w->cpu[cpu];
	struct writer_lane *l = &w->lanes[cpu % w->nlanes];

	if (l->err) {
		return l->err;
	}
	if (!c->has_buffer) {
		if (!c->buf.base && !(c->buf.base = writer_defer_memory(w, cpu))) {
			l->err = -ENOMEM;
			return l->err;
		}
		c->has_buffer = true;
		c->starved = false;
		c->buf.pos = ETL_BH_LEN;
		c->buf.events = 0;
		c->buf.event_bytes = 0;
	}
	*out = &c->buf;
	return 0;
}

int writer_defer_put(struct etl_writer *w, struct etl_buf *b, uint64_t ts)
{
	struct cpu_state *c = &w->cpu[b->cpu];
	struct writer_lane *l = &w->lanes[b->cpu % w->nlanes];
	struct kept *k;

	if (l->err) {
		return l->err;
	}
	c->pending = 0;
	c->has_buffer = false;
	if (b->events == 0) {
		b->pos = ETL_BH_LEN; /* nothing to write: the memory stays the CPU's */
		return 0;
	}
	if (l->nkept == l->capkept) {
		struct kept *n = grow(l->kept, &l->capkept, sizeof(*n));

		if (!n) {
			l->err = -ENOMEM;
			return l->err;
		}
		l->kept = n;
	}
	k = &l->kept[l->nkept++];
	k->key = b->key;
	k->ts = ts;
	k->buf = *b;
	k->lost = c->lost_pending;
	c->lost_pending = false;
	if (l->scratch) {
		b->pos = ETL_BH_LEN; /* bytes that go nowhere: the CPU writes over them */
		b->events = 0;
		b->event_bytes = 0;
		return 0;
	}
	b->base = NULL; /* the next buffer_get() gives the CPU a spare */
	b->pos = ETL_BH_LEN;
	b->events = 0;
	b->event_bytes = 0;
	return 0;
}

bool writer_defer_room(const struct etl_writer *w, uint64_t flushes)
{
	uint64_t in_flight = w->n_inflight, cpus = w->o.cpus;

	if (!w->o.pool_buffers) {
		return true;
	}
	/*
	 * Every CPU may hold a buffer, what is in flight now may stay so, and
	 * each flush adds one in flight: below the pool, no take is refused.
	 */
	return cpus + in_flight + flushes < w->o.pool_buffers;
}

int writer_defer_flush(struct etl_writer *w, uint64_t clock)
{
	size_t *at = calloc(w->nlanes ? w->nlanes : 1, sizeof(*at));
	int ret = 0;

	if (!at) {
		return -ENOMEM;
	}
	for (unsigned k = 0; k < w->nlanes && !ret; k++) {
		ret = w->lanes[k].err;
	}
	/* each lane's list is in key order: take the smallest head each time */
	for (;;) {
		struct writer_lane *best = NULL;
		struct kept *kp;
		size_t bi = 0;

		for (unsigned k = 0; k < w->nlanes; k++) {
			struct writer_lane *l = &w->lanes[k];

			if (at[k] < l->nkept &&
			    (!best || l->kept[at[k]].key < best->kept[at[bi]].key)) {
				best = l;
				bi = k;
			}
		}
		if (!best) {
			break;
		}
		kp = &best->kept[at[bi]++];
		if (!ret && !w->err) {
			ret = writer_write_buffer(w, &kp->buf, kp->ts, kp->lost);
		}
		if (!best->scratch && spare_put(best, kp->buf.base) < 0) {
			writer_buf_free(kp->buf.base, w->o.buffer_size);
		}
	}
	for (unsigned k = 0; k < w->nlanes; k++) {
		w->lanes[k].nkept = 0;
	}
	free(at);
	w->n_held = 0;
	for (unsigned i = 0; i < w->o.cpus; i++) {
		w->n_held += w->cpu[i].has_buffer;
	}
	if (clock > w->pool_clock) {
		w->pool_clock = clock;
	}
	writer_pool_retire(w, w->pool_clock);
	if (ret && !w->err) {
		w->err = ret;
	}
	return w->err;
}
