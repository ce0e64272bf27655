// SPDX-License-Identifier: MIT
/*
 * tools/ccswap_decode.c - records of a compact CSwitch batch back to
 * switches (see ccswap_decode.h). Timestamps accumulate from
 * FirstTimeStamp; priorities of LITE records are relative to the header's
 * ThreadBasePriority byte, whatever it holds (stale bytes included: the
 * kernel's own encoding used the same byte, so decoding stays exact).
 */
#include <errno.h>
#include <string.h>

#include "producer/targets.h"
#include "producer/ccswap_expand.h"

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
