// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit_stacks.c - the stack tally fit writes from (see
 * fit_stacks.h), one pass in time order. An event's stack comes in parts
 * that name it by (event time, thread): the kernel part right after the
 * event, the user part when the thread goes back to user mode, later and
 * perhaps on another CPU. So each thread keeps its last RING events (a
 * sample, or an event a part named); a part finds its event there, and an
 * event leaves the ring (is counted) when a newer one pushes it out or the
 * file ends. A cached part (StackKeyKernel/User) is as deep as the first
 * definition of its key at or after it (KeyDelete at eviction, KeyRundown
 * at the end): a sample still waiting for one when it leaves the ring
 * waits on the key (its known frames and the next key it waits for, with
 * a count), and the definition puts it in the histogram.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/id_map.h"
#include "tools/lib/fit/fit_stacks.h"
#include "tools/lib/read/read.h"

#define RING	       16u /* events a thread keeps waiting for their parts */
#define KEYS_MAX       2u  /* cached parts an event can wait for: kernel, user */
#define SLOTS_MIN      64u
#define PROGRESS_EVERY 65536u /* events between progress calls */

/* An event of a thread, waiting for the parts of its stack. */
struct ev_slot {
	uint64_t ts;
	uint64_t key[KEYS_MAX]; /* cached parts without their definition yet */
	uint32_t depth;		/* frames known */
	uint8_t parts, keys;
	bool sample, used;
};

/* A thread's ring, the value of its TID in the tally's map. */
struct thread_ring {
	uint8_t next; /* the slot the next event takes */
	struct ev_slot ev[RING];
};

/*
 * Samples that left their ring waiting on a key: @count of them, with
 * @other frames known, then @then's frames (0 none) from its first
 * definition after the @then_gen-th.
 */
struct wait {
	uint32_t other;
	uint64_t then, then_gen;
	uint64_t count;
};

/* A reference to a key from an event still in its thread's ring (slot @slot). */
struct ref {
	uint64_t ts;
	uint32_t tid;
	uint8_t slot;
};

/*
 * A cache key: its definitions so far (@gen, the last one's frames), the
 * events in rings that reference it, and the samples out of their rings
 * waiting on its next definition.
 */
struct key_slot {
	uint64_t key;
	bool used;
	uint64_t gen;
	uint32_t def_n;
	struct ref *r;
	size_t nr, capr, live; /* @live: refs kept by the last sweep */
	struct wait *w;
	size_t nw, capw;
};

struct tally {
	struct fit_stacks *out;
	struct id_map th; /* TID -> struct thread_ring */
	struct key_slot *keys;
	size_t nkeys, cap_keys; /* cap_keys a power of two (open addressing) */
};

static unsigned bucket(uint64_t n)
{
	unsigned k = 0;

	n = n ? n : 1;
	while (n >>= 1) {
		k++;
	}
	return k < ETWFORGE_HIST_BUCKETS ? k : ETWFORGE_HIST_BUCKETS - 1;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* ---- tables ---------------------------------------------------------------------------- */

/* Grow the key table to twice its slots, rehashed. Return: 0, -ENOMEM. */
static int keys_grow(struct tally *t)
{
	size_t ncap = t->cap_keys ? 2 * t->cap_keys : SLOTS_MIN;
	struct key_slot *nv = calloc(ncap, sizeof(*nv));

	if (!nv) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap_keys; i++) {
		if (t->keys[i].used) {
			size_t k = mix(t->keys[i].key) & (ncap - 1);

			while (nv[k].used) {
				k = (k + 1) & (ncap - 1);
			}
			nv[k] = t->keys[i];
		}
	}
	free(t->keys);
	t->keys = nv;
	t->cap_keys = ncap;
	return 0;
}

static struct key_slot *key_of(struct tally *t, uint64_t key)
{
	size_t k;

	if (2 * (t->nkeys + 1) > t->cap_keys && keys_grow(t) < 0) {
		return NULL;
	}
	for (k = mix(key) & (t->cap_keys - 1); t->keys[k].used; k = (k + 1) & (t->cap_keys - 1)) {
		if (t->keys[k].key == key) {
			return &t->keys[k];
		}
	}
	t->keys[k] = (struct key_slot){.key = key, .used = true};
	t->nkeys++;
	return &t->keys[k];
}

/* ---- counting -------------------------------------------------------------------------- */

/* @count samples of @other frames known wait on @key (then on @then, 0 none). Return: 0, -ENOMEM. */
static int wait_on(struct tally *t, uint64_t key, uint32_t other, uint64_t then, uint64_t then_gen,
		   uint64_t count)
{
	struct key_slot *ks = key_of(t, key);

	if (!ks) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < ks->nw; i++) {
		if (ks->w[i].other == other && ks->w[i].then == then &&
		    ks->w[i].then_gen == then_gen) {
			ks->w[i].count += count;
			return 0;
		}
	}
	if (ks->nw == ks->capw) {
		size_t cap = ks->capw ? 2 * ks->capw : 4;
		struct wait *w = realloc(ks->w, cap * sizeof(*w));

		if (!w) {
			return -ENOMEM;
		}
		ks->w = w;
		ks->capw = cap;
	}
	ks->w[ks->nw++] = (struct wait){other, then, then_gen, count};
	return 0;
}

