// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/identity.c - the thread and process tables of a file
 * (see identity.h): its identity records gathered in one pass in CPU
 * order, sorted by id and time, cut into rows by their Starts and Ends;
 * a TID's rows chained in time order, gaps filled as switches find them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/identity.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/grow.h"
#include "tools/lib/read/read.h"

#define HOOK_PROCESS_START     0x0301u
#define HOOK_PROCESS_END       0x0302u
#define HOOK_PROCESS_TERMINATE 0x030Bu /* a note of an end: names nothing */
#define HOOK_PROCESS_DC_START  0x0303u
#define HOOK_THREAD_START      0x0501u
#define HOOK_THREAD_END	       0x0502u
#define HOOK_THREAD_DC_START   0x0503u

/* What an identity record does to the rows of its id. */
enum rec_kind {
	REC_START, /* begins a row */
	REC_END,   /* ends the current row */
	REC_NAME,  /* names the current row (rundown, defunct) */
	REC_RENAME /* ThreadSetName: a name, not a Thread record */
};

/* One identity record, as gathered. */
struct id_rec {
	uint32_t id; /* TID, or PID */
	uint32_t pid;
	uint32_t ppid;
	uint64_t ts;
	size_t seq; /* file order, for equal times */
	enum rec_kind kind;
	int base_pri; /* a Thread record's BasePriority, else -1 */
	char *name;   /* thread name, or image */
	char *cmdline;
};

struct rec_list {
	struct id_rec *v;
	size_t n, cap;
};

static char *dup_or_null(const char *s)
{
	return s && s[0] ? strdup(s) : NULL;
}

static int rec_add(struct rec_list *l, const struct id_rec *r)
{
	struct id_rec *v = grow_room(l->v, &l->cap, l->n, sizeof(*v), 256);

	if (!v) {
		return -ENOMEM;
	}
	l->v = v;
	l->v[l->n++] = *r;
	return 0;
}

static void rec_list_free(struct rec_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].cmdline);
	}
	free(l->v);
}

static int by_id_time(const void *a, const void *b)
{
	const struct id_rec *x = a, *y = b;

	if (x->id != y->id) {
		return x->id < y->id ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A record's place in by_id_time()'s order, small: @at its index in file order. */
struct sort_key {
	uint64_t ts;
	uint32_t id;
	uint32_t at;
};

static bool key_before(const struct sort_key *x, const struct sort_key *y)
{
	if (x->id != y->id) {
		return x->id < y->id;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts;
	}
	return x->at < y->at;
}

/*
 * @n keys from @k sorted by key_before(), bottom-up: runs merged in pairs
 * from @k to @t, then the other way. Return: @k or @t, whichever holds them.
 */
static struct sort_key *merge_keys(struct sort_key *k, struct sort_key *t, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		struct sort_key *swap;

		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = n - lo > w ? lo + w : n;
			size_t hi = n - mid > w ? mid + w : n;
			size_t a = lo, b = mid, o = lo;

			while (a < mid && b < hi) {
				t[o++] = key_before(&k[b], &k[a]) ? k[b++] : k[a++];
			}
			while (a < mid) {
				t[o++] = k[a++];
			}
			while (b < hi) {
				t[o++] = k[b++];
			}
		}
		swap = k;
		k = t;
		t = swap;
	}
	return k;
}

#define DIGIT_BITS 11u /* an id sorted 11 bits at a time: 3 passes at most, 2 for TIDs < 2^22 */
#define SMALL_RUN  32u /* an id's records up to this many sorted by insertion */

/*
 * @n keys from @k sorted by id, stably (file order kept within an id), a
 * digit at a time through @t, a pass skipped where every key has the same
 * digit. Return: @k or @t, whichever holds them.
 */
