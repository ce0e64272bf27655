// SPDX-License-Identifier: MIT
/*
 * tests/test_infer.c - what the analysis infers from a file
 * (tools/lib/analysis/infer.c): why a compact batch was flushed, at each
 * rule's boundary and in the kernel's order (KERNEL_FACTS 1.2 step 4), and
 * why a spin-lock release was logged (6.2, default thresholds of 6.3).
 * The end-to-end agreement with gen's own counts is tests/test_pictures.py.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tools/lib/analysis/infer.h"

#define TICK_NS 15625000ull /* TimerResolution 156250 x 100 ns */

static const uint32_t full_table[16] = {4,  8,	12, 16, 20, 24, 28, 32,
					36, 40, 44, 48, 52, 56, 60, 64};

/* A batch that no rule flushes: 15 TIDs, few records, short span, small delta. */
static struct flush_evidence quiet(void)
{
	return (struct flush_evidence){
		.flusher_known = true,
		.flusher_old_tid = 100,
		.tids = 15,
		.tid_table = full_table,
		.record_bytes = 0x100,
		.delta = 1000,
		.span_ns = 1000000,
		.tick_ns = TICK_NS,
	};
}

struct flush_case {
	const char *what;
	unsigned tids;
	uint32_t flusher; /* old TID of the flushing switch; UINT32_MAX: not in the file */
	size_t record_bytes;
	uint64_t delta;
	uint64_t span_ns;
	bool at_end;
	enum etwforge_flush_seen want;
};

static struct flush_case flush_cases[] = {
	{"nothing shows", 15, 100, 0x100, 1000, 1000000, false, ETWFORGE_FLUSH_UNKNOWN},
	{"16 TIDs, a 17th thread", 16, 100, 0x100, 1000, 1000000, false, ETWFORGE_FLUSH_TID_FULL},
	{"16 TIDs, the thread is among them", 16, 64, 0x100, 1000, 1000000, false,
	 ETWFORGE_FLUSH_UNKNOWN},
	{"16 TIDs, the idle thread", 16, 0, 0x100, 1000, 1000000, false, ETWFORGE_FLUSH_UNKNOWN},
	{"16 TIDs, flusher not in the file", 16, UINT32_MAX, 0x392, 1000, 1000000, false,
	 ETWFORGE_FLUSH_UNKNOWN},
	{"15 TIDs, flusher not in the file, size", 15, UINT32_MAX, 0x392, 1000, 1000000, false,
	 ETWFORGE_FLUSH_SIZE},
	{"Offset + 8 == 0x400 fits", 15, 100, 0x390, 1000, 1000000, false, ETWFORGE_FLUSH_UNKNOWN},
	{"Offset + 8 > 0x400", 15, 100, 0x392, 1000, 1000000, false, ETWFORGE_FLUSH_SIZE},
	{"delta 0x40000000 fits", 15, 100, 0x100, 0x40000000, 1000000, false,
	 ETWFORGE_FLUSH_UNKNOWN},
	{"delta 0x40000001", 15, 100, 0x100, 0x40000001, 1000000, false, ETWFORGE_FLUSH_DELTA},
	{"500 ticks exactly", 15, 100, 0x100, 1000, 500 * TICK_NS, false, ETWFORGE_FLUSH_UNKNOWN},
	{"501 ticks: sure", 15, 100, 0x100, 1000, 501 * TICK_NS, false, ETWFORGE_FLUSH_TICKS},
	{"500.5 ticks: the phase decides", 15, 100, 0x100, 1000, 500 * TICK_NS + TICK_NS / 2, false,
	 ETWFORGE_FLUSH_TICKS},
	{"500.5 ticks and size: size", 15, 100, 0x392, 1000, 500 * TICK_NS + TICK_NS / 2, false,
	 ETWFORGE_FLUSH_SIZE},
	{"ticks before size", 15, 100, 0x392, 1000, 600 * TICK_NS, false, ETWFORGE_FLUSH_TICKS},
	{"size before delta", 15, 100, 0x392, 0x50000000, 1000000, false, ETWFORGE_FLUSH_SIZE},
	{"TID table before ticks", 16, 100, 0x100, 1000, 600 * TICK_NS, false,
	 ETWFORGE_FLUSH_TID_FULL},
	{"end of tracing", 16, UINT32_MAX, 0x392, 0x50000000, 600 * TICK_NS, true,
	 ETWFORGE_FLUSH_END},
};

