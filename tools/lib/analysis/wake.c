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
#include "tools/lib/common/grow.h"

/* Drop what the last wake_take() handed out. */
static void compact(struct wake_list *l)
{
	if (l->done) {
		memmove(l->v, l->v + l->done, (l->n - l->done) * sizeof(*l->v));
		l->n -= l->done;
		l->done = 0;
	}
}

int wake_add(struct wake_list *l, const struct wake_ready *r)
{
	struct wake_ready *v;

	compact(l);
	v = grow_room(l->v, &l->cap, l->n, sizeof(*v), 2);
	if (!v) {
		return -ENOMEM;
	}
	l->v = v;
	l->v[l->n++] = *r;
	return 0;
}

void wake_take(struct wake_list *l, uint64_t ts, const struct wake_ready **out, size_t *n)
{
	size_t k = 0;

	compact(l);
	/* in time order all wait from before @ts; one from after it (a file whose
	 * records are not) waits on for a later switch-in */
	while (k < l->n && l->v[k].ts <= ts) {
		k++;
	}
	*out = l->v;
	*n = k;
	l->done = k;
}

void wake_list_free(struct wake_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
