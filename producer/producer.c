// SPDX-License-Identifier: MIT
/*
 * producer/producer.c - sessions and fan-out: what EtwTraceContextSwap and
 * the spin-lock logging path do with one record.
 *
 *   sim_cswitch --+--> every session with CSWITCH and not COMPACT:
 *                 |      one 0x0524 event (v2/v4), PEBS or PMC items
 *                 +--> every distinct clock type among COMPACT sessions:
 *                        ccswap_log() on block[cpu][clock]; a closed batch
 *                        goes to every COMPACT session of that clock, into
 *                        that CPU's buffer, TS = the flushing switch's time
 *   sim_spinlock ----> if logged: every SPINLOCK session, one 0x0529 event
 *   start, end ------> every SPINLOCK session: the configuration rundown
 *                      0x0F4B / 0x0F4C on CPU 0 (after the end's batches)
 *
 * Each event is written in place into the session's buffer of its CPU,
 * borrowed per buffer through writer/backend.h: an indirect call only when
 * a buffer is full (buffer_put, buffer_get), never per event, no
 * intermediate copy. A plain CSwitch payload is worked out once as three
 * quadwords (cswitch_words.h) and stored in each session, a SpinLock
 * payload encoded once and copied to the next sessions; what each session
 * needs (its flags, clock, stamped hooks) is worked out in producer_create(). Blocks and per-CPU
 * buffer slots are allocated there too; nothing on these paths allocates.
 * Events for which no buffer is free (-ENOBUFS) are counted as lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap.h"
#include "producer/cswitch_words.h"
#include "producer/producer.h"
#include "producer/producer_internal.h"
#include "producer/stack_cache.h"
#include "writer/etl_trace_header.h"
#include "writer/etl_wire.h"

/*
 * producer_cswitch()'s fast path needs no saved registers only if the
 * general path is a real call, not inlined into it (as ccswap.c, GNU C only).
 */
#if defined(__GNUC__)
#define PRODUCER_NOINLINE __attribute__((noinline))
#define PRODUCER_INLINE	  inline __attribute__((always_inline))
#else
#define PRODUCER_NOINLINE
#define PRODUCER_INLINE inline
#endif

/*
 * struct psess - one session as the event path sees it, everything a scan
 * of the configuration would tell precomputed at create time.
 * @cur:       the buffer borrowed for each CPU (NULL: none held)
 * @clock_max: the largest timestamp the producer's own lane logged to it
 *             (the pool clock; other lanes keep theirs)
 * @idx:       its index
 */
struct psess {
	unsigned flags; /* PRODUCER_F_* */
	const struct etl_backend_ops *be;
	void *ctx;
	enum sim_clock clock;
	uint32_t max_event;
	bool pebs;
	bool pmc_cswitch;  /* PMC items on 0x0524 (producer_stamps()) */
	bool pmc_batch;	   /* ... on 0x0525 */
	bool pmc_spinlock; /* ... on 0x0529 */
	unsigned pmc_count;
	uint8_t pmc_ids[SIM_MAX_PMC];
	uint32_t cs_size; /* 0x0524's Size with its items (a multiple of 8) */
	uint64_t cs_head; /* its Marker, Size and HookId: the header's first quadword */
	unsigned cs_npmc; /* PMC items on 0x0524: pmc_count if pmc_cswitch, else 0 */
	unsigned idx;
	uint64_t clock_max;
	struct etl_buf **cur;
	unsigned stack_cache;	     /* entries per CPU; 0: no caching */
	struct stack_cache **caches; /* per CPU, made at the CPU's first cached stack */
};

