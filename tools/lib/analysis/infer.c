// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/infer.c - why a compact batch was flushed and why a
 * spin lock was logged, inferred from what the file keeps (see infer.h).
 *
 * The kernel's flush test runs at a switch, before that
 * switch's record is added; the batch it closes is the one before. What of
 * each condition survives in the file:
 *
 *   TID table  the batch's TidTable (16 entries) and the flushing switch's
 *              old TID (the first record of the next batch): exact
 *   ticks      not stored; FirstTimeStamp of this batch and of the next
 *              give the span, and ticks come every TimerResolution: exact
 *              outside (500, 501) ticks, where the tick phase decides
 *   size       Offset = 0x68 + the bytes of records: exact
 *   delta      the next batch's FirstTimeStamp - this batch's last switch:
 *              exact
 *   stop       leaves no trace: unknown
 */
#include "tools/lib/analysis/infer.h"

#define BATCH_HEADER_END 0x68u	     /* trace header 0x10 + PERFINFO_CCSWAP_BUFFER 0x58 */
#define BATCH_CAP	 0x400u	     /* the block, trace header included */
#define WORST_RECORD	 8u	     /* the flush test assumes a FULL record */
#define TICK_LIMIT	 500u	     /* now_tick - StartTick > 500 */
#define DELTA_LIMIT	 0x40000000u /* delta > 0x40000000 */
#define TID_SLOTS	 16u

static bool in_table(const struct flush_evidence *e, uint32_t tid)
{
	for (unsigned i = 0; i < e->tids && i < TID_SLOTS; i++) {
		if (e->tid_table[i] == tid) {
			return true;
		}
	}
	return false;
}

enum etwforge_flush_seen infer_flush(const struct flush_evidence *e)
{
	bool size = BATCH_HEADER_END + e->record_bytes + WORST_RECORD > BATCH_CAP;
	bool delta = e->delta > DELTA_LIMIT;
	bool ticks_sure = false, ticks_maybe = false;

	if (e->at_end) {
		return ETWFORGE_FLUSH_END;
	}
	if (e->tids >= TID_SLOTS) {
		if (!e->flusher_known) {
			return ETWFORGE_FLUSH_UNKNOWN; /* the first rule cannot be excluded */
		}
		if (e->flusher_old_tid != 0 && !in_table(e, e->flusher_old_tid)) {
			return ETWFORGE_FLUSH_TID_FULL;
		}
	}
	if (e->tick_ns) {
		/* ticks elapsed lie in [floor(span / tick), ceil(span / tick)] */
		ticks_sure = e->span_ns / e->tick_ns > TICK_LIMIT;
		ticks_maybe = !ticks_sure && e->span_ns > (uint64_t)TICK_LIMIT * e->tick_ns;
	}
	if (ticks_sure) {
		return ETWFORGE_FLUSH_TICKS;
	}
	if (size) {
		return ETWFORGE_FLUSH_SIZE;
	}
	if (delta) {
		return ETWFORGE_FLUSH_DELTA;
	}
	return ticks_maybe ? ETWFORGE_FLUSH_TICKS : ETWFORGE_FLUSH_UNKNOWN;
}

const char *infer_flush_name(unsigned r)
{
	static const char *const names[ETWFORGE_FLUSH_SEEN] = {
		"tid_full", "ticks", "size", "delta", "end", "unknown",
	};
	return r < ETWFORGE_FLUSH_SEEN ? names[r] : NULL;
}

const char *infer_flush_label(unsigned r)
{
	static const char *const labels[ETWFORGE_FLUSH_SEEN] = {
		"TID table full", "> 500 ticks",  "size (0x400)",
		"delta > 2^30",	  "end of trace", "unknown (stop, loss)",
	};
	return r < ETWFORGE_FLUSH_SEEN ? labels[r] : NULL;
}

enum etwforge_spin_seen infer_spin(const struct etwforge_spinlock *l,
				   const struct etwforge_spinlock_config *cfg)
{
	uint32_t held = (uint32_t)(l->release_time - l->acquire_time);

	if (cfg->hold_threshold != 0 && held > cfg->hold_threshold) {
		return ETWFORGE_SPIN_HOLD;
	}
	if (l->spin_count >= cfg->spin_threshold) {
		return ETWFORGE_SPIN_CONTENDED;
	}
	return ETWFORGE_SPIN_SAMPLED;
}

const char *infer_spin_name(unsigned k)
{
	static const char *const names[ETWFORGE_SPIN_SEEN] = {"hold", "contended", "sampled"};

	return k < ETWFORGE_SPIN_SEEN ? names[k] : NULL;
}
