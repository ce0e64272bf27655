// SPDX-License-Identifier: MIT
/*
 * producer/ccswap_expand.c - records of a compact CSwitch batch back to
 * switches (see ccswap_expand.h). Timestamps accumulate from
 * FirstTimeStamp; priorities of LITE records are relative to the header's
 * ThreadBasePriority byte, whatever it holds (stale bytes included: the
 * kernel's own encoding used the same byte, so decoding stays exact).
 *
 * Counting by form (etw_ccswap_count_forms) walks the records without
 * decoding them: the form is the low 2 bits of a record's first byte, and
 * its length follows from the form (2, 4, 4, 8 bytes). The walk is a chain
 * (load, form, length, next position) whose every link waits for a load, so
 * it goes a step of 8 bytes at a time: the forms at bytes 0, 2, 4 and 6 of
 * the step (an 8-bit key) tell which of them start a record and where the
 * last record starting in the step ends (the tables below, 1 to 4 records
 * per step). The counts and the TidTable checks of a step are lane-wise
 * arithmetic on the same 8 bytes (four 16-bit lanes, one per record start),
 * off the chain. Steps need 16 bytes left, so every record they touch is
 * inside the payload; a record at a time with 8 bytes left, then carefully.
 *
 *    step at pos:  | b0 b1 | b2 b3 | b4 b5 | b6 b7 | b8 .. b15
 *    lane j:         j = 0   j = 1   j = 2   j = 3
 *    form of lane j: low 2 bits of b(2j), a record's form if one starts there
 *    TID index:      LITE: bits 5:2 of b(2j); FULL: bits 3:0 of b(2j+4)
 *
 * The checks: a LITE/FULL record must name a used TidTable slot. The kernel
 * inserts a TID at the first empty slot (KERNEL_FACTS 1.2 step 3), so the
 * used ones are slots 0..n-1 and the check is index < n (lane-wise: index +
 * 16 - n has bit 4 clear). A table with holes is checked a record at a time. A batch whose checks fail is walked
 * again carefully to find the first bad record, so errors say what they said.
 */
#include <errno.h>
#include <string.h>

#include "producer/targets.h"
#include "producer/ccswap_expand.h"
#include "producer/etw_layout.h"
#include "writer/etl_wire.h"

/* Bytes of a record of form @t: IDLE_SHORT 2, IDLE 4, LITE 4, FULL 8. */
#define CCSWAP_REC_LEN(t) ((size_t)2u << (((t) + 1u) >> 1))
static_assert(CCSWAP_REC_LEN(ETW_CCSWAP_IDLE_SHORT) == 2 && CCSWAP_REC_LEN(ETW_CCSWAP_IDLE) == 4 &&
		      CCSWAP_REC_LEN(ETW_CCSWAP_LITE) == 4 && CCSWAP_REC_LEN(ETW_CCSWAP_FULL) == 8,
	      "record lengths by form (KERNEL_FACTS 5.3)");
static_assert(ETW_CCSWAP_LITE == 2 && ETW_CCSWAP_FULL == 3, "the forms with a TID index: bit 1");
static_assert(ETW_CCL_TID_INDEX == 0x3Cu && ETW_CCF_TID_INDEX == 0x0Fu,
	      "TID index: LITE bits [5:2], FULL dword1 bits [3:0]");

/*
 * The step tables, as constant expressions of the key k (forms at bytes 0,
 * 2, 4, 6 in bits 1:0, 3:2, 5:4, 7:6). Byte 0 starts a record; byte 2 does
 * when byte 0 starts an IDLE_SHORT; byte 4 when byte 0 starts an IDLE or
 * LITE or bytes 0 and 2 start IDLE_SHORTs; byte 6 likewise from bytes 2 and
 * 4. STEP_ADV is where the record starting last in the step ends.
 */
