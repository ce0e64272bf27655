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

#include "producer/ccswap_internal.h"
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

/*
 * Per form, where a record's slot lies in its first eight bytes read as one
 * little-endian word: LITE bits [5:2], FULL dword 1 bits [3:0]; the idle
 * forms name the idle slot (shift and mask nothing, or 16 in).
 */
static const uint8_t slot_shift[4] = {0, 0, 2, 32};
static const uint8_t slot_mask[4] = {0, 0, 0xF, 0xF};
static const uint8_t slot_or[4] = {ETW_CCSWAP_IDLE_SLOT, ETW_CCSWAP_IDLE_SLOT, 0, 0};
static_assert(ETW_CCSWAP_SLOTS == 17, "sum_records() clears 17 sums");
static_assert(ETW_CCL_TID_INDEX == 0xFu << 2 && ETW_CCF_TID_INDEX == 0xFu,
	      "the TID index: LITE bits [5:2], FULL dword 1 bits [3:0]");

/* Per form, 1 in its 16-bit lane of struct run's @forms. */
static const uint64_t form_one[4] = {1, UINT64_C(1) << 16, UINT64_C(1) << 32, UINT64_C(1) << 48};

#define COUNT_SHIFT 48 /* a slot's running sum: its spans below, its records above */
#define TICKS_MASK  ((UINT64_C(1) << COUNT_SHIFT) - 1)
#define NOT_FIRST   ETW_CCSWAP_SLOTS /* where a slot's later spans' starts go */
static_assert((UINT64_C(0x3FFFFFFF) * 32768) < (UINT64_C(1) << COUNT_SHIFT),
	      "a batch's spans of one thread (fewer than 32768 records in a record's 64 KiB, "
	      "each at most 2^30) stay below the count");

/* The records of sum_records() so far, in registers and on the stack. */
struct run {
	uint64_t acc[ETW_CCSWAP_SLOTS];		 /* spans + (records << COUNT_SHIFT) */
	uint64_t at[ETW_CCSWAP_SLOTS];		 /* the last span's start */
	uint64_t first_at[ETW_CCSWAP_SLOTS + 1]; /* the first span's start; [NOT_FIRST] none's */
	uint32_t seen;
	uint64_t ts;
	uint64_t forms; /* records by form, one 16-bit lane each */
};

/*
 * One record, its first eight bytes @x (form in bits 1:0): its span (delta)
 * to its slot's sums; its thread switched in at r->ts. No branch: a slot's
 * first span's start goes to its place, a later one's to NOT_FIRST.
 */
static inline size_t run_add(struct run *r, uint64_t x)
{
	unsigned t = (unsigned)x & ETW_CCSWAP_TYPE_MASK;
	uint32_t delta = ((uint32_t)x >> delta_shift[t]) & delta_mask[t];
	unsigned slot = ((unsigned)(x >> slot_shift[t]) & slot_mask[t]) | slot_or[t];
	uint32_t bit = 1u << slot;

	r->first_at[(r->seen & bit) ? NOT_FIRST : slot] = r->ts;
	r->seen |= bit;
	r->acc[slot] += delta | UINT64_C(1) << COUNT_SHIFT;
	r->at[slot] = r->ts;
	r->ts += delta;
	r->forms += form_one[t];
	return REC_LEN(t);
}

/*
 * A busy record's span @delta, begun at @ts, to its @slot: as run_add()
 * does, but a slot's first span found by its sum being zero (its bit in
 * @r->seen is set after the loop), and the record counted by an add (the
 * span is far below COUNT_SHIFT): each form of sum_records() runs it
 * straight through.
 */
static inline void busy_add(struct run *r, unsigned slot, uint32_t delta, uint64_t ts)
{
	r->first_at[r->acc[slot] ? NOT_FIRST : slot] = ts;
	r->acc[slot] += delta + (UINT64_C(1) << COUNT_SHIFT);
	r->at[slot] = ts;
}

/*
 * The records after the first, from @pos to @len (each one's span its delta,
 * its thread switched in at the time before it), added to @s from *@ts.
 * Eight bytes are read at each record while eight are left; the last few
 * a record at a time (run_add()). The idle forms' slot (every other record
 * of a busy CPU) is summed in registers, and each form has its own short
 * path: the form is the only branch, and the pattern of forms is regular
 * enough to be predicted. Return: true when every record was whole and
 * named a used slot (else the sums hold garbage past the damage: walk
 * again to it).
 */
static bool sum_records(const uint8_t *payload, size_t pos, size_t len, uint32_t empty,
			struct etw_ccswap_sums *s, uint64_t *ts)
{
	struct run r;
	/* the first record's slot's sums (@s->seen), read where written */
	uint64_t had_ticks[ETW_CCSWAP_SLOTS], had_ins[ETW_CCSWAP_SLOTS];
	uint64_t had_first[ETW_CCSWAP_SLOTS], had_last[ETW_CCSWAP_SLOTS];
	uint32_t seen, busy = 0;
	uint64_t ts_now = *ts, idle_t = 0, idle_at = 0, idle_first = 0, n_idle_all = 0;
	uint64_t n_idle = 0, n_full = 0, n_lite;
	const size_t from = pos;