static struct sort_key *radix_ids(struct sort_key *k, struct sort_key *t, size_t n)
{
	for (unsigned shift = 0; shift < 32; shift += DIGIT_BITS) {
		size_t count[1u << DIGIT_BITS] = {0}, sum = 0;
		unsigned first = (k[0].id >> shift) & ((1u << DIGIT_BITS) - 1u);
		bool one = true;
		struct sort_key *swap;

		for (size_t i = 0; i < n; i++) {
			unsigned d = (k[i].id >> shift) & ((1u << DIGIT_BITS) - 1u);

			count[d]++;
			one &= d == first;
		}
		if (one) {
			continue;
		}
		for (size_t d = 0; d < (1u << DIGIT_BITS); d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			t[count[(k[i].id >> shift) & ((1u << DIGIT_BITS) - 1u)]++] = k[i];
		}
		swap = k;
		k = t;
		t = swap;
	}
	return k;
}

/*
 * Sort @l as by_id_time() does (a total order: any sort gives the same),
 * on 16-byte keys, the records moved once at the end: qsort()'s calls
 * through a pointer on whole records cost the identity load more than
 * reading them. The keys go by id first (a radix sort: a merge sort's
 * comparisons are coin tosses the branch predictor loses), then each id's
 * few by time (insertion; a long run merged). Return: 0; -1 out of memory
 * or @l not in file order (qsort() then).
 */
static int sort_records(struct rec_list *l)
{
	size_t n = l->n;
	struct sort_key *keys, *k, *t;
	struct id_rec *out;

	if (n > UINT32_MAX) {
		return -1;
	}
	keys = malloc(2 * n * sizeof(*keys));
	out = malloc(n * sizeof(*out));
	if (!keys || !out) {
		free(keys);
		free(out);
		return -1;
	}
	k = keys;
	for (size_t i = 0; i < n; i++) {
		if (i && l->v[i].seq <= l->v[i - 1].seq) {
			free(keys);
			free(out);
			return -1;
		}
		k[i] = (struct sort_key){l->v[i].ts, l->v[i].id, (uint32_t)i};
	}
	k = radix_ids(keys, keys + n, n);
	t = k == keys ? keys + n : keys;
	/* each id's run by time, its records in file order already (the ties' order) */
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && k[hi].id == k[lo].id; hi++) {
		}
		if (hi - lo > SMALL_RUN) {
			struct sort_key *run = merge_keys(k + lo, t + lo, hi - lo);

			if (run != k + lo) {
				memcpy(k + lo, run, (hi - lo) * sizeof(*k));
			}
			continue;
		}
		for (size_t i = lo + 1; i < hi; i++) {
			struct sort_key x = k[i];
			size_t j = i;

			for (; j > lo && key_before(&x, &k[j - 1]); j--) {
				k[j] = k[j - 1];
			}
			k[j] = x;
		}
	}
	for (size_t i = 0; i < n; i++) {
		out[i] = l->v[k[i].at];
	}
	free(keys);
	free(l->v);
	l->v = out;
	l->cap = n;
	return 0;
}

/* A string the record owns, or an error when it found no memory. */
static int take(char **to, const char *from)
{
	*to = dup_or_null(from);
	return from && from[0] && !*to ? -ENOMEM : 0;
}

/*
 * Gather @f's identity records into @th (threads) and @pr (processes); the
 * idle thread (TID 0) has no row, *@idle_named says a Thread record names it.
 */
/* A DCStart record of the start rundown: counted into @rd (@cpus: a bit per CPU seen). */
static void note_rundown(struct an_rundown *rd, uint8_t *cpus, const struct etwforge_event *ev)
{
	uint16_t hook = ev->rec->hook;

	if (hook != HOOK_PROCESS_DC_START && hook != HOOK_THREAD_DC_START) {
		return;
	}
	rd->lo = rd->records == 0 || ev->ts < rd->lo ? ev->ts : rd->lo;
	rd->hi = rd->records == 0 || ev->ts > rd->hi ? ev->ts : rd->hi;
	rd->records++;
	rd->with_context += ev->rec->tid != 0 || ev->rec->pid != 0;
	if (!(cpus[(ev->cpu & 2047u) / 8] & (1u << (ev->cpu & 7u)))) {
		cpus[(ev->cpu & 2047u) / 8] |= (uint8_t)(1u << (ev->cpu & 7u));
		rd->cpus++;
	}
}