struct producer {
	struct producer_cfg cfg;
	struct ccswap_params prm;
	uint32_t arch_marker; /* ETL_PERFINFO_MARKER64 or ETL_PERFINFO_MARKER32 */
	size_t spin_len;      /* WMI_SPINLOCK payload for the arch */
	unsigned nclocks;
	enum sim_clock clocks[SIM_CLOCK_SLOTS];
	struct ccswap_block *blocks; /* [cpu * nclocks + clock index] */
	struct psess sess[SIM_MAX_SESSIONS];
	unsigned nplain, nspin;
	bool cs_v4;		 /* 0x0524 byte 0x0D is the v4 flags byte (version >= 4) */
	struct psess *one_plain; /* the only session if it is plain (no batches), else NULL */
	uint8_t plain[SIM_MAX_SESSIONS];		    /* sessions logging 0x0524 */
	uint8_t spin[SIM_MAX_SESSIONS];			    /* sessions logging 0x0529 */
	uint8_t ncompact[SIM_CLOCK_SLOTS];		    /* per clock index */
	uint8_t compact[SIM_CLOCK_SLOTS][SIM_MAX_SESSIONS]; /* sessions logging its batches */
	struct producer_lane lane;   /* the producer's own: producer_cswitch() and friends */
	struct producer_lane *lanes; /* producer_lanes() */
	unsigned nlanes;
};

static const char *const reason_names[PRODUCER_FLUSH_REASONS] = {
	"tid_full", "ticks", "size", "delta", "stop", "end",
};

const char *producer_flush_reason_name(enum producer_flush_reason r)
{
	return (unsigned)r < PRODUCER_FLUSH_REASONS ? reason_names[r] : "?";
}

static bool valid_clock(enum sim_clock c)
{
	return c == SIM_CLOCK_QPC || c == SIM_CLOCK_SYSTIME || c == SIM_CLOCK_CYCLES;
}

static int validate(const struct producer_cfg *cfg)
{
	if (cfg->cpus == 0 || cfg->cpus > 1024 || cfg->nsessions == 0 ||
	    cfg->nsessions > SIM_MAX_SESSIONS) {
		return -EINVAL;
	}
	if (cfg->arch != ETL_ARCH_X64 && cfg->arch != ETL_ARCH_X86) {
		return -EINVAL;
	}
	if (cfg->cswitch_version == 0 || cfg->max_wait_reason == 0 || cfg->max_wait_reason >= 64) {
		return -EINVAL;
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct producer_session *s = &cfg->sessions[i];

		if (!valid_clock(s->clock) || !s->backend || !s->backend->buffer_get ||
		    !s->backend->buffer_put || !s->backend->max_event) {
			return -EINVAL;
		}
		if ((s->flags & PRODUCER_F_COMPACT) && !(s->flags & PRODUCER_F_CSWITCH)) {
			return -EINVAL; /* the kernel needs both group masks */
		}
		if (s->pmc_count > SIM_MAX_PMC || s->pmc_event_count > 4) {
			return -EINVAL;
		}
		for (unsigned j = 0; j < s->pmc_count; j++) {
			if (s->pmc_ids[j] >= SIM_MAX_COUNTERS) {
				return -EINVAL;
			}
		}
		if (s->stack_cache % STACK_CACHE_WAYS || s->stack_cache > STACK_CACHE_MAX) {
			return -EINVAL;
		}
	}
	return 0;
}

bool producer_stamps(unsigned flags, bool pebs, const uint16_t *events, unsigned nevents,
		     bool pebs_and_pmc, uint16_t hook)
{
	bool listed = false;
	bool logs;

	for (unsigned i = 0; i < nevents && i < 4; i++) {
		listed |= events[i] == hook;
	}
	switch (hook) {
	case ETW_HOOK_CSWITCH:
		logs = (flags & (PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT)) == PRODUCER_F_CSWITCH;
		return logs && listed && (!pebs || pebs_and_pmc);
	case ETW_HOOK_CSWITCH_BATCH:
		return (flags & PRODUCER_F_COMPACT) && listed;
	case ETW_HOOK_SPINLOCK:
		return (flags & PRODUCER_F_SPINLOCK) && listed;
	default:
		return false;
	}
}

