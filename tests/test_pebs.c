// SPDX-License-Identifier: MIT
/*
 * tests/test_pebs.c - the PMU model (counters, PEBS DS save area) and the
 * models' seeded RNG. Expected constants are worked out by hand in the
 * comments, not taken from the model's own macros.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <string.h>

#include "pebs_model/pebs.h"
#include "scheduler_model/sim_rng.h"

static struct pebs *make(unsigned cpus, unsigned ncounters, bool pebs, uint64_t seed)
{
	struct pebs_cfg cfg = {
		.cpus = cpus,
		.cpu_mhz = 3000,
		.ncounters = ncounters,
		.pebs = pebs,
		.seed = seed,
	};
	struct pebs *p = pebs_create(&cfg);

	cr_assert_not_null(p);
	return p;
}

/* ---- sim_rng ------------------------------------------------------------- */

Test(sim_rng, xoshiro256starstar_reference_outputs)
{
	/* the reference xoshiro256** from state {1, 2, 3, 4}:
	 * out0 = rotl(2 * 5, 7) * 9 = 1280 * 9 = 11520, then the published sequence */
	struct sim_rng r = {{1, 2, 3, 4}};
	static const uint64_t want[] = {11520u,
					0u,
					1509978240u,
					1215971899390074240u,
					1216172134540287360u,
					607988272756665600u};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert(eq(u64, sim_rng_next(&r), want[i]), "output %zu", i);
	}
}

Test(sim_rng, streams_depend_on_seed_domain_and_index)
{
	struct sim_rng a, b, c, d, a2;

	sim_rng_init(&a, 1, SIM_RNG_SCHED_CPU, 0);
	sim_rng_init(&a2, 1, SIM_RNG_SCHED_CPU, 0);
	sim_rng_init(&b, 2, SIM_RNG_SCHED_CPU, 0);
	sim_rng_init(&c, 1, SIM_RNG_PEBS_CPU, 0);
	sim_rng_init(&d, 1, SIM_RNG_SCHED_CPU, 1);
	cr_assert(eq(u64, sim_rng_next(&a), sim_rng_next(&a2)));
	cr_assert(ne(u64, sim_rng_next(&a), sim_rng_next(&b)));
	cr_assert(ne(u64, sim_rng_next(&a), sim_rng_next(&c)));
	cr_assert(ne(u64, sim_rng_next(&a), sim_rng_next(&d)));
}

Test(sim_rng, below_and_range_stay_in_bounds_and_cover_them)
{
	struct sim_rng r;
	unsigned seen[7] = {0};

	sim_rng_init(&r, 42, SIM_RNG_SCHED_GLOBAL, 0);
	cr_assert(eq(u64, sim_rng_below(&r, 0), 0));
	cr_assert(eq(u64, sim_rng_below(&r, 1), 0));
	for (unsigned i = 0; i < 70000; i++) {
		uint64_t v = sim_rng_below(&r, 7);

		cr_assert(lt(u64, v, 7));
		seen[v]++;
	}
	for (unsigned v = 0; v < 7; v++) {
		/* 10000 expected each; 5 sigma is about 470 */
		cr_assert(gt(u32, seen[v], 9400u), "value %u seen %u times", v, seen[v]);
		cr_assert(lt(u32, seen[v], 10600u), "value %u seen %u times", v, seen[v]);
	}
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t v = sim_rng_range(&r, 1000, 3000);

		cr_assert(ge(u64, v, 1000));
		cr_assert(le(u64, v, 3000));
	}
	cr_assert(eq(u64, sim_rng_range(&r, 5, 5), 5));
}

Test(sim_rng, exp_has_about_the_requested_mean)
{
	struct sim_rng r;
	uint64_t sum = 0, max = 0;
	const unsigned n = 200000;

	sim_rng_init(&r, 7, SIM_RNG_SCHED_GLOBAL, 0);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = sim_rng_exp(&r, 1000000);

		sum += v;
		max = v > max ? v : max;
	}
	/* the linear log2 approximation overshoots the mean by ~4%; allow +-8% */
	cr_assert(gt(u64, sum / n, 920000u), "mean %llu", (unsigned long long)(sum / n));
	cr_assert(lt(u64, sum / n, 1080000u), "mean %llu", (unsigned long long)(sum / n));
	/* a long tail exists but is cut: 21 * ln 2 = 14.6 means at most */
	cr_assert(gt(u64, max, 5000000u));
	cr_assert(le(u64, max, 14600000u));
}

