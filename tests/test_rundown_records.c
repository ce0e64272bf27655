/* SPDX-License-Identifier: MIT */
/*
 * tests/test_rundown_records.c - the identity and rundown records
 * (producer/etw_process.h, etw_thread.h, etw_profile.h, etw_sysconfig.h,
 * etw_rundown.h, etw_event.h) against golden bytes typed from the hex dumps
 * of real Windows records (RUNDOWN_FACTS 2.6-2.11, 3.5-3.9, 5.1, 5.2, 6.2,
 * 7.2: files A = 18362 x64, P = 9200 x64), header included, and against
 * records typed by hand from the layout tables where no sample has the event
 * (ReadyThread, ThreadSetName, the x86 forms). Never computed from the
 * constants the encoders use: encoder and decoder share them.
 *
 * For each example: the target's header form, the whole record encoded from
 * the fields the spec decodes, the record decoded back through the one
 * dispatcher (etw_decode_payload), and every shorter payload refused, from
 * heap copies of exactly that length so that ASan sees any over-read.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_encode.h"
#include "producer/etw_event.h"
#include "producer/etw_text.h"
#include "producer/trace_sink.h"
#include "producer/records/cswitch.h"
#include "producer/records/process.h"
#include "producer/records/profile.h"
#include "producer/records/ready.h"
#include "producer/records/sysconfig.h"
#include "producer/records/thread.h"
#include "writer/etl_wire.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define POISON	     0xAA

#define ASSERT_BYTES(got, want, n)                                                                 \
	do {                                                                                       \
		struct cr_mem got_m_ = {.data = (got), .size = (n)};                               \
		struct cr_mem want_m_ = {.data = (want), .size = (n)};                             \
		cr_assert(eq(mem, got_m_, want_m_));                                               \
	} while (0)

/* A UTF-16 view of the ASCII/UTF-8 @s, in a pool that lives for the test. */
static struct etw_wstr W(const char *s) {
	static uint8_t pool[8192];
	static size_t used;
	struct etw_wstr w;
	size_t need = 2 * strlen(s) + 2;

	if (used + need > sizeof(pool)) {
		used = 0;
	}
	cr_assert(eq(int, etw_wstr_from_utf8(s, pool + used, sizeof(pool) - used, &w), 0));
	used += need;
	return w;
}

/* A heap copy of exactly @n bytes (a 1-byte block for 0, never read). */
static uint8_t *
dup_exact(const uint8_t *src, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	cr_assert(not(eq(ptr, p, NULL)));
	if (n) {
		memcpy(p, src, n);
	}
	return p;
}

static void assert_wstr_eq(struct etw_wstr got, struct etw_wstr want, const char *what)
{
	cr_assert(eq(sz, got.units, want.units), "%s: length", what);
	if (want.units) {
		cr_assert(eq(int, memcmp(got.le, want.le, 2 * want.units), 0), "%s: text", what);
	}
}

/* ======================================================================== */
/* The records, as the spec prints them (whole record, Size bytes)           */
/* ======================================================================== */

/* clang-format off */
/* RF 2.6, A b1+0x00B8: Process DCStart v4 of Idle, PERFINFO64 0xC0110004, Size 91. */
static const uint8_t pr_idle_dcstart[] = {
	0x04, 0x00, 0x11, 0xc0, 0x5b, 0x00, 0x03, 0x03, 0x5a, 0x02, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
	0xc0, 0x99, 0xa3, 0x42, 0x02, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd0, 0x1a, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0x00, 0x00, 0x20, 0xdc, 0x9c, 0xfc, 0x88, 0xb4, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x03, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x12, 0x00, 0x00, 0x00,  /* 0040 */
	0x49, 0x64, 0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0050 */
};

/* RF 2.7, A b1+0xD7F0: Process DCStart v4 of wininit.exe, Size 120. */
static const uint8_t pr_wininit_dcstart[] = {
	0x04, 0x00, 0x11, 0xc0, 0x78, 0x00, 0x03, 0x03, 0xef, 0x1e, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
	0x80, 0x30, 0xe2, 0x83, 0x86, 0xca, 0xff, 0xff, 0xf8, 0x01, 0x00, 0x00, 0xa4, 0x01, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0xa0, 0x87, 0x35, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x04, 0x00, 0x00, 0x00, 0x20, 0xdc, 0x9c, 0xfc, 0x88, 0xb4, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x03, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x12, 0x00, 0x00, 0x00,  /* 0040 */
	0x77, 0x69, 0x6e, 0x69, 0x6e, 0x69, 0x74, 0x2e, 0x65, 0x78, 0x65, 0x00, 0x77, 0x00, 0x69, 0x00,  /* 0050 */
	0x6e, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x69, 0x00, 0x74, 0x00, 0x2e, 0x00, 0x65, 0x00, 0x78, 0x00,  /* 0060 */
	0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0070 */
};

/* RF 2.8, P b28+0x6420: Process Start v4, SYSTEM64 0xC0020004, Size 155. */
static const uint8_t pr_start_p[] = {
	0x04, 0x00, 0x02, 0xc0, 0x9b, 0x00, 0x01, 0x03, 0xb8, 0x0d, 0x00, 0x00, 0xb4, 0x0d, 0x00, 0x00,  /* 0000 */
	0x99, 0xe8, 0x6a, 0x75, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x80, 0xb3, 0xcf, 0x00, 0x83, 0xfa, 0xff, 0xff, 0x5c, 0x0e, 0x00, 0x00, 0xb4, 0x0d, 0x00, 0x00,  /* 0020 */
	0x01, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0xb0, 0x8f, 0x55, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0xa0, 0x8e, 0x4f, 0x00, 0xa0, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x00, 0x00, 0x00, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00,  /* 0050 */
	0x1b, 0x81, 0xfe, 0xae, 0x76, 0x0c, 0x7c, 0x60, 0x56, 0x4c, 0x8b, 0x56, 0xe9, 0x03, 0x00, 0x00,  /* 0060 */
	0x54, 0x65, 0x73, 0x74, 0x2e, 0x78, 0x36, 0x34, 0x2e, 0x65, 0x78, 0x65, 0x00, 0x54, 0x00, 0x65,  /* 0070 */
	0x00, 0x73, 0x00, 0x74, 0x00, 0x2e, 0x00, 0x78, 0x00, 0x36, 0x00, 0x34, 0x00, 0x2e, 0x00, 0x65,  /* 0080 */
	0x00, 0x78, 0x00, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0090 */
};

/* RF 2.9, P b179+0x4770: Process End v4, Size 155. */
static const uint8_t pr_end_p[] = {
	0x04, 0x00, 0x02, 0xc0, 0x9b, 0x00, 0x02, 0x03, 0x60, 0x0e, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00,  /* 0000 */
	0xa9, 0x6d, 0xad, 0x78, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x43, 0x01, 0x00, 0x00,  /* 0010 */
	0x80, 0xb3, 0xcf, 0x00, 0x83, 0xfa, 0xff, 0xff, 0x5c, 0x0e, 0x00, 0x00, 0xb4, 0x0d, 0x00, 0x00,  /* 0020 */
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb0, 0x8f, 0x55, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x40, 0x2b, 0xdd, 0x05, 0xa0, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x53, 0x00, 0x50, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00,  /* 0050 */
	0x1b, 0x81, 0xfe, 0xae, 0x76, 0x0c, 0x7c, 0x60, 0x56, 0x4c, 0x8b, 0x56, 0xe9, 0x03, 0x00, 0x00,  /* 0060 */
	0x54, 0x65, 0x73, 0x74, 0x2e, 0x78, 0x36, 0x34, 0x2e, 0x65, 0x78, 0x65, 0x00, 0x54, 0x00, 0x65,  /* 0070 */
	0x00, 0x73, 0x00, 0x74, 0x00, 0x2e, 0x00, 0x78, 0x00, 0x36, 0x00, 0x34, 0x00, 0x2e, 0x00, 0x65,  /* 0080 */
	0x00, 0x78, 0x00, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0090 */
};

/* RF 2.10, A b44+0x4680: Process Defunct v5, PERFINFO64 0xC0110005, Size 106. */
static const uint8_t pr_defunct_v5[] = {
	0x05, 0x00, 0x11, 0xc0, 0x6a, 0x00, 0x27, 0x03, 0x2f, 0x48, 0xff, 0xbd, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x13, 0x58, 0x88, 0x86, 0xca, 0xff, 0xff, 0xf0, 0x01, 0x00, 0x00, 0x58, 0x02, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x25, 0x3c, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0x00, 0x00, 0x60, 0xd5, 0x9c, 0xfc, 0x88, 0xb4, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x14, 0x00, 0x00, 0x00,  /* 0040 */
	0x73, 0x76, 0x63, 0x68, 0x6f, 0x73, 0x74, 0x2e, 0x65, 0x78, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x67, 0xfc, 0x25, 0xba, 0x5a, 0xee, 0xd5, 0x01,  /* 0060 */
};

/* RF 2.11, A b3+0x4910: Process Terminate 0x030B, SYSTEM64 v2, Size 36. */
static const uint8_t pr_terminate[] = {
	0x02, 0x00, 0x02, 0xc0, 0x24, 0x00, 0x0b, 0x03, 0xb4, 0x12, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00,  /* 0000 */
	0x5e, 0x99, 0x7a, 0xbb, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x34, 0x08, 0x00, 0x00,  /* 0020 */
};

/* RF 3.5, A b1+0x0118: Thread DCStart v3 + L"", idle thread of CPU 0, Size 106. */
static const uint8_t th_idle_dcstart[] = {
	0x03, 0x00, 0x02, 0xc0, 0x6a, 0x00, 0x03, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x63, 0x02, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00, 0xfa, 0x9c, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd0, 0x06, 0x45, 0x02, 0xf8, 0xff, 0xff,  /* 0020 */
	0x00, 0x60, 0x06, 0x45, 0x02, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0xd0, 0xff, 0x66, 0x42, 0x02, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,  /* 0060 */
};

/* RF 3.6, A b1+0xC5E0: Thread DCStart v3, L"Win32k Raw Input Thread", Size 152. */
static const uint8_t th_named_dcstart[] = {
	0x03, 0x00, 0x02, 0xc0, 0x98, 0x00, 0x03, 0x05, 0x30, 0x02, 0x00, 0x00, 0xac, 0x01, 0x00, 0x00,  /* 0000 */
	0x46, 0x15, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0xac, 0x01, 0x00, 0x00, 0x30, 0x02, 0x00, 0x00, 0x00, 0x00, 0xc3, 0xf6, 0x80, 0xf5, 0xff, 0xff,  /* 0020 */
	0x00, 0x90, 0xc2, 0xf6, 0x80, 0xf5, 0xff, 0xff, 0x00, 0x00, 0xe0, 0x1c, 0xb9, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x80, 0xdf, 0x1c, 0xb9, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0xc0, 0x32, 0x9c, 0x90, 0xf9, 0x7f, 0x00, 0x00, 0x00, 0xb0, 0xba, 0x1c, 0xb9, 0x00, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x00, 0x00, 0x10, 0x05, 0x02, 0x00, 0x57, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x33, 0x00,  /* 0060 */
	0x32, 0x00, 0x6b, 0x00, 0x20, 0x00, 0x52, 0x00, 0x61, 0x00, 0x77, 0x00, 0x20, 0x00, 0x49, 0x00,  /* 0070 */
	0x6e, 0x00, 0x70, 0x00, 0x75, 0x00, 0x74, 0x00, 0x20, 0x00, 0x54, 0x00, 0x68, 0x00, 0x72, 0x00,  /* 0080 */
	0x65, 0x00, 0x61, 0x00, 0x64, 0x00, 0x00, 0x00,  /* 0090 */
};

