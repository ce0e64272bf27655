// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/stacks.c - the stacks of a file's events (see
 * stacks.h): the parts gathered in CPU order, then
 *
 *   definitions sorted by (key, time)   a reference takes the first
 *                                       definition of its key at or after
 *                                       its own time (binary search)
 *   parts sorted by (event time,        each group is one event: its
 *     thread, kernel/user, time)        kernel parts' frames, then its
 *                                       user parts', interned as its stack
 *
 * then every event's frames mapped to the images of its process (the
 * part's StackProcess) at the event's time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/stacks.h"
#include "tools/lib/analysis/tables.h"
#include "tools/lib/common/grow.h"

#define NO_RUN UINT32_MAX

/* One StackWalk or key reference, as gathered. */
struct an_part {
	uint64_t event_ts;
	uint64_t ts;
	size_t seq;
	uint32_t pid, tid;
	uint64_t key;
	uint32_t run; /* its frames (a key's, once resolved); NO_RUN none */
	bool user;
	bool is_key;
};

/* One key definition (KeyCreate, KeyDelete, KeyRundown). */
struct an_def {
	uint64_t key;
	uint64_t ts;
	size_t seq;
	uint32_t run;
};

void an_stacks_init(struct an_stacks *st, uint64_t kernel_at)
{
	memset(st, 0, sizeof(*st));
	st->kernel_at = kernel_at;
}

/* ---- runs of frames, each kept once ------------------------------------------ */

static uint64_t hash_frames(const uint64_t *f, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15u ^ n;

	for (size_t i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0xFF51AFD7ED558CCDu;
		h ^= h >> 32;
	}
	return h;
}

static bool same(const struct an_runs *r, const struct an_run *e, const uint64_t *f, size_t n)
{
	return e->n == n && !memcmp(r->pool + e->off, f, n * sizeof(*f));
}

static uint64_t run_hash_at(const void *ctx, uint32_t i)
{
	return ((const struct an_runs *)ctx)->v[i].hash;
}

/*
 * The run of the @n frames @f, added when new (@kernel: how many are
 * kernel frames, kept for a new run). Return: its number, NO_RUN out of
 * memory.
 */
static uint32_t run_of(struct an_runs *r, const uint64_t *f, size_t n, uint32_t kernel)
{
	uint64_t h = hash_frames(f, n);
	size_t k;
	struct an_run *v;

	if (n > UINT32_MAX || r->n >= NO_RUN - 1 ||
	    an_slots_grow(&r->slots, &r->nslots, r->n, run_hash_at, r) < 0) {
		return NO_RUN;
	}
	for (k = h & (r->nslots - 1); r->slots[k]; k = (k + 1) & (r->nslots - 1)) {
		const struct an_run *e = &r->v[r->slots[k] - 1];

		if (e->hash == h && same(r, e, f, n)) {
			return r->slots[k] - 1;
		}
	}
	while (r->npool + n > r->cap_pool) {
		size_t cap = r->cap_pool ? 2 * r->cap_pool : 4096;
		uint64_t *p = realloc(r->pool, cap * sizeof(*p));

		if (!p) {
			return NO_RUN;
		}
		r->pool = p;
		r->cap_pool = cap;
	}
	v = grow_room(r->v, &r->cap, r->n, sizeof(*v), 256);
	if (!v) {
		return NO_RUN;
	}
	r->v = v;
	if (n) {
		memcpy(r->pool + r->npool, f, n * sizeof(*f));
	}
	r->v[r->n] =
		(struct an_run){.off = r->npool, .n = (uint32_t)n, .kernel = kernel, .hash = h};
	r->npool += n;
	r->slots[k] = (uint32_t)r->n + 1;
	return (uint32_t)r->n++;
}

const uint64_t *an_run_frames(const struct an_runs *r, uint32_t i, size_t *n)
{
	if (i >= r->n) {
		*n = 0;
		return NULL;
	}
	*n = r->v[i].n;
	return r->pool + r->v[i].off;
}

static void runs_free(struct an_runs *r)
{
	free(r->pool);
	free(r->v);
	free(r->slots);
}

/* ---- gathering ---------------------------------------------------------------- */

int an_stacks_note(struct an_stacks *st, const struct etwforge_event *ev, size_t seq)
{
	struct an_part p = {.ts = ev->ts, .seq = seq, .run = NO_RUN};

	switch (ev->kind) {
	case ETWFORGE_EV_STACK: {
		const struct etwforge_stack_walk *w = &ev->u.stack;

		st->records++;
		if (w->nframes == 0) {
			st->empty++; /* nothing to join */
			return 0;
		}
		p.event_ts = w->event_ts;
		p.pid = w->pid;
		p.tid = w->tid;
		p.user = w->frames[0] < st->kernel_at;
		p.run = run_of(&st->parts, w->frames, w->nframes, 0);
		if (p.run == NO_RUN) {
			return -ENOMEM;
		}
		break;
	}
	case ETWFORGE_EV_STACK_KEY:
		st->records++;
		p.event_ts = ev->u.stack_key.event_ts;
		p.pid = ev->u.stack_key.pid;
		p.tid = ev->u.stack_key.tid;
		p.key = ev->u.stack_key.key;
		p.is_key = true;
		p.user = ev->rec->hook == 0x1826;
		break;
	case ETWFORGE_EV_STACK_DEF: {
		struct an_def d = {.key = ev->u.stack_def.key, .ts = ev->ts, .seq = seq};
		struct an_def *v;

		st->defs++;
		d.run = run_of(&st->parts, ev->u.stack_def.frames, ev->u.stack_def.nframes, 0);
		v = grow_room(st->d, &st->cap_d, st->nd, sizeof(*v), 256);
		if (d.run == NO_RUN || !v) {
			return -ENOMEM;
		}
		st->d = v;
		st->d[st->nd++] = d;
		return 0;
	}
	default:
		return 0;
	}
	{
		struct an_part *v = grow_room(st->p, &st->cap_p, st->np, sizeof(*v), 256);

		if (!v) {
			return -ENOMEM;
		}
		st->p = v;
		st->p[st->np++] = p;
	}
	return 0;
}