Test(sim_rng, clz_and_ctz)
{
	cr_assert(eq(u32, sim_clz64_portable(0x00F0000000000000ull), 8));
	cr_assert(eq(u32, sim_ctz64_portable(0x0000000000F00000ull), 20));
	cr_assert(eq(u32, sim_clz64(0), 64));
	cr_assert(eq(u32, sim_clz64(1), 63));
	cr_assert(eq(u32, sim_clz64(0x8000000000000000ull), 0));
	cr_assert(eq(u32, sim_clz64(0x00F0000000000000ull), 8));
	cr_assert(eq(u32, sim_ctz64(0), 64));
	cr_assert(eq(u32, sim_ctz64(1), 0));
	cr_assert(eq(u32, sim_ctz64(0x8000000000000000ull), 63));
	cr_assert(eq(u32, sim_ctz64(0x0000000000F00000ull), 20));
}

/* The draw as first written: the exact limit always, then v % n. */
static uint64_t ref_below(struct sim_rng *r, uint64_t n)
{
	uint64_t lim, v;

	if (n == 0) {
		return 0;
	}
	lim = UINT64_MAX - (UINT64_MAX % n + 1) % n;
	do {
		v = sim_rng_next(r);
	} while (v > lim);
	return v % n;
}

/* bounds of every shape: small, powers of two and their neighbours, huge (rejections) */
static uint64_t bound_of(struct sim_rng *pick, unsigned i)
{
	static const uint64_t edge[] = {
		1,
		2,
		3,
		7,
		100,
		257,
		500,
		513,
		2001,
		65536,
		65537,
		1000000007u,
		UINT64_C(1) << 32,
		(UINT64_C(1) << 32) + 1u,
		(UINT64_C(1) << 63) - 1u,
		UINT64_C(1) << 63,
		(UINT64_C(1) << 63) + 1u,
		UINT64_MAX / 3u * 2u,
		UINT64_MAX - 1u,
		UINT64_MAX,
	};
	uint64_t v = sim_rng_next(pick);

	if (i < sizeof(edge) / sizeof(edge[0])) {
		return edge[i];
	}
	return v >> (v & 63u); /* any magnitude */
}

Test(sim_rng, below_gives_the_reference_values_and_consumes_the_same_draws)
{
	struct sim_rng pick, a, b, c;
	uint64_t rejected = 0;

	sim_rng_init(&pick, 3, SIM_RNG_SCHED_GLOBAL, 9);
	sim_rng_init(&a, 5, SIM_RNG_SCHED_CPU, 1);
	b = a;
	c = a;
	for (unsigned i = 0; i < 200000; i++) {
		uint64_t n = bound_of(&pick, i % 2000u);
		struct sim_rng before = b;
		uint64_t want = ref_below(&b, n);

		cr_assert(eq(u64, sim_rng_below(&a, n), want), "n = %llu", (unsigned long long)n);
		sim_rng_skip_below(&c, n);
		cr_assert(eq(int, memcmp(&a, &b, sizeof(a)), 0), "same draws for n = %llu",
			  (unsigned long long)n);
		cr_assert(eq(int, memcmp(&c, &b, sizeof(c)), 0), "skip: same draws");
		sim_rng_next(&before);
		rejected += memcmp(&before, &b, sizeof(b)) != 0;
	}
	cr_assert(gt(u64, rejected, 1000), "the rejection path ran (%llu times)",
		  (unsigned long long)rejected);
}