/*
 * A sample leaving its ring: the cached parts it still has are not defined
 * since their reference (a definition takes its part off the event), so it
 * waits on the first, or is counted. Return: 0, -ENOMEM.
 */
static int resolve(struct tally *t, const struct ev_slot *e)
{
	uint64_t then_gen = 0;

	if (e->keys == 0) {
		t->out->depth_hist[bucket(e->depth)]++;
		return 0;
	}
	if (e->keys > 1) {
		const struct key_slot *next = key_of(t, e->key[1]);

		if (!next) {
			return -ENOMEM;
		}
		then_gen = next->gen;
	}
	return wait_on(t, e->key[0], e->depth, e->keys > 1 ? e->key[1] : 0, then_gen, 1);
}

/* @e leaves its ring: counted. Return: 0, -ENOMEM. */
static int count_event(struct tally *t, struct ev_slot *e)
{
	int rc = 0;

	if (e->used && e->parts) {
		t->out->events++;
		if (e->sample) {
			t->out->samples++;
			rc = resolve(t, e);
		}
	}
	e->used = false;
	return rc;
}

/* The event (@ts) of @r's thread: found, or a new one in the ring (the oldest counted). */
static struct ev_slot *event_of(struct tally *t, struct thread_ring *r, uint64_t ts, int *rc)
{
	struct ev_slot *e;

	for (unsigned i = 0; i < RING; i++) {
		if (r->ev[i].used && r->ev[i].ts == ts) {
			return &r->ev[i];
		}
	}
	e = &r->ev[r->next];
	r->next = (uint8_t)((r->next + 1) % RING);
	*rc = count_event(t, e);
	*e = (struct ev_slot){.ts = ts, .used = true};
	return e;
}

/* @r's thread's ring, if it has one (none made). */
static struct thread_ring *ring_find(struct tally *t, uint32_t tid)
{
	return id_map_get(&t->th, tid);
}

/* The event @f names if it is still in its ring with @key among its parts to define, else NULL. */
static struct ev_slot *ref_event(struct tally *t, const struct ref *f, uint64_t key, unsigned *at)
{
	struct thread_ring *r = ring_find(t, f->tid);
	struct ev_slot *e = r ? &r->ev[f->slot] : NULL;

	if (!e || !e->used || e->ts != f->ts) {
		return NULL;
	}
	for (unsigned i = 0; i < e->keys; i++) {
		if (e->key[i] == key) {
			*at = i;
			return e;
		}
	}
	return NULL;
}

/*
 * Note that the event in slot @slot of @tid's ring references @key. The
 * list is swept of events gone from their rings whenever it doubles, so it
 * holds at most twice the events rings keep. Return: 0, -ENOMEM.
 */
static int ref_add(struct tally *t, uint64_t key, uint32_t tid, unsigned slot, uint64_t ts)
{
	struct key_slot *ks = key_of(t, key);
	unsigned at;

	if (!ks) {
		return -ENOMEM;
	}
	if (ks->nr >= 2 * ks->live && ks->nr >= 16) {
		size_t kept = 0;

		for (size_t i = 0; i < ks->nr; i++) {
			if (ref_event(t, &ks->r[i], key, &at)) {
				ks->r[kept++] = ks->r[i];
			}
		}
		ks->nr = ks->live = kept;
	}
	if (ks->nr == ks->capr) {
		size_t cap = ks->capr ? 2 * ks->capr : 4;
		struct ref *v = realloc(ks->r, cap * sizeof(*v));

		if (!v) {
			return -ENOMEM;
		}
		ks->r = v;
		ks->capr = cap;
	}
	ks->r[ks->nr++] = (struct ref){.ts = ts, .tid = tid, .slot = (uint8_t)slot};
	return 0;
}

/*
 * A key's definition, the first since every reference it has now: the
 * events in rings take its frames, and the samples out of their rings
 * waiting on it are counted (or wait on their next key). Return: 0, -ENOMEM.
 */
static int defined(struct tally *t, uint64_t key, size_t n)
{
	struct key_slot *ks = key_of(t, key), *next;
	uint32_t frames = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	struct wait *w;
	size_t nw;
	unsigned at;

	if (!ks) {
		return -ENOMEM;
	}
	ks->gen++;
	ks->def_n = frames;
	for (size_t i = 0; i < ks->nr; i++) {
		struct ev_slot *e = ref_event(t, &ks->r[i], key, &at);

		if (e) {
			e->depth = e->depth + frames < e->depth ? UINT32_MAX : e->depth + frames;
			memmove(&e->key[at], &e->key[at + 1],
				(e->keys - at - 1u) * sizeof(*e->key));
			e->keys--;
		}
	}
	ks->nr = ks->live = 0;
	w = ks->w;
	nw = ks->nw;
	ks->w = NULL;
	ks->nw = ks->capw = 0;
	for (size_t i = 0; i < nw; i++) {
		uint64_t depth = (uint64_t)w[i].other + frames;
		int rc;

		if (!w[i].then) {
			t->out->depth_hist[bucket(depth)] += w[i].count;
			continue;
		}
		/* then the next key: defined since the sample left its ring, or waited on */
		next = key_of(t, w[i].then);
		if (next && next->gen > w[i].then_gen) {
			t->out->depth_hist[bucket(depth + next->def_n)] += w[i].count;
			continue;
		}
		rc = next ? wait_on(t, w[i].then, depth > UINT32_MAX ? UINT32_MAX : (uint32_t)depth,
				    0, 0, w[i].count)
			  : -ENOMEM;
		if (rc < 0) {
			free(w);
			return rc;
		}
	}
	free(w);
	return 0;
}

