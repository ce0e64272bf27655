// SPDX-License-Identifier: MIT
/*
 * tests/test_ccswap.c - the batching engine: every flush condition at its
 * boundary, every record form at its boundaries, both quirks on and off,
 * clocks, sessions, architectures. Events are captured by a recording fake
 * backend; expected bytes are typed by hand from KERNEL_FACTS 1.2/5.3.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "writer/etl_wire.h"
#include "producer/producer.h"
#include "tests/fake_backend.h"

static struct fake_backend fb[3];

struct rig {
	struct producer *p;
	struct producer_cfg cfg;
};

/* One compact QPC session (or @n sessions on @clocks) on fake backends. */
static void rig_init(struct rig *r, unsigned n, const enum sim_clock *clocks, bool quirks,
		     uint8_t bias, enum etl_arch arch)
{
	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < 3; k++) {
		fake_reset(&fb[k]);
	}
	r->cfg.arch = arch;
	r->cfg.cpus = 4;
	r->cfg.cswitch_version = 4;
	r->cfg.max_wait_reason = bias;
	r->cfg.quirks = quirks;
	r->cfg.flush_at_end = true;
	r->cfg.nsessions = n;
	for (unsigned i = 0; i < n; i++) {
		r->cfg.sessions[i].name = "s";
		r->cfg.sessions[i].clock = clocks ? clocks[i] : SIM_CLOCK_QPC;
		r->cfg.sessions[i].flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
		r->cfg.sessions[i].backend = &fake_backend_ops;
		r->cfg.sessions[i].backend_ctx = &fb[i];
	}
	r->p = producer_create(&r->cfg);
	cr_assert_not_null(r->p);
}

static void rig_fini(struct rig *r)
{
	producer_destroy(r->p);
}

/* A switch on @cpu at @tick / @ts (all clocks the same value unless set after). */
static struct sim_cswitch sw(unsigned cpu, uint32_t tick, uint64_t ts, uint32_t old_tid,
			     int8_t old_pri, int8_t old_base, uint8_t state, uint8_t wr,
			     uint32_t new_tid, uint32_t wait)
{
	struct sim_cswitch c;

	memset(&c, 0, sizeof(c));
	c.cpu = cpu;
	c.tick = tick;
	c.ts[SIM_CLOCK_QPC] = ts;
	c.ts[SIM_CLOCK_SYSTIME] = ts;
	c.ts[SIM_CLOCK_CYCLES] = ts;
	c.old_tid = old_tid;
	c.old_pri = old_pri;
	c.old_base_pri = old_base;
	c.old_state = state;
	c.old_wait_reason = wr;
	c.new_tid = new_tid;
	c.new_wait_ticks = wait;
	return c;
}

static void log_sw(struct rig *r, struct sim_cswitch c)
{
	cr_assert_eq(producer_cswitch(r->p, &c), 0);
}

static void end_at(struct rig *r, uint32_t tick, uint64_t ts)
{
	struct sim_end e;

	memset(&e, 0, sizeof(e));
	e.tick = tick;
	for (unsigned c = 1; c < SIM_CLOCK_SLOTS; c++) {
		e.ts[c] = ts;
	}
	cr_assert_eq(producer_end(r->p, &e), 0);
}

static uint64_t reason_count(struct rig *r, enum producer_flush_reason why)
{
	struct producer_stats st;

	producer_get_stats(r->p, &st);
	return st.batches_by_reason[why];
}

/* Offsets inside an emitted batch event (typed from the spec, not the encoder's enums). */
/* clang-format off */
#define EV_SIZE     0x04
#define EV_TS       0x08
#define EV_FIRST_TS 0x10
#define EV_TID(i)   (0x18 + 4 * (i))
#define EV_BPRI(i)  (0x58 + (i))
#define EV_RECS     0x68
/* clang-format on */