/* ---- resolving and joining ---------------------------------------------------- */

static int by_key_time(const void *a, const void *b)
{
	const struct an_def *x = a, *y = b;

	if (x->key != y->key) {
		return x->key < y->key ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_event(const void *a, const void *b)
{
	const struct an_part *x = a, *y = b;

	if (x->event_ts != y->event_ts) {
		return x->event_ts < y->event_ts ? -1 : 1;
	}
	if (x->tid != y->tid) {
		return x->tid < y->tid ? -1 : 1;
	}
	if (x->user != y->user) {
		return x->user ? 1 : -1; /* the kernel part first */
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The first definition of @key at or after @ts, NULL none. */
static const struct an_def *definition(const struct an_stacks *st, uint64_t key, uint64_t ts)
{
	size_t lo = 0, hi = st->nd;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct an_def *d = &st->d[mid];

		if (d->key < key || (d->key == key && d->ts < ts)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < st->nd && st->d[lo].key == key ? &st->d[lo] : NULL;
}

/* Frames of an event's parts [@i, @e) joined into @buf. Return: their number, -1 no memory. */
static long long join(struct an_stacks *st, size_t i, size_t e, uint64_t **buf, size_t *cap,
		      uint32_t *kernel)
{
	size_t n = 0;

	*kernel = 0;
	for (size_t k = i; k < e; k++) {
		size_t m;
		const uint64_t *f = an_run_frames(&st->parts, st->p[k].run, &m);

		if (st->p[k].run == NO_RUN) {
			continue;
		}
		if (n + m > *cap) {
			size_t c = 2 * (n + m);
			uint64_t *b = realloc(*buf, c * sizeof(*b));

			if (!b) {
				return -1;
			}
			*buf = b;
			*cap = c;
		}
		memcpy(*buf + n, f, m * sizeof(*f));
		n += m;
		if (!st->p[k].user) {
			*kernel += (uint32_t)m;
		}
	}
	return (long long)n;
}

int an_stacks_finish(struct an_stacks *st, struct an_images *im)
{
	uint64_t *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	if (st->nd > 1) {
		qsort(st->d, st->nd, sizeof(*st->d), by_key_time);
	}
	for (size_t i = 0; i < st->np; i++) {
		struct an_part *p = &st->p[i];

		if (p->is_key) {
			const struct an_def *d = definition(st, p->key, p->ts);

			p->run = d ? d->run : NO_RUN;
			st->unresolved += !d;
		}
	}
	if (st->np > 1) {
		qsort(st->p, st->np, sizeof(*st->p), by_event);
	}
	st->ev = malloc((st->np ? st->np : 1) * sizeof(*st->ev));
	if (!st->ev) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->np;) {
		size_t e = i + 1;
		struct an_stack_event *se;
		uint32_t kernel;
		long long n;

		while (e < st->np && st->p[e].event_ts == st->p[i].event_ts &&
		       st->p[e].tid == st->p[i].tid) {
			e++;
		}
		n = join(st, i, e, &buf, &cap, &kernel);
		se = &st->ev[st->nev];
		*se = (struct an_stack_event){
			.event_ts = st->p[i].event_ts, .tid = st->p[i].tid, .pid = st->p[i].pid};
		for (size_t k = i; k < e; k++) {
			se->kernel |= !st->p[k].user && st->p[k].run != NO_RUN;
			se->user |= st->p[k].user && st->p[k].run != NO_RUN;
		}
		if (n < 0 || (n > 0 && (se->stack = run_of(&st->joined, buf, (size_t)n, kernel)) ==
					       NO_RUN)) {
			rc = -ENOMEM;
			break;
		}
		i = e;
		if (n == 0) {
			continue; /* every part unresolved: no stack */
		}
		st->nev++;
		for (long long k = 0; k < n; k++) {
			int64_t r = an_image_at(im, se->pid, buf[k], se->event_ts);

			st->frames++;
			if (r >= 0) {
				st->frames_in_image++;
				im->rows[r].pub.frames++;
			}
		}
	}
	free(buf);
	free(st->p);
	free(st->d);
	st->p = NULL;
	st->d = NULL;
	st->np = st->nd = st->cap_p = st->cap_d = 0;
	if (rc == 0) {
		st->samples = calloc(st->joined.n ? st->joined.n : 1, sizeof(*st->samples));
		rc = st->samples ? 0 : -ENOMEM;
	}
	return rc;
}

const struct an_stack_event *an_stack_of(const struct an_stacks *st, uint64_t event_ts,
					 uint32_t tid)
{
	size_t lo = 0, hi = st->nev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct an_stack_event *e = &st->ev[mid];

		if (e->event_ts < event_ts || (e->event_ts == event_ts && e->tid < tid)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < st->nev && st->ev[lo].event_ts == event_ts && st->ev[lo].tid == tid
		       ? &st->ev[lo]
		       : NULL;
}

void an_stacks_free(struct an_stacks *st)
{
	runs_free(&st->parts);
	runs_free(&st->joined);
	free(st->ev);
	free(st->samples);
	free(st->p);
	free(st->d);
	memset(st, 0, sizeof(*st));
}
