// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_mutate.c - (g) of `etwforge bench`: the structure-aware
 * mutator (etwforge_mutator_mutate(), what libetwforge_mutator runs inside
 * AFL++ and libFuzzer) over the valid catalogue of `etwforge corpus`, built
 * in memory, two ways:
 *   stage  each input handed `mutate_stage` times in a row, another input
 *          of the catalogue as the crossover partner: an AFL++ custom
 *          stage (the engine's queue entry, hundreds of mutants)
 *   each   a different input at every call: nothing read before helps
 * Each run makes the same mutants (same seeds, XXH3 of them all checked
 * against the first run) and is timed in CPU time: mutants per second.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "tools/lib/common/error.h"
#include "tools/lib/fuzz/corpus_cat.h"
#include "tools/bench/bench.h"

/* Mutants of one run; @stage: in a row per input. Return: 0 or -ENOMEM. */
static int run_once(const struct corpus *c, unsigned stage, bool in_a_row, uint64_t *mutants,
		    uint64_t *bytes, uint64_t *digest)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 1);
	struct etwforge_mutator *m = etwforge_mutator_new(&o, NULL);
	XXH3_state_t *h = XXH3_createState();
	unsigned n = c->n;

	if (!m || !h) {
		etwforge_mutator_free(m);
		XXH3_freeState(h);
		return -ENOMEM;
	}
	XXH3_64bits_reset(h);
	*mutants = *bytes = 0;
	for (unsigned k = 0; k < n * stage; k++) {
		/* stage: input k / stage; each: input k % n, so every call another */
		unsigned i = in_a_row ? k / stage : k % n, j = (i + 1 + k % 7) % n;
		const struct corpus_file *in = &c->files[i], *other = &c->files[j];
		const uint8_t *out = NULL;
		size_t len;

		etwforge_mutator_reseed(m, k);
		len = etwforge_mutator_mutate(m, in->data, in->len, other->data, other->len,
					      1u << 20, &out);
		if (len && out) {
			XXH3_64bits_update(h, out, len);
		}
		*bytes += len;
		(*mutants)++;
	}
	*digest = XXH3_64bits_digest(h);
	XXH3_freeState(h);
	etwforge_mutator_free(m);
	return 0;
}

int bench_mutate(struct bench *b, const struct bench_size *sz, struct etwforge_error *err)
{
	static const char *const way[2] = {"stage", "each"};
	double rate[2][BENCH_MAX_RUNS];
	uint64_t mutants = 0, bytes[2] = {0, 0}, first[2] = {0, 0}, in_bytes = 0;
	struct corpus c = {0};
	struct bench_work *w;
	unsigned inputs;
	int rc;

	bench_progress(b, "mutate: the catalogue (building it)");
	rc = corpus_build_valid(&c, 1, err);
	if (rc < 0) {
		corpus_free(&c);
		return rc;
	}
	if (c.n < 2) {
		corpus_free(&c);
		return error_fail(err, -EIO, ERR_DATA, "mutate: the catalogue has %u files", c.n);
	}
	inputs = c.n;
	for (unsigned i = 0; i < c.n; i++) {
		in_bytes += c.files[i].len;
	}
	bench_progress(b, "mutate: mutants of every file");
	for (unsigned r = 0; r < sz->runs && rc == 0; r++) {
		for (unsigned v = 0; v < 2 && rc == 0; v++) {
			uint64_t digest;
			double t0 = bench_cpu_s(), t;

			rc = run_once(&c, sz->mutate_stage, v == 0, &mutants, &bytes[v], &digest);
			t = bench_cpu_s() - t0;
			if (rc < 0) {
				rc = error_fail(err, rc, ERR_DATA, "mutate: %s", strerror(-rc));
			} else if (r == 0) {
				first[v] = digest;
			} else if (digest != first[v]) {
				rc = error_fail(err, -EIO, ERR_DATA,
						"mutate.%s: run %u made other mutants than run 1",
						way[v], r + 1);
			}
			rate[v][r] = t > 0 ? (double)mutants / t : 0;
		}
	}
	corpus_free(&c);
	if (rc < 0) {
		return rc;
	}
	bench_figure(b, "mutate.stage.mutants_per_s",
		     "mutator, one input many times in a row (an AFL++ custom stage)", "mutants/s",
		     rate[0], sz->runs);
	bench_figure(b, "mutate.each.mutants_per_s", "mutator, another input at every call",
		     "mutants/s", rate[1], sz->runs);
	w = bench_work_add(b, "mutate",
			   "the valid catalogue of etwforge corpus (seed 1), %u mutants of each "
			   "file per run, 1 MiB at most, another file as the crossover partner",
			   sz->mutate_stage);
	bench_kv_u64(w, "inputs", inputs, 0);
	bench_kv_u64(w, "input_bytes", in_bytes, 0);
	bench_kv_u64(w, "mutants", mutants, 0);
	bench_kv_u64(w, "stage_bytes", bytes[0], 0);
	bench_kv_u64(w, "each_bytes", bytes[1], 0);
	bench_kv_hex(w, "xxh3_stage", first[0]);
	bench_kv_hex(w, "xxh3_each", first[1]);
	return 0;
}