Test(ccswap_golden, three_switch_batch_matches_hand_computed_bytes)
{
	struct rig r;
	/*
	 * quirks on, bias 40, x64, QPC; cpu 0:
	 *  1. ts 1000, idle -> 100: batch starts, FirstTimeStamp 1000, IDLE_SHORT delta 0 = 00 00
	 *  2. ts 1100, 100 (pri 10, base 8, Waiting, UserRequest 6) -> 200 (wait 0):
	 *     slot 0 = 100, base 8; inc 2; delta 100 < 0x20000 -> LITE:
	 *     2 | 0<<2 | 2<<6 (0x80) | 6<<9 (0xC00) | 100<<15 (0x320000) = 0x00320C82
	 *  3. ts 1300000, 200 (pri 12, base 12, Ready 1 -> 1+40 = 41) -> idle:
	 *     slot 1 = 200, base 12; delta 1298900 >= 0x20000 -> FULL:
	 *     dword0 3 | 1298900<<2 (0x4F4750) = 0x004F4753
	 *     dword1 1 | 41<<4 (0x290) | 12<<10 (0x3000) | 0<<15 = 0x00003291
	 *  end at ts 1400000 (0x155CC0): Size 0x68 + 2 + 4 + 8 = 0x76
	 */
	/* clang-format off */
	static const uint8_t want[0x76] = {
		0x02, 0x00, 0x11, 0xC0, 0x76, 0x00, 0x25, 0x05, /* marker, Size, HookId */
		0xC0, 0x5C, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, /* TS 1400000 */
		0xE8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* FirstTimeStamp 1000 */
		0x64, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, /* TidTable 100, 200 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* slots 2..5 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 6..9 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 10..13 */
		0, 0, 0, 0, 0, 0, 0, 0,                         /* 14..15 */
		0x08, 0x0C, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* ThreadBasePriority */
		0x00, 0x00,                                     /* IDLE_SHORT */
		0x82, 0x0C, 0x32, 0x00,                         /* LITE */
		0x53, 0x47, 0x4F, 0x00, 0x91, 0x32, 0x00, 0x00, /* FULL */
	};
	/* clang-format on */

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 10, 1000, 0, 0, 0, 2, 0, 100, 0));
	log_sw(&r, sw(0, 10, 1100, 100, 10, 8, 5, 6, 200, 0));
	log_sw(&r, sw(0, 11, 1300000, 200, 12, 12, 1, 0, 0, 0));
	cr_assert_eq(fake_n(&fb[0]), 0, "nothing is flushed before the end");
	end_at(&r, 12, 1400000);
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(fake_ev(&fb[0])[0].size, sizeof(want));
	cr_assert_eq(fake_ev(&fb[0])[0].ts, 1400000);
	cr_assert(fake_ev(&fb[0])[0].committed);
	cr_assert_eq(memcmp(fake_ev(&fb[0])[0].bytes, want, sizeof(want)), 0);
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_END), 1);
	rig_fini(&r);
}

/* n distinct non-idle threads in a row on cpu 0, LITE-sized. */
static void distinct_threads(struct rig *r, unsigned n)
{
	for (unsigned i = 1; i <= n; i++) {
		log_sw(r, sw(0, 1, 100 * i, 1000 + i, 8, 8, 5, 0, 1000 + i + 1, 0));
	}
}

Test(ccswap_flush, sixteen_distinct_threads_fit_the_table)
{
	struct rig r;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	distinct_threads(&r, 15);
	cr_assert_eq(fake_n(&fb[0]), 0);
	distinct_threads(&r, 1); /* TID 1001 again: already in slot 0 */
	cr_assert_eq(fake_n(&fb[0]), 0);
	rig_fini(&r);

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	distinct_threads(&r, 16);
	cr_assert_eq(fake_n(&fb[0]), 0, "16 TIDs fill the table without a flush");
	end_at(&r, 2, 100000);
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes + EV_TID(15)), 1016);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + EV_SIZE), 0x68 + 16 * 4);
	rig_fini(&r);
}

Test(ccswap_flush, seventeenth_distinct_thread_flushes)
{
	struct rig r;
	const uint8_t *b;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	distinct_threads(&r, 17);
	cr_assert_eq(fake_n(&fb[0]), 1, "the 17th TID finds the table full");
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_TID_FULL), 1);
	b = fake_ev(&fb[0])[0].bytes;
	cr_assert_eq(get_le16(b + EV_SIZE), 0x68 + 16 * 4, "16 LITE records");
	cr_assert_eq(get_le64(b + EV_TS), 1700, "TS = the flushing switch's time");
	for (unsigned i = 0; i < 16; i++) {
		cr_assert_eq(get_le32(b + EV_TID(i)), 1001 + i);
	}
	end_at(&r, 2, 5000);
	cr_assert_eq(fake_n(&fb[0]), 2);
	b = fake_ev(&fb[0])[1].bytes;
	cr_assert_eq(get_le32(b + EV_TID(0)), 1017, "restart: TidTable[0] = old TID");
	cr_assert_eq(get_le64(b + EV_FIRST_TS), 1700);
	cr_assert_eq(get_le16(b + EV_SIZE), 0x68 + 4);
	/* the first record of the new batch: LITE, index 0, inc 8 - 8, Waiting/Executive 0,
	 * delta 0: just the type 2 */
	cr_assert_eq(get_le32(b + EV_RECS), 0x00000002u);
	rig_fini(&r);
}

