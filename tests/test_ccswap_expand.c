// SPDX-License-Identifier: MIT
/*
 * tests/test_ccswap_expand.c - counting a compact batch's switches by form
 * (etw_ccswap_count_forms, the `dump --stats` path) agrees with expanding
 * them one by one (etw_ccswap_expand_next): the same counts, and on a bad
 * batch the same first bad offset with the same records counted before it.
 * Edges where the counting loop changes gear (8 bytes left) are typed by
 * hand; random payloads (seeded) cover the rest.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap_expand.h"
#include "producer/etw_encode.h"
#include "producer/etw_layout.h"
#include "writer/etl_wire.h"

#define PAYLOAD_MAX 0x600

/* The reference: expand every switch, count its form, stop at the first error. */
static int reference(const uint8_t *p, size_t len, uint64_t counts[4], size_t *bad)
{
	struct etw_ccswap_iter it;
	struct etw_cswitch_compact c;
	int rc;

	if (etw_ccswap_expand_begin(&it, p, len, 40) < 0) {
		*bad = 0;
		return -EINVAL;
	}
	while ((rc = etw_ccswap_expand_next(&it, &c, bad)) > 0) {
		counts[c.form]++;
	}
	return rc;
}

static void agree(const uint8_t *p, size_t len)
{
	uint64_t want[4] = {0}, got[4] = {0};
	size_t want_bad = 12345, got_bad = 54321;
	int want_rc = reference(p, len, want, &want_bad);
	int got_rc = etw_ccswap_count_forms(p, len, got, &got_bad);

	cr_assert_eq(got_rc, want_rc, "len %zu: rc %d, expanding says %d", len, got_rc, want_rc);
	for (unsigned k = 0; k < 4; k++) {
		cr_assert_eq(got[k], want[k], "len %zu: form %u counted %llu, expanded %llu", len,
			     k, (unsigned long long)got[k], (unsigned long long)want[k]);
	}
	if (want_rc < 0) {
		cr_assert_eq(got_bad, want_bad, "len %zu: bad offset 0x%zx, expanding says 0x%zx",
			     len, got_bad, want_bad);
	}
}

/* A batch header with TidTable[i] = 100 + i, except the slots in @empty. */
static size_t header(uint8_t *p, unsigned empty)
{
	memset(p, 0, PAYLOAD_MAX);
	put_le64(p + ETW_CCB_FIRST_TS, 1000);
	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		put_le32(p + ETW_CCB_TID_TABLE + 4 * i, (empty >> i) & 1u ? 0u : 100u + i);
		p[ETW_CCB_BASE_PRI + i] = 8;
	}
	return ETW_CCB_LEN;
}

static size_t idle_short(uint8_t *p, size_t at)
{
	put_le16(p + at, (uint16_t)(FIELD_PREP(ETW_CCIS_DELTA, 5) | ETW_CCSWAP_IDLE_SHORT));
	return at + 2;
}

static size_t idle(uint8_t *p, size_t at)
{
	put_le32(p + at, FIELD_PREP(ETW_CCI_DELTA, 0x5000) | ETW_CCSWAP_IDLE);
	return at + 4;
}

static size_t lite(uint8_t *p, size_t at, unsigned idx)
{
	put_le32(p + at, FIELD_PREP(ETW_CCL_TID_INDEX, idx) | FIELD_PREP(ETW_CCL_DELTA, 7) |
				 ETW_CCSWAP_LITE);
	return at + 4;
}

static size_t full(uint8_t *p, size_t at, unsigned idx)
{
	put_le32(p + at, FIELD_PREP(ETW_CCF_DELTA, 9) | ETW_CCSWAP_FULL);
	put_le32(p + at + 4, FIELD_PREP(ETW_CCF_TID_INDEX, idx) | FIELD_PREP(ETW_CCF_WAIT_TIME, 3));
	return at + 8;
}

Test(ccswap_count, short_payload_counts_nothing)
{
	uint8_t p[PAYLOAD_MAX];
	uint64_t c[4] = {0};
	size_t bad = 7;

	header(p, 0);
	cr_assert_eq(etw_ccswap_count_forms(p, ETW_CCB_LEN - 1, c, &bad), -EINVAL);
	cr_assert_eq(bad, 0);
	cr_assert_eq(c[0] + c[1] + c[2] + c[3], 0);
	agree(p, ETW_CCB_LEN);
}

