/* SPDX-License-Identifier: MIT */
/*
 * tests/test_etw_encode.c - the stateless wire encoders/decoders of
 * producer/etw_encode.h against golden bytes typed by hand from the spec
 * tables (KERNEL_FACTS 3, 5, 6 and seeds 000-003), never computed from the
 * constants the encoder uses: a round trip alone cannot catch a wrong offset
 * or mask, because encoder and decoder share them.
 *
 * Each golden array carries the arithmetic that produced it. Round trips and
 * properties use a fixed xorshift sequence (no rand()), so every run checks
 * the same values.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_encode.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define POISON	     0xAA

/* Compare @n bytes at @got with @want, printing both on failure. */
#define ASSERT_BYTES(got, want, n)                                                                 \
	do {                                                                                       \
		struct cr_mem got_m_ = {.data = (got), .size = (n)};                               \
		struct cr_mem want_m_ = {.data = (want), .size = (n)};                             \
		cr_assert(eq(mem, got_m_, want_m_));                                               \
	} while (0)

/* All @n bytes at @p still hold POISON: nothing was written there. */
static void assert_untouched(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cr_assert(eq(u8, p[i], POISON), "byte %zu was written", i);
	}
}

/* A heap copy of exactly @n bytes (NULL for 0), so ASan sees any over-read. */
static uint8_t *dup_prefix(const uint8_t *src, size_t n)
{
	uint8_t *p;

	if (n == 0) {
		return NULL;
	}
	p = malloc(n);
	cr_assert(not(eq(ptr, p, NULL)));
	memcpy(p, src, n);
	return p;
}

/* Deterministic xorshift64 (Marsaglia), seeded per test. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* ======================================================================== */
/* PERFINFO_TRACE_HEADER + extended items (KERNEL_FACTS 3.1, 3.2, seed 002) */
/* ======================================================================== */

/*
 * CSwitch v2 on x64: Marker 0xC0110000 (PERFINFO64) | version 2 = 0xC0110002;
 * Size 0x0028 (0x10 header + 0x18 payload); HookId 0x0524; TS 0x0123456789ABCDEF.
 */
static const uint8_t hdr_x64_plain[] = {
	0x02, 0x00, 0x11, 0xC0,				/* Marker 0xC0110002 */
	0x28, 0x00,					/* Size 0x28 */
	0x24, 0x05,					/* HookId 0x0524 */
	0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, /* TS */
};

/*
 * SpinLock on x86: Marker 0xC0100000 (PERFINFO32) | 2 = 0xC0100002;
 * Size 0x40 (0x10 + 0x30 x86 payload); HookId 0x0529; TS 0x1122334455667788.
 */
static const uint8_t hdr_x86_plain[] = {
	0x02, 0x00, 0x10, 0xC0,				/* Marker 0xC0100002 */
	0x40, 0x00,					/* Size 0x40 */
	0x29, 0x05,					/* HookId 0x0529 */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* TS */
};

/*
 * CSwitch with PEBS: Marker 0xC0110002 | 0x8000 = 0xC0118002; Size 0x28 + 8 =
 * 0x30; TS 0x000001F4A5B6C7D8; PebsIndex 0x00000000FEDC1234 at 0x10.
 */
static const uint8_t hdr_pebs[] = {
	0x02, 0x80, 0x11, 0xC0,				/* Marker 0xC0118002 */
	0x30, 0x00,					/* Size 0x30 */
	0x24, 0x05,					/* HookId 0x0524 */
	0xD8, 0xC7, 0xB6, 0xA5, 0xF4, 0x01, 0x00, 0x00, /* TS */
	0x34, 0x12, 0xDC, 0xFE, 0x00, 0x00, 0x00, 0x00, /* PebsIndex */
};

/*
 * CSwitch with 2 PMC: Marker 0xC0110002 | 2 << 8 = 0xC0110202; Size 0x28 +
 * 2 * 8 = 0x38; TS 0x100; Counter[0] 0x0102030405060708, [1] 0xA0B0C0D0E0F01020.
 */
static const uint8_t hdr_pmc2[] = {
	0x02, 0x02, 0x11, 0xC0,				/* Marker 0xC0110202 */
	0x38, 0x00,					/* Size 0x38 */
	0x24, 0x05,					/* HookId 0x0524 */
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* TS */
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* Counter[0] */
	0x20, 0x10, 0xF0, 0xE0, 0xD0, 0xC0, 0xB0, 0xA0, /* Counter[1] */
};

/*
 * CSwitch v4 with PEBS and 2 PMC: Marker 0xC0110004 | 0x8000 | 2 << 8 =
 * 0xC0118204; Size 0x28 + 8 + 16 = 0x40; TS 0x12345678; PebsIndex 0xAB first,
 * then Counter[0] 0xCAFEBABE, Counter[1] 0x8000000000000001.
 */
static const uint8_t hdr_pebs_pmc[] = {
	0x04, 0x82, 0x11, 0xC0,				/* Marker 0xC0118204 */
	0x40, 0x00,					/* Size 0x40 */
	0x24, 0x05,					/* HookId 0x0524 */
	0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00, /* TS */
	0xAB, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* PebsIndex */
	0xBE, 0xBA, 0xFE, 0xCA, 0x00, 0x00, 0x00, 0x00, /* Counter[0] */
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* Counter[1] */
};

static struct etl_perfinfo_header hdr_x64_plain_fields(void)
{
	return (struct etl_perfinfo_header){
		.arch = ETL_ARCH_X64,
		.version = 2,
		.size = 0x28,
		.hook_id = 0x0524,
		.ts = 0x0123456789ABCDEFull,
	};
}

static struct etl_perfinfo_header hdr_x86_plain_fields(void)
{
	return (struct etl_perfinfo_header){
		.arch = ETL_ARCH_X86,
		.version = 2,
		.size = 0x40,
		.hook_id = 0x0529,
		.ts = 0x1122334455667788ull,
	};
}

static struct etl_perfinfo_header hdr_pebs_fields(void)
{
	return (struct etl_perfinfo_header){
		.arch = ETL_ARCH_X64,
		.version = 2,
		.size = 0x30,
		.hook_id = 0x0524,
		.ts = 0x000001F4A5B6C7D8ull,
		.has_pebs = true,
		.pebs_index = 0xFEDC1234ull,
	};
}

static struct etl_perfinfo_header hdr_pmc2_fields(void)
{
	return (struct etl_perfinfo_header){
		.arch = ETL_ARCH_X64,
		.version = 2,
		.size = 0x38,
		.hook_id = 0x0524,
		.ts = 0x100,
		.pmc_count = 2,
		.pmc = {0x0102030405060708ull, 0xA0B0C0D0E0F01020ull},
	};
}

static struct etl_perfinfo_header hdr_pebs_pmc_fields(void)
{
	return (struct etl_perfinfo_header){
		.arch = ETL_ARCH_X64,
		.version = 4,
		.size = 0x40,
		.hook_id = 0x0524,
		.ts = 0x12345678,
		.has_pebs = true,
		.pebs_index = 0xAB,
		.pmc_count = 2,
		.pmc = {0xCAFEBABEull, 0x8000000000000001ull},
	};
}

static void assert_header_eq(const struct etl_perfinfo_header *got,
			     const struct etl_perfinfo_header *want)
{
	cr_assert(eq(int, got->arch, want->arch));
	cr_assert(eq(u8, got->version, want->version));
	cr_assert(eq(u16, got->size, want->size));
	cr_assert(eq(u16, got->hook_id, want->hook_id));
	cr_assert(eq(u64, got->ts, want->ts));
	cr_assert(eq(int, got->has_pebs, want->has_pebs));
	cr_assert(eq(u64, got->pebs_index, want->has_pebs ? want->pebs_index : 0));
	cr_assert(eq(uint, got->pmc_count, want->pmc_count));
	for (unsigned i = 0; i < ETL_MAX_PMC_ITEMS; i++) {
		cr_assert(eq(u64, got->pmc[i], i < want->pmc_count ? want->pmc[i] : 0), "pmc[%u]",
			  i);
	}
}

/* Encode @h into a poisoned buffer; check the golden and that nothing past it moved. */
static void check_header_golden(const struct etl_perfinfo_header *h, const uint8_t *want,
				size_t want_len)
{
	uint8_t buf[0x60];

	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(sz, etl_perfinfo_header_len(h), want_len));
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), h), (int)want_len));
	ASSERT_BYTES(buf, want, want_len);
	assert_untouched(buf + want_len, sizeof(buf) - want_len);
}

static void check_header_decode(const uint8_t *golden, size_t len,
				const struct etl_perfinfo_header *want)
{
	struct etl_perfinfo_header got;

	memset(&got, 0x5A, sizeof(got));
	cr_assert(eq(int, etl_decode_perfinfo_header(golden, len, &got), (int)len));
	assert_header_eq(&got, want);
}

Test(perfinfo_header, x64_plain_matches_golden)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();

	check_header_golden(&h, hdr_x64_plain, sizeof(hdr_x64_plain));
}

Test(perfinfo_header, x86_plain_matches_golden)
{
	struct etl_perfinfo_header h = hdr_x86_plain_fields();

	check_header_golden(&h, hdr_x86_plain, sizeof(hdr_x86_plain));
}

Test(perfinfo_header, pebs_item_sets_0x8000_and_follows_header)
{
	struct etl_perfinfo_header h = hdr_pebs_fields();

	check_header_golden(&h, hdr_pebs, sizeof(hdr_pebs));
}

Test(perfinfo_header, two_pmc_items_set_count_in_bits_8_to_10)
{
	struct etl_perfinfo_header h = hdr_pmc2_fields();

	check_header_golden(&h, hdr_pmc2, sizeof(hdr_pmc2));
}

Test(perfinfo_header, pebs_item_comes_before_pmc_items)
{
	struct etl_perfinfo_header h = hdr_pebs_pmc_fields();

	check_header_golden(&h, hdr_pebs_pmc, sizeof(hdr_pebs_pmc));
}

Test(perfinfo_header, seven_pmc_items_give_count_7_and_0x48_bytes)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();
	uint8_t buf[0x48];
	/* Marker 0xC0110002 | 7 << 8 = 0xC0110702 */
	static const uint8_t marker[] = {0x02, 0x07, 0x11, 0xC0};

	h.pmc_count = 7;
	h.size = 0x28 + 7 * 8;
	for (unsigned i = 0; i < 7; i++) {
		h.pmc[i] = 0x1111111111111111ull * (i + 1);
	}
	cr_assert(eq(sz, etl_perfinfo_header_len(&h), 0x48));
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), 0x48));
	ASSERT_BYTES(buf, marker, sizeof(marker));
	/* Counter[6] = 0x7777777777777777 fills the last 8 bytes, 0x40..0x47. */
	for (unsigned i = 0x40; i < 0x48; i++) {
		cr_assert(eq(u8, buf[i], 0x77));
	}
}