Test(ccswap_flush, tick_limit_is_more_than_500)
{
	struct rig r;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 100, 10, 7, 8, 8, 5, 0, 9, 0));
	log_sw(&r, sw(0, 600, 20, 9, 8, 8, 5, 0, 7, 0)); /* 600 - 100 = 500: stays */
	cr_assert_eq(fake_n(&fb[0]), 0);
	log_sw(&r, sw(0, 601, 30, 7, 8, 8, 5, 0, 9, 0)); /* 501 > 500: flush */
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_TICKS), 1);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + EV_SIZE), 0x68 + 2 * 4);
	rig_fini(&r);
}

Test(ccswap_flush, tick_counter_wraps_like_a_dword)
{
	struct rig r;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 0xFFFFFF00u, 10, 7, 8, 8, 5, 0, 9, 0));
	log_sw(&r, sw(0, 0x000000F4u, 20, 9, 8, 8, 5, 0, 7, 0)); /* 0x1F4 = 500 later */
	cr_assert_eq(fake_n(&fb[0]), 0);
	log_sw(&r, sw(0, 0x000000F5u, 30, 7, 8, 8, 5, 0, 9, 0));
	cr_assert_eq(fake_n(&fb[0]), 1);
	rig_fini(&r);
}

/* One thread switching out with a long wait for the new one: 8-byte FULL records. */
static void full_records(struct rig *r, unsigned n, uint64_t *ts)
{
	for (unsigned i = 0; i < n; i++) {
		*ts += 10;
		log_sw(r, sw(0, 1, *ts, 50, 9, 9, 5, 0, 50, 5));
	}
}

Test(ccswap_flush, exactly_eight_bytes_left_takes_the_record)
{
	struct rig r;
	uint64_t ts = 0;

	/* 0x68 + 114 * 8 = 0x3F8: 8 left, 0x3F8 + 8 > 0x400 is false -> record at 0x3F8 */
	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	full_records(&r, 115, &ts);
	cr_assert_eq(fake_n(&fb[0]), 0, "the 115th FULL record fills the block to exactly 0x400");
	full_records(&r, 1, &ts);
	cr_assert_eq(fake_n(&fb[0]), 1, "0x400 + 8 > 0x400: flush");
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_SIZE), 1);
	cr_assert_eq(fake_ev(&fb[0])[0].size, 0x400);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + EV_SIZE), 0x400,
		     "the cap includes the header");
	rig_fini(&r);
}

Test(ccswap_flush, fewer_than_eight_bytes_left_flushes)
{
	struct rig r;
	uint64_t ts = 0;

	/*
	 * Records are 2, 4 or 8 bytes and the block starts at 0x68, so Offset is
	 * always even and 7 bytes left cannot happen: 6 is the case below 8.
	 * One IDLE_SHORT (2) + 113 FULL: 0x6A + 0x388 = 0x3F2, then one more
	 * FULL fits (0x3F2 + 8 = 0x3FA <= 0x400) and leaves 6.
	 */
	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 1, 0, 0, 0, 0, 2, 0, 50, 0));
	full_records(&r, 114, &ts);
	cr_assert_eq(fake_n(&fb[0]), 0);
	full_records(&r, 1, &ts);
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_SIZE), 1);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + EV_SIZE), 0x3FA);
	rig_fini(&r);
}

Test(ccswap_flush, delta_of_exactly_2_pow_30_stays_and_wraps)
{
	struct rig r;
	const uint8_t *b;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 1, 1000, 7, 8, 8, 5, 0, 9, 0));
	log_sw(&r, sw(0, 1, 1000 + 0x40000000ull, 9, 8, 8, 5, 0, 7, 0));
	cr_assert_eq(fake_n(&fb[0]), 0, "a delta of 0x40000000 is not > 0x40000000");
	end_at(&r, 2, 1000 + 0x40000000ull);
	b = fake_ev(&fb[0])[0].bytes;
	/* record 2 is FULL (delta >= 0x20000) and its 30-bit TimeDelta wrapped to 0 */
	cr_assert_eq(get_le32(b + EV_RECS + 4), 0x00000003u);
	rig_fini(&r);
}