/* The event path's view of session @i (a pointer array per CPU is allocated). */
static int setup_session(struct producer *p, unsigned i)
{
	const struct producer_session *s = &p->cfg.sessions[i];
	struct psess *ps = &p->sess[i];

	ps->flags = s->flags;
	ps->idx = i;
	ps->be = s->backend;
	ps->ctx = s->backend_ctx;
	ps->clock = s->clock;
	ps->max_event = s->backend->max_event(s->backend_ctx);
	ps->pebs = s->pebs;
	ps->pmc_count = s->pmc_count;
	memcpy(ps->pmc_ids, s->pmc_ids, sizeof(ps->pmc_ids));
	ps->pmc_cswitch = producer_stamps(s->flags, s->pebs, s->pmc_events, s->pmc_event_count,
					  p->cfg.pebs_and_pmc, ETW_HOOK_CSWITCH);
	ps->pmc_batch = producer_stamps(s->flags, s->pebs, s->pmc_events, s->pmc_event_count,
					p->cfg.pebs_and_pmc, ETW_HOOK_CSWITCH_BATCH);
	ps->pmc_spinlock = producer_stamps(s->flags, s->pebs, s->pmc_events, s->pmc_event_count,
					   p->cfg.pebs_and_pmc, ETW_HOOK_SPINLOCK);
	{
		unsigned items = (s->pebs ? 1u : 0u) + (ps->pmc_cswitch ? s->pmc_count : 0u);

		ps->cs_size = ETL_TH_LEN + items * ETL_EXT_ITEM_LEN + ETW_CS_LEN;
		ps->cs_npmc = ps->pmc_cswitch ? s->pmc_count : 0u;
		ps->cs_head = cswitch_head(p->arch_marker | p->cfg.cswitch_version |
						   (s->pebs ? ETL_MARKER_PEBS_FLAG : 0u) |
						   FIELD_PREP(ETL_MARKER_PMC_MASK, ps->cs_npmc),
					   ps->cs_size);
	}
	ps->cur = calloc(p->cfg.cpus, sizeof(*ps->cur));
	if (!ps->cur) {
		return -ENOMEM;
	}
	ps->stack_cache = s->stack_cache;
	if (s->stack_cache && !(ps->caches = calloc(p->cfg.cpus, sizeof(*ps->caches)))) {
		return -ENOMEM;
	}
	if ((s->flags & (PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT)) == PRODUCER_F_CSWITCH) {
		p->plain[p->nplain++] = (uint8_t)i;
	}
	if (s->flags & PRODUCER_F_SPINLOCK) {
		p->spin[p->nspin++] = (uint8_t)i;
	}
	if (s->flags & PRODUCER_F_COMPACT) {
		unsigned c = 0;

		while (c < p->nclocks && p->clocks[c] != s->clock) {
			c++;
		}
		if (c == p->nclocks) {
			p->clocks[p->nclocks++] = s->clock; /* distinct clocks, in session order */
		}
		p->compact[c][p->ncompact[c]++] = (uint8_t)i;
	}
	return 0;
}

struct producer *producer_create(const struct producer_cfg *cfg)
{
	struct producer *p;

	if (!cfg || validate(cfg) < 0) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		return NULL;
	}
	p->cfg = *cfg;
	p->lane.p = p;
	p->lane.nlanes = 1;
	p->prm.max_wait_reason = cfg->max_wait_reason;
	p->prm.quirks = cfg->quirks;
	p->arch_marker = cfg->arch == ETL_ARCH_X86 ? ETL_PERFINFO_MARKER32 : ETL_PERFINFO_MARKER64;
	p->spin_len = etw_spinlock_len(cfg->arch);
	p->cs_v4 = cfg->cswitch_version >= 4;
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		if (setup_session(p, i) < 0) {
			goto enomem;
		}
	}
	p->one_plain = p->nplain == 1 && p->nclocks == 0 ? &p->sess[p->plain[0]] : NULL;
	if (p->nclocks) {
		p->blocks = calloc((size_t)cfg->cpus * p->nclocks, sizeof(*p->blocks));
		if (!p->blocks) {
			goto enomem;
		}
		for (size_t i = 0; i < (size_t)cfg->cpus * p->nclocks; i++) {
			ccswap_block_init(&p->blocks[i]);
		}
	}
	return p;

enomem:
	producer_destroy(p);
	errno = ENOMEM;
	return NULL;
}

void producer_destroy(struct producer *p)
{
	if (!p) {
		return;
	}
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		free(p->sess[i].cur);
		for (unsigned c = 0; p->sess[i].caches && c < p->cfg.cpus; c++) {
			stack_cache_destroy(p->sess[i].caches[c]);
		}
		free(p->sess[i].caches);
	}
	free(p->blocks);
	free(p->lanes);
	free(p);
}

/* place()'s way at a buffer boundary: write the full buffer, borrow the next. */
/*
 * Where lane @l keeps session @s's pool clock: in the session for the
 * producer's own lane (a constant offset once inlined into its callers),
 * in the lane for the others.
 */
