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
 *
 * Blocks are allocated in producer_create(); nothing on these paths
 * allocates. Events a backend cannot take (-ENOBUFS) are counted as lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap.h"
#include "producer/producer.h"

struct producer {
	struct producer_cfg cfg;
	struct ccswap_params prm;
	unsigned nclocks;
	enum sim_clock clocks[SIM_CLOCK_SLOTS];
	struct ccswap_block *blocks; /* [cpu * nclocks + clock index] */
	struct producer_stats st;
	/* the switch being logged, for the batch emitter */
	unsigned cur_cpu;
	enum sim_clock cur_clock;
	uint64_t cur_ts;
	const uint64_t *cur_pmc; /* NULL at the end of tracing: zero-filled items */
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
	if (cfg->cswitch_version == 0 || cfg->max_wait_reason == 0 ||
	    cfg->max_wait_reason >= 64) {
		return -EINVAL;
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct producer_session *s = &cfg->sessions[i];

		if (!valid_clock(s->clock) || !s->backend || !s->backend->reserve ||
		    !s->backend->commit) {
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
	p->prm.max_wait_reason = cfg->max_wait_reason;
	p->prm.quirks = cfg->quirks;
	/* distinct clock types among compact sessions, in session order */
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const struct producer_session *s = &cfg->sessions[i];
		bool seen = false;

		if (!(s->flags & PRODUCER_F_COMPACT)) {
			continue;
		}
		for (unsigned c = 0; c < p->nclocks; c++) {
			seen |= p->clocks[c] == s->clock;
		}
		if (!seen) {
			p->clocks[p->nclocks++] = s->clock;
		}
	}
	if (p->nclocks) {
		p->blocks = calloc((size_t)cfg->cpus * p->nclocks, sizeof(*p->blocks));
		if (!p->blocks) {
			free(p);
			return NULL;
		}
		for (size_t i = 0; i < (size_t)cfg->cpus * p->nclocks; i++) {
			ccswap_block_init(&p->blocks[i]);
		}
	}
	return p;
}

void producer_destroy(struct producer *p)
{
	if (!p) {
		return;
	}
	free(p->blocks);
	free(p);
}

static bool hook_stamped(const struct producer_session *s, uint16_t hook)
{
	for (unsigned i = 0; i < s->pmc_event_count; i++) {
		if (s->pmc_events[i] == hook) {
			return true;
		}
	}
	return false;
}

static void set_pmc(struct etl_perfinfo_header *h, const struct producer_session *s,
		    const uint64_t *pmc)
{
	h->pmc_count = s->pmc_count;
	for (unsigned j = 0; j < s->pmc_count; j++) {
		h->pmc[j] = pmc ? pmc[s->pmc_ids[j]] : 0;
	}
}

/*
 * Reserve, write header + items + @payload, commit. -ENOBUFS is a lost
 * event, counted; other errors stop the run.
 */
static int emit_event(struct producer *p, const struct producer_session *s, unsigned cpu,
		      struct etl_perfinfo_header *h, const uint8_t *payload, size_t len)
{
	size_t hl = etl_perfinfo_header_len(h);
	uint8_t *out;
	int rc;