Test(ccswap_flush, delta_above_2_pow_30_flushes)
{
	struct rig r;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 1, 1000, 7, 8, 8, 5, 0, 9, 0));
	log_sw(&r, sw(0, 1, 1000 + 0x40000001ull, 9, 8, 8, 5, 0, 7, 0));
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_DELTA), 1);
	cr_assert_eq(fake_ev(&fb[0])[0].ts, 1000 + 0x40000001ull);
	rig_fini(&r);
}

Test(ccswap_flush, stop_flag_flushes_at_the_next_switch_of_each_cpu)
{
	struct rig r;
	struct sim_ccswap_stop st = {.tick = 1, .clock = SIM_CLOCK_QPC};

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 1, 10, 7, 8, 8, 5, 0, 9, 0));
	log_sw(&r, sw(1, 1, 10, 17, 8, 8, 5, 0, 19, 0));
	cr_assert_eq(producer_ccswap_stop(r.p, &st), 0);
	cr_assert_eq(fake_n(&fb[0]), 0, "stop only sets the flag");
	log_sw(&r, sw(0, 1, 20, 9, 8, 8, 5, 0, 7, 0));
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(fake_ev(&fb[0])[0].cpu, 0);
	log_sw(&r, sw(1, 1, 20, 19, 8, 8, 5, 0, 17, 0));
	cr_assert_eq(fake_n(&fb[0]), 2);
	cr_assert_eq(fake_ev(&fb[0])[1].cpu, 1);
	cr_assert_eq(reason_count(&r, PRODUCER_FLUSH_STOP), 2);
	log_sw(&r, sw(0, 1, 30, 7, 8, 8, 5, 0, 9, 0));
	cr_assert_eq(fake_n(&fb[0]), 2, "the flag was cleared by the restart");
	rig_fini(&r);
}

Test(ccswap_flush, end_policy_drop_writes_nothing_pending)
{
	struct rig r;
	struct producer_stats st;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	producer_destroy(r.p);
	r.cfg.flush_at_end = false;
	r.p = producer_create(&r.cfg);
	log_sw(&r, sw(0, 1, 10, 7, 8, 8, 5, 0, 9, 0));
	end_at(&r, 2, 20);
	cr_assert_eq(fake_n(&fb[0]), 0);
	producer_get_stats(r.p, &st);
	cr_assert_eq(st.batches_dropped, 1);
	rig_fini(&r);
}

/* Size of the single record logged by @c after an idle->X start switch at ts 0. */
static uint32_t second_record(struct sim_cswitch c, uint8_t bias, uint32_t *word)
{
	struct rig r;
	uint16_t size;

	rig_init(&r, 1, NULL, true, bias, ETL_ARCH_X64);
	log_sw(&r, sw(0, 1, 0, 0, 0, 0, 2, 0, c.old_tid, 0)); /* IDLE_SHORT, 2 bytes */
	cr_assert_eq(producer_cswitch(r.p, &c), 0);
	end_at(&r, 2, c.ts[SIM_CLOCK_QPC]);
	size = get_le16(fake_ev(&fb[0])[0].bytes + EV_SIZE);
	*word = get_le32(fake_ev(&fb[0])[0].bytes + EV_RECS + 2);
	rig_fini(&r);
	return size - 0x68u - 2u;
}

Test(ccswap_form, idle_short_up_to_0x3fff)
{
	uint32_t w;

	cr_assert_eq(second_record(sw(0, 1, 0x3FFF, 0, 0, 0, 2, 0, 5, 0), 40, &w), 2);
	/* IDLE_SHORT: 0 | 0x3FFF << 2 = 0xFFFC */
	cr_assert_eq(w & 0xFFFF, 0xFFFCu);
	cr_assert_eq(second_record(sw(0, 1, 0x4000, 0, 0, 0, 2, 0, 5, 0), 40, &w), 4);
	/* IDLE: 1 | 0x4000 << 2 = 0x10001 */
	cr_assert_eq(w, 0x00010001u);
}

Test(ccswap_form, lite_needs_delta_below_0x20000)
{
	uint32_t w;

	/* LITE: 2 | 0<<2 | 0<<6 | 5<<9 (0xA00) | 0x1FFFF<<15 (0xFFFF8000) */
	cr_assert_eq(second_record(sw(0, 1, 0x1FFFF, 9, 8, 8, 5, 5, 3, 1), 40, &w), 4);
	cr_assert_eq(w, 0xFFFF8A02u);
	cr_assert_eq(second_record(sw(0, 1, 0x20000, 9, 8, 8, 5, 5, 3, 1), 40, &w), 8);
	/* FULL dword0: 3 | 0x20000 << 2 = 0x00080003 */
	cr_assert_eq(w, 0x00080003u);
}

