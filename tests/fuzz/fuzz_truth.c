/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_truth.c - libFuzzer target for the truth reader's record
 * lines (tools/lib/truth_read.c, truth_fast.c), differential: the input
 * (after its first byte, which picks one of three meta lines) is read
 * twice, with the fast path and with jansson alone, and the two must give
 * the same records and the same one-line errors. Nothing may crash, read
 * out of bounds or hang. Seed it with lines of `etwforge gen --truth`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/truth_step.h"
#include "tools/lib/truth/truth.h"
#include "tools/lib/truth/truth_fast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const metas[] = {
	"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":4,\"sessions\":"
	"[{\"name\":\"q\",\"flags\":[\"cswitch\",\"compact_cswitch\",\"spinlock\"]}]}\n",
	"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":2,\"target\":"
	"\"win11-22h2\",\"sessions\":[{\"name\":\"q\",\"pebs\":true,\"pmc\":{\"counters\":"
	"[\"A\",\"B\"],\"events\":[\"0x0525\"]}},{\"name\":\"p\",\"clock\":\"cycles\",\"flags\":"
	"[\"cswitch\",\"spinlock\"],\"pmc\":{\"counters\":[\"B\",\"C\",\"C\"],\"events\":"
	"[\"0x0524\",\"0x0529\"]}}]}\n",
	"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"arch\":\"x86\","
	"\"sessions\":[{\"flags\":[\"spinlock\"]}]}\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static struct truth_step a, b;
	struct trace_config ca, cb;
	struct truth_reader *fast, *slow;
	struct etwforge_error e = {0};
	FILE *f;

	if (size < 1) {
		return 0;
	}
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz_truth.%ld.jsonl", (long)getpid());
	}
	f = fopen(path, "w");
	if (!f) {
		return 0;
	}
	fputs(metas[data[0] % 3], f);
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	fast = truth_open(path, &ca, &e);
	slow = truth_open(path, &cb, &e);
	if (!fast || !slow) {
		__builtin_trap(); /* the meta lines are good */
	}
	truth_reader_fast(slow, false);
	for (unsigned i = 0; i < 100000; i++) {
		truth_step_next(fast, &a);
		truth_step_next(slow, &b);
		/* the record is compared when there is one (after an error it is not defined) */
		if (a.rc != b.rc || strcmp(a.e.msg, b.e.msg) || strchr(a.e.msg, '\n') ||
		    (a.rc >= 0 &&
		     (strcmp(a.name, b.name) || memcmp(&a.rec, &b.rec, sizeof(a.rec))))) {
			fprintf(stderr, "fast %d %s\njansson %d %s\n", a.rc, a.e.msg, b.rc,
				b.e.msg);
			__builtin_trap();
		}
		if (a.rc <= 0) {
			break;
		}
	}
	truth_close(fast);
	truth_close(slow);
	return 0;
}
