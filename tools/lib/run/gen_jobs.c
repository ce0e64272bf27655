// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/gen_jobs.c - gen's records encoded by worker threads (see
 * gen_jobs.h).
 *
 * A chunk goes through three phases, each worker taking chunks in order:
 *
 *   0  worker 0, once the chunk before is written: in which mode? Lanes,
 *      unless a session with a bounded pool might run out in it (its CPUs
 *      holding a buffer each + what is in flight + an upper bound of the
 *      chunk's flushes reach the pool): then one lane, the producer's own,
 *      with the writers writing each buffer when it is put
 *   1  every worker: lane k's records (CPU % lanes == k, and every stop),
 *      each told its order key (its place in the whole stream); the truth
 *      lines of the k-th share of what the simulation left of the chunk
 *      (below), into the worker's own buffer
 *   2  the last worker out of phase 1: every writer's kept buffers in key
 *      order, then the truth lines: the simulation's, then share after
 *      share; the chunk is free
 *
 * The simulation fills one chunk while the workers take the other. A
 * record's strings are copied with it (its pointers are the machine's,
 * valid only during the call). When a chunk is full and the workers are
 * still on the other one, the simulation would wait: with --truth it
 * formats the full chunk's first lines meanwhile, a batch at a time, until
 * the other chunk is written (its own share, kept with the chunk). A truth
 * is then made by every thread that has time for it, and the simulation,
 * gen's one thread that no worker can relieve, never waits longer for it
 * than a batch takes.
 *
 *   chunk: | records 0 .. tfront: the simulation's lines | the rest: k-th share, worker k |
 */
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/run/gen_jobs.h"
#include "writer/writer_defer.h"

#define CHUNK_RECORDS 4096u
#define ARENA_BLOCK   (64u << 10)

enum jkind { J_CSWITCH = 0, J_SPINLOCK, J_STOP, J_RECORD };

/* One record of the stream, as the machine fired it. */
struct jrec {
	enum jkind kind;
	unsigned cpu; /* J_STOP: every CPU */
	union {
		struct sim_cswitch cs;
		struct sim_spinlock sl;
		struct sim_ccswap_stop st;
		struct sim_record r;
	} u;
};

/* Strings of a chunk's records, in blocks that never move. */
struct ablock {
	struct ablock *next;
	size_t len, cap;
	char data[];
};

/*
 * The simulation writes a chunk's fields while it fills it, the workers read
 * them once it is handed over: each chunk in cache lines of its own, or the
 * filling would make the other chunk's reader wait on every record.
 */
struct chunk {
	alignas(64) struct jrec *rec;
	unsigned n;
	uint64_t key0;	  /* the order key of rec[0] */
	uint64_t seq;	  /* 1, 2, ... as handed over; 0: never */
	uint32_t *on_cpu; /* [enum producer_event_of][cpu]: records, for the pool bound */
	struct ablock *arena;
	bool serial;		   /* phase 0's decision */
	unsigned tfront;	   /* records whose truth lines the simulation made */
	struct truth_writer front; /* those lines (--truth), written before the workers' */
};

/*
 * What every thread reads (set at the start), then the simulation's own
 * (written at every record), then what the mutex guards: each group in
 * cache lines of its own.
 */
struct gen_jobs {
	struct session_run *run;
	struct producer *prod;
	const struct trace_config *tc;
	unsigned nw;   /* workers */
	unsigned cpus; /* the producer's */
	unsigned npmc; /* the machine's counters: the switches' pmc[0..npmc) */
	FILE *truth_f;
	bool logged_only;
	struct truth_writer *tw; /* [nw]: each worker's truth lines */
	pthread_t *th;
	unsigned nth; /* threads started */
	struct chunk ch[2];
	alignas(64) unsigned fill; /* the chunk the simulation fills */
	uint64_t key;		   /* the next record's order key */
	alignas(64) pthread_mutex_t mu;
	pthread_cond_t cv; /* any change: a chunk handed over, a phase done */
	uint64_t handed;   /* chunks handed over */
	uint64_t planned;  /* chunks past phase 0 */
	uint64_t done;	   /* chunks past phase 2 */
	unsigned arrived;  /* workers past phase 1 of the chunk after @done */
	uint64_t bytes;	   /* ETL bytes written, as of the last phase 2 */
	uint64_t chunks_written;
	int err;	 /* the first error (sticky) */
	int truth_errno; /* the errno of a failed truth write */
	bool quit;
};