Test(ccswap_form, priority_increment_7_is_lite_8_and_negative_are_full)
{
	uint32_t w;

	/* inc 7: 2 | 7<<6 (0x1C0) | 5<<9 (0xA00) | 1<<15 = 0x8BC2 */
	cr_assert_eq(second_record(sw(0, 1, 1, 9, 15, 8, 5, 5, 3, 0), 40, &w), 4);
	cr_assert_eq(w, 0x00008BC2u);
	cr_assert_eq(second_record(sw(0, 1, 1, 9, 16, 8, 5, 5, 3, 0), 40, &w), 8);
	cr_assert_eq(second_record(sw(0, 1, 1, 9, 7, 8, 5, 5, 3, 0), 40, &w), 8,
		     "a priority below base is unsigned-huge, never LITE");
}

Test(ccswap_form, wait_of_1_is_lite_2_is_full_and_saturates)
{
	struct rig r;
	uint32_t w;

	cr_assert_eq(second_record(sw(0, 1, 1, 9, 8, 8, 5, 5, 3, 1), 40, &w), 4);
	cr_assert_eq(second_record(sw(0, 1, 1, 9, 8, 8, 5, 5, 3, 2), 40, &w), 8);
	cr_assert_eq(second_record(sw(0, 1, 1, 9, 8, 8, 5, 5, 0, 99), 40, &w), 4,
		     "switching to idle records no wait");
	/* wait 0x30000 saturates: dword1 = 0 | 5<<4 | 8<<10 | 0x1FFFF<<15 = 0xFFFFA050 */
	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	log_sw(&r, sw(0, 1, 0, 0, 0, 0, 2, 0, 9, 0));
	log_sw(&r, sw(0, 1, 1, 9, 8, 8, 5, 5, 3, 0x30000));
	log_sw(&r, sw(0, 1, 2, 3, 8, 8, 5, 5, 9, 0x1FFFF));
	end_at(&r, 2, 3);
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes + EV_RECS + 2 + 4), 0xFFFFA050u);
	/* 0x1FFFF exactly: dword1 = 1 | 5<<4 | 8<<10 | 0x1FFFF<<15 = 0xFFFFA051 */
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes + EV_RECS + 2 + 8 + 4), 0xFFFFA051u);
	rig_fini(&r);
}

Test(ccswap_form, state_wr_uses_each_targets_bias)
{
	static const uint8_t biases[] = {39, 40, 43};
	uint32_t w;

	for (unsigned i = 0; i < 3; i++) {
		/* Waiting (5) with WrQueue (15): the wait reason, whatever the bias */
		second_record(sw(0, 1, 1, 9, 8, 8, 5, 15, 3, 0), biases[i], &w);
		cr_assert_eq((w >> 9) & 0x3F, 15);
		/* Ready (1): 1 + bias */
		second_record(sw(0, 1, 1, 9, 8, 8, 1, 15, 3, 0), biases[i], &w);
		cr_assert_eq((w >> 9) & 0x3F, 1u + biases[i]);
		/* Terminated (4) */
		second_record(sw(0, 1, 1, 9, 8, 8, 4, 0, 3, 0), biases[i], &w);
		cr_assert_eq((w >> 9) & 0x3F, 4u + biases[i]);
	}
	/* WaitingForProcessInSwap (9) + 43 = 52; state 10 + 43 = 53 */
	second_record(sw(0, 1, 1, 9, 8, 8, 9, 0, 3, 0), 43, &w);
	cr_assert_eq((w >> 9) & 0x3F, 52);
}

/* Tick flush with a new TID: which tables does each mode leave? */
static void tick_flush_with_new_thread(struct rig *r)
{
	log_sw(r, sw(0, 100, 10, 7, 8, 6, 5, 0, 9, 0));	  /* 7 (base 6) -> slot 0 */
	log_sw(r, sw(0, 700, 20, 9, 11, 11, 5, 0, 7, 0)); /* 9 (base 11): tick flush */
	end_at(r, 701, 30);
}