Test(perfinfo_header, unused_items_are_not_written)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();

	/* A PEBS value without the flag and counters past pmc_count stay out. */
	h.pebs_index = 0xFFFFFFFFFFFFFFFFull;
	h.pmc[0] = 0xFFFFFFFFFFFFFFFFull;
	check_header_golden(&h, hdr_x64_plain, sizeof(hdr_x64_plain));
}

Test(perfinfo_header, len_counts_eight_bytes_per_item)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();

	cr_assert(eq(sz, etl_perfinfo_header_len(&h), 0x10));
	h.has_pebs = true;
	cr_assert(eq(sz, etl_perfinfo_header_len(&h), 0x18));
	h.pmc_count = 7;
	cr_assert(eq(sz, etl_perfinfo_header_len(&h), 0x50));
	h.has_pebs = false;
	h.pmc_count = 3;
	cr_assert(eq(sz, etl_perfinfo_header_len(&h), 0x28));
}

Test(perfinfo_header, decodes_every_golden)
{
	struct etl_perfinfo_header h;

	h = hdr_x64_plain_fields();
	check_header_decode(hdr_x64_plain, sizeof(hdr_x64_plain), &h);
	h = hdr_x86_plain_fields();
	check_header_decode(hdr_x86_plain, sizeof(hdr_x86_plain), &h);
	h = hdr_pebs_fields();
	check_header_decode(hdr_pebs, sizeof(hdr_pebs), &h);
	h = hdr_pmc2_fields();
	check_header_decode(hdr_pmc2, sizeof(hdr_pmc2), &h);
	h = hdr_pebs_pmc_fields();
	check_header_decode(hdr_pebs_pmc, sizeof(hdr_pebs_pmc), &h);
}

Test(perfinfo_header, decode_returns_header_plus_items_not_size)
{
	struct etl_perfinfo_header h;
	uint8_t ev[0x28];

	/* A whole 0x28-byte event: the decoder consumes only the 0x10 header. */
	memset(ev, 0, sizeof(ev));
	memcpy(ev, hdr_x64_plain, sizeof(hdr_x64_plain));
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), 0x10));
	cr_assert(eq(u16, h.size, 0x28));
}

Test(perfinfo_header, pmc_count_8_is_einval)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();
	uint8_t buf[0x60];

	h.pmc_count = 8;
	h.size = 0x60;
	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), -EINVAL));
	assert_untouched(buf, sizeof(buf));
}

Test(perfinfo_header, size_below_header_and_items_is_einval)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();
	uint8_t buf[0x40];

	h.size = 0x0F;
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), -EINVAL));
	h.size = 0x10;
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), 0x10));

	h = hdr_pebs_pmc_fields(); /* header + items = 0x28 */
	h.size = 0x27;
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), -EINVAL));
	h.size = 0x28;
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), 0x28));
}

Test(perfinfo_header, unknown_arch_is_einval)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();
	uint8_t buf[0x10];

	h.arch = (enum etl_arch)2;
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), -EINVAL));
}

Test(perfinfo_header, every_cap_below_len_is_enospc)
{
	struct etl_perfinfo_header h = hdr_pebs_pmc_fields();
	uint8_t buf[0x28];

	for (size_t cap = 0; cap < 0x28; cap++) {
		memset(buf, POISON, sizeof(buf));
		cr_assert(eq(int, etl_encode_perfinfo_header(buf, cap, &h), -ENOSPC), "cap %zu",
			  cap);
		assert_untouched(buf, sizeof(buf));
	}
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, 0x28, &h), 0x28));
}

Test(perfinfo_header, every_short_input_is_einval)
{
	static const struct {
		const uint8_t *golden;
		size_t len;
	} cases[] = {
		{hdr_x64_plain, sizeof(hdr_x64_plain)},
		{hdr_pebs, sizeof(hdr_pebs)},
		{hdr_pebs_pmc, sizeof(hdr_pebs_pmc)},
	};
	struct etl_perfinfo_header h, before;

	memset(&before, 0x5A, sizeof(before));
	for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
		for (size_t len = 0; len < cases[c].len; len++) {
			uint8_t *p = dup_prefix(cases[c].golden, len);

			h = before;
			cr_assert(eq(int, etl_decode_perfinfo_header(p, len, &h), -EINVAL),
				  "case %zu len %zu", c, len);
			cr_assert(eq(int, memcmp(&h, &before, sizeof(h)), 0), "output touched");
			free(p);
		}
	}
}

Test(perfinfo_header, decode_rejects_size_below_header_and_items)
{
	struct etl_perfinfo_header h;
	uint8_t ev[sizeof(hdr_pebs_pmc)];

	memcpy(ev, hdr_pebs_pmc, sizeof(ev));
	ev[4] = 0x27; /* Size 0x27 < 0x10 + 3 items * 8 = 0x28 */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), -EINVAL));
	ev[4] = 0x28;
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), 0x28));
}

Test(perfinfo_header, decode_rejects_other_header_types)
{
	struct etl_perfinfo_header h;
	uint8_t ev[sizeof(hdr_x64_plain)];

	memcpy(ev, hdr_x64_plain, sizeof(ev));
	ev[2] = 0x02; /* SYSTEM64: Marker 0xC0020002 */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), -EINVAL));
	ev[2] = 0x12; /* EVENT_HEADER32 */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), -EINVAL));
	ev[2] = 0x0F; /* MESSAGE */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), -EINVAL));
	ev[2] = 0x11;
	ev[3] = 0x00; /* PERFINFO64 type but no trace-header flag bits */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), -EINVAL));
	ev[3] = 0x80; /* TRACE_HEADER_FLAG without TRACE_HEADER_EVENT_TRACE */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), -EINVAL));
	ev[3] = 0xC0;
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), 0x10));
}

Test(perfinfo_header, decode_ignores_spare_flags)
{
	struct etl_perfinfo_header h;
	uint8_t ev[sizeof(hdr_x64_plain)];

	memcpy(ev, hdr_x64_plain, sizeof(ev));
	ev[1] = 0x78; /* TRACE_HEADER_SPARE_FLAG1..4 = 0x4000|0x2000|0x1000|0x0800 */
	cr_assert(eq(int, etl_decode_perfinfo_header(ev, sizeof(ev), &h), 0x10));
	cr_assert(eq(u8, h.version, 2));
	cr_assert(eq(int, h.has_pebs, 0));
	cr_assert(eq(uint, h.pmc_count, 0));
}

Test(perfinfo_header, round_trips_every_item_combination, .timeout = 10.)
{
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	uint8_t buf[0x50];

	for (unsigned n = 0; n <= 7; n++) {
		for (unsigned pebs = 0; pebs <= 1; pebs++) {
			for (unsigned k = 0; k < 64; k++) {
				struct etl_perfinfo_header h = {0}, got;
				size_t len = 0x10 + 8 * (n + pebs);
				uint64_t r = next_rand(&seed);

				h.arch = (r & 1) ? ETL_ARCH_X86 : ETL_ARCH_X64;
				h.version = (uint8_t)(r >> 8);
				h.hook_id = (uint16_t)(r >> 16);
				h.size = (uint16_t)(len + ((r >> 32) % (0x10000 - len)));
				h.ts = next_rand(&seed);
				h.has_pebs = pebs;
				h.pebs_index = pebs ? next_rand(&seed) : 0;
				h.pmc_count = n;
				for (unsigned i = 0; i < n; i++) {
					h.pmc[i] = next_rand(&seed);
				}
				cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h),
					     (int)len));
				cr_assert(eq(int, etl_decode_perfinfo_header(buf, len, &got),
					     (int)len));
				assert_header_eq(&got, &h);
			}
		}
	}
}

/* ======================================================================== */
/* WMI_CONTEXTSWAP, CSwitch 0x0524 (seed 001, KERNEL_FACTS 5.2)             */
/* ======================================================================== */

/*
 * Whole CSwitch v2 event, Size 0x28 (KERNEL_FACTS 5.2), x64.
 * Payload: NewThreadId 0x1234, OldThreadId 0x5678, NewPri 10, OldPri 9,
 * PreviousCState 3, NewPriDecrement -2 (0xFE), WaitReason 6 (UserRequest),
 * WaitMode 1 (UserMode), State 5 (Waiting), IdealProcessor 7,
 * NewThreadWaitTime 0x00010002, RemainingQuantum -3 (0xFFFFFFFD).
 */
static const uint8_t cswitch_v2_event[] = {
	0x02, 0x00, 0x11, 0xC0,				/* Marker 0xC0110002 */
	0x28, 0x00, 0x24, 0x05,				/* Size 0x28, HookId 0x0524 */
	0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, /* TS 0x0123456789ABCDEF */
	0x34, 0x12, 0x00, 0x00,				/* 0x00 NewThreadId */
	0x78, 0x56, 0x00, 0x00,				/* 0x04 OldThreadId */
	0x0A, 0x09, 0x03, 0xFE, /* 0x08 NewPri, OldPri, PreviousCState, NewPriDecrement */
	0x06, 0x01, 0x05, 0x07, /* 0x0C WaitReason, WaitMode, State, IdealProcessor */
	0x02, 0x00, 0x01, 0x00, /* 0x10 NewThreadWaitTime */
	0xFD, 0xFF, 0xFF, 0xFF, /* 0x14 OldThreadRemainingQuantum */
};

/*
 * Whole CSwitch v4 event: Marker 0xC0110004, Size 0x28, TS 0x0000000000ABCDEF.
 * Payload: NewThreadId 0xE10, OldThreadId 0xABCD, NewPri 15, OldPri 12,
 * OldThreadRank 0xFF, NewPriDecrement 0, WaitReason 0 (Executive),
 * Flags = WaitMode 1 | old QoS 3 << 1 | new QoS 5 << 4 = 0x01 | 0x06 | 0x50 = 0x57,
 * State 2 (Running), IdealProcessor 0x1F, NewThreadWaitTime 0xFFFFFFFF
 * (unclamped), RemainingQuantum 0x7FFFFFFF.
 */
static const uint8_t cswitch_v4_event[] = {
	0x04, 0x00, 0x11, 0xC0,				/* Marker 0xC0110004 */
	0x28, 0x00, 0x24, 0x05,				/* Size 0x28, HookId 0x0524 */
	0xEF, 0xCD, 0xAB, 0x00, 0x00, 0x00, 0x00, 0x00, /* TS */
	0x10, 0x0E, 0x00, 0x00,				/* 0x00 NewThreadId */
	0xCD, 0xAB, 0x00, 0x00,				/* 0x04 OldThreadId */
	0x0F, 0x0C, 0xFF, 0x00, /* 0x08 NewPri, OldPri, OldThreadRank, NewPriDecrement */
	0x00, 0x57, 0x02, 0x1F, /* 0x0C WaitReason, Flags, State, IdealProcessor */
	0xFF, 0xFF, 0xFF, 0xFF, /* 0x10 NewThreadWaitTime */
	0xFF, 0xFF, 0xFF, 0x7F, /* 0x14 OldThreadRemainingQuantum */
};

