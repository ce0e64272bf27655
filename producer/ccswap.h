/* SPDX-License-Identifier: MIT */
/*
 * producer/ccswap.h - one compact-CSwitch batch block, for one (CPU, clock
 * type): the kernel's EtwpCCSwapTrace and its flush rules
 * (KERNEL_FACTS 1.2), independent of sessions and buffers.
 */
#ifndef PRODUCER_CCSWAP_H
#define PRODUCER_CCSWAP_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/flush_reason.h"
#include "producer/trace_sink.h"

/**
 * struct ccswap_block - the kernel's 0x400-byte block and its bookkeeping.
 * @bytes holds the event exactly as it will be emitted from offset 0x10 on:
 * [0x00, 0x10) room for the trace header (written by the emitter),
 * [0x10, 0x68) PERFINFO_CCSWAP_BUFFER, [0x68, @offset) packed records.
 * The TidTable and ThreadBasePriority in @bytes are written from @tids and
 * @base_pri when the batch is emitted (the only time anyone reads them);
 * FirstTimeStamp and the records are written in place.
 * @offset:     bytes used from the block start; 0 = not started. Equals the
 *              event Size (without PMC items), so the 0x400 cap includes
 *              the trace header
 * @records:    records in the pending batch
 * @start_tick: TickCount when the batch started
 * @ntids:      TidTable slots in use: they are always a prefix (0..16)
 * @last_ts:    clock value of the previous record
 * @stop:       EtwpCCSwapStop was called: flush at the next switch
 * @tids:       native TidTable (0 = empty), 16-byte aligned for the
 *              16-lane lookup; [16] is no slot but where the fast path
 *              stores a TID that is already in the table (never read: a
 *              store to the slot itself would stall the next lookup of
 *              this block, whose 16-byte loads cannot take a pending
 *              4-byte store)
 * @base_pri:   native ThreadBasePriority, stale slots included (quirk)
 */
struct ccswap_block {
	uint32_t offset;
	uint32_t records;
	uint32_t start_tick;
	uint32_t ntids;
	uint64_t last_ts;
	bool stop;
	alignas(16) uint32_t tids[ETW_CCSWAP_MAX_TID + 1];
	int8_t base_pri[ETW_CCSWAP_MAX_TID];
	uint8_t bytes[ETW_BATCH_CAP];
};

/** struct ccswap_params - what the block needs to know of the target. */
struct ccswap_params {
	uint8_t max_wait_reason;
	bool quirks;
};

/**
 * ccswap_emit_fn - called with the closed batch before the block restarts:
 * @b->bytes[0x10, @b->offset) is the payload, @reason why it closed.
 * Return: 0 or a negative errno that aborts the switch.
 */
typedef int (*ccswap_emit_fn)(void *ctx, const struct ccswap_block *b,
			      enum producer_flush_reason reason);

/**
 * ccswap_emit_at_fn - ccswap_emit_fn for ccswap_log_n(), told the switch @cs
 * whose arrival closed the batch (NULL: ccswap_finish_at(), the end).
 */
typedef int (*ccswap_emit_at_fn)(void *ctx, const struct ccswap_block *b,
				 enum producer_flush_reason reason, const struct sim_cswitch *cs);

/** ccswap_block_init - zeroed block, not started (base priorities start at zero). */
void ccswap_block_init(struct ccswap_block *b);

/**
 * ccswap_log - add one switch with timestamp @ts in this block's clock,
 * flushing first when a rule says so.
 * Return: 0 or the emitter's error.
 */
int ccswap_log(struct ccswap_block *b, const struct ccswap_params *prm,
	       const struct sim_cswitch *cs, uint64_t ts, ccswap_emit_fn emit, void *ctx);

/**
 * ccswap_log_n - ccswap_log() for the @n switches at @cs in order, each into
 * the block of its CPU, @blk[cs->cpu], with its timestamp of
 * @clock: a run of switches in one call, the per-switch state kept in
 * registers where ccswap_log() would reload it (bytes identical to @n calls
 * of ccswap_log(); the test ccswap_fast holds the two to each other).
 * @done: the switches logged (all @n unless the emitter failed)
 * Return: 0, or the emitter's error at switch *@done.
 */
int ccswap_log_n(struct ccswap_block *const *blk, const struct ccswap_params *prm,
		 const struct sim_cswitch *cs, size_t n, enum sim_clock clock,
		 ccswap_emit_at_fn emit, void *ctx, size_t *done);

/**
 * ccswap_finish - end of tracing: emit the pending batch (if any) with
 * reason PRODUCER_FLUSH_END and reset the block. Return: as ccswap_log.
 */
int ccswap_finish(struct ccswap_block *b, ccswap_emit_fn emit, void *ctx);

#endif /* PRODUCER_CCSWAP_H */