Test(ccswap_quirks, on_flushed_batch_keeps_trigger_tid_and_stale_base)
{
	struct rig r;
	const uint8_t *b0, *b1;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	tick_flush_with_new_thread(&r);
	cr_assert_eq(fake_n(&fb[0]), 2);
	b0 = fake_ev(&fb[0])[0].bytes;
	b1 = fake_ev(&fb[0])[1].bytes;
	cr_assert_eq(get_le32(b0 + EV_TID(0)), 7);
	cr_assert_eq(get_le32(b0 + EV_TID(1)), 9, "lookup ran before the flush test");
	cr_assert_eq(b0[EV_BPRI(1)], 11);
	cr_assert_eq(get_le16(b0 + EV_SIZE), 0x68 + 4, "but no record refers to it");
	cr_assert_eq(get_le32(b1 + EV_TID(0)), 9, "restart: TidTable[0] = old TID");
	cr_assert_eq(get_le32(b1 + EV_TID(1)), 0);
	cr_assert_eq(b1[EV_BPRI(0)], 6, "ThreadBasePriority[0] not rewritten (stale 6)");
	cr_assert_eq(b1[EV_BPRI(1)], 11, "never cleared");
	/* the record uses the stale base: 11 - 6 = 5 -> LITE inc 5: 2 | 5<<6 (0x140) = 0x142 */
	cr_assert_eq(get_le32(b1 + EV_RECS), 0x00000142u);
	rig_fini(&r);
}

Test(ccswap_quirks, off_gives_clean_tables)
{
	struct rig r;
	const uint8_t *b0, *b1;

	rig_init(&r, 1, NULL, false, 40, ETL_ARCH_X64);
	tick_flush_with_new_thread(&r);
	cr_assert_eq(fake_n(&fb[0]), 2);
	b0 = fake_ev(&fb[0])[0].bytes;
	b1 = fake_ev(&fb[0])[1].bytes;
	cr_assert_eq(get_le32(b0 + EV_TID(1)), 0, "only referenced threads");
	cr_assert_eq(b0[EV_BPRI(1)], 0);
	cr_assert_eq(get_le32(b1 + EV_TID(0)), 9);
	cr_assert_eq(b1[EV_BPRI(0)], 11, "base priority written on insert");
	cr_assert_eq(b1[EV_BPRI(1)], 0);
	/* 11 - 11 = 0 -> LITE inc 0, Waiting/Executive 0, delta 0: 0x2 */
	cr_assert_eq(get_le32(b1 + EV_RECS), 0x00000002u);
	rig_fini(&r);
}

Test(ccswap_quirks, off_table_full_flush_leaves_the_17th_out)
{
	struct rig r;

	rig_init(&r, 1, NULL, false, 40, ETL_ARCH_X64);
	distinct_threads(&r, 17);
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes + EV_TID(15)), 1016);
	end_at(&r, 2, 5000);
	cr_assert_eq(get_le32(fake_ev(&fb[0])[1].bytes + EV_TID(0)), 1017);
	cr_assert_eq(fake_ev(&fb[0])[1].bytes[EV_BPRI(0)], 8);
	rig_fini(&r);
}

Test(ccswap_sessions, three_clocks_batch_differently)
{
	static const enum sim_clock clocks[3] = {SIM_CLOCK_QPC, SIM_CLOCK_SYSTIME,
						 SIM_CLOCK_CYCLES};
	struct rig r;

	rig_init(&r, 3, clocks, true, 40, ETL_ARCH_X64);
	for (unsigned i = 0; i < 10; i++) {
		struct sim_cswitch c = sw(0, 1, 0, 7 + (i & 1) * 2, 8, 8, 5, 0, 9 - (i & 1) * 2, 0);

		c.ts[SIM_CLOCK_QPC] = 1000ull * i;	    /* small deltas */
		c.ts[SIM_CLOCK_SYSTIME] = 0x30000ull * i;   /* FULL-sized deltas */
		c.ts[SIM_CLOCK_CYCLES] = 0x40000001ull * i; /* every delta flushes */
		log_sw(&r, c);
	}
	cr_assert_eq(fake_n(&fb[0]), 0);
	cr_assert_eq(fake_n(&fb[1]), 0);
	cr_assert_eq(fake_n(&fb[2]), 9, "cycles: delta > 0x40000000 each time");
	end_at(&r, 2, 0x40000001ull * 10);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + EV_SIZE), 0x68 + 10 * 4);
	cr_assert_eq(get_le16(fake_ev(&fb[1])[0].bytes + EV_SIZE), 0x68 + 4 + 9 * 8);
	rig_fini(&r);
}

Test(ccswap_sessions, two_sessions_on_one_clock_get_identical_batches)
{
	static const enum sim_clock clocks[2] = {SIM_CLOCK_QPC, SIM_CLOCK_QPC};
	struct rig r;

	rig_init(&r, 2, clocks, true, 40, ETL_ARCH_X64);
	distinct_threads(&r, 20);
	end_at(&r, 2, 9999);
	cr_assert_eq(fake_n(&fb[0]), 2);
	cr_assert_eq(fake_n(&fb[1]), 2);
	for (unsigned i = 0; i < 2; i++) {
		cr_assert_eq(fake_ev(&fb[0])[i].size, fake_ev(&fb[1])[i].size);
		cr_assert_eq(memcmp(fake_ev(&fb[0])[i].bytes, fake_ev(&fb[1])[i].bytes,
				    fake_ev(&fb[0])[i].size),
			     0);
	}
	rig_fini(&r);
}

