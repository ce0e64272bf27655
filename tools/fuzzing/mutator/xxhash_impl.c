// SPDX-License-Identifier: MIT
/*
 * tools/fuzzing/mutator/xxhash_impl.c - xxHash's functions compiled from its header,
 * for libetwforge_mutator.a: a fuzz target links the archive alone, without
 * -lxxhash (libxxhash-dev is needed to build it, not to use it). Compiled
 * with hidden visibility, the names are made local in the archive.
 */
#define XXH_STATIC_LINKING_ONLY
#define XXH_IMPLEMENTATION
#include <xxhash.h>
