// SPDX-License-Identifier: MIT
/*
 * scheduler_model/sched_evq.c - set-up and checking of the event queue
 * (the operations themselves are inline in sched_evq.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/sched_evq.h"

#define LINE 64u /* four entries */

int sched_evq_init(struct sched_evq *q, uint32_t nids)
{
	/* 3 entries of padding put siblings 4i+1..4i+4 on one cache line */
	size_t bytes = ((size_t)nids + 3u) * sizeof(struct sched_ev);

	memset(q, 0, sizeof(*q));
	bytes = (bytes + LINE - 1u) / LINE * LINE;
	q->mem = aligned_alloc(LINE, bytes);
	q->pos = malloc(((size_t)nids + 1u) * sizeof(*q->pos));
	if (!q->mem || !q->pos) {
		sched_evq_finish(q);
		return -ENOMEM;
	}
	memset(q->mem, 0, bytes);
	q->h = (struct sched_ev *)q->mem + 3;
	q->nids = nids;
	for (uint32_t id = 0; id < nids; id++) {
		q->pos[id] = SCHED_EVQ_NONE;
	}
	return 0;
}

void sched_evq_finish(struct sched_evq *q)
{
	free(q->mem);
	free(q->pos);
	memset(q, 0, sizeof(*q));
}

const char *sched_evq_check(const struct sched_evq *q)
{
	uint32_t queued = 0;

	if (q->n > q->nids) {
		return "more events than ids";
	}
	for (uint32_t i = 0; i < q->n; i++) {
		const struct sched_ev *e = &q->h[i];

		if (e->id >= q->nids || q->pos[e->id] != i) {
			return "heap positions are stale";
		}
		if (i && sched_ev_before(e, &q->h[(i - 1u) / 4u])) {
			return "the heap is out of order";
		}
	}
	for (uint32_t id = 0; id < q->nids; id++) {
		queued += q->pos[id] != SCHED_EVQ_NONE;
	}
	return queued == q->n ? NULL : "an id is indexed but not queued";
}

int sched_tree_init(struct sched_tree *q, uint32_t nids)
{
	uint32_t n = 1;
	size_t bytes;

	memset(q, 0, sizeof(*q));
	while (n < nids) {
		n *= 2u;
	}
	bytes = ((size_t)2u * n * sizeof(struct sched_ev) + LINE - 1u) / LINE * LINE;
	q->mem = aligned_alloc(LINE, bytes);
	if (!q->mem) {
		return -ENOMEM;
	}
	q->w = q->mem;
	q->nleaf = n;
	q->nids = nids;
	/* every leaf empty; an empty leaf still has its id, so ties are ordered */
	for (uint32_t i = 0; i < n; i++) {
		q->w[n + i].t = SCHED_EVQ_NEVER;
		q->w[n + i].id = i;
		q->w[n + i].pad = 0;
	}
	for (uint32_t i = n - 1u; i >= 1u; i--) {
		const struct sched_ev *l = &q->w[2u * i], *r = &q->w[2u * i + 1u];

		q->w[i] = sched_ev_before(r, l) ? *r : *l;
	}
	q->w[0].t = SCHED_EVQ_NEVER; /* unused */
	q->w[0].id = 0;
	q->w[0].pad = 0;
	return 0;
}

void sched_tree_finish(struct sched_tree *q)
{
	free(q->mem);
	memset(q, 0, sizeof(*q));
}

const char *sched_tree_check(const struct sched_tree *q)
{
	for (uint32_t i = 0; i < q->nleaf; i++) {
		if (q->w[q->nleaf + i].id != i) {
			return "a leaf lost its id";
		}
		if (i >= q->nids && q->w[q->nleaf + i].t != SCHED_EVQ_NEVER) {
			return "a leaf past the ids has an event";
		}
	}
	for (uint32_t i = q->nleaf - 1u; i >= 1u; i--) {
		const struct sched_ev *l = &q->w[2u * i], *r = &q->w[2u * i + 1u];
		const struct sched_ev *e = sched_ev_before(r, l) ? r : l;

		if (q->w[i].t != e->t || q->w[i].id != e->id) {
			return "a node is not the earlier of its children";
		}
	}
	return NULL;
}
