// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_fuzz.c - the public fuzzing calls (the corpus, the
 * mutator), handed to the fuzz room (tools/lib/fuzz/).
 */
#include <errno.h>

#include "tools/lib/api.h"
#include "tools/lib/fuzz/corpus.h"
#include "tools/lib/fuzz/mutate.h"

int etwforge_corpus_write(const char *dir, const struct etwforge_corpus_opts *opts,
			  struct etwforge_corpus_summary *sum, struct etwforge_error *err)
{
	struct etwforge_corpus_opts o;
	struct etwforge_corpus_summary s;
	int rc = sized_in(&o, sizeof(o), opts, SIZED_FIRST_END(struct etwforge_corpus_opts, seed),
			  "struct etwforge_corpus_opts", err);

	if (rc == 0 && sum) {
		rc = sized_check(sum, sizeof(s),
				 SIZED_FIRST_END(struct etwforge_corpus_summary, files),
				 "struct etwforge_corpus_summary", err);
	}
	if (rc < 0) {
		return rc;
	}
	rc = fuzz_corpus_write(dir, &o, sum ? &s : NULL, err);
	if (rc == 0 && sum) {
		sized_out(sum, &s, sizeof(s));
	}
	return rc;
}

struct etwforge_mutator *etwforge_mutator_new(const struct etwforge_mutator_opts *opts,
					      struct etwforge_error *err)
{
	struct etwforge_mutator_opts o;
	struct etwforge_mutator *m;
	int rc = sized_in(&o, sizeof(o), opts, SIZED_FIRST_END(struct etwforge_mutator_opts, seed),
			  "struct etwforge_mutator_opts", err);

	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	m = fuzz_mutator_new(&o);
	if (!m) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	error_ok(err);
	return m;
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