Test(ccswap_count, every_form_counted)
{
	uint8_t p[PAYLOAD_MAX];
	uint64_t c[4] = {0};
	size_t at = header(p, 0), bad;

	for (unsigned i = 0; i < 20; i++) {
		at = idle_short(p, at);
		at = lite(p, at, i % 16);
		at = full(p, at, (i + 3) % 16);
		at = idle(p, at);
		at = idle_short(p, at);
	}
	cr_assert_eq(etw_ccswap_count_forms(p, at, c, &bad), 0);
	cr_assert_eq(c[ETW_CCSWAP_IDLE_SHORT], 40);
	cr_assert_eq(c[ETW_CCSWAP_IDLE], 20);
	cr_assert_eq(c[ETW_CCSWAP_LITE], 20);
	cr_assert_eq(c[ETW_CCSWAP_FULL], 20);
	agree(p, at);
}

/* A FULL record that ends exactly at the payload end, and one cut 2, 4 or 6 bytes short. */
Test(ccswap_count, full_record_at_the_end)
{
	uint8_t p[PAYLOAD_MAX];

	for (unsigned lead = 0; lead < 6; lead++) {
		size_t at = header(p, 0), end;

		for (unsigned i = 0; i < lead; i++) {
			at = idle_short(p, at);
		}
		end = full(p, at, 2);
		agree(p, end);
		for (size_t cut = 2; cut < 8; cut += 2) {
			uint64_t c[4] = {0};
			size_t bad;

			cr_assert_eq(etw_ccswap_count_forms(p, end - cut, c, &bad), -EINVAL);
			cr_assert_eq(bad, at, "the cut FULL record is the bad one");
			cr_assert_eq(c[ETW_CCSWAP_IDLE_SHORT], lead);
			agree(p, end - cut);
		}
	}
}

/* An empty TidTable slot named early (counting loop) or in the last 8 bytes (tail). */
Test(ccswap_count, empty_tid_slot_anywhere)
{
	uint8_t p[PAYLOAD_MAX];

	for (unsigned where = 0; where < 30; where++) {
		for (unsigned form = 2; form < 4; form++) {
			size_t at = header(p, 1u << 5), bad_at = 0;
			uint64_t c[4] = {0};
			size_t bad;

			for (unsigned i = 0; i < 30; i++) {
				if (i == where) {
					bad_at = at;
					at = form == 2 ? lite(p, at, 5) : full(p, at, 5);
				} else {
					at = i & 1 ? lite(p, at, 4) : idle_short(p, at);
				}
			}
			cr_assert_eq(etw_ccswap_count_forms(p, at, c, &bad), -EINVAL);
			cr_assert_eq(bad, bad_at);
			cr_assert_eq(c[ETW_CCSWAP_LITE] + c[ETW_CCSWAP_IDLE_SHORT], where);
			agree(p, at);
		}
	}
}

/* Random records over random TidTables, every length up to PAYLOAD_MAX. */
Test(ccswap_count, random_payloads_agree, .timeout = 30.)
{
	uint8_t p[PAYLOAD_MAX];

	srand(20251123);
	for (unsigned round = 0; round < 4000; round++) {
		size_t len = ETW_CCB_LEN + (size_t)rand() % (PAYLOAD_MAX - ETW_CCB_LEN + 1);
		unsigned used = (unsigned)rand() % 17;
		unsigned empty = round % 3 == 0	  ? 0u
				 : round % 3 == 1 ? (0xFFFFu << used) & 0xFFFFu /* slots in order */
						  : (unsigned)rand() & 0xFFFFu;

		header(p, round % 7 == 0 ? 0u : empty);
		for (size_t i = ETW_CCB_LEN; i < len; i++) {
			p[i] = (uint8_t)rand();
		}
		agree(p, len);
	}
}

/*
 * Well-formed batches of random forms over the first @used slots, some with
 * one record naming an unused slot, some cut anywhere: the step loop's
 * lane-wise counts and checks against one switch at a time.
 */
