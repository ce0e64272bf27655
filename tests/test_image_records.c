// SPDX-License-Identifier: MIT
/*
 * tests/test_image_records.c - the image, stack-walk and KernelTraceControl
 * records (producer/etw_image.h, etw_stack.h, etw_ktc.h, the
 * EVENT_TRACE_HEADER of writer/etl_trace_header.h) against golden bytes
 * typed from the hex dumps of real Windows records (STACK_IMAGE_FACTS 2.6,
 * 3.8, 6.5: files P = 9200 x64, A = 18362 x64), header included, and
 * against x86 records typed by hand from the spec's offset tables (no x86
 * sample has these events). Where the spec prints only the head of a record
 * and its string as text (A b8+0x4340, the FileVersion of P b2+0x0210), the
 * test widens that text itself. Never computed from the encoders'
 * constants.
 *
 * For each example: the target's header form, the record encoded from the
 * fields the spec decodes, decoded back through the dispatchers
 * (etw_decode_payload, etw_decode_classic_payload), every malformed length
 * refused from heap copies of exactly that length (ASan sees any
 * over-read), and every short buffer -ENOSPC with nothing written. Last, the
 * two real files: every image, stack and KTC record decodes, in the counts
 * STACK_IMAGE_FACTS gives.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_encode.h"
#include "producer/etw_event.h"
#include "producer/etw_text.h"
#include "producer/records/image.h"
#include "producer/records/ktc.h"
#include "producer/records/process.h"
#include "producer/records/stack.h"
#include "writer/etl_reader.h"
#include "writer/etl_trace_header.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define POISON	     0xAA

#define ASSERT_BYTES(got, want, n)                                                                 \
	do {                                                                                       \
		struct cr_mem got_m_ = {.data = (got), .size = (n)};                               \
		struct cr_mem want_m_ = {.data = (want), .size = (n)};                             \
		cr_assert(eq(mem, got_m_, want_m_));                                               \
	} while (0)

/* A heap copy of exactly @n bytes (a 1-byte block for 0, never read). */
static uint8_t *dup_exact(const uint8_t *src, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	cr_assert(not(eq(ptr, p, NULL)));
	if (n) {
		memcpy(p, src, n);
	}
	return p;
}

/*
 * widen - the Latin-1 text @s as UTF-16LE with its NUL at @out (the spec
 * prints the strings of some records as text); returns the bytes written.
 */
static size_t widen(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		out[n++] = *p;
		out[n++] = 0;
	}
	out[n++] = 0;
	out[n++] = 0;
	return n;
}

/* A UTF-16 view of the Latin-1 @s, in a pool that lives for the test. */
static struct etw_wstr W(const char *s) {
	static uint8_t pool[16384];
	static size_t used;
	size_t need = 2 * strlen(s) + 2;
	struct etw_wstr w;

	if (used + need > sizeof(pool)) {
		used = 0;
	}
	widen(s, pool + used);
	w.le = strlen(s) ? pool + used : NULL;
	w.units = strlen(s);
	used += need;
	return w;
}

static void
assert_wstr_eq(struct etw_wstr got, struct etw_wstr want, const char *what)
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
/* SIF 2.6, P b38+0x81E8: Image Load 0x030A v2, SYSTEM64, Size 150 (ntdll.dll into Test.x64.exe). */
static const uint8_t im_load_p[] = {
	0x02, 0x00, 0x02, 0xc0, 0x96, 0x00, 0x0a, 0x03, 0x60, 0x0e, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00,  /* 0000 */
	0xe7, 0xc9, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x2f, 0xd0, 0xf9, 0x07, 0x00, 0x00, 0x00, 0xe0, 0x1b, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x5c, 0x0e, 0x00, 0x00, 0x26, 0x7b, 0x1c, 0x00, 0xd2, 0xac, 0x10, 0x50, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x2f, 0xd0, 0xf9, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x00, 0x53, 0x00, 0x79, 0x00, 0x73, 0x00,  /* 0050 */
	0x74, 0x00, 0x65, 0x00, 0x6d, 0x00, 0x52, 0x00, 0x6f, 0x00, 0x6f, 0x00, 0x74, 0x00, 0x5c, 0x00,  /* 0060 */
	0x53, 0x00, 0x79, 0x00, 0x73, 0x00, 0x74, 0x00, 0x65, 0x00, 0x6d, 0x00, 0x33, 0x00, 0x32, 0x00,  /* 0070 */
	0x5c, 0x00, 0x6e, 0x00, 0x74, 0x00, 0x64, 0x00, 0x6c, 0x00, 0x6c, 0x00, 0x2e, 0x00, 0x64, 0x00,  /* 0080 */
	0x6c, 0x00, 0x6c, 0x00, 0x00, 0x00,  /* 0090 */
};

/* SIF 2.6, P b29+0x4F28: Image Unload 0x1402 v2, SYSTEM64, Size 148 (combase.dll). */
static const uint8_t im_unload_p[] = {
	0x02, 0x00, 0x02, 0xc0, 0x94, 0x00, 0x02, 0x14, 0x60, 0x0e, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00,  /* 0000 */
	0x5e, 0x88, 0x7d, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0xac, 0xcf, 0xf9, 0x07, 0x00, 0x00, 0x00, 0x00, 0x1b, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x5c, 0x0e, 0x00, 0x00, 0x93, 0x8c, 0x1b, 0x00, 0xc7, 0x88, 0x10, 0x50, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0xac, 0xcf, 0xf9, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x00, 0x57, 0x00, 0x69, 0x00, 0x6e, 0x00,  /* 0050 */
	0x64, 0x00, 0x6f, 0x00, 0x77, 0x00, 0x73, 0x00, 0x5c, 0x00, 0x53, 0x00, 0x79, 0x00, 0x73, 0x00,  /* 0060 */
	0x74, 0x00, 0x65, 0x00, 0x6d, 0x00, 0x33, 0x00, 0x32, 0x00, 0x5c, 0x00, 0x63, 0x00, 0x6f, 0x00,  /* 0070 */
	0x6d, 0x00, 0x62, 0x00, 0x61, 0x00, 0x73, 0x00, 0x65, 0x00, 0x2e, 0x00, 0x64, 0x00, 0x6c, 0x00,  /* 0080 */
	0x6c, 0x00, 0x00, 0x00,  /* 0090 */
};

/* SIF 2.6, P b1+0x5420: kernel-module DCStart 0x1403 v2, SYSTEM64, Size 156 (ntoskrnl.exe). */
static const uint8_t im_kdcstart_p[] = {
	0x02, 0x00, 0x02, 0xc0, 0x9c, 0x00, 0x03, 0x14, 0xc4, 0x0e, 0x00, 0x00, 0x94, 0x0f, 0x00, 0x00,  /* 0000 */
	0xc4, 0x39, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x90, 0x48, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x00, 0x80, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0x00, 0x00, 0xc8, 0xa6, 0x6a, 0x00, 0x4b, 0xac, 0x10, 0x50, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x00, 0x53, 0x00, 0x79, 0x00, 0x73, 0x00,  /* 0050 */
	0x74, 0x00, 0x65, 0x00, 0x6d, 0x00, 0x52, 0x00, 0x6f, 0x00, 0x6f, 0x00, 0x74, 0x00, 0x5c, 0x00,  /* 0060 */
	0x73, 0x00, 0x79, 0x00, 0x73, 0x00, 0x74, 0x00, 0x65, 0x00, 0x6d, 0x00, 0x33, 0x00, 0x32, 0x00,  /* 0070 */
	0x5c, 0x00, 0x6e, 0x00, 0x74, 0x00, 0x6f, 0x00, 0x73, 0x00, 0x6b, 0x00, 0x72, 0x00, 0x6e, 0x00,  /* 0080 */
	0x6c, 0x00, 0x2e, 0x00, 0x65, 0x00, 0x78, 0x00, 0x65, 0x00, 0x00, 0x00,  /* 0090 */
};

/* SIF 2.6, P b2+0x0458: per-process DCStart 0x1403 v2, PERFINFO64, Size 172 (smss.exe). */
static const uint8_t im_pdcstart_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0xac, 0x00, 0x03, 0x14, 0xb3, 0x3e, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x00, 0xd9, 0x0b, 0xf6, 0x07, 0x00, 0x00, 0x00, 0x50, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0xc8, 0x01, 0x00, 0x00, 0x53, 0x4b, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xd9, 0x0b, 0xf6, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x00, 0x44, 0x00, 0x65, 0x00, 0x76, 0x00,  /* 0040 */
	0x69, 0x00, 0x63, 0x00, 0x65, 0x00, 0x5c, 0x00, 0x48, 0x00, 0x61, 0x00, 0x72, 0x00, 0x64, 0x00,  /* 0050 */
	0x64, 0x00, 0x69, 0x00, 0x73, 0x00, 0x6b, 0x00, 0x56, 0x00, 0x6f, 0x00, 0x6c, 0x00, 0x75, 0x00,  /* 0060 */
	0x6d, 0x00, 0x65, 0x00, 0x32, 0x00, 0x5c, 0x00, 0x57, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x64, 0x00,  /* 0070 */
	0x6f, 0x00, 0x77, 0x00, 0x73, 0x00, 0x5c, 0x00, 0x53, 0x00, 0x79, 0x00, 0x73, 0x00, 0x74, 0x00,  /* 0080 */
	0x65, 0x00, 0x6d, 0x00, 0x33, 0x00, 0x32, 0x00, 0x5c, 0x00, 0x73, 0x00, 0x6d, 0x00, 0x73, 0x00,  /* 0090 */
	0x73, 0x00, 0x2e, 0x00, 0x65, 0x00, 0x78, 0x00, 0x65, 0x00, 0x00, 0x00,  /* 00a0 */
};

/* SIF 2.6, A b8+0x4340: Unload v3 with signature bytes, Size 194: the head; the name follows as text. */
static const uint8_t im_unload_a_head[] = {
	0x03, 0x00, 0x02, 0xc0, 0xc2, 0x00, 0x02, 0x14, 0x30, 0x0a, 0x00, 0x00, 0x34, 0x08, 0x00, 0x00,  /* 0000 */
	0x17, 0xb0, 0x7e, 0xbb, 0x44, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x59, 0x71, 0xf9, 0x7f, 0x00, 0x00, 0x00, 0x50, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x34, 0x08, 0x00, 0x00, 0x98, 0x8e, 0x0d, 0x00, 0x3b, 0xea, 0xdf, 0xb8, 0x0c, 0x02, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x59, 0x71, 0xf9, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0040 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0050 */
};

/* SIF 2.6, P b184+0xE238: KernelBase 0x1421, PERFINFO64 v2, Size 24. */
static const uint8_t im_kernel_base_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x18, 0x00, 0x21, 0x14, 0x66, 0xf7, 0xbb, 0x79, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x90, 0x48, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0010 */
};

/* SIF 2.6, P b184+0xE250: HypercallPage 0x1422, Size 24. */
static const uint8_t im_hypercall_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x18, 0x00, 0x22, 0x14, 0x69, 0xf7, 0xbb, 0x79, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x30, 0xd0, 0xff, 0xff, 0xff, 0xff, 0xff,  /* 0010 */
};