Test(ccswap_arch, x86_batches_use_the_perfinfo32_marker)
{
	struct rig r;

	rig_init(&r, 1, NULL, true, 39, ETL_ARCH_X86);
	distinct_threads(&r, 2);
	end_at(&r, 2, 300);
	/* PERFINFO32 0xC0100000 | version 2 */
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes), 0xC0100002u);
	rig_fini(&r);
	rig_init(&r, 1, NULL, true, 39, ETL_ARCH_X64);
	distinct_threads(&r, 2);
	end_at(&r, 2, 300);
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes), 0xC0110002u);
	rig_fini(&r);
}

Test(ccswap_pmc, batch_items_carry_the_flushing_switch_counters)
{
	struct rig r;
	struct sim_cswitch c;
	const uint8_t *b;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	producer_destroy(r.p);
	r.cfg.sessions[0].pmc_count = 2;
	r.cfg.sessions[0].pmc_ids[0] = 3;
	r.cfg.sessions[0].pmc_ids[1] = 0;
	r.cfg.sessions[0].pmc_events[0] = 0x0525;
	r.cfg.sessions[0].pmc_event_count = 1;
	r.p = producer_create(&r.cfg);
	log_sw(&r, sw(0, 100, 10, 7, 8, 8, 5, 0, 9, 0));
	c = sw(0, 700, 20, 9, 8, 8, 5, 0, 7, 0); /* tick flush */
	c.pmc[0] = 0x1111;
	c.pmc[3] = 0x3333;
	log_sw(&r, c);
	cr_assert_eq(fake_n(&fb[0]), 1);
	b = fake_ev(&fb[0])[0].bytes;
	/* 0xC0110002 | 2 << 8; Size 0x68 + 4 (one LITE) + 16 */
	cr_assert_eq(get_le32(b), 0xC0110202u);
	cr_assert_eq(get_le16(b + 4), 0x68 + 4 + 16);
	cr_assert_eq(get_le64(b + 0x10), 0x3333);
	cr_assert_eq(get_le64(b + 0x18), 0x1111);
	cr_assert_eq(get_le64(b + 0x20), 10, "then the CCSWAP_BUFFER: FirstTimeStamp");
	end_at(&r, 701, 30);
	cr_assert_eq(get_le64(fake_ev(&fb[0])[1].bytes + 0x10), 0,
		     "end of trace: zero-filled items");
	rig_fini(&r);
}

static void plain_rig(struct rig *r, uint8_t version, bool pebs, bool both)
{
	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < 3; k++) {
		fake_reset(&fb[k]);
	}
	r->cfg.arch = ETL_ARCH_X64;
	r->cfg.cpus = 2;
	r->cfg.cswitch_version = version;
	r->cfg.max_wait_reason = 40;
	r->cfg.quirks = true;
	r->cfg.pebs_and_pmc = both;
	r->cfg.nsessions = 1;
	r->cfg.sessions[0].name = "plain";
	r->cfg.sessions[0].clock = SIM_CLOCK_QPC;
	r->cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	r->cfg.sessions[0].pebs = pebs;
	r->cfg.sessions[0].pmc_count = 1;
	r->cfg.sessions[0].pmc_ids[0] = 1;
	r->cfg.sessions[0].pmc_events[0] = 0x0524;
	r->cfg.sessions[0].pmc_event_count = 1;
	r->cfg.sessions[0].backend = &fake_backend_ops;
	r->cfg.sessions[0].backend_ctx = &fb[0];
	r->p = producer_create(&r->cfg);
	cr_assert_not_null(r->p);
}

static struct sim_cswitch plain_switch(void)
{
	struct sim_cswitch c = sw(1, 5, 0x0102030405060708ull, 0x1234, 9, 8, 5, 6, 0x5678, 3);

	c.new_pri = 10;
	c.new_pri_decrement = -2;
	c.old_wait_mode = 1;
	c.old_ideal_cpu = 0x103; /* truncates to 3 */
	c.old_remaining_quantum = -3;
	c.old_qos = 2;
	c.new_qos = 5;
	c.old_rank = 7;
	c.prev_cstate = 1;
	c.pmc[1] = 0xAABBCCDDull;
	c.pebs_index = 0x1000;
	return c;
}