static struct etw_cswitch cswitch_v2_fields(void)
{
	return (struct etw_cswitch){
		.new_tid = 0x1234,
		.old_tid = 0x5678,
		.new_pri = 10,
		.old_pri = 9,
		.prev_cstate = 3,
		.new_pri_decrement = -2,
		.old_wait_reason = 6,
		.wait_mode_or_flags = 1,
		.old_state = 5,
		.old_ideal_cpu = 7,
		.new_wait_time = 0x00010002,
		.old_remaining_quantum = -3,
	};
}

static void assert_cswitch_eq(const struct etw_cswitch *a, const struct etw_cswitch *b)
{
	cr_assert(eq(u32, a->new_tid, b->new_tid));
	cr_assert(eq(u32, a->old_tid, b->old_tid));
	cr_assert(eq(i8, a->new_pri, b->new_pri));
	cr_assert(eq(i8, a->old_pri, b->old_pri));
	cr_assert(eq(u8, a->prev_cstate, b->prev_cstate));
	cr_assert(eq(i8, a->new_pri_decrement, b->new_pri_decrement));
	cr_assert(eq(u8, a->old_wait_reason, b->old_wait_reason));
	cr_assert(eq(u8, a->wait_mode_or_flags, b->wait_mode_or_flags));
	cr_assert(eq(u8, a->old_state, b->old_state));
	cr_assert(eq(u8, a->old_ideal_cpu, b->old_ideal_cpu));
	cr_assert(eq(u32, a->new_wait_time, b->new_wait_time));
	cr_assert(eq(i32, a->old_remaining_quantum, b->old_remaining_quantum));
}

Test(cswitch, v2_event_matches_golden)
{
	struct etl_perfinfo_header h = hdr_x64_plain_fields();
	struct etw_cswitch cs = cswitch_v2_fields();
	uint8_t buf[0x30];
	int n;

	memset(buf, POISON, sizeof(buf));
	n = etl_encode_perfinfo_header(buf, sizeof(buf), &h);
	cr_assert(eq(int, n, 0x10));
	cr_assert(eq(int, etw_encode_cswitch(buf + n, sizeof(buf) - (size_t)n, &cs), 0x18));
	ASSERT_BYTES(buf, cswitch_v2_event, sizeof(cswitch_v2_event));
	assert_untouched(buf + 0x28, sizeof(buf) - 0x28);
}

Test(cswitch, v4_event_with_flags_byte_matches_golden)
{
	struct etl_perfinfo_header h = {
		.arch = ETL_ARCH_X64,
		.version = 4,
		.size = 0x28,
		.hook_id = 0x0524,
		.ts = 0xABCDEF,
	};
	struct etw_cswitch cs = {
		.new_tid = 0xE10,
		.old_tid = 0xABCD,
		.new_pri = 15,
		.old_pri = 12,
		.prev_cstate = 0xFF,
		.old_wait_reason = 0,
		.old_state = 2,
		.old_ideal_cpu = 0x1F,
		.new_wait_time = 0xFFFFFFFF,
		.old_remaining_quantum = 0x7FFFFFFF,
	};
	uint8_t buf[0x28];

	cr_assert(eq(int, etw_cswitch_v4_flags(1, 3, 5, &cs.wait_mode_or_flags), 0));
	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), 0x10));
	cr_assert(eq(int, etw_encode_cswitch(buf + 0x10, 0x18, &cs), 0x18));
	ASSERT_BYTES(buf, cswitch_v4_event, sizeof(cswitch_v4_event));
}

Test(cswitch, decodes_both_goldens)
{
	struct etw_cswitch want = cswitch_v2_fields(), got;
	struct etl_perfinfo_header h;

	cr_assert(eq(int, etl_decode_perfinfo_header(cswitch_v2_event, 0x28, &h), 0x10));
	cr_assert(eq(u16, h.hook_id, 0x0524));
	cr_assert(eq(int, etw_decode_cswitch(cswitch_v2_event + 0x10, 0x18, &got), 0x18));
	assert_cswitch_eq(&got, &want);

	cr_assert(eq(int, etl_decode_perfinfo_header(cswitch_v4_event, 0x28, &h), 0x10));
	cr_assert(eq(u8, h.version, 4));
	cr_assert(eq(int, etw_decode_cswitch(cswitch_v4_event + 0x10, 0x18, &got), 0x18));
	cr_assert(eq(u32, got.new_tid, 0xE10));
	cr_assert(eq(u32, got.old_tid, 0xABCD));
	cr_assert(eq(i8, got.new_pri, 15));
	cr_assert(eq(i8, got.old_pri, 12));
	cr_assert(eq(u8, got.prev_cstate, 0xFF));
	cr_assert(eq(i8, got.new_pri_decrement, 0));
	cr_assert(eq(u8, got.old_wait_reason, 0));
	cr_assert(eq(u8, got.wait_mode_or_flags, 0x57));
	cr_assert(eq(u8, got.old_state, 2));
	cr_assert(eq(u8, got.old_ideal_cpu, 0x1F));
	cr_assert(eq(u32, got.new_wait_time, 0xFFFFFFFFu));
	cr_assert(eq(i32, got.old_remaining_quantum, 0x7FFFFFFF));
}

Test(cswitch, v4_flags_pack_wait_mode_and_both_qos)
{
	uint8_t f = 0;

	/* 0 | 0 << 1 | 0 << 4 */
	cr_assert(eq(int, etw_cswitch_v4_flags(0, 0, 0, &f), 0));
	cr_assert(eq(u8, f, 0x00));
	/* 1 | 0 | 0 = 0x01 */
	cr_assert(eq(int, etw_cswitch_v4_flags(1, 0, 0, &f), 0));
	cr_assert(eq(u8, f, 0x01));
	/* 0 | 7 << 1 = 0x0E */
	cr_assert(eq(int, etw_cswitch_v4_flags(0, 7, 0, &f), 0));
	cr_assert(eq(u8, f, 0x0E));
	/* 0 | 0 | 7 << 4 = 0x70 */
	cr_assert(eq(int, etw_cswitch_v4_flags(0, 0, 7, &f), 0));
	cr_assert(eq(u8, f, 0x70));
	/* 1 | 7 << 1 | 7 << 4 = 0x7F: bit 7 (reserved) stays clear */
	cr_assert(eq(int, etw_cswitch_v4_flags(1, 7, 7, &f), 0));
	cr_assert(eq(u8, f, 0x7F));
	/* 0 | 2 << 1 | 6 << 4 = 0x04 | 0x60 = 0x64 */
	cr_assert(eq(int, etw_cswitch_v4_flags(0, 2, 6, &f), 0));
	cr_assert(eq(u8, f, 0x64));
}

Test(cswitch, v4_flags_every_combination)
{
	for (unsigned wm = 0; wm <= 1; wm++) {
		for (unsigned oq = 0; oq <= 7; oq++) {
			for (unsigned nq = 0; nq <= 7; nq++) {
				uint8_t f = 0xFF;

				cr_assert(eq(int, etw_cswitch_v4_flags(wm, oq, nq, &f), 0));
				cr_assert(eq(u8, f, (uint8_t)(wm | oq << 1 | nq << 4)));
			}
		}
	}
}

Test(cswitch, v4_flags_out_of_range_is_eoverflow)
{
	uint8_t f = 0xA5;

	cr_assert(eq(int, etw_cswitch_v4_flags(2, 0, 0, &f), -EOVERFLOW));
	cr_assert(eq(int, etw_cswitch_v4_flags(0, 8, 0, &f), -EOVERFLOW));
	cr_assert(eq(int, etw_cswitch_v4_flags(0, 0, 8, &f), -EOVERFLOW));
	cr_assert(eq(int, etw_cswitch_v4_flags(~0u, ~0u, ~0u, &f), -EOVERFLOW));
	cr_assert(eq(u8, f, 0xA5));
}

Test(cswitch, every_cap_below_0x18_is_enospc)
{
	struct etw_cswitch cs = cswitch_v2_fields();
	uint8_t buf[0x18];

	for (size_t cap = 0; cap < 0x18; cap++) {
		memset(buf, POISON, sizeof(buf));
		cr_assert(eq(int, etw_encode_cswitch(buf, cap, &cs), -ENOSPC), "cap %zu", cap);
		assert_untouched(buf, sizeof(buf));
	}
}

Test(cswitch, every_short_input_is_einval)
{
	struct etw_cswitch cs;

	for (size_t len = 0; len < 0x18; len++) {
		uint8_t *p = dup_prefix(cswitch_v2_event + 0x10, len);

		cr_assert(eq(int, etw_decode_cswitch(p, len, &cs), -EINVAL), "len %zu", len);
		free(p);
	}
}

Test(cswitch, round_trips_many_values)
{
	uint64_t seed = 0x243F6A8885A308D3ull;
	uint8_t buf[0x18];

	for (unsigned k = 0; k < 2000; k++) {
		uint64_t a = next_rand(&seed), b = next_rand(&seed), c = next_rand(&seed);
		struct etw_cswitch got;
		struct etw_cswitch cs = {
			.new_tid = (uint32_t)a,
			.old_tid = (uint32_t)(a >> 32),
			.new_pri = (int8_t)b,
			.old_pri = (int8_t)(b >> 8),
			.prev_cstate = (uint8_t)(b >> 16),
			.new_pri_decrement = (int8_t)(b >> 24),
			.old_wait_reason = (uint8_t)(b >> 32),
			.wait_mode_or_flags = (uint8_t)(b >> 40),
			.old_state = (uint8_t)(b >> 48),
			.old_ideal_cpu = (uint8_t)(b >> 56),
			.new_wait_time = (uint32_t)c,
			.old_remaining_quantum = (int32_t)(uint32_t)(c >> 32),
		};

		cr_assert(eq(int, etw_encode_cswitch(buf, sizeof(buf), &cs), 0x18));
		cr_assert(eq(int, etw_decode_cswitch(buf, sizeof(buf), &got), 0x18));
		assert_cswitch_eq(&got, &cs);
	}
}

/* ======================================================================== */
/* WMI_SPINLOCK, SpinLock 0x0529 (seed 003, KERNEL_FACTS 2 and 6.1)         */
/* ======================================================================== */

/*
 * x64 payload, 0x38 bytes: SpinLockAddress 0xFFFFF8031A2B3C40, CallerAddress
 * 0xFFFFF8031A000123, AcquireTime 0x1122334455, ReleaseTime 0x1122336677,
 * WaitTimeInCycles 0x400, SpinCount 42 (0x2A), ThreadId 0xF00, InterruptCount 3,
 * Irql 2, AcquireDepth 1, Flags = mode 3 (exclusive executive) | 0x40 DPC = 0x43,
 * Reserved[5] = 0.
 */