/* ---- the simulation's side: records into the chunk ----------------------- */

/* @n bytes of the chunk's arena, @align-aligned (a power of two), or NULL. */
static void *arena_alloc(struct chunk *c, size_t n, size_t align)
{
	struct ablock *b = c->arena;
	size_t at = b ? (b->len + align - 1) & ~(align - 1) : 0;

	if (!b || at > b->cap || b->cap - at < n) {
		size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b) {
			return NULL;
		}
		b->next = c->arena;
		b->len = 0;
		b->cap = cap;
		c->arena = b;
		at = 0;
	}
	b->len = at + n;
	return b->data + at;
}

static char *arena_str(struct chunk *c, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(c, n, 1);

	return p ? memcpy(p, s, n) : NULL;
}

/* @n addresses copied into the chunk's arena. */
static const uint64_t *arena_ips(struct chunk *c, const uint64_t *ips, uint32_t n)
{
	uint64_t *p = arena_alloc(c, (size_t)n * sizeof(*ips), sizeof(*ips));

	return p ? memcpy(p, ips, (size_t)n * sizeof(*ips)) : NULL;
}

static void arena_reset(struct chunk *c)
{
	while (c->arena) {
		struct ablock *b = c->arena;

		c->arena = b->next;
		free(b);
	}
}

/* Copy each string member of @x (a record of a table) into the chunk. */
#define DC_ROW(x, name, ctype, how, ...) DC_##how(x->name)
#define DC_STRING(m)                                                                               \
	if (m && !(m = arena_str(c, m))) {                                                         \
		return -ENOMEM;                                                                    \
	}
#define DC_TEXT(m)  DC_STRING(m)
#define DC_SID(m)   DC_STRING(m)
#define DC_STR(m)   DC_STRING(m)
#define DC_GROUP(m) DC_STRING(m)
#define DC_U(m)
#define DC_I(m)
#define DC_CPU(m)
#define DC_TS(m)
#define DC_PMC(m)
#define DC_PEBS(m)
#define DC_ADDR(m)
#define DC_BOOL(m)
#define DC_WHY(m)
#define DC_EVENT(m)
#define DC_CLOCK(m)
#define DC_BUF(m)
#define DC_NO_CHECK(x, name)
#define DC_KIND(KIND, member, type, FIELDS)                                                        \
	case SIM_REC_##KIND: {                                                                     \
		type *x = &r->u.member;                                                            \
                                                                                                   \
		(void)x;                                                                           \
		FIELDS(DC_ROW, DC_NO_CHECK, x)                                                     \
		return 0;                                                                          \
	}