static int gather(struct etwforge_file *f, bool keep_going, struct rec_list *th,
		  struct rec_list *pr, bool *idle_named, struct an_rundown *rd,
		  const struct an_more *more, struct etwforge_error *err)
{
	uint8_t cpus[2048 / 8] = {0};
	struct etwforge_iter *it =
		read_iter_new(f, ETWFORGE_ORDER_CPU,
			      ETWFORGE_EV_PROCESS | ETWFORGE_EV_THREAD | ETWFORGE_EV_THREAD_NAME |
				      (more ? more->kinds : 0u),
			      err);
	const struct etwforge_event *ev;
	size_t seq = 0;
	int rc = 0, r;

	if (!it) {
		return -ENOMEM;
	}
	while (rc == 0 && (r = read_iter_next(it, &ev, err)) != 0) {
		struct id_rec rec = {.ts = ev ? ev->ts : 0, .seq = seq++, .base_pri = -1};

		if (r < 0) {
			if (!keep_going) {
				rc = r;
			}
			continue;
		}
		if (more && (ev->kind & (more->kinds | ETWFORGE_EV_PROCESS)) &&
		    more->fn(more->ctx, ev, rec.seq) < 0) {
			rc = -ENOMEM;
			break;
		}
		note_rundown(rd, cpus, ev);
		switch (ev->kind) {
		case ETWFORGE_EV_PROCESS:
			if (ev->rec->hook == HOOK_PROCESS_TERMINATE) {
				continue;
			}
			rec.id = rec.pid = ev->u.process.pid;
			rec.ppid = ev->u.process.ppid;
			rec.kind = ev->rec->hook == HOOK_PROCESS_START ? REC_START
				   : ev->rec->hook == HOOK_PROCESS_END ? REC_END
								       : REC_NAME;
			if (take(&rec.name, ev->u.process.image) < 0 ||
			    take(&rec.cmdline, ev->u.process.cmdline) < 0 ||
			    rec_add(pr, &rec) < 0) {
				free(rec.name);
				free(rec.cmdline);
				rc = -ENOMEM;
			}
			continue;
		case ETWFORGE_EV_THREAD:
			rec.id = ev->u.thread.tid;
			rec.pid = ev->u.thread.pid;
			rec.base_pri = ev->u.thread.base_pri;
			rec.kind = ev->rec->hook == HOOK_THREAD_START ? REC_START
				   : ev->rec->hook == HOOK_THREAD_END ? REC_END
								      : REC_NAME;
			if (take(&rec.name, ev->u.thread.name) < 0) {
				rc = -ENOMEM;
			}
			break;
		case ETWFORGE_EV_THREAD_NAME:
			rec.id = ev->u.thread_name.tid;
			rec.pid = ev->u.thread_name.pid;
			rec.kind = REC_RENAME;
			if (take(&rec.name, ev->u.thread_name.name) < 0) {
				rc = -ENOMEM;
			}
			break;
		default:
			continue;
		}
		if (rc == 0 && rec.id != 0 && rec_add(th, &rec) < 0) {
			rc = -ENOMEM;
		}
		*idle_named |= rec.id == 0 && rec.kind != REC_RENAME;
		if (rc < 0 || rec.id == 0) {
			free(rec.name); /* the idle thread has no row: its time is idle time */
		}
	}
	read_iter_free(it);
	if (rc == -ENOMEM) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	return rc;
}

/* A new thread row covering [@lo, @hi] of @tid. Return: its index, -1 out of memory. */
static int64_t new_thread(struct an_identity *id, uint32_t tid, uint64_t lo, uint64_t hi)
{
	struct an_thread *t;

	t = grow_room(id->threads, &id->cap_threads, id->nthreads, sizeof(*t), 256);
	if (!t) {
		return -1;
	}
	id->threads = t;
	t += id->nthreads;
	memset(t, 0, sizeof(*t));
	t->pub.tid = tid;
	t->pub.process = -1;
	t->pub.name = "";
	t->pub.start_ns = INT64_MIN;
	t->pub.end_ns = INT64_MAX;
	t->lo = lo;
	t->hi = hi;
	t->next = -1;
	t->base_pri = -1;
	return (int64_t)id->nthreads++;
}