/* RF 3.7, P b2+0x0140: Thread DCStart v3 without a name (9200), Size 104. */
static const uint8_t th_win8_dcstart[] = {
	0x03, 0x00, 0x02, 0xc0, 0x68, 0x00, 0x03, 0x05, 0xcc, 0x01, 0x00, 0x00, 0xc8, 0x01, 0x00, 0x00,  /* 0000 */
	0x12, 0x3e, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0xc8, 0x01, 0x00, 0x00, 0xcc, 0x01, 0x00, 0x00, 0x00, 0x40, 0x96, 0x03, 0x80, 0xf8, 0xff, 0xff,  /* 0020 */
	0x00, 0xe0, 0x95, 0x03, 0x80, 0xf8, 0xff, 0xff, 0x00, 0x00, 0xae, 0xea, 0x81, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0xd0, 0xad, 0xea, 0x81, 0x00, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x10, 0xbf, 0xda, 0x0b, 0xf6, 0x07, 0x00, 0x00, 0x00, 0xe0, 0xca, 0x0b, 0xf6, 0x07, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x00, 0x00, 0x0b, 0x05, 0x02, 0x00,  /* 0060 */
};

/* RF 3.8, A b3+0x01B8: Thread Start v3 + L"", Size 106. */
static const uint8_t th_start_a[] = {
	0x03, 0x00, 0x02, 0xc0, 0x6a, 0x00, 0x01, 0x05, 0x84, 0x19, 0x00, 0x00, 0xf8, 0x01, 0x00, 0x00,  /* 0000 */
	0xc4, 0x50, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0xf8, 0x01, 0x00, 0x00, 0xc4, 0x13, 0x00, 0x00, 0x00, 0xb0, 0xce, 0xf6, 0x80, 0xf5, 0xff, 0xff,  /* 0020 */
	0x00, 0x40, 0xce, 0xf6, 0x80, 0xf5, 0xff, 0xff, 0x00, 0x00, 0x78, 0x44, 0xf1, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x20, 0x77, 0x44, 0xf1, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x60, 0x3d, 0xbb, 0x93, 0xf9, 0x7f, 0x00, 0x00, 0x00, 0xb0, 0x48, 0x44, 0xf1, 0x00, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x00, 0x00, 0x0d, 0x05, 0x02, 0x00, 0x00, 0x00,  /* 0060 */
};

/* RF 3.8, P b17+0xD4D8: Thread Start v3 (9200), Size 104. */
static const uint8_t th_start_p[] = {
	0x03, 0x00, 0x02, 0xc0, 0x68, 0x00, 0x01, 0x05, 0xc4, 0x0e, 0x00, 0x00, 0x94, 0x0f, 0x00, 0x00,  /* 0000 */
	0x62, 0x1c, 0xd3, 0x73, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x04, 0x00, 0x00, 0x00, 0x54, 0x0e, 0x00, 0x00, 0x00, 0x10, 0x7f, 0x05, 0x80, 0xf8, 0xff, 0xff,  /* 0020 */
	0x00, 0xb0, 0x7e, 0x05, 0x80, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x6c, 0x91, 0x85, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x00, 0x00, 0x08, 0x05, 0x02, 0x00,  /* 0060 */
};

/* RF 3.9, A b24+0xE690: Thread End v3 with a name, Size 136. */
static const uint8_t th_end_named[] = {
	0x03, 0x00, 0x02, 0xc0, 0x88, 0x00, 0x02, 0x05, 0x44, 0x10, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,  /* 0000 */
	0xb0, 0x8d, 0xb5, 0xbb, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x34, 0x12, 0x00, 0x00, 0x44, 0x10, 0x00, 0x00, 0x00, 0x00, 0x03, 0xf8, 0x80, 0xf5, 0xff, 0xff,  /* 0020 */
	0x00, 0x90, 0x02, 0xf8, 0x80, 0xf5, 0xff, 0xff, 0x00, 0x00, 0x05, 0xba, 0x34, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0xc0, 0x04, 0xba, 0x34, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x20, 0xcf, 0xbf, 0x73, 0xf9, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x16, 0xb6, 0x34, 0x00, 0x00, 0x00,  /* 0050 */
	0x00, 0x00, 0x00, 0x00, 0x08, 0x05, 0x02, 0x00, 0x45, 0x00, 0x64, 0x00, 0x67, 0x00, 0x65, 0x00,  /* 0060 */
	0x48, 0x00, 0x74, 0x00, 0x6d, 0x00, 0x6c, 0x00, 0x20, 0x00, 0x52, 0x00, 0x65, 0x00, 0x6e, 0x00,  /* 0070 */
	0x64, 0x00, 0x65, 0x00, 0x72, 0x00, 0x00, 0x00,  /* 0080 */
};

/* RF 5.1, P b21+0x04A0: SampledProfile v2, PERFINFO64, Size 32. */
static const uint8_t sp_idle[] = {
	0x02, 0x00, 0x11, 0xc0, 0x20, 0x00, 0x2e, 0x0f, 0x3d, 0x5b, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x52, 0xf5, 0x52, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x80, 0x00,  /* 0010 */
};

/* RF 5.1, P b21+0x1680: SampledProfile v2, Size 32. */
static const uint8_t sp_busy[] = {
	0x02, 0x00, 0x11, 0xc0, 0x20, 0x00, 0x2e, 0x0f, 0xc9, 0x2b, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x13, 0x43, 0x43, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x20, 0x02, 0x00, 0x00, 0x01, 0x00, 0x40, 0x00,  /* 0010 */
};

/* RF 5.2, P b17+0xCBD8: profile interval DCStart 0x0F49, SYSTEM64 v3, Size 56. */
static const uint8_t pi_dcstart[] = {
	0x03, 0x00, 0x02, 0xc0, 0x38, 0x00, 0x49, 0x0f, 0xc4, 0x0e, 0x00, 0x00, 0x94, 0x0f, 0x00, 0x00,  /* 0000 */
	0x8a, 0x7f, 0xcf, 0x73, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x10, 0x27, 0x00, 0x00, 0x10, 0x27, 0x00, 0x00, 0x54, 0x00, 0x69, 0x00,  /* 0020 */
	0x6d, 0x00, 0x65, 0x00, 0x72, 0x00, 0x00, 0x00,  /* 0030 */
};

/* RF 7.2, A b1+0x0048: 0x0020 group masks end (old masks), PERFINFO64 v2, Size 52. */
static const uint8_t gm_end[] = {
	0x02, 0x00, 0x11, 0xc0, 0x34, 0x00, 0x20, 0x00, 0x14, 0x01, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x46, 0x00, 0x00, 0x00,  /* 0030 */
};

/* RF 7.2, A b1+0x0080: 0x0005 new group masks, PERFINFO64 v2, Size 52. */
static const uint8_t gm_new[] = {
	0x02, 0x00, 0x11, 0xc0, 0x34, 0x00, 0x05, 0x00, 0x3e, 0x02, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x46, 0x00, 0x00, 0x00,  /* 0030 */
};

/* RF 7.2, A b24+0x6708: 0x0008 rundown complete, header only, Size 16. */
static const uint8_t rundown_complete[] = {
	0x02, 0x00, 0x11, 0xc0, 0x10, 0x00, 0x08, 0x00, 0x37, 0xd7, 0x98, 0xbb, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
};
/* clang-format on */

/*
 * RF 6.2, P b184+0x3DE0: SystemConfig CPU v3, SYSTEM64 0xC0020003, Size 860
 * (0x35C). The spec prints 0x0050..0x033F as "all 00"; the lines it prints
 * are typed here, the rest of the array is zero.
 */
/* clang-format off */
static const uint8_t cpu_config_p[0x35C] = {
	0x03, 0x00, 0x02, 0xc0, 0x5c, 0x03, 0x0a, 0x0b, 0xc8, 0x0e, 0x00, 0x00, 0x94, 0x0f, 0x00, 0x00,
	0xd0, 0x29, 0xb4, 0x79, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00,
	0x08, 0x0e, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
	0x00, 0x00, 0x01, 0x00, 0x42, 0x00, 0x52, 0x00, 0x49, 0x00, 0x41, 0x00, 0x4e, 0x00, 0x52, 0x00,
	0x4f, 0x00, 0x42, 0x00, 0x2d, 0x00, 0x57, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 0340: 00 00 00 00 00 00 00 00 ff ff fe ff ff 07 00 00 */
	[0x348] = 0xff, 0xff, 0xfe, 0xff, 0xff, 0x07, 0x00, 0x00,
	/* 0350: 09 00 06 00 03 3c 01 01 00 00 00 00 */
	[0x350] = 0x09, 0x00, 0x06, 0x00, 0x03, 0x3c, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
};
/* clang-format on */

/*
 * ReadyThread (no sample has one): typed from RF 4's table and our header
 * choice, SYSTEM64 v2 = 0xC0020002; Size 0x28 = 0x20 + 8; HookId 0x0532;
 * header TID 0x230 / PID 0x1AC (the readying thread), TS 0x1122334455,
 * KernelTime 7, UserTime 9; payload TThreadId 0x13C4, AdjustReason 1
 * (Unwait), AdjustIncrement 2, Flags 0x01 (from a DPC), Reserved 0.
 */
static const uint8_t ready_x64[] = {
	0x02, 0x00, 0x02, 0xc0, 0x28, 0x00, 0x32, 0x05, 0x30, 0x02, 0x00, 0x00, 0xac, 0x01,
	0x00, 0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
	0x09, 0x00, 0x00, 0x00, 0xc4, 0x13, 0x00, 0x00, 0x01, 0x02, 0x01, 0x00,
};
/* The same on x86: only the HeaderType byte changes (SYSTEM32 0xC0010002). */
static const uint8_t ready_x86[] = {
	0x02, 0x00, 0x01, 0xc0, 0x28, 0x00, 0x32, 0x05, 0x30, 0x02, 0x00, 0x00, 0xac, 0x01,
	0x00, 0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
	0x09, 0x00, 0x00, 0x00, 0xc4, 0x13, 0x00, 0x00, 0x01, 0x02, 0x01, 0x00,
};