#define STEP_FORM(k, j) (((k) >> (2 * (j))) & 3u)
#define STEP_HALVES(t)	(CCSWAP_REC_LEN(t) / 2)
#define STEP_AT1(k)	(STEP_FORM(k, 0) == 0)
#define STEP_AT2(k)	(STEP_HALVES(STEP_FORM(k, 0)) == 2 || (STEP_AT1(k) && STEP_FORM(k, 1) == 0))
#define STEP_AT3(k)                                                                                \
	((STEP_AT1(k) && STEP_HALVES(STEP_FORM(k, 1)) == 2) ||                                     \
	 (STEP_AT2(k) && STEP_FORM(k, 2) == 0))
#define STEP_LAST(k) (STEP_AT3(k) ? 3u : STEP_AT2(k) ? 2u : STEP_AT1(k) ? 1u : 0u)
#define STEP_ADV(k)  ((uint8_t)(2 * (STEP_LAST(k) + STEP_HALVES(STEP_FORM(k, STEP_LAST(k))))))
#define STEP_STARTS(k)                                                                             \
	(1u | (uint64_t)STEP_AT1(k) << 16 | (uint64_t)STEP_AT2(k) << 32 |                          \
	 (uint64_t)STEP_AT3(k) << 48)
#define STEP_X4(f, k)  f(k), f((k) + 1), f((k) + 2), f((k) + 3)
#define STEP_X16(f, k) STEP_X4(f, k), STEP_X4(f, (k) + 4), STEP_X4(f, (k) + 8), STEP_X4(f, (k) + 12)
#define STEP_X64(f, k)                                                                             \
	STEP_X16(f, k), STEP_X16(f, (k) + 16), STEP_X16(f, (k) + 32), STEP_X16(f, (k) + 48)
#define STEP_TABLE(f)                                                                              \
	{                                                                                          \
		STEP_X64(f, 0u), STEP_X64(f, 64u), STEP_X64(f, 128u), STEP_X64(f, 192u)            \
	}

/* Bytes from a step's start to the end of the last record starting in it: 8..14. */
static const uint8_t step_adv[256] = STEP_TABLE(STEP_ADV);
/* Bit 0 of lane j set when byte 2j starts a record. */
static const uint64_t step_starts[256] = STEP_TABLE(STEP_STARTS);

#define LANES(v)    ((uint64_t)(v)*0x0001000100010001ull) /* @v in each 16-bit lane */
#define STEP_MAX    0x10000u /* bytes per run of steps: a lane counts at most 8192 */
#define LANE_SUM(v) ((LANES(1) * (v)) >> 48) /* the four lanes added (each <= 8192) */

int etw_ccswap_expand_begin(struct etw_ccswap_iter *it, const uint8_t *payload, size_t len,
			    uint8_t max_wait_reason)
{
	memset(it, 0, sizeof(*it));
	if (etw_decode_ccswap_buffer(payload, len, &it->hdr) < 0) {
		return -EINVAL;
	}
	it->payload = payload;
	it->len = len;
	it->pos = ETW_CCB_LEN;
	it->ts = (uint64_t)it->hdr.first_ts;
	it->max_wait_reason = max_wait_reason;
	return 0;
}

/*
 * The record is decoded here rather than by etw_decode_ccswap_rec(): the
 * same masks (etw_layout.h), without the call and the struct in between,
 * since every switch of every batch a listing or verify reads comes here.
 */