static const uint8_t spinlock_x64[] = {
	0x40, 0x3C, 0x2B, 0x1A, 0x03, 0xF8, 0xFF, 0xFF, /* 0x00 SpinLockAddress */
	0x23, 0x01, 0x00, 0x1A, 0x03, 0xF8, 0xFF, 0xFF, /* 0x08 CallerAddress */
	0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, /* 0x10 AcquireTime */
	0x77, 0x66, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, /* 0x18 ReleaseTime */
	0x00, 0x04, 0x00, 0x00,				/* 0x20 WaitTimeInCycles */
	0x2A, 0x00, 0x00, 0x00,				/* 0x24 SpinCount */
	0x00, 0x0F, 0x00, 0x00,				/* 0x28 ThreadId */
	0x03, 0x00, 0x00, 0x00,				/* 0x2C InterruptCount */
	0x02, 0x01, 0x43,				/* 0x30 Irql, Depth, Flags */
	0x00, 0x00, 0x00, 0x00, 0x00,			/* 0x33 Reserved[5] */
};

/*
 * x86 payload, 0x30 bytes: SpinLockAddress 0x8A2B3C40, CallerAddress
 * 0x81000123, AcquireTime 0x0A0B0C0D0E, ReleaseTime 0x0A0B0C1D1E,
 * WaitTimeInCycles 0x12345678, SpinCount 0, ThreadId 0x1004, InterruptCount 0,
 * Irql 0x1F (HIGH_LEVEL on x86), AcquireDepth 8,
 * Flags = mode 1 (queued) | 0x80 ISR = 0x81, Reserved[5] = 0.
 */
static const uint8_t spinlock_x86[] = {
	0x40, 0x3C, 0x2B, 0x8A,				/* 0x00 SpinLockAddress */
	0x23, 0x01, 0x00, 0x81,				/* 0x04 CallerAddress */
	0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 0x00, 0x00, 0x00, /* 0x08 AcquireTime */
	0x1E, 0x1D, 0x0C, 0x0B, 0x0A, 0x00, 0x00, 0x00, /* 0x10 ReleaseTime */
	0x78, 0x56, 0x34, 0x12,				/* 0x18 WaitTimeInCycles */
	0x00, 0x00, 0x00, 0x00,				/* 0x1C SpinCount */
	0x04, 0x10, 0x00, 0x00,				/* 0x20 ThreadId */
	0x00, 0x00, 0x00, 0x00,				/* 0x24 InterruptCount */
	0x1F, 0x08, 0x81,				/* 0x28 Irql, Depth, Flags */
	0x00, 0x00, 0x00, 0x00, 0x00,			/* 0x2B Reserved[5] */
};

static struct etw_spinlock spinlock_x64_fields(void)
{
	return (struct etw_spinlock){
		.lock_address = 0xFFFFF8031A2B3C40ull,
		.caller_address = 0xFFFFF8031A000123ull,
		.acquire_time = 0x1122334455ull,
		.release_time = 0x1122336677ull,
		.wait_cycles = 0x400,
		.spin_count = 42,
		.tid = 0xF00,
		.interrupt_count = 3,
		.irql = 2,
		.depth = 1,
		.acquire_mode = 3,
		.execute_dpc = true,
		.execute_isr = false,
	};
}

static struct etw_spinlock spinlock_x86_fields(void)
{
	return (struct etw_spinlock){
		.lock_address = 0x8A2B3C40ull,
		.caller_address = 0x81000123ull,
		.acquire_time = 0x0A0B0C0D0Eull,
		.release_time = 0x0A0B0C1D1Eull,
		.wait_cycles = 0x12345678,
		.spin_count = 0,
		.tid = 0x1004,
		.interrupt_count = 0,
		.irql = 0x1F,
		.depth = 8,
		.acquire_mode = 1,
		.execute_dpc = false,
		.execute_isr = true,
	};
}

static void assert_spinlock_eq(const struct etw_spinlock *a, const struct etw_spinlock *b)
{
	cr_assert(eq(u64, a->lock_address, b->lock_address));
	cr_assert(eq(u64, a->caller_address, b->caller_address));
	cr_assert(eq(u64, a->acquire_time, b->acquire_time));
	cr_assert(eq(u64, a->release_time, b->release_time));
	cr_assert(eq(u32, a->wait_cycles, b->wait_cycles));
	cr_assert(eq(u32, a->spin_count, b->spin_count));
	cr_assert(eq(u32, a->tid, b->tid));
	cr_assert(eq(u32, a->interrupt_count, b->interrupt_count));
	cr_assert(eq(u8, a->irql, b->irql));
	cr_assert(eq(u8, a->depth, b->depth));
	cr_assert(eq(u8, a->acquire_mode, b->acquire_mode));
	cr_assert(eq(int, a->execute_dpc, b->execute_dpc));
	cr_assert(eq(int, a->execute_isr, b->execute_isr));
}

static void check_spinlock_golden(enum etl_arch arch, const struct etw_spinlock *sl, unsigned flags,
				  const uint8_t *want, size_t want_len)
{
	uint8_t buf[0x40];

	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), arch, sl, flags), (int)want_len));
	ASSERT_BYTES(buf, want, want_len);
	assert_untouched(buf + want_len, sizeof(buf) - want_len);
}

Test(spinlock, len_is_0x38_on_x64_and_0x30_on_x86)
{
	cr_assert(eq(sz, etw_spinlock_len(ETL_ARCH_X64), 0x38));
	cr_assert(eq(sz, etw_spinlock_len(ETL_ARCH_X86), 0x30));
	cr_assert(eq(sz, etw_spinlock_len((enum etl_arch)7), 0));
}

Test(spinlock, x64_matches_golden_with_reserved_zeroed)
{
	struct etw_spinlock sl = spinlock_x64_fields();

	/* The poisoned buffer proves Reserved[5] is written as zeros, not skipped. */
	check_spinlock_golden(ETL_ARCH_X64, &sl, 0, spinlock_x64, sizeof(spinlock_x64));
}

Test(spinlock, x86_matches_golden_with_4_byte_pointers)
{
	struct etw_spinlock sl = spinlock_x86_fields();

	check_spinlock_golden(ETL_ARCH_X86, &sl, 0, spinlock_x86, sizeof(spinlock_x86));
}

Test(spinlock, x64_whole_event_is_0x48_bytes)
{
	/* Marker 0xC0110002, Size 0x10 + 0x38 = 0x48, HookId 0x0529, TS 0x42. */
	static const uint8_t head[] = {
		0x02, 0x00, 0x11, 0xC0, 0x48, 0x00, 0x29, 0x05,
		0x42, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct etl_perfinfo_header h = {
		.arch = ETL_ARCH_X64,
		.version = 2,
		.size = 0x48,
		.hook_id = 0x0529,
		.ts = 0x42,
	};
	struct etw_spinlock sl = spinlock_x64_fields();
	uint8_t buf[0x48];

	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), 0x10));
	cr_assert(eq(int, etw_encode_spinlock(buf + 0x10, 0x38, ETL_ARCH_X64, &sl, 0), 0x38));
	ASSERT_BYTES(buf, head, sizeof(head));
	ASSERT_BYTES(buf + 0x10, spinlock_x64, sizeof(spinlock_x64));
}

Test(spinlock, decodes_both_goldens)
{
	struct etw_spinlock want, got;

	want = spinlock_x64_fields();
	cr_assert(eq(int, etw_decode_spinlock(spinlock_x64, 0x38, ETL_ARCH_X64, &got), 0x38));
	assert_spinlock_eq(&got, &want);
	want = spinlock_x86_fields();
	cr_assert(eq(int, etw_decode_spinlock(spinlock_x86, 0x30, ETL_ARCH_X86, &got), 0x30));
	assert_spinlock_eq(&got, &want);
}

Test(spinlock, flags_byte_mode_dpc_isr)
{
	struct etw_spinlock sl = spinlock_x64_fields();
	uint8_t buf[0x38];

	/* mode 0x3F | 0x40 DPC | 0x80 ISR = 0xFF */
	sl.acquire_mode = 0x3F;
	sl.execute_dpc = true;
	sl.execute_isr = true;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, 0), 0x38));
	cr_assert(eq(u8, buf[0x32], 0xFF));
	/* mode 4 (converted), no DPC, ISR: 0x04 | 0x80 = 0x84 */
	sl.acquire_mode = 4;
	sl.execute_dpc = false;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, 0), 0x38));
	cr_assert(eq(u8, buf[0x32], 0x84));
	/* mode 0, nothing: 0x00 */
	sl.acquire_mode = 0;
	sl.execute_isr = false;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, 0), 0x38));
	cr_assert(eq(u8, buf[0x32], 0x00));
}

Test(spinlock, acquire_mode_above_6_bits_is_eoverflow_on_both_arches)
{
	struct etw_spinlock sl = spinlock_x86_fields();
	uint8_t buf[0x38];

	sl.acquire_mode = 0x40;
	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X86, &sl, 0), -EOVERFLOW));
	assert_untouched(buf, sizeof(buf));
	sl.acquire_mode = 0x3F;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X86, &sl, 0), 0x30));
	/* 0x3F | 0x80 ISR = 0xBF */
	cr_assert(eq(u8, buf[0x2A], 0xBF));
}

Test(spinlock, wrapped_acquire_mode_does_not_spill_into_dpc_bit)
{
	struct etw_spinlock sl = spinlock_x64_fields();
	uint8_t buf[0x38];

	/* 0x40 mod 64 = 0, DPC and ISR off: Flags 0x00, not 0x40 */
	sl.acquire_mode = 0x40;
	sl.execute_dpc = false;
	sl.execute_isr = false;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, ETW_ENC_WRAP),
		     0x38));
	cr_assert(eq(u8, buf[0x32], 0x00));
	/* 0xC5 mod 64 = 5, ISR on: 0x05 | 0x80 = 0x85 */
	sl.acquire_mode = 0xC5;
	sl.execute_isr = true;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, ETW_ENC_WRAP),
		     0x38));
	cr_assert(eq(u8, buf[0x32], 0x85));
}

Test(spinlock, x86_address_above_32_bits_is_eoverflow)
{
	struct etw_spinlock sl = spinlock_x86_fields();
	uint8_t buf[0x30];

	memset(buf, POISON, sizeof(buf));
	sl.lock_address = 0x100000000ull;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X86, &sl, 0), -EOVERFLOW));
	sl = spinlock_x86_fields();
	sl.caller_address = 0x1FFFFFFFFull;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X86, &sl, 0), -EOVERFLOW));
	assert_untouched(buf, sizeof(buf));
	/* 0xFFFFFFFF is the largest that fits: FF FF FF FF */
	sl.caller_address = 0xFFFFFFFFull;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X86, &sl, 0), 0x30));
	cr_assert(eq(u32,
		     (uint32_t)buf[4] | (uint32_t)buf[5] << 8 | (uint32_t)buf[6] << 16 |
			     (uint32_t)buf[7] << 24,
		     0xFFFFFFFFu));
}

Test(spinlock, x64_takes_full_64_bit_addresses)
{
	struct etw_spinlock sl = spinlock_x64_fields();
	uint8_t buf[0x38];
	/* SpinLockAddress 0x0000000100000000 at 0x00: 00 00 00 00 01 00 00 00 */
	static const uint8_t want[] = {0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};

	sl.lock_address = 0x100000000ull;
	cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), ETL_ARCH_X64, &sl, 0), 0x38));
	ASSERT_BYTES(buf, want, sizeof(want));
}