static int copy_record_strings(struct chunk *c, struct sim_record *r)
{
	switch (r->kind) {
		DC_KIND(PROCESS, process, struct sim_process, SIM_PROCESS_FIELDS)
		DC_KIND(THREAD, thread, struct sim_thread, SIM_THREAD_FIELDS)
		DC_KIND(THREAD_NAME, thread_name, struct sim_thread_name,
			SIM_THREAD_SET_NAME_FIELDS)
		DC_KIND(READY, ready, struct sim_ready, SIM_READY_FIELDS)
		DC_KIND(SAMPLE, sample, struct sim_sample, SIM_PROFILE_FIELDS)
		DC_KIND(INTERVAL, interval, struct sim_interval, SIM_PROFILE_INTERVAL_FIELDS)
		DC_KIND(CPU_CONFIG, cpu_config, struct sim_cpu_config, SIM_CPU_CONFIG_FIELDS)
		DC_KIND(MASKS, masks, struct sim_masks, SIM_GROUP_MASKS_FIELDS)
		DC_KIND(RUNDOWN, rundown, struct sim_rundown, SIM_RUNDOWN_FIELDS)
		DC_KIND(IMAGE, image, struct sim_image, SIM_IMAGE_FIELDS)
		DC_KIND(DPC, dpc, struct sim_dpc, SIM_DPC_FIELDS)
	case SIM_REC_STACK: {
		struct sim_stack *x = &r->u.stack;

		SIM_STACK_FIELDS(DC_ROW, DC_NO_CHECK, x)
		if (x->ips && !(x->ips = arena_ips(c, x->ips, x->nips))) {
			return -ENOMEM;
		}
		return 0;
	}
	default:
		return 0;
	}
}

static int copy_spinlock_strings(struct chunk *c, struct sim_spinlock *sl)
{
	struct sim_spinlock *x = sl;

	SIM_SPINLOCK_FIELDS(DC_ROW, DC_NO_CHECK, x)
	return 0;
}

/* Phase 0's bound needs each CPU's records by what they are (enum producer_event_of). */
static void count_on_cpu(struct gen_jobs *j, struct chunk *c, enum producer_event_of of,
			 unsigned cpu)
{
	if (cpu < j->cpus) {
		c->on_cpu[(size_t)of * j->cpus + cpu]++;
	}
}

static int hand_over(struct gen_jobs *j);
static int truth_lines(struct gen_jobs *j, struct truth_writer *tw, const struct chunk *c,
		       unsigned a, unsigned b);

/* The next free record of the chunk being filled (handing the chunk over when full). */
static int next_rec(struct gen_jobs *j, struct jrec **out)
{
	struct chunk *c = &j->ch[j->fill];

	if (c->n == CHUNK_RECORDS) {
		int rc = hand_over(j);

		if (rc < 0) {
			return rc;
		}
		c = &j->ch[j->fill];
	}
	*out = &c->rec[c->n++];
	j->key++;
	return 0;
}

static int sink_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct gen_jobs *j = ctx;
	struct jrec *r;
	int rc = next_rec(j, &r);

	if (rc < 0) {
		return rc;
	}
	r->kind = J_CSWITCH;
	r->cpu = cs->cpu;
	/* the machine's counters only: the others are never read (and stay 0) */
	memcpy(&r->u.cs, cs, offsetof(struct sim_cswitch, pmc));
	memcpy(r->u.cs.pmc, cs->pmc, j->npmc * sizeof(cs->pmc[0]));
	r->u.cs.pebs_index = cs->pebs_index;
	count_on_cpu(j, &j->ch[j->fill], PRODUCER_OF_CSWITCH, cs->cpu);
	return 0;
}

static int sink_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct gen_jobs *j = ctx;
	struct jrec *r;
	int rc = next_rec(j, &r);

	if (rc < 0) {
		return rc;
	}
	r->kind = J_SPINLOCK;
	r->cpu = sl->cpu;
	r->u.sl = *sl;
	count_on_cpu(j, &j->ch[j->fill], PRODUCER_OF_SPINLOCK, sl->cpu);
	return copy_spinlock_strings(&j->ch[j->fill], &r->u.sl);
}

static int sink_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct gen_jobs *j = ctx;
	struct jrec *r;
	int rc = next_rec(j, &r);

	if (rc < 0) {
		return rc;
	}
	r->kind = J_STOP;
	r->cpu = 0;
	r->u.st = *st;
	return 0;
}