static inline uint64_t *pool_clock(struct producer *p, struct producer_lane *l, struct psess *s)
{
	return l == &p->lane ? &s->clock_max : &l->clock_max[s->idx];
}

static uint8_t *place_slow(struct producer *p, struct producer_lane *l, struct psess *s,
			   unsigned cpu, uint32_t size, uint64_t ts, int *rc)
{
	struct etl_buf *b = s->cur[cpu];

	if (size > s->max_event) {
		*rc = -E2BIG;
		return NULL;
	}
	if (b) {
		s->cur[cpu] = NULL;
		b->key = l->key;
		*rc = s->be->buffer_put(s->ctx, b, ts);
		if (*rc < 0) {
			return NULL;
		}
	}
	*rc = s->be->buffer_get(s->ctx, cpu, *pool_clock(p, l, s), &b);
	if (*rc == -ENOBUFS) {
		l->st.events_lost++;
		*rc = 0;
		return NULL;
	}
	if (*rc < 0) {
		return NULL;
	}
	s->cur[cpu] = b;
	*rc = 0;
	return b->base + b->pos;
}

/*
 * Room for one event of @size bytes at @ts in session @s's buffer of @cpu,
 * taking the CPU's buffer (and writing a full one) only at buffer
 * boundaries. Return: the buffer to write at its pos, or NULL with *@rc = 0
 * (no free buffer: the event is lost and counted) or a negative errno.
 */
static inline struct etl_buf *reserve(struct producer *p, struct producer_lane *l, struct psess *s,
				      unsigned cpu, uint32_t size, uint64_t ts, int *rc)
{
	struct etl_buf *b = s->cur[cpu];
	uint64_t *cm = pool_clock(p, l, s);

	if (ts > *cm) {
		*cm = ts;
	}
	if (b && b->pos + size <= b->size) {
		*rc = 0;
		return b;
	}
	return place_slow(p, l, s, cpu, size, ts, rc) ? s->cur[cpu] : NULL;
}

/* reserve(), returning where to write. */
static inline uint8_t *place(struct producer *p, struct producer_lane *l, struct psess *s,
			     unsigned cpu, uint32_t size, uint64_t ts, int *rc)
{
	struct etl_buf *b = reserve(p, l, s, cpu, size, ts, rc);

	return b ? b->base + b->pos : NULL;
}

/* The event of @size bytes placed last in @cpu's buffer is complete: pad it to 8. */
static inline void commit(struct psess *s, unsigned cpu, uint32_t size)
{
	struct etl_buf *b = s->cur[cpu];
	uint32_t a = (uint32_t)etl_align8(size);

	if (a != size) {
		memset(b->base + b->pos + size, 0, a - size); /* the alignment padding is zero */
	}
	b->pos += a;
	b->events++;
	b->event_bytes += size;
}

/* PERFINFO header (KERNEL_FACTS 3.2) at @out; returns where the items go. */
static uint8_t *put_header(uint8_t *out, uint32_t marker, uint32_t size, uint16_t hook, uint64_t ts)
{
	put_le32(out + ETL_TH_MARKER, marker);
	put_le16(out + ETL_TH_SIZE, (uint16_t)size);
	put_le16(out + ETL_TH_HOOK_ID, hook);
	put_le64(out + ETL_TH_TS, ts);
	return out + ETL_TH_LEN;
}

/* The session's PMC items (its counters' values, zero without @pmc). */
static uint8_t *put_pmc(uint8_t *q, const struct psess *s, const uint64_t *pmc)
{
	if (!pmc) {
		memset(q, 0, s->pmc_count * ETL_EXT_ITEM_LEN);
		return q + s->pmc_count * ETL_EXT_ITEM_LEN;
	}
	for (unsigned j = 0; j < s->pmc_count; j++) {
		put_le64(q + j * ETL_EXT_ITEM_LEN, pmc[s->pmc_ids[j]]);
	}
	return q + s->pmc_count * ETL_EXT_ITEM_LEN;
}

