/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_scenario.c - libFuzzer target for the scenario loader
 * (tools/lib/schema.c, scenario.c, yaml_tree.c): any byte string as a YAML/JSON
 * scenario over the defaults, then scenario_finish() and scenario_print().
 * Every refusal must be one `file:line:col: ...` line; nothing may crash,
 * read out of bounds or hang. Seed it with tools/scenarios/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scenario sc;
	struct etwforge_error e = {0};
	char *text = malloc(size + 1);

	if (!text) {
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;
	scenario_default(&sc);
	if (scenario_load_string(&sc, "fuzz.yaml", text, &e) == 0 &&
	    scenario_finish(&sc, &e) == 0) {
		FILE *f = fopen("/dev/null", "w");

		if (f) {
			scenario_print(f, &sc);
			fclose(f);
		}
	} else if (!memchr(e.msg, '\0', sizeof(e.msg)) || strchr(e.msg, '\n')) {
		__builtin_trap(); /* one line, NUL-terminated */
	}
	free(text);
	return 0;
}
