/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sched_evq.h - the dispatcher's event queue: an indexed
 * 4-ary min-heap of (time, id) with the keys stored inline, so a sift reads
 * one cache line of children per level and no second array. Ids are unique,
 * so (time, id) is a total order and any correct heap pops the same
 * sequence: the records do not depend on the heap's shape.
 *
 *   slot:   0 | 1  2  3  4 | 5 .. 8  9 .. 12 ...
 *   parent of i: (i - 1) / 4          children of i: 4i + 1 .. 4i + 4
 *
 * The array starts 3 entries into a 64-byte aligned block, so every group
 * of four siblings (4i + 1 .. 4i + 4) fills exactly one cache line.
 * The operations are static inline so the scheduler's hot path inlines
 * them; the tests run them against a linear-scan reference. A winner tree
 * (struct sched_tree, below) serves the ids whose events move constantly.
 */
#ifndef SCHEDULER_MODEL_SCHED_EVQ_H
#define SCHEDULER_MODEL_SCHED_EVQ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define SCHED_EVQ_NONE	UINT32_MAX /* id not queued */
#define SCHED_EVQ_NEVER UINT64_MAX /* sched_evq_set(): cancel */

/** struct sched_ev - one queued event. */
struct sched_ev {
	uint64_t t;  /* when */
	uint32_t id; /* what (tie-break: lower id first) */
	uint32_t pad;
};

/** struct sched_evq - the queue; ids are 0..nids-1. */
struct sched_evq {
	struct sched_ev *h; /* h[0] is the earliest */
	uint32_t n;	    /* queued */
	uint32_t nids;
	uint32_t *pos; /* id -> index into h, or SCHED_EVQ_NONE */
	void *mem;     /* the aligned block h lives in */
};

/**
 * sched_evq_init - an empty queue for ids 0..@nids-1.
 * Return: 0 or -ENOMEM.
 */
int sched_evq_init(struct sched_evq *q, uint32_t nids);

/** sched_evq_finish - free what init allocated (a zeroed queue is fine). */
void sched_evq_finish(struct sched_evq *q);

/**
 * sched_evq_check - the heap order and the position index agree.
 * Return: NULL or a static message naming what is broken.
 */
const char *sched_evq_check(const struct sched_evq *q);

/* (time, id) order; bitwise, so a sift compiles to conditional moves. */
static inline bool sched_ev_before(const struct sched_ev *a, const struct sched_ev *b)
{
	return (a->t < b->t) | ((a->t == b->t) & (a->id < b->id));
}

static inline void sched_evq_put(struct sched_evq *q, uint32_t i, struct sched_ev e)
{
	q->h[i] = e;
	q->pos[e.id] = i;
}

/* Move @e up from hole @i to its place. */
static inline void sched_evq_up(struct sched_evq *q, uint32_t i, struct sched_ev e)
{
	while (i > 0) {
		uint32_t parent = (i - 1u) / 4u;

		if (!sched_ev_before(&e, &q->h[parent])) {
			break;
		}
		sched_evq_put(q, i, q->h[parent]);
		i = parent;
	}
	sched_evq_put(q, i, e);
}

/* Move @e down from hole @i to its place. */
static inline void sched_evq_down(struct sched_evq *q, uint32_t i, struct sched_ev e)
{
	const uint32_t n = q->n;

	for (;;) {
		uint32_t c = 4u * i + 1u, best, end;

		if (c >= n) {
			break;
		}
		if (c + 4u <= n) {
			/* a full family: a tournament of two pairs */
			uint32_t a = c + sched_ev_before(&q->h[c + 1u], &q->h[c]);
			uint32_t b = c + 2u + sched_ev_before(&q->h[c + 3u], &q->h[c + 2u]);
			uint32_t m = 0u - (uint32_t)sched_ev_before(&q->h[b], &q->h[a]);

			best = a ^ ((a ^ b) & m); /* b if it is earlier: no branch */
		} else {
			best = c;
			end = c + 4u < n ? c + 4u : n;
			for (uint32_t k = c + 1u; k < end; k++) {
				if (sched_ev_before(&q->h[k], &q->h[best])) {
					best = k;
				}
			}
		}
		if (!sched_ev_before(&q->h[best], &e)) {
			break;
		}
		sched_evq_put(q, i, q->h[best]);
		i = best;
	}
	sched_evq_put(q, i, e);
}

/* Take the entry at @i out. */
static inline void sched_evq_remove_at(struct sched_evq *q, uint32_t i)
{
	struct sched_ev last;

	q->pos[q->h[i].id] = SCHED_EVQ_NONE;
	last = q->h[--q->n];
	if (i == q->n) {
		return;
	}
	if (sched_ev_before(&last, &q->h[i])) {
		sched_evq_up(q, i, last);
	} else {
		sched_evq_down(q, i, last);
	}
}

/**
 * sched_evq_pop - take out the earliest event (q->n > 0). The hole left at
 * the top walks down to a leaf along the earlier children, without the
 * compare against the last entry that a plain sift does at every level,
 * and the last entry, nearly always a late one, comes up from there.
 */
