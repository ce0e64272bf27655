// SPDX-License-Identifier: MIT
/*
 * tests/test_file_roundtrip.c - a file written by the writer holding one
 * event of every kind (CSwitch v2/v4, with PEBS, with PMC items, with both;
 * compact batches with every record form, with PMC items; SpinLock), on two
 * CPUs, for x64 and x86, reads back through the reader byte for byte, with
 * every field decoding to what was encoded.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/test_util.h"
#include "producer/etw_encode.h"
#include "writer/etl_wire.h"
#include "producer/ccswap_expand.h"
#include "writer/etl_reader.h"
#include "tools/lib/run/out_sink.h"
#include "writer/writer.h"

#define MAX_EVENTS 16

struct event {
	unsigned cpu;
	uint8_t bytes[0x500];
	size_t size;
};

static struct event evs[MAX_EVENTS];
static unsigned nevs;

static void add(enum etl_arch arch, unsigned cpu, struct etl_perfinfo_header *h,
		const uint8_t *payload, size_t len)
{
	struct event *e = &evs[nevs++];
	int hl;

	h->arch = arch;
	h->size = (uint16_t)(etl_perfinfo_header_len(h) + len);
	hl = etl_encode_perfinfo_header(e->bytes, sizeof(e->bytes), h);
	cr_assert_gt(hl, 0);
	memcpy(e->bytes + hl, payload, len);
	e->size = h->size;
	e->cpu = cpu;
}

static void cswitch(enum etl_arch arch, unsigned cpu, uint8_t version, bool pebs, unsigned npmc,
		    uint64_t ts)
{
	struct etl_perfinfo_header h = {.version = version, .hook_id = 0x0524, .ts = ts};
	struct etw_cswitch cs = {.new_tid = 0x1000 + (uint32_t)ts,
				 .old_tid = 0x2000,
				 .new_pri = 10,
				 .old_pri = 9,
				 .prev_cstate = 1,
				 .new_pri_decrement = -1,
				 .old_wait_reason = 6,
				 .wait_mode_or_flags = version >= 4 ? 0x55 : 1,
				 .old_state = 5,
				 .old_ideal_cpu = 3,
				 .new_wait_time = 77,
				 .old_remaining_quantum = -12};
	uint8_t p[ETW_CS_LEN];

	h.has_pebs = pebs;
	h.pebs_index = 0xFFFFF80000001000ull + ts;
	h.pmc_count = npmc;
	for (unsigned i = 0; i < npmc; i++) {
		h.pmc[i] = 1000 * (i + 1) + ts;
	}
	cr_assert_eq(etw_encode_cswitch(p, sizeof(p), &cs), ETW_CS_LEN);
	add(arch, cpu, &h, p, sizeof(p));
}

static void batch(enum etl_arch arch, unsigned cpu, unsigned npmc, uint64_t ts)
{
	struct etl_perfinfo_header h = {.version = 2, .hook_id = 0x0525, .ts = ts};
	struct etw_ccswap_buffer b = {.first_ts = (int64_t)ts - 100};
	static const struct etw_ccswap_rec recs[] = {
		{.type = ETW_CCSWAP_IDLE_SHORT, .delta = 0},
		{.type = ETW_CCSWAP_LITE, .delta = 5, .tid_index = 0, .pri_inc = 2, .state_wr = 6},
		{.type = ETW_CCSWAP_FULL,
		 .delta = 0x30000,
		 .tid_index = 1,
		 .priority = 13,
		 .state_wr = 41,
		 .wait_time = 0x1FFFF},
		{.type = ETW_CCSWAP_IDLE, .delta = 0x4000},
	};
	uint8_t p[0x400];
	size_t len;

	b.tid_table[0] = 0x2000;
	b.tid_table[1] = 0x2004;
	b.base_pri[0] = 8;
	b.base_pri[1] = 13;
	cr_assert_eq(etw_encode_ccswap_buffer(p, sizeof(p), &b), ETW_CCB_LEN);
	len = ETW_CCB_LEN;
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		int n = etw_encode_ccswap_rec(p + len, sizeof(p) - len, &recs[i], 0);

		cr_assert_gt(n, 0);
		len += (size_t)n;
	}
	h.pmc_count = npmc;
	for (unsigned i = 0; i < npmc; i++) {
		h.pmc[i] = 7 + i;
	}
	add(arch, cpu, &h, p, len);
}

static void spinlock(enum etl_arch arch, unsigned cpu, uint64_t ts)
{
	struct etl_perfinfo_header h = {.version = 2, .hook_id = 0x0529, .ts = ts};
	struct etw_spinlock sl = {
		.lock_address = arch == ETL_ARCH_X86 ? 0x8a2b3c40u : 0xfffff8031a2b3c40ull,
		.caller_address = arch == ETL_ARCH_X86 ? 0x8a000123u : 0xfffff8031a000123ull,
		.acquire_time = 5000,
		.release_time = 9000,
		.wait_cycles = 777,
		.spin_count = 12,
		.tid = 0x4444,
		.interrupt_count = 1,
		.irql = 2,
		.depth = 1,
		.acquire_mode = 3,
		.execute_dpc = true};
	uint8_t p[ETW_SL64_LEN];
	int n = etw_encode_spinlock(p, sizeof(p), arch, &sl, 0);

	cr_assert_gt(n, 0);
	add(arch, cpu, &h, p, (size_t)n);
}

static void every_kind_reads_back(enum etl_arch arch)
{
	const char *path = test_path(arch == ETL_ARCH_X64 ? "x64.etl" : "x86.etl");
	struct writer_opts wo = {0};
	struct etl_writer *w;
	struct etl_error err;
	struct etl_reader *d;
	unsigned seen = 0;
	nevs = 0;
	cswitch(arch, 0, 2, false, 0, 100);
	cswitch(arch, 0, 4, false, 0, 110);
	cswitch(arch, 1, 2, true, 0, 120);
	cswitch(arch, 1, 4, false, 2, 130);
	cswitch(arch, 0, 4, true, 3, 140);
	batch(arch, 0, 0, 150);
	batch(arch, 1, 2, 160);
	spinlock(arch, 1, 170);
	spinlock(arch, 0, 180);

	wo.path = path;
	wo.arch = arch;
	wo.cpus = 2;
	wo.buffer_size = 4096;
	w = out_writer_create(&wo);
	cr_assert_not_null(w);
	for (unsigned i = 0; i < nevs; i++) {
		cr_assert_eq(writer_write(w, evs[i].cpu, 100 + i, evs[i].bytes, evs[i].size), 0);
	}
	cr_assert_eq(writer_finish(w, 1000, 133000000000001000ll), 0);
	writer_destroy(w);

	d = etl_reader_open_file(path, &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_assert_eq(etl_reader_logfile(d)->pointer_size, arch == ETL_ARCH_X86 ? 4u : 8u);
	/* each CPU's records come back in the order written, byte for byte */
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		unsigned next = 0, n;
		const unsigned *order = etl_reader_cpu_order(d, &n);

		for (unsigned k = 0; k < n; k++) {
			const struct etl_buffer *b = etl_reader_buffer(d, order[k]);
			struct etl_record r;
			size_t pos = 0;
			int rc;

			if (b->processor_index != cpu) {
				continue;
			}
			while ((rc = etl_buffer_next(d, b, &pos, &r, &err)) > 0) {
				while (next < nevs && evs[next].cpu != cpu) {
					next++;
				}
				cr_assert_lt(next, nevs, "an extra record on cpu %u", cpu);
				const struct event *e = &evs[next++];

				cr_assert_eq(r.size, e->size);
				cr_assert_eq(memcmp(r.data, e->bytes, e->size), 0,
					     "record bytes differ");
				cr_assert_eq(r.kind, ETL_KIND_PERFINFO);
				cr_assert_eq(r.is64, arch == ETL_ARCH_X64);
				cr_assert_eq(r.cpu, cpu);
				/* and the payload decodes to what was encoded */
				if (r.hook_id == 0x0524) {
					struct etw_cswitch cs;

					cr_assert_eq(
						etw_decode_cswitch(r.payload, r.payload_len, &cs),
						ETW_CS_LEN);
					cr_assert_eq(cs.old_remaining_quantum, -12);
					cr_assert_eq(cs.new_tid, 0x1000 + r.ts);
				} else if (r.hook_id == 0x0529) {
					struct etw_spinlock sl;

					cr_assert_gt(etw_decode_spinlock(r.payload, r.payload_len,
									 arch, &sl),
						     0);
					cr_assert_eq(sl.spin_count, 12);
					cr_assert(sl.execute_dpc);
				} else {
					struct etw_ccswap_iter it;
					struct etw_cswitch_compact c;
					size_t bad;
					unsigned forms = 0;

					cr_assert_eq(r.hook_id, 0x0525);
					cr_assert_eq(etw_ccswap_expand_begin(&it, r.payload,
									     r.payload_len, 40),
						     0);
					static const enum etw_ccswap_type want[] = {
						ETW_CCSWAP_IDLE_SHORT, ETW_CCSWAP_LITE,
						ETW_CCSWAP_FULL, ETW_CCSWAP_IDLE};

					while (etw_ccswap_expand_next(&it, &c, &bad) == 1) {
						cr_assert_eq(c.form, want[forms]);
						forms++;
					}
					cr_assert_eq(c.old_tid, 0, "the last one is idle");
					cr_assert_eq(forms, 4, "one record of every form");
				}
				seen++;
			}
			cr_assert_eq(rc, 0, "%s", err.msg);
		}
		while (next < nevs && evs[next].cpu != cpu) {
			next++;
		}
		cr_assert_eq(next, nevs, "cpu %u: a record is missing", cpu);
	}
	cr_assert_eq(seen, nevs);
	etl_reader_close(d);
	unlink(path);
}

TestSuite(file_roundtrip, .init = test_dir_make, .fini = test_dir_remove);

Test(file_roundtrip, x64_every_event_kind_reads_back_byte_for_byte)
{
	every_kind_reads_back(ETL_ARCH_X64);
}

Test(file_roundtrip, x86_every_event_kind_reads_back_byte_for_byte)
{
	every_kind_reads_back(ETL_ARCH_X86);
}
