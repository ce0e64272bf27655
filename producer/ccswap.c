// SPDX-License-Identifier: MIT
/*
 * producer/ccswap.c - the compact CSwitch batch of one (CPU, clock type),
 * as KERNEL_FACTS 1.2 describes the kernel's EtwpCCSwapTrace.
 *
 *   switch arrives (ts in this clock, tick, old/new thread)
 *        |
 *   Offset == 0 ? start: FirstTimeStamp = LastTimestamp = ts, StartTick =
 *        |        tick, Offset = 0x68, TidTable zeroed; delta = 0
 *        |        : delta = ts - LastTimestamp (signed)
 *   old TID != 0 ? look it up, insert at the first empty slot with its base
 *        |        priority (quirks: BEFORE the flush test; 16 = full)
 *   flush test: idx == 16 | tick - StartTick > 500 | Offset + 8 > 0x400 |
 *        |      delta > 0x40000000 | stop flag
 *   flush ? emit the batch, restart (TidTable[0] = old TID, idx = 0,
 *        |  ThreadBasePriority untouched: quirk), delta = 0
 *   encode IDLE_SHORT / IDLE / LITE / FULL at Offset, Offset += size,
 *   LastTimestamp = ts
 *
 * With quirks off the tables are clean: the lookup runs after the flush
 * test, a restart zeroes both tables, and only referenced threads appear.
 *
 * Two paths. When no batch starts or closes (all but ~1 % of switches) the
 * order of lookup and flush test makes no difference, so log_fast() runs
 * that case straight through, with no branch that depends on the data:
 *
 *   hit = 16-lane compare of TidTable with the old TID (SSE2 or plain C)
 *   idx = first hit, else the first free slot (16: table full)
 *   Offset == 0 | Offset > 0x3F8 | tick age > 500 | delta > 2^30 | stop |
 *   idx == 16 ? log_slow(): the steps above one by one, in the kernel's order
 *   slot idx = (TID, absent ? its base priority : what it holds)
 *   ccswap_rec_step(): every form's bits computed, the right ones kept
 *
 * ccswap_log() takes one switch, ccswap_log_n() a run of them (the state of
 * the loop kept in registers, the clock's slot a constant, no call a
 * switch); both are log_fast(), else log_slow(). A fast path with the flush
 * tests folded into one comparison and the record's length looked up (a
 * sixth fewer operations) was no faster on a 2-core AMD EPYC and made gen
 * 2 % slower: the switch's ~120 operations keep the integer units busy
 * whichever way they are arranged. On a 2-core AMD EPYC (family 26, KVM)
 * the same held: the form chosen by shifts of a packed constant instead of
 * the table's loads was 10 % slower, the flush tests or-ed into one branch
 * 8 % slower, an OldThreadStateWr table per run, a prefetch of the switches
 * ahead and TidTable stores sent to a sink slot when nothing changes were
 * no faster; taking operations off the integer units (loads are cheap) is
 * what pays.
 *
 * On a 2-core Xeon (Ice Lake, model 106, KVM; 5-wide rename, 2 load ports)
 * what paid, in paired laps (the same window timed on the engine before and
 * after, alternating): a hit's TidTable store sent to the sink slot [16]
 * (-8 %: the next lookup of the block loads the table 16 bytes at a time,
 * which cannot take a pending 4-byte store to it and waits for it to
 * retire; the same branch-free, where a branch on "absent" mispredicts on
 * the CPUs whose tables churn), and fewer uops: the form index as five
 * compare-and-adc pairs (ccswap_form_index()), Offset and the record count
 * bumped by one add of a tabled step (ccswap_rec_step()), TimeDelta placed
 * by a multiply instead of shl %cl, the fields as lea and shift chains, an
 * end pointer (120 -> 109 instructions a switch). What did not:
 * ccswap_log_n() sorting each 1024-switch chunk by CPU (a counting sort)
 * and running each CPU's switches with its block's state and TidTable in
 * registers, the switches that close batches still taken in stream order
 * (and an emitter's error taking back what other CPUs logged past it).
 * Same bytes, but 1.5x slower and 12 % more instructions: each CPU's walk
 * reads 224-byte switches scattered over the window (a prefetch 6 ahead
 * did not help), the sort costs ~9 operations a switch, and the loop still
 * spilled (SSE2's compares destroy their operand: the table needs copies).
 * An OldThreadStateWr table per run (two loads, an and, an add) saved
 * nothing once its value spilled; a select of LITE's dword0 by arithmetic
 * form (no form table) took 4 % more instructions.
 *
 * The TidTable and ThreadBasePriority live natively in the block and are
 * written to the wire bytes only when a batch is emitted; a batch is read
 * by nobody else before.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "producer/ccswap.h"
#include "producer/ccswap_internal.h"
#include "writer/etl_wire.h"

/* Offsets of the PERFINFO_CCSWAP_BUFFER inside the block (after the 0x10 header room). */
#define BLK_FIRST_TS  (ETL_TH_LEN + ETW_CCB_FIRST_TS)
#define BLK_TID_TABLE (ETL_TH_LEN + ETW_CCB_TID_TABLE)
#define BLK_BASE_PRI  (ETL_TH_LEN + ETW_CCB_BASE_PRI)

