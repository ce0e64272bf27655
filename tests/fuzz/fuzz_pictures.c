/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_pictures.c - libFuzzer target for `etwforge dump
 * --timeline / --chrome-trace` (tools/cli/dump_sched.c, dump_timeline.c,
 * dump_chrome.c, dump_infer.c): any byte string opened as dump opens it
 * (salvaging, keeping going when its size is odd), walked in one pass into
 * both pictures, written to /dev/null. The whole trace, or (chosen by the
 * size) a window inside it or only the even CPUs. Times come from the file,
 * so a damaged one has them anywhere in int64: nothing may overflow, crash,
 * hang or read out of bounds. Seed it as fuzz_dump.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tools/cli/dump_chrome.h"
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
	static uint8_t even_cpus[SCHED_MAX_CPUS / 8];
	unsigned flags = ETWFORGE_OPEN_SALVAGE | (size & 1 ? ETWFORGE_OPEN_KEEP_GOING : 0);
	struct thread_names names = {NULL, NULL, NULL};
	struct identity ident = {0};
	struct sched_consumer cons[2];
	struct sched_totals tot;
	struct sched_frame fr;
	struct timeline *tl;
	struct chrome *ch;
	struct etwforge_file *f;
	int64_t from = INT64_MIN, to = INT64_MAX;
	unsigned bad_cpu = 0;

	f = etwforge_file_open_mem(data, size, "fuzz", flags, NULL);
	if (!f) {
		return 0;
	}
	if (identity_load(&ident, f) == 0) {
		names.ident = &ident; /* the file's own names, as dump draws them */
	}
	memset(even_cpus, 0x55, sizeof(even_cpus));
	if (sched_frame_init(&fr, f, INT64_MIN, INT64_MAX, NULL, &bad_cpu) < 0) {
		identity_free(&ident);
		etwforge_file_close(f);
		return 0;
	}
	if ((size % 3 == 1 && fr.end_ns > 4) || size % 3 == 2) {
		const uint8_t *mask = NULL;

		if (size % 3 == 1) { /* --from END/4 --to END/2 */
			from = fr.end_ns / 4;
			to = fr.end_ns / 2;
		} else { /* --cpus 0,2,4,... of those the file has */
			for (unsigned c = etwforge_file_info(f)->cpus; c < SCHED_MAX_CPUS; c++) {
				even_cpus[c / 8] &= (uint8_t) ~(1u << (c % 8));
			}
			mask = even_cpus;
		}
		sched_frame_finish(&fr);
		if (sched_frame_init(&fr, f, from, to, mask, &bad_cpu) < 0) {
			identity_free(&ident);
			etwforge_file_close(f);
			return 0;
		}
	}
	if (to == INT64_MAX) {
		to = fr.end_ns;
	}
	if (to <= (from == INT64_MIN ? 0 : from)) { /* dump: the trace ends before --from */
		sched_frame_finish(&fr);
		identity_free(&ident);
		etwforge_file_close(f);
		return 0;
	}
	tl = timeline_new(&fr, &names, from == INT64_MIN ? 0 : from, to);
	ch = chrome_new(&fr, &names, null_out());
	if (tl && ch) {
		cons[0] = (struct sched_consumer){&timeline_ops, tl};
		cons[1] = (struct sched_consumer){&chrome_ops, ch};
		if (sched_walk(f, &fr, cons, 2, flags & ETWFORGE_OPEN_KEEP_GOING, &tot, NULL) >=
		    0) {
			timeline_write(tl, &tot, null_out());
			chrome_finish(ch);
		}
	}
	timeline_free(tl);
	chrome_free(ch);
	sched_frame_finish(&fr);
	identity_free(&ident);
	etwforge_file_close(f);
	return 0;
}