/*
 * ThreadSetName (no sample has one): RF 3.10, PERFINFO64 v2 = 0xC0110002;
 * Size 0x26 = 0x10 + 8 + 2 * 7; HookId 0x0548; TS 0x0102030405060708;
 * PID 0x1AC, TID 0x230, L"Win32k".
 */
static const uint8_t set_name_x64[] = {
	0x02, 0x00, 0x11, 0xc0, 0x26, 0x00, 0x48, 0x05, 0x08, 0x07, 0x06, 0x05, 0x04,
	0x03, 0x02, 0x01, 0xac, 0x01, 0x00, 0x00, 0x30, 0x02, 0x00, 0x00, 0x57, 0x00,
	0x69, 0x00, 0x6e, 0x00, 0x33, 0x00, 0x32, 0x00, 0x6b, 0x00, 0x00, 0x00,
};

/*
 * x86 Idle DCStart, by the pointer rule (RF 2.2 x86 offsets, 2.3 TOKEN_USER
 * 8 bytes): PERFINFO32 v4 = 0xC0100004; Size 0x4B = 0x10 + 0x1C fixed +
 * 8 TOKEN_USER + 12 SID + 5 "Idle" + 3 * 2 empty strings; TS 0x44BB79025A.
 * Key 0x82A399C0 @0, PID 0 @4, PPID 0 @8, Session -1 @0xC, ExitStatus 0
 * @0x10, DTB 0x1AD000 @0x14, Flags 0 @0x18, TOKEN_USER {0x8C9CDC20, 0} @0x1C,
 * S-1-5-18 @0x24, "Idle" @0x30.
 */