static int note(struct tally *t, const struct etwforge_event *ev)
{
	struct thread_ring *r;
	struct ev_slot *e;
	uint64_t event_ts, key = 0;
	uint32_t tid, frames = 0;
	int rc = 0;

	switch (ev->kind) {
	case ETWFORGE_EV_SAMPLE:
		if (!(r = id_map_add(&t->th, ev->u.sample.tid))) {
			return -ENOMEM;
		}
		e = event_of(t, r, ev->ts, &rc);
		e->sample = true;
		return rc;
	case ETWFORGE_EV_STACK:
		t->out->records++;
		if (ev->u.stack.nframes == 0) {
			return 0; /* names its event, but gives it nothing */
		}
		event_ts = ev->u.stack.event_ts;
		tid = ev->u.stack.tid;
		frames = ev->u.stack.nframes > UINT32_MAX ? UINT32_MAX
							  : (uint32_t)ev->u.stack.nframes;
		break;
	case ETWFORGE_EV_STACK_KEY:
		t->out->records++;
		event_ts = ev->u.stack_key.event_ts;
		tid = ev->u.stack_key.tid;
		key = ev->u.stack_key.key;
		break;
	case ETWFORGE_EV_STACK_DEF:
		return defined(t, ev->u.stack_def.key, ev->u.stack_def.nframes);
	default:
		return 0;
	}
	if (!(r = id_map_add(&t->th, tid))) {
		return -ENOMEM;
	}
	e = event_of(t, r, event_ts, &rc);
	if (e->parts < UINT8_MAX) {
		e->parts++;
	}
	if (rc == 0 && key && e->keys < KEYS_MAX) {
		e->key[e->keys++] = key;
		rc = ref_add(t, key, tid, (unsigned)(e - r->ev), event_ts);
	}
	e->depth = e->depth + frames < e->depth ? UINT32_MAX : e->depth + frames;
	return rc;
}

/* The end: every ring's events counted, then the samples still waiting on a key (never defined). */
static int finish(struct tally *t)
{
	for (size_t i = 0; i < t->th.cap; i++) {
		uint32_t tid;
		struct thread_ring *r = id_map_at(&t->th, i, &tid);

		for (unsigned j = 0; r && j < RING; j++) {
			if (count_event(t, &r->ev[j]) < 0) {
				return -ENOMEM;
			}
		}
	}
	for (size_t i = 0; i < t->cap_keys; i++) {
		for (size_t j = 0; t->keys[i].used && j < t->keys[i].nw; j++) {
			t->out->depth_hist[bucket(t->keys[i].w[j].other)] += t->keys[i].w[j].count;
		}
	}
	return 0;
}

int fit_stacks_read(struct etwforge_file *f, bool keep_going, struct fit_stacks *out,
		    void (*progress)(void *ctx, uint64_t offset), void *ctx,
		    struct etwforge_error *err)
{
	struct tally t = {.out = out, .th = {.elem_size = sizeof(struct thread_ring)}};
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	bool failed = false;
	uint64_t n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	it = read_iter_new(f, ETWFORGE_ORDER_TIME,
			   ETWFORGE_EV_SAMPLE | ETWFORGE_EV_STACK | ETWFORGE_EV_STACK_KEY |
				   ETWFORGE_EV_STACK_DEF,
			   err);
	if (!it) {
		return errno ? -errno : -ENOMEM;
	}
	while ((rc = read_iter_next(it, &ev, err)) != 0) {
		if (rc == -EINVAL && keep_going && !failed) {
			failed = true; /* damage: skipped once; again right after, the tally ends */
			continue;
		}
		if (rc < 0) {
			if (rc == -EINVAL && keep_going) {
				rc = 0;
			}
			break;
		}
		failed = false;
		if (progress && ++n % PROGRESS_EVERY == 0) {
			progress(ctx, ev->file_offset);
		}
		if ((rc = note(&t, ev)) < 0) {
			break;
		}
	}
	if (rc == 0 && finish(&t) < 0) {
		rc = -ENOMEM;
	}
	if (rc == -ENOMEM) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	read_iter_free(it);
	for (size_t i = 0; i < t.cap_keys; i++) {
		free(t.keys[i].w);
		free(t.keys[i].r);
	}
	free(t.keys);
	id_map_free(&t.th);
	return rc;
}
