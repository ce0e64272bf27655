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

/*
 * The careful walk (a record at a time, its length checked before it is
 * read): where the fast one cannot go. Return: the offset of the first bad
 * record (past @len or naming an empty slot), or @len.
 */
static size_t first_bad(const uint8_t *payload, size_t len, uint32_t empty)
{
	size_t pos = ETW_CCB_LEN;

	while (pos < len) {
		unsigned t = payload[pos] & ETW_CCSWAP_TYPE_MASK, slot;
		uint8_t rec[8] = {0};

		if (REC_LEN(t) > len - pos) {
			return pos;
		}
		memcpy(rec, payload + pos, REC_LEN(t));
		record_at(rec, &t, &slot);
		if (slot < ETW_CCSWAP_IDLE_SLOT && ((empty >> slot) & 1u)) {
			return pos;
		}
		pos += REC_LEN(t);
	}
	return len;
}

#define COUNT_SHIFT 48 /* a slot's running sum: its spans below, its records above */
#define TICKS_MASK  ((UINT64_C(1) << COUNT_SHIFT) - 1)
static_assert((UINT64_C(0x3FFFFFFF) * 512) < (UINT64_C(1) << COUNT_SHIFT),
	      "a batch's spans of one thread (at most 512 records of 2^30) stay below the count");

/* The records of sum_records() so far, in registers and on the stack. */
struct run {
	uint64_t acc[ETW_CCSWAP_SLOTS]; /* spans + (records << COUNT_SHIFT) */
	uint64_t at[ETW_CCSWAP_SLOTS];	/* the last span's start */
	uint64_t first_at[ETW_CCSWAP_SLOTS];
	uint32_t seen, bad;
	uint64_t ts, n, hi, odd, full; /* forms: all, LITE or FULL, IDLE or FULL, FULL */
};

/* One record of form @t: @delta the span of thread @slot, switched in at r->ts. */
static inline void run_add(struct run *r, uint32_t empty, unsigned t, unsigned slot, uint32_t delta)
{
	uint32_t bit = 1u << slot;

	r->bad |= empty & bit; /* the idle slot's bit (16) is never set in @empty */
	if (!(r->seen & bit)) {
		r->seen |= bit;
		r->first_at[slot] = r->ts;
	}
	r->acc[slot] += delta | UINT64_C(1) << COUNT_SHIFT;
	r->at[slot] = r->ts;
	r->ts += delta;
	r->n++;
	r->hi += t >> 1;
	r->odd += t & 1u;
	r->full += (t >> 1) & t;
}

/*
 * The records after the first, from @pos to @len (each one's span its delta,
 * its thread switched in at the time before it), added to @s from *@ts.
 * Eight bytes are read at each record while eight are left; the last few
 * a record at a time. Return: true when every record was whole and named a
 * used slot (else the sums hold garbage past the damage: walk again to it).
 */
static bool sum_records(const uint8_t *payload, size_t pos, size_t len, uint32_t empty,
			struct etw_ccswap_sums *s, uint64_t *ts)
{
	struct run r;
	unsigned t, slot;

	memset(r.acc, 0, sizeof(r.acc));
	r.seen = r.bad = 0;
	r.ts = *ts;
	r.n = r.hi = r.odd = r.full = 0;
	while (len - pos >= 8 && pos < len) {
		uint32_t delta = record_at(payload + pos, &t, &slot);

		run_add(&r, empty, t, slot, delta);
		pos += REC_LEN(t);
	}
	while (pos < len) {
		uint8_t rec[8] = {0};
		uint32_t delta;

		t = payload[pos] & ETW_CCSWAP_TYPE_MASK;
		if (REC_LEN(t) > len - pos) {
			return false;
		}
		memcpy(rec, payload + pos, REC_LEN(t));
		delta = record_at(rec, &t, &slot);
		run_add(&r, empty, t, slot, delta);
		pos += REC_LEN(t);
	}
	for (unsigned k = 0; k < ETW_CCSWAP_SLOTS; k++) {
		if (!((r.seen >> k) & 1u)) {
			continue;
		}
		if (!((s->seen >> k) & 1u)) {
			s->seen |= 1u << k;
			s->ticks[k] = 0;
			s->ins[k] = 0;
			s->first_at[k] = r.first_at[k];
		}
		s->ticks[k] += r.acc[k] & TICKS_MASK;
		s->ins[k] += r.acc[k] >> COUNT_SHIFT;
		s->last_in[k] = r.at[k];
	}
	s->forms[ETW_CCSWAP_FULL] += r.full;
	s->forms[ETW_CCSWAP_LITE] += r.hi - r.full;
	s->forms[ETW_CCSWAP_IDLE] += r.odd - r.full;
	s->forms[ETW_CCSWAP_IDLE_SHORT] += r.n - r.hi - r.odd + r.full;
	s->records += r.n;
	*ts = r.ts;
	return !r.bad;
}

int etw_ccswap_sum(const uint8_t *payload, size_t len, uint64_t prev, enum etw_ccswap_first first,
		   struct etw_ccswap_sums *s, size_t *bad_offset)
{
	uint32_t empty = 0; /* bit i: TidTable[i] is 0 */
	size_t end = len, pos = ETW_CCB_LEN;
	uint64_t ts;

	if (etw_decode_ccswap_buffer(payload, len, &s->hdr) < 0) {
		*bad_offset = 0;
		return -EINVAL;
	}
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		empty |= (uint32_t)(s->hdr.tid_table[i] == 0) << i;
	}
	for (int pass = 0; pass < 2; pass++) {
		s->seen = 0;
		s->unknown = 0;
		s->records = 0;
		s->first = prev;
		memset(s->forms, 0, sizeof(s->forms));
		ts = (uint64_t)s->hdr.first_ts;
		pos = ETW_CCB_LEN;
		if (pos < end && REC_LEN(payload[pos] & ETW_CCSWAP_TYPE_MASK) <= end - pos) {
			/* the first record: its span began at @prev, whoever ran it */
			uint8_t rec[8] = {0};
			unsigned t, slot;
			uint64_t span;

			memcpy(rec, payload + pos, REC_LEN(payload[pos] & ETW_CCSWAP_TYPE_MASK));
			ts += record_at(rec, &t, &slot);
			if ((empty >> slot) & 1u) {
				end = pos; /* the first record names an empty slot: nothing counts */
				continue;
			}
			span = ts > prev ? ts - prev : 0;
			s->forms[t]++;
			s->records++;
			pos += REC_LEN(t);
			if (first == ETW_CCSWAP_FIRST_UNKNOWN) {
				s->unknown = span;
			} else {
				s->seen = 1u << slot;
				s->ticks[slot] = span;
				s->ins[slot] = first == ETW_CCSWAP_FIRST_RAN;
				s->last_in[slot] = prev;
				s->first_at[slot] = prev;
			}
		} else if (pos < end) {
			end = pos; /* the first record is damaged: nothing counts */
			continue;
		}
		if (pos >= end || sum_records(payload, pos, end, empty, s, &ts)) {
			break;
		}
		/* damage: the records before it count; sum them again, up to it */
		end = first_bad(payload, len, empty);
	}
	s->last_ts = s->records ? ts : prev;
	if (end < len) {
		*bad_offset = end;
		return -EINVAL;
	}
	return 0;
}