#define CCSWAP_TICK_LIMIT  500u
#define CCSWAP_DELTA_LIMIT 0x40000000
#define CCSWAP_WORST_REC   8u
/* Offset - 1 above this: not started (0) or no room for the worst-case record. */
#define CCSWAP_OFF_MAX_M1 (ETW_BATCH_CAP - CCSWAP_WORST_REC - 1u)

static_assert(ETW_CCSWAP_MAX_TID == 16, "the lane masks are 16 bits wide");

void ccswap_block_init(struct ccswap_block *b)
{
	memset(b, 0, sizeof(*b));
}

static void start(struct ccswap_block *b, uint64_t ts, uint32_t tick, bool clear_base_pri)
{
	b->offset = ETW_BATCH_FIXED_LEN;
	b->start_tick = tick;
	b->last_ts = ts;
	b->records = 0;
	put_le64(b->bytes + BLK_FIRST_TS, ts);
	memset(b->tids, 0, sizeof(b->tids));
	b->ntids = 0;
	if (clear_base_pri) {
		memset(b->base_pri, 0, sizeof(b->base_pri));
	}
}

/* Write the native tables to the wire: the batch is about to be read. */
static void sync_tables(struct ccswap_block *b)
{
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		put_le32(b->bytes + BLK_TID_TABLE + 4 * i, b->tids[i]);
		b->bytes[BLK_BASE_PRI + i] = (uint8_t)b->base_pri[i];
	}
}

/* Index of @tid (!= 0), inserting it at the first empty slot; 16 if full and absent. */
static unsigned lookup_insert(struct ccswap_block *b, uint32_t tid, int8_t base_pri)
{
	uint32_t hit = ccswap_tid_match(b->tids, tid);

	if (hit) {
		return ccswap_ctz(hit);
	}
	if (b->ntids == ETW_CCSWAP_MAX_TID) {
		return ETW_CCSWAP_MAX_TID;
	}
	b->tids[b->ntids] = tid;
	b->base_pri[b->ntids] = base_pri;
	return b->ntids++;
}

static void put_record(struct ccswap_block *b, const struct ccswap_params *prm,
		       const struct sim_cswitch *cs, unsigned idx, int64_t delta)
{
	struct ccswap_rec_in in = {
		.delta = delta,
		.old_tid = cs->old_tid,
		.new_tid = cs->new_tid,
		.wait = cs->new_wait_ticks,
		.old_pri = cs->old_pri,
		.base = b->base_pri[idx],
		.state = cs->old_state,
		.wait_reason = cs->old_wait_reason,
		.idx = idx,
		.max_wait_reason = prm->max_wait_reason,
	};

	/* The flush test guarantees 8 bytes of room. */
	b->offset += ccswap_rec_encode(b->bytes + b->offset, &in);
	b->records++;
}

/*
 * The kernel's steps one by one, for a switch that starts or closes a batch
 * (or finds the table full).
 */
/* Who is told of a closed batch: ccswap_log()'s emitter or ccswap_log_n()'s. */
struct emitter {
	ccswap_emit_fn fn;
	ccswap_emit_at_fn at;
	void *ctx;
};

static int emit_batch(const struct emitter *e, const struct ccswap_block *b,
		      enum producer_flush_reason why, const struct sim_cswitch *cs)
{
	return e->at ? e->at(e->ctx, b, why, cs) : e->fn(e->ctx, b, why);
}

