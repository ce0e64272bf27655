// SPDX-License-Identifier: MIT
/*
 * tests/test_ccswap_sums.c - etw_ccswap_sum(): a compact batch summed per
 * TidTable slot. A batch typed by hand with its sums worked out by hand; the
 * damage (a record naming an empty slot, one cut short by the payload's
 * end); and random batches of every length against the sums of their
 * expanded switches (etw_ccswap_expand_next(), a record at a time).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "producer/ccswap_expand.h"
#include "producer/ccswap_sums.h"

/*
 * A batch: FirstTimeStamp 1000, TidTable {100, 200, 0...}, then
 *   IDLE_SHORT delta 5            14 00
 *   LITE slot 1 delta 7           06 80 03 00   (2 | 1 << 2 | 7 << 15)
 *   IDLE delta 70000              C1 45 04 00   (1 | 70000 << 2)
 *   FULL slot 0 delta 3           0F 00 00 00  00 00 00 00
 *   LITE slot 0 delta 2           02 00 01 00   (2 | 0 << 2 | 2 << 15)
 */
/* clang-format off */
static const uint8_t hand_batch[] = {
	/* FirstTimeStamp */
	0xE8, 0x03, 0, 0, 0, 0, 0, 0,
	/* TidTable[16] */
	100, 0, 0, 0,  200, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,
	0, 0, 0, 0,    0, 0, 0, 0,    0, 0, 0, 0,  0, 0, 0, 0,
	0, 0, 0, 0,    0, 0, 0, 0,    0, 0, 0, 0,  0, 0, 0, 0,
	0, 0, 0, 0,    0, 0, 0, 0,    0, 0, 0, 0,  0, 0, 0, 0,
	/* ThreadBasePriority[16] */
	8, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* records */
	0x14, 0x00,
	0x06, 0x80, 0x03, 0x00,
	0xC1, 0x45, 0x04, 0x00,
	0x0F, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x01, 0x00,
};
/* clang-format on */

Test(ccswap_sums, hand_typed_batch)
{
	cr_assert_eq(sizeof(hand_batch), 0x58 + 22);
	struct etw_ccswap_sums s;
	size_t bad = 99;

	cr_assert_eq(
		etw_ccswap_sum(hand_batch, sizeof(hand_batch), 990, ETW_CCSWAP_FIRST_RAN, &s, &bad),
		0);
	cr_assert_eq(s.records, 5);
	cr_assert_eq(s.forms[ETW_CCSWAP_IDLE_SHORT], 1);
	cr_assert_eq(s.forms[ETW_CCSWAP_IDLE], 1);
	cr_assert_eq(s.forms[ETW_CCSWAP_LITE], 2);
	cr_assert_eq(s.forms[ETW_CCSWAP_FULL], 1);
	cr_assert_eq(s.seen, 0x10003u);
	cr_assert_eq(s.hdr.tid_table[1], 200);
	/* the idle thread: 990..1005 (the first record, switched in at @prev), 1012..71012 */
	cr_assert_eq(s.ticks[16], 15 + 70000);
	cr_assert_eq(s.ins[16], 2);
	cr_assert_eq(s.first_at[16], 990);
	cr_assert_eq(s.last_in[16], 1012);
	/* TID 200 (slot 1): 1005..1012 */
	cr_assert_eq(s.ticks[1], 7);
	cr_assert_eq(s.ins[1], 1);
	cr_assert_eq(s.first_at[1], 1005);
	cr_assert_eq(s.last_in[1], 1005);
	/* TID 100 (slot 0): 71012..71015, 71015..71017 */
	cr_assert_eq(s.ticks[0], 5);
	cr_assert_eq(s.ins[0], 2);
	cr_assert_eq(s.first_at[0], 71012);
	cr_assert_eq(s.last_in[0], 71015);
	cr_assert_eq(s.unknown, 0);
	cr_assert_eq(s.first, 990);
	cr_assert_eq(s.last_ts, 71017);
}

