/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_pictures.c - libFuzzer target for `etwforge dump
 * --timeline / --chrome-trace / --flamegraph / --folded` (tools/cli/draw.c,
 * dump_timeline.c, dump_chrome.c, dump_flame.c over the library's
 * analysis: its images, stacks and call tree too): any byte string opened
 * as dump opens it (salvaging, keeping going when its size is odd), read
 * in one pass into the pictures, written to /dev/null. The whole trace, or
 * (chosen by the size) a window inside it or only the even CPUs. Times come
 * from the file, so a damaged one has them anywhere in int64: nothing may
 * overflow, crash, hang or read out of bounds. Seed it as fuzz_dump.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tools/cli/draw.h"
#include "tools/cli/dump_chrome.h"
#include "tools/cli/dump_flame.h"
#include "tools/cli/dump_timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *null_out(void)
{
	static FILE *f;

	if (!f) {
		f = fopen("/dev/null", "w");
		if (!f) {
			__builtin_trap();
		}
	}
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t even_cpus[65536 / 8];
	unsigned flags = ETWFORGE_OPEN_SALVAGE | (size & 1 ? ETWFORGE_OPEN_KEEP_GOING : 0);
	struct draw_request rq = {.keep_going = flags & ETWFORGE_OPEN_KEEP_GOING, .samples = true};
	struct thread_names names = {NULL, NULL, NULL};
	struct draw_view v = {0};
	struct timeline *tl;
	struct chrome *ch;
	struct etwforge_file *f;
	unsigned bad_cpu = 0;
	bool past_end;

	f = etwforge_file_open_mem(data, size, "fuzz", flags, NULL);
	if (!f) {
		return 0;
	}
	if (size % 3 == 1) { /* --from END/4 --to END/2, the end from a first look */
		if (draw_open(&v, f, &rq, &names, &past_end, &bad_cpu, NULL) == 0 && v.end_ns > 4) {
			rq.have_from = rq.have_to = true;
			rq.from_ns = v.end_ns / 4;
			rq.to_ns = v.end_ns / 2;
		}
		draw_close(&v);
	} else if (size % 3 == 2) { /* --cpus 0,2,4,... of those the file has */
		memset(even_cpus, 0x55, sizeof(even_cpus));
		for (unsigned c = etwforge_file_info(f)->cpus; c < 65536; c++) {
			even_cpus[c / 8] &= (uint8_t) ~(1u << (c % 8));
		}
		rq.cpu_mask = even_cpus;
	}
	if (draw_open(&v, f, &rq, &names, &past_end, &bad_cpu, NULL) < 0 || past_end) {
		draw_close(&v);
		etwforge_file_close(f);
		return 0;
	}
	tl = timeline_new(&v);
	ch = chrome_new(&v, null_out());
	if (tl && ch && draw_pass(&v, tl, ch, rq.keep_going, NULL) >= 0) {
		timeline_write(tl, null_out());
		chrome_finish(ch);
		flame_svg(null_out(), v.an, "fuzz");
		flame_folded(null_out(), v.an);
	}
	timeline_free(tl);
	chrome_free(ch);
	draw_close(&v);
	etwforge_file_close(f);
	return 0;
}