static int emit_batch(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why)
{
	struct producer_lane *l = ctx;
	struct producer *p = l->p;
	const uint8_t *payload = b->bytes + ETL_TH_LEN;
	uint32_t len = b->offset - ETL_TH_LEN;
	unsigned c = l->cur_clock;

	l->st.batches++;
	l->st.batches_by_reason[why]++;
	l->st.batch_records += b->records;
	for (unsigned k = 0; k < p->ncompact[c]; k++) {
		struct psess *s = &p->sess[p->compact[c][k]];
		unsigned items = s->pmc_batch ? s->pmc_count : 0;
		uint32_t size = ETL_TH_LEN + items * ETL_EXT_ITEM_LEN + len;
		uint8_t *out, *q;
		int rc;

		l->st.batch_events++;
		out = place(p, l, s, l->cur_cpu, size, l->cur_ts, &rc);
		if (!out) {
			if (rc < 0) {
				return rc;
			}
			continue;
		}
		q = put_header(out,
			       p->arch_marker | ETW_VERSION_BATCH |
				       FIELD_PREP(ETL_MARKER_PMC_MASK, items),
			       size, ETW_HOOK_CSWITCH_BATCH, l->cur_ts);
		if (items) {
			q = put_pmc(q, s, l->cur_pmc);
		}
		memcpy(q, payload, len);
		commit(s, l->cur_cpu, size);
	}
	return 0;
}

/* The PMC items of a 0x0524 event: @n counters of the switch, picked by id. */
static inline uint8_t *put_cswitch_pmc(uint8_t *q, const uint8_t *ids, unsigned n,
				       const uint64_t *pmc)
{
	for (unsigned j = 0; j < n; j++) {
		put_le64(q + j * ETL_EXT_ITEM_LEN, pmc[ids[j]]);
	}
	return q + n * ETL_EXT_ITEM_LEN;
}

/*
 * One 0x0524 event of @cs (its payload words @cw) into session @s. The
 * event is counted and its room taken first; then, if placed, the buffer is
 * advanced and the bytes stored (no padding: sizes are multiples of 8).
 * Everything is read into locals before the first store, as stores through
 * the buffer may alias any of it. Return: 0 (also when the event is lost)
 * or a negative errno; -EINVAL for v4 flags out of range, as soon as an
 * event is placed (nothing is committed then).
 */
static inline int log_plain_event(struct producer *p, struct producer_lane *l, struct psess *s,
				  const struct sim_cswitch *cs, const struct cswitch_words *cw)
{
	uint32_t size = s->cs_size;
	uint64_t head = s->cs_head;
	uint64_t ts = cs->ts[s->clock];
	unsigned npmc = s->cs_npmc;
	bool pebs = s->pebs;
	struct etl_buf *b;
	uint8_t *out, *q;
	int rc;

	l->st.cswitch_events++;
	b = reserve(p, l, s, cs->cpu, size, ts, &rc);
	if (!b) {
		return rc;
	}
	if (cw->bad) {
		return -EINVAL;
	}
	out = b->base + b->pos;
	b->pos += size;
	b->events++;
	b->event_bytes += size;
	put_le64(out + ETL_TH_MARKER, head);
	put_le64(out + ETL_TH_TS, ts);
	q = out + ETL_TH_LEN;
	if (pebs) {
		put_le64(q, cs->pebs_index);
		q += ETL_EXT_ITEM_LEN;
	}
	if (npmc) {
		q = put_cswitch_pmc(q, s->pmc_ids, npmc, cs->pmc);
	}
	cswitch_put_payload(q, cw);
	return 0;
}

/*
 * One 0x0524 event per plain session: the header and items per session, the
 * payload worked out once as three quadwords and stored in each.
 */
