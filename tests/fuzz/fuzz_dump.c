/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_dump.c - libFuzzer target for what `etwforge dump` does
 * through the public API (tools/lib/api_*.c over the reader and the event
 * streams): open any byte string strictly, salvaging or keeping going
 * (chosen by its size), iterate every event kind in file, CPU and time
 * order, print each as JSON (the --jsonl listing), the file object, and
 * count the file (--stats). Errors must be one line that starts with the
 * file's name; nothing may crash, hang or read out of bounds. Seed it with
 * `etwforge corpus`, `corpus --mangle` and the real samples.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etwforge/etwforge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void check_msg(const struct etwforge_error *err)
{
	const char *msg = etwforge_error_message(err);

	if (strlen(msg) >= 1024 || strchr(msg, '\n') || strncmp(msg, "fuzz: offset 0x", 15) != 0 ||
	    etwforge_error_code(err) >= 0) {
		__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flags[] = {0, ETWFORGE_OPEN_SALVAGE, ETWFORGE_OPEN_KEEP_GOING};
	static struct etwforge_stats *st;
	static struct etwforge_error *err;
	static char json[1 << 16];
	const struct etwforge_event *ev;
	struct etwforge_file *f;
	size_t acc = 0;

	if (!st) {
		st = etwforge_stats_new();
		err = etwforge_error_new();
		if (!st || !err) {
			__builtin_trap();
		}
	}
	f = etwforge_file_open_mem(data, size, "fuzz", flags[size % 3], err);
	if (!f) {
		check_msg(err);
		return 0;
	}
	acc += etwforge_file_json(f, json, sizeof(json));
	for (int order = 0; order <= 2; order++) {
		struct etwforge_iter *it = etwforge_iter_new(
			f, (enum etwforge_order)order,
			order == ETWFORGE_ORDER_TIME ? ETWFORGE_EV_EVENTS : ETWFORGE_EV_ALL, err);
		int rc;

		if (!it) {
			__builtin_trap();
		}
		while ((rc = etwforge_iter_next(it, &ev, err)) != 0) {
			if (rc < 0) {
				check_msg(err);
				continue; /* damage: every order goes on after it */
			}
			acc += etwforge_event_json(ev, ETWFORGE_JSON_RAW, json, sizeof(json));
		}
		etwforge_iter_free(it);
	}
	if (etwforge_file_stats(f, st, err) < 0) {
		check_msg(err);
	}
	acc += etwforge_stats_json(f, st, json, sizeof(json));
	sink = acc;
	etwforge_file_close(f);
	return 0;
}