Test(ccswap_sums, first_span_running_or_unknown)
{
	struct etw_ccswap_sums s;
	size_t bad;

	/* running since @prev: its time counts, not a switch-in */
	cr_assert_eq(etw_ccswap_sum(hand_batch, sizeof(hand_batch), 990, ETW_CCSWAP_FIRST_RUNNING,
				    &s, &bad),
		     0);
	cr_assert_eq(s.ticks[16], 70015);
	cr_assert_eq(s.ins[16], 1);
	/* nobody known: the first span is nobody's */
	cr_assert_eq(etw_ccswap_sum(hand_batch, sizeof(hand_batch), 990, ETW_CCSWAP_FIRST_UNKNOWN,
				    &s, &bad),
		     0);
	cr_assert_eq(s.unknown, 15);
	cr_assert_eq(s.ticks[16], 70000);
	cr_assert_eq(s.ins[16], 1);
	cr_assert_eq(s.first_at[16], 1012);
	/* a first record before @prev: its span counts 0 */
	cr_assert_eq(etw_ccswap_sum(hand_batch, sizeof(hand_batch), 2000, ETW_CCSWAP_FIRST_RAN, &s,
				    &bad),
		     0);
	cr_assert_eq(s.ticks[16], 70000);
}

Test(ccswap_sums, damage_empty_slot_and_short_record)
{
	uint8_t b[sizeof(hand_batch)];
	struct etw_ccswap_sums s;
	size_t bad = 0;

	/* the LITE at 0x5A names slot 2 (TidTable[2] is 0): the first record counts */
	memcpy(b, hand_batch, sizeof(b));
	b[0x5A] = 0x0A; /* 2 | 2 << 2 */
	cr_assert_eq(etw_ccswap_sum(b, sizeof(b), 990, ETW_CCSWAP_FIRST_RAN, &s, &bad), -EINVAL);
	cr_assert_eq(bad, 0x5A);
	cr_assert_eq(s.records, 1);
	cr_assert_eq(s.seen, 0x10000u);
	cr_assert_eq(s.ticks[16], 15);
	cr_assert_eq(s.last_ts, 1005);
	/* cut inside the FULL record (at 0x62, 8 bytes): the three before it count */
	cr_assert_eq(etw_ccswap_sum(hand_batch, 0x62 + 4, 990, ETW_CCSWAP_FIRST_RAN, &s, &bad),
		     -EINVAL);
	cr_assert_eq(bad, 0x62);
	cr_assert_eq(s.records, 3);
	cr_assert_eq(s.seen, 0x10002u);
	cr_assert_eq(s.last_ts, 71012);
	/* the last record cut after one byte of four */
	cr_assert_eq(etw_ccswap_sum(hand_batch, sizeof(hand_batch) - 3, 990, ETW_CCSWAP_FIRST_RAN,
				    &s, &bad),
		     -EINVAL);
	cr_assert_eq(bad, sizeof(hand_batch) - 4);
	cr_assert_eq(s.records, 4);
	cr_assert_eq(s.ticks[0], 3);
	/* shorter than the header */
	cr_assert_eq(etw_ccswap_sum(hand_batch, 0x57, 990, ETW_CCSWAP_FIRST_RAN, &s, &bad),
		     -EINVAL);
	cr_assert_eq(bad, 0);
	/* the first record names an empty slot: nothing counts */
	memcpy(b, hand_batch, sizeof(b));
	b[0x58] = 0x0A;
	b[0x59] = 0x00;
	cr_assert_eq(etw_ccswap_sum(b, sizeof(b), 990, ETW_CCSWAP_FIRST_RAN, &s, &bad), -EINVAL);
	cr_assert_eq(bad, 0x58);
	cr_assert_eq(s.records, 0);
	cr_assert_eq(s.seen, 0);
	cr_assert_eq(s.last_ts, 990);
}

