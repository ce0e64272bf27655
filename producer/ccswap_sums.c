// SPDX-License-Identifier: MIT
/*
 * producer/ccswap_sums.c - a compact batch summed per TidTable slot (see
 * ccswap_sums.h): one pass over its records, a record at a time, reading
 * only its form, its delta and its slot (the masks of etw_layout.h), never
 * building a switch.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "producer/ccswap_sums.h"
#include "producer/etw_layout.h"
#include "writer/etl_wire.h"

/* Bytes of a record of form @t: IDLE_SHORT 2, IDLE 4, LITE 4, FULL 8. */
#define REC_LEN(t) ((size_t)2u << (((t) + 1u) >> 1))

/* Per form (IDLE_SHORT, IDLE, LITE, FULL): the delta's shift and width (etw_layout.h). */
static const uint8_t delta_shift[4] = {2, 2, 15, 2};
static const uint32_t delta_mask[4] = {
	ETW_CCIS_DELTA >> 2,
	ETW_CCI_DELTA >> 2,
	ETW_CCL_DELTA >> 15,
	ETW_CCF_DELTA >> 2,
};
static_assert((ETW_CCIS_DELTA & 3u) == 0 && (ETW_CCI_DELTA & 3u) == 0 &&
		      (ETW_CCF_DELTA & 3u) == 0 && (ETW_CCL_DELTA & 0x7FFFu) == 0,
	      "the deltas start at bits 2, 2, 15, 2");

/*
 * One record at @p (its first 4 bytes readable; FULL: 8): its form *@t,
 * delta, and slot (ETW_CCSWAP_IDLE_SLOT for the idle forms).
 */
static inline uint32_t record_at(const uint8_t *p, unsigned *t, unsigned *slot)
{
	uint32_t w = get_le32(p);
	unsigned f = w & ETW_CCSWAP_TYPE_MASK;

	*t = f;
	*slot = f == ETW_CCSWAP_LITE   ? FIELD_GET(ETW_CCL_TID_INDEX, w)
		: f == ETW_CCSWAP_FULL ? FIELD_GET(ETW_CCF_TID_INDEX, p[4])
				       : ETW_CCSWAP_IDLE_SLOT;
	return (w >> delta_shift[f]) & delta_mask[f];
}

int etw_ccswap_sum(const uint8_t *payload, size_t len, uint64_t prev, enum etw_ccswap_first first,
		   struct etw_ccswap_sums *s, size_t *bad_offset)
{
	uint32_t empty = 0; /* bit i: TidTable[i] is 0 */
	uint64_t ts, n = 0;
	size_t pos = ETW_CCB_LEN;

	if (etw_decode_ccswap_buffer(payload, len, &s->hdr) < 0) {
		*bad_offset = 0;
		return -EINVAL;
	}
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		empty |= (uint32_t)(s->hdr.tid_table[i] == 0) << i;
	}
	ts = (uint64_t)s->hdr.first_ts;
	while (pos < len) {
		const uint8_t *p = payload + pos;
		unsigned t, slot;
		uint32_t delta;
		uint64_t span;

		if (len - pos >= 8) {
			delta = record_at(p, &t, &slot); /* any form's record is inside */
		} else {
			uint8_t tail[8] = {0};

			t = p[0] & ETW_CCSWAP_TYPE_MASK;
			if (REC_LEN(t) > len - pos) {
				break;
			}
			memcpy(tail, p, len - pos);
			delta = record_at(tail, &t, &slot);
		}
		if (slot < ETW_CCSWAP_IDLE_SLOT && ((empty >> slot) & 1u)) {
			break;
		}
		ts += delta;
		span = ts > prev ? ts - prev : 0;
		if (n == 0 && first == ETW_CCSWAP_FIRST_UNKNOWN) {
			s->unknown += span;
		} else {
			if (!((s->seen >> slot) & 1u)) {
				s->seen |= 1u << slot;
				s->first_at[slot] = prev;
			}
			s->last_at[slot] = prev;
			s->ticks[slot] += span;
			s->ins[slot]++;
		}
		prev = ts;
		n++;
		pos += REC_LEN(t);
	}
	/* the first record's thread was switched in at @prev only after a switch that said so */
	if (n && first == ETW_CCSWAP_FIRST_RUNNING) {
		unsigned t, slot;
		uint8_t head[8] = {0};

		memcpy(head, payload + ETW_CCB_LEN, len - ETW_CCB_LEN < 8 ? len - ETW_CCB_LEN : 8);
		record_at(head, &t, &slot);
		s->ins[slot]--;
	}
	for (unsigned k = 0; k < ETW_CCSWAP_SLOTS; k++) {
		s->last_in[k] = s->last_at[k];
	}
	s->records += n;
	s->last_ts = n ? ts : s->last_ts;
	if (pos < len) {
		*bad_offset = pos;
		return -EINVAL;
	}
	return 0;
}
