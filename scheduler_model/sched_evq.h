/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sched_evq.h - the dispatcher's event queues: an indexed
 * 4-ary min-heap and a winner tree, both over (time, id) events kept as one
 * 64-bit key each, so a comparison is one compare and a pick one
 * conditional move:
 *
 *   key = min(t - base, sat) << shift | id       shift: bits of the ids
 *   (no event: all ones, above every real key)
 *
 * Keys order as (time, id) exactly while the time part is below sat (at
 * least 2^46 ns, 19 hours, past base for 2^18 ids; 2^54 ns for 1024). The
 * exact times are kept per id beside the keys; the top is always exact:
 * when its time part is saturated (everything queued is that far past
 * base), the queue rebases on its earliest time first, and a time set
 * before base rebases on it. Ids are unique, so (time, id) is a total order
 * and any correct queue gives the same sequence: the records do not depend
 * on the queue's shape.
 *
 *   heap slot:  0 | 1  2  3  4 | 5 .. 8  9 .. 12 ...
 *   parent of i: (i - 1) / 4          children of i: 4i + 1 .. 4i + 4
 *
 * The heap starts 7 keys into a 64-byte aligned block, so every group of
 * four siblings (4i + 1 .. 4i + 4) lies in one half of a cache line. The
 * operations are static inline so the scheduler's hot path inlines them;
 * the tests run them against a linear-scan reference.
 */
#ifndef SCHEDULER_MODEL_SCHED_EVQ_H
#define SCHEDULER_MODEL_SCHED_EVQ_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define SCHED_EVQ_NONE	UINT32_MAX /* id not queued */
#define SCHED_EVQ_NEVER UINT64_MAX /* sched_evq_set(): cancel */
#define SCHED_EVQ_NOKEY UINT64_MAX /* the key of "no event" */

/** struct sched_ev - one event, as the queues report it. */
struct sched_ev {
	uint64_t t;  /* when (SCHED_EVQ_NEVER: none) */
	uint32_t id; /* what (tie-break: lower id first) */
};

/** struct sched_evkey - how times and ids make keys (shared by both queues). */
struct sched_evkey {
	uint64_t base;	 /* keys count time from here */
	uint64_t sat;	 /* the largest time part: (UINT64_MAX >> shift) - 1 */
	uint64_t idm;	 /* (1 << shift) - 1 */
	uint64_t satkey; /* sat << shift: the smallest saturated key */
	unsigned shift;	 /* bits of the largest id */
};

/** struct sched_evq - the heap; ids are 0..nids-1. */
struct sched_evq {
	uint64_t *h; /* keys; h[0] is the earliest */
	uint32_t n;  /* queued */
	uint32_t nids;
	uint32_t *pos; /* id -> index into h, or SCHED_EVQ_NONE */
	uint64_t *t;   /* id -> exact time (SCHED_EVQ_NEVER: not queued) */
	struct sched_evkey k;
	void *mem; /* the aligned block h lives in */
};

/**
 * sched_evq_init - an empty queue for ids 0..@nids-1.
 * Return: 0 or -ENOMEM.
 */
int sched_evq_init(struct sched_evq *q, uint32_t nids);

/** sched_evq_finish - free what init allocated (a zeroed queue is fine). */
void sched_evq_finish(struct sched_evq *q);

/**
 * sched_evq_check - the heap order, the keys and the position index agree.
 * Return: NULL or a static message naming what is broken.
 */
const char *sched_evq_check(const struct sched_evq *q);

/** sched_evq_rebase - keys count from @base (<= every queued time): O(n). */
void sched_evq_rebase(struct sched_evq *q, uint64_t base);

/* The key of (@t, @id), @t >= k->base and not SCHED_EVQ_NEVER. */
static inline uint64_t sched_evkey_of(const struct sched_evkey *k, uint64_t t, uint32_t id)
{
	uint64_t d = t - k->base;

	d = d < k->sat ? d : k->sat;
	return (d << k->shift) | id;
}