int etw_ccswap_expand_next(struct etw_ccswap_iter *it, struct etw_cswitch_compact *out,
			   size_t *bad_offset)
{
	const uint8_t *p = it->payload + it->pos;
	unsigned t;
	uint32_t w0, w1;

	if (it->pos >= it->len) {
		return 0;
	}
	t = p[0] & ETW_CCSWAP_TYPE_MASK;
	if (CCSWAP_REC_LEN(t) > it->len - it->pos) {
		*bad_offset = it->pos;
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->rec_offset = it->pos;
	out->form = (enum etw_ccswap_type)t;
	out->index = it->index;
	w0 = t == ETW_CCSWAP_IDLE_SHORT ? get_le16(p) : get_le32(p);
	w1 = t == ETW_CCSWAP_FULL ? get_le32(p + 4) : 0;
	out->delta = t == ETW_CCSWAP_IDLE_SHORT ? FIELD_GET(ETW_CCIS_DELTA, w0)
		     : t == ETW_CCSWAP_IDLE	? FIELD_GET(ETW_CCI_DELTA, w0)
		     : t == ETW_CCSWAP_LITE	? FIELD_GET(ETW_CCL_DELTA, w0)
						: FIELD_GET(ETW_CCF_DELTA, w0);
	/* the first record's delta is 0 by construction; add it anyway */
	it->ts += out->delta;
	out->ts = it->ts;
	if (t == ETW_CCSWAP_LITE || t == ETW_CCSWAP_FULL) {
		uint8_t idx = t == ETW_CCSWAP_LITE ? (uint8_t)FIELD_GET(ETW_CCL_TID_INDEX, w0)
						   : (uint8_t)FIELD_GET(ETW_CCF_TID_INDEX, w1);
		uint32_t tid = it->hdr.tid_table[idx];

		if (tid == 0) {
			*bad_offset = it->pos;
			return -EINVAL;
		}
		out->old_tid = tid;
		out->tid_index = idx;
		if (t == ETW_CCSWAP_LITE) {
			out->state_wr = (uint8_t)FIELD_GET(ETW_CCL_STATE_WR, w0);
			out->old_pri = (int8_t)(it->hdr.base_pri[idx] +
						(uint8_t)FIELD_GET(ETW_CCL_PRI_INC, w0));
			out->wait_time = 1;
			out->wait_le1 = true;
		} else {
			out->state_wr = (uint8_t)FIELD_GET(ETW_CCF_STATE_WR, w1);
			out->old_pri = (int8_t)FIELD_GET(ETW_CCF_PRIORITY, w1);
			out->wait_time = FIELD_GET(ETW_CCF_WAIT_TIME, w1);
		}
		etw_ccswap_state_wr_split(out->state_wr, it->max_wait_reason, &out->old_state,
					  &out->old_wait_reason);
	}
	it->pos += CCSWAP_REC_LEN(t);
	it->index++;
	return 1;
}

const char *etw_ccswap_form_name(enum etw_ccswap_type t)
{
	static const char *const names[] = {"idle_short", "idle", "lite", "full"};

	return (unsigned)t < 4 ? names[t] : "?";
}

uint8_t etw_target_max_wait_reason(uint32_t build)
{
	const struct etw_target *t = etw_target_by_build(build);

	return t ? t->max_wait_reason : 39;
}

/*
 * count_careful - from @pos, count the records of each form into @counts,
 * checking each one's length against @len before reading past its first
 * byte. Return: the offset of the first bad record, or @len when all are good.
 */
static size_t count_careful(const uint8_t *p, size_t len, size_t pos, uint32_t empty,
			    uint64_t counts[4])
{
	while (pos < len) {
		unsigned t = p[pos] & ETW_CCSWAP_TYPE_MASK, idx;

		if (CCSWAP_REC_LEN(t) > len - pos) {
			return pos;
		}
		if (t == ETW_CCSWAP_LITE || t == ETW_CCSWAP_FULL) {
			idx = t == ETW_CCSWAP_FULL ? FIELD_GET(ETW_CCF_TID_INDEX, p[pos + 4])
						   : FIELD_GET(ETW_CCL_TID_INDEX, p[pos]);
			if ((empty >> idx) & 1u) {
				return pos;
			}
		}
		counts[t]++;
		pos += CCSWAP_REC_LEN(t);
	}
	return len;
}

/* Counts of the four forms, kept as n = all, hi = LITE or FULL, odd = IDLE or FULL, FULL. */
struct form_bits {
	uint64_t n, hi, odd, full;
};

/*
 * count_steps - the step loop from @pos while 16 bytes are left, for a
 * TidTable whose used slots are 0..@used-1. Sets *@bad when a LITE or FULL
 * record names a slot >= @used. Return: where it stopped.
 */
static size_t count_steps(const uint8_t *p, size_t len, size_t pos, unsigned used,
			  struct form_bits *fb, uint64_t *bad)
{
	const uint64_t k = LANES(16u - used);

	while (len - pos >= 16) {
		size_t end = len - pos > STEP_MAX ? pos + STEP_MAX : len;
		uint64_t n = 0, hi = 0, odd = 0, full = 0;

		while (end - pos >= 16) {
			uint64_t w = get_le64(p + pos), w2 = get_le64(p + pos + 8);
			unsigned key = (unsigned)((w & 3u) | ((w >> 14) & 0xCu) |
						  ((w >> 28) & 0x30u) | ((w >> 42) & 0xC0u));
			uint64_t at = step_starts[key]; /* bit 0 of each lane starting a record */
			uint64_t h = (w >> 1) & at, o = w & at; /* form bit 1, bit 0 there */
			uint64_t f = h & o;			/* FULL */
			uint64_t lite_idx = (w >> 2) & LANES(0xF);
			uint64_t full_idx = ((w >> 32) | (w2 << 32)) & LANES(0xF);
			uint64_t idx = lite_idx ^ ((lite_idx ^ full_idx) & (f * 0xFFFFu));

			*bad |= (idx + k) & (h << 4);
			n += at;
			hi += h;
			odd += o;
			full += f;
			pos += step_adv[key];
		}
		fb->n += LANE_SUM(n);
		fb->hi += LANE_SUM(hi);
		fb->odd += LANE_SUM(odd);
		fb->full += LANE_SUM(full);
	}
	return pos;
}

int etw_ccswap_count_forms(const uint8_t *payload, size_t len, uint64_t counts[4],
			   size_t *bad_offset)
{
	struct form_bits fb = {0, 0, 0, 0};
	uint32_t empty = 0; /* bit i set when TidTable[i] is 0 */
	uint64_t bad = 0;
	unsigned used = 0; /* slots 0..used-1 are in use */
	size_t pos = ETW_CCB_LEN, stop;

	if (len < ETW_CCB_LEN) {
		*bad_offset = 0;
		return -EINVAL;
	}
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		empty |= (uint32_t)(get_le32(payload + ETW_CCB_TID_TABLE + 4 * i) == 0) << i;
	}
	while (used < ETW_CCSWAP_MAX_TID && !((empty >> used) & 1u)) {
		used++;
	}
	if (empty == ((0xFFFFu << used) & 0xFFFFu)) { /* no hole: the step loop can check */
		pos = count_steps(payload, len, pos, used, &fb, &bad);
	}
	/* a record at a time while 8 bytes are left: any form's record is inside */
	while (len - pos >= 8) {
		uint64_t w = get_le64(payload + pos);
		uint32_t t = (uint32_t)w & ETW_CCSWAP_TYPE_MASK;
		uint32_t idx = t == ETW_CCSWAP_FULL ? (uint32_t)(w >> 32) & ETW_CCF_TID_INDEX
						    : FIELD_GET(ETW_CCL_TID_INDEX, (uint32_t)w);

		bad |= (empty >> idx) & (t >> 1);
		fb.n++;
		fb.hi += t >> 1;
		fb.odd += t & 1u;
		fb.full += (t >> 1) & t;
		pos += CCSWAP_REC_LEN(t);
	}
	if (bad) {
		/* some LITE/FULL record names an empty slot: find the first bad one */
		pos = ETW_CCB_LEN;
	} else {
		counts[ETW_CCSWAP_FULL] += fb.full;
		counts[ETW_CCSWAP_LITE] += fb.hi - fb.full;
		counts[ETW_CCSWAP_IDLE] += fb.odd - fb.full;
		counts[ETW_CCSWAP_IDLE_SHORT] += fb.n - fb.hi - fb.odd + fb.full;
	}
	stop = count_careful(payload, len, pos, empty, counts);
	if (stop < len) {
		*bad_offset = stop;
		return -EINVAL;
	}
	return 0;
}
