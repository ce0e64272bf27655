// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/wake.c - ReadyThread to switch-in pairing (see wake.h):
 * per TID a list of the ReadyThreads waiting, kept when it empties (its
 * memory is used again by the thread's next wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/wake.h"

struct wake_list {
	struct wake_ready *v; /* [done, n) wait; [0, done) were handed out last */
	unsigned n, cap;
	unsigned done;
};

/* Drop what the last wake_take() handed out. */
static void compact(struct wake_list *l)
{
	if (l->done) {
		memmove(l->v, l->v + l->done, (l->n - l->done) * sizeof(*l->v));
		l->n -= l->done;
		l->done = 0;
	}
}

int wake_add(struct wake_pairing *p, uint32_t tid, const struct wake_ready *r)
{
	struct wake_list *l;

	p->pending.elem_size = sizeof(*l);
	l = id_map_add(&p->pending, tid);
	if (!l) {
		return -ENOMEM;
	}
	compact(l);
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 2;
		struct wake_ready *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			return -ENOMEM;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *r;
	p->waiting++;
	return 0;
}

void wake_take(struct wake_pairing *p, uint32_t tid, uint64_t ts, const struct wake_ready **out,
	       unsigned *n)
{
	struct wake_list *l = id_map_get(&p->pending, tid);
	unsigned k = 0;

	*n = 0;
	if (!l) {
		return;
	}
	compact(l);
	/* in time order all wait from before @ts; one from after it (a file whose
	 * records are not) waits on for a later switch-in */
	while (k < l->n && l->v[k].ts <= ts) {
		k++;
	}
	*out = l->v;
	*n = k;
	l->done = k;
	p->waiting -= k;
}

void wake_pairing_free(struct wake_pairing *p)
{
	for (size_t i = 0; i < p->pending.cap; i++) {
		uint32_t tid;
		struct wake_list *l = id_map_at(&p->pending, i, &tid);

		if (l) {
			free(l->v);
		}
	}
	id_map_free(&p->pending);
	p->waiting = 0;
}