/* SIF 3.8, P b21+0x16E8: StackKeyKernel 0x1825 of the sample at +0x16C8, Size 40. */
static const uint8_t sk_kernel_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x28, 0x00, 0x25, 0x18, 0x3d, 0x53, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0xce, 0x52, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00, 0xa4, 0x04, 0x00, 0x00, 0xc0, 0x0a, 0x00, 0x00,  /* 0010 */
	0x50, 0x22, 0x44, 0x03, 0x83, 0xfa, 0xff, 0xff,  /* 0020 */
};

/* SIF 3.8, P b21+0x1710: StackKeyUser 0x1826 of the same sample, Size 40. */
static const uint8_t sk_user_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x28, 0x00, 0x26, 0x18, 0x4e, 0x54, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0xce, 0x52, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00, 0xa4, 0x04, 0x00, 0x00, 0xc0, 0x0a, 0x00, 0x00,  /* 0010 */
	0x90, 0x23, 0x44, 0x03, 0x83, 0xfa, 0xff, 0xff,  /* 0020 */
};

/* SIF 3.8, P b208+0xAF30: KeyRundown 0x1824 of key ...442250, 15 kernel frames, Size 144. */
static const uint8_t sd_rundown_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x90, 0x00, 0x24, 0x18, 0x95, 0xf1, 0xbd, 0x79, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x50, 0x22, 0x44, 0x03, 0x83, 0xfa, 0xff, 0xff, 0x13, 0x43, 0x43, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0010 */
	0xb9, 0xfb, 0x42, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x32, 0xd8, 0x52, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0020 */
	0x86, 0xf6, 0x52, 0x21, 0x00, 0xf8, 0xff, 0xff, 0xb0, 0x80, 0x4b, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0030 */
	0x16, 0x9d, 0xa5, 0x01, 0x80, 0xf8, 0xff, 0xff, 0xd7, 0x52, 0xad, 0x01, 0x80, 0xf8, 0xff, 0xff,  /* 0040 */
	0x5e, 0xa3, 0xa5, 0x01, 0x80, 0xf8, 0xff, 0xff, 0x85, 0x2b, 0xb5, 0x01, 0x80, 0xf8, 0xff, 0xff,  /* 0050 */
	0xb2, 0x8d, 0xec, 0x03, 0x80, 0xf8, 0xff, 0xff, 0xe0, 0xa7, 0xec, 0x03, 0x80, 0xf8, 0xff, 0xff,  /* 0060 */
	0xd3, 0xa8, 0xec, 0x03, 0x80, 0xf8, 0xff, 0xff, 0x2f, 0xd4, 0x8e, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0070 */
	0xb6, 0xdd, 0x8e, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x53, 0x30, 0x50, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0080 */
};

/* SIF 3.8, P b105+0x7240: KeyDelete 0x1823, the smallest definition (4 frames), Size 56. */
static const uint8_t sd_delete_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x38, 0x00, 0x23, 0x18, 0x5e, 0x28, 0x8e, 0x76, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x50, 0x87, 0x2a, 0x03, 0x83, 0xfa, 0xff, 0xff, 0x2c, 0x20, 0x8d, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0010 */
	0x08, 0x58, 0x8d, 0x21, 0x00, 0xf8, 0xff, 0xff, 0x64, 0x87, 0x8e, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0020 */
	0x53, 0x30, 0x50, 0x21, 0x00, 0xf8, 0xff, 0xff,  /* 0030 */
};

/* SIF 3.8, P b21+0xCF60: StackWalk 0x1820, 1 kernel frame, Size 40. */
static const uint8_t sw_kernel1_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x28, 0x00, 0x20, 0x18, 0xd1, 0xdb, 0xb7, 0x74, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x61, 0xda, 0xb7, 0x74, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x48, 0x02, 0x00, 0x00,  /* 0010 */
	0x86, 0xee, 0x22, 0x04, 0x80, 0xf8, 0xff, 0xff,  /* 0020 */
};

/* SIF 3.8, P b38+0x4808: StackWalk 0x1820, 3 user frames, Size 56. */
static const uint8_t sw_user3_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x38, 0x00, 0x20, 0x18, 0x67, 0x5d, 0x3d, 0x75, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0xcc, 0x5b, 0x3d, 0x75, 0x00, 0x00, 0x00, 0x00, 0xd4, 0x03, 0x00, 0x00, 0xd0, 0x03, 0x00, 0x00,  /* 0010 */
	0xa5, 0x84, 0x2f, 0xd0, 0xf9, 0x07, 0x00, 0x00, 0x7e, 0x16, 0x59, 0xcf, 0xf9, 0x07, 0x00, 0x00,  /* 0020 */
	0xf1, 0xc3, 0x30, 0xd0, 0xf9, 0x07, 0x00, 0x00,  /* 0030 */
};

/* SIF 3.8, P b38+0xDA90: StackWalk of an idle-thread DPC sample (PID 0, TID 0), Size 40. */
static const uint8_t sw_idle_dpc_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x28, 0x00, 0x20, 0x18, 0xd2, 0xc8, 0x8d, 0x75, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x61, 0xc8, 0x8d, 0x75, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0010 */
	0x70, 0x20, 0x2c, 0x01, 0x80, 0xf8, 0xff, 0xff,  /* 0020 */
};

/* SIF 3.8, P b38+0x80D8: StackKeyKernel of the image load at b38+0x7FA0, Size 40. */
static const uint8_t sk_load_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x28, 0x00, 0x25, 0x18, 0x9a, 0xc8, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x2c, 0xc8, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00, 0x60, 0x0e, 0x00, 0x00,  /* 0010 */
	0x10, 0xd6, 0x40, 0x03, 0x83, 0xfa, 0xff, 0xff,  /* 0020 */
};

/* SIF 3.8, P b38+0x8100: its 1-frame user StackWalk, Size 40. */
static const uint8_t sw_load_user1_p[] = {
	0x02, 0x00, 0x11, 0xc0, 0x28, 0x00, 0x20, 0x18, 0xc0, 0xc9, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x2c, 0xc8, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00, 0x60, 0x0e, 0x00, 0x00,  /* 0010 */
	0xd0, 0xc3, 0x30, 0xd0, 0xf9, 0x07, 0x00, 0x00,  /* 0020 */
};

/* SIF 6.5, P b2+0x0210: FileVersion (type 64, v0), FULL_HEADER64, Size 390: the head; ten strings follow as text. */
static const uint8_t ktc_fv_head[] = {
	0x86, 0x01, 0x14, 0xc0, 0x40, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xc8, 0x01, 0x00, 0x00,  /* 0000 */
	0xb3, 0x3e, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x50, 0x02, 0x00, 0x3a, 0xac, 0x10, 0x50,  /* 0030 */
};

/* SIF 6.5, P b2+0x0398: ImageID (type 0, v2) of smss.exe, PID 456, Size 90. */
static const uint8_t ktc_id_smss[] = {
	0x5a, 0x00, 0x14, 0xc0, 0x00, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0xc8, 0x01, 0x00, 0x00,  /* 0000 */
	0xb3, 0x3e, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xd9, 0x0b, 0xf6, 0x07, 0x00, 0x00, 0x00, 0x50, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0xc8, 0x01, 0x00, 0x00, 0x3a, 0xac, 0x10, 0x50, 0x73, 0x00, 0x6d, 0x00, 0x73, 0x00, 0x73, 0x00,  /* 0040 */
	0x2e, 0x00, 0x65, 0x00, 0x78, 0x00, 0x65, 0x00, 0x00, 0x00,  /* 0050 */
};

/* SIF 6.5, P b2+0x03F8: DbgID_RSDS (type 36, v2) of smss.exe, Size 89. */
static const uint8_t ktc_rsds_smss[] = {
	0x59, 0x00, 0x14, 0xc0, 0x24, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0xc8, 0x01, 0x00, 0x00,  /* 0000 */
	0xb3, 0x3e, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xd9, 0x0b, 0xf6, 0x07, 0x00, 0x00, 0xc8, 0x01, 0x00, 0x00, 0x28, 0x05, 0x8f, 0x3c,  /* 0030 */
	0x07, 0x9c, 0x57, 0x42, 0x91, 0x92, 0x78, 0xea, 0x9a, 0xa6, 0xa1, 0xf4, 0x01, 0x00, 0x00, 0x00,  /* 0040 */
	0x73, 0x6d, 0x73, 0x73, 0x2e, 0x70, 0x64, 0x62, 0x00,  /* 0050 */
};

/* SIF 6.5, P b38+0x8128: ImageID of the Load of ntdll.dll (SYSTEM64 image event), Size 92. */
static const uint8_t ktc_id_ntdll[] = {
	0x5c, 0x00, 0x14, 0xc0, 0x00, 0x00, 0x02, 0x00, 0x60, 0x0e, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00,  /* 0000 */
	0xe7, 0xc9, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0x2f, 0xd0, 0xf9, 0x07, 0x00, 0x00, 0x00, 0xe0, 0x1b, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x5c, 0x0e, 0x00, 0x00, 0xd2, 0xac, 0x10, 0x50, 0x6e, 0x00, 0x74, 0x00, 0x64, 0x00, 0x6c, 0x00,  /* 0040 */
	0x6c, 0x00, 0x2e, 0x00, 0x64, 0x00, 0x6c, 0x00, 0x6c, 0x00, 0x00, 0x00,  /* 0050 */
};

/* SIF 6.5, P b38+0x8188: DbgID_RSDS of the same Load, Size 90. */
static const uint8_t ktc_rsds_ntdll[] = {
	0x5a, 0x00, 0x14, 0xc0, 0x24, 0x00, 0x02, 0x00, 0x60, 0x0e, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00,  /* 0000 */
	0xe7, 0xc9, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0x2f, 0xd0, 0xf9, 0x07, 0x00, 0x00, 0x5c, 0x0e, 0x00, 0x00, 0xb6, 0xfd, 0x48, 0x60,  /* 0030 */
	0xcd, 0x2d, 0xc1, 0x41, 0x88, 0x35, 0x59, 0x48, 0x44, 0xce, 0x71, 0x43, 0x02, 0x00, 0x00, 0x00,  /* 0040 */
	0x6e, 0x74, 0x64, 0x6c, 0x6c, 0x2e, 0x70, 0x64, 0x62, 0x00,  /* 0050 */
};

/* SIF 6.5, P b3+0x57B8: None (type 32, v2), PID 724, Size 60. */
static const uint8_t ktc_none_p[] = {
	0x3c, 0x00, 0x14, 0xc0, 0x20, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0xd4, 0x02, 0x00, 0x00,  /* 0000 */
	0xdb, 0x61, 0xce, 0x73, 0x00, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xc5, 0xcc, 0xf9, 0x07, 0x00, 0x00, 0xd4, 0x02, 0x00, 0x00,  /* 0030 */
};

/*
 * x86, typed by hand from SIF 2.2 (x86 column): a per-process DCStart v3,
 * PERFINFO32 0xC0100003, Size 0x10 + 0x2C + 18 = 78: base 0x77F50000, size
 * 0x13000, PID 0x210, CheckSum 0x11234, TDS 0, level 12 / type 2 at 0x14,
 * DefaultBase = base at 0x18, Reserved1-4 0, L"C:\x.dll" at 0x2C.
 */