Test(cswitch_plain, v4_with_pmc_matches_hand_bytes)
{
	struct rig r;
	/*
	 * v4 + 1 PMC: marker 0xC0110004 | 1<<8 = 0xC0110104, Size 0x28 + 8 = 0x30.
	 * flags byte: WaitMode 1 | old QoS 2<<1 | new QoS 5<<4 = 0x55.
	 * 0x0A is OldThreadRank (old thread is not idle) = 7.
	 */
	/* clang-format off */
	static const uint8_t want[0x30] = {
		0x04, 0x01, 0x11, 0xC0, 0x30, 0x00, 0x24, 0x05,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xDD, 0xCC, 0xBB, 0xAA, 0x00, 0x00, 0x00, 0x00, /* PMC item */
		0x78, 0x56, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00, /* new, old TID */
		0x0A, 0x09, 0x07, 0xFE, 0x06, 0x55, 0x05, 0x03, /* pri, pri, rank, decr, wr, flags, state, ideal */
		0x03, 0x00, 0x00, 0x00, 0xFD, 0xFF, 0xFF, 0xFF, /* wait 3, quantum -3 */
	};
	/* clang-format on */
	struct sim_cswitch c = plain_switch();

	plain_rig(&r, 4, false, false);
	log_sw(&r, c);
	cr_assert_eq(fake_n(&fb[0]), 1);
	cr_assert_eq(fake_ev(&fb[0])[0].size, sizeof(want));
	cr_assert_eq(fake_ev(&fb[0])[0].cpu, 1);
	cr_assert_eq(memcmp(fake_ev(&fb[0])[0].bytes, want, sizeof(want)), 0);
	rig_fini(&r);
}

Test(cswitch_plain, pebs_wins_over_pmc_unless_both_asked)
{
	struct rig r;
	struct sim_cswitch c = plain_switch();

	plain_rig(&r, 2, true, false);
	log_sw(&r, c);
	/* v2 + PEBS: 0xC0118002, Size 0x30, PebsIndex at 0x10, WaitMode byte = 1 */
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes), 0xC0118002u);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + 4), 0x30);
	cr_assert_eq(get_le64(fake_ev(&fb[0])[0].bytes + 0x10), 0x1000);
	cr_assert_eq(fake_ev(&fb[0])[0].bytes[0x18 + 0x0D], 1);
	rig_fini(&r);

	plain_rig(&r, 2, true, true);
	log_sw(&r, c);
	/* both: 0xC0118102, Size 0x38, PEBS first then the counter */
	cr_assert_eq(get_le32(fake_ev(&fb[0])[0].bytes), 0xC0118102u);
	cr_assert_eq(get_le16(fake_ev(&fb[0])[0].bytes + 4), 0x38);
	cr_assert_eq(get_le64(fake_ev(&fb[0])[0].bytes + 0x10), 0x1000);
	cr_assert_eq(get_le64(fake_ev(&fb[0])[0].bytes + 0x18), 0xAABBCCDDull);
	rig_fini(&r);
}

Test(cswitch_plain, idle_old_thread_writes_previous_cstate)
{
	struct rig r;
	struct sim_cswitch c = plain_switch();

	c.old_tid = 0;
	plain_rig(&r, 4, false, false);
	log_sw(&r, c);
	cr_assert_eq(fake_ev(&fb[0])[0].bytes[0x18 + 0x0A], 1, "PreviousCState");
	rig_fini(&r);
}

Test(producer_losses, refused_events_are_counted)
{
	struct rig r;
	struct producer_stats st;

	plain_rig(&r, 4, false, false);
	fb[0].refuse = -ENOBUFS;
	log_sw(&r, plain_switch());
	log_sw(&r, plain_switch());
	producer_get_stats(r.p, &st);
	cr_assert_eq(st.events_lost, 2);
	cr_assert_eq(st.cswitch_events, 2);
	fb[0].refuse = -EIO;
	struct sim_cswitch c = plain_switch();
	cr_assert_eq(producer_cswitch(r.p, &c), -EIO, "other errors stop the run");
	rig_fini(&r);
}

Test(producer_config, compact_without_cswitch_is_rejected)
{
	struct rig r;

	rig_init(&r, 1, NULL, true, 40, ETL_ARCH_X64);
	r.cfg.sessions[0].flags = PRODUCER_F_COMPACT;
	cr_assert_null(producer_create(&r.cfg));
	rig_fini(&r);
}