static int64_t new_process(struct an_identity *id, uint32_t pid, uint64_t lo, uint64_t hi)
{
	struct an_process *p;

	p = grow_room(id->procs, &id->cap_procs, id->nprocs, sizeof(*p), 64);
	if (!p) {
		return -1;
	}
	id->procs = p;
	p += id->nprocs;
	memset(p, 0, sizeof(*p));
	p->pub.pid = pid;
	p->pub.image = "";
	p->pub.cmdline = "";
	p->pub.start_ns = INT64_MIN;
	p->pub.end_ns = INT64_MAX;
	p->lo = lo;
	p->hi = hi;
	p->next = -1;
	return (int64_t)id->nprocs++;
}

struct an_tid *an_tid(struct an_identity *id, uint32_t tid)
{
	struct an_tid *e = id_map_get(&id->tids, tid);

	if (!e) {
		e = id_map_add(&id->tids, tid);
		if (e) {
			e->head = e->hit = -1;
		}
	}
	return e;
}

int64_t an_process_at(const struct an_identity *id, uint32_t pid, uint64_t ts)
{
	const int64_t *head = id_map_get(&id->pids, pid);

	for (int64_t p = head ? *head : -1; p >= 0; p = id->procs[p].next) {
		if (ts >= id->procs[p].lo && ts <= id->procs[p].hi) {
			return p;
		}
	}
	return -1;
}

/*
 * The rows of one id from its records @r[0..n) (sorted by time), chained
 * from *@head: a row is [lo, hi] in clock units. @thread: thread rows,
 * else process rows. Return: 0, or -ENOMEM.
 */
static int cut_rows(struct an_identity *id, const struct an_clock *c, struct id_rec *r, size_t n,
		    bool thread, int64_t *head)
{
	int64_t cur = -1, last = -1; /* the open row; the latest row */
	bool open = false;
	bool named = false;

	for (size_t i = 0; i < n; i++) {
		uint64_t ts = r[i].ts;

		if (r[i].kind == REC_START &&
		    !(open && last >= 0 &&
		      (thread ? id->threads[last].lo : id->procs[last].lo) == ts)) {
			uint64_t *hi = NULL;

			if (open) { /* a Start without an End before it: the old one ends here */
				hi = thread ? &id->threads[cur].hi : &id->procs[cur].hi;
				*hi = ts - 1;
			}
			cur = thread ? new_thread(id, r[i].id, ts, UINT64_MAX)
				     : new_process(id, r[i].id, ts, UINT64_MAX);
			if (cur < 0) {
				return -ENOMEM;
			}
			if (thread) {
				id->threads[cur].pub.start_ns = an_ns(c, ts);
			} else {
				id->procs[cur].pub.start_ns = an_ns(c, ts);
			}
			open = true;
		} else if (!open) {
			/* a row from before the trace, or from the end of the previous one */
			uint64_t lo = last < 0 ? 0
				      : thread ? id->threads[last].hi + 1
					       : id->procs[last].hi + 1;

			cur = thread ? new_thread(id, r[i].id, lo, UINT64_MAX)
				     : new_process(id, r[i].id, lo, UINT64_MAX);
			if (cur < 0) {
				return -ENOMEM;
			}
			open = true;
		}
		if (last != cur) {
			if (last < 0) {
				*head = cur;
			} else if (thread) {
				id->threads[last].next = cur;
			} else {
				id->procs[last].next = cur;
			}
			last = cur;
		}
		if (thread) {
			struct an_thread *t = &id->threads[cur];

			if (r[i].kind != REC_RENAME) {
				t->pub.named = t->named = true;
				named = true;
			}
			t->pub.pid = r[i].pid;
			if (r[i].base_pri >= 0) {
				t->base_pri = r[i].base_pri;
			}
			if (!t->linked) {
				/* its process: the PID's row when it began (or first showed) */
				t->linked = true;
				t->pub.process = an_process_at(id, t->pub.pid, t->lo ? t->lo : ts);
				if (t->pub.process >= 0) {
					id->procs[t->pub.process].pub.threads++;
					id->linked++;
				}
			}
			if (r[i].name) { /* the record's string becomes the row's */
				free(t->name);
				t->name = r[i].name;
				r[i].name = NULL;
				t->pub.name = t->name;
			}
			if (r[i].kind == REC_END) {
				t->hi = ts;
				t->pub.end_ns = an_ns(c, ts);
				open = false;
			}
		} else {
			struct an_process *p = &id->procs[cur];

			named = true;
			p->pub.ppid = r[i].ppid;
			if (r[i].name) {
				free(p->image);
				p->image = r[i].name;
				r[i].name = NULL;
				p->pub.image = p->image;
			}
			if (r[i].cmdline) {
				free(p->cmdline);
				p->cmdline = r[i].cmdline;
				r[i].cmdline = NULL;
				p->pub.cmdline = p->cmdline;
			}
			if (r[i].kind == REC_END) {
				p->hi = ts;
				p->pub.end_ns = an_ns(c, ts);
				open = false;
			}
		}
	}
	if (thread) {
		id->named_tids += named;
	} else {
		id->named_pids += named;
	}
	return 0;
}