static const uint8_t pr_idle_x86[] = {
	0x04, 0x00, 0x10, 0xc0, 0x4b, 0x00, 0x03, 0x03, 0x5a, 0x02, 0x79, 0xbb, 0x44, 0x00, 0x00,
	0x00, 0xc0, 0x99, 0xa3, 0x82, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,
	0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd0, 0x1a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20,
	0xdc, 0x9c, 0x8c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x12, 0x00, 0x00, 0x00, 0x49, 0x64, 0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/*
 * x86 idle-thread DCStart with an empty name (RF 3.2 x86 offsets): SYSTEM32
 * v3 = 0xC0010003; Size 0x4E = 0x20 + 0x2C + 2; TID/PID 0, TS 0x44BB790263,
 * KernelTime 0x1C9CFA. StackBase 0x8D06D000 @8, StackLimit 0x8D066000 @0xC,
 * user stack 0 @0x10/0x14, Affinity 1 @0x18, Win32StartAddr 0x8266FFD0
 * @0x1C, TEB 0 @0x20, SubProcessTag 0 @0x24, priorities 0/5/0 @0x28..0x2A,
 * Flags 0 @0x2B, L"" @0x2C.
 */
static const uint8_t th_idle_x86[] = {
	0x03, 0x00, 0x01, 0xc0, 0x4e, 0x00, 0x03, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x63, 0x02, 0x79, 0xbb, 0x44, 0x00, 0x00, 0x00, 0xfa, 0x9c,
	0x1c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xd0, 0x06, 0x8d, 0x00, 0x60, 0x06, 0x8d, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xd0, 0xff, 0x66, 0x82, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
};

/*
 * x86 SampledProfile (RF 5.1 x86 column): PERFINFO32 v2 = 0xC0100002; Size
 * 0x1C = 0x10 + 0x0C; TS 0x73E42BC9; IP 0x81434313 @0, TID 0x220 @4, Count 1
 * @8, Flags 0x43 (priority 8, DPC, ISR) @0xA, Rank 0 @0xB.
 */
static const uint8_t sp_x86[] = {
	0x02, 0x00, 0x10, 0xc0, 0x1c, 0x00, 0x2e, 0x0f, 0xc9, 0x2b, 0xe4, 0x73, 0x00, 0x00,
	0x00, 0x00, 0x13, 0x43, 0x43, 0x81, 0x20, 0x02, 0x00, 0x00, 0x01, 0x00, 0x43, 0x00,
};

/*
 * x86 SystemConfig CPU v3 (RF 6.2 x86 column), the sample's values with a
 * 32-bit HighestUserAddress 0x7FFEFFFF: SYSTEM32 v3 = 0xC0010003, Size
 * 0x354 = 0x20 + 820; header as in the sample. HyperThreadingFlag 0 @0x320,
 * HighestUserAddress @0x324, Architecture 0 (INTEL) @0x328, Level 6 @0x32A,
 * Revision 0x3C03 @0x32C, Pae 1 @0x32E, Nx 1 @0x32F, MemorySpeed 1600 @0x330.
 * Record offsets below are payload offsets + 0x20.
 */
/* clang-format off */
static const uint8_t cpu_config_x86[0x354] = {
	0x03, 0x00, 0x01, 0xc0, 0x54, 0x03, 0x0a, 0x0b, 0xc8, 0x0e, 0x00, 0x00, 0x94, 0x0f, 0x00, 0x00,
	0xd0, 0x29, 0xb4, 0x79, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00,
	0x08, 0x0e, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
	0x00, 0x00, 0x01, 0x00, 0x42, 0x00, 0x52, 0x00, 0x49, 0x00, 0x41, 0x00, 0x4e, 0x00, 0x52, 0x00,
	0x4f, 0x00, 0x42, 0x00, 0x2d, 0x00, 0x57, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* DomainName @0x214 + 0x20: L"W" */
	[0x234] = 0x57, 0x00,
	[0x344] = 0xff, 0xff, 0xfe, 0x7f,
	[0x348] = 0x00, 0x00, 0x06, 0x00, 0x03, 0x3c, 0x01, 0x01, 0x40, 0x06, 0x00, 0x00,
};
/* clang-format on */

/* ======================================================================== */
/* The fields each record holds, as the spec decodes them                    */
/* ======================================================================== */

union fields {
	struct etw_process pr;
	uint32_t terminated_pid;
	struct etw_thread th;
	struct etw_thread_set_name tsn;
	struct etw_ready_thread rt;
	struct etw_sampled_profile sp;
	struct etw_profile_interval pi;
	struct etw_cpu_config cpu;
	struct etw_group_masks gm;
};

/* S-1-5-<subs...> behind a TOKEN_USER {@token, Attributes 0, @pad}. */
static struct etw_sid nt_sid(uint64_t token, uint32_t pad, unsigned n, const uint32_t *subs)
{
	struct etw_sid s = {.present = true, .token_sid = token, .token_pad = pad, .revision = 1};

	s.sub_count = (uint8_t)n;
	s.authority[5] = 5; /* SECURITY_NT_AUTHORITY {0,0,0,0,0,5} */
	memcpy(s.sub, subs, n * sizeof(*subs));
	return s;
}

static const uint32_t local_system[] = {18};
static const uint32_t network_service[] = {20};
static const uint32_t user_1001[] = {21, 2935914779u, 1618742390u, 1451969622u, 1001};

/* RF 2.6: Idle, PID 0, Session -1, ExitStatus 0, pad 3. */
static void f_pr_idle(union fields *f)
{
	f->pr = (struct etw_process){
		.unique_process_key = 0xFFFFF80242A399C0u,
		.session_id = 0xFFFFFFFFu,
		.directory_table_base = 0x1AD000,
		.sid = nt_sid(0xFFFFB488FC9CDC20u, 3, 1, local_system),
		.image_file_name = "Idle",
	};
}

/* RF 2.7: wininit.exe, protected, its command line. */
static void f_pr_wininit(union fields *f)
{
	f->pr = (struct etw_process){
		.unique_process_key = 0xFFFFCA8683E23080u,
		.process_id = 504,
		.parent_id = 420,
		.exit_status = 0x103,
		.directory_table_base = 0x3587A000,
		.flags = 4,
		.sid = nt_sid(0xFFFFB488FC9CDC20u, 3, 1, local_system),
		.image_file_name = "wininit.exe",
		.command_line = W("wininit.exe"),
	};
}

/* RF 2.8: Process Start of Test.x64.exe (PID 3676) by PID 3508. */
static void f_pr_start(union fields *f)
{
	f->pr = (struct etw_process){
		.unique_process_key = 0xFFFFFA8300CFB380u,
		.process_id = 3676,
		.parent_id = 3508,
		.session_id = 1,
		.exit_status = 0x103,
		.directory_table_base = 0x558FB000,
		.sid = nt_sid(0xFFFFF8A0004F8EA0u, 0, 5, user_1001),
		.image_file_name = "Test.x64.exe",
		.command_line = W("Test.x64.exe"),
	};
}

/* RF 2.9: its End: ExitStatus 0, another TOKEN_USER pointer, pad "SP". */
static void f_pr_end(union fields *f)
{
	f_pr_start(f);
	f->pr.exit_status = 0;
	f->pr.sid.token_sid = 0xFFFFF8A005DD2B40u;
	f->pr.sid.token_pad = 0x00500053u;
}

/* RF 2.10: Defunct v5 svchost.exe, S-1-5-20, ExitTime. */
static void f_pr_defunct(union fields *f)
{
	f->pr = (struct etw_process){
		.unique_process_key = 0xFFFFCA8688581300u,
		.process_id = 496,
		.parent_id = 600,
		.directory_table_base = 0x3C25A000,
		.sid = nt_sid(0xFFFFB488FC9CD560u, 0, 1, network_service),
		.image_file_name = "svchost.exe",
		.exit_time = 0x01D5EE5ABA25FC67u,
	};
}

/* RF 2.11: Terminate of PID 2100. */
static void f_pr_terminate(union fields *f)
{
	f->terminated_pid = 2100;
}

/* The x86 Idle DCStart typed above. */
static void f_pr_idle_x86(union fields *f)
{
	f_pr_idle(f);
	f->pr.unique_process_key = 0x82A399C0u;
	f->pr.sid.token_sid = 0x8C9CDC20u;
	f->pr.sid.token_pad = 0; /* no pad on x86 */
}

/* RF 3.5: the idle thread of CPU 0, name "". */
static void f_th_idle(union fields *f)
{
	f->th = (struct etw_thread){
		.stack_base = 0xFFFFF8024506D000u,
		.stack_limit = 0xFFFFF80245066000u,
		.affinity = 1,
		.win32_start_address = 0xFFFFF8024266FFD0u,
		.page_priority = 5,
		.has_name = true,
	};
}

/* RF 3.6: csrss.exe's "Win32k Raw Input Thread". */
static void f_th_named(union fields *f)
{
	f->th = (struct etw_thread){
		.process_id = 428,
		.thread_id = 560,
		.stack_base = 0xFFFFF580F6C30000u,
		.stack_limit = 0xFFFFF580F6C29000u,
		.user_stack_base = 0xB91CE00000u,
		.user_stack_limit = 0xB91CDF8000u,
		.affinity = 3,
		.win32_start_address = 0x7FF9909C32C0u,
		.teb_base = 0xB91CBAB000u,
		.base_priority = 16,
		.page_priority = 5,
		.io_priority = 2,
		.has_name = true,
		.name = W("Win32k Raw Input Thread"),
	};
}

/* RF 3.7: Win8, no name. */
static void f_th_win8(union fields *f)
{
	f->th = (struct etw_thread){
		.process_id = 456,
		.thread_id = 460,
		.stack_base = 0xFFFFF88003964000u,
		.stack_limit = 0xFFFFF8800395E000u,
		.user_stack_base = 0x81EAAE0000u,
		.user_stack_limit = 0x81EAADD000u,
		.affinity = 0xFF,
		.win32_start_address = 0x7F60BDABF10u,
		.teb_base = 0x7F60BCAE000u,
		.base_priority = 11,
		.page_priority = 5,
		.io_priority = 2,
	};
}

/* RF 3.8, A: Thread Start of TID 5060 in PID 504, name "". */
static void f_th_start_a(union fields *f)
{
	f->th = (struct etw_thread){
		.process_id = 504,
		.thread_id = 5060,
		.stack_base = 0xFFFFF580F6CEB000u,
		.stack_limit = 0xFFFFF580F6CE4000u,
		.user_stack_base = 0xF144780000u,
		.user_stack_limit = 0xF144772000u,
		.affinity = 3,
		.win32_start_address = 0x7FF993BB3D60u,
		.teb_base = 0xF14448B000u,
		.base_priority = 13,
		.page_priority = 5,
		.io_priority = 2,
		.has_name = true,
	};
}

/* RF 3.8, P: a system thread (PID 4, TID 3668) started by the controller. */
static void f_th_start_p(union fields *f)
{
	f->th = (struct etw_thread){
		.process_id = 4,
		.thread_id = 3668,
		.stack_base = 0xFFFFF880057F1000u,
		.stack_limit = 0xFFFFF880057EB000u,
		.affinity = 0xFF,
		.win32_start_address = 0xFFFFF8002185916Cu,
		.base_priority = 8,
		.page_priority = 5,
		.io_priority = 2,
	};
}

/*
 * RF 3.9: Thread End of TID 4164 in PID 4660. The hex (and Size 136 = 0x68 +
 * 2 * 16) holds L"EdgeHtml Render", 15 units; the prose says "Renderer".
 */
static void f_th_end_named(union fields *f)
{
	f->th = (struct etw_thread){
		.process_id = 4660,
		.thread_id = 4164,
		.stack_base = 0xFFFFF580F8030000u,
		.stack_limit = 0xFFFFF580F8029000u,
		.user_stack_base = 0x34BA050000u,
		.user_stack_limit = 0x34BA04C000u,
		.affinity = 3,
		.win32_start_address = 0x7FF973BFCF20u,
		.teb_base = 0x34B6160000u,
		.base_priority = 8,
		.page_priority = 5,
		.io_priority = 2,
		.has_name = true,
		.name = W("EdgeHtml Render"),
	};
}

/* The x86 idle thread typed above. */
static void f_th_idle_x86(union fields *f)
{
	f_th_idle(f);
	f->th.stack_base = 0x8D06D000u;
	f->th.stack_limit = 0x8D066000u;
	f->th.win32_start_address = 0x8266FFD0u;
}

/* RF 3.10 (typed): PID 428, TID 560, L"Win32k". */
static void f_set_name(union fields *f)
{
	f->tsn = (struct etw_thread_set_name){
		.process_id = 428, .thread_id = 560, .name = W("Win32k")};
}

/* RF 4 (typed): TID 5060 readied, Unwait +2, from a DPC. */
static void f_ready(union fields *f)
{
	f->rt = (struct etw_ready_thread){
		.thread_id = 5060, .adjust_reason = 1, .adjust_increment = 2, .flags = 1};
}

/* RF 5.1, P b21+0x04A0: an idle sample, priority 16. */
static void f_sp_idle(union fields *f)
{
	f->sp = (struct etw_sampled_profile){
		.instruction_pointer = 0xFFFFF8002152F552u, .count = 1, .flags = 0x80};
}

/* RF 5.1, P b21+0x1680: TID 544 at priority 8. */
static void f_sp_busy(union fields *f)
{
	f->sp = (struct etw_sampled_profile){.instruction_pointer = 0xFFFFF80021434313u,
					     .thread_id = 544,
					     .count = 1,
					     .flags = 0x40};
}

/* The x86 sample typed above: priority 8, in a DPC and an ISR. */
static void f_sp_x86(union fields *f)
{
	f->sp = (struct etw_sampled_profile){
		.instruction_pointer = 0x81434313u, .thread_id = 544, .count = 1, .flags = 0x43};
}

/* RF 5.2: the timer at 1 ms (10,000 x 100 ns), L"Timer". */
static void f_pi(union fields *f)
{
	f->pi = (struct etw_profile_interval){
		.new_interval = 10000, .old_interval = 10000, .source_name = W("Timer")};
}

/* RF 6.2: BRIANROB-W8, 8 CPUs at 3592 MHz, 4 GB. */
static void f_cpu(union fields *f)
{
	f->cpu = (struct etw_cpu_config){
		.mhz = 3592,
		.number_of_processors = 8,
		.memory_mb = 4096,
		.page_size = 4096,
		.allocation_granularity = 65536,
		.computer_name = W("BRIANROB-W8"),
		.highest_user_address = 0x7FFFFFEFFFFu,
		.processor_architecture = 9,
		.processor_level = 6,
		.processor_revision = 0x3C03,
		.pae_enabled = 1,
		.nx_enabled = 1,
	};
}

/* The x86 CPU record typed above. */
static void f_cpu_x86(union fields *f)
{
	f_cpu(f);
	f->cpu.domain_name = W("W");
	f->cpu.highest_user_address = 0x7FFEFFFFu;
	f->cpu.processor_architecture = 0;
	f->cpu.memory_speed = 1600;
}

/* RF 7.2: 0x0020 with the old masks (all 0), kernel event version 0x46. */
static void f_gm_end(union fields *f)
{
	f->gm = (struct etw_group_masks){.version = 0x46};
}

/* RF 7.2: 0x0005 with the new masks: PROCESS | THREAD | LOADER in Masks[0]. */
static void f_gm_new(union fields *f)
{
	f->gm = (struct etw_group_masks){.masks = {7}, .version = 0x46};
}

static void f_none(union fields *f)
{
	(void)f;
}

/* ======================================================================== */
/* The examples                                                              */
/* ======================================================================== */

/*
 * struct example - one record: where it comes from, the target whose form
 * it has (9200's forms are those of win10-1709 and older: Defunct v4, no
 * thread name), the header the spec prints, and its fields.
 */
struct example {
	const char *what;
	const uint8_t *bytes;
	size_t size;
	const char *target;
	enum etl_arch arch;
	uint16_t hook;
	enum etw_header_form header;
	uint8_t version;
	struct etw_event_ctx ctx;
	enum etw_payload_kind kind;
	void (*fields)(union fields *f);
};

#define X64    ETL_ARCH_X64
#define X86    ETL_ARCH_X86
#define PERF   ETW_HEADER_PERFINFO
#define SYS    ETW_HEADER_SYSTEM
#define REC(a) a, sizeof(a)
#define CTX(ts, ...)                                                                               \
	{                                                                                          \
		ts, __VA_ARGS__                                                                    \
	}
#define K(kind) ETW_PAYLOAD_##kind

/* clang-format off */
static const struct example examples[] = {
	{"RF 2.6 A b1+0x00B8 Idle DCStart", REC(pr_idle_dcstart), "win10-1903", X64, 0x0303,
	 PERF, 4, CTX(0x44BB79025Au, 0, 0, 0, 0), K(PROCESS), f_pr_idle},
	{"RF 2.7 A b1+0xD7F0 wininit DCStart", REC(pr_wininit_dcstart), "win10-1903", X64, 0x0303,
	 PERF, 4, CTX(0x44BB791EEFu, 0, 0, 0, 0), K(PROCESS), f_pr_wininit},
	{"RF 2.8 P b28+0x6420 Process Start", REC(pr_start_p), "win10-1709", X64, 0x0301,
	 SYS, 4, CTX(0x756AE899u, 3512, 3508, 8, 0), K(PROCESS), f_pr_start},
	{"RF 2.9 P b179+0x4770 Process End", REC(pr_end_p), "win10-1709", X64, 0x0302,
	 SYS, 4, CTX(0x78AD6DA9u, 3680, 3676, 8, 323), K(PROCESS), f_pr_end},
	{"RF 2.10 A b44+0x4680 Defunct v5", REC(pr_defunct_v5), "win10-1903", X64, 0x0327,
	 PERF, 5, CTX(0x44BDFF482Fu, 0, 0, 0, 0), K(PROCESS), f_pr_defunct},
	{"RF 2.11 A b3+0x4910 Terminate", REC(pr_terminate), "win10-1903", X64, 0x030B,
	 SYS, 2, CTX(0x44BB7A995Eu, 4788, 516, 0, 0), K(PROCESS_TERMINATE), f_pr_terminate},
	{"x86 Idle DCStart (typed)", REC(pr_idle_x86), "win10-1903", X86, 0x0303,
	 PERF, 4, CTX(0x44BB79025Au, 0, 0, 0, 0), K(PROCESS), f_pr_idle_x86},
	{"RF 3.5 A b1+0x0118 idle thread DCStart", REC(th_idle_dcstart), "win10-1903", X64, 0x0503,
	 SYS, 3, CTX(0x44BB790263u, 0, 0, 0x1C9CFA, 0), K(THREAD), f_th_idle},
	{"RF 3.6 A b1+0xC5E0 named thread DCStart", REC(th_named_dcstart), "win10-1903", X64, 0x0503,
	 SYS, 3, CTX(0x44BB791546u, 560, 428, 1, 0), K(THREAD), f_th_named},
	{"RF 3.7 P b2+0x0140 thread DCStart, no name", REC(th_win8_dcstart), "win10-1709", X64,
	 0x0503, SYS, 3, CTX(0x73CE3E12u, 460, 456, 6, 0), K(THREAD), f_th_win8},
	{"RF 3.8 A b3+0x01B8 Thread Start", REC(th_start_a), "win10-1903", X64, 0x0501,
	 SYS, 3, CTX(0x44BB7950C4u, 6532, 504, 0, 0), K(THREAD), f_th_start_a},
	{"RF 3.8 P b17+0xD4D8 Thread Start", REC(th_start_p), "win10-1709", X64, 0x0501,
	 SYS, 3, CTX(0x73D31C62u, 3780, 3988, 4, 0), K(THREAD), f_th_start_p},
	{"RF 3.9 A b24+0xE690 Thread End, named", REC(th_end_named), "win10-1903", X64, 0x0502,
	 SYS, 3, CTX(0x44BBB58DB0u, 4164, 4660, 0, 0), K(THREAD), f_th_end_named},
	{"x86 idle thread DCStart (typed)", REC(th_idle_x86), "win10-1903", X86, 0x0503,
	 SYS, 3, CTX(0x44BB790263u, 0, 0, 0x1C9CFA, 0), K(THREAD), f_th_idle_x86},
	{"ThreadSetName (typed)", REC(set_name_x64), "win11-22h2", X64, 0x0548,
	 PERF, 2, CTX(0x0102030405060708u, 0, 0, 0, 0), K(THREAD_SET_NAME), f_set_name},
	{"ReadyThread x64 (typed)", REC(ready_x64), "win11-22h2", X64, 0x0532,
	 SYS, 2, CTX(0x1122334455u, 560, 428, 7, 9), K(READY_THREAD), f_ready},
	{"ReadyThread x86 (typed)", REC(ready_x86), "win10-1507", X86, 0x0532,
	 SYS, 2, CTX(0x1122334455u, 560, 428, 7, 9), K(READY_THREAD), f_ready},
	{"RF 5.1 P b21+0x04A0 SampledProfile, idle", REC(sp_idle), "win10-1709", X64, 0x0F2E,
	 PERF, 2, CTX(0x73CE5B3Du, 0, 0, 0, 0), K(SAMPLED_PROFILE), f_sp_idle},
	{"RF 5.1 P b21+0x1680 SampledProfile", REC(sp_busy), "win10-1709", X64, 0x0F2E,
	 PERF, 2, CTX(0x73E42BC9u, 0, 0, 0, 0), K(SAMPLED_PROFILE), f_sp_busy},
	{"x86 SampledProfile (typed)", REC(sp_x86), "win10-1709", X86, 0x0F2E,
	 PERF, 2, CTX(0x73E42BC9u, 0, 0, 0, 0), K(SAMPLED_PROFILE), f_sp_x86},
	{"RF 5.2 P b17+0xCBD8 profile interval DCStart", REC(pi_dcstart), "win10-1709", X64, 0x0F49,
	 SYS, 3, CTX(0x73CF7F8Au, 3780, 3988, 3, 0), K(PROFILE_INTERVAL), f_pi},
	{"RF 6.2 P b184+0x3DE0 SystemConfig CPU", REC(cpu_config_p), "win10-1709", X64, 0x0B0A,
	 SYS, 3, CTX(0x79B429D0u, 3784, 3988, 2, 0x28), K(CPU_CONFIG), f_cpu},
	{"x86 SystemConfig CPU (typed)", REC(cpu_config_x86), "win10-1709", X86, 0x0B0A,
	 SYS, 3, CTX(0x79B429D0u, 3784, 3988, 2, 0x28), K(CPU_CONFIG), f_cpu_x86},
	{"RF 7.2 A b1+0x0048 group masks end", REC(gm_end), "win10-1903", X64, 0x0020,
	 PERF, 2, CTX(0x44BB790114u, 0, 0, 0, 0), K(GROUP_MASKS), f_gm_end},
	{"RF 7.2 A b1+0x0080 new group masks", REC(gm_new), "win10-1903", X64, 0x0005,
	 PERF, 2, CTX(0x44BB79023Eu, 0, 0, 0, 0), K(GROUP_MASKS), f_gm_new},
	{"RF 7.2 A b24+0x6708 rundown complete", REC(rundown_complete), "win10-1903", X64, 0x0008,
	 PERF, 2, CTX(0x44BB98D737u, 0, 0, 0, 0), K(RUNDOWN_COMPLETE), f_none},
};
/* clang-format on */

/* encode - the payload of @e's kind from @f. Return: the encoder's result. */
static int encode(const struct example *e, uint8_t version, const union fields *f, uint8_t *buf,
		  size_t cap)
{
	switch (e->kind) {
	case ETW_PAYLOAD_PROCESS:
		return etw_encode_process(buf, cap, e->arch, version, &f->pr, 0);
	case ETW_PAYLOAD_PROCESS_TERMINATE:
		return etw_encode_process_terminate(buf, cap, f->terminated_pid);
	case ETW_PAYLOAD_THREAD:
		return etw_encode_thread(buf, cap, e->arch, version, &f->th, 0);
	case ETW_PAYLOAD_THREAD_SET_NAME:
		return etw_encode_thread_set_name(buf, cap, &f->tsn);
	case ETW_PAYLOAD_READY_THREAD:
		return etw_encode_ready_thread(buf, cap, &f->rt);
	case ETW_PAYLOAD_SAMPLED_PROFILE:
		return etw_encode_sampled_profile(buf, cap, e->arch, &f->sp, 0);
	case ETW_PAYLOAD_PROFILE_INTERVAL:
		return etw_encode_profile_interval(buf, cap, version, &f->pi);
	case ETW_PAYLOAD_CPU_CONFIG:
		return etw_encode_cpu_config(buf, cap, e->arch, &f->cpu, 0);
	case ETW_PAYLOAD_GROUP_MASKS:
		return etw_encode_group_masks(buf, cap, &f->gm);
	case ETW_PAYLOAD_RUNDOWN_COMPLETE:
		return 0;
	default:
		cr_fatal("%s: no encoder", e->what);
		return -1;
	}
}

static void assert_sid_eq(const struct etw_sid *g, const struct etw_sid *w, bool x64)
{
	cr_assert(eq(int, g->present, w->present));
	cr_assert(eq(u64, g->token_sid, w->token_sid));
	cr_assert(eq(u32, g->attributes, w->attributes));
	cr_assert(eq(u32, g->token_pad, x64 ? w->token_pad : 0));
	cr_assert(eq(u8, g->revision, w->revision));
	cr_assert(eq(u8, g->sub_count, w->sub_count));
	cr_assert(eq(int, memcmp(g->authority, w->authority, sizeof(w->authority)), 0));
	for (unsigned i = 0; i < w->sub_count; i++) {
		cr_assert(eq(u32, g->sub[i], w->sub[i]), "SubAuthority[%u]", i);
	}
}

/* assert_fields - what the dispatcher decoded @got equals the spec's @w. */
static void assert_fields(const struct example *e, const struct etw_payload *got,
			  const union fields *w)
{
	switch (e->kind) {
	case ETW_PAYLOAD_PROCESS:
		cr_assert(eq(u64, got->u.pr.unique_process_key, w->pr.unique_process_key));
		cr_assert(eq(u32, got->u.pr.process_id, w->pr.process_id));
		cr_assert(eq(u32, got->u.pr.parent_id, w->pr.parent_id));
		cr_assert(eq(u32, got->u.pr.session_id, w->pr.session_id));
		cr_assert(eq(i32, got->u.pr.exit_status, w->pr.exit_status));
		cr_assert(eq(u64, got->u.pr.directory_table_base, w->pr.directory_table_base));
		cr_assert(eq(u32, got->u.pr.flags, w->pr.flags));
		assert_sid_eq(&got->u.pr.sid, &w->pr.sid, e->arch == X64);
		cr_assert(
			eq(str, (char *)got->u.pr.image_file_name, (char *)w->pr.image_file_name));
		assert_wstr_eq(got->u.pr.command_line, w->pr.command_line, "CommandLine");
		assert_wstr_eq(got->u.pr.package_full_name, w->pr.package_full_name, "Package");
		assert_wstr_eq(got->u.pr.application_id, w->pr.application_id, "ApplicationId");
		cr_assert(eq(u64, got->u.pr.exit_time, w->pr.exit_time));
		break;
	case ETW_PAYLOAD_PROCESS_TERMINATE:
		cr_assert(eq(u32, got->u.terminated_pid, w->terminated_pid));
		break;
	case ETW_PAYLOAD_THREAD:
		cr_assert(eq(u32, got->u.th.process_id, w->th.process_id));
		cr_assert(eq(u32, got->u.th.thread_id, w->th.thread_id));
		cr_assert(eq(u64, got->u.th.stack_base, w->th.stack_base));
		cr_assert(eq(u64, got->u.th.stack_limit, w->th.stack_limit));
		cr_assert(eq(u64, got->u.th.user_stack_base, w->th.user_stack_base));
		cr_assert(eq(u64, got->u.th.user_stack_limit, w->th.user_stack_limit));
		cr_assert(eq(u64, got->u.th.affinity, w->th.affinity));
		cr_assert(eq(u64, got->u.th.win32_start_address, w->th.win32_start_address));
		cr_assert(eq(u64, got->u.th.teb_base, w->th.teb_base));
		cr_assert(eq(u32, got->u.th.sub_process_tag, w->th.sub_process_tag));
		cr_assert(eq(i8, got->u.th.base_priority, w->th.base_priority));
		cr_assert(eq(u8, got->u.th.page_priority, w->th.page_priority));
		cr_assert(eq(u8, got->u.th.io_priority, w->th.io_priority));
		cr_assert(eq(u8, got->u.th.flags, w->th.flags));
		cr_assert(eq(int, got->u.th.has_name, w->th.has_name));
		assert_wstr_eq(got->u.th.name, w->th.name, "ThreadName");
		break;
	case ETW_PAYLOAD_THREAD_SET_NAME:
		cr_assert(eq(u32, got->u.tsn.process_id, w->tsn.process_id));
		cr_assert(eq(u32, got->u.tsn.thread_id, w->tsn.thread_id));
		assert_wstr_eq(got->u.tsn.name, w->tsn.name, "ThreadName");
		break;
	case ETW_PAYLOAD_READY_THREAD:
		cr_assert(eq(u32, got->u.rt.thread_id, w->rt.thread_id));
		cr_assert(eq(i8, got->u.rt.adjust_reason, w->rt.adjust_reason));
		cr_assert(eq(i8, got->u.rt.adjust_increment, w->rt.adjust_increment));
		cr_assert(eq(u8, got->u.rt.flags, w->rt.flags));
		cr_assert(eq(u8, got->u.rt.reserved, w->rt.reserved));
		break;
	case ETW_PAYLOAD_SAMPLED_PROFILE:
		cr_assert(eq(u64, got->u.sp.instruction_pointer, w->sp.instruction_pointer));
		cr_assert(eq(u32, got->u.sp.thread_id, w->sp.thread_id));
		cr_assert(eq(u16, got->u.sp.count, w->sp.count));
		cr_assert(eq(u8, got->u.sp.flags, w->sp.flags));
		cr_assert(eq(u8, got->u.sp.rank, w->sp.rank));
		break;
	case ETW_PAYLOAD_PROFILE_INTERVAL:
		cr_assert(eq(u32, got->u.pi.source, w->pi.source));
		cr_assert(eq(u32, got->u.pi.new_interval, w->pi.new_interval));
		cr_assert(eq(u32, got->u.pi.old_interval, w->pi.old_interval));
		assert_wstr_eq(got->u.pi.source_name, w->pi.source_name, "SourceName");
		break;
	case ETW_PAYLOAD_CPU_CONFIG:
		cr_assert(eq(u32, got->u.cpu.mhz, w->cpu.mhz));
		cr_assert(eq(u32, got->u.cpu.number_of_processors, w->cpu.number_of_processors));
		cr_assert(eq(u32, got->u.cpu.memory_mb, w->cpu.memory_mb));
		cr_assert(eq(u32, got->u.cpu.page_size, w->cpu.page_size));
		cr_assert(
			eq(u32, got->u.cpu.allocation_granularity, w->cpu.allocation_granularity));
		assert_wstr_eq(got->u.cpu.computer_name, w->cpu.computer_name, "ComputerName");
		assert_wstr_eq(got->u.cpu.domain_name, w->cpu.domain_name, "DomainName");
		cr_assert(eq(u64, got->u.cpu.hyperthreading_flag, w->cpu.hyperthreading_flag));
		cr_assert(eq(u64, got->u.cpu.highest_user_address, w->cpu.highest_user_address));
		cr_assert(
			eq(u16, got->u.cpu.processor_architecture, w->cpu.processor_architecture));
		cr_assert(eq(u16, got->u.cpu.processor_level, w->cpu.processor_level));
		cr_assert(eq(u16, got->u.cpu.processor_revision, w->cpu.processor_revision));
		cr_assert(eq(u8, got->u.cpu.pae_enabled, w->cpu.pae_enabled));
		cr_assert(eq(u8, got->u.cpu.nx_enabled, w->cpu.nx_enabled));
		cr_assert(eq(u32, got->u.cpu.memory_speed, w->cpu.memory_speed));
		break;
	case ETW_PAYLOAD_GROUP_MASKS:
		for (unsigned i = 0; i < ETW_GROUP_MASKS; i++) {
			cr_assert(eq(u32, got->u.gm.masks[i], w->gm.masks[i]), "Masks[%u]", i);
		}
		cr_assert(eq(u32, got->u.gm.version, w->gm.version));
		break;
	default:
		break;
	}
}

/* The header the spec prints: form, hook, Size and context, decoded. */
static void assert_header(const struct example *e, size_t *hlen)
{
	struct etw_event_header h;
	int n = etw_decode_event_header(e->bytes, e->size, &h);

	cr_assert(eq(int, n, e->header == SYS ? 0x20 : 0x10), "%s", e->what);
	cr_assert(eq(int, h.arch, e->arch));
	cr_assert(eq(int, h.form.header, e->header));
	cr_assert(eq(u8, h.form.version, e->version));
	cr_assert(eq(u16, h.hook, e->hook));
	cr_assert(eq(u16, h.size, e->size));
	cr_assert(eq(u64, h.ctx.ts, e->ctx.ts));
	cr_assert(eq(u32, h.ctx.thread_id, e->ctx.thread_id));
	cr_assert(eq(u32, h.ctx.process_id, e->ctx.process_id));
	cr_assert(eq(u32, h.ctx.kernel_time, e->ctx.kernel_time));
	cr_assert(eq(u32, h.ctx.user_time, e->ctx.user_time));
	*hlen = (size_t)n;
}

/* ======================================================================== */
/* Golden records: form, bytes, fields, truncation                           */
/* ======================================================================== */

Test(golden, every_example_has_the_form_its_target_writes)
{
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		const struct etw_target *t = etw_target_find(e->target);
		struct etw_event_form f;

		cr_assert(not(eq(ptr, (void *)t, NULL)), "%s", e->target);
		cr_assert(eq(int, etw_event_form_for(t, e->hook, &f), 0), "%s", e->what);
		cr_assert(eq(int, f.header, e->header), "%s", e->what);
		cr_assert(eq(u8, f.version, e->version), "%s", e->what);
	}
}