static const uint8_t im_pdcstart_x86[] = {
	0x03, 0x00, 0x10, 0xc0, 0x4e, 0x00, 0x03, 0x14, 0x88, 0x77, 0x66, 0x55, 0x44, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x00, 0xf5, 0x77, 0x00, 0x30, 0x01, 0x00, 0x10, 0x02, 0x00, 0x00, 0x34, 0x12, 0x01, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x00, 0x0c, 0x02, 0x00, 0x00, 0x00, 0x00, 0xf5, 0x77, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x43, 0x00, 0x3a, 0x00,  /* 0030 */
	0x5c, 0x00, 0x78, 0x00, 0x2e, 0x00, 0x64, 0x00, 0x6c, 0x00, 0x6c, 0x00, 0x00, 0x00,              /* 0040 */
};

/*
 * x86 Load v2, SYSTEM32 0xC0010002, Size 0x20 + 0x2C + 12 = 88: TID 0x10,
 * PID 0x20, TS 0x100, KernelTime 3, UserTime 4; base 0x10000000, size
 * 0x5000, PID 0x20, CheckSum 0, TDS 0x5010ACD2, Reserved0 u32 0, DefaultBase
 * = base, L"a.dll".
 */
static const uint8_t im_load_x86[] = {
	0x02, 0x00, 0x01, 0xc0, 0x58, 0x00, 0x0a, 0x03, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,  /* 0010 */
	0x00, 0x00, 0x00, 0x10, 0x00, 0x50, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0xd2, 0xac, 0x10, 0x50, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,  /* 0030 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x00, 0x2e, 0x00,  /* 0040 */
	0x64, 0x00, 0x6c, 0x00, 0x6c, 0x00, 0x00, 0x00,                                                  /* 0050 */
};

/* x86 KernelBase: PERFINFO32 v2, Size 0x14, ntoskrnl at 0x81489000. */
static const uint8_t im_kernel_base_x86[] = {
	0x02, 0x00, 0x10, 0xc0, 0x14, 0x00, 0x21, 0x14, 0x66, 0xf7, 0xbb, 0x79, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x00, 0x90, 0x48, 0x81,                                                                          /* 0010 */
};

/*
 * x86 StackWalk (SIF 3.2 x86 column), an odd depth: 3 frames of 4 bytes,
 * Size 0x20 + 12 = 44: event TS 0x756BC82C, PID 0x3D4, TID 0x3D0, frames
 * 0x77F51234, 0x77F60010, 0x00401000.
 */
static const uint8_t sw_user3_x86[] = {
	0x02, 0x00, 0x10, 0xc0, 0x2c, 0x00, 0x20, 0x18, 0x9a, 0xc8, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x2c, 0xc8, 0x6b, 0x75, 0x00, 0x00, 0x00, 0x00, 0xd4, 0x03, 0x00, 0x00, 0xd0, 0x03, 0x00, 0x00,  /* 0010 */
	0x34, 0x12, 0xf5, 0x77, 0x10, 0x00, 0xf6, 0x77, 0x00, 0x10, 0x40, 0x00,                          /* 0020 */
};

/* x86 StackKeyUser (SIF 3.6 x86 column): Size 0x24, key 0x85432190. */
static const uint8_t sk_user_x86[] = {
	0x02, 0x00, 0x10, 0xc0, 0x24, 0x00, 0x26, 0x18, 0x4e, 0x54, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0xce, 0x52, 0xe4, 0x73, 0x00, 0x00, 0x00, 0x00, 0xa4, 0x04, 0x00, 0x00, 0xc0, 0x0a, 0x00, 0x00,  /* 0010 */
	0x90, 0x21, 0x43, 0x85,                                                                          /* 0020 */
};

/* x86 KeyRundown: key 0x85432190, 4 frames, Size 0x10 + 4 + 16 = 0x24. */
static const uint8_t sd_rundown_x86[] = {
	0x02, 0x00, 0x10, 0xc0, 0x24, 0x00, 0x24, 0x18, 0x95, 0xf1, 0xbd, 0x79, 0x00, 0x00, 0x00, 0x00,  /* 0000 */
	0x90, 0x21, 0x43, 0x85, 0x13, 0x43, 0x43, 0x81, 0xb9, 0xfb, 0x42, 0x81, 0x32, 0xd8, 0x52, 0x81,  /* 0010 */
	0x53, 0x30, 0x50, 0x81,                                                                          /* 0020 */
};

/*
 * x86 KTC ImageID (SIF 6.3 x86 column), FULL_HEADER32 (0x0A), Size 0x30 +
 * 0x10 + 12 = 76: TID -1, PID 0x210, TS 0x4455667788; base 0x77F50000,
 * size 0x13000, PID 0x210, TDS 0x5010AC3A, L"x.dll".
 */
static const uint8_t ktc_id_x86[] = {
	0x4c, 0x00, 0x0a, 0xc0, 0x00, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0x10, 0x02, 0x00, 0x00,  /* 0000 */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xf5, 0x77, 0x00, 0x30, 0x01, 0x00, 0x10, 0x02, 0x00, 0x00, 0x3a, 0xac, 0x10, 0x50,  /* 0030 */
	0x78, 0x00, 0x2e, 0x00, 0x64, 0x00, 0x6c, 0x00, 0x6c, 0x00, 0x00, 0x00,                          /* 0040 */
};

/*
 * x86 DbgID_RSDS: Size 0x30 + 0x1C + 6 = 82; base 0x77F50000, PID 0x210,
 * GuidSig {3C8F0528-9C07-4257-9192-78EA9AA6A1F4}, Age 3, "x.pdb".
 */
static const uint8_t ktc_rsds_x86[] = {
	0x52, 0x00, 0x0a, 0xc0, 0x24, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0x10, 0x02, 0x00, 0x00,  /* 0000 */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xf5, 0x77, 0x10, 0x02, 0x00, 0x00, 0x28, 0x05, 0x8f, 0x3c, 0x07, 0x9c, 0x57, 0x42,  /* 0030 */
	0x91, 0x92, 0x78, 0xea, 0x9a, 0xa6, 0xa1, 0xf4, 0x03, 0x00, 0x00, 0x00, 0x78, 0x2e, 0x70, 0x64,  /* 0040 */
	0x62, 0x00,                                                                                      /* 0050 */
};

/* x86 None: Size 0x30 + 8 = 56. */
static const uint8_t ktc_none_x86[] = {
	0x38, 0x00, 0x0a, 0xc0, 0x20, 0x00, 0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0x10, 0x02, 0x00, 0x00,  /* 0000 */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x00, 0x00, 0x00, 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,  /* 0010 */
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  /* 0020 */
	0x00, 0x00, 0xf5, 0x77, 0x10, 0x02, 0x00, 0x00,                                                  /* 0030 */
};
/* clang-format on */

/* The two records the spec prints as a head and text, made whole. */
static uint8_t im_unload_a[194];
static uint8_t ktc_fv_smss[390];

static const char *const fv_smss_strings[ETW_KFV_NSTRINGS] = {
	"smss.exe",
	"Windows Session Manager",
	"6.2.9200.16384 (win8_rtm.120725-1247)",
	"6.2.9200.16384",
	"1033",
	"Microsoft\xae Windows\xae Operating System", /* Latin-1 (R) */
	"Microsoft Corporation",
	"6.2.9200.16384",
	"",
	"",
};

static void make_whole(void)
{
	size_t n;

	memcpy(im_unload_a, im_unload_a_head, sizeof(im_unload_a_head));
	n = widen("\\Device\\HarddiskVolume3\\Windows\\System32\\ieproxy.dll",
		  im_unload_a + sizeof(im_unload_a_head));
	cr_assert(eq(sz, sizeof(im_unload_a_head) + n, sizeof(im_unload_a)), "ends at 0xC2");
	memcpy(ktc_fv_smss, ktc_fv_head, sizeof(ktc_fv_head));
	n = sizeof(ktc_fv_head);
	for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
		n += widen(fv_smss_strings[i], ktc_fv_smss + n);
	}
	cr_assert(eq(sz, n, sizeof(ktc_fv_smss)), "ends at 0x186");
}

/* ======================================================================== */
/* The fields each record holds, as the spec decodes them                    */
/* ======================================================================== */

union fields {
	struct etw_image im;
	uint64_t address;
	struct etw_stack_walk sw;
	struct etw_stack_key sk;
	struct etw_stack_def sd;
	struct etw_ktc_image_id kid;
	struct etw_ktc_dbgid kdb;
	struct etw_ktc_file_version kfv;
};

static void f_im_load_p(union fields *f)
{
	f->im = (struct etw_image){.image_base = 0x7F9D02F0000u,
				   .image_size = 0x1BE000,
				   .process_id = 3676,
				   .checksum = 0x1C7B26,
				   .time_date_stamp = 0x5010ACD2,
				   .default_base = 0x7F9D02F0000u,
				   .file_name = W("\\SystemRoot\\System32\\ntdll.dll")};
}

static void f_im_unload_p(union fields *f)
{
	f->im = (struct etw_image){.image_base = 0x7F9CFAC0000u,
				   .image_size = 0x1B0000,
				   .process_id = 3676,
				   .checksum = 0x1B8C93,
				   .time_date_stamp = 0x501088C7,
				   .default_base = 0x7F9CFAC0000u,
				   .file_name = W("\\Windows\\System32\\combase.dll")};
}

static void f_im_kdcstart_p(union fields *f)
{
	f->im = (struct etw_image){.image_base = 0xFFFFF80021489000u,
				   .image_size = 0x748000,
				   .process_id = 0,
				   .checksum = 0x6AA6C8,
				   .time_date_stamp = 0x5010AC4B,
				   .default_base = 0,
				   .file_name = W("\\SystemRoot\\system32\\ntoskrnl.exe")};
}

static void f_im_pdcstart_p(union fields *f)
{
	f->im = (struct etw_image){
		.image_base = 0x7F60BD90000u,
		.image_size = 0x25000,
		.process_id = 456,
		.checksum = 0x24B53,
		.time_date_stamp = 0,
		.default_base = 0x7F60BD90000u,
		.file_name = W("\\Device\\HarddiskVolume2\\Windows\\System32\\smss.exe")};
}

static void f_im_unload_a(union fields *f)
{
	f->im = (struct etw_image){
		.image_base = 0x7FF971590000u,
		.image_size = 0xD5000,
		.process_id = 2100,
		.checksum = 0xD8E98,
		.time_date_stamp = 0xB8DFEA3B,
		.signature_level = 0x0C,
		.signature_type = 0x02,
		.default_base = 0x7FF971590000u,
		.file_name = W("\\Device\\HarddiskVolume3\\Windows\\System32\\ieproxy.dll")};
}

static void f_im_kernel_base_p(union fields *f)
{
	f->address = 0xFFFFF80021489000u;
}

static void f_im_hypercall_p(union fields *f)
{
	f->address = 0xFFFFFFFFFFD03000u;
}