static CCSWAP_NOINLINE int log_slow(struct ccswap_block *b, const struct ccswap_params *prm,
				    const struct sim_cswitch *cs, uint64_t ts,
				    const struct emitter *e)
{
	int64_t delta = 0;
	unsigned idx = 0;
	bool full;

	if (b->offset == 0) {
		/*
		 * The kernel's start path zeroes only the TidTable: a stop flag set
		 * while no batch was pending survives and flushes an empty batch at
		 * once. Clean mode drops the flag instead.
		 */
		start(b, ts, cs->tick, !prm->quirks);
		if (!prm->quirks) {
			b->stop = false;
		}
	} else {
		delta = (int64_t)(ts - b->last_ts);
	}

	if (prm->quirks) {
		if (cs->old_tid != 0) {
			idx = lookup_insert(b, cs->old_tid, cs->old_base_pri);
		}
		full = idx == ETW_CCSWAP_MAX_TID;
	} else {
		full = cs->old_tid != 0 && ccswap_tid_match(b->tids, cs->old_tid) == 0 &&
		       b->ntids == ETW_CCSWAP_MAX_TID;
	}

	enum producer_flush_reason why = PRODUCER_FLUSH_REASONS;
	if (full) {
		why = PRODUCER_FLUSH_TID_FULL;
	} else if ((uint32_t)(cs->tick - b->start_tick) > CCSWAP_TICK_LIMIT) {
		why = PRODUCER_FLUSH_TICKS;
	} else if (b->offset + CCSWAP_WORST_REC > ETW_BATCH_CAP) {
		why = PRODUCER_FLUSH_SIZE;
	} else if (delta > CCSWAP_DELTA_LIMIT) {
		why = PRODUCER_FLUSH_DELTA;
	} else if (b->stop) {
		why = PRODUCER_FLUSH_STOP;
	}

	if (why != PRODUCER_FLUSH_REASONS) {
		int rc;

		sync_tables(b);
		rc = emit_batch(e, b, why, cs);
		if (rc < 0) {
			return rc;
		}
		start(b, ts, cs->tick, !prm->quirks);
		b->stop = false;
		delta = 0;
		idx = 0;
		if (prm->quirks) {
			/* TidTable[0] = old TID; ThreadBasePriority[0] is not rewritten. */
			b->tids[0] = cs->old_tid;
			b->ntids = cs->old_tid != 0;
		}
	}
	if (!prm->quirks && cs->old_tid != 0) {
		idx = lookup_insert(b, cs->old_tid, cs->old_base_pri);
	}

	put_record(b, prm, cs, idx, delta);
	b->last_ts = ts;
	return 0;
}

/*
 * The common case of one switch (no batch starts or closes): each flush
 * test a well-predicted branch, the record by ccswap_rec_encode() (its form
 * chosen without a branch). Return: false when a rule needs the kernel's
 * steps one by one (log_slow()), with nothing done.
 */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(CCSWAP_GNUC)
/*
 * Offset and records as one little-endian 8-byte word: the record's length
 * and the record count go in with one add (of ccswap_rec_step()'s step,
 * loaded from its table) and one store.
 */
static_assert(offsetof(struct ccswap_block, records) ==
		      offsetof(struct ccswap_block, offset) + sizeof(uint32_t),
	      "records follows offset");

static CCSWAP_INLINE uint64_t off_rec_load(const struct ccswap_block *b)
{
	uint64_t w;

	memcpy(&w, (const unsigned char *)b + offsetof(struct ccswap_block, offset), sizeof(w));
	return w;
}

/* @w from off_rec_load(), @step from ccswap_rec_step() */
static CCSWAP_INLINE void off_rec_add(struct ccswap_block *b, uint64_t w, uint64_t step)
{
	w += step;
	memcpy((unsigned char *)b + offsetof(struct ccswap_block, offset), &w, sizeof(w));
}
#else
static CCSWAP_INLINE uint64_t off_rec_load(const struct ccswap_block *b)
{
	return b->offset;
}

static CCSWAP_INLINE void off_rec_add(struct ccswap_block *b, uint64_t w, uint64_t step)
{
	b->offset = (uint32_t)w + (uint32_t)step;
	b->records += (uint32_t)(step >> 32);
}
#endif