Test(golden, every_example_encodes_byte_for_byte_header_included)
{
	static uint8_t buf[0x1000];

	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		const struct etw_event_form form = {e->header, e->version};
		size_t hlen = e->header == SYS ? 0x20 : 0x10;
		union fields f;
		int n, h;

		memset(&f, 0, sizeof(f));
		e->fields(&f);
		memset(buf, POISON, sizeof(buf));
		n = encode(e, e->version, &f, buf + hlen, sizeof(buf) - hlen);
		cr_assert(eq(int, n, (int)(e->size - hlen)), "%s: payload length", e->what);
		h = etw_encode_event_header(buf, sizeof(buf), e->arch, e->hook, form, (size_t)n,
					    &e->ctx);
		cr_assert(eq(int, h, (int)hlen), "%s: header length", e->what);
		ASSERT_BYTES(buf, e->bytes, e->size);
	}
}

Test(golden, every_example_decodes_to_the_fields_the_spec_reads)
{
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		struct etw_payload pl;
		union fields want;
		size_t hlen;
		uint8_t *copy = dup_exact(e->bytes, e->size);

		memset(&want, 0, sizeof(want));
		e->fields(&want);
		assert_header(e, &hlen);
		etw_decode_payload(e->hook, e->version, e->arch, copy + hlen, e->size - hlen, &pl);
		cr_assert(eq(int, pl.kind, e->kind), "%s", e->what);
		cr_assert(not(eq(ptr, (void *)pl.name, NULL)));
		assert_fields(e, &pl, &want);
		free(copy);
	}
}

