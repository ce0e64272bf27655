// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_fuzz.c - the public fuzzing calls (the corpus, the
 * mutator), handed to the fuzz room (tools/lib/fuzz/).
 */
#include "tools/lib/api.h"
#include "tools/lib/fuzz/corpus.h"
#include "tools/lib/fuzz/mutate.h"

int etwforge_corpus_write(const char *dir, const struct etwforge_corpus_opts *opts,
			  struct etwforge_corpus_summary *sum, struct etwforge_error *err)
{
	return fuzz_corpus_write(dir, opts, sum, err);
}

struct etwforge_mutator *etwforge_mutator_new(const struct etwforge_mutator_opts *opts)
{
	return fuzz_mutator_new(opts);
}

void etwforge_mutator_reseed(struct etwforge_mutator *m, uint64_t seed)
{
	fuzz_mutator_reseed(m, seed);
}

size_t etwforge_mutator_mutate(struct etwforge_mutator *m, const uint8_t *in, size_t len,
			       const uint8_t *other, size_t other_len, size_t max,
			       const uint8_t **out)
{
	return fuzz_mutator_mutate(m, in, len, other, other_len, max, out);
}

const char *etwforge_mutator_describe(const struct etwforge_mutator *m)
{
	return fuzz_mutator_describe(m);
}

void etwforge_mutator_free(struct etwforge_mutator *m)
{
	fuzz_mutator_free(m);
}
