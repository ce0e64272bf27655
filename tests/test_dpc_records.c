// SPDX-License-Identifier: MIT
/*
 * tests/test_dpc_records.c - the DPC and ISR records (producer/etw_dpc.h)
 * against golden bytes typed by hand from STACK_IMAGE_FACTS 5's offset
 * table (no real file holds them): DPC 0x0F44, TimerDPC 0x0F45,
 * ThreadedDPC 0x0F42 and ISR 0x0F43 with their PERFINFO64 / PERFINFO32
 * header (version 2, our choice), x64 and x86. Each is encoded to the same
 * bytes, decoded back through etw_decode_payload() field by field (the ISR's
 * unaligned Vector included), refused when short, -ENOSPC with nothing
 * written when the buffer is, and an x86 routine above 4 GiB is refused.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_encode.h"
#include "producer/etw_event.h"
#include "producer/targets.h"

#define POISON 0xAA

#define ASSERT_BYTES(got, want, n)                                                                 \
	do {                                                                                       \
		struct cr_mem got_m_ = {.data = (got), .size = (n)};                               \
		struct cr_mem want_m_ = {.data = (want), .size = (n)};                             \
		cr_assert(eq(mem, got_m_, want_m_));                                               \
	} while (0)

/* x64 TimerDPC: ran from 0x1122334455 to 0x1122334499 in KiTimerExpiration */
static const uint8_t timer_dpc64[] = {
	0x02, 0x00, 0x11, 0xC0,				/* PERFINFO64 marker, version 2 */
	0x20, 0x00,					/* Size 0x20 */
	0x45, 0x0F,					/* HookId 0x0F45 */
	0x99, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, /* TimeStamp: when it returned */
	0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00, /* InitialTime @0 */
	0xAB, 0x80, 0xA0, 0x48, 0x00, 0xF8, 0xFF, 0xFF, /* Routine @8 */
};

/* x86 DPC: a driver's routine at 0x8A001000 */
static const uint8_t dpc32[] = {
	0x02, 0x00, 0x10, 0xC0,				/* PERFINFO32 marker, version 2 */
	0x1C, 0x00,					/* Size 0x10 + 0x0C */
	0x44, 0x0F,					/* HookId 0x0F44 */
	0x10, 0x27, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* TimeStamp 10000 */
	0x88, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* InitialTime @0: 5000 */
	0x00, 0x10, 0x00, 0x8A,				/* Routine @8 */
};

/* x64 ISR: the clock interrupt, vector 0xD1, returned TRUE */
static const uint8_t isr64[] = {
	0x02, 0x00, 0x11, 0xC0,				/* PERFINFO64 */
	0x24, 0x00,					/* Size 0x10 + 0x14 */
	0x43, 0x0F,					/* HookId 0x0F43 */
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* TimeStamp 0x1000 */
	0xF0, 0x0F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* InitialTime 0xFF0 */
	0x2A, 0x22, 0x60, 0x49, 0x00, 0xF8, 0xFF, 0xFF, /* Routine @8 */
	0x01,						/* ReturnValue @0x10 */
	0xD1, 0x00,					/* Vector @0x11, unaligned */
	0x00,						/* Reserved @0x13 */
};

/* x86 ISR: a driver's, vector 0x168 (a u16: both bytes matter) */
static const uint8_t isr32[] = {
	0x02, 0x00, 0x10, 0xC0,				/* PERFINFO32 */
	0x20, 0x00,					/* Size 0x10 + 0x10 */
	0x43, 0x0F,					/* HookId 0x0F43 */
	0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* TimeStamp 0x40 */
	0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* InitialTime 0x30 */
	0x00, 0x20, 0x00, 0x8A,				/* Routine @8 */
	0x00,						/* ReturnValue @0x0C: FALSE */
	0x68, 0x01,					/* Vector @0x0D */
	0x00,						/* Reserved @0x0F */
};

struct example {
	const char *name;
	const uint8_t *bytes;
	size_t size;
	enum etl_arch arch;
	uint16_t hook;
	uint64_t ts;
	struct etw_dpc d;
};

static const struct example examples[] = {
	{"timer_dpc64",
	 timer_dpc64,
	 sizeof(timer_dpc64),
	 ETL_ARCH_X64,
	 0x0F45,
	 0x1122334499ull,
	 {0x1122334455ull, 0xFFFFF80048A080ABull, 0, 0, 0}},
	{"dpc32", dpc32, sizeof(dpc32), ETL_ARCH_X86, 0x0F44, 10000, {5000, 0x8A001000u, 0, 0, 0}},
	{"isr64",
	 isr64,
	 sizeof(isr64),
	 ETL_ARCH_X64,
	 0x0F43,
	 0x1000,
	 {0xFF0, 0xFFFFF8004960222Aull, 1, 0xD1, 0}},
	{"isr32",
	 isr32,
	 sizeof(isr32),
	 ETL_ARCH_X86,
	 0x0F43,
	 0x40,
	 {0x30, 0x8A002000u, 0, 0x168, 0}},
};