/* A v3 thread record cut right after its fixed part is a valid nameless one (the 9200 form). */
static bool nameless_thread_cut(const struct example *e, size_t n)
{
	return e->kind == ETW_PAYLOAD_THREAD && e->version == 3 &&
	       n == (e->arch == X64 ? 0x48u : 0x2Cu);
}

Test(truncated, every_shorter_payload_is_refused_without_reading_past_it, .timeout = 20.)
{
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		size_t hlen = e->header == SYS ? 0x20 : 0x10;
		size_t plen = e->size - hlen;

		for (size_t n = 0; n < plen; n++) {
			uint8_t *copy = dup_exact(e->bytes + hlen, n);
			struct etw_payload pl;

			etw_decode_payload(e->hook, e->version, e->arch, copy, n, &pl);
			if (nameless_thread_cut(e, n)) {
				cr_assert(eq(int, pl.kind, ETW_PAYLOAD_THREAD));
				cr_assert(eq(int, pl.u.th.has_name, 0));
			} else {
				cr_assert(eq(int, pl.kind, ETW_PAYLOAD_SHORT), "%s cut at %zu",
					  e->what, n);
			}
			free(copy);
		}
		/* and the header: a record shorter than its Size is refused */
		for (size_t n = 0; n < e->size; n++) {
			uint8_t *copy = dup_exact(e->bytes, n);
			struct etw_event_header h;

			cr_assert(eq(int, etw_decode_event_header(copy, n, &h), -EINVAL));
			free(copy);
		}
	}
}

Test(truncated, every_cap_below_the_length_is_enospc_and_writes_nothing, .timeout = 20.)
{
	static uint8_t buf[0x1000];

	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		const struct etw_event_form form = {e->header, e->version};
		size_t hlen = e->header == SYS ? 0x20 : 0x10;
		size_t plen = e->size - hlen;
		union fields f;

		memset(&f, 0, sizeof(f));
		e->fields(&f);
		for (size_t cap = 0; cap < plen; cap++) {
			memset(buf, POISON, plen);
			cr_assert(eq(int, encode(e, e->version, &f, buf, cap), -ENOSPC),
				  "%s cap %zu", e->what, cap);
			for (size_t k = 0; k < plen; k++) {
				cr_assert(eq(u8, buf[k], POISON), "%s: byte %zu written", e->what,
					  k);
			}
		}
		for (size_t cap = 0; cap < e->size; cap++) {
			cr_assert(eq(int,
				     etw_encode_event_header(buf, cap, e->arch, e->hook, form, plen,
							     &e->ctx),
				     -ENOSPC));
		}
	}
}

/* ======================================================================== */
/* Header forms and targets                                                  */
/* ======================================================================== */

Test(forms, defunct_and_thread_name_follow_the_build)
{
	static const struct {
		const char *target;
		uint8_t defunct;
		bool name;
	} rows[] = {
		{"win10-1507", 4, false}, {"win10-1607", 4, false}, {"win10-1709", 4, false},
		{"win10-1903", 5, true},  {"win11-22h2", 5, true},
	};

	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		const struct etw_target *t = etw_target_find(rows[i].target);
		struct etw_event_form f;

		cr_assert(eq(int, etw_event_form_for(t, 0x0327, &f), 0));
		cr_assert(eq(u8, f.version, rows[i].defunct), "%s", rows[i].target);
		cr_assert(eq(int, f.header, ETW_HEADER_PERFINFO));
		cr_assert(eq(int, t->thread_name, rows[i].name), "%s", rows[i].target);
		cr_assert(eq(int, etw_event_form_for(t, 0x0504, &f), 0));
		cr_assert(eq(int, f.header, ETW_HEADER_SYSTEM));
		cr_assert(eq(u8, f.version, 3));
	}
}

Test(forms, the_rest_of_the_table)
{
	static const struct {
		uint16_t hook;
		enum etw_header_form header;
		uint8_t version;
	} rows[] = {
		{0x0304, PERF, 4}, {0x0548, PERF, 2}, {0x0F48, SYS, 3},
		{0x0F4A, SYS, 3},  {0x0B0A, SYS, 3},  {0x0008, PERF, 2},
	};
	const struct etw_target *t = etw_target_find("win10-1903");
	struct etw_event_form f;

	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		cr_assert(eq(int, etw_event_form_for(t, rows[i].hook, &f), 0));
		cr_assert(eq(int, f.header, rows[i].header), "hook %#x", rows[i].hook);
		cr_assert(eq(u8, f.version, rows[i].version), "hook %#x", rows[i].hook);
	}
	cr_assert(eq(int, etw_event_form_for(t, 0x0524, &f), -ENOENT));
}

/*
 * The compact SYSTEM header (no sample has one): COMPACT64 v2 = 0xC0040002,
 * Size 0x20 = 0x18 + 8, HookId 0x0532, TID 0x230, PID 0x1AC, TS 0x1122334455.
 */
Test(forms, compact_header_is_the_system_header_cut_at_0x18)
{
	static const uint8_t want[] = {
		0x02, 0x00, 0x04, 0xc0, 0x20, 0x00, 0x32, 0x05, 0x30, 0x02, 0x00, 0x00,
		0xac, 0x01, 0x00, 0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00,
	};
	const struct etw_event_ctx ctx = {0x1122334455u, 560, 428, 7, 9};
	const struct etw_event_form form = {ETW_HEADER_COMPACT, 2};
	struct etw_event_header h;
	uint8_t buf[0x20];

	memset(buf, POISON, sizeof(buf));
	cr_assert(eq(int, etw_encode_event_header(buf, sizeof(buf), X64, 0x0532, form, 8, &ctx),
		     0x18));
	ASSERT_BYTES(buf, want, sizeof(want));
	cr_assert(eq(u8, buf[0x18], POISON), "the payload's room is left alone");
	memset(buf + 0x18, 0, 8);
	cr_assert(eq(int, etw_decode_event_header(buf, sizeof(buf), &h), 0x18));
	cr_assert(eq(int, h.form.header, ETW_HEADER_COMPACT));
	cr_assert(eq(u32, h.ctx.thread_id, 560));
	cr_assert(eq(u32, h.ctx.kernel_time, 0));
	buf[2] = 0x03; /* COMPACT32 */
	cr_assert(eq(int, etw_decode_event_header(buf, sizeof(buf), &h), 0x18));
	cr_assert(eq(int, h.arch, X86));
}

