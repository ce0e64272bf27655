/* SPDX-License-Identifier: MIT */
/*
 * tests/ccswap_ref.h - the batching engine as it was before the fast path
 * (producer/ccswap.c at d39b389): a serial TidTable scan, the kernel's steps
 * in order, every record through etw_encode_ccswap_rec(). Kept as the
 * oracle the optimized engine is held against, switch for switch.
 */
#ifndef TESTS_CCSWAP_REF_H
#define TESTS_CCSWAP_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/ccswap.h"

/** struct ccswap_ref_block - the old block layout (see struct ccswap_block). */
struct ccswap_ref_block {
	uint32_t offset;
	uint32_t start_tick;
	uint64_t last_ts;
	bool stop;
	uint32_t records;
	uint32_t tids[ETW_CCSWAP_MAX_TID];
	uint8_t bytes[ETW_BATCH_CAP];
};

/** ccswap_ref_emit_fn - as ccswap_emit_fn, for the old block. */
typedef int (*ccswap_ref_emit_fn)(void *ctx, const struct ccswap_ref_block *b,
				  enum producer_flush_reason reason);

/** ccswap_ref_block_init - as ccswap_block_init(). */
void ccswap_ref_block_init(struct ccswap_ref_block *b);

/** ccswap_ref_log - as ccswap_log(). Return: 0 or the emitter's error. */
int ccswap_ref_log(struct ccswap_ref_block *b, const struct ccswap_params *prm,
		   const struct sim_cswitch *cs, uint64_t ts, ccswap_ref_emit_fn emit, void *ctx);

/** ccswap_ref_finish - as ccswap_finish(). Return: 0 or the emitter's error. */
int ccswap_ref_finish(struct ccswap_ref_block *b, ccswap_ref_emit_fn emit, void *ctx);

#endif /* TESTS_CCSWAP_REF_H */