static inline void sched_evq_put(struct sched_evq *q, uint32_t i, uint64_t key)
{
	q->h[i] = key;
	q->pos[key & q->k.idm] = i;
}

/* Move @key up from hole @i to its place. */
static inline void sched_evq_up(struct sched_evq *q, uint32_t i, uint64_t key)
{
	while (i > 0) {
		uint32_t parent = (i - 1u) / 4u;

		if (key >= q->h[parent]) {
			break;
		}
		sched_evq_put(q, i, q->h[parent]);
		i = parent;
	}
	sched_evq_put(q, i, key);
}

/*
 * The earliest of the full family from @c (c + 3 < n): two pairs, then the
 * winners (ties to the lower slot). The last pick is a mask, not a branch:
 * which winner is earlier is a coin toss the branch predictor loses half
 * the time, once per level of every pop.
 */
static inline uint32_t sched_evq_min4(const uint64_t *h, uint32_t c)
{
	uint64_t h0 = h[c], h1 = h[c + 1u], h2 = h[c + 2u], h3 = h[c + 3u];
	uint32_t a = c + (h1 < h0);
	uint32_t b = c + 2u + (h3 < h2);
	uint64_t ha = h1 < h0 ? h1 : h0;
	uint64_t hb = h3 < h2 ? h3 : h2;
	uint32_t take_b = 0u - (uint32_t)(hb < ha);

	return a ^ ((a ^ b) & take_b);
}

/* Move @key down from hole @i to its place. */
static inline void sched_evq_down(struct sched_evq *q, uint32_t i, uint64_t key)
{
	const uint32_t n = q->n;

	for (;;) {
		uint32_t c = 4u * i + 1u, best;

		if (c >= n) {
			break;
		}
		if (c + 4u <= n) {
			best = sched_evq_min4(q->h, c);
		} else {
			best = c;
			for (uint32_t k = c + 1u; k < n; k++) {
				best = q->h[k] < q->h[best] ? k : best;
			}
		}
		if (q->h[best] >= key) {
			break;
		}
		sched_evq_put(q, i, q->h[best]);
		i = best;
	}
	sched_evq_put(q, i, key);
}