static void f_im_pdcstart_x86(union fields *f)
{
	f->im = (struct etw_image){.image_base = 0x77F50000u,
				   .image_size = 0x13000,
				   .process_id = 0x210,
				   .checksum = 0x11234,
				   .signature_level = 12,
				   .signature_type = 2,
				   .default_base = 0x77F50000u,
				   .file_name = W("C:\\x.dll")};
}

static void f_im_load_x86(union fields *f)
{
	f->im = (struct etw_image){.image_base = 0x10000000u,
				   .image_size = 0x5000,
				   .process_id = 0x20,
				   .time_date_stamp = 0x5010ACD2,
				   .default_base = 0x10000000u,
				   .file_name = W("a.dll")};
}

static void f_im_kernel_base_x86(union fields *f)
{
	f->address = 0x81489000u;
}

static const uint64_t rundown_p_frames[] = {
	0xFFFFF80021434313u, 0xFFFFF8002142FBB9u, 0xFFFFF8002152D832u, 0xFFFFF8002152F686u,
	0xFFFFF800214B80B0u, 0xFFFFF88001A59D16u, 0xFFFFF88001AD52D7u, 0xFFFFF88001A5A35Eu,
	0xFFFFF88001B52B85u, 0xFFFFF88003EC8DB2u, 0xFFFFF88003ECA7E0u, 0xFFFFF88003ECA8D3u,
	0xFFFFF800218ED42Fu, 0xFFFFF800218EDDB6u, 0xFFFFF80021503053u,
};
static const uint64_t delete_p_frames[] = {
	0xFFFFF800218D202Cu,
	0xFFFFF800218D5808u,
	0xFFFFF800218E8764u,
	0xFFFFF80021503053u,
};
static const uint64_t kernel1_p_frames[] = {0xFFFFF8800422EE86u};
static const uint64_t user3_p_frames[] = {0x7F9D02F84A5u, 0x7F9CF59167Eu, 0x7F9D030C3F1u};
static const uint64_t idle_dpc_frames[] = {0xFFFFF880012C2070u};
static const uint64_t load_user1_frames[] = {0x7F9D030C3D0u};
static const uint64_t user3_x86_frames[] = {0x77F51234u, 0x77F60010u, 0x00401000u};
static const uint64_t rundown_x86_frames[] = {0x81434313u, 0x8142FBB9u, 0x8152D832u, 0x81503053u};

#define FRAMES(a)                                                                                  \
	(struct etw_frames)                                                                        \
	{                                                                                          \
		.ips = (a), .n = ARRAY_LEN(a)                                                      \
	}

static void f_sk_kernel_p(union fields *f)
{
	f->sk = (struct etw_stack_key){0x73E452CEu, 1188, 0xAC0, 0xFFFFFA8303442250u};
}

static void f_sk_user_p(union fields *f)
{
	f->sk = (struct etw_stack_key){0x73E452CEu, 1188, 0xAC0, 0xFFFFFA8303442390u};
}

static void f_sd_rundown_p(union fields *f)
{
	f->sd = (struct etw_stack_def){0xFFFFFA8303442250u, FRAMES(rundown_p_frames)};
}

static void f_sd_delete_p(union fields *f)
{
	f->sd = (struct etw_stack_def){0xFFFFFA83032A8750u, FRAMES(delete_p_frames)};
}

static void f_sw_kernel1_p(union fields *f)
{
	f->sw = (struct etw_stack_walk){0x74B7DA61u, 4, 0x248, FRAMES(kernel1_p_frames)};
}

static void f_sw_user3_p(union fields *f)
{
	f->sw = (struct etw_stack_walk){0x753D5BCCu, 0x3D4, 0x3D0, FRAMES(user3_p_frames)};
}

static void f_sw_idle_dpc_p(union fields *f)
{
	f->sw = (struct etw_stack_walk){0x758DC861u, 0, 0, FRAMES(idle_dpc_frames)};
}

static void f_sk_load_p(union fields *f)
{
	f->sk = (struct etw_stack_key){0x756BC82Cu, 3676, 3680, 0xFFFFFA830340D610u};
}

static void f_sw_load_user1_p(union fields *f)
{
	f->sw = (struct etw_stack_walk){0x756BC82Cu, 3676, 3680, FRAMES(load_user1_frames)};
}

static void f_sw_user3_x86(union fields *f)
{
	f->sw = (struct etw_stack_walk){0x756BC82Cu, 0x3D4, 0x3D0, FRAMES(user3_x86_frames)};
}

static void f_sk_user_x86(union fields *f)
{
	f->sk = (struct etw_stack_key){0x73E452CEu, 1188, 0xAC0, 0x85432190u};
}

static void f_sd_rundown_x86(union fields *f)
{
	f->sd = (struct etw_stack_def){0x85432190u, FRAMES(rundown_x86_frames)};
}

static void f_ktc_fv_smss(union fields *f)
{
	f->kfv.image_size = 0x25000;
	f->kfv.time_date_stamp = 0x5010AC3A;
	for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
		f->kfv.strings[i] = W(fv_smss_strings[i]);
	}
}

static void f_ktc_id_smss(union fields *f)
{
	f->kid = (struct etw_ktc_image_id){0x7F60BD90000u, 0x25000, 456, 0x5010AC3A, W("smss.exe")};
}

/* {3C8F0528-9C07-4257-9192-78EA9AA6A1F4} as its wire bytes */
static const uint8_t smss_pdb_guid[16] = {0x28, 0x05, 0x8f, 0x3c, 0x07, 0x9c, 0x57, 0x42,
					  0x91, 0x92, 0x78, 0xea, 0x9a, 0xa6, 0xa1, 0xf4};
/* {6048FDB6-2DCD-41C1-8835-594844CE7143} */
static const uint8_t ntdll_pdb_guid[16] = {0xb6, 0xfd, 0x48, 0x60, 0xcd, 0x2d, 0xc1, 0x41,
					   0x88, 0x35, 0x59, 0x48, 0x44, 0xce, 0x71, 0x43};

static void f_ktc_rsds_smss(union fields *f)
{
	f->kdb = (struct etw_ktc_dbgid){.image_base = 0x7F60BD90000u,
					.process_id = 456,
					.age = 1,
					.pdb_file_name = "smss.pdb"};
	memcpy(f->kdb.guid, smss_pdb_guid, 16);
}

static void f_ktc_id_ntdll(union fields *f)
{
	f->kid = (struct etw_ktc_image_id){0x7F9D02F0000u, 0x1BE000, 3676, 0x5010ACD2,
					   W("ntdll.dll")};
}

static void f_ktc_rsds_ntdll(union fields *f)
{
	f->kdb = (struct etw_ktc_dbgid){.image_base = 0x7F9D02F0000u,
					.process_id = 3676,
					.age = 2,
					.pdb_file_name = "ntdll.pdb"};
	memcpy(f->kdb.guid, ntdll_pdb_guid, 16);
}

static void f_ktc_none_p(union fields *f)
{
	f->kdb = (struct etw_ktc_dbgid){.image_base = 0x7F9CCC50000u, .process_id = 724};
}

static void f_ktc_id_x86(union fields *f)
{
	f->kid = (struct etw_ktc_image_id){0x77F50000u, 0x13000, 0x210, 0x5010AC3A, W("x.dll")};
}

static void f_ktc_rsds_x86(union fields *f)
{
	f->kdb = (struct etw_ktc_dbgid){
		.image_base = 0x77F50000u, .process_id = 0x210, .age = 3, .pdb_file_name = "x.pdb"};
	memcpy(f->kdb.guid, smss_pdb_guid, 16);
}

static void f_ktc_none_x86(union fields *f)
{
	f->kdb = (struct etw_ktc_dbgid){.image_base = 0x77F50000u, .process_id = 0x210};
}

/* ======================================================================== */
/* The examples                                                              */
/* ======================================================================== */

enum form {
	PERF = ETW_HEADER_PERFINFO,
	SYS = ETW_HEADER_SYSTEM,
	FULL = 10, /* EVENT_TRACE_HEADER: @hook is Class.Type */
};

/*
 * struct example - one record: where it comes from, the target whose form
 * it has (9200's are those of win10-1709 and older), whether it is a
 * kernel module's rundown, its header, and its fields.
 */
struct example {
	const char *what;
	const uint8_t *bytes;
	size_t size;
	const char *target;
	enum etl_arch arch;
	uint16_t hook;
	bool kernel_module;
	enum form header;
	uint8_t version;
	struct etw_event_ctx ctx;
	enum etw_payload_kind kind;
	void (*fields)(union fields *f);
};

#define X64    ETL_ARCH_X64
#define X86    ETL_ARCH_X86
#define REC(a) a, sizeof(a)
#define CTX(ts, ...)                                                                               \
	{                                                                                          \
		ts, __VA_ARGS__                                                                    \
	}
#define K(kind) ETW_PAYLOAD_##kind