Test(spinlock, x86_wrap_truncates_addresses_to_32_bits)
{
	/*
	 * Golden x86 payload with SpinLockAddress 0x1_8A2B3C40 -> 0x8A2B3C40 and
	 * CallerAddress 0xFFFFFFFF_81000123 -> 0x81000123: the same bytes.
	 */
	struct etw_spinlock sl = spinlock_x86_fields();

	sl.lock_address = 0x18A2B3C40ull;
	sl.caller_address = 0xFFFFFFFF81000123ull;
	check_spinlock_golden(ETL_ARCH_X86, &sl, ETW_ENC_WRAP, spinlock_x86, sizeof(spinlock_x86));
}

Test(spinlock, every_cap_below_len_is_enospc)
{
	struct etw_spinlock sl64 = spinlock_x64_fields(), sl32 = spinlock_x86_fields();
	uint8_t buf[0x38];

	for (size_t cap = 0; cap < 0x38; cap++) {
		memset(buf, POISON, sizeof(buf));
		cr_assert(eq(int, etw_encode_spinlock(buf, cap, ETL_ARCH_X64, &sl64, 0), -ENOSPC),
			  "x64 cap %zu", cap);
		if (cap < 0x30) {
			cr_assert(eq(int, etw_encode_spinlock(buf, cap, ETL_ARCH_X86, &sl32, 0),
				     -ENOSPC),
				  "x86 cap %zu", cap);
		}
		assert_untouched(buf, sizeof(buf));
	}
}

Test(spinlock, every_short_input_is_einval)
{
	struct etw_spinlock sl;

	for (size_t len = 0; len < 0x38; len++) {
		uint8_t *p = dup_prefix(spinlock_x64, len);

		cr_assert(eq(int, etw_decode_spinlock(p, len, ETL_ARCH_X64, &sl), -EINVAL),
			  "x64 len %zu", len);
		free(p);
	}
	for (size_t len = 0; len < 0x30; len++) {
		uint8_t *p = dup_prefix(spinlock_x86, len);

		cr_assert(eq(int, etw_decode_spinlock(p, len, ETL_ARCH_X86, &sl), -EINVAL),
			  "x86 len %zu", len);
		free(p);
	}
}

Test(spinlock, unknown_arch_is_einval)
{
	struct etw_spinlock sl = spinlock_x64_fields();
	uint8_t buf[0x40];

	cr_assert(
		eq(int, etw_encode_spinlock(buf, sizeof(buf), (enum etl_arch)2, &sl, 0), -EINVAL));
	cr_assert(eq(int, etw_decode_spinlock(spinlock_x64, 0x38, (enum etl_arch)2, &sl), -EINVAL));
}

Test(spinlock, decode_ignores_reserved_bytes)
{
	struct etw_spinlock want = spinlock_x64_fields(), got;
	uint8_t ev[0x38];

	memcpy(ev, spinlock_x64, sizeof(ev));
	memset(ev + 0x33, 0xEE, 5);
	cr_assert(eq(int, etw_decode_spinlock(ev, sizeof(ev), ETL_ARCH_X64, &got), 0x38));
	assert_spinlock_eq(&got, &want);
}

Test(spinlock, round_trips_many_values_on_both_arches)
{
	uint64_t seed = 0xB7E151628AED2A6Aull;
	uint8_t buf[0x38];

	for (unsigned k = 0; k < 2000; k++) {
		enum etl_arch arch = (k & 1) ? ETL_ARCH_X86 : ETL_ARCH_X64;
		uint64_t mask = arch == ETL_ARCH_X86 ? 0xFFFFFFFFull : ~0ull;
		/* One draw per statement: initializer order is unsequenced in C11. */
		uint64_t r = next_rand(&seed), s = next_rand(&seed);
		uint64_t lock = next_rand(&seed), caller = next_rand(&seed);
		uint64_t acq = next_rand(&seed), rel = next_rand(&seed);
		struct etw_spinlock got;
		struct etw_spinlock sl = {
			.lock_address = lock & mask,
			.caller_address = caller & mask,
			.acquire_time = acq,
			.release_time = rel,
			.wait_cycles = (uint32_t)r,
			.spin_count = (uint32_t)(r >> 32),
			.tid = (uint32_t)s,
			.interrupt_count = (uint32_t)(s >> 32),
			.irql = (uint8_t)(r >> 3),
			.depth = (uint8_t)(r >> 11),
			.acquire_mode = (uint8_t)((s >> 5) & 0x3F),
			.execute_dpc = (s >> 13) & 1,
			.execute_isr = (s >> 14) & 1,
		};
		int len = arch == ETL_ARCH_X86 ? 0x30 : 0x38;

		cr_assert(eq(int, etw_encode_spinlock(buf, sizeof(buf), arch, &sl, 0), len));
		cr_assert(eq(int, etw_decode_spinlock(buf, (size_t)len, arch, &got), len));
		assert_spinlock_eq(&got, &sl);
	}
}

/* ======================================================================== */
/* CCSWAP records (KERNEL_FACTS 5.3, seed 000)                              */
/* ======================================================================== */

/*
 * FULL: dword0 = type 3 | delta 0x12345678 << 2 = 3 | 0x48D159E0 = 0x48D159E3;
 * dword1 = idx 11 | swr 45 << 4 | pri 19 << 10 | wait 0x1ABCD << 15
 *        = 0xB | 0x2D0 | 0x4C00 | 0xD5E68000 = 0xD5E6CEDB.
 */
static const uint8_t rec_full[] = {0xE3, 0x59, 0xD1, 0x48, 0xDB, 0xCE, 0xE6, 0xD5};

/*
 * LITE: type 2 | idx 5 << 2 | inc 3 << 6 | swr 44 << 9 | delta 0x1ABCD << 15
 *     = 0x2 | 0x14 | 0xC0 | 0x5800 | 0xD5E68000 = 0xD5E6D8D6.
 */
static const uint8_t rec_lite[] = {0xD6, 0xD8, 0xE6, 0xD5};

/* IDLE: type 1 | delta 0x2ABCDEF1 << 2 = 1 | 0xAAF37BC4 = 0xAAF37BC5. */
static const uint8_t rec_idle[] = {0xC5, 0x7B, 0xF3, 0xAA};

/* IDLE_SHORT (u16): type 0 | delta 0x3A5C << 2 = 0xE970. */
static const uint8_t rec_idle_short[] = {0x70, 0xE9};

static const struct etw_ccswap_rec rec_full_fields = {
	.type = ETW_CCSWAP_FULL,
	.delta = 0x12345678,
	.tid_index = 11,
	.state_wr = 45,
	.priority = 19,
	.wait_time = 0x1ABCD,
};
static const struct etw_ccswap_rec rec_lite_fields = {
	.type = ETW_CCSWAP_LITE,
	.delta = 0x1ABCD,
	.tid_index = 5,
	.state_wr = 44,
	.pri_inc = 3,
};
static const struct etw_ccswap_rec rec_idle_fields = {
	.type = ETW_CCSWAP_IDLE,
	.delta = 0x2ABCDEF1,
};
static const struct etw_ccswap_rec rec_idle_short_fields = {
	.type = ETW_CCSWAP_IDLE_SHORT,
	.delta = 0x3A5C,
};

static const struct {
	const char *name;
	const struct etw_ccswap_rec *fields;
	const uint8_t *golden;
	size_t len;
} rec_goldens[] = {
	{"FULL", &rec_full_fields, rec_full, sizeof(rec_full)},
	{"LITE", &rec_lite_fields, rec_lite, sizeof(rec_lite)},
	{"IDLE", &rec_idle_fields, rec_idle, sizeof(rec_idle)},
	{"IDLE_SHORT", &rec_idle_short_fields, rec_idle_short, sizeof(rec_idle_short)},
};

static void assert_rec_eq(const struct etw_ccswap_rec *got, const struct etw_ccswap_rec *want)
{
	cr_assert(eq(int, got->type, want->type));
	cr_assert(eq(u32, got->delta, want->delta));
	cr_assert(eq(u8, got->tid_index, want->tid_index));
	cr_assert(eq(u8, got->state_wr, want->state_wr));
	cr_assert(eq(u8, got->priority, want->priority));
	cr_assert(eq(u8, got->pri_inc, want->pri_inc));
	cr_assert(eq(u32, got->wait_time, want->wait_time));
}

static void check_rec_golden(const struct etw_ccswap_rec *r, unsigned flags, const uint8_t *want,
			     size_t want_len)
{
	uint8_t buf[12];

	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(int, etw_encode_ccswap_rec(buf, sizeof(buf), r, flags), (int)want_len));
	ASSERT_BYTES(buf, want, want_len);
	assert_untouched(buf + want_len, sizeof(buf) - want_len);
}

Test(ccswap_rec, len_is_2_4_4_8_by_type)
{
	cr_assert(eq(sz, etw_ccswap_rec_len(ETW_CCSWAP_IDLE_SHORT), 2));
	cr_assert(eq(sz, etw_ccswap_rec_len(ETW_CCSWAP_IDLE), 4));
	cr_assert(eq(sz, etw_ccswap_rec_len(ETW_CCSWAP_LITE), 4));
	cr_assert(eq(sz, etw_ccswap_rec_len(ETW_CCSWAP_FULL), 8));
	cr_assert(eq(sz, etw_ccswap_rec_len((enum etw_ccswap_type)4), 0));
}

Test(ccswap_rec, full_packs_two_dwords_lsb_first)
{
	check_rec_golden(&rec_full_fields, 0, rec_full, sizeof(rec_full));
}

Test(ccswap_rec, lite_packs_fields_lsb_first)
{
	check_rec_golden(&rec_lite_fields, 0, rec_lite, sizeof(rec_lite));
}

Test(ccswap_rec, idle_packs_30_bit_delta)
{
	check_rec_golden(&rec_idle_fields, 0, rec_idle, sizeof(rec_idle));
}

Test(ccswap_rec, idle_short_is_a_u16_with_14_bit_delta)
{
	check_rec_golden(&rec_idle_short_fields, 0, rec_idle_short, sizeof(rec_idle_short));
}

Test(ccswap_rec, fields_of_other_forms_are_ignored)
{
	struct etw_ccswap_rec r;

	/* Out-of-range values in fields the form does not carry change nothing. */
	r = rec_lite_fields;
	r.priority = 0xFF;
	r.wait_time = 0xFFFFFFFF;
	check_rec_golden(&r, 0, rec_lite, sizeof(rec_lite));
	r = rec_full_fields;
	r.pri_inc = 0xFF;
	check_rec_golden(&r, 0, rec_full, sizeof(rec_full));
	r = rec_idle_fields;
	r.tid_index = 0xFF;
	r.state_wr = 0xFF;
	r.priority = 0xFF;
	r.pri_inc = 0xFF;
	r.wait_time = 0xFFFFFFFF;
	check_rec_golden(&r, 0, rec_idle, sizeof(rec_idle));
	r.type = ETW_CCSWAP_IDLE_SHORT;
	r.delta = 0x3A5C;
	check_rec_golden(&r, 0, rec_idle_short, sizeof(rec_idle_short));
}