static int sink_record(void *ctx, const struct sim_record *rec)
{
	struct gen_jobs *j = ctx;
	struct jrec *r;
	int rc = next_rec(j, &r);

	if (rc < 0) {
		return rc;
	}
	r->kind = J_RECORD;
	r->cpu = rec->u.head.cpu;
	r->u.r = *rec;
	count_on_cpu(j, &j->ch[j->fill], PRODUCER_OF_RECORD, rec->u.head.cpu);
	return copy_record_strings(&j->ch[j->fill], &r->u.r);
}

static int sink_end(void *ctx, const struct sim_end *end)
{
	(void)ctx;
	(void)end;
	return 0; /* gen's own: after gen_jobs_drain() */
}

static const struct trace_sink_ops jobs_sink_ops = {
	.cswitch = sink_cswitch,
	.spinlock = sink_spinlock,
	.ccswap_stop = sink_stop,
	.end = sink_end,
	.record = sink_record,
};

struct trace_sink gen_jobs_sink(struct gen_jobs *j)
{
	struct trace_sink s = {&jobs_sink_ops, j};

	return s;
}

static void chunk_clear(struct gen_jobs *j, struct chunk *c)
{
	c->n = 0;
	arena_reset(c);
	memset(c->on_cpu, 0, 3 * (size_t)j->cpus * sizeof(*c->on_cpu));
}

#define HELP_BATCH 256u /* truth lines the simulation makes between looks at the workers */

/* Are the workers still on @next (handed over before and not written yet)? */
static bool still_busy(struct gen_jobs *j, const struct chunk *next)
{
	bool busy;

	pthread_mutex_lock(&j->mu);
	busy = !j->err && next->seq && next->seq > j->done;
	pthread_mutex_unlock(&j->mu);
	return busy;
}

/*
 * The full chunk @c's first truth lines, made while the workers are still
 * on @next (the simulation would wait for them otherwise).
 * Return: 0 or -ENOMEM.
 */
static int truth_help(struct gen_jobs *j, struct chunk *c, const struct chunk *next)
{
	int rc = 0;

	c->tfront = 0;
	while (rc >= 0 && c->tfront < c->n && still_busy(j, next)) {
		unsigned b = c->n - c->tfront > HELP_BATCH ? c->tfront + HELP_BATCH : c->n;

		rc = truth_lines(j, &c->front, c, c->tfront, b);
		c->tfront = b;
	}
	return rc;
}

/*
 * The chunk being filled goes to the workers; the other one is filled next,
 * once they are done with it. Return: 0 or the workers' first error.
 */
static int hand_over(struct gen_jobs *j)
{
	struct chunk *c = &j->ch[j->fill];
	struct chunk *next = &j->ch[j->fill ^ 1];
	int rc = j->truth_f ? truth_help(j, c, next) : 0;

	if (rc < 0) {
		return rc;
	}
	pthread_mutex_lock(&j->mu);
	c->key0 = j->key - c->n;
	c->seq = ++j->handed;
	pthread_cond_broadcast(&j->cv);
	while (!j->err && next->seq && next->seq > j->done) {
		pthread_cond_wait(&j->cv, &j->mu);
	}
	rc = j->err;
	pthread_mutex_unlock(&j->mu);
	j->fill ^= 1;
	chunk_clear(j, next);
	return rc;
}

/* ---- the workers --------------------------------------------------------- */

static void fail(struct gen_jobs *j, int rc)
{
	if (rc < 0) {
		pthread_mutex_lock(&j->mu);
		if (!j->err) {
			j->err = rc;
		}
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
	}
}

