/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_mutator.c - libFuzzer target for the structure-aware
 * mutator (tools/lib/mutate.c): any byte string is an input to mutate
 * (seeded by its hash; an ETL file is read back into its stream, anything
 * else becomes a made-up stream); the mutant must be a valid ETL file of at
 * most 256 KiB that opens without salvage and whose every event decodes in
 * every order. Seed it with `etwforge corpus` and `corpus --mangle`.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "etwforge/etwforge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct etwforge_mutator *m;
	const struct etwforge_event *ev;
	struct etwforge_file *f;
	const uint8_t *out = NULL;
	size_t n;

	if (!m) {
		ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 1);

		m = etwforge_mutator_new(&o, NULL);
		if (!m) {
			__builtin_trap();
		}
	}
	etwforge_mutator_reseed(m, XXH64(data, size, 0));
	n = etwforge_mutator_mutate(m, data, size, NULL, 0, 256 * 1024, &out);
	if (n == 0 || n > 256 * 1024 || !out) {
		__builtin_trap(); /* something that fits is always made */
	}
	f = etwforge_file_open_mem(out, n, "mutant", 0, NULL);
	if (!f) {
		__builtin_trap(); /* a mutant that does not open */
	}
	for (int order = 0; order <= 2; order++) {
		struct etwforge_iter *it = etwforge_iter_new(
			f, (enum etwforge_order)order,
			order == ETWFORGE_ORDER_TIME ? ETWFORGE_EV_EVENTS : ETWFORGE_EV_ALL, NULL);
		int rc;

		while (it && (rc = etwforge_iter_next(it, &ev, NULL)) > 0) {
		}
		if (!it || rc < 0) {
			__builtin_trap(); /* a mutant with damage */
		}
		etwforge_iter_free(it);
	}
	etwforge_file_close(f);
	return 0;
}
