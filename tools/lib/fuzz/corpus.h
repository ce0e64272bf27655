/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fuzz/corpus.h - `etwforge corpus` (corpus.c): the catalogue or
 * the mangled set written out with expected decodes, MANIFEST.jsonl, the
 * dictionary and the OSS-Fuzz zip. etwforge_corpus_write() hands through.
 */
#ifndef ETWFORGE_TOOLS_LIB_FUZZ_CORPUS_H
#define ETWFORGE_TOOLS_LIB_FUZZ_CORPUS_H

#include "etwforge/etwforge.h"

/** fuzz_corpus_write - etwforge_corpus_write(). */
int fuzz_corpus_write(const char *dir, const struct etwforge_corpus_opts *opts,
		      struct etwforge_corpus_summary *sum, struct etwforge_error *err);

#endif