/* Phase 0: could a bounded pool run out in @c? Then the chunk is one lane's. */
static bool needs_one_lane(struct gen_jobs *j, const struct chunk *c)
{
	for (unsigned i = 0; i < j->tc->nsessions; i++) {
		struct etl_writer *w = j->run->writers[i];
		uint32_t size =
			j->tc->sessions[i].buffer_size ? j->tc->sessions[i].buffer_size : 65536u;
		uint32_t most[3] = {0};
		uint64_t flushes = 0;
		int64_t fill;

		if (!j->tc->sessions[i].pool_buffers) {
			continue;
		}
		for (unsigned k = 0; k < 3; k++) {
			most[k] = producer_event_max(j->prod, i, (enum producer_event_of)k);
		}
		/* a flushed buffer holds more than this of the events logged meanwhile */
		fill = (int64_t)size - 0x48 - (int64_t)most[2];
		for (unsigned cpu = 0; cpu < j->cpus; cpu++) {
			uint64_t bytes = 0, recs = 0;

			for (unsigned k = 0; k < 3; k++) {
				uint64_t n = c->on_cpu[(size_t)k * j->cpus + cpu];

				bytes += n * most[k];
				recs += most[k] ? n : 0;
			}
			if (bytes) {
				flushes += fill > 0 ? 1 + bytes / (uint64_t)fill : recs;
			}
		}
		if (!writer_defer_room(w, flushes)) {
			return true;
		}
	}
	return false;
}

static void plan(struct gen_jobs *j, struct chunk *c)
{
	c->serial = needs_one_lane(j, c);
	for (unsigned i = 0; i < j->tc->nsessions; i++) {
		if (c->serial) {
			writer_undefer(j->run->writers[i]);
		} else {
			int rc = writer_defer(j->run->writers[i], j->nw);

			if (rc < 0) {
				fail(j, rc);
			}
		}
	}
}

static int encode(struct producer_lane *l, const struct jrec *r)
{
	switch (r->kind) {
	case J_CSWITCH:
		return producer_lane_cswitch(l, &r->u.cs);
	case J_SPINLOCK:
		return producer_lane_spinlock(l, &r->u.sl);
	case J_STOP:
		return producer_lane_stop(l, &r->u.st);
	default:
		return producer_lane_record(l, &r->u.r);
	}
}

/* Phase 1's encoding for worker @w: its lane's records (all of them, alone, in a serial chunk). */
static int encode_share(struct gen_jobs *j, const struct chunk *c, unsigned w)
{
	struct producer_lane *l;
	int rc = 0;

	if (c->serial) {
		if (w != 0) {
			return 0;
		}
		l = producer_lane(j->prod, j->nw); /* the producer's own */
		for (unsigned i = 0; i < c->n && rc >= 0; i++) {
			rc = encode(l, &c->rec[i]);
		}
		return rc;
	}
	l = producer_lane(j->prod, w);
	for (unsigned i = 0, n = c->n, nw = j->nw; i < n && rc >= 0; i++) {
		const struct jrec *r = &c->rec[i];

		if (r->kind == J_STOP || r->cpu % nw == w) {
			producer_lane_key(l, c->key0 + i);
			rc = encode(l, r);
		}
	}
	return rc;
}

/* The truth lines of @c's records @a..@b into @tw, in order. */
static int truth_lines(struct gen_jobs *j, struct truth_writer *tw, const struct chunk *c,
		       unsigned a, unsigned b)
{
	struct trace_sink t = truth_writer_sink(tw);
	int rc = 0;

	for (unsigned i = a; i < b && rc >= 0; i++) {
		const struct jrec *r = &c->rec[i];

		switch (r->kind) {
		case J_CSWITCH:
			rc = t.ops->cswitch(t.ctx, &r->u.cs);
			break;
		case J_SPINLOCK:
			if (r->u.sl.logged || !j->logged_only) {
				rc = t.ops->spinlock(t.ctx, &r->u.sl);
			}
			break;
		case J_STOP:
			rc = t.ops->ccswap_stop(t.ctx, &r->u.st);
			break;
		default:
			rc = t.ops->record(t.ctx, &r->u.r);
			break;
		}
	}
	return rc;
}

