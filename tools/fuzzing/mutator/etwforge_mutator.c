// SPDX-License-Identifier: MIT
/*
 * tools/fuzzing/mutator/etwforge_mutator.c - libetwforge_mutator.so: the
 * structure-aware ETL mutator of libetwforge (etwforge_mutator_*) behind
 * the two plug-in interfaces fuzzers load:
 *
 *   AFL++      AFL_CUSTOM_MUTATOR_LIBRARY=.../libetwforge_mutator.so
 *              afl_custom_init / _fuzz / _describe / _deinit
 *   libFuzzer  link the target with -letwforge_mutator:
 *              LLVMFuzzerCustomMutator, LLVMFuzzerCustomCrossOver
 *
 * Written on the public API only (its include path is include/), like the
 * CLI; only the entry points above leave the object. Environment:
 * ETWFORGE_MUTATOR_MANGLE=PERCENT mangles that share of the mutants with
 * one rule of `etwforge corpus --mangle` (default 10: a parser's error
 * paths get broken files that are otherwise valid; 0: every mutant valid).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"

#define EXPORT __attribute__((visibility("default")))

static unsigned mangle_percent(void)
{
	const char *v = getenv("ETWFORGE_MUTATOR_MANGLE");
	unsigned long p = v && *v ? strtoul(v, NULL, 10) : 10;

	return p > 100 ? 100u : (unsigned)p;
}

/* ---- AFL++ (custom mutator API, docs/custom_mutators.md) ----------------------- */

struct afl_mutator {
	struct etwforge_mutator *m;
	uint8_t *buf; /* the mutant handed to AFL++, ours until the next call */
	size_t cap;
};

EXPORT void *afl_custom_init(void *afl, unsigned int seed);
EXPORT size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
			      uint8_t *add_buf, size_t add_buf_size, size_t max_size);
EXPORT const char *afl_custom_describe(void *data, size_t max_description_len);
EXPORT void afl_custom_deinit(void *data);

void *afl_custom_init(void *afl, unsigned int seed)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = seed, .mangle_percent = mangle_percent());
	struct afl_mutator *a = calloc(1, sizeof(*a));

	(void)afl;
	if (!a) {
		return NULL;
	}
	a->m = etwforge_mutator_new(&o, NULL);
	if (!a->m) {
		free(a);
		return NULL;
	}
	return a;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf,
		       uint8_t *add_buf, size_t add_buf_size, size_t max_size)
{
	struct afl_mutator *a = data;
	const uint8_t *out = NULL;
	size_t n =
		etwforge_mutator_mutate(a->m, buf, buf_size, add_buf, add_buf_size, max_size, &out);

	if (n == 0 || !out) {
		*out_buf = buf;
		return buf_size <= max_size ? buf_size : max_size;
	}
	/* a copy AFL++ may keep until our next call, whatever the mutator does meanwhile */
	if (n > a->cap) {
		uint8_t *b = realloc(a->buf, n);

		if (!b) {
			*out_buf = buf;
			return buf_size <= max_size ? buf_size : max_size;
		}
		a->buf = b;
		a->cap = n;
	}
	memcpy(a->buf, out, n);
	*out_buf = a->buf;
	return n;
}

const char *afl_custom_describe(void *data, size_t max_description_len)
{
	static char what[128];
	struct afl_mutator *a = data;
	size_t n = max_description_len < sizeof(what) ? max_description_len : sizeof(what);

	if (n == 0) {
		return "";
	}
	strncpy(what, etwforge_mutator_describe(a->m), n - 1);
	what[n - 1] = '\0';
	return what;
}

void afl_custom_deinit(void *data)
{
	struct afl_mutator *a = data;

	if (a) {
		etwforge_mutator_free(a->m);
		free(a->buf);
		free(a);
	}
}

/* ---- libFuzzer (FuzzerInterface.h) ---------------------------------------------- */

EXPORT size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
				      unsigned int seed);
EXPORT size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
					size_t size2, uint8_t *out, size_t max_out_size,
					unsigned int seed);

static struct etwforge_mutator *lf_mutator(unsigned int seed)
{
	static struct etwforge_mutator *m;

	if (!m) {
		ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = seed,
			      .mangle_percent = mangle_percent());

		m = etwforge_mutator_new(&o, NULL);
	} else {
		etwforge_mutator_reseed(m, seed);
	}
	return m;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct etwforge_mutator *m = lf_mutator(seed);
	const uint8_t *out = NULL;
	size_t n;

	if (!m) {
		return size;
	}
	n = etwforge_mutator_mutate(m, data, size, NULL, 0, max_size, &out);
	if (n == 0 || !out || n > max_size) {
		return size;
	}
	if (out != data) {
		memcpy(data, out, n);
	}
	return n;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size, unsigned int seed)
{
	struct etwforge_mutator *m = lf_mutator(seed);
	const uint8_t *res = NULL;
	size_t n;

	if (!m) {
		return 0;
	}
	n = etwforge_mutator_mutate(m, data1, size1, data2, size2, max_out_size, &res);
	if (n == 0 || !res || n > max_out_size) {
		return 0;
	}
	memcpy(out, res, n);
	return n;
}
