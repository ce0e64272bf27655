/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_events.c - libFuzzer target for the per-CPU event streams
 * (tools/lib/event_stream.c, producer/ccswap_expand.c): open any byte string as an
 * ETL file and walk every CPU's CSwitch, compact-batch and SpinLock events,
 * expanding batches (TidTable indices, running deltas, the new thread from
 * the next switch across batches). Must end cleanly, never crash, read out
 * of bounds or hang. Seed it with files from `etwforge replay` / `gen`
 * (small buffers, x86 and x64), whose batches reach the expansion code.
 * Every batch is also counted by form (etw_ccswap_count_forms, the
 * `dump --stats` path), which must agree with its expansion: the same
 * counts, the same first bad offset.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "producer/etw_layout.h"
#include "tools/lib/read/event_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

/* Count the batch @r both ways; trap when they disagree. */
static void counts_agree(const struct etl_record *r)
{
	uint64_t want[4] = {0}, got[4] = {0};
	size_t want_bad = 0, got_bad = 0;
	struct etw_ccswap_iter it;
	struct etw_cswitch_compact c;
	int want_rc = -EINVAL, got_rc; /* a payload shorter than its header */

	if (etw_ccswap_expand_begin(&it, r->payload, r->payload_len, 40) == 0) {
		while ((want_rc = etw_ccswap_expand_next(&it, &c, &want_bad)) > 0) {
			want[c.form]++;
		}
	}
	got_rc = etw_ccswap_count_forms(r->payload, r->payload_len, got, &got_bad);
	if (got_rc != want_rc || memcmp(got, want, sizeof(got)) != 0 ||
	    (got_rc < 0 && got_bad != want_bad)) {
		__builtin_trap();
	}
}

static void count_every_batch(const struct etl_reader *d)
{
	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		struct etl_record r;
		struct etl_error err;
		size_t pos = 0;

		while (etl_buffer_next(d, b, &pos, &r, &err) > 0) {
			if (r.kind == ETL_KIND_PERFINFO && r.hook_id == ETW_HOOK_CSWITCH_BATCH) {
				counts_agree(&r);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_error err;
	struct dec_cursor c;
	struct dec_event ev;
	struct etl_reader *d;
	unsigned ncpu;
	uint64_t acc = 0;

	d = etl_reader_open_mem(data, size, "fuzz", &err);
	if (!d) {
		return 0;
	}
	count_every_batch(d);
	ncpu = etl_reader_logfile(d)->number_of_processors;
	if (ncpu > 64) {
		ncpu = 64; /* the cursors of CPUs without buffers are empty anyway */
	}
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		for (unsigned kinds = 1; kinds <= 7; kinds++) {
			int r;

			dec_cursor_init(&c, d, cpu, kinds, (uint8_t)(1 + (size % 63)));
			while ((r = dec_cursor_next(&c, &ev, &err)) > 0) {
				acc += ev.file_offset + ev.kind + ev.new_tid;
				if (ev.kind == DEC_EV_COMPACT) {
					acc += ev.u.cc.ts + ev.u.cc.old_tid +
					       (uint64_t)ev.u.cc.old_pri;
				}
			}
			if (r < 0 && (!memchr(err.msg, '\0', sizeof(err.msg)) ||
				      strncmp(err.msg, "fuzz: offset 0x", 15) != 0)) {
				__builtin_trap();
			}
		}
	}
	sink = acc;
	etl_reader_close(d);
	return 0;
}