/* A small deterministic generator (xorshift64*). */
static uint64_t rng(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1DULL;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

/* A random batch in @b: @used slots, @n records; damage when @bad_slot. Return: its length. */
static size_t random_batch(uint8_t *b, uint64_t *x, unsigned used, unsigned n, bool bad_slot)
{
	size_t pos = 0x58;

	memset(b, 0, 0x58);
	put32(b, (uint32_t)(rng(x) >> 40));
	for (unsigned i = 0; i < used; i++) {
		put32(b + 8 + 4 * i, 4 * (i + 1) + 1000);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned t = (unsigned)(rng(x) >> 62);
		unsigned slot = used ? (unsigned)(rng(x) % used) : 0;
		uint64_t r = rng(x);

		if (used == 0 && t >= 2) {
			t -= 2;
		}
		if (bad_slot && i == n / 2 && t >= 2) {
			slot = used; /* an empty slot */
		}
		switch (t) {
		case 0:
			b[pos] = (uint8_t)((r & 0x3F) << 2);
			b[pos + 1] = (uint8_t)(r >> 8);
			pos += 2;
			break;
		case 1:
			put32(b + pos, 1u | (uint32_t)(r & 0x3FFFFFFF) << 2);
			pos += 4;
			break;
		case 2:
			put32(b + pos, 2u | slot << 2 | (uint32_t)(r & 0x7F) << 6 |
					       (uint32_t)(r >> 20 & 0x1FFFF) << 15);
			pos += 4;
			break;
		default:
			put32(b + pos, 3u | (uint32_t)(r & 0x3FFFFFFF) << 2);
			put32(b + pos + 4, slot | (uint32_t)(r >> 32 & 0xFFFFFFF) << 4);
			pos += 8;
			break;
		}
	}
	return pos;
}

Test(ccswap_sums, random_batches_agree_with_their_switches)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	static uint8_t b[0x58 + 8 * 600];

	for (unsigned round = 0; round < 4000; round++) {
		unsigned used = (unsigned)(rng(&x) % 17);
		unsigned n = (unsigned)(rng(&x) % (round < 2000 ? 12 : 600));
		bool damaged = used < 16 && rng(&x) % 4 == 0;
		size_t len = random_batch(b, &x, used, n, damaged);
		size_t cut = rng(&x) % 8 == 0 && len > 0x58 ? len - 1 - rng(&x) % 3 : len;
		uint64_t prev = rng(&x) >> 44;
		enum etw_ccswap_first first = (enum etw_ccswap_first)(rng(&x) % 3);
		struct etw_ccswap_sums s;
		struct etw_ccswap_iter it;
		struct etw_cswitch_compact cc;
		uint64_t ticks[17] = {0}, ins[17] = {0}, last_in[17] = {0}, first_at[17] = {0};
		uint64_t forms[4] = {0}, unknown = 0, records = 0, at = prev;
		uint32_t seen = 0;
		size_t bad_ref = 0, bad = 0;
		int rc_ref = 0, r, rc;

		if (cut < 0x58) {
			cut = 0x58;
		}
		cr_assert_eq(etw_ccswap_expand_begin(&it, b, cut, 40), 0);
		while ((r = etw_ccswap_expand_next(&it, &cc, &bad_ref)) > 0) {
			unsigned k = cc.old_tid ? cc.tid_index : 16;
			uint64_t span = cc.ts > at ? cc.ts - at : 0;

			forms[cc.form]++;
			records++;
			if (cc.index == 0 && first == ETW_CCSWAP_FIRST_UNKNOWN) {
				unknown = span;
			} else {
				if (!((seen >> k) & 1u)) {
					first_at[k] = at;
				}
				seen |= 1u << k;
				ticks[k] += span;
				ins[k] += cc.index > 0 || first == ETW_CCSWAP_FIRST_RAN;
				last_in[k] = at;
			}
			at = cc.ts;
		}
		rc_ref = r;
		rc = etw_ccswap_sum(b, cut, prev, first, &s, &bad);
		cr_assert_eq(rc, rc_ref, "round %u: %d, its switches %d", round, rc, rc_ref);
		if (rc < 0) {
			cr_assert_eq(bad, bad_ref, "round %u", round);
		}
		cr_assert_eq(s.records, records, "round %u", round);
		cr_assert_eq(memcmp(s.forms, forms, sizeof(forms)), 0, "round %u", round);
		cr_assert_eq(s.unknown, unknown, "round %u", round);
		cr_assert_eq(s.seen, seen, "round %u", round);
		cr_assert_eq(s.last_ts, at, "round %u", round);
		for (unsigned k = 0; k < 17; k++) {
			if ((seen >> k) & 1u) {
				cr_assert_eq(s.ticks[k], ticks[k], "round %u slot %u", round, k);
				cr_assert_eq(s.ins[k], ins[k], "round %u slot %u", round, k);
				cr_assert_eq(s.last_in[k], last_in[k], "round %u slot %u", round,
					     k);
				cr_assert_eq(s.first_at[k], first_at[k], "round %u slot %u", round,
					     k);
			}
		}
	}
}