/* Room for @n more rows of one kind (@thread) and for their ids in its map. */
static int reserve(struct an_identity *id, size_t n, bool thread)
{
	if (thread && id->nthreads + n > id->cap_threads) {
		struct an_thread *t = realloc(id->threads, (id->nthreads + n) * sizeof(*t));

		if (!t) {
			return -ENOMEM;
		}
		id->threads = t;
		id->cap_threads = id->nthreads + n;
	}
	if (!thread && id->nprocs + n > id->cap_procs) {
		struct an_process *p = realloc(id->procs, (id->nprocs + n) * sizeof(*p));

		if (!p) {
			return -ENOMEM;
		}
		id->procs = p;
		id->cap_procs = id->nprocs + n;
	}
	return id_map_reserve(thread ? &id->tids : &id->pids, n) < 0 ? -ENOMEM : 0;
}

/* Cut each id's records (sorted) into rows. */
static int cut_all(struct an_identity *id, const struct an_clock *c, struct rec_list *l,
		   bool thread)
{
	size_t ids = 0;

	if (l->n && sort_records(l) < 0) {
		qsort(l->v, l->n, sizeof(*l->v), by_id_time);
	}
	/* room for a row per id and its map entry at once (gaps found later grow them) */
	for (size_t i = 0; i < l->n; i++) {
		ids += i == 0 || l->v[i].id != l->v[i - 1].id;
	}
	if (reserve(id, ids, thread) < 0) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n;) {
		size_t e = i + 1;
		int64_t head = -1;

		while (e < l->n && l->v[e].id == l->v[i].id) {
			e++;
		}
		if (cut_rows(id, c, l->v + i, e - i, thread, &head) < 0) {
			return -ENOMEM;
		}
		if (thread) {
			struct an_tid *t = an_tid(id, l->v[i].id);

			if (!t) {
				return -ENOMEM;
			}
			t->head = head;
		} else {
			int64_t *p = id_map_add(&id->pids, l->v[i].id);

			if (!p) {
				return -ENOMEM;
			}
			*p = head;
		}
		i = e;
	}
	return 0;
}

int an_identity_load(struct an_identity *id, struct etwforge_file *f, const struct an_clock *c,
		     bool full, bool keep_going, const struct an_more *more,
		     struct etwforge_error *err)
{
	struct rec_list th = {0}, pr = {0};
	bool idle_named = false;
	int rc;

	id->full = full;
	id->tids.elem_size = sizeof(struct an_tid);
	id->pids.elem_size = sizeof(int64_t);
	rc = gather(f, keep_going, &th, &pr, &idle_named, &id->rundown, more, err);
	id->named_tids += idle_named;
	if (rc == 0 && (cut_all(id, c, &pr, false) < 0 || cut_all(id, c, &th, true) < 0)) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	rec_list_free(&th);
	rec_list_free(&pr);
	return rc;
}