static inline void sched_evq_pop(struct sched_evq *q)
{
	struct sched_ev last;
	uint32_t i = 0, n;

	q->pos[q->h[0].id] = SCHED_EVQ_NONE;
	n = --q->n;
	if (n == 0) {
		return;
	}
	last = q->h[n];
	for (;;) {
		uint32_t c = 4u * i + 1u, best;

		if (c + 4u <= n) {
			uint32_t a = c + sched_ev_before(&q->h[c + 1u], &q->h[c]);
			uint32_t b = c + 2u + sched_ev_before(&q->h[c + 3u], &q->h[c + 2u]);
			uint32_t m = 0u - (uint32_t)sched_ev_before(&q->h[b], &q->h[a]);

			best = a ^ ((a ^ b) & m);
		} else if (c < n) {
			best = c;
			for (uint32_t k = c + 1u; k < n; k++) {
				if (sched_ev_before(&q->h[k], &q->h[best])) {
					best = k;
				}
			}
		} else {
			break;
		}
		sched_evq_put(q, i, q->h[best]);
		i = best;
	}
	sched_evq_up(q, i, last);
}

/**
 * sched_evq_set - queue @id at @t, move it there if it is queued, or with
 * SCHED_EVQ_NEVER take it out (a no-op if it is not queued).
 */
static inline void sched_evq_set(struct sched_evq *q, uint32_t id, uint64_t t)
{
	uint32_t i = q->pos[id];
	struct sched_ev e = {t, id, 0};

	if (t == SCHED_EVQ_NEVER) {
		if (i != SCHED_EVQ_NONE) {
			sched_evq_remove_at(q, i);
		}
		return;
	}
	if (i == SCHED_EVQ_NONE) {
		sched_evq_up(q, q->n++, e);
	} else if (t < q->h[i].t) {
		sched_evq_up(q, i, e);
	} else if (t > q->h[i].t) {
		sched_evq_down(q, i, e);
	}
}

/** sched_evq_queued - is @id queued? */
static inline bool sched_evq_queued(const struct sched_evq *q, uint32_t id)
{
	return q->pos[id] != SCHED_EVQ_NONE;
}

/** sched_evq_top - the earliest event (only when q->n > 0). */
static inline const struct sched_ev *sched_evq_top(const struct sched_evq *q)
{
	return &q->h[0];
}

/*
 * struct sched_tree - a winner tree over a fixed set of ids (the CPUs,
 * whose next decision moves on almost every event): leaf id holds its
 * event (SCHED_EVQ_NEVER: none), each inner node the earlier of its two
 * children, the root the earliest of all. Moving an event replays the
 * matches on its path only, without the index a heap has to keep.
 *
 *           w[1]                  w[i] = earlier of w[2i], w[2i + 1]
 *      w[2]      w[3]             leaf of id: w[L + id], L = 2^k >= nids
 *   w[4] w[5] w[6] w[7]
 */
struct sched_tree {
	struct sched_ev *w; /* w[1] is the earliest; leaves from w[nleaf] */
	uint32_t nleaf;	    /* a power of two >= nids */
	uint32_t nids;
	void *mem;
};

/**
 * sched_tree_init - every id without an event, ids 0..@nids-1 (@nids >= 1).
 * Return: 0 or -ENOMEM.
 */
int sched_tree_init(struct sched_tree *q, uint32_t nids);

/** sched_tree_finish - free what init allocated (a zeroed tree is fine). */
void sched_tree_finish(struct sched_tree *q);

/**
 * sched_tree_check - every inner node is the earlier of its children.
 * Return: NULL or a static message.
 */
const char *sched_tree_check(const struct sched_tree *q);

/** sched_tree_set - @id's event at @t (SCHED_EVQ_NEVER: none). */
static inline void sched_tree_set(struct sched_tree *q, uint32_t id, uint64_t t)
{
	struct sched_ev *w = q->w;
	struct sched_ev cur = {t, id, 0};
	uint32_t i = q->nleaf + id;

	w[i].t = t;
	/*
	 * The whole path, always: the winner so far stays in registers and
	 * meets each sibling subtree's winner, whose loads do not wait for the
	 * level below. Selects, not branches: which side wins is a coin toss a
	 * branch would mispredict, and the fixed trip count is predicted.
	 */
	for (; i > 1u; i >>= 1) {
		const struct sched_ev *sib = &w[i ^ 1u];
		uint64_t take = 0u - (uint64_t)sched_ev_before(sib, &cur);

		cur.t ^= (cur.t ^ sib->t) & take;
		cur.id ^= (cur.id ^ sib->id) & (uint32_t)take;
		w[i >> 1] = cur;
	}
}

/** sched_tree_queued - has @id an event? */
static inline bool sched_tree_queued(const struct sched_tree *q, uint32_t id)
{
	return q->w[q->nleaf + id].t != SCHED_EVQ_NEVER;
}

/** sched_tree_top - the earliest event (t == SCHED_EVQ_NEVER: none). */
static inline const struct sched_ev *sched_tree_top(const struct sched_tree *q)
{
	return &q->w[1];
}

#endif /* SCHEDULER_MODEL_SCHED_EVQ_H */
