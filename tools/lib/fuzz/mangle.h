/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fuzz/mangle.h - the mangled set (mangle.c): each a valid file of
 * the corpus with one invariant broken at a known offset, and the rules
 * themselves, which the mutator applies too.
 */
#ifndef ETWFORGE_TOOLS_LIB_FUZZ_MANGLE_H
#define ETWFORGE_TOOLS_LIB_FUZZ_MANGLE_H

#include "tools/lib/common/error.h"
#include "tools/lib/fuzz/corpus_set.h"

/**
 * corpus_build_mangled - replace the valid files of @c by the mangled set,
 * made from them (each rule's base file must be in @c).
 * Return: 0 or a negative errno with @err (ERR_DATA).
 */
int corpus_build_mangled(struct corpus *c, struct etwforge_error *err);

struct mangle_rule;

/** mangle_rule_count - how many rules there are. */
unsigned mangle_rule_count(void);

/** mangle_rule_id - the id of rule @i ("record-size-zero"). */
const char *mangle_rule_id(unsigned i);

/**
 * mangle_apply - apply rule @i to the ETL image @data (@len bytes) in
 * place (it may shrink: *@len is updated). @pick chooses among the places
 * the rule applies to (0 = the first).
 * Sets *@at (the first byte changed) and *@exp (what dump must report).
 * Return: 0, or -ENOENT when the file has no place for the rule.
 */
int mangle_apply(unsigned i, uint8_t *data, size_t *len, uint64_t pick, uint64_t *at,
		 struct corpus_expect *exp);

#endif