Test(forms, size_above_0xffff_is_e2big_and_bad_forms_einval)
{
	const struct etw_event_ctx ctx = {0};
	uint8_t buf[0x20];

	cr_assert(eq(int,
		     etw_encode_event_header(buf, sizeof(buf), X64, 0x0503,
					     (struct etw_event_form){SYS, 3}, 0xFFFF - 0x1F, &ctx),
		     -E2BIG));
	cr_assert(eq(int,
		     etw_encode_event_header(buf, sizeof(buf), X64, 0x0503,
					     (struct etw_event_form){(enum etw_header_form)0, 3}, 0,
					     &ctx),
		     -EINVAL));
	cr_assert(eq(int,
		     etw_encode_event_header(buf, sizeof(buf), (enum etl_arch)7, 0x0503,
					     (struct etw_event_form){SYS, 3}, 0, &ctx),
		     -EINVAL));
}

Test(forms, decode_refuses_extended_items_and_size_beyond_the_input)
{
	uint8_t rec[0x20];
	struct etw_event_header h;

	memcpy(rec, sp_idle, sizeof(rec));
	rec[1] = 0x80; /* PEBS item: not a form these records use */
	cr_assert(eq(int, etw_decode_event_header(rec, sizeof(rec), &h), -EINVAL));
	memcpy(rec, sp_idle, sizeof(rec));
	rec[4] = 0x21; /* Size one past the input */
	cr_assert(eq(int, etw_decode_event_header(rec, sizeof(rec), &h), -EINVAL));
	rec[4] = 0x0F; /* Size below the header */
	cr_assert(eq(int, etw_decode_event_header(rec, sizeof(rec), &h), -EINVAL));
}

/* ======================================================================== */
/* Process: the NULL SID, the SID's limits, pointers on x86                  */
/* ======================================================================== */

/*
 * No SID (RF 2.3: "Either it is null, which takes 4 bytes"), x64: the fixed
 * part 0x24 bytes, a u32 0 @0x24, "a" @0x28, three empty UTF-16 strings.
 */
Test(process, null_sid_is_four_zero_bytes)
{
	static const uint8_t want[] = {
		0x00, 0x10, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, /* key 0xFFFF800000001000 */
		0x08, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* PID 8, PPID 4 */
		0x02, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, /* Session 2, 0x103 */
		0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* DTB 0x2000 */
		0x02, 0x00, 0x00, 0x00,				/* Flags WOW64 */
		0x00, 0x00, 0x00, 0x00,				/* no SID */
		0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* "a", L"", L"", L"" */
	};
	const struct etw_process p = {
		.unique_process_key = 0xFFFF800000001000u,
		.process_id = 8,
		.parent_id = 4,
		.session_id = 2,
		.exit_status = 0x103,
		.directory_table_base = 0x2000,
		.flags = 2,
		.image_file_name = "a",
	};
	uint8_t buf[sizeof(want)];
	struct etw_process d;

	cr_assert(eq(sz, etw_process_len(X64, 4, &p), sizeof(want)));
	cr_assert(eq(int, etw_encode_process(buf, sizeof(buf), X64, 4, &p, 0), (int)sizeof(want)));
	ASSERT_BYTES(buf, want, sizeof(want));
	cr_assert(eq(int, etw_decode_process(want, sizeof(want), X64, 4, &d), (int)sizeof(want)));
	cr_assert(eq(int, d.sid.present, 0));
	cr_assert(eq(str, (char *)d.image_file_name, "a"));
	cr_assert(eq(u32, d.flags, 2));
}

Test(process, a_sid_pointer_with_zero_low_dword_is_einval)
{
	union fields f;
	uint8_t buf[256];

	f_pr_idle(&f);
	f.pr.sid.token_sid = 0xFFFFB48800000000u;
	cr_assert(eq(int, etw_encode_process(buf, sizeof(buf), X64, 4, &f.pr, 0), -EINVAL));
}

Test(process, sixteen_sub_authorities_are_refused_both_ways)
{
	union fields f;
	uint8_t rec[sizeof(pr_idle_dcstart)];
	struct etw_process d;

	f_pr_idle(&f);
	f.pr.sid.sub_count = 16;
	cr_assert(eq(sz, etw_process_len(X64, 4, &f.pr), 0));
	cr_assert(eq(int, etw_encode_process(rec, sizeof(rec), X64, 4, &f.pr, 0), -EINVAL));
	memcpy(rec, pr_idle_dcstart, sizeof(rec));
	rec[0x45] = 16; /* SubAuthorityCount of the SID at 0x44 */
	cr_assert(eq(int, etw_decode_process(rec + 0x10, sizeof(rec) - 0x10, X64, 4, &d), -EINVAL));
}

Test(process, other_versions_are_einval)
{
	union fields f;
	uint8_t buf[256];
	struct etw_process d;

	f_pr_idle(&f);
	cr_assert(eq(int, etw_encode_process(buf, sizeof(buf), X64, 3, &f.pr, 0), -EINVAL));
	cr_assert(eq(int, etw_decode_process(pr_idle_dcstart + 0x10, 0x4B, X64, 3, &d), -EINVAL));
}