Test(sim_rng, skip_below_n_makes_the_draws_of_n_skips)
{
	struct sim_rng pick, a, b;
	unsigned rewound = 0;

	sim_rng_init(&pick, 8, SIM_RNG_SCHED_GLOBAL, 2);
	sim_rng_init(&a, 6, SIM_RNG_PEBS_CPU, 3);
	b = a;
	for (unsigned i = 0; i < 20000; i++) {
		uint64_t n = bound_of(&pick, i % 500u);
		unsigned count = (unsigned)sim_rng_below(&pick, 15);
		struct sim_rng before = a;

		sim_rng_skip_below_n(&a, n, count);
		for (unsigned k = 0; k < count; k++) {
			sim_rng_skip_below(&b, n);
		}
		cr_assert(eq(int, memcmp(&a, &b, sizeof(a)), 0), "n = %llu, count %u",
			  (unsigned long long)n, count);
		for (unsigned k = 0; k < count; k++) {
			sim_rng_next(&before);
		}
		rewound += memcmp(&before, &a, sizeof(a)) != 0;
	}
	cr_assert(gt(u32, rewound, 100), "rejections happened (%u times)", rewound);
}

Test(sim_rng, bit_scans_agree_with_the_portable_versions)
{
	struct sim_rng r;

	sim_rng_init(&r, 11, SIM_RNG_SCHED_GLOBAL, 0);
	cr_assert(eq(u32, sim_popcount64(0), 0));
	cr_assert(eq(u32, sim_popcount64(UINT64_MAX), 64));
	cr_assert(eq(u32, sim_popcount64_portable(0x8000000000000001ull), 2));
	for (unsigned i = 0; i < 100000; i++) {
		uint64_t v = sim_rng_next(&r);

		v >>= v & 63u; /* leading zeros of every count */
		if (i & 1u) {
			v <<= (v >> 8) & 63u; /* and trailing ones */
		}
		cr_assert(eq(u32, sim_clz64(v), sim_clz64_portable(v)));
		cr_assert(eq(u32, sim_ctz64(v), sim_ctz64_portable(v)));
		cr_assert(eq(u32, sim_popcount64(v), sim_popcount64_portable(v)));
	}
	cr_assert(eq(u32, sim_clz64_portable(0), 64));
	cr_assert(eq(u32, sim_ctz64_portable(0), 64));
}

/* ---- configuration ------------------------------------------------------- */

Test(pebs, cfg_check_rejects_out_of_range)
{
	struct pebs_cfg ok = {.cpus = 4, .cpu_mhz = 3000, .ncounters = 4, .pebs = true};
	struct pebs_cfg c;

	cr_assert(eq(int, pebs_cfg_check(&ok), 0));
	c = ok, c.cpus = 0;
	cr_assert(eq(int, pebs_cfg_check(&c), -EINVAL));
	c = ok, c.cpus = 1025;
	cr_assert(eq(int, pebs_cfg_check(&c), -EINVAL));
	c = ok, c.cpus = 1024;
	cr_assert(eq(int, pebs_cfg_check(&c), 0));
	c = ok, c.cpu_mhz = 0;
	cr_assert(eq(int, pebs_cfg_check(&c), -EINVAL));
	c = ok, c.ncounters = 17;
	cr_assert(eq(int, pebs_cfg_check(&c), -EINVAL));
	c = ok, c.ncounters = 16;
	cr_assert(eq(int, pebs_cfg_check(&c), 0));
	errno = 0;
	c = ok, c.cpus = 0;
	cr_assert_null(pebs_create(&c));
	cr_assert(eq(int, errno, EINVAL));
	pebs_destroy(NULL);
}

Test(pebs, advance_rejects_bad_arguments_and_time_going_back)
{
	struct pebs *p = make(2, 4, true, 1);

	cr_assert(eq(int, pebs_advance(p, 2, 10, SIM_ACT_COMPUTE), -EINVAL));
	cr_assert(eq(int, pebs_advance(p, 0, 10, SIM_ACTIVITIES), -EINVAL));
	cr_assert(eq(int, pebs_advance(p, 0, 1000, SIM_ACT_COMPUTE), 0));
	cr_assert(eq(int, pebs_advance(p, 0, 999, SIM_ACT_COMPUTE), -EINVAL));
	cr_assert(eq(int, pebs_advance(p, 0, 1000, SIM_ACT_COMPUTE), 0), "no time passing is fine");
	pebs_destroy(p);
}

/* ---- the DS save area ---------------------------------------------------- */

