// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/iter_time.c - the events of every CPU in time order
 * (ETWFORGE_ORDER_TIME): a k-way merge of sources that are each in time
 * order on their own.
 *
 * A CPU's buffers are not: the kernel writes a compact batch when it is
 * flushed, after the records logged on that CPU meanwhile (ReadyThread,
 * samples, thread starts), so the batch's switches come behind later
 * events. Each CPU therefore gives two sources, each in order:
 *
 *   CPU c, live     its buffers' records but compact batches: plain
 *                   CSwitch, SpinLock, ReadyThread, samples, processes,
 *                   threads, ... (logged when they happened)
 *   CPU c, batches  its compact batches' switches, expanded (a switch's
 *                   new thread is known once the CPU's next switch is read)
 *   header          buffer 0's records (live)
 *
 *   sources ──► tournament on (ts, source) ──► next event
 *
 * The sources play a tournament (a loser tree: each inner node keeps the
 * loser of the match below it, the root's the winner): when the winner is
 * refilled, only its path to the root is replayed, one comparison a level.
 * At one time, buffer 0 comes first, then each CPU's live records before its
 * batches; an exhausted source's key is past every time. Only the sources
 * with an event at the start play (a CPU whose buffers hold nothing but
 * batches has no live source in the tree): fewer levels to replay.
 *
 * A source's next event is converted when fetched and handed out as it is;
 * the source is refilled at the following call, so the event (and the
 * record and strings it points to) stays valid until then. Memory: two
 * events per CPU, whatever the length of the file. Raw (read_iter_new_raw()),
 * a compact switch is handed out as a struct read_switch, not converted to
 * the public event: a pass over every switch reads those and nothing more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/read/read_internal.h"
#include "writer/etl_reader.h"

#define RUN 16u /* a raw batches source's switches read at once (dec_cursor_run()) */

/* One source of the merge. */
struct time_src {
	bool batches;	       /* a CPU's compact switches (else its live records) */
	struct dec_cursor cur; /* batches: the CPU's cursor */
	const unsigned *bufs;  /* live: its buffers, in order */
	unsigned nbufs;
	unsigned bi;		 /* live: the buffer being read */
	size_t pos;		 /* live: inside it */
	struct rec_store st;	 /* the record of @ev (live), the batch record (batches) */
	struct rec_store cur_st; /* batches: unused record store of rv_conv_dec_event() */
	struct etwforge_event ev;
	struct read_switch sw;	      /* batches, raw: a switch not read in a run */
	struct read_switch run[RUN];  /* batches, raw: switches of its batch read at once */
	unsigned rn, ri;	      /* @run holds @rn, the next at @ri */
	const struct read_switch *at; /* batches, raw: the switch (not @ev): @sw or in @run */
};

/* A source's key: its next event's time, then its index; @ts UINT64_MAX and @i ~0u: none. */
struct time_key {
	uint64_t ts;
	unsigned i;
};

struct iter_time {
	struct etwforge_file *f;
	unsigned kinds;
	bool raw; /* compact switches as struct read_switch (iter_time_next_raw()) */
	struct time_src *src;
	unsigned nsrc;
	struct time_key *key; /* per source, and [nsrc .. 2^shift] past every time (empty leaves) */
	uint64_t *packed;     /* the same, each key as one word (set_key()) */
	unsigned shift;	      /* bits of a source's index in a packed key: 2^shift > nsrc */
	bool wide;	      /* a time too large to pack was met: replay compares the keys */
	bool indexed;	      /* a source failed: replay reads the keys of @tree's sources */
	unsigned init;	      /* sources fetched a first time */
	bool built;	      /* the tournament is set up (every source fetched once) */
	unsigned k;	      /* its leaves: the sources that play, rounded up to a power of 2 */
	unsigned alive;	      /* the playing sources not at their end */
	unsigned *leaf;	      /* per source, its leaf (sources that do not play: none) */
	unsigned *leaf_src;   /* per leaf, its source (nsrc: empty) */
	unsigned *tree;	      /* [0] the winning source; [1..k-1] the losers of the matches */
	uint64_t *ktree;      /* [1..k-1] the packed keys of @tree's losers (not @wide) */
	int refill;	      /* the source whose event was handed out last (or failed), -1 none */
};

/*
 * A key as one word, time above index, when the time leaves room for the
 * index (else @it->wide from now on): the order of the words is the order
 * of the keys, one comparison instead of three. No key packs to UINT64_MAX
 * but the one past every time (2^shift > nsrc: an index never fills its
 * bits).
 */
static void set_key(struct iter_time *it, unsigned i, struct time_key k)
{
	it->key[i] = k;
	if (k.i == ~0u) {
		it->packed[i] = UINT64_MAX;
	} else if (k.ts >> (64 - it->shift)) {
		it->wide = true;
	} else {
		it->packed[i] = k.ts << it->shift | k.i;
	}
}

static bool key_less(const struct time_key *a, const struct time_key *b)
{
	/* without a branch: a match's outcome is a coin toss the predictor loses */
	return (a->ts < b->ts) | ((a->ts == b->ts) & (a->i < b->i));
}

/* The winner of the subtree under @node, its matches' losers stored on the way. */
static unsigned play(struct iter_time *it, unsigned node)
{
	unsigned a, b;

	if (node >= it->k) {
		return it->leaf_src[node - it->k];
	}
	a = play(it, 2 * node);
	b = play(it, 2 * node + 1);
	if (key_less(&it->key[b], &it->key[a])) {
		it->tree[node] = a;
		return b;
	}
	it->tree[node] = b;
	return a;
}

/*
 * Source @w's key changed: replay its matches up to the root. The winner's
 * key rides along in registers: a level's loads (its loser and that one's
 * key) do not wait for the level below, only the comparison does.
 */
static void replay_wide(struct iter_time *it, unsigned w)
{
	uint64_t wts = it->key[w].ts;
	unsigned wi = it->key[w].i;

	for (unsigned node = (it->leaf[w] + it->k) / 2; node >= 1; node /= 2) {
		unsigned l = it->tree[node];
		uint64_t lts = it->key[l].ts;
		unsigned li = it->key[l].i;
		/* all ones when the stored loser beats @w: masks, so no branch is taken */
		unsigned m = 0u - (unsigned)((lts < wts) | ((lts == wts) & (li < wi)));
		uint64_t m64 = 0u - (uint64_t)(m & 1u);

		it->tree[node] = (w & m) | (l & ~m);
		w = (l & m) | (w & ~m);
		wts = (lts & m64) | (wts & ~m64);
		wi = (li & m) | (wi & ~m);
	}
	it->tree[0] = w;
}

/* replay_wide() on packed keys: a level's match is one comparison of two words. */
static void replay_indexed(struct iter_time *it, unsigned w)
{
	uint64_t wk = it->packed[w];

	for (unsigned node = (it->leaf[w] + it->k) / 2; node >= 1; node /= 2) {
		unsigned l = it->tree[node];
		uint64_t lk = it->packed[l];
		/* all ones when the stored loser beats @w: masks, so no branch is taken */
		uint64_t m64 = 0u - (uint64_t)(lk < wk);
		unsigned m = (unsigned)m64;

		it->tree[node] = (w & m) | (l & ~m);
		w = (l & m) | (w & ~m);
		wk = (lk & m64) | (wk & ~m64);
	}
	it->tree[0] = w;
}

/*
 * replay_indexed() with the losers' keys kept beside them (@ktree): a
 * level is a load, a comparison and two stores, no load waiting for
 * another; the source of a packed key is its low bits (past every time:
 * 2^shift - 1, whose key is none). Exact while only the winner's key
 * changes, which a failed fetch breaks (the source goes on at the next
 * call, maybe no longer the winner): from then on, replay_indexed().
 */
static inline void replay_keys(struct iter_time *it, unsigned w)
{
	uint64_t wk = it->packed[w], mask = (1u << it->shift) - 1u;
	uint64_t *kt = it->ktree;
	unsigned *t = it->tree;

	for (unsigned node = (it->leaf[w] + it->k) / 2; node >= 1; node /= 2) {
		uint64_t lk = kt[node];
		uint64_t lo = lk < wk ? lk : wk, hi = lk < wk ? wk : lk;

		kt[node] = hi;
		t[node] = (unsigned)(hi & mask);
		wk = lo;
	}
	t[0] = (unsigned)(wk & mask);
}

/* Source @w's key changed: its matches replayed, as the tournament is kept. */
static void replay(struct iter_time *it, unsigned w)
{
	if (it->wide) {
		replay_wide(it, w);
	} else if (it->indexed) {
		replay_indexed(it, w);
	} else {
		replay_keys(it, w);
	}
}

/*
 * The tournament of the sources that have an event now (each fetched
 * once; built again when half its leaves are at their end).
 * Return: 0, or -ENOMEM.
 */
static int build(struct iter_time *it)
{
	unsigned n = 0;

	for (unsigned i = 0; i < it->nsrc; i++) {
		n += it->key[i].ts != UINT64_MAX;
	}
	for (it->k = 1; it->k < n; it->k *= 2) {
	}
	it->alive = n;
	free(it->leaf_src);
	free(it->tree);
	free(it->ktree);
	it->leaf_src = malloc(it->k * sizeof(*it->leaf_src));
	it->tree = calloc(it->k, sizeof(*it->tree));
	it->ktree = calloc(it->k, sizeof(*it->ktree));
	if (!it->leaf_src || !it->tree || !it->ktree) {
		return -ENOMEM;
	}
	n = 0;
	for (unsigned i = 0; i < it->nsrc; i++) {
		it->leaf[i] = ~0u;
		if (it->key[i].ts != UINT64_MAX) {
			it->leaf[i] = n;
			it->leaf_src[n++] = i;
		}
	}
	while (n < it->k) {
		it->leaf_src[n++] = it->nsrc; /* past every time */
	}
	it->tree[0] = play(it, 1);
	for (unsigned node = 1; node < it->k; node++) {
		it->ktree[node] = it->packed[it->tree[node]];
	}
	it->built = true;
	return 0;
}

/* The next event of live source @s. Return: 1, 0 at its end, -EINVAL (@e; it goes on after). */
static int live_next(struct iter_time *it, struct time_src *s, struct etl_error *e)
{
	const struct etl_reader *d = it->f->d;

	while (s->bi < s->nbufs) {
		const struct etl_buffer *b = etl_reader_buffer(d, s->bufs[s->bi]);
		struct etl_record r;
		int rc = etl_buffer_next(d, b, &s->pos, &r, e);

		if (rc <= 0) {
			s->bi++;
			s->pos = 0;
			if (rc < 0) {
				return rc; /* the rest of that buffer is lost */
			}
			continue;
		}
		if (r.kind == ETL_KIND_PERFINFO && r.hook_id == ETW_HOOK_CSWITCH_BATCH) {
			continue; /* the batches source has its switches */
		}
		if (rv_record_event(it->kinds, &r, b->index, &s->st, &s->ev)) {
			return 1;
		}
	}
	return 0;
}

/* Compact switch @ev as the raw reading hands it out, its batch record converted in @st once. */
static void raw_switch(const struct dec_event *ev, struct rec_store *st, struct read_switch *o)
{
	const struct etw_cswitch_compact *cc = &ev->u.cc;

	if (st->data != ev->rec.data) {
		rv_conv_record(&ev->rec, 0, st);
		st->data = ev->rec.data;
	}
	o->ts = cc->ts;
	o->batch = ev->batch;
	o->rec = &st->rec;
	o->cpu = ev->cpu;
	o->old_tid = cc->old_tid;
	o->new_tid = ev->new_tid;
	o->form_code = cc->form;
	o->old_state = cc->old_state;
	o->old_wait_reason = cc->old_wait_reason;
	o->new_tid_known = ev->new_tid_known;
	o->batch_first = ev->batch_first;
}

/*
 * Raw batches source @s's next switch from its run (read again when empty)
 * into @s->at: false when the run has none (the cursor has something else
 * next).
 */
static bool run_next(struct time_src *s)
{
	if (s->ri == s->rn) {
		s->ri = 0;
		s->rn = dec_cursor_run(&s->cur, s->run, RUN);
		if (!s->rn) {
			return false;
		}
		/* every switch of a run is of the batch being read */
		if (s->st.data != s->cur.batch_rec.data) {
			rv_conv_record(&s->cur.batch_rec, 0, &s->st);
			s->st.data = s->cur.batch_rec.data;
		}
		for (unsigned k = 0; k < s->rn; k++) {
			s->run[k].rec = &s->st.rec;
		}
	}
	s->at = &s->run[s->ri++];
	return true;
}

/* Fetch source @i's next event (its key past every time at its end). Return: 0, or -EINVAL (@e). */
static int fetch(struct iter_time *it, unsigned i, struct etl_error *e)
{
	struct time_src *s = &it->src[i];
	int rc;

	if (s->batches) {
		const struct dec_event *dev;

		if (it->raw && run_next(s)) {
			set_key(it, i, (struct time_key){s->at->ts, i});
			return 0;
		}
		rc = dec_cursor_peek(&s->cur, &dev, e);
		if (rc > 0 && it->raw) {
			raw_switch(dev, &s->st, &s->sw);
			s->at = &s->sw;
			set_key(it, i, (struct time_key){s->sw.ts, i});
			return 0;
		}
		if (rc > 0) {
			rv_conv_dec_event(dev, &s->st, &s->cur_st, &s->ev);
		}
	} else {
		rc = live_next(it, s, e);
	}
	set_key(it, i,
		rc > 0 ? (struct time_key){s->ev.ts, i} : (struct time_key){UINT64_MAX, ~0u});
	return rc < 0 ? rc : 0;
}

void iter_time_free(struct iter_time *it)
{
	if (!it) {
		return;
	}
	for (unsigned i = 0; it->src && i < it->nsrc; i++) {
		rv_store_free(&it->src[i].st);
		rv_store_free(&it->src[i].cur_st);
	}
	free(it->src);
	free(it->key);
	free(it->packed);
	free(it->leaf);
	free(it->leaf_src);
	free(it->tree);
	free(it->ktree);
	free(it);
}

struct iter_time *iter_time_new(struct etwforge_file *f, unsigned kinds, bool raw)
{
	struct iter_time *it = calloc(1, sizeof(*it));
	unsigned norder, ncpu = 0;
	const unsigned *order = etl_reader_cpu_order(f->d, &norder);
	static const unsigned header_buffer = 0;
	bool live = kinds & ~(unsigned)ETWFORGE_EV_COMPACT, batches = kinds & ETWFORGE_EV_COMPACT;

	if (!it) {
		return NULL;
	}
	it->f = f;
	it->kinds = kinds;
	it->raw = raw;
	it->refill = -1;
	/* the CPUs whose buffers the file has: runs of the CPU order */
	for (unsigned i = 0; i < norder; i++) {
		ncpu += i == 0 || etl_reader_buffer(f->d, order[i])->processor_index !=
					  etl_reader_buffer(f->d, order[i - 1])->processor_index;
	}
	it->src = calloc(2 * ncpu + 1, sizeof(*it->src));
	it->key = calloc(2 * ncpu + 2, sizeof(*it->key));
	it->packed = calloc(2 * ncpu + 2, sizeof(*it->packed));
	it->leaf = calloc(2 * ncpu + 1, sizeof(*it->leaf));
	if (!it->src || !it->key || !it->packed || !it->leaf) {
		iter_time_free(it);
		return NULL;
	}
	if (live && etl_reader_buffer_count(f->d) > 0) {
		it->src[it->nsrc].bufs = &header_buffer;
		it->src[it->nsrc++].nbufs = 1;
	}
	for (unsigned i = 0; i < norder;) {
		unsigned cpu = etl_reader_buffer(f->d, order[i])->processor_index, n;
		const unsigned *bufs = etl_reader_cpu_buffers(f->d, cpu, &n);

		if (live) {
			it->src[it->nsrc].bufs = bufs;
			it->src[it->nsrc++].nbufs = n;
		}
		if (batches) {
			it->src[it->nsrc].batches = true;
			dec_cursor_init(&it->src[it->nsrc++].cur, f->d, cpu, DEC_EV_COMPACT,
					f->info.max_wait_reason);
		}
		i += n ? n : 1;
	}
	for (it->shift = 1; (1u << it->shift) <= it->nsrc; it->shift++) {
	}
	/* the keys past the sources: none, whichever index a packed key's low bits say */
	free(it->key);
	free(it->packed);
	it->key = calloc((1u << it->shift) + 1, sizeof(*it->key));
	it->packed = calloc((1u << it->shift) + 1, sizeof(*it->packed));
	if (!it->key || !it->packed) {
		iter_time_free(it);
		return NULL;
	}
	for (unsigned i = it->nsrc; i <= 1u << it->shift; i++) {
		set_key(it, i, (struct time_key){UINT64_MAX, ~0u});
	}
	return it;
}

int iter_time_next(struct iter_time *it, const struct etwforge_event **out,
		   struct etwforge_error *err)
{
	const struct read_switch *sw; /* none: the iterator is not raw */

	return iter_time_next_raw(it, out, &sw, err);
}

/*
 * The refill of the common case, as the general one does it, without its
 * calls: the source handed out last is a raw batches source whose run holds
 * its next switch, whose time packs, in a tournament replayed on packed
 * keys (no source leaves it). Return: true when it was that.
 */
static bool refill_run(struct iter_time *it)
{
	unsigned i = (unsigned)it->refill;
	struct time_src *s = &it->src[i];
	uint64_t ts;

	if (s->ri >= s->rn || !it->built || it->wide || it->indexed) {
		return false; /* @rn: 0 but for a raw batches source */
	}
	ts = s->run[s->ri].ts;
	if (ts >> (64 - it->shift)) {
		return false;
	}
	it->refill = -1;
	s->at = &s->run[s->ri++];
	it->key[i] = (struct time_key){ts, i};
	it->packed[i] = ts << it->shift | i;
	replay_keys(it, i);
	return true;
}

int iter_time_next_raw(struct iter_time *it, const struct etwforge_event **out,
		       const struct read_switch **sw, struct etwforge_error *err)
{
	struct etl_error e;
	unsigned i;

	if (it->refill >= 0 && !refill_run(it)) {
		i = (unsigned)it->refill;
		it->refill = -1;
		if (fetch(it, i, &e) < 0) {
			it->refill = (int)i; /* the source goes on at the next call */
			it->indexed = true;
			if (it->built) {
				replay(it, i); /* meanwhile it has no event */
			}
			return read_reader_fail(err, &e, -EINVAL);
		}
		if (it->built) {
			replay(it, i);
			it->alive -= it->key[i].ts == UINT64_MAX;
			if (it->k > 1 && 2 * it->alive <= it->k && build(it) < 0) {
				return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			}
		}
	}
	if (!it->built) {
		while (it->init < it->nsrc) {
			i = it->init++;
			if (fetch(it, i, &e) < 0) {
				it->refill = (int)i;
				return read_reader_fail(err, &e, -EINVAL);
			}
		}
		if (build(it) < 0) {
			return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		}
	}
	i = it->tree[0];
	if (it->key[i].i == ~0u) {
		return 0;
	}
	if (it->raw && it->src[i].batches) {
		*out = NULL;
		*sw = it->src[i].at;
	} else {
		*out = &it->src[i].ev;
		*sw = NULL;
	}
	it->refill = (int)i;
	return 1;
}