Test(ccswap_rec, decodes_every_golden_and_zeroes_unused_fields)
{
	for (size_t i = 0; i < ARRAY_LEN(rec_goldens); i++) {
		struct etw_ccswap_rec got;

		memset(&got, 0x5A, sizeof(got));
		cr_assert(eq(int,
			     etw_decode_ccswap_rec(rec_goldens[i].golden, rec_goldens[i].len, &got),
			     (int)rec_goldens[i].len),
			  "%s", rec_goldens[i].name);
		assert_rec_eq(&got, rec_goldens[i].fields);
	}
}

Test(ccswap_rec, records_pack_back_to_back_unaligned)
{
	/*
	 * IDLE_SHORT @0 (2 B), LITE @2 (4 B), FULL @6 (8 B), IDLE @14 (4 B): the
	 * records of a batch are packed with no alignment (KERNEL_FACTS 1.2).
	 */
	static const uint8_t want[] = {
		0x70, 0xE9,					/* IDLE_SHORT */
		0xD6, 0xD8, 0xE6, 0xD5,				/* LITE */
		0xE3, 0x59, 0xD1, 0x48, 0xDB, 0xCE, 0xE6, 0xD5, /* FULL */
		0xC5, 0x7B, 0xF3, 0xAA,				/* IDLE */
	};
	const struct etw_ccswap_rec *seq[] = {&rec_idle_short_fields, &rec_lite_fields,
					      &rec_full_fields, &rec_idle_fields};
	uint8_t buf[sizeof(want)];
	size_t off = 0;

	for (size_t i = 0; i < ARRAY_LEN(seq); i++) {
		int n = etw_encode_ccswap_rec(buf + off, sizeof(buf) - off, seq[i], 0);

		cr_assert(gt(int, n, 0));
		off += (size_t)n;
	}
	cr_assert(eq(sz, off, sizeof(want)));
	ASSERT_BYTES(buf, want, sizeof(want));

	/* And the stream decodes back in order. */
	off = 0;
	for (size_t i = 0; i < ARRAY_LEN(seq); i++) {
		struct etw_ccswap_rec got;
		int n = etw_decode_ccswap_rec(want + off, sizeof(want) - off, &got);

		cr_assert(gt(int, n, 0));
		assert_rec_eq(&got, seq[i]);
		off += (size_t)n;
	}
	cr_assert(eq(sz, off, sizeof(want)));
}

Test(ccswap_rec, bad_type_is_einval)
{
	struct etw_ccswap_rec r = rec_idle_fields;
	uint8_t buf[8];

	memset(buf, POISON, sizeof(buf));
	r.type = (enum etw_ccswap_type)4;
	cr_assert(eq(int, etw_encode_ccswap_rec(buf, sizeof(buf), &r, 0), -EINVAL));
	cr_assert(eq(int, etw_encode_ccswap_rec(buf, sizeof(buf), &r, ETW_ENC_WRAP), -EINVAL));
	assert_untouched(buf, sizeof(buf));
}

Test(ccswap_rec, every_cap_below_len_is_enospc)
{
	for (size_t i = 0; i < ARRAY_LEN(rec_goldens); i++) {
		uint8_t buf[8];

		for (size_t cap = 0; cap < rec_goldens[i].len; cap++) {
			memset(buf, POISON, sizeof(buf));
			cr_assert(eq(int, etw_encode_ccswap_rec(buf, cap, rec_goldens[i].fields, 0),
				     -ENOSPC),
				  "%s cap %zu", rec_goldens[i].name, cap);
			assert_untouched(buf, sizeof(buf));
		}
		cr_assert(
			eq(int,
			   etw_encode_ccswap_rec(buf, rec_goldens[i].len, rec_goldens[i].fields, 0),
			   (int)rec_goldens[i].len));
	}
}

Test(ccswap_rec, every_short_input_is_einval)
{
	for (size_t i = 0; i < ARRAY_LEN(rec_goldens); i++) {
		for (size_t len = 0; len < rec_goldens[i].len; len++) {
			uint8_t *p = dup_prefix(rec_goldens[i].golden, len);
			struct etw_ccswap_rec got, before;

			memset(&before, 0x5A, sizeof(before));
			got = before;
			cr_assert(eq(int, etw_decode_ccswap_rec(p, len, &got), -EINVAL),
				  "%s len %zu", rec_goldens[i].name, len);
			cr_assert(eq(int, memcmp(&got, &before, sizeof(got)), 0), "output touched");
			free(p);
		}
	}
}

Test(ccswap_rec, idle_short_needs_only_two_bytes)
{
	/* A u16 IDLE_SHORT at the very end of a batch, then nothing. */
	uint8_t *p = dup_prefix(rec_idle_short, 2);
	struct etw_ccswap_rec got;

	cr_assert(eq(int, etw_decode_ccswap_rec(p, 2, &got), 2));
	cr_assert(eq(int, got.type, ETW_CCSWAP_IDLE_SHORT));
	cr_assert(eq(u32, got.delta, 0x3A5C));
	free(p);
}

/*
 * Bit-field edges: each field at its max (fits), max + 1 (-EOVERFLOW, and
 * with ETW_ENC_WRAP truncated to 0) and a bigger value wrapped. Every other
 * field is 0, so the expected bytes show the field alone; the wrapped rows
 * also show that nothing spills into a neighbouring field.
 */
enum edge_field { F_DELTA, F_TID_INDEX, F_STATE_WR, F_PRIORITY, F_PRI_INC, F_WAIT_TIME };

/*
 * The name is an array, not a pointer: Criterion may run each parameter in a
 * freshly started worker where a pointer into the parent's image is invalid.
 */
struct ccswap_edge {
	char name[64];
	enum etw_ccswap_type type;
	enum edge_field field;
	uint32_t value;
	unsigned flags;
	int ret;
	uint8_t want[8];
};

#define W ETW_ENC_WRAP
#define E (-EOVERFLOW)