Test(pebs, ds_save_area_layout_per_cpu)
{
	struct pebs *p = make(4, 0, true, 1);
	struct pebs_ds_save_area ds;

	pebs_ds_save_area(p, 3, &ds);
	/* CPU 3: 0xFFFFC90000000000 + 3 * 0x20000 = 0xFFFFC90000060000 */
	cr_assert(eq(u64, ds.pebs_buffer_base, 0xFFFFC90000060000ull));
	cr_assert(eq(u64, ds.pebs_index, 0xFFFFC90000060000ull), "empty buffer");
	/* 341 records of 0xC0 = 65472 = 0xFFC0 bytes */
	cr_assert(eq(u64, ds.pebs_absolute_maximum, 0xFFFFC9000006FFC0ull));
	/* threshold 341 - 341/16 = 320 records: 320 * 0xC0 = 0xF000 */
	cr_assert(eq(u64, ds.pebs_interrupt_threshold, 0xFFFFC9000006F000ull));
	/* reset = 2^48 - 1000003 = 281474975710653 */
	cr_assert(eq(u64, ds.pebs_counter_reset[0], 0xFFFFFFF0BDBDull));
	cr_assert(eq(u64, ds.pebs_counter_reset[1], 0));
	cr_assert(eq(u64, ds.bts_buffer_base, 0), "BTS is not used");
	cr_assert(eq(u64, ds.bts_index, 0));
	pebs_destroy(p);
}

/*
 * The DS save area as the processor keeps it in memory: each member
 * little-endian at its offset in the model's struct (which pebs.h pins to
 * seed 004). The model holds values only; the bytes are spelt out here.
 */
static void ds_save_area_bytes(const struct pebs_ds_save_area *ds, uint8_t out[0x60])
{
	const uint64_t v[12] = {ds->bts_buffer_base,	   ds->bts_index,
				ds->bts_absolute_maximum,  ds->bts_interrupt_threshold,
				ds->pebs_buffer_base,	   ds->pebs_index,
				ds->pebs_absolute_maximum, ds->pebs_interrupt_threshold,
				ds->pebs_counter_reset[0], ds->pebs_counter_reset[1],
				ds->pebs_counter_reset[2], ds->pebs_counter_reset[3]};
	const size_t at[12] = {
		offsetof(struct pebs_ds_save_area, bts_buffer_base),
		offsetof(struct pebs_ds_save_area, bts_index),
		offsetof(struct pebs_ds_save_area, bts_absolute_maximum),
		offsetof(struct pebs_ds_save_area, bts_interrupt_threshold),
		offsetof(struct pebs_ds_save_area, pebs_buffer_base),
		offsetof(struct pebs_ds_save_area, pebs_index),
		offsetof(struct pebs_ds_save_area, pebs_absolute_maximum),
		offsetof(struct pebs_ds_save_area, pebs_interrupt_threshold),
		offsetof(struct pebs_ds_save_area, pebs_counter_reset),
		offsetof(struct pebs_ds_save_area, pebs_counter_reset) + 8,
		offsetof(struct pebs_ds_save_area, pebs_counter_reset) + 16,
		offsetof(struct pebs_ds_save_area, pebs_counter_reset) + 24,
	};

	for (unsigned i = 0; i < 12; i++) {
		for (unsigned b = 0; b < 8; b++) {
			out[at[i] + b] = (uint8_t)(v[i] >> (8 * b));
		}
	}
}