Test(ccswap_count, random_batches_agree, .timeout = 30.)
{
	uint8_t p[PAYLOAD_MAX];

	srand(1123);
	for (unsigned round = 0; round < 6000; round++) {
		unsigned used = 1 + (unsigned)rand() % 16;
		size_t at = header(p, (0xFFFFu << used) & 0xFFFFu), cap = PAYLOAD_MAX - 8;
		unsigned n = (unsigned)rand() % 400,
			 bad_at = round % 4 ? ~0u : (unsigned)rand() % 400;
		unsigned mix = (unsigned)rand() % 4; /* 0: all forms alike, 1..3: mostly one form */

		for (unsigned i = 0; i < n && at < cap; i++) {
			unsigned form = mix && rand() % 4 ? mix : (unsigned)rand() % 4;
			unsigned idx = i == bad_at ? used + (unsigned)rand() % (17 - used)
						   : (unsigned)rand() % used;

			idx &= 15u; /* used 16: no slot is unused, the record stays good */
			at = form == 0	 ? idle_short(p, at)
			     : form == 1 ? idle(p, at)
			     : form == 2 ? lite(p, at, idx)
					 : full(p, at, idx);
		}
		agree(p, at);
		if (at > ETW_CCB_LEN) {
			agree(p, at - 1 - (size_t)rand() % (at - ETW_CCB_LEN));
		}
	}
}

/* Every field of every expanded switch is what etw_decode_ccswap_rec() reads there. */
Test(ccswap_expand, fields_as_the_record_decoder_reads_them)
{
	uint8_t p[PAYLOAD_MAX];

	srand(77);
	for (unsigned round = 0; round < 500; round++) {
		struct etw_ccswap_iter it;
		struct etw_cswitch_compact c;
		uint64_t ts = 1000;
		size_t bad, len = ETW_CCB_LEN + (size_t)rand() % (PAYLOAD_MAX - ETW_CCB_LEN);
		unsigned n = 0;
		int rc;

		header(p, 0);
		for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
			p[ETW_CCB_BASE_PRI + i] = (uint8_t)rand();
		}
		for (size_t i = ETW_CCB_LEN; i < len; i++) {
			p[i] = (uint8_t)rand();
		}
		cr_assert_eq(etw_ccswap_expand_begin(&it, p, len, (uint8_t)(1 + round % 63)), 0);
		while ((rc = etw_ccswap_expand_next(&it, &c, &bad)) > 0) {
			struct etw_ccswap_rec r;
			uint8_t state, reason;

			cr_assert_eq(
				etw_decode_ccswap_rec(p + c.rec_offset, len - c.rec_offset, &r),
				(int)etw_ccswap_rec_len(r.type));
			ts += r.delta;
			cr_assert_eq(c.form, r.type);
			cr_assert_eq(c.delta, r.delta);
			cr_assert_eq(c.ts, ts);
			cr_assert_eq(c.index, n++);
			if (r.type == ETW_CCSWAP_LITE || r.type == ETW_CCSWAP_FULL) {
				etw_ccswap_state_wr_split(r.state_wr, (uint8_t)(1 + round % 63),
							  &state, &reason);
				cr_assert_eq(c.old_tid, 100u + r.tid_index);
				cr_assert_eq(c.tid_index, r.tid_index);
				cr_assert_eq(c.state_wr, r.state_wr);
				cr_assert_eq(c.old_state, state);
				cr_assert_eq(c.old_wait_reason, reason);
				cr_assert_eq(c.old_pri,
					     r.type == ETW_CCSWAP_FULL
						     ? (int8_t)r.priority
						     : (int8_t)(p[ETW_CCB_BASE_PRI + r.tid_index] +
								r.pri_inc));
				cr_assert_eq(c.wait_time,
					     r.type == ETW_CCSWAP_FULL ? r.wait_time : 1u);
				cr_assert_eq(c.wait_le1, r.type == ETW_CCSWAP_LITE);
			} else {
				cr_assert_eq(c.old_tid, 0);
				cr_assert_eq(c.wait_time, 0);
			}
		}
		cr_assert(rc == 0 || bad == it.pos, "only a cut last record is bad");
	}
}
