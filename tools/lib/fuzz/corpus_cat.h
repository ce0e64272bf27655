/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fuzz/corpus_cat.h - the catalogue of named edge cases
 * (corpus_cat.c): each a truth stream encoded by replay_mem() into valid
 * ETL files.
 */
#ifndef ETWFORGE_TOOLS_LIB_FUZZ_CORPUS_CAT_H
#define ETWFORGE_TOOLS_LIB_FUZZ_CORPUS_CAT_H

#include "tools/lib/common/error.h"
#include "tools/lib/fuzz/corpus_set.h"

/**
 * corpus_build_valid - build every edge case of the catalogue (streams and
 * files; expected decodes and offsets not yet). Deterministic in @seed.
 * Return: 0, or a negative errno with @err (a catalogue entry that the
 * engine refuses: a bug).
 */
int corpus_build_valid(struct corpus *c, uint64_t seed, struct etwforge_error *err);

/** corpus_pending_list - the catalogue entries that cannot be made yet (*@n of them). */
const struct corpus_pending *corpus_pending_list(unsigned *n);

#endif