/*
 * Where a walk of @e's rows for @ts may start: after the row found last when
 * @ts is past it (the rows before it end earlier still), else at the first.
 * A reading in time order then walks each chain once, not once per lookup.
 */
static int64_t walk_from(const struct an_identity *id, const struct an_tid *e, uint64_t ts,
			 int64_t *prev)
{
	bool past = e->hit >= 0 && ts > id->threads[e->hit].hi;

	*prev = past ? e->hit : -1;
	return past ? id->threads[e->hit].next : e->head;
}

int64_t an_thread_find(const struct an_identity *id, uint32_t tid, uint64_t ts)
{
	const struct an_tid *e = id_map_get(&id->tids, tid);
	int64_t prev, r;

	if (!e) {
		return -1;
	}
	if (e->hit >= 0 && ts >= id->threads[e->hit].lo && ts <= id->threads[e->hit].hi) {
		return e->hit;
	}
	for (r = walk_from(id, e, ts, &prev); r >= 0 && ts > id->threads[r].hi;
	     r = id->threads[r].next) {
	}
	return r >= 0 && ts >= id->threads[r].lo ? r : -1;
}

int64_t an_thread_at(struct an_identity *id, uint32_t tid, uint64_t ts)
{
	struct an_tid *e = an_tid(id, tid);

	return e ? an_thread_of(id, e, tid, ts) : -1;
}

int64_t an_thread_of(struct an_identity *id, struct an_tid *e, uint32_t tid, uint64_t ts)
{
	int64_t prev = -1, r, row;
	uint64_t lo, hi;

	if (e->hit >= 0 && ts >= id->threads[e->hit].lo && ts <= id->threads[e->hit].hi) {
		return e->hit;
	}
	for (r = walk_from(id, e, ts, &prev); r >= 0 && ts > id->threads[r].hi;
	     r = id->threads[r].next) {
		prev = r;
	}
	if (r >= 0 && ts >= id->threads[r].lo) {
		e->hit = r;
		return r;
	}
	/* the gap between @prev and @r */
	lo = prev >= 0 ? id->threads[prev].hi + 1 : 0;
	hi = r >= 0 ? id->threads[r].lo - 1 : UINT64_MAX;
	row = new_thread(id, tid, lo, hi);
	if (row < 0) {
		return -1;
	}
	id->threads[row].next = r;
	if (prev >= 0) {
		id->threads[prev].next = row;
	} else {
		e->head = row;
	}
	e->hit = row;
	return row;
}

int an_thread_full(struct an_thread *t)
{
	if (t->hist) {
		return 0;
	}
	t->hist = calloc(3 * ETWFORGE_HIST_BUCKETS, sizeof(*t->hist));
	t->reasons = calloc(AN_REASONS, sizeof(*t->reasons));
	t->states = calloc(AN_STATES, sizeof(*t->states));
	if (!t->hist || !t->reasons || !t->states) {
		free(t->hist);
		free(t->reasons);
		free(t->states);
		t->hist = t->reasons = t->states = NULL;
		return -ENOMEM;
	}
	return 0;
}

void an_identity_free(struct an_identity *id)
{
	for (size_t i = 0; i < id->nthreads; i++) {
		free(id->threads[i].name);
		free(id->threads[i].hist);
		free(id->threads[i].reasons);
		free(id->threads[i].states);
		ip_counts_free(&id->threads[i].ips);
	}
	for (size_t i = 0; i < id->nprocs; i++) {
		free(id->procs[i].image);
		free(id->procs[i].cmdline);
	}
	for (size_t i = 0; i < id->tids.cap; i++) {
		uint32_t tid;
		struct an_tid *e = id_map_at(&id->tids, i, &tid);

		if (e) {
			wake_list_free(&e->wakes);
		}
	}
	free(id->threads);
	free(id->procs);
	id_map_free(&id->tids);
	id_map_free(&id->pids);
	memset(id, 0, sizeof(*id));
}