Test(process, x86_pointers_above_32_bits_overflow_unless_wrapped)
{
	union fields f;
	uint8_t buf[256];

	f_pr_idle_x86(&f);
	f.pr.unique_process_key = 0x1000000000u | 0x82A399C0u;
	cr_assert(eq(int, etw_encode_process(buf, sizeof(buf), X86, 4, &f.pr, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_process(buf, sizeof(buf), X86, 4, &f.pr, ETW_ENC_WRAP), 0x3B));
	ASSERT_BYTES(buf, pr_idle_x86 + 0x10, 0x3B);
}

Test(process, a_nul_inside_a_utf16_string_is_einval)
{
	static const uint8_t cmd[] = {'a', 0, 0, 0, 'b', 0};
	union fields f;
	uint8_t buf[256];

	f_pr_idle(&f);
	f.pr.command_line = (struct etw_wstr){cmd, 3};
	cr_assert(eq(int, etw_encode_process(buf, sizeof(buf), X64, 4, &f.pr, 0), -EINVAL));
}

Test(process, terminate_is_the_pid_alone)
{
	uint8_t buf[4];
	uint32_t pid;

	cr_assert(eq(int, etw_encode_process_terminate(buf, 3, 1), -ENOSPC));
	cr_assert(eq(int, etw_decode_process_terminate(pr_terminate + 0x20, 3, &pid), -EINVAL));
	cr_assert(eq(int, etw_decode_process_terminate(pr_terminate + 0x20, 4, &pid), 4));
	cr_assert(eq(u32, pid, 2100));
}

/* ======================================================================== */
/* Thread: v4 names, malformed tails                                         */
/* ======================================================================== */

/* Thread v4 (name mandatory): the RF 3.6 payload under marker version 4. */
Test(thread, v4_always_carries_the_name)
{
	union fields f;
	uint8_t buf[256];
	struct etw_thread d;

	f_th_win8(&f); /* has_name false: v4 writes the name all the same */
	cr_assert(eq(sz, etw_thread_len(X64, 4, &f.th), 0x4A));
	cr_assert(eq(int, etw_encode_thread(buf, sizeof(buf), X64, 4, &f.th, 0), 0x4A));
	ASSERT_BYTES(buf, th_win8_dcstart + 0x20, 0x48);
	cr_assert(eq(u16, (uint16_t)(buf[0x48] | buf[0x49] << 8), 0));
	/* a v4 payload without its name is refused; v3 takes it */
	cr_assert(eq(int, etw_decode_thread(th_win8_dcstart + 0x20, 0x48, X64, 4, &d), -EINVAL));
	cr_assert(eq(int, etw_decode_thread(th_win8_dcstart + 0x20, 0x48, X64, 3, &d), 0x48));
	cr_assert(eq(int, d.has_name, 0));
	cr_assert(eq(int, etw_decode_thread(th_named_dcstart + 0x20, 0x78, X64, 4, &d), 0x78));
	assert_wstr_eq(d.name, W("Win32k Raw Input Thread"), "ThreadName");
}

Test(thread, a_tail_without_nul_is_einval)
{
	uint8_t rec[0x4B];
	struct etw_thread d;

	memcpy(rec, th_idle_dcstart + 0x20, 0x48);
	rec[0x48] = 'A', rec[0x49] = 0, rec[0x4A] = 0; /* L"A" cut before its NUL's 2nd byte */
	cr_assert(eq(int, etw_decode_thread(rec, 0x4A, X64, 3, &d), -EINVAL));
	cr_assert(eq(int, etw_decode_thread(rec, 0x49, X64, 3, &d), -EINVAL));
	rec[0x4A] = 0; /* with the 3rd byte: L"A" is still not terminated at an even offset */
	cr_assert(eq(int, etw_decode_thread(rec, 0x4B, X64, 3, &d), -EINVAL));
}

Test(thread, x86_pointers_above_32_bits_overflow_unless_wrapped)
{
	union fields f;
	uint8_t buf[256];

	f_th_idle_x86(&f);
	f.th.affinity = 0x100000001u;
	cr_assert(eq(int, etw_encode_thread(buf, sizeof(buf), X86, 3, &f.th, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_thread(buf, sizeof(buf), X86, 3, &f.th, ETW_ENC_WRAP), 0x2E));
	ASSERT_BYTES(buf, th_idle_x86 + 0x20, 0x2E);
}

Test(thread, ready_thread_is_8_bytes_and_set_name_needs_its_nul)
{
	struct etw_thread_set_name s;
	struct etw_ready_thread r;

	cr_assert(eq(int, etw_decode_ready_thread(ready_x64 + 0x20, 7, &r), -EINVAL));
	cr_assert(eq(int, etw_decode_thread_set_name(set_name_x64 + 0x10, 0x15, &s), -EINVAL));
	cr_assert(eq(int, etw_decode_thread_set_name(set_name_x64 + 0x10, 0x16, &s), 0x16));
}

/* ======================================================================== */
/* SampledProfile flags, interval v2, CPU names                              */
/* ======================================================================== */

Test(profile, flags_byte_is_dpc_isr_and_priority_in_bits_3_to_7)
{
	uint8_t b;

	cr_assert(eq(int, etw_sampled_profile_flags(false, false, 16, &b), 0));
	cr_assert(eq(u8, b, 0x80)); /* the idle samples of RF 5.1 */
	cr_assert(eq(int, etw_sampled_profile_flags(true, false, 16, &b), 0));
	cr_assert(eq(u8, b, 0x81));
	cr_assert(eq(int, etw_sampled_profile_flags(false, true, 8, &b), 0));
	cr_assert(eq(u8, b, 0x42));
	cr_assert(eq(int, etw_sampled_profile_flags(true, true, 31, &b), 0));
	cr_assert(eq(u8, b, 0xFB));
	cr_assert(eq(int, etw_sampled_profile_flags(false, false, 32, &b), -EOVERFLOW));
}

Test(profile, x86_ip_above_32_bits_overflows)
{
	union fields f;
	uint8_t buf[16];

	f_sp_x86(&f);
	f.sp.instruction_pointer = 0xFFFFF80081434313u; /* low dword 0x81434313 */
	cr_assert(eq(int, etw_encode_sampled_profile(buf, sizeof(buf), X86, &f.sp, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_sampled_profile(buf, sizeof(buf), X86, &f.sp, ETW_ENC_WRAP),
		     0x0C));
	ASSERT_BYTES(buf, sp_x86 + 0x10, 0x0C);
}

/* Interval v2 (no SourceName): Source 0, New 10000 (0x2710), Old 0. */
Test(profile, interval_v2_has_no_name)
{
	static const uint8_t want[] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x27,
				       0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	const struct etw_profile_interval p = {.new_interval = 10000, .source_name = W("Timer")};
	struct etw_profile_interval d;
	uint8_t buf[32];

	cr_assert(eq(int, etw_encode_profile_interval(buf, sizeof(buf), 2, &p), 12));
	ASSERT_BYTES(buf, want, sizeof(want));
	cr_assert(eq(int, etw_decode_profile_interval(want, sizeof(want), 2, &d), 12));
	cr_assert(eq(sz, d.source_name.units, 0));
	cr_assert(eq(int, etw_encode_profile_interval(buf, sizeof(buf), 4, &p), -EINVAL));
}

Test(sysconfig, names_must_leave_room_for_their_nul)
{
	static uint8_t name[2 * 256];
	union fields f;
	static uint8_t buf[0x340];
	struct etw_cpu_config d;

	for (size_t i = 0; i < 256; i++) {
		name[2 * i] = 'x';
	}
	f_cpu(&f);
	f.cpu.computer_name = (struct etw_wstr){name, 256};
	cr_assert(eq(int, etw_encode_cpu_config(buf, sizeof(buf), X64, &f.cpu, 0), -EOVERFLOW));
	cr_assert(
		eq(int, etw_encode_cpu_config(buf, sizeof(buf), X64, &f.cpu, ETW_ENC_WRAP), 0x33C));
	cr_assert(eq(int, etw_decode_cpu_config(buf, 0x33C, X64, &d), 0x33C));
	cr_assert(eq(sz, d.computer_name.units, 255), "cut to 255 units and a NUL");
	f.cpu.computer_name.units = 255;
	cr_assert(eq(int, etw_encode_cpu_config(buf, sizeof(buf), X64, &f.cpu, 0), 0x33C));
	/* a full array without NUL (a foreign file) reads as all 256 units */
	memcpy(buf + 0x14, name, sizeof(name));
	cr_assert(eq(int, etw_decode_cpu_config(buf, 0x33C, X64, &d), 0x33C));
	cr_assert(eq(sz, d.computer_name.units, 256));
}

/* ======================================================================== */
/* Strings                                                                   */
/* ======================================================================== */

Test(text, utf8_becomes_utf16le_with_surrogate_pairs)
{
	/* U+00E9, U+20AC, U+1F600 = D83D DE00 */
	static const uint8_t want[] = {0x41, 0x00, 0xe9, 0x00, 0xac, 0x20, 0x3d, 0xd8, 0x00, 0xde};
	uint8_t buf[16];
	struct etw_wstr w;
	char back[16];

	cr_assert(eq(
		int,
		etw_wstr_from_utf8("A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", buf, sizeof(buf), &w),
		0));
	cr_assert(eq(sz, w.units, 5));
	ASSERT_BYTES(buf, want, sizeof(want));
	cr_assert(eq(int, etw_wstr_to_utf8(w, back, sizeof(back)), 10));
	cr_assert(eq(str, back, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
	cr_assert(eq(int, etw_wstr_to_utf8(w, back, 10), -ENOSPC));
	cr_assert(eq(str, back, ""));
	cr_assert(eq(int, etw_wstr_from_utf8("A\xc3\xa9", buf, 3, &w), -ENOSPC));
}

Test(text, malformed_utf8_is_einval)
{
	static const char *bad[] = {
		"\xc0\x80",	    /* overlong NUL */
		"\x80",		    /* lone continuation */
		"\xe2\x82",	    /* cut */
		"\xed\xa0\x80",	    /* a surrogate */
		"\xf4\x90\x80\x80", /* above U+10FFFF */
		"\xff",
	};
	uint8_t buf[16];
	struct etw_wstr w = {NULL, 99};

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		cr_assert(eq(int, etw_wstr_from_utf8(bad[i], buf, sizeof(buf), &w), -EINVAL), "%zu",
			  i);
		cr_assert(eq(sz, w.units, 99), "nothing set on failure");
	}
}

Test(text, an_unpaired_surrogate_reads_as_u_fffd)
{
	static const uint8_t lone[] = {0x3d, 0xd8, 0x41, 0x00}; /* D83D then 'A' */
	char out[16];

	cr_assert(eq(int, etw_wstr_to_utf8((struct etw_wstr){lone, 2}, out, sizeof(out)), 4));
	cr_assert(eq(str, out,
		     "\xef\xbf\xbd"
		     "A"));
}

Test(text, scans_stop_at_the_given_length)
{
	static const uint8_t s[] = {0x41, 0x00, 0x00, 0x00};
	uint8_t *odd = dup_exact(s, 3);

	cr_assert(eq(i64, etw_wstrz_scan(s, 4), 1));
	cr_assert(eq(i64, etw_wstrz_scan(odd, 3), -EINVAL)); /* the NUL unit is cut */
	cr_assert(eq(i64, etw_astrz_scan(s, 1), -EINVAL));
	cr_assert(eq(i64, etw_astrz_scan(s, 2), 1));
	cr_assert(eq(i64, etw_astrz_scan(NULL, 0), -EINVAL));
	free(odd);
}

/* ======================================================================== */
/* The record tables (producer/records/) expand against the decoders         */
/* ======================================================================== */

/*
 * The truth's structs (producer/trace_sink.h, from the SIM tables). The
 * group masks are no truth field: each session's own (its flags) or zeros.
 */
#define t_process  sim_process
#define t_thread   sim_thread
#define t_set_name sim_thread_name
#define t_ready	   sim_ready
#define t_profile  sim_sample
#define t_interval sim_interval
#define t_cpu	   sim_cpu_config
struct t_masks {
	uint32_t *masks;
	uint32_t version;
};

/*
 * TAKE - one ETW row: its value from the decoded struct, through its C type,
 * its fixed offsets in wire order, and a SIM row of the same name (the truth
 * field verify will compare it with; masks, sid and the flags byte's parts
 * aside).
 */
#define TAKE(x, name, ctype, json, jwhen, from, at64, at32, what)                                  \
	{                                                                                          \
		ctype v_ = (from);                                                                 \
		(void)v_;                                                                          \
		(void)sizeof(((x *)0)->name);                                                      \
		rows++;                                                                            \
		if ((at64) != ETW_AT_VAR) {                                                        \
			unordered += (at64) < last64 || (at32) < last32;                           \
			last64 = (at64), last32 = (at32);                                          \
		}                                                                                  \
	}

static unsigned table_rows(enum etw_payload_kind kind, const struct etw_payload *pl, int ver)
{
	unsigned rows = 0, unordered = 0;
	int last64 = 0, last32 = 0;

	(void)ver;
	switch (kind) {
	case ETW_PAYLOAD_PROCESS: {
		const struct etw_process *w = &pl->u.pr;

		ETW_PROCESS_FIELDS(TAKE, struct t_process)
		break;
	}
	case ETW_PAYLOAD_THREAD: {
		const struct etw_thread *w = &pl->u.th;

		ETW_THREAD_FIELDS(TAKE, struct t_thread)
		break;
	}
	case ETW_PAYLOAD_THREAD_SET_NAME: {
		const struct etw_thread_set_name *w = &pl->u.tsn;

		ETW_THREAD_SET_NAME_FIELDS(TAKE, struct t_set_name)
		break;
	}
	case ETW_PAYLOAD_READY_THREAD: {
		const struct etw_ready_thread *w = &pl->u.rt;

		ETW_READY_FIELDS(TAKE, struct t_ready)
		break;
	}
	case ETW_PAYLOAD_SAMPLED_PROFILE: {
		const struct etw_sampled_profile *w = &pl->u.sp;

		ETW_PROFILE_FIELDS(TAKE, struct t_profile)
		break;
	}
	case ETW_PAYLOAD_PROFILE_INTERVAL: {
		const struct etw_profile_interval *w = &pl->u.pi;

		ETW_PROFILE_INTERVAL_FIELDS(TAKE, struct t_interval)
		break;
	}
	case ETW_PAYLOAD_CPU_CONFIG: {
		const struct etw_cpu_config *w = &pl->u.cpu;

		ETW_CPU_CONFIG_FIELDS(TAKE, struct t_cpu)
		break;
	}
	case ETW_PAYLOAD_GROUP_MASKS: {
		const struct etw_group_masks *w = &pl->u.gm;

		ETW_GROUP_MASKS_FIELDS(TAKE, struct t_masks)
		break;
	}
	default:
		break;
	}
	cr_assert(eq(u32, unordered, 0), "fixed offsets in wire order");
	return rows;
}

Test(tables, every_payload_table_expands_over_its_decoded_record)
{
	static const struct {
		enum etw_payload_kind kind;
		unsigned rows;
	} want[] = {
		{ETW_PAYLOAD_PROCESS, 13},	  {ETW_PAYLOAD_THREAD, 15},
		{ETW_PAYLOAD_THREAD_SET_NAME, 3}, {ETW_PAYLOAD_READY_THREAD, 4},
		{ETW_PAYLOAD_SAMPLED_PROFILE, 7}, {ETW_PAYLOAD_PROFILE_INTERVAL, 4},
		{ETW_PAYLOAD_CPU_CONFIG, 15},	  {ETW_PAYLOAD_GROUP_MASKS, 2},
	};

	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		size_t hlen = e->header == SYS ? 0x20 : 0x10;
		struct etw_payload pl;

		etw_decode_payload(e->hook, e->version, e->arch, e->bytes + hlen, e->size - hlen,
				   &pl);
		for (size_t k = 0; k < ARRAY_LEN(want); k++) {
			if (want[k].kind == e->kind) {
				cr_assert(
					eq(u32, table_rows(e->kind, &pl, e->version), want[k].rows),
					"%s", e->what);
			}
		}
	}
}