	h->arch = p->cfg.arch;
	h->size = (uint16_t)(hl + len);
	rc = s->backend->reserve(s->backend_ctx, cpu, hl + len, h->ts, &out);
	if (rc == -ENOBUFS) {
		p->st.events_lost++;
		return 0;
	}
	if (rc < 0) {
		return rc;
	}
	rc = etl_encode_perfinfo_header(out, hl + len, h);
	if (rc < 0) {
		return rc;
	}
	memcpy(out + hl, payload, len);
	s->backend->commit(s->backend_ctx, cpu);
	return 0;
}

static int emit_batch(void *ctx, const struct ccswap_block *b, enum producer_flush_reason why)
{
	struct producer *p = ctx;
	const uint8_t *payload = b->bytes + ETL_TH_LEN;
	size_t len = b->offset - ETL_TH_LEN;

	p->st.batches++;
	p->st.batches_by_reason[why]++;
	p->st.batch_records += b->records;
	for (unsigned i = 0; i < p->cfg.nsessions; i++) {
		const struct producer_session *s = &p->cfg.sessions[i];
		struct etl_perfinfo_header h = {0};
		int rc;

		if (!(s->flags & PRODUCER_F_COMPACT) || s->clock != p->cur_clock) {
			continue;
		}
		h.version = ETW_VERSION_BATCH;
		h.hook_id = ETW_HOOK_CSWITCH_BATCH;
		h.ts = p->cur_ts;
		if (hook_stamped(s, ETW_HOOK_CSWITCH_BATCH)) {
			set_pmc(&h, s, p->cur_pmc);
		}
		p->st.batch_events++;
		rc = emit_event(p, s, p->cur_cpu, &h, payload, len);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

static int log_plain_cswitch(struct producer *p, const struct producer_session *s,
			     const struct sim_cswitch *cs)
{
	struct etl_perfinfo_header h = {0};
	struct etw_cswitch w = {0};
	uint8_t payload[ETW_CS_LEN];
	int rc;

	w.new_tid = cs->new_tid;
	w.old_tid = cs->old_tid;
	w.new_pri = cs->new_pri;
	w.old_pri = cs->old_pri;
	/* PreviousCState when the old thread is the idle thread, else its rank (0xFF above 255) */
	w.prev_cstate = cs->old_tid == 0 ? cs->prev_cstate : etw_cswitch_rank_byte(cs->old_rank);
	w.new_pri_decrement = cs->new_pri_decrement;
	w.old_wait_reason = cs->old_wait_reason;
	if (p->cfg.cswitch_version >= 4) {
		rc = etw_cswitch_v4_flags(cs->old_wait_mode, cs->old_qos, cs->new_qos,
					  &w.wait_mode_or_flags);
		if (rc < 0) {
			return -EINVAL;
		}
	} else {
		w.wait_mode_or_flags = cs->old_wait_mode;
	}
	w.old_state = cs->old_state;
	w.old_ideal_cpu = (uint8_t)cs->old_ideal_cpu; /* truncated, as the kernel's */
	w.new_wait_time = cs->new_wait_ticks;
	/* the kernel's 64-bit difference stored in a LONG: its low 32 bits */
	w.old_remaining_quantum = (int32_t)(uint32_t)(uint64_t)cs->old_remaining_quantum;
	etw_encode_cswitch(payload, sizeof(payload), &w);

	h.version = p->cfg.cswitch_version;
	h.hook_id = ETW_HOOK_CSWITCH;
	h.ts = cs->ts[s->clock];
	if (s->pebs) {
		h.has_pebs = true;
		h.pebs_index = cs->pebs_index;
		if (p->cfg.pebs_and_pmc && hook_stamped(s, ETW_HOOK_CSWITCH)) {
			set_pmc(&h, s, cs->pmc);
		}
	} else if (hook_stamped(s, ETW_HOOK_CSWITCH)) {
		set_pmc(&h, s, cs->pmc);
	}
	p->st.cswitch_events++;
	return emit_event(p, s, cs->cpu, &h, payload, sizeof(payload));
}

int producer_cswitch(struct producer *p, const struct sim_cswitch *cs)
{
	int rc;

	if (cs->cpu >= p->cfg.cpus) {
		return -EINVAL;
	}
	p->st.switches++;
	for (unsigned i = 0; i < p->cfg.nsessions; i++) {
		const struct producer_session *s = &p->cfg.sessions[i];

		if ((s->flags & (PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT)) == PRODUCER_F_CSWITCH) {
			rc = log_plain_cswitch(p, s, cs);
			if (rc < 0) {
				return rc;
			}
		}
	}
	p->cur_cpu = cs->cpu;
	p->cur_pmc = cs->pmc;
	for (unsigned c = 0; c < p->nclocks; c++) {
		p->cur_clock = p->clocks[c];
		p->cur_ts = cs->ts[p->clocks[c]];
		rc = ccswap_log(&p->blocks[(size_t)cs->cpu * p->nclocks + c], &p->prm, cs,
				p->cur_ts, emit_batch, p);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

int producer_spinlock(struct producer *p, const struct sim_spinlock *sl)
{
	struct etw_spinlock w = {0};
	uint8_t payload[ETW_SL64_LEN];
	int n;

	if (sl->cpu >= p->cfg.cpus) {
		return -EINVAL;
	}
	p->st.spinlocks++;
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
	n = etw_encode_spinlock(payload, sizeof(payload), p->cfg.arch, &w, 0);
	if (n < 0) {
		return -EINVAL;
	}
	for (unsigned i = 0; i < p->cfg.nsessions; i++) {
		const struct producer_session *s = &p->cfg.sessions[i];
		struct etl_perfinfo_header h = {0};
		int rc;

		if (!(s->flags & PRODUCER_F_SPINLOCK)) {
			continue;
		}
		h.version = ETW_VERSION_SPINLOCK;
		h.hook_id = ETW_HOOK_SPINLOCK;
		h.ts = sl->ts[s->clock];
		if (hook_stamped(s, ETW_HOOK_SPINLOCK)) {
			set_pmc(&h, s, sl->pmc);
		}
		p->st.spinlock_events++;
		rc = emit_event(p, s, sl->cpu, &h, payload, (size_t)n);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

int producer_ccswap_stop(struct producer *p, const struct sim_ccswap_stop *st)
{
	for (unsigned c = 0; c < p->nclocks; c++) {
		if (p->clocks[c] != st->clock) {
			continue;
		}
		for (unsigned cpu = 0; cpu < p->cfg.cpus; cpu++) {
			p->blocks[(size_t)cpu * p->nclocks + c].stop = true;
		}
	}
	return 0;
}

int producer_end(struct producer *p, const struct sim_end *end)
{
	p->cur_pmc = NULL;
	for (unsigned cpu = 0; cpu < p->cfg.cpus; cpu++) {
		for (unsigned c = 0; c < p->nclocks; c++) {
			struct ccswap_block *b = &p->blocks[(size_t)cpu * p->nclocks + c];
			int rc;

			if (!p->cfg.flush_at_end) {
				p->st.batches_dropped += b->offset != 0;
				b->offset = 0;
				continue;
			}
			p->cur_cpu = cpu;
			p->cur_clock = p->clocks[c];
			p->cur_ts = end->ts[p->clocks[c]];
			rc = ccswap_finish(b, emit_batch, p);
			if (rc < 0) {
				return rc;
			}
		}
	}
	return 0;
}

void producer_get_stats(const struct producer *p, struct producer_stats *st)
{
	*st = p->st;
}

static int sink_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	return producer_cswitch(ctx, cs);
}

static int sink_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	return producer_spinlock(ctx, sl);
}

static int sink_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	return producer_ccswap_stop(ctx, st);
}

static int sink_end(void *ctx, const struct sim_end *end)
{
	return producer_end(ctx, end);
}

static const struct trace_sink_ops producer_sink_ops = {
	.cswitch = sink_cswitch,
	.spinlock = sink_spinlock,
	.ccswap_stop = sink_stop,
	.end = sink_end,
};

struct trace_sink producer_sink(struct producer *p)
{
	struct trace_sink s = {&producer_sink_ops, p};
	return s;
}