/* Phase 1's truth lines for worker @w: its share of what the simulation left, in order. */
static int truth_share(struct gen_jobs *j, const struct chunk *c, unsigned w)
{
	uint64_t left = c->n - c->tfront;
	unsigned a = c->tfront + (unsigned)(left * w / j->nw);
	unsigned b = c->tfront + (unsigned)(left * (w + 1) / j->nw);

	return truth_lines(j, &j->tw[w], c, a, b);
}

/* Phase 2: every kept buffer and every truth line, in order. */
static int write_out(struct gen_jobs *j, struct chunk *c)
{
	uint64_t bytes = 0;
	int rc = 0;

	for (unsigned i = 0; i < j->tc->nsessions; i++) {
		uint64_t clock = producer_clock_max(j->prod, i);
		struct writer_stats ws;

		if (!c->serial && rc >= 0) {
			rc = writer_defer_flush(j->run->writers[i], clock);
		}
		writer_get_stats(j->run->writers[i], &ws);
		bytes += ws.bytes_written;
	}
	if (j->truth_f && rc >= 0) {
		errno = 0;
		rc = truth_writer_flush_to(&c->front, j->truth_f);
	}
	for (unsigned w = 0; j->truth_f && w < j->nw && rc >= 0; w++) {
		errno = 0;
		rc = truth_writer_flush_to(&j->tw[w], j->truth_f);
	}
	if (j->truth_f && rc >= 0 && ++j->chunks_written % 8 == 0) {
		out_writeback(fileno(j->truth_f)); /* on its way to disk meanwhile */
	}
	pthread_mutex_lock(&j->mu);
	j->bytes = bytes;
	if (rc < 0 && j->truth_f && ferror(j->truth_f) && !j->truth_errno) {
		j->truth_errno = errno ? errno : EIO;
	}
	pthread_mutex_unlock(&j->mu);
	return rc;
}

struct worker_arg {
	struct gen_jobs *j;
	unsigned w;
};

