/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_hash.h - the XXH3-64 of a file's bytes, the digest every
 * summary gives. Where libxxhash has its x86 dispatcher (AVX2 / AVX-512
 * chosen at run time, the same digest), it is used; it lives only in the
 * shared libxxhash (Debian's libxxhash.a has none), so it is referenced
 * weakly: a program linked statically takes the portable functions.
 */
#ifndef WRITER_ETL_HASH_H
#define WRITER_ETL_HASH_H

#include <stddef.h>
#include <xxhash.h>

#if defined(ETWFORGE_XXH_DISPATCH) && ETWFORGE_XXH_DISPATCH
XXH64_hash_t XXH3_64bits_dispatch(const void *input, size_t len) __attribute__((weak));
XXH_errorcode XXH3_64bits_update_dispatch(XXH3_state_t *state, const void *input, size_t len)
	__attribute__((weak));
#endif

/** etl_xxh3 - XXH3_64bits() of @len bytes at @p. */
static inline XXH64_hash_t etl_xxh3(const void *p, size_t len)
{
#if defined(ETWFORGE_XXH_DISPATCH) && ETWFORGE_XXH_DISPATCH
	if (XXH3_64bits_dispatch) {
		return XXH3_64bits_dispatch(p, len);
	}
#endif
	return XXH3_64bits(p, len);
}

/** etl_xxh3_update - XXH3_64bits_update() of @len bytes at @p into @state. */
static inline XXH_errorcode etl_xxh3_update(XXH3_state_t *state, const void *p, size_t len)
{
#if defined(ETWFORGE_XXH_DISPATCH) && ETWFORGE_XXH_DISPATCH
	if (XXH3_64bits_update_dispatch) {
		return XXH3_64bits_update_dispatch(state, p, len);
	}
#endif
	return XXH3_64bits_update(state, p, len);
}

#endif /* WRITER_ETL_HASH_H */
