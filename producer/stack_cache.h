/* SPDX-License-Identifier: MIT */
/*
 * producer/stack_cache.h - the kernel's stack cache as a session with
 * stack caching sees it (STACK_IMAGE_FACTS 3.6): a stack of 4 frames or
 * more is logged as a key reference (0x1825 kernel / 0x1826 user) and the
 * frames once, as the key's definition, when the entry leaves the cache
 * (KeyDelete 0x1823) or at the end of tracing (KeyRundown 0x1824).
 *
 * One cache per session and CPU (a model choice: Windows keeps one per
 * logger; per CPU keeps each CPU's records its own, so `gen --jobs` gives
 * the same bytes). It holds @entries stacks in sets of 4, least recently
 * used out first. Keys are kernel-looking, 16-aligned addresses from the
 * CPU's own range; a key freed by an eviction is taken again only by a
 * stack logged after the eviction's time, so that a reader joining a
 * reference to "the first definition of its key at or after the
 * reference's time" always finds the right one.
 */
#ifndef PRODUCER_STACK_CACHE_H
#define PRODUCER_STACK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define STACK_CACHE_WAYS       4u	 /* entries per set */
#define STACK_CACHE_MAX	       16384u	 /* entries per CPU at most */
#define STACK_CACHE_MIN_FRAMES 4u	 /* ETW_MINIMUM_CACHED_STACK_LENGTH */
#define STACK_CACHE_KEY_STRIDE 0x30u	 /* between two keys of a CPU */
#define STACK_CACHE_KEY_RANGE  0x100000u /* a CPU's range of keys */
#define STACK_CACHE_KEY_BASE64 UINT64_C(0xFFFFFA8303000000)
#define STACK_CACHE_KEY_BASE32 UINT64_C(0x85000000)

struct stack_cache;

/**
 * struct stack_cache_victim - an entry that had to leave the cache: its
 * key and frames, to be defined (0x1823) before anything else is logged.
 * @frames stays valid until the next call on the cache.
 */
struct stack_cache_victim {
	uint64_t key;
	const uint64_t *frames;
	size_t n;
};

/**
 * stack_cache_create - an empty cache of @entries (a multiple of
 * STACK_CACHE_WAYS, at most STACK_CACHE_MAX) whose keys start at @key_base.
 * Return: NULL when out of memory or @entries is not such a number.
 */
struct stack_cache *stack_cache_create(unsigned entries, uint64_t key_base);
void stack_cache_destroy(struct stack_cache *c);

/**
 * stack_cache_key_base - where CPU @cpu's keys start for a 32- or 64-bit
 * kernel (@x86): disjoint ranges of STACK_CACHE_KEY_RANGE bytes.
 */
uint64_t stack_cache_key_base(unsigned cpu, int x86);

/**
 * stack_cache_get - the key of stack @frames[@n] logged at @ts (a time
 * never before the previous call's): the key it already has, or a new
 * entry's, evicting the set's least recently used entry when the set is
 * full (*@victim then says which; its n is 0 otherwise).
 * Return: 1 with *@key set, 0 when the stack is not cached (fewer than
 * STACK_CACHE_MIN_FRAMES frames, or no key free in the CPU's range: log a
 * plain StackWalk), -ENOMEM.
 */
int stack_cache_get(struct stack_cache *c, const uint64_t *frames, size_t n, uint64_t ts,
		    uint64_t *key, struct stack_cache_victim *victim);

/**
 * stack_cache_next - the entries still cached, set by set: start with
 * *@pos 0; each call gives the next one's key and frames. Return: 1, or 0
 * after the last.
 */
int stack_cache_next(const struct stack_cache *c, size_t *pos, uint64_t *key,
		     const uint64_t **frames, size_t *n);

#endif /* PRODUCER_STACK_CACHE_H */
