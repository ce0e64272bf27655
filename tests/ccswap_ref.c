// SPDX-License-Identifier: MIT
/*
 * tests/ccswap_ref.c - the reference batching engine (see ccswap_ref.h):
 * producer/ccswap.c as of d39b389 with its names prefixed, nothing else
 * changed. Do not optimize: its value is being obviously the kernel's steps.
 */
#include <errno.h>
#include <string.h>

#include "tests/ccswap_ref.h"
#include "producer/etw_encode.h"
#include "writer/etl_wire.h"

/* Offsets of the PERFINFO_CCSWAP_BUFFER inside the block (after the 0x10 header room). */
#define BLK_FIRST_TS  (ETL_TH_LEN + ETW_CCB_FIRST_TS)
#define BLK_TID_TABLE (ETL_TH_LEN + ETW_CCB_TID_TABLE)
#define BLK_BASE_PRI  (ETL_TH_LEN + ETW_CCB_BASE_PRI)

#define CCSWAP_TICK_LIMIT  500u
#define CCSWAP_DELTA_LIMIT 0x40000000
#define CCSWAP_WORST_REC   8u

void ccswap_ref_block_init(struct ccswap_ref_block *b)
{
	memset(b, 0, sizeof(*b));
}

static void clear_tids(struct ccswap_ref_block *b)
{
	memset(b->tids, 0, sizeof(b->tids));
	memset(b->bytes + BLK_TID_TABLE, 0, 4 * ETW_CCSWAP_MAX_TID);
}

static void start(struct ccswap_ref_block *b, uint64_t ts, uint32_t tick, bool clear_base_pri)
{
	b->offset = ETW_BATCH_FIXED_LEN;
	b->start_tick = tick;
	b->last_ts = ts;
	b->records = 0;
	put_le64(b->bytes + BLK_FIRST_TS, ts);
	clear_tids(b);
	if (clear_base_pri) {
		memset(b->bytes + BLK_BASE_PRI, 0, ETW_CCSWAP_MAX_TID);
	}
}

static void set_slot(struct ccswap_ref_block *b, unsigned i, uint32_t tid)
{
	b->tids[i] = tid;
	put_le32(b->bytes + BLK_TID_TABLE + 4 * i, tid);
}

/* Index of @tid, inserting it at the first empty slot; 16 if full and absent. */
static unsigned lookup_insert(struct ccswap_ref_block *b, uint32_t tid, int8_t base_pri)
{
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		if (b->tids[i] == tid) {
			return i;
		}
		if (b->tids[i] == 0) {
			set_slot(b, i, tid);
			b->bytes[BLK_BASE_PRI + i] = (uint8_t)base_pri;
			return i;
		}
	}
	return ETW_CCSWAP_MAX_TID;
}

/* Would @tid overflow the table? (lookup without insert, for quirks off) */
static bool table_full_for(const struct ccswap_ref_block *b, uint32_t tid)
{
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		if (b->tids[i] == tid || b->tids[i] == 0) {
			return false;
		}
	}
	return true;
}

static void encode_record(struct ccswap_ref_block *b, const struct ccswap_params *prm,
			  const struct sim_cswitch *cs, unsigned idx, int64_t delta)
{
	struct etw_ccswap_rec r = {0};

	r.delta = (uint32_t)delta; /* 30/17/14-bit fields wrap as the kernel's do */
	if (cs->old_tid == 0) {
		r.type = delta < 0x4000 ? ETW_CCSWAP_IDLE_SHORT : ETW_CCSWAP_IDLE;
	} else {
		uint32_t wait = cs->new_tid != 0 ? cs->new_wait_ticks : 0;
		int8_t base = (int8_t)b->bytes[BLK_BASE_PRI + idx];
		/* compared unsigned: a priority below the recorded base is never LITE */
		uint32_t inc = (uint32_t)((int32_t)cs->old_pri - (int32_t)base);

		r.tid_index = (uint8_t)idx;
		r.state_wr = etw_ccswap_state_wr(cs->old_state, cs->old_wait_reason,
						 prm->max_wait_reason);
		if (wait <= 1 && delta < 0x20000 && inc <= 7) {
			r.type = ETW_CCSWAP_LITE;
			r.pri_inc = (uint8_t)inc;
		} else {
			r.type = ETW_CCSWAP_FULL;
			r.priority = (uint8_t)cs->old_pri;
			r.wait_time = wait > ETW_CCSWAP_WAIT_SAT ? ETW_CCSWAP_WAIT_SAT : wait;
		}
	}
	int n = etw_encode_ccswap_rec(b->bytes + b->offset, ETW_BATCH_CAP - b->offset, &r,
				      ETW_ENC_WRAP);
	/* The flush test guarantees 8 bytes of room; the encoder cannot fail here. */
	if (n > 0) {
		b->offset += (uint32_t)n;
		b->records++;
	}
}

int ccswap_ref_log(struct ccswap_ref_block *b, const struct ccswap_params *prm,
		   const struct sim_cswitch *cs, uint64_t ts, ccswap_ref_emit_fn emit, void *ctx)
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
		full = cs->old_tid != 0 && table_full_for(b, cs->old_tid);
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
		int rc = emit(ctx, b, why);
		if (rc < 0) {
			return rc;
		}
		start(b, ts, cs->tick, !prm->quirks);
		b->stop = false;
		delta = 0;
		idx = 0;
		if (prm->quirks) {
			/* TidTable[0] = old TID; ThreadBasePriority[0] is not rewritten. */
			set_slot(b, 0, cs->old_tid);
		}
	}
	if (!prm->quirks && cs->old_tid != 0) {
		idx = lookup_insert(b, cs->old_tid, cs->old_base_pri);
	}

	encode_record(b, prm, cs, idx, delta);
	b->last_ts = ts;
	return 0;
}

int ccswap_ref_finish(struct ccswap_ref_block *b, ccswap_ref_emit_fn emit, void *ctx)
{
	int rc = 0;

	if (b->offset != 0) {
		rc = emit(ctx, b, PRODUCER_FLUSH_END);
	}
	b->offset = 0;
	b->records = 0;
	b->stop = false;
	return rc;
}