static PRODUCER_INLINE int log_plain(struct producer *p, struct producer_lane *l,
				     const struct sim_cswitch *cs)
{
	struct cswitch_words cw;

	cswitch_words(&cw, cs, p->cs_v4);
	for (unsigned k = 0; k < p->nplain; k++) {
		int rc = log_plain_event(p, l, &p->sess[p->plain[k]], cs, &cw);

		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

/* producer_cswitch() in general: every plain session, then every clock's batch block. */
static PRODUCER_INLINE int cswitch_all(struct producer *p, struct producer_lane *l,
				       const struct sim_cswitch *cs)
{
	int rc;

	if (cs->cpu >= p->cfg.cpus) {
		return -EINVAL;
	}
	l->st.switches++;
	if (p->nplain) {
		rc = log_plain(p, l, cs);
		if (rc < 0) {
			return rc;
		}
	}
	l->cur_cpu = cs->cpu;
	l->cur_pmc = cs->pmc;
	for (unsigned c = 0; c < p->nclocks; c++) {
		l->cur_clock = c;
		l->cur_ts = cs->ts[p->clocks[c]];
		rc = ccswap_log(&p->blocks[(size_t)cs->cpu * p->nclocks + c], &p->prm, cs,
				l->cur_ts, emit_batch, l);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

/*
 * cswitch_all() for the producer's own lane (its pool clocks and the switch
 * being logged at constant offsets from @p) and for any lane.
 */
static PRODUCER_NOINLINE int cswitch_own(struct producer *p, const struct sim_cswitch *cs)
{
	return cswitch_all(p, &p->lane, cs);
}

static PRODUCER_NOINLINE int cswitch_lane(struct producer *p, struct producer_lane *l,
					  const struct sim_cswitch *cs)
{
	return cswitch_all(p, l, cs);
}

/*
 * The fast path, for the common machine of one plain session: the event fits
 * the CPU's buffer, so what cswitch_all() would do is log_plain_event()
 * without a buffer change. Anything else (no buffer held, a full one, a bad
 * CPU, other sessions) goes the general way, with nothing done here yet.
 */
static inline int lane_cswitch(struct producer *p, struct producer_lane *l,
			       const struct sim_cswitch *cs)
{
	struct psess *s = p->one_plain;

	if (s && cs->cpu < p->cfg.cpus) {
		const struct etl_buf *b = s->cur[cs->cpu];

		if (b && b->pos + s->cs_size <= b->size) {
			struct cswitch_words cw;

			l->st.switches++;
			cswitch_words(&cw, cs, p->cs_v4);
			return log_plain_event(p, l, s, cs, &cw);
		}
	}
	return l == &p->lane ? cswitch_own(p, cs) : cswitch_lane(p, l, cs);
}

int producer_lane_cswitch(struct producer_lane *l, const struct sim_cswitch *cs)
{
	return lane_cswitch(l->p, l, cs);
}

int producer_cswitch(struct producer *p, const struct sim_cswitch *cs)
{
	return lane_cswitch(p, &p->lane, cs);
}

static inline int lane_spinlock(struct producer *p, struct producer_lane *l,
				const struct sim_spinlock *sl)
{
	struct etw_spinlock w = {0};
	const uint8_t *payload = NULL;
	uint32_t len = (uint32_t)p->spin_len;

	if (sl->cpu >= p->cfg.cpus) {
		return -EINVAL;
	}
	l->st.spinlocks++;
	if (!sl->logged) {
		return 0;
	}
	w.lock_address = sl->lock;
	w.caller_address = sl->caller;
	w.acquire_time = sl->acquire_time;
	w.release_time = sl->release_time;
	w.wait_cycles = (uint32_t)sl->wait_cycles; /* (ULONG)(AcquireTime - T0) */
	w.spin_count = sl->spin_count;
	w.tid = sl->tid;
	w.interrupt_count = sl->interrupt_count;
	w.irql = sl->irql;
	w.depth = sl->depth;
	w.acquire_mode = sl->mode;
	w.execute_dpc = sl->dpc;
	w.execute_isr = sl->isr;
	for (unsigned k = 0; k < p->nspin; k++) {
		struct psess *s = &p->sess[p->spin[k]];
		unsigned items = s->pmc_spinlock ? s->pmc_count : 0;
		uint32_t size = ETL_TH_LEN + items * ETL_EXT_ITEM_LEN + len;
		uint64_t ts = sl->ts[s->clock];
		uint8_t *out, *q;
		int rc;

		l->st.spinlock_events++;
		out = place(p, l, s, sl->cpu, size, ts, &rc);
		if (!out) {
			if (rc < 0) {
				return rc;
			}
			continue;
		}
		q = put_header(out,
			       p->arch_marker | ETW_VERSION_SPINLOCK |
				       FIELD_PREP(ETL_MARKER_PMC_MASK, items),
			       size, ETW_HOOK_SPINLOCK, ts);
		if (items) {
			q = put_pmc(q, s, sl->pmc);
		}
		if (payload) {
			memcpy(q, payload, len);
		} else {
			if (etw_encode_spinlock(q, len, p->cfg.arch, &w, 0) < 0) {
				return -EINVAL;
			}
			payload = q;
		}
		commit(s, sl->cpu, size);
	}
	return 0;
}

int producer_lane_spinlock(struct producer_lane *l, const struct sim_spinlock *sl)
{
	return lane_spinlock(l->p, l, sl);
}

int producer_spinlock(struct producer *p, const struct sim_spinlock *sl)
{
	return lane_spinlock(p, &p->lane, sl);
}

int producer_lane_stop(struct producer_lane *l, const struct sim_ccswap_stop *st)
{
	struct producer *p = l->p;

	for (unsigned c = 0; c < p->nclocks; c++) {
		if (p->clocks[c] != st->clock) {
			continue;
		}
		for (unsigned cpu = l->index; cpu < p->cfg.cpus; cpu += l->nlanes) {
			p->blocks[(size_t)cpu * p->nclocks + c].stop = true;
		}
	}
	return 0;
}

int producer_ccswap_stop(struct producer *p, const struct sim_ccswap_stop *st)
{
	return producer_lane_stop(&p->lane, st);
}

/*
 * EtwpSpinLockConfigRunDown: PERFINFO_SPINLOCK_CONFIG (KERNEL_FACTS 6.3)
 * with a SYSTEM header, version 3, into every spin-lock session's CPU 0
 * buffer at @ts (its clock). ThreadId/ProcessId are the starting context's,
 * 0/0 as in the header event; Kernel/UserTime 0.
 */
static int spinlock_rundown(struct producer *p, uint16_t hook, const uint64_t ts[SIM_CLOCK_SLOTS])
{
	const struct etw_spinlock_config c = {
		.spin_threshold = p->cfg.spin.spin_threshold,
		.contention_sample_rate = p->cfg.spin.contention_sample_rate,
		.acquire_sample_rate = p->cfg.spin.acquire_sample_rate,
		.hold_threshold = p->cfg.spin.hold_threshold,
	};
	const uint32_t size = ETL_SH_LEN + ETW_SPINCFG_LEN;

	for (unsigned k = 0; k < p->nspin; k++) {
		struct psess *s = &p->sess[p->spin[k]];
		struct etl_system_header h = {
			.arch = p->cfg.arch,
			.version = ETW_VERSION_SPINLOCK_CONFIG,
			.size = (uint16_t)size,
			.hook_id = hook,
			.ts = ts[s->clock],
		};
		uint8_t *out;
		int rc;

		out = place(p, &p->lane, s, 0, size, h.ts, &rc);
		if (!out) {
			if (rc < 0) {
				return rc;
			}
			continue;
		}
		(void)etl_encode_system_header(out, ETL_SH_LEN, &h);
		(void)etw_encode_spinlock_config(out + ETL_SH_LEN, ETW_SPINCFG_LEN, &c);
		commit(s, 0, size);
		p->lane.st.spinlock_config_events++;
	}
	return 0;
}

int producer_start(struct producer *p, const uint64_t start_ts[SIM_CLOCK_SLOTS])
{
	return spinlock_rundown(p, ETW_HOOK_SPINLOCK_DC_START, start_ts);
}

int producer_flush_end(struct producer *p, const struct sim_end *end)
{
	struct producer_lane *l = &p->lane;

	l->cur_pmc = NULL;
	for (unsigned cpu = 0; cpu < p->cfg.cpus; cpu++) {
		for (unsigned c = 0; c < p->nclocks; c++) {
			struct ccswap_block *b = &p->blocks[(size_t)cpu * p->nclocks + c];
			int rc;

			if (!p->cfg.flush_at_end) {
				l->st.batches_dropped += b->offset != 0;
				b->offset = 0;
				continue;
			}
			l->cur_cpu = cpu;
			l->cur_clock = c;
			l->cur_ts = end->ts[p->clocks[c]];
			rc = ccswap_finish(b, emit_batch, l);
			if (rc < 0) {
				return rc;
			}
		}
	}
	return spinlock_rundown(p, ETW_HOOK_SPINLOCK_DC_END, end->ts);
}

struct stack_cache *producer_stack_cache(struct producer *p, unsigned i, unsigned cpu, bool make,
					 int *rc)
{
	struct psess *s = &p->sess[i];

	*rc = 0;
	if (!s->caches) {
		return NULL;
	}
	if (!s->caches[cpu] && make) {
		s->caches[cpu] = stack_cache_create(
			s->stack_cache, stack_cache_key_base(cpu, p->cfg.arch == ETL_ARCH_X86));
		*rc = s->caches[cpu] ? 0 : -ENOMEM;
	}
	return s->caches[cpu];
}

/* @to += @from, counter by counter (struct producer_stats is all uint64_t). */
static void stats_add(struct producer_stats *to, const struct producer_stats *from)
{
	uint64_t *t = (uint64_t *)to;
	const uint64_t *f = (const uint64_t *)from;

	static_assert(sizeof(*to) % sizeof(uint64_t) == 0, "counters only");
	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++) {
		t[i] += f[i];
	}
}

void producer_get_stats(const struct producer *p, struct producer_stats *st)
{
	*st = p->lane.st;
	for (unsigned k = 0; k < p->nlanes; k++) {
		stats_add(st, &p->lanes[k].st);
	}
}

uint32_t producer_event_max(const struct producer *p, unsigned i, enum producer_event_of of)
{
	const struct psess *s = &p->sess[i];
	unsigned items;

	switch (of) {
	case PRODUCER_OF_CSWITCH:
		if (s->flags & PRODUCER_F_COMPACT) {
			items = s->pmc_batch ? s->pmc_count : 0;
			return (uint32_t)etl_align8(ETW_BATCH_CAP + items * ETL_EXT_ITEM_LEN);
		}
		return s->flags & PRODUCER_F_CSWITCH ? s->cs_size : 0;
	case PRODUCER_OF_SPINLOCK:
		items = s->pmc_spinlock ? s->pmc_count : 0;
		return s->flags & PRODUCER_F_SPINLOCK
			       ? (uint32_t)etl_align8(ETL_TH_LEN + items * ETL_EXT_ITEM_LEN +
						      p->spin_len)
			       : 0;
	default:
		return (uint32_t)etl_align8(s->max_event);
	}
}

int producer_lanes(struct producer *p, unsigned n)
{
	if (n == 0 || p->lanes) {
		return -EINVAL;
	}
	p->lanes = calloc(n, sizeof(*p->lanes));
	if (!p->lanes) {
		return -ENOMEM;
	}
	p->nlanes = n;
	for (unsigned k = 0; k < n; k++) {
		p->lanes[k].p = p;
		p->lanes[k].index = k;
		p->lanes[k].nlanes = n;
	}
	return 0;
}

struct producer_lane *producer_lane(struct producer *p, unsigned k)
{
	return k < p->nlanes ? &p->lanes[k] : &p->lane;
}

void producer_lane_key(struct producer_lane *l, uint64_t key)
{
	l->key = key;
}

uint64_t producer_clock_max(struct producer *p, unsigned i)
{
	uint64_t m = p->sess[i].clock_max;

	for (unsigned k = 0; k < p->nlanes; k++) {
		m = p->lanes[k].clock_max[i] > m ? p->lanes[k].clock_max[i] : m;
	}
	/* the producer's own lane goes on from here (a chunk logged by one thread) */
	p->sess[i].clock_max = m;
	return m;
}

unsigned producer_nsessions(const struct producer *p)
{
	return p->cfg.nsessions;
}

unsigned producer_session_flags(const struct producer *p, unsigned i)
{
	return p->sess[i].flags;
}

enum sim_clock producer_session_clock(const struct producer *p, unsigned i)
{
	return p->sess[i].clock;
}

const struct producer_cfg *producer_get_cfg(const struct producer *p)
{
	return &p->cfg;
}

uint8_t *producer_place(struct producer_lane *l, unsigned i, unsigned cpu, uint32_t size,
			uint64_t ts, int *rc)
{
	return place(l->p, l, &l->p->sess[i], cpu, size, ts, rc);
}

void producer_commit(struct producer_lane *l, unsigned i, unsigned cpu, uint32_t size)
{
	commit(&l->p->sess[i], cpu, size);
}

struct producer_lane *producer_own_lane(struct producer *p)
{
	return &p->lane;
}