Test(pebs, ds_save_area_encodes_each_member_little_endian_at_its_offset)
{
	struct pebs_ds_save_area ds = {
		.bts_buffer_base = 0x0102030405060708ull,
		.bts_index = 0x1112131415161718ull,
		.bts_absolute_maximum = 0x2122232425262728ull,
		.bts_interrupt_threshold = 0x3132333435363738ull,
		.pebs_buffer_base = 0x4142434445464748ull,
		.pebs_index = 0x5152535455565758ull,
		.pebs_absolute_maximum = 0x6162636465666768ull,
		.pebs_interrupt_threshold = 0x7172737475767778ull,
		.pebs_counter_reset = {0x8182838485868788ull, 0x9192939495969798ull,
				       0xA1A2A3A4A5A6A7A8ull, 0xB1B2B3B4B5B6B7B8ull},
	};
	/* seed 004: twelve ULONGLONGs at 0x00, 0x08, ... 0x58 */
	static const uint8_t want[0x60] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* 0x00 BtsBufferBase */
		0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11, /* 0x08 BtsIndex */
		0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21, /* 0x10 BtsAbsoluteMaximum */
		0x38, 0x37, 0x36, 0x35, 0x34, 0x33, 0x32, 0x31, /* 0x18 BtsInterruptThreshold */
		0x48, 0x47, 0x46, 0x45, 0x44, 0x43, 0x42, 0x41, /* 0x20 PebsBufferBase */
		0x58, 0x57, 0x56, 0x55, 0x54, 0x53, 0x52, 0x51, /* 0x28 PebsIndex */
		0x68, 0x67, 0x66, 0x65, 0x64, 0x63, 0x62, 0x61, /* 0x30 PebsAbsoluteMaximum */
		0x78, 0x77, 0x76, 0x75, 0x74, 0x73, 0x72, 0x71, /* 0x38 PebsInterruptThreshold */
		0x88, 0x87, 0x86, 0x85, 0x84, 0x83, 0x82, 0x81, /* 0x40 PebsCounterReset0 */
		0x98, 0x97, 0x96, 0x95, 0x94, 0x93, 0x92, 0x91, /* 0x48 PebsCounterReset1 */
		0xA8, 0xA7, 0xA6, 0xA5, 0xA4, 0xA3, 0xA2, 0xA1, /* 0x50 PebsCounterReset2 */
		0xB8, 0xB7, 0xB6, 0xB5, 0xB4, 0xB3, 0xB2, 0xB1, /* 0x58 PebsCounterReset3 */
	};
	uint8_t got[0x60];

	memset(got, 0xEE, sizeof(got));
	ds_save_area_bytes(&ds, got);
	cr_assert(eq(int, memcmp(got, want, sizeof(want)), 0));
}

Test(pebs, without_pebs_the_index_and_area_are_zero)
{
	struct pebs *p = make(2, 2, false, 1);
	struct pebs_ds_save_area ds;
	uint64_t pmc[PEBS_MAX_COUNTERS], idx = 1;

	cr_assert(eq(int, pebs_advance(p, 1, 500000000, SIM_ACT_COMPUTE), 0));
	pebs_read(p, 1, pmc, &idx);
	cr_assert(eq(u64, idx, 0));
	cr_assert(gt(u64, pmc[1], 0));
	pebs_ds_save_area(p, 1, &ds);
	cr_assert(eq(u64, ds.pebs_buffer_base, 0));
	cr_assert(eq(u64, ds.pebs_index, 0));
	pebs_destroy(p);
}

/* ---- counters ------------------------------------------------------------- */

Test(pebs, cycles_counter_is_exact_while_running)
{
	struct pebs *p = make(1, 1, false, 3);
	uint64_t pmc[PEBS_MAX_COUNTERS], t = 0;

	/* 1000 intervals of 333 ns at 3000 MHz: 999 cycles each, 999000 in total */
	for (unsigned i = 0; i < 1000; i++) {
		t += 333;
		cr_assert(eq(int, pebs_advance(p, 0, t, SIM_ACT_COMPUTE), 0));
	}
	pebs_read(p, 0, pmc, NULL);
	cr_assert(eq(u64, pmc[0], 999000u));
	/* 7 ns intervals: 21 cycles each, the fractions carried (none here); then 1 ns: 3 */
	t += 7;
	pebs_advance(p, 0, t, SIM_ACT_MEMORY);
	t += 1;
	pebs_advance(p, 0, t, SIM_ACT_MEMORY);
	pebs_read(p, 0, pmc, NULL);
	cr_assert(eq(u64, pmc[0], 999024u));
	pebs_destroy(p);
}

Test(pebs, cycles_fraction_is_carried_across_intervals)
{
	struct pebs_cfg cfg = {.cpus = 1, .cpu_mhz = 2500, .ncounters = 1, .seed = 3};
	struct pebs *p = pebs_create(&cfg);
	uint64_t pmc[PEBS_MAX_COUNTERS];

	/* 2.5 cycles per ns: 3 intervals of 1 ns = 7.5 cycles -> 7, never 3 * 2 = 6 */
	pebs_advance(p, 0, 1, SIM_ACT_COMPUTE);
	pebs_advance(p, 0, 2, SIM_ACT_COMPUTE);
	pebs_advance(p, 0, 3, SIM_ACT_COMPUTE);
	pebs_read(p, 0, pmc, NULL);
	cr_assert(eq(u64, pmc[0], 7));
	pebs_destroy(p);
}