/* clang-format off */
static const struct example examples[] = {
	{"SIF 2.6 P b38+0x81E8 Image Load", REC(im_load_p), "win10-1709", X64, 0x030A, false,
	 SYS, 2, CTX(0x756BC9E7u, 3680, 3676, 0, 0), K(IMAGE), f_im_load_p},
	{"SIF 2.6 P b29+0x4F28 Image Unload", REC(im_unload_p), "win10-1709", X64, 0x1402, false,
	 SYS, 2, CTX(0x757D885Eu, 3680, 3676, 0, 1), K(IMAGE), f_im_unload_p},
	{"SIF 2.6 P b1+0x5420 kernel-module DCStart", REC(im_kdcstart_p), "win10-1709", X64, 0x1403,
	 true, SYS, 2, CTX(0x73CE39C4u, 3780, 3988, 2, 0), K(IMAGE), f_im_kdcstart_p},
	{"SIF 2.6 P b2+0x0458 per-process DCStart", REC(im_pdcstart_p), "win10-1709", X64, 0x1403,
	 false, PERF, 2, CTX(0x73CE3EB3u, 0, 0, 0, 0), K(IMAGE), f_im_pdcstart_p},
	{"SIF 2.6 A b8+0x4340 Unload v3", REC(im_unload_a), "win10-1903", X64, 0x1402, false,
	 SYS, 3, CTX(0x44BB7EB017u, 2608, 2100, 1, 0), K(IMAGE), f_im_unload_a},
	{"SIF 2.6 P b184+0xE238 KernelBase", REC(im_kernel_base_p), "win10-1709", X64, 0x1421, false,
	 PERF, 2, CTX(0x79BBF766u, 0, 0, 0, 0), K(IMAGE_ADDRESS), f_im_kernel_base_p},
	{"SIF 2.6 P b184+0xE250 HypercallPage", REC(im_hypercall_p), "win10-1903", X64, 0x1422, false,
	 PERF, 2, CTX(0x79BBF769u, 0, 0, 0, 0), K(IMAGE_ADDRESS), f_im_hypercall_p},
	{"x86 per-process DCStart v3 (typed)", REC(im_pdcstart_x86), "win10-1903", X86, 0x1403, false,
	 PERF, 3, CTX(0x4455667788u, 0, 0, 0, 0), K(IMAGE), f_im_pdcstart_x86},
	{"x86 Image Load v2 (typed)", REC(im_load_x86), "win10-1607", X86, 0x030A, false,
	 SYS, 2, CTX(0x100u, 0x10, 0x20, 3, 4), K(IMAGE), f_im_load_x86},
	{"x86 KernelBase (typed)", REC(im_kernel_base_x86), "win10-1903", X86, 0x1421, false,
	 PERF, 2, CTX(0x79BBF766u, 0, 0, 0, 0), K(IMAGE_ADDRESS), f_im_kernel_base_x86},
	{"SIF 3.8 P b21+0x16E8 StackKeyKernel", REC(sk_kernel_p), "win10-1709", X64, 0x1825, false,
	 PERF, 2, CTX(0x73E4533Du, 0, 0, 0, 0), K(STACK_KEY), f_sk_kernel_p},
	{"SIF 3.8 P b21+0x1710 StackKeyUser", REC(sk_user_p), "win10-1709", X64, 0x1826, false,
	 PERF, 2, CTX(0x73E4544Eu, 0, 0, 0, 0), K(STACK_KEY), f_sk_user_p},
	{"SIF 3.8 P b208+0xAF30 KeyRundown", REC(sd_rundown_p), "win10-1709", X64, 0x1824, false,
	 PERF, 2, CTX(0x79BDF195u, 0, 0, 0, 0), K(STACK_DEF), f_sd_rundown_p},
	{"SIF 3.8 P b105+0x7240 KeyDelete", REC(sd_delete_p), "win10-1709", X64, 0x1823, false,
	 PERF, 2, CTX(0x768E285Eu, 0, 0, 0, 0), K(STACK_DEF), f_sd_delete_p},
	{"SIF 3.8 P b21+0xCF60 StackWalk, 1 kernel frame", REC(sw_kernel1_p), "win10-1709", X64,
	 0x1820, false, PERF, 2, CTX(0x74B7DBD1u, 0, 0, 0, 0), K(STACK_WALK), f_sw_kernel1_p},
	{"SIF 3.8 P b38+0x4808 StackWalk, 3 user frames", REC(sw_user3_p), "win10-1709", X64,
	 0x1820, false, PERF, 2, CTX(0x753D5D67u, 0, 0, 0, 0), K(STACK_WALK), f_sw_user3_p},
	{"SIF 3.8 P b38+0xDA90 idle DPC StackWalk", REC(sw_idle_dpc_p), "win10-1709", X64, 0x1820,
	 false, PERF, 2, CTX(0x758DC8D2u, 0, 0, 0, 0), K(STACK_WALK), f_sw_idle_dpc_p},
	{"SIF 3.8 P b38+0x80D8 image load's kernel key", REC(sk_load_p), "win10-1709", X64, 0x1825,
	 false, PERF, 2, CTX(0x756BC89Au, 0, 0, 0, 0), K(STACK_KEY), f_sk_load_p},
	{"SIF 3.8 P b38+0x8100 image load's user frame", REC(sw_load_user1_p), "win10-1709", X64,
	 0x1820, false, PERF, 2, CTX(0x756BC9C0u, 0, 0, 0, 0), K(STACK_WALK), f_sw_load_user1_p},
	{"x86 StackWalk, 3 frames (typed)", REC(sw_user3_x86), "win10-1903", X86, 0x1820, false,
	 PERF, 2, CTX(0x756BC89Au, 0, 0, 0, 0), K(STACK_WALK), f_sw_user3_x86},
	{"x86 StackKeyUser (typed)", REC(sk_user_x86), "win10-1903", X86, 0x1826, false,
	 PERF, 2, CTX(0x73E4544Eu, 0, 0, 0, 0), K(STACK_KEY), f_sk_user_x86},
	{"x86 KeyRundown (typed)", REC(sd_rundown_x86), "win10-1903", X86, 0x1824, false,
	 PERF, 2, CTX(0x79BDF195u, 0, 0, 0, 0), K(STACK_DEF), f_sd_rundown_x86},
	{"SIF 6.5 P b2+0x0210 FileVersion", REC(ktc_fv_smss), NULL, X64, 0x40, false,
	 FULL, 0, CTX(0x73CE3EB3u, 0xFFFFFFFFu, 456, 0, 0), K(KTC_FILE_VERSION), f_ktc_fv_smss},
	{"SIF 6.5 P b2+0x0398 ImageID", REC(ktc_id_smss), NULL, X64, 0x00, false,
	 FULL, 2, CTX(0x73CE3EB3u, 0xFFFFFFFFu, 456, 0, 0), K(KTC_IMAGE_ID), f_ktc_id_smss},
	{"SIF 6.5 P b2+0x03F8 DbgID_RSDS", REC(ktc_rsds_smss), NULL, X64, 0x24, false,
	 FULL, 2, CTX(0x73CE3EB3u, 0xFFFFFFFFu, 456, 0, 0), K(KTC_DBGID), f_ktc_rsds_smss},
	{"SIF 6.5 P b38+0x8128 ImageID of a Load", REC(ktc_id_ntdll), NULL, X64, 0x00, false,
	 FULL, 2, CTX(0x756BC9E7u, 3680, 3676, 0, 0), K(KTC_IMAGE_ID), f_ktc_id_ntdll},
	{"SIF 6.5 P b38+0x8188 DbgID_RSDS of a Load", REC(ktc_rsds_ntdll), NULL, X64, 0x24, false,
	 FULL, 2, CTX(0x756BC9E7u, 3680, 3676, 0, 0), K(KTC_DBGID), f_ktc_rsds_ntdll},
	{"SIF 6.5 P b3+0x57B8 None", REC(ktc_none_p), NULL, X64, 0x20, false,
	 FULL, 2, CTX(0x73CE61DBu, 0xFFFFFFFFu, 724, 0, 0), K(KTC_DBGID_NONE), f_ktc_none_p},
	{"x86 ImageID (typed)", REC(ktc_id_x86), NULL, X86, 0x00, false,
	 FULL, 2, CTX(0x4455667788u, 0xFFFFFFFFu, 0x210, 0, 0), K(KTC_IMAGE_ID), f_ktc_id_x86},
	{"x86 DbgID_RSDS (typed)", REC(ktc_rsds_x86), NULL, X86, 0x24, false,
	 FULL, 2, CTX(0x4455667788u, 0xFFFFFFFFu, 0x210, 0, 0), K(KTC_DBGID), f_ktc_rsds_x86},
	{"x86 None (typed)", REC(ktc_none_x86), NULL, X86, 0x20, false,
	 FULL, 2, CTX(0x4455667788u, 0xFFFFFFFFu, 0x210, 0, 0), K(KTC_DBGID_NONE), f_ktc_none_x86},
};
/* clang-format on */

static size_t header_len(const struct example *e)
{
	return e->header == FULL ? 0x30 : e->header == SYS ? 0x20 : 0x10;
}

/* encode - the payload of @e's kind from @f. Return: the encoder's result. */
static int encode(const struct example *e, const union fields *f, uint8_t *buf, size_t cap)
{
	switch (e->kind) {
	case ETW_PAYLOAD_IMAGE:
		return etw_encode_image(buf, cap, e->arch, e->version, &f->im, 0);
	case ETW_PAYLOAD_IMAGE_ADDRESS:
		return etw_encode_image_address(buf, cap, e->arch, f->address, 0);
	case ETW_PAYLOAD_STACK_WALK:
		return etw_encode_stack_walk(buf, cap, e->arch, &f->sw, 0);
	case ETW_PAYLOAD_STACK_KEY:
		return etw_encode_stack_key(buf, cap, e->arch, &f->sk, 0);
	case ETW_PAYLOAD_STACK_DEF:
		return etw_encode_stack_def(buf, cap, e->arch, &f->sd, 0);
	case ETW_PAYLOAD_KTC_IMAGE_ID:
		return etw_encode_ktc_image_id(buf, cap, e->arch, &f->kid, 0);
	case ETW_PAYLOAD_KTC_DBGID:
		return etw_encode_ktc_dbgid(buf, cap, e->arch, false, &f->kdb, 0);
	case ETW_PAYLOAD_KTC_DBGID_NONE:
		return etw_encode_ktc_dbgid(buf, cap, e->arch, true, &f->kdb, 0);
	case ETW_PAYLOAD_KTC_FILE_VERSION:
		return etw_encode_ktc_file_version(buf, cap, &f->kfv);
	default:
		cr_fatal("%s: no encoder", e->what);
		return -1;
	}
}

/* decode - through the dispatcher the record's header calls for. */
static void decode(const struct example *e, const uint8_t *p, size_t len, struct etw_payload *pl)
{
	if (e->header == FULL) {
		etw_decode_classic_payload(etw_ktc_guid, (uint8_t)e->hook, e->version, e->arch, p,
					   len, pl);
	} else {
		etw_decode_payload(e->hook, e->version, e->arch, p, len, pl);
	}
}

static void assert_frames_eq(const struct etw_frames *got, const struct etw_frames *want,
			     enum etl_arch arch, const char *what)
{
	cr_assert(eq(sz, got->n, want->n), "%s: depth", what);
	cr_assert(eq(ptr, (void *)got->ips, NULL), "%s: decoded frames are wire bytes", what);
	for (size_t i = 0; i < want->n; i++) {
		cr_assert(eq(u64, etw_frame(got, arch, i), want->ips[i]), "%s: frame %zu", what, i);
	}
}

