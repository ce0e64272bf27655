// SPDX-License-Identifier: MIT
/*
 * scheduler_model/sched_evq.c - set-up, rebasing and checking of the event
 * queues (the operations themselves are inline in sched_evq.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/sched_evq.h"

#define LINE 64u /* eight keys */
#define HPAD 7u	 /* keys before h[0]: h[1] starts a line */

/* Keys for ids 0..@nids-1, counting time from 0. */
static void evkey_init(struct sched_evkey *k, uint32_t nids)
{
	unsigned shift = 0;

	while (shift < 32u && (UINT64_C(1) << shift) < nids) {
		shift++;
	}
	k->base = 0;
	k->shift = shift;
	k->idm = (UINT64_C(1) << shift) - 1u;
	k->sat = (UINT64_MAX >> shift) - 1u;
	k->satkey = k->sat << shift;
}

/*
 * The two 4-ary heaps (sched_evq, sched_pq) share their key array's layout
 * and these helpers; they differ in sched_evq's id -> position index.
 */

/* A zeroed, line-aligned block for the keys of @nids ids; *@h: where h[0] goes. */
static void *heap_alloc(uint32_t nids, uint64_t **h)
{
	size_t bytes = ((size_t)nids + HPAD) * sizeof(uint64_t);
	void *mem;

	bytes = (bytes + LINE - 1u) / LINE * LINE;
	mem = aligned_alloc(LINE, bytes);
	if (mem) {
		memset(mem, 0, bytes);
		*h = (uint64_t *)mem + HPAD;
	}
	return mem;
}

/* Rewrite the @n keys at @h from their ids' exact times @t after @k changed base. */
static void heap_rekey(uint64_t *h, uint32_t n, const uint64_t *t, const struct sched_evkey *k)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = (uint32_t)(h[i] & k->idm);

		h[i] = sched_evkey_of(k, t[id], id);
	}
}

/* The earliest exact time of the @n keys at @h (SCHED_EVQ_NEVER: none). */
static uint64_t heap_earliest(const uint64_t *h, uint32_t n, const uint64_t *t, uint64_t idm)
{
	uint64_t min = SCHED_EVQ_NEVER;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t ti = t[h[i] & idm];

		min = ti < min ? ti : min;
	}
	return min;
}

/*
 * What sched_evq_check() and sched_pq_check() both ask of the @n keys at
 * @h: each is its id's key and no key is before its parent's.
 */
static const char *heap_check(const uint64_t *h, uint32_t n, uint32_t nids, const uint64_t *t,
			      const struct sched_evkey *k)
{
	if (n > nids) {
		return "more events than ids";
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = (uint32_t)(h[i] & k->idm);

		if (id >= nids || t[id] == SCHED_EVQ_NEVER || t[id] < k->base ||
		    h[i] != sched_evkey_of(k, t[id], id)) {
			return "a key is not its event's";
		}
		if (i && h[i] < h[(i - 1u) / 4u]) {
			return "the heap is out of order";
		}
	}
	return NULL;
}

int sched_evq_init(struct sched_evq *q, uint32_t nids)
{
	memset(q, 0, sizeof(*q));
	q->mem = heap_alloc(nids, &q->h);
	q->pos = malloc(((size_t)nids + 1u) * sizeof(*q->pos));
	q->t = malloc(((size_t)nids + 1u) * sizeof(*q->t));
	if (!q->mem || !q->pos || !q->t) {
		sched_evq_finish(q);
		return -ENOMEM;
	}
	q->nids = nids;
	evkey_init(&q->k, nids);
	for (uint32_t id = 0; id < nids; id++) {
		q->pos[id] = SCHED_EVQ_NONE;
		q->t[id] = SCHED_EVQ_NEVER;
	}
	return 0;
}

void sched_evq_finish(struct sched_evq *q)
{
	free(q->mem);
	free(q->pos);
	free(q->t);
	memset(q, 0, sizeof(*q));
}

void sched_evq_rebase(struct sched_evq *q, uint64_t base)
{
	q->k.base = base;
	heap_rekey(q->h, q->n, q->t, &q->k);
	/* keys that were saturated alike may now differ: heapify (Floyd) */
	for (uint32_t i = q->n / 4u + 1u; i-- > 0;) {
		if (i < q->n) {
			sched_evq_down(q, i, q->h[i]);
		}
	}
}

void sched_evq_settle(struct sched_evq *q)
{
	sched_evq_rebase(q, heap_earliest(q->h, q->n, q->t, q->k.idm));
}

const char *sched_evq_check(const struct sched_evq *q)
{
	const char *why = heap_check(q->h, q->n, q->nids, q->t, &q->k);
	uint32_t queued = 0;

	if (why) {
		return why;
	}
	for (uint32_t i = 0; i < q->n; i++) {
		if (q->pos[q->h[i] & q->k.idm] != i) {
			return "heap positions are stale";
		}
	}
	for (uint32_t id = 0; id < q->nids; id++) {
		queued += q->pos[id] != SCHED_EVQ_NONE;
		if ((q->pos[id] != SCHED_EVQ_NONE) != (q->t[id] != SCHED_EVQ_NEVER)) {
			return "an id's time and position disagree";
		}
	}
	return queued == q->n ? NULL : "an id is indexed but not queued";
}