ParameterizedTestParameters(ccswap_edge, packs_truncates_or_rejects)
{
	/* One row per edge, kept as a table by hand. */
	/* clang-format off */
	static struct ccswap_edge edges[] = {
		/* FULL dword0: 3 | delta << 2 */
		{"full delta max: 3 | 0x3FFFFFFF << 2 = 0xFFFFFFFF", ETW_CCSWAP_FULL, F_DELTA,
		 0x3FFFFFFF, 0, 8, {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}},
		{"full delta 0x40000000", ETW_CCSWAP_FULL, F_DELTA, 0x40000000, 0, E, {0}},
		{"full delta 0x40000000 wraps to 0: dword0 = 3", ETW_CCSWAP_FULL, F_DELTA,
		 0x40000000, W, 8, {0x03, 0, 0, 0, 0, 0, 0, 0}},
		{"full delta 0x40000005 wraps to 5: 3 | 5 << 2 = 0x17", ETW_CCSWAP_FULL, F_DELTA,
		 0x40000005, W, 8, {0x17, 0, 0, 0, 0, 0, 0, 0}},
		{"full delta 0xFFFFFFFF wraps to 0x3FFFFFFF", ETW_CCSWAP_FULL, F_DELTA, 0xFFFFFFFF,
		 W, 8, {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}},
		/* FULL dword1 [3:0] */
		{"full idx max 15 = 0x0000000F", ETW_CCSWAP_FULL, F_TID_INDEX, 15, 0, 8,
		 {0x03, 0, 0, 0, 0x0F, 0, 0, 0}},
		{"full idx 16", ETW_CCSWAP_FULL, F_TID_INDEX, 16, 0, E, {0}},
		{"full idx 16 wraps to 0", ETW_CCSWAP_FULL, F_TID_INDEX, 16, W, 8,
		 {0x03, 0, 0, 0, 0, 0, 0, 0}},
		{"full idx 0x13 wraps to 3", ETW_CCSWAP_FULL, F_TID_INDEX, 0x13, W, 8,
		 {0x03, 0, 0, 0, 0x03, 0, 0, 0}},
		/* FULL dword1 [9:4] */
		{"full swr max: 63 << 4 = 0x3F0", ETW_CCSWAP_FULL, F_STATE_WR, 63, 0, 8,
		 {0x03, 0, 0, 0, 0xF0, 0x03, 0, 0}},
		{"full swr 64", ETW_CCSWAP_FULL, F_STATE_WR, 64, 0, E, {0}},
		{"full swr 64 wraps to 0", ETW_CCSWAP_FULL, F_STATE_WR, 64, W, 8,
		 {0x03, 0, 0, 0, 0, 0, 0, 0}},
		{"full swr 69 wraps to 5: 5 << 4 = 0x50", ETW_CCSWAP_FULL, F_STATE_WR, 69, W, 8,
		 {0x03, 0, 0, 0, 0x50, 0, 0, 0}},
		/* FULL dword1 [14:10] */
		{"full pri max: 31 << 10 = 0x7C00", ETW_CCSWAP_FULL, F_PRIORITY, 31, 0, 8,
		 {0x03, 0, 0, 0, 0, 0x7C, 0, 0}},
		{"full pri 32", ETW_CCSWAP_FULL, F_PRIORITY, 32, 0, E, {0}},
		{"full pri 32 wraps to 0", ETW_CCSWAP_FULL, F_PRIORITY, 32, W, 8,
		 {0x03, 0, 0, 0, 0, 0, 0, 0}},
		{"full pri 33 wraps to 1: 1 << 10 = 0x400", ETW_CCSWAP_FULL, F_PRIORITY, 33, W, 8,
		 {0x03, 0, 0, 0, 0, 0x04, 0, 0}},
		/* FULL dword1 [31:15] */
		{"full wait max: 0x1FFFF << 15 = 0xFFFF8000", ETW_CCSWAP_FULL, F_WAIT_TIME,
		 0x1FFFF, 0, 8, {0x03, 0, 0, 0, 0x00, 0x80, 0xFF, 0xFF}},
		{"full wait 0x20000", ETW_CCSWAP_FULL, F_WAIT_TIME, 0x20000, 0, E, {0}},
		{"full wait 0x20000 wraps to 0", ETW_CCSWAP_FULL, F_WAIT_TIME, 0x20000, W, 8,
		 {0x03, 0, 0, 0, 0, 0, 0, 0}},
		{"full wait 0x20003 wraps to 3: 3 << 15 = 0x18000", ETW_CCSWAP_FULL, F_WAIT_TIME,
		 0x20003, W, 8, {0x03, 0, 0, 0, 0x00, 0x80, 0x01, 0x00}},
		/* LITE [5:2] */
		{"lite idx max: 2 | 15 << 2 = 0x3E", ETW_CCSWAP_LITE, F_TID_INDEX, 15, 0, 4,
		 {0x3E, 0, 0, 0}},
		{"lite idx 16", ETW_CCSWAP_LITE, F_TID_INDEX, 16, 0, E, {0}},
		{"lite idx 16 wraps to 0: 0x02", ETW_CCSWAP_LITE, F_TID_INDEX, 16, W, 4,
		 {0x02, 0, 0, 0}},
		{"lite idx 17 wraps to 1: 2 | 1 << 2 = 0x06", ETW_CCSWAP_LITE, F_TID_INDEX, 17, W,
		 4, {0x06, 0, 0, 0}},
		/* LITE [8:6] */
		{"lite inc max: 2 | 7 << 6 = 0x1C2", ETW_CCSWAP_LITE, F_PRI_INC, 7, 0, 4,
		 {0xC2, 0x01, 0, 0}},
		{"lite inc 8", ETW_CCSWAP_LITE, F_PRI_INC, 8, 0, E, {0}},
		{"lite inc 8 wraps to 0", ETW_CCSWAP_LITE, F_PRI_INC, 8, W, 4, {0x02, 0, 0, 0}},
		{"lite inc 9 wraps to 1: 2 | 1 << 6 = 0x42", ETW_CCSWAP_LITE, F_PRI_INC, 9, W, 4,
		 {0x42, 0, 0, 0}},
		/* LITE [14:9] */
		{"lite swr max: 2 | 63 << 9 = 0x7E02", ETW_CCSWAP_LITE, F_STATE_WR, 63, 0, 4,
		 {0x02, 0x7E, 0, 0}},
		{"lite swr 64", ETW_CCSWAP_LITE, F_STATE_WR, 64, 0, E, {0}},
		{"lite swr 64 wraps to 0", ETW_CCSWAP_LITE, F_STATE_WR, 64, W, 4, {0x02, 0, 0, 0}},
		{"lite swr 65 wraps to 1: 2 | 1 << 9 = 0x202", ETW_CCSWAP_LITE, F_STATE_WR, 65, W,
		 4, {0x02, 0x02, 0, 0}},
		/* LITE [31:15] */
		{"lite delta max: 2 | 0x1FFFF << 15 = 0xFFFF8002", ETW_CCSWAP_LITE, F_DELTA,
		 0x1FFFF, 0, 4, {0x02, 0x80, 0xFF, 0xFF}},
		{"lite delta 0x20000", ETW_CCSWAP_LITE, F_DELTA, 0x20000, 0, E, {0}},
		{"lite delta 0x20000 wraps to 0", ETW_CCSWAP_LITE, F_DELTA, 0x20000, W, 4,
		 {0x02, 0, 0, 0}},
		{"lite delta 0x20001 wraps to 1: 2 | 1 << 15 = 0x8002", ETW_CCSWAP_LITE, F_DELTA,
		 0x20001, W, 4, {0x02, 0x80, 0, 0}},
		/* IDLE [31:2] */
		{"idle delta max: 1 | 0x3FFFFFFF << 2 = 0xFFFFFFFD", ETW_CCSWAP_IDLE, F_DELTA,
		 0x3FFFFFFF, 0, 4, {0xFD, 0xFF, 0xFF, 0xFF}},
		{"idle delta 0x40000000", ETW_CCSWAP_IDLE, F_DELTA, 0x40000000, 0, E, {0}},
		{"idle delta 0x40000000 wraps to 0", ETW_CCSWAP_IDLE, F_DELTA, 0x40000000, W, 4,
		 {0x01, 0, 0, 0}},
		{"idle delta 0x40000001 wraps to 1: 1 | 1 << 2 = 0x05", ETW_CCSWAP_IDLE, F_DELTA,
		 0x40000001, W, 4, {0x05, 0, 0, 0}},
		/* IDLE_SHORT u16 [15:2] */
		{"idle_short delta max: 0x3FFF << 2 = 0xFFFC", ETW_CCSWAP_IDLE_SHORT, F_DELTA,
		 0x3FFF, 0, 2, {0xFC, 0xFF}},
		{"idle_short delta 0x4000", ETW_CCSWAP_IDLE_SHORT, F_DELTA, 0x4000, 0, E, {0}},
		{"idle_short delta 0x4000 wraps to 0", ETW_CCSWAP_IDLE_SHORT, F_DELTA, 0x4000, W,
		 2, {0x00, 0x00}},
		{"idle_short delta 0x4001 wraps to 1: 1 << 2 = 0x0004", ETW_CCSWAP_IDLE_SHORT,
		 F_DELTA, 0x4001, W, 2, {0x04, 0x00}},
		{"idle_short delta 0x10000 wraps to 0 (beyond the u16)", ETW_CCSWAP_IDLE_SHORT,
		 F_DELTA, 0x10000, W, 2, {0x00, 0x00}},
	};
	/* clang-format on */

	return cr_make_param_array(struct ccswap_edge, edges, ARRAY_LEN(edges));
}

#undef W
#undef E

ParameterizedTest(struct ccswap_edge *e, ccswap_edge, packs_truncates_or_rejects)
{
	struct etw_ccswap_rec r = {.type = e->type};
	uint8_t buf[12];
	int ret;

	switch (e->field) {
	case F_DELTA:
		r.delta = e->value;
		break;
	case F_TID_INDEX:
		r.tid_index = (uint8_t)e->value;
		break;
	case F_STATE_WR:
		r.state_wr = (uint8_t)e->value;
		break;
	case F_PRIORITY:
		r.priority = (uint8_t)e->value;
		break;
	case F_PRI_INC:
		r.pri_inc = (uint8_t)e->value;
		break;
	case F_WAIT_TIME:
		r.wait_time = e->value;
		break;
	}
	memset(buf, POISON, sizeof(buf));
	ret = etw_encode_ccswap_rec(buf, sizeof(buf), &r, e->flags);
	cr_assert(eq(int, ret, e->ret), "%s", e->name);
	if (ret < 0) {
		assert_untouched(buf, sizeof(buf));
		return;
	}
	{
		struct cr_mem got_m = {.data = buf, .size = (size_t)ret};
		struct cr_mem want_m = {.data = e->want, .size = (size_t)ret};

		cr_assert(eq(mem, got_m, want_m), "%s", e->name);
	}
	assert_untouched(buf + ret, sizeof(buf) - (size_t)ret);
}

/* Field widths by form, typed from the KERNEL_FACTS 5.3 table. */
static struct etw_ccswap_rec random_rec(uint64_t *seed, enum etw_ccswap_type type, bool in_range)
{
	uint64_t a = next_rand(seed), b = next_rand(seed);
	struct etw_ccswap_rec r = {.type = type};
	uint32_t dmask = type == ETW_CCSWAP_IDLE_SHORT ? 0x3FFF
			 : type == ETW_CCSWAP_LITE     ? 0x1FFFF
						       : 0x3FFFFFFF;

	r.delta = (uint32_t)a;
	r.tid_index = (uint8_t)(a >> 32);
	r.state_wr = (uint8_t)(a >> 40);
	r.priority = (uint8_t)(a >> 48);
	r.pri_inc = (uint8_t)(a >> 56);
	r.wait_time = (uint32_t)b;
	if (in_range) {
		r.delta &= dmask;
		r.tid_index &= 0xF;
		r.state_wr &= 0x3F;
		r.priority &= 0x1F;
		r.pri_inc &= 0x7;
		r.wait_time &= 0x1FFFF;
	}
	/* Zero what the form does not carry, so a decode compares equal. */
	if (type != ETW_CCSWAP_FULL) {
		r.priority = 0;
		r.wait_time = 0;
	}
	if (type != ETW_CCSWAP_LITE) {
		r.pri_inc = 0;
	}
	if (type == ETW_CCSWAP_IDLE || type == ETW_CCSWAP_IDLE_SHORT) {
		r.tid_index = 0;
		r.state_wr = 0;
	}
	return r;
}

Test(ccswap_rec, round_trips_many_values_of_every_form, .timeout = 10.)
{
	uint64_t seed = 0x0123456789ABCDEFull;
	uint8_t buf[8], wbuf[8];

	for (unsigned t = 0; t < 4; t++) {
		for (unsigned k = 0; k < 4096; k++) {
			struct etw_ccswap_rec r = random_rec(&seed, (enum etw_ccswap_type)t, true);
			struct etw_ccswap_rec got;
			int n = (int)etw_ccswap_rec_len(r.type);

			cr_assert(eq(int, etw_encode_ccswap_rec(buf, sizeof(buf), &r, 0), n));
			/* A value that fits encodes the same with or without WRAP. */
			cr_assert(eq(int,
				     etw_encode_ccswap_rec(wbuf, sizeof(wbuf), &r, ETW_ENC_WRAP),
				     n));
			cr_assert(eq(int, memcmp(buf, wbuf, (size_t)n), 0));
			cr_assert(eq(int, etw_decode_ccswap_rec(buf, (size_t)n, &got), n));
			assert_rec_eq(&got, &r);
		}
	}
}

Test(ccswap_rec, wrap_equals_encoding_the_masked_values, .timeout = 10.)
{
	uint64_t seed = 0xFEDCBA9876543210ull;
	uint8_t wbuf[8], mbuf[8];

	for (unsigned t = 0; t < 4; t++) {
		for (unsigned k = 0; k < 4096; k++) {
			struct etw_ccswap_rec r = random_rec(&seed, (enum etw_ccswap_type)t, false);
			struct etw_ccswap_rec m = r;
			uint32_t dmask = t == ETW_CCSWAP_IDLE_SHORT ? 0x3FFF
					 : t == ETW_CCSWAP_LITE	    ? 0x1FFFF
								    : 0x3FFFFFFF;
			int n = (int)etw_ccswap_rec_len(r.type);

			m.delta &= dmask;
			m.tid_index &= 0xF;
			m.state_wr &= 0x3F;
			m.priority &= 0x1F;
			m.pri_inc &= 0x7;
			m.wait_time &= 0x1FFFF;
			cr_assert(eq(int,
				     etw_encode_ccswap_rec(wbuf, sizeof(wbuf), &r, ETW_ENC_WRAP),
				     n));
			cr_assert(eq(int, etw_encode_ccswap_rec(mbuf, sizeof(mbuf), &m, 0), n));
			cr_assert(eq(int, memcmp(wbuf, mbuf, (size_t)n), 0));
		}
	}
}

/* ======================================================================== */
/* PERFINFO_CCSWAP_BUFFER (seed 000)                                        */
/* ======================================================================== */

/*
 * FirstTimeStamp 0x01D9ABCDEF012345 @0; TidTable @8: [0] 4, [1] 1204 = 0x4B4,
 * [2] 5678 = 0x162E, [3] 0xABCDEF01, [4..14] 0, [15] 0x80000000;
 * ThreadBasePriority @0x48: 8, 9, 13, -1 (0xFF), 0 x 11, -128 (0x80).
 */
