/* SPDX-License-Identifier: MIT */
/*
 * producer/ccswap_sums.h - a compact CSwitch batch (0x0525) summed per
 * TidTable slot without expanding it into switches (ccswap_sums.c): for
 * each thread of the batch, how long it ran before each of its switches
 * out, how often it was switched in and when last. What a reader that
 * needs times per thread, not each switch, asks (the analysis's counts).
 *
 * Record i of a batch switches out its old thread at ts_i; that thread ran
 * from the switch before (ts_(i-1), or the caller's @prev for the first
 * record) and was switched in there. Slot 16 is the idle thread (the idle
 * forms' old thread).
 */
#ifndef PRODUCER_CCSWAP_SUMS_H
#define PRODUCER_CCSWAP_SUMS_H

#include <stddef.h>
#include <stdint.h>

#include "producer/etw_encode.h"

#define ETW_CCSWAP_SLOTS     17u /* TidTable[0..15], and the idle thread */
#define ETW_CCSWAP_IDLE_SLOT 16u

/* What the span before a batch's first record is (etw_ccswap_sum() @first). */
enum etw_ccswap_first {
	ETW_CCSWAP_FIRST_RAN,	  /* its old thread ran, switched in at @prev */
	ETW_CCSWAP_FIRST_RUNNING, /* its old thread ran since @prev, not switched in there */
	ETW_CCSWAP_FIRST_UNKNOWN, /* nobody knows who ran: the span is @unknown */
};

/**
 * struct etw_ccswap_sums - what etw_ccswap_sum() adds up (zero it first;
 * it adds to it).
 * @hdr:     the batch's header (TidTable, FirstTimeStamp)
 * @ticks:   per slot, clock units its thread ran
 * @ins:     per slot, times its thread was switched in
 * @last_in: per slot, the latest time it was (valid where @ins is not 0)
 * @first_at: per slot, when its first span began (its last: @last_in)
 * @seen:    bit per slot: its thread ran in the batch (@ticks, @ins,
 *           @last_in, @first_at of the others hold nothing to read: zeros,
 *           or what was there)
 * @unknown: clock units nobody is known to have run
 * @forms:   switches by record form (IDLE_SHORT, IDLE, LITE, FULL)
 * @records: switches of the batch
 * @first:   the time the batch's span began (the caller's @prev)
 * @last_ts: the time of its last switch
 */
struct etw_ccswap_sums {
	struct etw_ccswap_buffer hdr;
	uint64_t ticks[ETW_CCSWAP_SLOTS];
	uint64_t ins[ETW_CCSWAP_SLOTS];
	uint64_t last_in[ETW_CCSWAP_SLOTS];
	uint64_t first_at[ETW_CCSWAP_SLOTS];
	uint32_t seen;
	uint64_t unknown;
	uint64_t forms[4];
	uint64_t records;
	uint64_t first;
	uint64_t last_ts;
};

/**
 * etw_ccswap_sum - sum the batch payload @payload (@len bytes, after any
 * PMC items) into @s (which it fills: no need to clear it); @prev is the
 * time of the CPU's switch before the batch, @first what that span is. A
 * span that would run backwards (the first record before @prev) counts 0.
 * Return: 0; -EINVAL if @len < 0x58, or when a record runs past the
 * payload or names an empty TidTable slot (*@bad_offset its offset inside
 * the payload; @s then holds the records before it).
 */
int etw_ccswap_sum(const uint8_t *payload, size_t len, uint64_t prev, enum etw_ccswap_first first,
		   struct etw_ccswap_sums *s, size_t *bad_offset);

#endif /* PRODUCER_CCSWAP_SUMS_H */