int sched_pq_init(struct sched_pq *q, uint32_t nids)
{
	memset(q, 0, sizeof(*q));
	q->mem = heap_alloc(nids, &q->h);
	q->t = malloc(((size_t)nids + 1u) * sizeof(*q->t));
	if (!q->mem || !q->t) {
		sched_pq_finish(q);
		return -ENOMEM;
	}
	q->nids = nids;
	evkey_init(&q->k, nids);
	for (uint32_t id = 0; id < nids; id++) {
		q->t[id] = SCHED_EVQ_NEVER;
	}
	return 0;
}

void sched_pq_finish(struct sched_pq *q)
{
	free(q->mem);
	free(q->t);
	memset(q, 0, sizeof(*q));
}

/* Sift @key down from hole @i of the @n keys at @h. */
static void pq_down(uint64_t *h, uint32_t n, uint32_t i, uint64_t key)
{
	for (;;) {
		uint32_t c = 4u * i + 1u, best = c;

		if (c >= n) {
			break;
		}
		for (uint32_t k = c + 1u; k < n && k < c + 4u; k++) {
			best = h[k] < h[best] ? k : best;
		}
		if (h[best] >= key) {
			break;
		}
		h[i] = h[best];
		i = best;
	}
	h[i] = key;
}

void sched_pq_rebase(struct sched_pq *q, uint64_t base)
{
	q->k.base = base;
	heap_rekey(q->h, q->n, q->t, &q->k);
	for (uint32_t i = q->n / 4u + 1u; i-- > 0;) {
		if (i < q->n) {
			pq_down(q->h, q->n, i, q->h[i]);
		}
	}
}

void sched_pq_settle(struct sched_pq *q)
{
	sched_pq_rebase(q, heap_earliest(q->h, q->n, q->t, q->k.idm));
}

const char *sched_pq_check(const struct sched_pq *q)
{
	const char *why = heap_check(q->h, q->n, q->nids, q->t, &q->k);
	uint32_t queued = 0;

	if (why) {
		return why;
	}
	for (uint32_t id = 0; id < q->nids; id++) {
		queued += q->t[id] != SCHED_EVQ_NEVER;
	}
	/* keys are unique (the id is in them), so n keys with times = n ids queued */
	return queued == q->n ? NULL : "an id has a time but no key";
}

int sched_tree_init(struct sched_tree *q, uint32_t nids)
{
	uint32_t n = 1;
	size_t bytes;

	memset(q, 0, sizeof(*q));
	while (n < nids) {
		n *= 2u;
	}
	bytes = ((size_t)2u * n * sizeof(uint64_t) + LINE - 1u) / LINE * LINE;
	q->mem = aligned_alloc(LINE, bytes);
	q->t = malloc((size_t)n * sizeof(*q->t));
	if (!q->mem || !q->t) {
		sched_tree_finish(q);
		return -ENOMEM;
	}
	q->w = q->mem;
	q->nleaf = n;
	q->nids = nids;
	evkey_init(&q->k, nids);
	for (uint32_t i = 0; i < 2u * n; i++) {
		q->w[i] = SCHED_EVQ_NOKEY; /* w[0] is unused */
	}
	for (uint32_t i = 0; i < n; i++) {
		q->t[i] = SCHED_EVQ_NEVER;
	}
	return 0;
}

void sched_tree_finish(struct sched_tree *q)
{
	free(q->mem);
	free(q->t);
	memset(q, 0, sizeof(*q));
}

void sched_tree_rebase(struct sched_tree *q, uint64_t base)
{
	q->k.base = base;
	for (uint32_t id = 0; id < q->nids; id++) {
		uint64_t t = q->t[id];

		q->w[q->nleaf + id] =
			t == SCHED_EVQ_NEVER ? SCHED_EVQ_NOKEY : sched_evkey_of(&q->k, t, id);
	}
	for (uint32_t i = q->nleaf - 1u; i >= 1u; i--) {
		uint64_t l = q->w[2u * i], r = q->w[2u * i + 1u];

		q->w[i] = r < l ? r : l;
	}
}

void sched_tree_settle(struct sched_tree *q)
{
	uint64_t min = SCHED_EVQ_NEVER;

	for (uint32_t id = 0; id < q->nids; id++) {
		min = q->t[id] < min ? q->t[id] : min;
	}
	sched_tree_rebase(q, min);
}

const char *sched_tree_check(const struct sched_tree *q)
{
	for (uint32_t id = 0; id < q->nleaf; id++) {
		uint64_t t = q->t[id], key = q->w[q->nleaf + id];

		if (id >= q->nids && (t != SCHED_EVQ_NEVER || key != SCHED_EVQ_NOKEY)) {
			return "a leaf past the ids has an event";
		}
		if (t == SCHED_EVQ_NEVER ? key != SCHED_EVQ_NOKEY
					 : t < q->k.base || key != sched_evkey_of(&q->k, t, id)) {
			return "a leaf's key is not its event's";
		}
	}
	for (uint32_t i = q->nleaf - 1u; i >= 1u; i--) {
		uint64_t l = q->w[2u * i], r = q->w[2u * i + 1u];

		if (q->w[i] != (r < l ? r : l)) {
			return "a node is not the smaller of its children";
		}
	}
	return NULL;
}