static const uint8_t ccswap_buffer[0x58] = {
	0x45, 0x23, 0x01, 0xEF, 0xCD, 0xAB, 0xD9, 0x01, /* 0x00 FirstTimeStamp */
	0x04, 0x00, 0x00, 0x00, 0xB4, 0x04, 0x00, 0x00, /* 0x08 TidTable[0], [1] */
	0x2E, 0x16, 0x00, 0x00, 0x01, 0xEF, 0xCD, 0xAB, /* 0x10 [2], [3] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0x18 [4], [5] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0x20 [6], [7] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0x28 [8], [9] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0x30 [10], [11] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 0x38 [12], [13] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* 0x40 [14], [15] */
	0x08, 0x09, 0x0D, 0xFF, 0x00, 0x00, 0x00, 0x00, /* 0x48 ThreadBasePriority[0..7] */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* 0x50 [8..15] */
};

static struct etw_ccswap_buffer ccswap_buffer_fields(void)
{
	return (struct etw_ccswap_buffer){
		.first_ts = 0x01D9ABCDEF012345ll,
		.tid_table = {4, 1204, 5678, 0xABCDEF01u, [15] = 0x80000000u},
		.base_pri = {8, 9, 13, -1, [15] = -128},
	};
}

static void assert_ccswap_buffer_eq(const struct etw_ccswap_buffer *a,
				    const struct etw_ccswap_buffer *b)
{
	cr_assert(eq(i64, a->first_ts, b->first_ts));
	for (unsigned i = 0; i < 16; i++) {
		cr_assert(eq(u32, a->tid_table[i], b->tid_table[i]), "tid_table[%u]", i);
		cr_assert(eq(i8, a->base_pri[i], b->base_pri[i]), "base_pri[%u]", i);
	}
}

Test(ccswap_buffer, matches_golden)
{
	struct etw_ccswap_buffer b = ccswap_buffer_fields();
	uint8_t buf[0x60];

	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(int, etw_encode_ccswap_buffer(buf, sizeof(buf), &b), 0x58));
	ASSERT_BYTES(buf, ccswap_buffer, sizeof(ccswap_buffer));
	assert_untouched(buf + 0x58, sizeof(buf) - 0x58);
}

Test(ccswap_buffer, decodes_golden)
{
	struct etw_ccswap_buffer want = ccswap_buffer_fields(), got;

	cr_assert(eq(int, etw_decode_ccswap_buffer(ccswap_buffer, 0x58, &got), 0x58));
	assert_ccswap_buffer_eq(&got, &want);
}

Test(ccswap_buffer, batch_fixed_part_is_header_then_buffer)
{
	/*
	 * A batch event with no records: Marker 0xC0110002, Size 0x68 (0x10 + 0x58),
	 * HookId 0x0525, TS 0x01D9ABCDEF0FFFFF, then the golden buffer at 0x10.
	 */
	static const uint8_t head[] = {
		0x02, 0x00, 0x11, 0xC0, 0x68, 0x00, 0x25, 0x05,
		0xFF, 0xFF, 0x0F, 0xEF, 0xCD, 0xAB, 0xD9, 0x01,
	};
	struct etl_perfinfo_header h = {
		.arch = ETL_ARCH_X64,
		.version = 2,
		.size = 0x68,
		.hook_id = 0x0525,
		.ts = 0x01D9ABCDEF0FFFFFull,
	};
	struct etw_ccswap_buffer b = ccswap_buffer_fields();
	uint8_t buf[0x68];

	cr_assert(eq(int, etl_encode_perfinfo_header(buf, sizeof(buf), &h), 0x10));
	cr_assert(eq(int, etw_encode_ccswap_buffer(buf + 0x10, 0x58, &b), 0x58));
	ASSERT_BYTES(buf, head, sizeof(head));
	ASSERT_BYTES(buf + 0x10, ccswap_buffer, sizeof(ccswap_buffer));
}

Test(ccswap_buffer, every_cap_below_0x58_is_enospc)
{
	struct etw_ccswap_buffer b = ccswap_buffer_fields();
	uint8_t buf[0x58];

	for (size_t cap = 0; cap < 0x58; cap++) {
		memset(buf, POISON, sizeof(buf));
		cr_assert(eq(int, etw_encode_ccswap_buffer(buf, cap, &b), -ENOSPC), "cap %zu", cap);
		assert_untouched(buf, sizeof(buf));
	}
}

Test(ccswap_buffer, every_short_input_is_einval)
{
	struct etw_ccswap_buffer b;

	for (size_t len = 0; len < 0x58; len++) {
		uint8_t *p = dup_prefix(ccswap_buffer, len);

		cr_assert(eq(int, etw_decode_ccswap_buffer(p, len, &b), -EINVAL), "len %zu", len);
		free(p);
	}
}

Test(ccswap_buffer, round_trips_many_values)
{
	uint64_t seed = 0x5851F42D4C957F2Dull;
	uint8_t buf[0x58];

	for (unsigned k = 0; k < 500; k++) {
		struct etw_ccswap_buffer b, got;

		b.first_ts = (int64_t)next_rand(&seed);
		for (unsigned i = 0; i < 16; i++) {
			uint64_t r = next_rand(&seed);

			b.tid_table[i] = (uint32_t)r;
			b.base_pri[i] = (int8_t)(r >> 32);
		}
		cr_assert(eq(int, etw_encode_ccswap_buffer(buf, sizeof(buf), &b), 0x58));
		cr_assert(eq(int, etw_decode_ccswap_buffer(buf, sizeof(buf), &got), 0x58));
		assert_ccswap_buffer_eq(&got, &b);
	}
}

/* ======================================================================== */
/* OldThreadStateWr (KERNEL_FACTS 5.3, seed 000)                            */
/* ======================================================================== */

Test(state_wr, waiting_gives_the_wait_reason_whatever_the_bias)
{
	/* State 5 (Waiting), WaitReason 6 (UserRequest) -> 6 */
	cr_assert(eq(u8, etw_ccswap_state_wr(5, 6, 39), 6));
	cr_assert(eq(u8, etw_ccswap_state_wr(5, 6, 40), 6));
	cr_assert(eq(u8, etw_ccswap_state_wr(5, 6, 43), 6));
	/* WaitReason 38 (WrDeferredPreempt) -> 38 */
	cr_assert(eq(u8, etw_ccswap_state_wr(5, 38, 39), 38));
	cr_assert(eq(u8, etw_ccswap_state_wr(5, 0, 43), 0));
}

Test(state_wr, other_states_are_biased_by_max_wait_reason)
{
	/* Ready (1): 1 + 39 = 40, 1 + 40 = 41, 1 + 43 = 44 */
	cr_assert(eq(u8, etw_ccswap_state_wr(1, 6, 39), 40));
	cr_assert(eq(u8, etw_ccswap_state_wr(1, 6, 40), 41));
	cr_assert(eq(u8, etw_ccswap_state_wr(1, 6, 43), 44));
	/* Running (2): 41, 42, 45; the wait reason is ignored */
	cr_assert(eq(u8, etw_ccswap_state_wr(2, 0, 39), 41));
	cr_assert(eq(u8, etw_ccswap_state_wr(2, 30, 40), 42));
	cr_assert(eq(u8, etw_ccswap_state_wr(2, 30, 43), 45));
	/* Initialized (0): exactly the bias */
	cr_assert(eq(u8, etw_ccswap_state_wr(0, 0, 40), 40));
	/* DeferredReady (7) + 43 = 50; MaximumThreadState (10) + 43 = 53 */
	cr_assert(eq(u8, etw_ccswap_state_wr(7, 0, 43), 50));
	cr_assert(eq(u8, etw_ccswap_state_wr(10, 0, 43), 53));
}

Test(state_wr, biased_state_wraps_mod_64)
{
	/* 24 + 39 = 63 fits; 25 + 39 = 64 -> 0; 26 + 43 = 69 -> 5; 30 + 40 = 70 -> 6 */
	cr_assert(eq(u8, etw_ccswap_state_wr(24, 0, 39), 63));
	cr_assert(eq(u8, etw_ccswap_state_wr(25, 0, 39), 0));
	cr_assert(eq(u8, etw_ccswap_state_wr(26, 0, 43), 5));
	cr_assert(eq(u8, etw_ccswap_state_wr(30, 0, 40), 6));
	/* 255 + 43 = 298 = 4 * 64 + 42 -> 42 */
	cr_assert(eq(u8, etw_ccswap_state_wr(255, 0, 43), 42));
	/* A wait reason beyond 6 bits is truncated like the kernel's field: 69 -> 5 */
	cr_assert(eq(u8, etw_ccswap_state_wr(5, 69, 43), 5));
}

static void check_split(uint8_t v, uint8_t bias, uint8_t want_state, uint8_t want_wr)
{
	uint8_t state = 0xEE, wr = 0xEE;

	etw_ccswap_state_wr_split(v, bias, &state, &wr);
	cr_assert(eq(u8, state, want_state), "split(%u, %u) state", v, bias);
	cr_assert(eq(u8, wr, want_wr), "split(%u, %u) wait reason", v, bias);
}

Test(state_wr, split_below_bias_is_waiting_else_state)
{
	check_split(6, 39, 5, 6);   /* wait reason 6 */
	check_split(38, 39, 5, 38); /* last wait reason below 39 */
	check_split(39, 39, 0, 0);  /* 39 - 39 = Initialized */
	check_split(39, 40, 5, 39); /* with bias 40, 39 is still a wait reason */
	check_split(40, 40, 0, 0);
	check_split(41, 40, 1, 0); /* Ready */
	check_split(42, 40, 2, 0); /* Running */
	check_split(44, 43, 1, 0);
	check_split(53, 43, 10, 0);
	check_split(63, 43, 20, 0); /* largest 6-bit value */
	check_split(63, 39, 24, 0);
	/* The mod-64 wrap is not invertible: 26 + 43 = 69 -> 5 reads back as waiting 5. */
	check_split(5, 43, 5, 5);
	/* Only 6 bits exist on the wire: 0x40 | 41 reads as 41. */
	check_split(0x40 | 41, 40, 1, 0);
}

Test(state_wr, split_inverts_every_real_state_and_wait_reason)
{
	static const uint8_t biases[] = {37, 39, 40, 43};

	for (size_t b = 0; b < ARRAY_LEN(biases); b++) {
		uint8_t bias = biases[b];

		for (uint8_t s = 0; s <= 10; s++) {
			uint8_t state, wr;

			if (s == 5) {
				continue;
			}
			etw_ccswap_state_wr_split(etw_ccswap_state_wr(s, 17, bias), bias, &state,
						  &wr);
			cr_assert(eq(u8, state, s), "bias %u state %u", bias, s);
			cr_assert(eq(u8, wr, 0));
		}
		for (uint8_t w = 0; w < bias; w++) {
			uint8_t state, wr;

			etw_ccswap_state_wr_split(etw_ccswap_state_wr(5, w, bias), bias, &state,
						  &wr);
			cr_assert(eq(u8, state, 5), "bias %u wait reason %u", bias, w);
			cr_assert(eq(u8, wr, w));
		}
	}
}
