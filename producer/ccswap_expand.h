/* SPDX-License-Identifier: MIT */
/*
 * producer/ccswap_expand.h - expand a compact CSwitch batch (0x0525) back into
 * the switches it records: the inverse of producer/ccswap.c. What the
 * compact form cannot carry (new thread's priority, ideal processor, wait
 * mode, quantum, C-state...) is left out, never invented; the new thread of
 * a switch is the old thread of the next switch on that CPU, which the
 * caller pairs up (tools/lib/event_stream.h does).
 */
#ifndef PRODUCER_CCSWAP_EXPAND_H
#define PRODUCER_CCSWAP_EXPAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_encode.h"

/**
 * struct etw_cswitch_compact - one switch recovered from a batch.
 * @ts:          FirstTimeStamp + running sum of deltas
 * @form:        the record form
 * @old_tid:     TidTable[index], 0 for the idle forms
 * @tid_index:   the record's OldThreadIdIndex (LITE/FULL)
 * @old_pri:     FULL: the 5-bit priority; LITE: ThreadBasePriority[idx] + inc
 * @state_wr:    raw OldThreadStateWr (LITE/FULL)
 * @old_state/@old_wait_reason: split with the target's MaximumWaitReason
 * @wait_time:   FULL: NewThreadWaitTime (saturated at 0x1FFFF); LITE: the
 *               kernel only tells it is <= 1, reported as 1 with @wait_le1
 * @delta:       the record's TimeDelta
 * @index:       record number inside the batch (0-based)
 * @rec_offset:  byte offset of the record inside the payload
 */
struct etw_cswitch_compact {
	uint64_t ts;
	enum etw_ccswap_type form;
	uint32_t old_tid;
	uint8_t tid_index;
	int8_t old_pri;
	uint8_t state_wr;
	uint8_t old_state;
	uint8_t old_wait_reason;
	uint32_t wait_time;
	bool wait_le1;
	uint32_t delta;
	unsigned index;
	size_t rec_offset;
};

/** struct etw_ccswap_iter - walks the records of one batch payload. */
struct etw_ccswap_iter {
	struct etw_ccswap_buffer hdr;
	const uint8_t *payload;
	size_t len;
	size_t pos;
	uint64_t ts;
	unsigned index;
	uint8_t max_wait_reason;
};

/**
 * etw_ccswap_expand_begin - parse the PERFINFO_CCSWAP_BUFFER at the start of a
 * 0x0525 payload (after any PMC items).
 * Return: 0, or -EINVAL if @len < 0x58.
 */
int etw_ccswap_expand_begin(struct etw_ccswap_iter *it, const uint8_t *payload, size_t len,
			    uint8_t max_wait_reason);

/**
 * etw_ccswap_expand_next - the next switch of the batch.
 * Return: 1 with *@out filled, 0 at the end, -EINVAL when a record runs past
 * the payload or names an empty TidTable slot (*@bad_offset = its offset
 * inside the payload).
 */
int etw_ccswap_expand_next(struct etw_ccswap_iter *it, struct etw_cswitch_compact *out,
			   size_t *bad_offset);

/**
 * etw_ccswap_count_forms - count the switches of a 0x0525 payload (after any
 * PMC items) by record form, without expanding them: what `dump --stats`
 * needs. Checks what etw_ccswap_expand_next() checks, in one pass.
 * @counts: added to, indexed by enum etw_ccswap_type
 * Return: 0; -EINVAL if @len < 0x58 (nothing counted, *@bad_offset = 0), or
 * when a record runs past the payload or names an empty TidTable slot
 * (*@bad_offset = its offset inside the payload; the records before it are
 * counted).
 */
int etw_ccswap_count_forms(const uint8_t *payload, size_t len, uint64_t counts[4],
			   size_t *bad_offset);

/** etw_ccswap_form_name - "idle_short", "idle", "lite", "full". */
const char *etw_ccswap_form_name(enum etw_ccswap_type t);

/**
 * etw_target_max_wait_reason - MaximumWaitReason of the newest known
 * target not newer than @build (39 before any known target).
 */
uint8_t etw_target_max_wait_reason(uint32_t build);

#endif /* PRODUCER_CCSWAP_EXPAND_H */