/* assert_fields - what the dispatcher decoded @got equals the spec's @w. */
static void assert_fields(const struct example *e, const struct etw_payload *got,
			  const union fields *w)
{
	switch (e->kind) {
	case ETW_PAYLOAD_IMAGE:
		cr_assert(eq(u64, got->u.im.image_base, w->im.image_base));
		cr_assert(eq(u64, got->u.im.image_size, w->im.image_size));
		cr_assert(eq(u32, got->u.im.process_id, w->im.process_id));
		cr_assert(eq(u32, got->u.im.checksum, w->im.checksum));
		cr_assert(eq(u32, got->u.im.time_date_stamp, w->im.time_date_stamp));
		cr_assert(eq(u8, got->u.im.signature_level, w->im.signature_level));
		cr_assert(eq(u8, got->u.im.signature_type, w->im.signature_type));
		cr_assert(eq(u32, got->u.im.reserved0, w->im.reserved0));
		cr_assert(eq(u64, got->u.im.default_base, w->im.default_base));
		for (unsigned i = 0; i < ETW_IMAGE_RESERVED_N; i++) {
			cr_assert(eq(u32, got->u.im.reserved[i], 0), "Reserved%u", i + 1);
		}
		assert_wstr_eq(got->u.im.file_name, w->im.file_name, "FileName");
		break;
	case ETW_PAYLOAD_IMAGE_ADDRESS:
		cr_assert(eq(u64, got->u.address, w->address));
		break;
	case ETW_PAYLOAD_STACK_WALK:
		cr_assert(eq(u64, got->u.sw.event_ts, w->sw.event_ts));
		cr_assert(eq(u32, got->u.sw.process_id, w->sw.process_id));
		cr_assert(eq(u32, got->u.sw.thread_id, w->sw.thread_id));
		assert_frames_eq(&got->u.sw.frames, &w->sw.frames, e->arch, e->what);
		break;
	case ETW_PAYLOAD_STACK_KEY:
		cr_assert(eq(u64, got->u.sk.event_ts, w->sk.event_ts));
		cr_assert(eq(u32, got->u.sk.process_id, w->sk.process_id));
		cr_assert(eq(u32, got->u.sk.thread_id, w->sk.thread_id));
		cr_assert(eq(u64, got->u.sk.key, w->sk.key));
		break;
	case ETW_PAYLOAD_STACK_DEF:
		cr_assert(eq(u64, got->u.sd.key, w->sd.key));
		assert_frames_eq(&got->u.sd.frames, &w->sd.frames, e->arch, e->what);
		break;
	case ETW_PAYLOAD_KTC_IMAGE_ID:
		cr_assert(eq(u64, got->u.kid.image_base, w->kid.image_base));
		cr_assert(eq(u64, got->u.kid.image_size, w->kid.image_size));
		cr_assert(eq(u32, got->u.kid.process_id, w->kid.process_id));
		cr_assert(eq(u32, got->u.kid.time_date_stamp, w->kid.time_date_stamp));
		assert_wstr_eq(got->u.kid.original_file_name, w->kid.original_file_name,
			       "OriginalFileName");
		break;
	case ETW_PAYLOAD_KTC_DBGID:
	case ETW_PAYLOAD_KTC_DBGID_NONE:
		cr_assert(eq(u64, got->u.kdb.image_base, w->kdb.image_base));
		cr_assert(eq(u32, got->u.kdb.process_id, w->kdb.process_id));
		cr_assert(eq(int, memcmp(got->u.kdb.guid, w->kdb.guid, 16), 0), "GuidSig");
		cr_assert(eq(u32, got->u.kdb.age, w->kdb.age));
		if (e->kind == ETW_PAYLOAD_KTC_DBGID) {
			cr_assert(eq(str, (char *)got->u.kdb.pdb_file_name,
				     (char *)w->kdb.pdb_file_name));
		} else {
			cr_assert(eq(ptr, (void *)got->u.kdb.pdb_file_name, NULL));
		}
		break;
	case ETW_PAYLOAD_KTC_FILE_VERSION:
		cr_assert(eq(u32, got->u.kfv.image_size, w->kfv.image_size));
		cr_assert(eq(u32, got->u.kfv.time_date_stamp, w->kfv.time_date_stamp));
		for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
			assert_wstr_eq(got->u.kfv.strings[i], w->kfv.strings[i], "FileVersion");
		}
		break;
	default:
		cr_fatal("%s: kind %d", e->what, e->kind);
	}
}

/* The header the spec prints, decoded. */
static void assert_header(const struct example *e)
{
	if (e->header == FULL) {
		struct etl_full_header h;

		cr_assert(eq(int, etl_decode_full_header(e->bytes, e->size, &h), 0x30), "%s",
			  e->what);
		cr_assert(eq(int, h.arch, e->arch));
		cr_assert(eq(u16, h.size, e->size));
		cr_assert(eq(u8, h.type, e->hook));
		cr_assert(eq(u8, h.level, 0));
		cr_assert(eq(u16, h.version, e->version));
		cr_assert(eq(u32, h.thread_id, e->ctx.thread_id));
		cr_assert(eq(u32, h.process_id, e->ctx.process_id));
		cr_assert(eq(u64, h.ts, e->ctx.ts));
		cr_assert(eq(int, memcmp(h.guid, etw_ktc_guid, 16), 0));
		cr_assert(eq(u32, h.kernel_time, e->ctx.kernel_time));
		cr_assert(eq(u32, h.user_time, e->ctx.user_time));
		return;
	}
	struct etw_event_header h;
	int n = etw_decode_event_header(e->bytes, e->size, &h);

	cr_assert(eq(int, n, (int)header_len(e)), "%s", e->what);
	cr_assert(eq(int, h.arch, e->arch));
	cr_assert(eq(int, h.form.header, (int)e->header));
	cr_assert(eq(u8, h.form.version, e->version));
	cr_assert(eq(u16, h.hook, e->hook));
	cr_assert(eq(u16, h.size, e->size));
	cr_assert(eq(u64, h.ctx.ts, e->ctx.ts));
	cr_assert(eq(u32, h.ctx.thread_id, e->ctx.thread_id));
	cr_assert(eq(u32, h.ctx.process_id, e->ctx.process_id));
	cr_assert(eq(u32, h.ctx.kernel_time, e->ctx.kernel_time));
	cr_assert(eq(u32, h.ctx.user_time, e->ctx.user_time));
}

/* encode_header - @e's header in front of a payload of @plen bytes. */
static int encode_header(const struct example *e, uint8_t *buf, size_t cap, size_t plen)
{
	if (e->header == FULL) {
		struct etl_full_header h = {.arch = e->arch,
					    .size = (uint16_t)(0x30 + plen),
					    .type = (uint8_t)e->hook,
					    .version = e->version,
					    .thread_id = e->ctx.thread_id,
					    .process_id = e->ctx.process_id,
					    .ts = e->ctx.ts,
					    .kernel_time = e->ctx.kernel_time,
					    .user_time = e->ctx.user_time};

		memcpy(h.guid, etw_ktc_guid, 16);
		return etl_encode_full_header(buf, cap, &h);
	}
	const struct etw_event_form form = {(enum etw_header_form)e->header, e->version};

	return etw_encode_event_header(buf, cap, e->arch, e->hook, form, plen, &e->ctx);
}

/* ======================================================================== */
/* Golden records                                                            */
/* ======================================================================== */

TestSuite(golden, .init = make_whole);
TestSuite(lengths, .init = make_whole);

Test(golden, every_example_has_the_form_its_target_writes)
{
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		struct etw_event_form f;

		if (e->header == FULL) {
			continue;
		}
		const struct etw_target *t = etw_target_find(e->target);

		cr_assert(not(eq(ptr, (void *)t, NULL)), "%s", e->target);
		cr_assert(eq(int, etw_image_form(t, e->hook, e->kernel_module, &f), 0), "%s",
			  e->what);
		cr_assert(eq(int, f.header, (int)e->header), "%s", e->what);
		cr_assert(eq(u8, f.version, e->version), "%s", e->what);
	}
}

Test(golden, every_example_encodes_byte_for_byte_header_included)
{
	static uint8_t buf[0x1000];

	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		size_t hlen = header_len(e);
		union fields f;
		int n, h;

		memset(&f, 0, sizeof(f));
		e->fields(&f);
		memset(buf, POISON, sizeof(buf));
		n = encode(e, &f, buf + hlen, sizeof(buf) - hlen);
		cr_assert(eq(int, n, (int)(e->size - hlen)), "%s: payload length", e->what);
		h = encode_header(e, buf, sizeof(buf), (size_t)n);
		cr_assert(eq(int, h, (int)hlen), "%s: header length", e->what);
		ASSERT_BYTES(buf, e->bytes, e->size);
	}
}

Test(golden, every_example_decodes_to_the_fields_the_spec_reads)
{
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		size_t hlen = header_len(e);
		uint8_t *copy = dup_exact(e->bytes, e->size);
		struct etw_payload pl;
		union fields want;

		memset(&want, 0, sizeof(want));
		e->fields(&want);
		assert_header(e);
		decode(e, copy + hlen, e->size - hlen, &pl);
		cr_assert(eq(int, pl.kind, e->kind), "%s", e->what);
		cr_assert(not(eq(ptr, (void *)pl.name, NULL)));
		assert_fields(e, &pl, &want);
		free(copy);
	}
}

Test(golden, the_pdb_guids_read_as_the_spec_prints_them)
{
	char s[ETW_GUID_STR_LEN + 1];
	uint8_t g[16];

	etw_guid_format(smss_pdb_guid, s);
	cr_assert(eq(str, s, "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}"));
	etw_guid_format(etw_ktc_guid, s);
	cr_assert(eq(str, s, "{B3E675D7-2554-4F18-830B-2762732560DE}"));
	cr_assert(eq(int, etw_guid_parse("6048fdb6-2dcd-41c1-8835-594844ce7143", g), 0));
	cr_assert(eq(int, memcmp(g, ntdll_pdb_guid, 16), 0));
	cr_assert(eq(int, etw_guid_parse("{6048FDB6-2DCD-41C1-8835-594844CE7143}", g), 0));
	cr_assert(eq(int, memcmp(g, ntdll_pdb_guid, 16), 0));
	cr_assert(eq(int, etw_guid_parse("{6048FDB6-2DCD-41C1-8835-594844CE7143", g), -EINVAL));
	cr_assert(eq(int, etw_guid_parse("6048FDB6-2DCD-41C1-8835-594844CE714", g), -EINVAL));
	cr_assert(eq(int, etw_guid_parse("6048FDB6-2DCD-41C1-8835-594844CE71433", g), -EINVAL));
	cr_assert(eq(int, etw_guid_parse("6048FDB6-2DCD-41C1-8835_594844CE7143", g), -EINVAL));
	cr_assert(eq(int, etw_guid_parse("6048FDBG-2DCD-41C1-8835-594844CE7143", g), -EINVAL));
}

/* ======================================================================== */
/* Malformed lengths and short buffers                                       */
/* ======================================================================== */

/*
 * frames_from - where a record's run of pointers starts, for the kinds whose
 * length is a number of frames (0 for the others).
 */
static size_t frames_from(const struct example *e)
{
	size_t ptr = e->arch == X64 ? 8 : 4;

	return e->kind == ETW_PAYLOAD_STACK_WALK  ? 0x10
	       : e->kind == ETW_PAYLOAD_STACK_DEF ? ptr
						  : 0;
}

Test(lengths, every_malformed_length_is_refused_without_reading_past_it, .timeout = 30.)
{
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		size_t hlen = header_len(e);
		size_t plen = e->size - hlen;
		size_t from = frames_from(e);
		size_t ptr = e->arch == X64 ? 8 : 4;

		for (size_t n = 0; n < plen + 2 * ptr; n++) {
			uint8_t *copy = dup_exact(e->bytes + hlen, n < plen ? n : plen);
			struct etw_payload pl;
			bool whole = from && n >= from && (n - from) % ptr == 0;

			if (n >= plen && !from) {
				free(copy);
				break; /* longer records of the other kinds: trailing bytes */
			}
			if (n > plen) {
				/* a stack record with bytes after its frames */
				uint8_t *big = calloc(1, n);

				memcpy(big, copy, plen);
				free(copy);
				copy = big;
			}
			decode(e, copy, n, &pl);
			if (whole) {
				struct etw_frames *f = e->kind == ETW_PAYLOAD_STACK_WALK
							       ? &pl.u.sw.frames
							       : &pl.u.sd.frames;

				cr_assert(eq(int, pl.kind, e->kind), "%s at %zu", e->what, n);
				cr_assert(eq(sz, f->n, (n - from) / ptr));
			} else if (n != plen) {
				cr_assert(eq(int, pl.kind, ETW_PAYLOAD_SHORT), "%s cut at %zu",
					  e->what, n);
			}
			free(copy);
		}
	}
}