	/*
	 * Element by element: a memset() of 136 bytes costs a batch more (rep
	 * stos). The times too, so the slots not seen copy out as zeros.
	 */
	for (unsigned k = 0; k < ETW_CCSWAP_SLOTS; k++) {
		r.acc[k] = r.at[k] = r.first_at[k] = 0;
	}
	for (size_t last = len >= 8 ? len - 8 : 0; len >= 8 && pos <= last;) {
		uint64_t x = get_le64(payload + pos);
		uint32_t w = (uint32_t)x, delta;

		/*
		 * Tests, not a switch: compilers make a switch a jump table
		 * (seven operations a record before any work); the idle short
		 * form (every other record of a busy CPU) is tested first.
		 */
		if ((w & ETW_CCSWAP_TYPE_MASK) == ETW_CCSWAP_IDLE_SHORT) {
			delta = (uint16_t)w >> 2; /* (w & ETW_CCIS_DELTA) >> 2 */
			idle_first = n_idle_all ? idle_first : ts_now;
			idle_t += delta;
			n_idle_all++;
			idle_at = ts_now;
			ts_now += delta;
			pos += 2;
			continue;
		}
		if ((w & ETW_CCSWAP_TYPE_MASK) == ETW_CCSWAP_LITE) {
			delta = w >> 15;
			busy_add(&r, (w >> 2) & 0xFu, delta, ts_now);
			ts_now += delta;
			pos += 4;
			continue;
		}
		if ((w & ETW_CCSWAP_TYPE_MASK) == ETW_CCSWAP_FULL) {
			delta = (w & ETW_CCF_DELTA) >> 2;
			busy_add(&r, (unsigned)(x >> 32) & 0xFu, delta, ts_now);
			ts_now += delta;
			n_full++;
			pos += 8;
			continue;
		}
		delta = (w & ETW_CCI_DELTA) >> 2;
		idle_first = n_idle_all ? idle_first : ts_now;
		idle_t += delta;
		n_idle_all++;
		idle_at = ts_now;
		ts_now += delta;
		n_idle++;
		pos += 4;
	}
	/* LITE records counted by the bytes: each form's count times its length is the sum */
	n_lite = (pos - from - 2 * (n_idle_all - n_idle) - 4 * n_idle - 8 * n_full) / 4;
	for (unsigned k = 0; k < ETW_CCSWAP_IDLE_SLOT; k++) {
		busy |= (uint32_t)(r.acc[k] != 0) << k;
	}
	r.ts = ts_now;
	r.seen = busy | (n_idle_all ? 1u << ETW_CCSWAP_IDLE_SLOT : 0u);
	r.acc[ETW_CCSWAP_IDLE_SLOT] = idle_t | n_idle_all << COUNT_SHIFT;
	r.at[ETW_CCSWAP_IDLE_SLOT] = idle_at;
	r.first_at[ETW_CCSWAP_IDLE_SLOT] = idle_first;
	r.forms = (n_idle_all - n_idle) | n_idle << 16 | n_lite << 32 | n_full << 48;
	while (pos < len) {
		uint8_t rec[8] = {0};
		unsigned t = payload[pos] & ETW_CCSWAP_TYPE_MASK;

		if (REC_LEN(t) > len - pos) {
			return false;
		}
		memcpy(rec, payload + pos, REC_LEN(t));
		pos += run_add(&r, get_le64(rec));
	}
	/* a slot @s has already (the first record's) keeps its sums and first start */
	for (seen = s->seen; seen; seen &= seen - 1) {
		unsigned k = ccswap_ctz(seen);

		had_ticks[k] = s->ticks[k];
		had_ins[k] = s->ins[k];
		had_first[k] = s->first_at[k];
		had_last[k] = s->last_in[k];
	}
	/* every slot at once, no branch (the compilers make it vector moves) */
	for (unsigned k = 0; k < ETW_CCSWAP_SLOTS; k++) {
		s->ticks[k] = r.acc[k] & TICKS_MASK;
		s->ins[k] = r.acc[k] >> COUNT_SHIFT;
		s->first_at[k] = r.first_at[k];
		s->last_in[k] = r.at[k];
	}
	for (seen = s->seen; seen; seen &= seen - 1) {
		unsigned k = ccswap_ctz(seen);

		s->ticks[k] += had_ticks[k];
		s->ins[k] += had_ins[k];
		s->first_at[k] = had_first[k];
		s->last_in[k] = (r.seen >> k) & 1u ? r.at[k] : had_last[k];
	}
	s->seen |= r.seen;
	for (unsigned k = 0; k < 4; k++) {
		uint64_t n = (r.forms >> (16 * k)) & 0xFFFFu;

		s->forms[k] += n;
		s->records += n;
	}
	*ts = r.ts;
	return !(r.seen & empty); /* the idle slot's bit (16) is never set in @empty */
}

int etw_ccswap_sum(const uint8_t *payload, size_t len, uint64_t prev, enum etw_ccswap_first first,
		   struct etw_ccswap_sums *s, size_t *bad_offset)
{
	uint32_t empty; /* bit i: TidTable[i] is 0 */
	size_t end = len, pos = ETW_CCB_LEN;
	uint64_t ts;

	if (etw_decode_ccswap_buffer(payload, len, &s->hdr) < 0) {
		*bad_offset = 0;
		return -EINVAL;
	}
	empty = ccswap_tid_match(s->hdr.tid_table, 0);
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