static void *worker(void *arg)
{
	struct gen_jobs *j = ((struct worker_arg *)arg)->j;
	unsigned w = ((struct worker_arg *)arg)->w;
	uint64_t seq = 1;

	free(arg);
	pthread_mutex_lock(&j->mu);
	for (;;) {
		struct chunk *c = &j->ch[(seq - 1) % 2];
		int rc;

		/* the chunk is handed over, and (phase 0) the one before is written */
		while (!j->quit && !j->err &&
		       (j->handed < seq || (w == 0 ? j->done + 1 < seq : j->planned < seq))) {
			pthread_cond_wait(&j->cv, &j->mu);
		}
		if (j->quit || j->err) {
			break;
		}
		if (w == 0) {
			pthread_mutex_unlock(&j->mu);
			plan(j, c);
			pthread_mutex_lock(&j->mu);
			j->planned = seq;
			pthread_cond_broadcast(&j->cv);
			if (j->err) {
				break;
			}
		}
		pthread_mutex_unlock(&j->mu);
		rc = encode_share(j, c, w);
		if (rc >= 0 && j->truth_f) {
			rc = truth_share(j, c, w);
		}
		fail(j, rc);
		pthread_mutex_lock(&j->mu);
		if (++j->arrived == j->nw) {
			j->arrived = 0;
			pthread_mutex_unlock(&j->mu);
			rc = j->err ? 0 : write_out(j, c);
			fail(j, rc);
			pthread_mutex_lock(&j->mu);
			j->done = seq;
			pthread_cond_broadcast(&j->cv);
		}
		seq++;
	}
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* ---- start, drain, stop -------------------------------------------------- */

int gen_jobs_start(struct gen_jobs **out, struct session_run *run, unsigned workers, unsigned npmc,
		   FILE *truth_f, const struct trace_config *tc, bool logged_spinlocks_only)
{
	struct gen_jobs *j = calloc(1, sizeof(*j));
	int rc = -ENOMEM;

	*out = NULL;
	if (!j) {
		return -ENOMEM;
	}
	j->run = run;
	j->prod = run->prod;
	j->tc = tc;
	j->nw = workers ? workers : 1;
	j->cpus = tc->cpus;
	j->npmc = npmc < SIM_MAX_COUNTERS ? npmc : SIM_MAX_COUNTERS;
	j->truth_f = truth_f;
	j->logged_only = logged_spinlocks_only;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	for (unsigned k = 0; k < 2; k++) {
		j->ch[k].rec = calloc(CHUNK_RECORDS, sizeof(*j->ch[k].rec));
		j->ch[k].on_cpu = calloc(3 * (size_t)j->cpus, sizeof(*j->ch[k].on_cpu));
		if (!j->ch[k].rec || !j->ch[k].on_cpu) {
			goto fail;
		}
	}
	j->tw = calloc(j->nw, sizeof(*j->tw));
	j->th = calloc(j->nw, sizeof(*j->th));
	if (!j->tw || !j->th) {
		goto fail;
	}
	for (unsigned w = 0; truth_f && w < j->nw; w++) {
		if (truth_writer_init(&j->tw[w], NULL, tc) < 0) {
			goto fail;
		}
	}
	for (unsigned k = 0; truth_f && k < 2; k++) {
		if (truth_writer_init(&j->ch[k].front, NULL, tc) < 0) {
			goto fail;
		}
	}
	rc = producer_lanes(j->prod, j->nw);
	if (rc < 0) {
		goto fail;
	}
	for (unsigned w = 0; w < j->nw; w++) {
		struct worker_arg *a = malloc(sizeof(*a));

		if (!a) {
			rc = -ENOMEM;
			goto fail;
		}
		a->j = j;
		a->w = w;
		rc = -pthread_create(&j->th[w], NULL, worker, a);
		if (rc < 0) {
			free(a);
			goto fail;
		}
		j->nth++;
	}
	*out = j;
	return 0;

fail:
	gen_jobs_stop(j);
	return rc;
}

int gen_jobs_drain(struct gen_jobs *j)
{
	struct chunk *c = &j->ch[j->fill];
	int rc = 0;

	if (c->n) {
		rc = hand_over(j);
	}
	pthread_mutex_lock(&j->mu);
	while (!j->err && j->done < j->handed) {
		pthread_cond_wait(&j->cv, &j->mu);
	}
	rc = rc < 0 ? rc : j->err;
	pthread_mutex_unlock(&j->mu);
	for (unsigned i = 0; rc == 0 && i < j->tc->nsessions; i++) {
		writer_undefer(j->run->writers[i]);
		(void)producer_clock_max(j->prod, i); /* the producer's own lane goes on */
	}
	return rc;
}

int gen_jobs_errno(struct gen_jobs *j)
{
	int e;

	pthread_mutex_lock(&j->mu);
	e = j->truth_errno;
	pthread_mutex_unlock(&j->mu);
	return e;
}

uint64_t gen_jobs_bytes(struct gen_jobs *j)
{
	uint64_t b;

	pthread_mutex_lock(&j->mu);
	b = j->bytes;
	pthread_mutex_unlock(&j->mu);
	return b;
}

void gen_jobs_stop(struct gen_jobs *j)
{
	if (!j) {
		return;
	}
	pthread_mutex_lock(&j->mu);
	j->quit = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	for (unsigned w = 0; w < j->nth; w++) {
		pthread_join(j->th[w], NULL);
	}
	for (unsigned w = 0; j->tw && j->truth_f && w < j->nw; w++) {
		truth_writer_finish(&j->tw[w]);
	}
	for (unsigned k = 0; k < 2; k++) {
		truth_writer_finish(&j->ch[k].front); /* a zeroed one (no --truth) is a no-op */
		arena_reset(&j->ch[k]);
		free(j->ch[k].rec);
		free(j->ch[k].on_cpu);
	}
	free(j->tw);
	free(j->th);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j);
}