static CCSWAP_INLINE bool log_fast(struct ccswap_block *b, const struct sim_cswitch *cs,
				   uint64_t ts, uint32_t swr)
{
	uint64_t w = off_rec_load(b);
	uint32_t off = (uint32_t)w;
	uint32_t n = b->ntids;
	uint32_t tid = cs->old_tid;
	int64_t delta = (int64_t)(ts - b->last_ts);
	uint32_t hit = ccswap_tid_match(b->tids, tid);
	uint32_t idx = ccswap_ctz(hit | 1u << n);

	/*
	 * idx == 16 also sends an idle switch into a full table the slow way:
	 * rare, and log_slow() gets it right.
	 */
	if (CCSWAP_UNLIKELY(off - 1u > CCSWAP_OFF_MAX_M1) ||
	    CCSWAP_UNLIKELY((uint32_t)(cs->tick - b->start_tick) > CCSWAP_TICK_LIMIT) ||
	    CCSWAP_UNLIKELY(delta > CCSWAP_DELTA_LIMIT) || CCSWAP_UNLIKELY(b->stop) ||
	    CCSWAP_UNLIKELY(idx == ETW_CCSWAP_MAX_TID)) {
		return false;
	}

	/*
	 * No batch starts or closes, so lookup-before-test (quirks) and
	 * test-before-lookup (clean) agree. An absent TID is inserted at idx
	 * = n; a present one (or TID 0, which hits the empty slot n) goes to
	 * the sink slot [16], and its base priority slot gets what it holds.
	 *
	 * TID 0 always hits here (an empty slot matches it and the table is
	 * not full), so "absent" is just "no hit", and the base priority is a
	 * conditional move on the flags of that one test: gcc keeps this ?: a
	 * cmov as both values are loaded first, where ccswap_sel() cost a
	 * dozen operations on this ALU-bound path (6.9 -> 6.55 ns/switch).
	 */
	int8_t held = b->base_pri[idx];
	int8_t given = cs->old_base_pri;
	int8_t base = CCSWAP_UNPREDICTABLE(hit != 0) ? held : given;
	uint32_t absent = (uint32_t)(hit == 0);

	/* a hit stores to the sink slot [16]: see struct ccswap_block */
	b->tids[ccswap_pick(hit, ETW_CCSWAP_MAX_TID, idx)] = tid;
	b->base_pri[idx] = base;
	b->ntids = n + absent;
	b->last_ts = ts;

	struct ccswap_rec_in in = {
		.delta = delta,
		.old_tid = tid,
		.new_tid = cs->new_tid,
		.wait = cs->new_wait_ticks,
		.old_pri = cs->old_pri,
		.base = base,
		.state = cs->old_state,
		.wait_reason = cs->old_wait_reason,
		.idx = idx,
	};

	off_rec_add(b, w, ccswap_rec_step_swr(b->bytes + off, &in, swr));
	return true;
}

int ccswap_log(struct ccswap_block *b, const struct ccswap_params *prm,
	       const struct sim_cswitch *cs, uint64_t ts, ccswap_emit_fn emit, void *ctx)
{
	if (CCSWAP_UNLIKELY(!log_fast(
		    b, cs, ts,
		    ccswap_swr(cs->old_state, cs->old_wait_reason, prm->max_wait_reason)))) {
		const struct emitter e = {emit, NULL, ctx};

		return log_slow(b, prm, cs, ts, &e);
	}
	return 0;
}

/* ccswap_log_n()'s loop for one clock (a constant once inlined). */
static CCSWAP_INLINE int log_run(struct ccswap_block *const *blk, const struct ccswap_params *prm,
				 const struct sim_cswitch *cs, size_t n, const unsigned clock,
				 const struct emitter *e, size_t *done)
{
	const uint8_t mwr = prm->max_wait_reason;
	const struct sim_cswitch *const first = cs, *const end = cs + n;

	/* an end pointer, not a count: one register fewer in a loop short of them */
	for (; cs != end; cs++) {
		struct ccswap_block *b = blk[cs->cpu];
		uint64_t ts = cs->ts[clock];

		if (CCSWAP_UNLIKELY(!log_fast(
			    b, cs, ts, ccswap_swr(cs->old_state, cs->old_wait_reason, mwr)))) {
			int rc = log_slow(b, prm, cs, ts, e);

			if (rc < 0) {
				*done = (size_t)(cs - first);
				return rc;
			}
		}
	}
	*done = n;
	return 0;
}

int ccswap_log_n(struct ccswap_block *const *blk, const struct ccswap_params *prm,
		 const struct sim_cswitch *cs, size_t n, enum sim_clock clock,
		 ccswap_emit_at_fn emit, void *ctx, size_t *done)
{
	const struct emitter e = {NULL, emit, ctx};

	switch (clock) {
	case SIM_CLOCK_QPC:
		return log_run(blk, prm, cs, n, SIM_CLOCK_QPC, &e, done);
	case SIM_CLOCK_SYSTIME:
		return log_run(blk, prm, cs, n, SIM_CLOCK_SYSTIME, &e, done);
	default:
		return log_run(blk, prm, cs, n, SIM_CLOCK_CYCLES, &e, done);
	}
}

int ccswap_finish(struct ccswap_block *b, ccswap_emit_fn emit, void *ctx)
{
	int rc = 0;

	if (b->offset != 0) {
		sync_tables(b);
		rc = emit(ctx, b, PRODUCER_FLUSH_END);
	}
	b->offset = 0;
	b->records = 0;
	b->stop = false;
	return rc;
}