Test(pebs, counters_are_monotonic_and_follow_the_activity)
{
	struct pebs *p = make(4, 16, true, 11);
	uint64_t last[4][PEBS_MAX_COUNTERS] = {{0}}, t[4] = {0};
	struct sim_rng r;

	sim_rng_init(&r, 99, SIM_RNG_SCHED_GLOBAL, 0);
	for (unsigned i = 0; i < 20000; i++) {
		unsigned c = (unsigned)sim_rng_below(&r, 4);
		enum sim_activity act = (enum sim_activity)sim_rng_below(&r, SIM_ACTIVITIES);
		uint64_t pmc[PEBS_MAX_COUNTERS];

		t[c] += sim_rng_range(&r, 0, 5000000);
		cr_assert(eq(int, pebs_advance(p, c, t[c], act), 0));
		pebs_read(p, c, pmc, NULL);
		for (unsigned k = 0; k < PEBS_MAX_COUNTERS; k++) {
			cr_assert(ge(u64, pmc[k], last[c][k]), "cpu %u counter %u went back", c, k);
			last[c][k] = pmc[k];
		}
	}
	for (unsigned k = 0; k < PEBS_MAX_COUNTERS; k++) {
		cr_assert(gt(u64, last[0][k], 0), "counter %u never moved", k);
	}
	pebs_destroy(p);
}

/* instructions and LLC misses of one second of @act on a fresh CPU */
static void one_second(enum sim_activity act, uint64_t *instr, uint64_t *llc, uint64_t *cyc)
{
	struct pebs *p = make(1, 4, false, 5);
	uint64_t pmc[PEBS_MAX_COUNTERS];

	for (uint64_t t = 1000000; t <= 1000000000; t += 1000000) {
		pebs_advance(p, 0, t, act);
	}
	pebs_read(p, 0, pmc, NULL);
	*cyc = pmc[0];
	*instr = pmc[1];
	*llc = pmc[2];
	pebs_destroy(p);
}

Test(pebs, activity_shapes_the_rates)
{
	uint64_t ci, cl, cc, mi, ml, mc, ii, il, ic;

	one_second(SIM_ACT_COMPUTE, &ci, &cl, &cc);
	one_second(SIM_ACT_MEMORY, &mi, &ml, &mc);
	one_second(SIM_ACT_IDLE, &ii, &il, &ic);
	/* running: every one of the 3e9 cycles counts */
	cr_assert(eq(u64, cc, 3000000000u));
	cr_assert(eq(u64, mc, 3000000000u));
	/* the idle loop is halted most of the time: well under a tenth */
	cr_assert(lt(u64, ic, 300000000u));
	/* compute retires far more instructions per cycle than memory-bound code */
	cr_assert(gt(u64, ci, 2 * mi));
	/* ...and misses the LLC far less often per instruction (0.3 vs 6 per 1000) */
	cr_assert(lt(u64, cl / (ci / 1000000u), ml / (mi / 1000000u) / 4u));
	/* IPC of compute about 2.6 (noise 7/8..9/8 averages out) */
	cr_assert(gt(u64, ci, 7000000000u));
	cr_assert(lt(u64, ci, 8600000000u));
}

Test(pebs, counter_values_do_not_depend_on_how_many_are_reported)
{
	struct pebs *a = make(2, 2, true, 77), *b = make(2, 16, true, 77);
	uint64_t pa[PEBS_MAX_COUNTERS], pb[PEBS_MAX_COUNTERS], ia, ib;

	for (uint64_t t = 1; t < 50; t++) {
		pebs_advance(a, 1, t * 7777777u, (enum sim_activity)(t % SIM_ACTIVITIES));
		pebs_advance(b, 1, t * 7777777u, (enum sim_activity)(t % SIM_ACTIVITIES));
	}
	pebs_read(a, 1, pa, &ia);
	pebs_read(b, 1, pb, &ib);
	cr_assert(eq(u64, pa[0], pb[0]));
	cr_assert(eq(u64, pa[1], pb[1]));
	cr_assert(eq(u64, ia, ib));
	for (unsigned k = 2; k < PEBS_MAX_COUNTERS; k++) {
		cr_assert(eq(u64, pa[k], 0), "counter %u is not reported", k);
		cr_assert(gt(u64, pb[k], 0));
	}
	pebs_destroy(a);
	pebs_destroy(b);
}