Test(lengths, every_cap_below_the_length_is_enospc_and_writes_nothing, .timeout = 20.)
{
	static uint8_t buf[0x1000];

	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		size_t plen = e->size - header_len(e);
		union fields f;

		memset(&f, 0, sizeof(f));
		e->fields(&f);
		for (size_t cap = 0; cap < plen; cap++) {
			memset(buf, POISON, plen);
			cr_assert(eq(int, encode(e, &f, buf, cap), -ENOSPC), "%s cap %zu", e->what,
				  cap);
			for (size_t k = 0; k < plen; k++) {
				cr_assert(eq(u8, buf[k], POISON), "%s: byte %zu written", e->what,
					  k);
			}
		}
	}
}

Test(lengths, a_full_header_shorter_than_itself_or_of_another_type_is_refused)
{
	struct etl_full_header h;
	uint8_t rec[sizeof(ktc_none_p)];

	for (size_t n = 0; n < 0x30; n++) {
		uint8_t *copy = dup_exact(ktc_none_p, n);

		cr_assert(eq(int, etl_decode_full_header(copy, n, &h), -EINVAL));
		free(copy);
	}
	memcpy(rec, ktc_none_p, sizeof(rec));
	rec[2] = 0x11; /* PERFINFO64 */
	cr_assert(eq(int, etl_decode_full_header(rec, sizeof(rec), &h), -EINVAL));
	memcpy(rec, ktc_none_p, sizeof(rec));
	rec[0] = 0x2F; /* Size below the header */
	cr_assert(eq(int, etl_decode_full_header(rec, sizeof(rec), &h), -EINVAL));
	memset(&h, 0, sizeof(h));
	h.arch = X64;
	h.size = 0x2F;
	cr_assert(eq(int, etl_encode_full_header(rec, sizeof(rec), &h), -EINVAL));
	h.size = 0x30;
	cr_assert(eq(int, etl_encode_full_header(rec, 0x2F, &h), -ENOSPC));
}

Test(lengths, another_guid_or_version_is_not_decoded_here)
{
	static const uint8_t other[16] = {0x1d, 0x1d, 0xb1, 0x2c};
	struct etw_payload pl;

	etw_decode_classic_payload(other, 0, 2, X64, ktc_id_smss + 0x30, sizeof(ktc_id_smss) - 0x30,
				   &pl);
	cr_assert(eq(int, pl.kind, ETW_PAYLOAD_NONE));
	etw_decode_classic_payload(etw_ktc_guid, 0, 3, X64, ktc_id_smss + 0x30,
				   sizeof(ktc_id_smss) - 0x30, &pl);
	cr_assert(eq(int, pl.kind, ETW_PAYLOAD_NONE));
	etw_decode_classic_payload(etw_ktc_guid, 0x26, 2, X64, ktc_id_smss + 0x30,
				   sizeof(ktc_id_smss) - 0x30, &pl);
	cr_assert(eq(int, pl.kind, ETW_PAYLOAD_NONE), "DbgPPDB is not decoded");
	etw_decode_payload(0x030A, 1, X64, im_load_p + 0x20, sizeof(im_load_p) - 0x20, &pl);
	cr_assert(eq(int, pl.kind, ETW_PAYLOAD_NONE), "Image v1 is not decoded");
}

/* ======================================================================== */
/* What the encoders refuse                                                  */
/* ======================================================================== */