Test(dpc_records, encode_the_golden_bytes)
{
	const struct etw_target *t = etw_target_find("win10-1903");

	cr_assert_not_null(t);
	for (size_t k = 0; k < sizeof(examples) / sizeof(examples[0]); k++) {
		const struct example *e = &examples[k];
		bool isr = e->hook == 0x0F43;
		struct etw_event_form form;
		struct etw_event_ctx ctx = {.ts = e->ts};
		uint8_t buf[64];
		int h, n;

		memset(buf, POISON, sizeof(buf));
		cr_assert_eq(etw_event_form_for(t, e->hook, &form), 0, "%s", e->name);
		cr_assert_eq(form.header, ETW_HEADER_PERFINFO, "%s: a PERFINFO header", e->name);
		n = etw_encode_dpc(buf + 0x10, sizeof(buf) - 0x10, e->arch, isr, &e->d, 0);
		cr_assert_eq(n, (int)(e->size - 0x10), "%s: payload length", e->name);
		h = etw_encode_event_header(buf, sizeof(buf), e->arch, e->hook, form, (size_t)n,
					    &ctx);
		cr_assert_eq(h, 0x10, "%s", e->name);
		ASSERT_BYTES(buf, e->bytes, e->size);
		cr_assert_eq(buf[e->size], POISON, "%s: nothing past the record", e->name);
	}
}

Test(dpc_records, decode_the_golden_bytes)
{
	for (size_t k = 0; k < sizeof(examples) / sizeof(examples[0]); k++) {
		const struct example *e = &examples[k];
		bool isr = e->hook == 0x0F43;
		struct etw_payload pl;

		etw_decode_payload(e->hook, 2, e->arch, e->bytes + 0x10, e->size - 0x10, &pl);
		cr_assert_eq(pl.kind, isr ? ETW_PAYLOAD_ISR : ETW_PAYLOAD_DPC, "%s", e->name);
		cr_assert_eq(pl.u.dpc.initial_time, e->d.initial_time, "%s", e->name);
		cr_assert_eq(pl.u.dpc.routine, e->d.routine, "%s", e->name);
		cr_assert_eq(pl.u.dpc.return_value, e->d.return_value, "%s", e->name);
		cr_assert_eq(pl.u.dpc.vector, e->d.vector, "%s", e->name);
		cr_assert_eq(pl.u.dpc.reserved, 0, "%s", e->name);
		cr_assert_str_eq(pl.name, isr ? "ISR" : e->hook == 0x0F45 ? "TimerDPC" : "DPC");
		/* another version is not ours to read */
		etw_decode_payload(e->hook, 3, e->arch, e->bytes + 0x10, e->size - 0x10, &pl);
		cr_assert_eq(pl.kind, ETW_PAYLOAD_NONE, "%s: v3", e->name);
	}
}

Test(dpc_records, threaded_dpc_reads_as_a_dpc)
{
	/* 0x0F42 has the DPC's layout: timer_dpc64's payload under the other hook */
	struct etw_payload pl;

	etw_decode_payload(0x0F42, 2, ETL_ARCH_X64, timer_dpc64 + 0x10, 0x10, &pl);
	cr_assert_eq(pl.kind, ETW_PAYLOAD_DPC);
	cr_assert_str_eq(pl.name, "ThreadedDPC");
	cr_assert_eq(pl.u.dpc.routine, 0xFFFFF80048A080ABull);
}

Test(dpc_records, short_payloads_and_buffers_are_refused)
{
	for (size_t k = 0; k < sizeof(examples) / sizeof(examples[0]); k++) {
		const struct example *e = &examples[k];
		bool isr = e->hook == 0x0F43;
		size_t len = e->size - 0x10;
		uint8_t buf[32];

		for (size_t n = 0; n < len; n++) {
			uint8_t *p = malloc(n ? n : 1);
			struct etw_payload pl;

			cr_assert_not_null(p);
			memcpy(p, e->bytes + 0x10, n);
			etw_decode_payload(e->hook, 2, e->arch, p, n, &pl);
			cr_assert_eq(pl.kind, ETW_PAYLOAD_SHORT, "%s: %zu bytes", e->name, n);
			free(p);
			memset(buf, POISON, sizeof(buf));
			cr_assert_eq(etw_encode_dpc(buf, n, e->arch, isr, &e->d, 0), -ENOSPC);
			cr_assert_eq(buf[0], POISON);
		}
	}
}

Test(dpc_records, x86_routine_above_4gib_is_refused)
{
	struct etw_dpc d = {.initial_time = 1, .routine = 0x100000000ull};
	uint8_t buf[32];

	cr_assert_eq(etw_encode_dpc(buf, sizeof(buf), ETL_ARCH_X86, false, &d, 0), -EOVERFLOW);
	cr_assert_eq(etw_encode_dpc(buf, sizeof(buf), ETL_ARCH_X86, true, &d, ETW_ENC_WRAP), 0x10);
	cr_assert_eq(etw_encode_dpc(buf, sizeof(buf), ETL_ARCH_X64, false, &d, 0), 0x10);
}
