/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_events.c - libFuzzer target for the per-CPU event streams
 * (tools/lib/event_stream.c, producer/ccswap_expand.c): open any byte string as an
 * ETL file and walk every CPU's CSwitch, compact-batch and SpinLock events,
 * expanding batches (TidTable indices, running deltas, the new thread from
 * the next switch across batches). Must end cleanly, never crash, read out
 * of bounds or hang. Seed it with files from `etwforge replay` / `gen`
 * (small buffers, x86 and x64), whose batches reach the expansion code.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tools/lib/event_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

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