ParameterizedTestParameters(infer, flush_rules)
{
	return cr_make_param_array(struct flush_case, flush_cases,
				   sizeof(flush_cases) / sizeof(flush_cases[0]));
}

ParameterizedTest(struct flush_case *c, infer, flush_rules)
{
	struct flush_evidence e = quiet();

	e.tids = c->tids;
	e.flusher_known = c->flusher != UINT32_MAX;
	e.flusher_old_tid = e.flusher_known ? c->flusher : 0;
	e.record_bytes = c->record_bytes;
	e.delta = c->delta;
	e.span_ns = c->span_ns;
	e.at_end = c->at_end;
	cr_expect_eq(infer_flush(&e), c->want, "%s: got %s, want %s", c->what,
		     infer_flush_name(infer_flush(&e)), infer_flush_name(c->want));
}

Test(infer, unknown_tick_length_never_says_ticks)
{
	struct flush_evidence e = quiet();

	e.tick_ns = 0;
	e.span_ns = UINT64_MAX;
	cr_assert_eq(infer_flush(&e), ETWFORGE_FLUSH_UNKNOWN);
}

Test(infer, reason_names_are_the_summary_names)
{
	/* gen --json's batches_by_reason keys, in order, without "stop" */
	static const char *const want[] = {"tid_full", "ticks", "size", "delta", "end", "unknown"};

	for (unsigned r = 0; r < ETWFORGE_FLUSH_SEEN; r++) {
		cr_assert_str_eq(infer_flush_name(r), want[r]);
	}
}

static struct etwforge_spinlock lock(uint64_t acquire, uint64_t release, uint32_t spins)
{
	return (struct etwforge_spinlock){
		.acquire_time = acquire, .release_time = release, .spin_count = spins};
}

static const struct etwforge_spinlock_config defaults = {1, 1, 1000, 1000000};

Test(infer, spin_kind_follows_the_sampling_predicate)
{
	struct etwforge_spinlock l;

	l = lock(5000, 5000 + 1000001, 0);
	cr_expect_eq(infer_spin(&l, &defaults), ETWFORGE_SPIN_HOLD, "held over HoldThreshold");
	l = lock(5000, 5000 + 1000001, 7);
	cr_expect_eq(infer_spin(&l, &defaults), ETWFORGE_SPIN_HOLD, "the hold test comes first");
	l = lock(5000, 5000 + 1000000, 7);
	cr_expect_eq(infer_spin(&l, &defaults), ETWFORGE_SPIN_CONTENDED,
		     "1000000 cycles is not over the threshold");
	l = lock(5000, 5100, 1);
	cr_expect_eq(infer_spin(&l, &defaults), ETWFORGE_SPIN_CONTENDED,
		     "SpinCount >= SpinThreshold (1)");
	l = lock(5000, 5100, 0);
	cr_expect_eq(infer_spin(&l, &defaults), ETWFORGE_SPIN_SAMPLED,
		     "no spin, short hold: an acquire sample");
	l = lock(5000, 5000 + (UINT64_C(1) << 32) + 7, 0);
	cr_expect_eq(infer_spin(&l, &defaults), ETWFORGE_SPIN_SAMPLED,
		     "the hold time is compared in 32 bits");
}

Test(infer, spin_kind_uses_the_files_own_parameters)
{
	/* a rundown saying SpinThreshold 4, HoldThreshold 0 (off) */
	static const struct etwforge_spinlock_config cfg = {4, 1, 1000, 0};
	struct etwforge_spinlock l;

	l = lock(5000, 5000 + 3000000, 0);
	cr_expect_eq(infer_spin(&l, &cfg), ETWFORGE_SPIN_SAMPLED, "the hold test is off");
	l = lock(5000, 5100, 4);
	cr_expect_eq(infer_spin(&l, &cfg), ETWFORGE_SPIN_CONTENDED, "4 spins >= 4");
	l = lock(5000, 5100, 3);
	cr_expect_eq(infer_spin(&l, &cfg), ETWFORGE_SPIN_SAMPLED,
		     "3 spins < 4: not a contention sample");
}
