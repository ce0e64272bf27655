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
 * its length follows from the form, so the walk is one short chain
 * (load, mask, length, add) per record. While 8 bytes are left any form's
 * record is inside the payload, so that loop needs no length check; its
 * TidTable checks only set a flag, and a batch that raised it is walked
 * again carefully to find the first bad record.
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

int etw_ccswap_expand_next(struct etw_ccswap_iter *it, struct etw_cswitch_compact *out,
			   size_t *bad_offset)
{
	struct etw_ccswap_rec r;
	int n;

	if (it->pos >= it->len) {
		return 0;
	}
	n = etw_decode_ccswap_rec(it->payload + it->pos, it->len - it->pos, &r);
	if (n < 0) {
		*bad_offset = it->pos;
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->rec_offset = it->pos;
	out->form = r.type;
	out->delta = r.delta;
	/* the first record's delta is 0 by construction; add it anyway */
	it->ts += r.delta;
	out->ts = it->ts;
	out->index = it->index;
	if (r.type == ETW_CCSWAP_LITE || r.type == ETW_CCSWAP_FULL) {
		uint32_t tid = it->hdr.tid_table[r.tid_index];

		if (tid == 0) {
			*bad_offset = it->pos;
			return -EINVAL;
		}
		out->old_tid = tid;
		out->tid_index = r.tid_index;
		out->state_wr = r.state_wr;
		etw_ccswap_state_wr_split(r.state_wr, it->max_wait_reason, &out->old_state,
					  &out->old_wait_reason);
		if (r.type == ETW_CCSWAP_LITE) {
			out->old_pri = (int8_t)(it->hdr.base_pri[r.tid_index] + r.pri_inc);
			out->wait_time = 1;
			out->wait_le1 = true;
		} else {
			out->old_pri = (int8_t)r.priority;
			out->wait_time = r.wait_time;
		}
	}
	it->pos += (size_t)n;
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

int etw_ccswap_count_forms(const uint8_t *payload, size_t len, uint64_t counts[4],
			   size_t *bad_offset)
{
	uint64_t n = 0, hi = 0, odd = 0, full = 0;
	uint32_t empty = 0, bad = 0; /* empty: bit i set when TidTable[i] is 0 */
	size_t pos = ETW_CCB_LEN, stop;

	if (len < ETW_CCB_LEN) {
		*bad_offset = 0;
		return -EINVAL;
	}
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		empty |= (uint32_t)(get_le32(payload + ETW_CCB_TID_TABLE + 4 * i) == 0) << i;
	}
	/*
	 * 8 bytes left: the whole record is inside whatever its form. Forms are
	 * counted as bits of the type (hi = LITE or FULL, odd = IDLE or FULL)
	 * so that no counter in memory sits on the loop's chain.
	 */
	while (len - pos >= 8) {
		uint64_t w = get_le64(payload + pos);
		uint32_t t = (uint32_t)w & ETW_CCSWAP_TYPE_MASK;
		uint32_t idx = t == ETW_CCSWAP_FULL ? (uint32_t)(w >> 32) & ETW_CCF_TID_INDEX
						    : FIELD_GET(ETW_CCL_TID_INDEX, (uint32_t)w);

		bad |= (empty >> idx) & (t >> 1);
		n++;
		hi += t >> 1;
		odd += t & 1u;
		full += (t >> 1) & t;
		pos += CCSWAP_REC_LEN(t);
	}
	if (bad) {
		/* some LITE/FULL record names an empty slot: find the first bad one */
		pos = ETW_CCB_LEN;
	} else {
		counts[ETW_CCSWAP_FULL] += full;
		counts[ETW_CCSWAP_LITE] += hi - full;
		counts[ETW_CCSWAP_IDLE] += odd - full;
		counts[ETW_CCSWAP_IDLE_SHORT] += n - hi - odd + full;
	}
	stop = count_careful(payload, len, pos, empty, counts);
	if (stop < len) {
		*bad_offset = stop;
		return -EINVAL;
	}
	return 0;
}