Test(refused, values_a_field_cannot_hold)
{
	static uint8_t buf[0x400];
	static const uint64_t big[] = {0x100000000u};
	static const uint64_t many[ETW_STACK_MAX_FRAMES + 1];
	struct etw_image im = {.image_base = 0x100000000u, .file_name = W("a")};
	struct etw_stack_walk sw = {.frames = FRAMES(big)};
	struct etw_stack_def sd = {.key = 1, .frames = FRAMES(big)};
	struct etw_stack_key sk = {.key = 0x100000000u};
	struct etw_ktc_dbgid kdb = {.image_base = 0x100000000u};

	cr_assert(eq(int, etw_encode_image(buf, sizeof(buf), X86, 3, &im, 0), -EOVERFLOW));
	cr_assert(gt(int, etw_encode_image(buf, sizeof(buf), X86, 3, &im, ETW_ENC_WRAP), 0));
	cr_assert(gt(int, etw_encode_image(buf, sizeof(buf), X64, 3, &im, 0), 0));
	im.signature_level = 12;
	cr_assert(eq(int, etw_encode_image(buf, sizeof(buf), X64, 2, &im, 0), -EINVAL),
		  "v2 has no signature bytes");
	cr_assert(eq(int, etw_encode_image(buf, sizeof(buf), X64, 4, &im, 0), -EINVAL));
	im.signature_level = 0;
	im.reserved0 = 0x10000;
	cr_assert(eq(int, etw_encode_image(buf, sizeof(buf), X64, 3, &im, 0), -EOVERFLOW));
	cr_assert(gt(int, etw_encode_image(buf, sizeof(buf), X64, 2, &im, 0), 0));
	im.reserved0 = 0;
	im.file_name = (struct etw_wstr){(const uint8_t *)"a\0\0\0", 2};
	cr_assert(eq(int, etw_encode_image(buf, sizeof(buf), X64, 3, &im, 0), -EINVAL),
		  "a NUL inside the name");
	cr_assert(eq(int, etw_encode_image_address(buf, sizeof(buf), X86, 1ull << 32, 0),
		     -EOVERFLOW));
	cr_assert(eq(int, etw_encode_stack_walk(buf, sizeof(buf), X86, &sw, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_stack_walk(buf, sizeof(buf), X64, &sw, 0), 0x18));
	sw.frames.n = 0;
	cr_assert(eq(int, etw_encode_stack_walk(buf, sizeof(buf), X64, &sw, 0), -EINVAL));
	sw.frames = FRAMES(many);
	cr_assert(eq(int, etw_encode_stack_walk(buf, 0x2000, X64, &sw, 0), -EINVAL), "193 frames");
	sw.frames.n = ETW_STACK_MAX_FRAMES;
	cr_assert(eq(int, etw_encode_stack_walk(buf, sizeof(buf), X64, &sw, 0), -ENOSPC));
	cr_assert(eq(int, etw_encode_stack_walk(buf, sizeof(buf), X86, &sw, 0), 0x10 + 4 * 192));
	sw.frames.ips = NULL;
	cr_assert(eq(int, etw_encode_stack_walk(buf, sizeof(buf), X86, &sw, 0), -EINVAL));
	cr_assert(eq(int, etw_encode_stack_def(buf, sizeof(buf), X86, &sd, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_stack_key(buf, sizeof(buf), X86, &sk, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_stack_key(buf, sizeof(buf), X86, &sk, ETW_ENC_WRAP), 0x14));
	cr_assert(eq(int, etw_encode_ktc_dbgid(buf, sizeof(buf), X86, true, &kdb, 0), -EOVERFLOW));
	cr_assert(eq(int, etw_encode_ktc_dbgid(buf, sizeof(buf), X64, true, &kdb, 0), 0x0C));
	cr_assert(eq(int, etw_encode_ktc_dbgid(buf, sizeof(buf), X64, false, &kdb, 0), 0x21),
		  "an empty PDB name is its NUL");
	cr_assert(
		eq(int, etw_encode_image(buf, sizeof(buf), (enum etl_arch)7, 3, &im, 0), -EINVAL));
}

/* ======================================================================== */
/* The tables of producer/records/ over the decoded examples                 */
/* ======================================================================== */

/*
 * Each row of a table, at its x64 offset in the record's payload @pl: an
 * integer reads there as wide as its C type, a string or a run of frames
 * starts there, a GUID is the 16 bytes there. @some is false for None.
 */
static unsigned row_checks;

static void check_int(const uint8_t *pl, int at, uint64_t v, size_t width, const char *what)
{
	uint64_t w = 0;

	cr_assert(ge(int, at, 0), "%s has a fixed offset", what);
	for (size_t i = 0; i < width; i++) {
		w |= (uint64_t)pl[at + (int)i] << (8 * i);
	}
	cr_assert(eq(u64, w, v), "%s at 0x%x", what, at);
	row_checks++;
}

static void check_at(const uint8_t *pl, int at, const void *p, const char *what)
{
	if (at != ETW_AT_VAR) {
		cr_assert(eq(ptr, (void *)p, (void *)(pl + at)), "%s at 0x%x", what, at);
	}
	row_checks++;
}

static void check_guid(const uint8_t *pl, int at, const uint8_t *g, const char *what)
{
	cr_assert(eq(int, memcmp(pl + at, g, 16), 0), "%s at 0x%x", what, at);
	row_checks++;
}

static void check_wstr(const uint8_t *pl, int at, struct etw_wstr w, const char *what)
{
	check_at(pl, at, w.units || at == ETW_AT_VAR ? w.le : pl + at, what);
}

static void check_frames(const uint8_t *pl, int at, const struct etw_frames *f, const char *what)
{
	check_at(pl, at, f->le, what);
}

#define CHECK_U(ctype, from, at, what)	    check_int(pl, at, (uint64_t)(from), sizeof(ctype), what)
#define CHECK_HEX(ctype, from, at, what)    CHECK_U(ctype, from, at, what)
#define CHECK_WSTR(ctype, from, at, what)   check_wstr(pl, at, from, what)
#define CHECK_FRAMES(ctype, from, at, what) check_frames(pl, at, from, what)
#define CHECK_GUID(ctype, from, at, what)   check_guid(pl, at, from, what)
#define CHECK_ASTR(ctype, from, at, what)   check_at(pl, at, from, what)
#define CHECK_ROW(x, name, ctype, json, jwhen, from, at64, at32, what)                             \
	if (jwhen) {                                                                               \
		CHECK_##json(ctype, from, at64, what);                                             \
	}

Test(tables, every_row_is_at_its_offset_in_the_real_records)
{
	row_checks = 0;
	for (size_t i = 0; i < ARRAY_LEN(examples); i++) {
		const struct example *e = &examples[i];
		const uint8_t *pl = e->bytes + header_len(e);
		struct etw_payload got;
		unsigned ver = e->version;
		bool some = e->kind != ETW_PAYLOAD_KTC_DBGID_NONE;

		(void)ver;
		(void)some;
		if (e->arch != X64) {
			continue;
		}
		decode(e, pl, e->size - header_len(e), &got);
		switch (e->kind) {
		case ETW_PAYLOAD_IMAGE: {
			const struct etw_image *w = &got.u.im;

			ETW_IMAGE_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_IMAGE_ADDRESS: {
			const uint64_t *w = &got.u.address;

			ETW_IMAGE_ADDRESS_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_STACK_WALK: {
			const struct etw_stack_walk *w = &got.u.sw;

			ETW_STACK_WALK_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_STACK_KEY: {
			const struct etw_stack_key *w = &got.u.sk;

			ETW_STACK_KEY_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_STACK_DEF: {
			const struct etw_stack_def *w = &got.u.sd;

			ETW_STACK_DEF_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_KTC_IMAGE_ID: {
			const struct etw_ktc_image_id *w = &got.u.kid;

			ETW_KTC_IMAGE_ID_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_KTC_DBGID:
		case ETW_PAYLOAD_KTC_DBGID_NONE: {
			const struct etw_ktc_dbgid *w = &got.u.kdb;

			ETW_KTC_DBGID_FIELDS(CHECK_ROW, )
			break;
		}
		case ETW_PAYLOAD_KTC_FILE_VERSION: {
			const struct etw_ktc_file_version *w = &got.u.kfv;

			ETW_KTC_FILE_VERSION_FIELDS(CHECK_ROW, )
			break;
		}
		default:
			break;
		}
	}
	cr_assert(eq(u32, row_checks, 105), "every row of every x64 example");
}

/* ======================================================================== */
/* The real files                                                            */
/* ======================================================================== */

/* The counts STACK_IMAGE_FACTS 0.3 gives for a file. */
struct counts {
	unsigned load, unload, dcstart_sys, dcstart_perf, dcend_sys, dcend_perf, kernel_base,
		hypercall;
	unsigned walk, key_create, key_delete, key_rundown, key_kernel, key_user;
	unsigned ktc_image_id, ktc_rsds, ktc_ilrsds, ktc_none, ktc_file_version;
	unsigned image_v2, image_v3;
	unsigned frames_max;
};

static bool is_kernel(uint64_t a)
{
	return a >= 0xFFFF800000000000u;
}

/* count_image - one image record, with the size rule of SIF 2.2 and its header rule (2.3). */
static void count_image(const struct etl_record *r, const struct etw_payload *pl, struct counts *c)
{
	bool sys = r->kind == ETL_KIND_SYSTEM;
	size_t hlen = sys ? 0x20 : 0x10;

	cr_assert(eq(sz, r->size, hlen + 0x38 + 2 * (pl->u.im.file_name.units + 1)),
		  "size rule at 0x%llx", (unsigned long long)r->file_offset);
	cr_assert(eq(u32, pl->u.im.image_size % 0x1000, 0));
	for (unsigned i = 0; i < ETW_IMAGE_RESERVED_N; i++) {
		cr_assert(eq(u32, pl->u.im.reserved[i], 0));
	}
	c->image_v2 += r->version == 2;
	c->image_v3 += r->version == 3;
	switch (r->hook_id) {
	case 0x030A:
		cr_assert(eq(int, sys, 1));
		c->load++;
		break;
	case 0x1402:
		cr_assert(eq(int, sys, 1));
		c->unload++;
		break;
	case 0x1403:
		/* a kernel module's rundown is SYSTEM with PID 0, a process's PERFINFO */
		cr_assert(eq(int, sys, pl->u.im.process_id == 0));
		cr_assert(eq(int, sys || pl->u.im.time_date_stamp == 0, 1));
		sys ? c->dcstart_sys++ : c->dcstart_perf++;
		break;
	case 0x1404:
		cr_assert(eq(int, sys, pl->u.im.process_id == 0));
		sys ? c->dcend_sys++ : c->dcend_perf++;
		break;
	}
}

static void count_stack(const struct etl_record *r, const struct etw_payload *pl, struct counts *c)
{
	const struct etw_frames *f = NULL;

	cr_assert(eq(int, r->kind, ETL_KIND_PERFINFO));
	cr_assert(eq(u8, r->version, 2));
	switch (r->hook_id) {
	case 0x1820:
		c->walk++;
		f = &pl->u.sw.frames;
		cr_assert(eq(sz, f->n, (r->size - 0x20u) / 8));
		cr_assert(lt(u64, pl->u.sw.event_ts, r->ts), "its own TS is later");
		break;
	case 0x1822:
	case 0x1823:
	case 0x1824:
		f = &pl->u.sd.frames;
		cr_assert(ge(sz, f->n, 4), "a definition holds >= 4 frames");
		cr_assert(eq(int, is_kernel(pl->u.sd.key), 1));
		cr_assert(eq(u64, pl->u.sd.key % 16, 0));
		r->hook_id == 0x1822   ? c->key_create++
		: r->hook_id == 0x1823 ? c->key_delete++
				       : c->key_rundown++;
		break;
	case 0x1825:
	case 0x1826:
		cr_assert(eq(u16, r->size, 40));
		cr_assert(lt(u64, pl->u.sk.event_ts, r->ts));
		r->hook_id == 0x1825 ? c->key_kernel++ : c->key_user++;
		break;
	}
	if (f && f->n > c->frames_max) {
		c->frames_max = (unsigned)f->n;
	}
	if (f && r->hook_id == 0x1820) {
		/* a plain StackWalk is all kernel or all user frames */
		for (size_t i = 1; i < f->n; i++) {
			cr_assert(eq(int, is_kernel(etw_frame(f, X64, i)),
				     is_kernel(etw_frame(f, X64, 0))));
		}
	}
}

static void count_ktc(const struct etl_record *r, struct counts *c)
{
	struct etl_full_header h;
	struct etw_payload pl;

	cr_assert(eq(int, etl_decode_full_header(r->data, r->size, &h), 0x30));
	if (memcmp(h.guid, etw_ktc_guid, 16) != 0) {
		return;
	}
	etw_decode_classic_payload(h.guid, h.type, h.version, X64, r->data + 0x30, r->size - 0x30u,
				   &pl);
	cr_assert(not(eq(int, pl.kind, ETW_PAYLOAD_SHORT)), "KTC type %u at 0x%llx", h.type,
		  (unsigned long long)r->file_offset);
	switch (pl.kind) {
	case ETW_PAYLOAD_KTC_IMAGE_ID:
		cr_assert(eq(u32, pl.u.kid.process_id, h.process_id));
		c->ktc_image_id++;
		break;
	case ETW_PAYLOAD_KTC_DBGID:
		cr_assert(eq(u32, pl.u.kdb.process_id, h.process_id));
		h.type == 0x24 ? c->ktc_rsds++ : c->ktc_ilrsds++;
		if (h.type == 0x25 && pl.u.kdb.image_base == 0x5DF0000u && h.process_id == 3988) {
			/* SIF 6.5, P b13+0xB3E0 */
			cr_assert(eq(u16, h.size, 181));
			cr_assert(eq(u32, pl.u.kdb.age, 1));
			cr_assert(eq(
				str, (char *)pl.u.kdb.pdb_file_name,
				"E:\\A\\_work\\622\\s\\src\\FastSerialization\\obj\\Release\\net45"
				"\\Microsoft.Diagnostics.FastSerialization.pdb"));
		}
		break;
	case ETW_PAYLOAD_KTC_DBGID_NONE:
		cr_assert(eq(u16, h.size, 60));
		c->ktc_none++;
		break;
	case ETW_PAYLOAD_KTC_FILE_VERSION:
		c->ktc_file_version++;
		break;
	default:
		cr_fail("KTC type %u v%u not decoded", h.type, h.version);
	}
	cr_assert(eq(u8, h.level, 0));
}

static void count_file(const char *name, struct counts *c)
{
	const char *dir = getenv("ETWFORGE_SAMPLES");
	struct etl_error err;
	struct etl_reader *d;
	char path[1024];

	cr_assert(not(eq(ptr, (void *)dir, NULL)));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	d = etl_reader_open_file(path, &err);
	cr_assert(not(eq(ptr, d, NULL)), "%s", err.msg);
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		struct etl_record r;
		size_t pos = 0;
		int rc;

		while ((rc = etl_buffer_next(d, b, &pos, &r, &err)) > 0) {
			struct etw_payload pl;
			bool bad;

			if (r.kind == ETL_KIND_FULL) {
				count_ktc(&r, c);
				continue;
			}
			if (r.kind != ETL_KIND_SYSTEM && r.kind != ETL_KIND_PERFINFO) {
				continue;
			}
			etw_decode_payload(r.hook_id, r.version, ETL_ARCH_X64, r.payload,
					   r.payload_len, &pl);
			switch (pl.kind) {
			case ETW_PAYLOAD_IMAGE:
				count_image(&r, &pl, c);
				break;
			case ETW_PAYLOAD_IMAGE_ADDRESS:
				cr_assert(eq(u16, r.size, 0x18));
				r.hook_id == 0x1421 ? c->kernel_base++ : c->hypercall++;
				break;
			case ETW_PAYLOAD_STACK_WALK:
			case ETW_PAYLOAD_STACK_KEY:
			case ETW_PAYLOAD_STACK_DEF:
				count_stack(&r, &pl, c);
				break;
			case ETW_PAYLOAD_SHORT:
				bad = (r.hook_id & 0xFF00) == 0x1400 ||
				      (r.hook_id & 0xFF00) == 0x1800 || r.hook_id == 0x030A;
				cr_assert(eq(int, bad, 0), "hook 0x%04x at 0x%llx does not decode",
					  r.hook_id, (unsigned long long)r.file_offset);
				break;
			default:
				break;
			}
		}
		cr_assert(eq(int, rc, 0), "%s", err.msg);
	}
	etl_reader_close(d);
}

Test(samples, perfview_every_image_stack_and_ktc_record_decodes, .timeout = 120.)
{
	struct counts c;

	count_file("perfview_net.4.5.2.x64.etl", &c);
	cr_expect(eq(u32, c.load, 35));
	cr_expect(eq(u32, c.unload, 32));
	cr_expect(eq(u32, c.dcstart_sys, 141));
	cr_expect(eq(u32, c.dcstart_perf, 1622));
	cr_expect(eq(u32, c.dcend_sys, 141));
	cr_expect(eq(u32, c.dcend_perf, 1625));
	cr_expect(eq(u32, c.kernel_base, 1));
	cr_expect(eq(u32, c.hypercall, 1));
	cr_expect(eq(u32, c.image_v2, 3596));
	cr_expect(eq(u32, c.image_v3, 0));
	cr_expect(eq(u32, c.walk, 252));
	cr_expect(eq(u32, c.key_create, 0));
	cr_expect(eq(u32, c.key_delete, 1909));
	cr_expect(eq(u32, c.key_rundown, 1012));
	cr_expect(eq(u32, c.key_kernel, 2061));
	cr_expect(eq(u32, c.key_user, 7046));
	cr_expect(eq(u32, c.frames_max, 111), "definitions hold up to 111 frames (SIF 3.5)");
	cr_expect(eq(u32, c.ktc_image_id, 3590));
	cr_expect(eq(u32, c.ktc_rsds, 3534));
	cr_expect(eq(u32, c.ktc_ilrsds, 44));
	cr_expect(eq(u32, c.ktc_none, 12));
	cr_expect(eq(u32, c.ktc_file_version, 705));
}

Test(samples, airbus_every_image_record_decodes_v3, .timeout = 120.)
{
	struct counts c;

	count_file("airbus_ShutdownPerfDiagLogger.etl", &c);
	cr_expect(eq(u32, c.load, 72));
	cr_expect(eq(u32, c.unload, 4791));
	cr_expect(eq(u32, c.dcstart_sys, 196));
	cr_expect(eq(u32, c.dcstart_perf, 6549));
	cr_expect(eq(u32, c.dcend_sys, 193));
	cr_expect(eq(u32, c.dcend_perf, 1952));
	cr_expect(eq(u32, c.kernel_base, 1));
	cr_expect(eq(u32, c.hypercall, 1));
	cr_expect(eq(u32, c.image_v3, 13753));
	cr_expect(eq(u32, c.walk + c.key_kernel + c.key_user + c.key_delete + c.key_rundown, 0));
}