/* Take the entry at @i out. */
static inline void sched_evq_remove_at(struct sched_evq *q, uint32_t i)
{
	uint64_t last;
	uint32_t id = (uint32_t)(q->h[i] & q->k.idm);

	q->pos[id] = SCHED_EVQ_NONE;
	q->t[id] = SCHED_EVQ_NEVER;
	last = q->h[--q->n];
	if (i == q->n) {
		return;
	}
	if (last < q->h[i]) {
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
	uint64_t last;
	uint32_t i = 0, n, id = (uint32_t)(q->h[0] & q->k.idm);

	q->pos[id] = SCHED_EVQ_NONE;
	q->t[id] = SCHED_EVQ_NEVER;
	n = --q->n;
	if (n == 0) {
		return;
	}
	last = q->h[n];
	for (;;) {
		uint32_t c = 4u * i + 1u, best;

		if (c + 4u <= n) {
			best = sched_evq_min4(q->h, c);
		} else if (c < n) {
			best = c;
			for (uint32_t k = c + 1u; k < n; k++) {
				best = q->h[k] < q->h[best] ? k : best;
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
	uint64_t key;

	if (t == SCHED_EVQ_NEVER) {
		if (i != SCHED_EVQ_NONE) {
			sched_evq_remove_at(q, i);
		}
		return;
	}
	if (t < q->k.base) {
		sched_evq_rebase(q, t); /* rare: see the top */
	}
	q->t[id] = t;
	key = sched_evkey_of(&q->k, t, id);
	if (i == SCHED_EVQ_NONE) {
		sched_evq_up(q, q->n++, key);
	} else if (key < q->h[i]) {
		sched_evq_up(q, i, key);
	} else if (key > q->h[i]) {
		sched_evq_down(q, i, key);
	}
}

/** sched_evq_queued - is @id queued? */
static inline bool sched_evq_queued(const struct sched_evq *q, uint32_t id)
{
	return q->pos[id] != SCHED_EVQ_NONE;
}

/* Rebase on the earliest queued time (the top's key is saturated). */
void sched_evq_settle(struct sched_evq *q);

/** sched_evq_top - the earliest event (only when q->n > 0). */
static inline struct sched_ev sched_evq_top(struct sched_evq *q)
{
	struct sched_ev e;

	if (q->h[0] >= q->k.satkey) {
		sched_evq_settle(q);
	}
	e.id = (uint32_t)(q->h[0] & q->k.idm);
	e.t = q->t[e.id];
	return e;
}

/*
 * struct sched_pq - the same heap without the position index, for ids that
 * are only ever queued when absent and leave only as the earliest (the
 * thread slots: a wake-up or a replacement, taken when due). A sift moves
 * keys only, with no index to keep: no store to a random place per level.
 */
struct sched_pq {
	uint64_t *h; /* keys; h[0] is the earliest */
	uint32_t n;  /* queued */
	uint32_t nids;
	uint64_t *t; /* id -> exact time (SCHED_EVQ_NEVER: not queued) */
	struct sched_evkey k;
	void *mem; /* the aligned block h lives in */
};

/**
 * sched_pq_init - an empty queue for ids 0..@nids-1.
 * Return: 0 or -ENOMEM.
 */
int sched_pq_init(struct sched_pq *q, uint32_t nids);

/** sched_pq_finish - free what init allocated (a zeroed queue is fine). */
void sched_pq_finish(struct sched_pq *q);

/** sched_pq_check - heap order, keys and times agree. Return: NULL or a message. */
const char *sched_pq_check(const struct sched_pq *q);

/** sched_pq_rebase - keys count from @base (<= every queued time): O(n). */
void sched_pq_rebase(struct sched_pq *q, uint64_t base);

/* Rebase on the earliest queued time (the top's key is saturated). */
void sched_pq_settle(struct sched_pq *q);

/* Move @key up from hole @i to its place. */
static inline void sched_pq_up(uint64_t *h, uint32_t i, uint64_t key)
{
	while (i > 0) {
		uint32_t parent = (i - 1u) / 4u;

		if (key >= h[parent]) {
			break;
		}
		h[i] = h[parent];
		i = parent;
	}
	h[i] = key;
}

/** sched_pq_queued - is @id queued? */
static inline bool sched_pq_queued(const struct sched_pq *q, uint32_t id)
{
	return q->t[id] != SCHED_EVQ_NEVER;
}

/** sched_pq_push - queue @id (not queued) at @t (not SCHED_EVQ_NEVER). */
static inline void sched_pq_push(struct sched_pq *q, uint32_t id, uint64_t t)
{
	assert(!sched_pq_queued(q, id) && t != SCHED_EVQ_NEVER);
	if (t < q->k.base) {
		sched_pq_rebase(q, t); /* rare: see the top */
	}
	q->t[id] = t;
	sched_pq_up(q->h, q->n++, sched_evkey_of(&q->k, t, id));
}

/** sched_pq_pop - take out the earliest event (q->n > 0), as sched_evq_pop(). */
static inline void sched_pq_pop(struct sched_pq *q)
{
	uint64_t *h = q->h, last;
	uint32_t i = 0, n;

	q->t[h[0] & q->k.idm] = SCHED_EVQ_NEVER;
	n = --q->n;
	if (n == 0) {
		return;
	}
	last = h[n];
	for (;;) {
		uint32_t c = 4u * i + 1u, best;

		if (c + 4u <= n) {
			best = sched_evq_min4(h, c);
		} else if (c < n) {
			best = c;
			for (uint32_t k = c + 1u; k < n; k++) {
				best = h[k] < h[best] ? k : best;
			}
		} else {
			break;
		}
		h[i] = h[best];
		i = best;
	}
	sched_pq_up(h, i, last);
}

/** sched_pq_top - the earliest event (only when q->n > 0). */
static inline struct sched_ev sched_pq_top(struct sched_pq *q)
{
	struct sched_ev e;

	if (q->h[0] >= q->k.satkey) {
		sched_pq_settle(q);
	}
	e.id = (uint32_t)(q->h[0] & q->k.idm);
	e.t = q->t[e.id];
	return e;
}

/*
 * struct sched_tree - a winner tree over a fixed set of ids (the CPUs,
 * whose next decision moves on almost every event): leaf id holds its
 * event's key (none: all ones), each inner node the smaller of its two
 * children, the root the earliest of all. Moving an event replays the
 * matches on its path only, without the index a heap has to keep.
 *
 *           w[1]                  w[i] = min(w[2i], w[2i + 1])
 *      w[2]      w[3]             leaf of id: w[L + id], L = 2^k >= nids
 *   w[4] w[5] w[6] w[7]
 */
struct sched_tree {
	uint64_t *w;	/* keys; w[1] is the earliest; leaves from w[nleaf] */
	uint64_t *t;	/* id -> exact time (SCHED_EVQ_NEVER: none) */
	uint32_t nleaf; /* a power of two >= nids */
	uint32_t nids;
	struct sched_evkey k;
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
 * sched_tree_check - every leaf's key is its time's, every inner node the
 * smaller of its children. Return: NULL or a static message.
 */
const char *sched_tree_check(const struct sched_tree *q);

/** sched_tree_rebase - keys count from @base (<= every time set): O(ids). */
void sched_tree_rebase(struct sched_tree *q, uint64_t base);

/** sched_tree_set - @id's event at @t (SCHED_EVQ_NEVER: none). */
static inline void sched_tree_set(struct sched_tree *q, uint32_t id, uint64_t t)
{
	uint64_t *w = q->w, cur;
	size_t i = (size_t)q->nleaf + id; /* pointer-wide: no zero extension per level */

	if (t != SCHED_EVQ_NEVER && t < q->k.base) {
		sched_tree_rebase(q, t); /* rare: see the top */
	}
	q->t[id] = t;
	cur = t == SCHED_EVQ_NEVER ? SCHED_EVQ_NOKEY : sched_evkey_of(&q->k, t, id);
	w[i] = cur;
	/*
	 * The whole path, always: the winner so far stays in a register and
	 * meets each sibling subtree's winner, whose loads do not wait for the
	 * level below; a conditional move, not a branch, picks the smaller.
	 */
	while (i > 1u) {
		uint64_t sib = w[i ^ 1u];

		i >>= 1;
		cur = sib < cur ? sib : cur;
		w[i] = cur;
	}
}

/** sched_tree_queued - has @id an event? */
static inline bool sched_tree_queued(const struct sched_tree *q, uint32_t id)
{
	return q->t[id] != SCHED_EVQ_NEVER;
}

/* Rebase on the earliest time set (the root's key is saturated). */
void sched_tree_settle(struct sched_tree *q);

/** sched_tree_top - the earliest event (t == SCHED_EVQ_NEVER: none). */
static inline struct sched_ev sched_tree_top(struct sched_tree *q)
{
	struct sched_ev e;

	if (q->w[1] >= q->k.satkey) {
		if (q->w[1] == SCHED_EVQ_NOKEY) {
			e.t = SCHED_EVQ_NEVER;
			e.id = 0;
			return e;
		}
		sched_tree_settle(q);
	}
	e.id = (uint32_t)(q->w[1] & q->k.idm);
	e.t = q->t[e.id];
	return e;
}

#endif /* SCHEDULER_MODEL_SCHED_EVQ_H */
