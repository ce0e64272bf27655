/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/suggest.h - "did you mean" for names (suggest.c).
 */
#ifndef ETWFORGE_TOOLS_LIB_COMMON_SUGGEST_H
#define ETWFORGE_TOOLS_LIB_COMMON_SUGGEST_H

#include <stddef.h>

/**
 * suggest_name - the name in @cands (NULLs skipped) closest to @s ignoring
 * case, within an edit distance of 1 (2 for names of 6 bytes or more).
 * Return: that name, or NULL if none is close.
 */
const char *suggest_name(const char *s, const char *const *cands, unsigned n);

/** join_names - "a, b, c" of @names (NULLs skipped) into @buf, cut at @len. */
void join_names(char *buf, size_t len, const char *const *names, unsigned n);

#endif