Test(pebs, same_seed_same_values_other_seed_other_values)
{
	struct pebs *a = make(1, 4, true, 1), *b = make(1, 4, true, 1), *c = make(1, 4, true, 2);
	uint64_t pa[PEBS_MAX_COUNTERS], pb[PEBS_MAX_COUNTERS], pc[PEBS_MAX_COUNTERS];

	for (uint64_t t = 1; t < 100; t++) {
		pebs_advance(a, 0, t * 1000000u, SIM_ACT_BRANCHY);
		pebs_advance(b, 0, t * 1000000u, SIM_ACT_BRANCHY);
		pebs_advance(c, 0, t * 1000000u, SIM_ACT_BRANCHY);
	}
	pebs_read(a, 0, pa, NULL);
	pebs_read(b, 0, pb, NULL);
	pebs_read(c, 0, pc, NULL);
	cr_assert(eq(int, memcmp(pa, pb, sizeof(pa)), 0));
	cr_assert(eq(u64, pa[0], pc[0]), "cycles carry no noise");
	cr_assert(ne(u64, pa[1], pc[1]), "instructions do");
	pebs_destroy(a);
	pebs_destroy(b);
	pebs_destroy(c);
}

/* ---- PEBS index ------------------------------------------------------------ */

Test(pebs, index_advances_by_record_size_stays_in_bounds_and_wraps)
{
	struct pebs *p = make(2, 2, true, 13);
	struct pebs_ds_save_area ds;
	uint64_t last = 0, wraps = 0, t = 0;
	struct sim_rng r;

	sim_rng_init(&r, 5, SIM_RNG_SCHED_GLOBAL, 0);
	pebs_ds_save_area(p, 1, &ds);
	for (unsigned i = 0; i < 5000; i++) {
		uint64_t pmc[PEBS_MAX_COUNTERS], idx;
		struct pebs_cpu_stats st;
		uint64_t samples;

		t += sim_rng_range(&r, 1, 2000000);
		pebs_advance(p, 1, t, (enum sim_activity)sim_rng_below(&r, SIM_ACTIVITIES));
		pebs_read(p, 1, pmc, &idx);
		pebs_get_cpu_stats(p, 1, &st);
		cr_assert(ge(u64, idx, ds.pebs_buffer_base));
		cr_assert(lt(u64, idx, ds.pebs_absolute_maximum));
		cr_assert(lt(u64, idx, ds.pebs_interrupt_threshold));
		cr_assert(eq(u64, (idx - ds.pebs_buffer_base) % 0xC0u, 0));
		/* one sample per 1000003 instructions; 320 records then the PMI drains */
		samples = pmc[1] / 1000003u;
		cr_assert(eq(u64, st.samples, samples));
		cr_assert(eq(u64, st.interrupts, samples / 320u));
		cr_assert(eq(u64, idx, ds.pebs_buffer_base + (samples % 320u) * 0xC0u));
		if (idx < last) {
			wraps++;
		}
		last = idx;
	}
	cr_assert(gt(u64, wraps, 3), "the buffer wrapped %llu times", (unsigned long long)wraps);
	pebs_destroy(p);
}

Test(pebs, counters_without_a_source_count_their_ids_default)
{
	struct pebs *p = make(1, 16, false, 1);

	cr_assert(eq(str, (char *)pmc_source_name(pebs_counter_source(p, 0)), "TotalCycles"));
	cr_assert(
		eq(str, (char *)pmc_source_name(pebs_counter_source(p, 1)), "InstructionRetired"));
	cr_assert(eq(str, (char *)pmc_source_name(pebs_counter_source(p, 2)), "LLCMisses"));
	cr_assert(eq(str, (char *)pmc_source_name(pebs_counter_source(p, 11)),
		     "UnhaltedReferenceCycles"));
	cr_assert(eq(str, (char *)pmc_source_name(pebs_counter_source(p, 15)),
		     "MemoryBarrierCycles"));
	cr_assert(eq(u32, pebs_counter_source(p, 16), 0));
	pebs_destroy(p);
}
