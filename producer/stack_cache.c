// SPDX-License-Identifier: MIT
/*
 * producer/stack_cache.c - the stack cache of a session's CPU
 * (stack_cache.h): sets of 4 entries found by the frames' xxh3, least
 * recently used out first, keys drawn from the CPU's range and taken again
 * only after the time they were freed. Allocates when an entry first holds
 * more frames than it did before; a steady state allocates nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "producer/stack_cache.h"

struct sc_entry {
	uint64_t hash;
	uint64_t key;
	uint64_t used; /* the cache's use count when last asked for; 0: empty */
	uint64_t *frames;
	uint32_t n, cap;
};

struct sc_free {
	uint64_t key;
	uint64_t ts; /* when it was freed: taken again only by a later stack */
};

struct stack_cache {
	unsigned nsets;
	struct sc_entry *e; /* [nsets * STACK_CACHE_WAYS] */
	uint64_t key_base;
	uint32_t minted; /* keys drawn from the range so far */
	uint64_t uses;
	struct sc_free *freeq; /* a ring of freed keys, oldest at head */
	size_t fq_head, fq_len, fq_cap;
	uint64_t *victim; /* the last victim's frames (an entry's array, swapped) */
	uint32_t victim_cap;
};

struct stack_cache *stack_cache_create(unsigned entries, uint64_t key_base)
{
	struct stack_cache *c;

	if (entries == 0 || entries % STACK_CACHE_WAYS || entries > STACK_CACHE_MAX) {
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return NULL;
	}
	c->nsets = entries / STACK_CACHE_WAYS;
	c->key_base = key_base;
	c->e = calloc(entries, sizeof(*c->e));
	if (!c->e) {
		free(c);
		return NULL;
	}
	return c;
}

void stack_cache_destroy(struct stack_cache *c)
{
	if (!c) {
		return;
	}
	for (size_t i = 0; i < (size_t)c->nsets * STACK_CACHE_WAYS; i++) {
		free(c->e[i].frames);
	}
	free(c->e);
	free(c->freeq);
	free(c->victim);
	free(c);
}

uint64_t stack_cache_key_base(unsigned cpu, int x86)
{
	return (x86 ? STACK_CACHE_KEY_BASE32 : STACK_CACHE_KEY_BASE64) +
	       (uint64_t)cpu * STACK_CACHE_KEY_RANGE;
}

/* A key for a stack logged at @ts: a freed one from before @ts, else a new one. */
static bool take_key(struct stack_cache *c, uint64_t ts, uint64_t *key)
{
	if (c->fq_len && c->freeq[c->fq_head].ts < ts) {
		*key = c->freeq[c->fq_head].key;
		c->fq_head = (c->fq_head + 1) % c->fq_cap;
		c->fq_len--;
		return true;
	}
	if (c->minted >= STACK_CACHE_KEY_RANGE / STACK_CACHE_KEY_STRIDE) {
		return false;
	}
	*key = c->key_base + (uint64_t)c->minted++ * STACK_CACHE_KEY_STRIDE;
	return true;
}

static int free_key(struct stack_cache *c, uint64_t key, uint64_t ts)
{
	if (c->fq_len == c->fq_cap) {
		size_t cap = c->fq_cap ? 2 * c->fq_cap : 64;
		struct sc_free *q = malloc(cap * sizeof(*q));

		if (!q) {
			return -ENOMEM;
		}
		for (size_t i = 0; i < c->fq_len; i++) {
			q[i] = c->freeq[(c->fq_head + i) % c->fq_cap];
		}
		free(c->freeq);
		c->freeq = q;
		c->fq_head = 0;
		c->fq_cap = cap;
	}
	c->freeq[(c->fq_head + c->fq_len) % c->fq_cap] = (struct sc_free){key, ts};
	c->fq_len++;
	return 0;
}

int stack_cache_get(struct stack_cache *c, const uint64_t *frames, size_t n, uint64_t ts,
		    uint64_t *key, struct stack_cache_victim *victim)
{
	struct sc_entry *set, *slot = NULL;
	uint64_t h, k;

	victim->n = 0;
	if (n < STACK_CACHE_MIN_FRAMES || n > UINT32_MAX) {
		return 0;
	}
	h = XXH3_64bits(frames, n * sizeof(*frames));
	set = &c->e[(size_t)(h % c->nsets) * STACK_CACHE_WAYS];
	for (unsigned w = 0; w < STACK_CACHE_WAYS; w++) {
		struct sc_entry *e = &set[w];

		if (e->used && e->hash == h && e->n == n &&
		    !memcmp(e->frames, frames, n * sizeof(*frames))) {
			e->used = ++c->uses;
			*key = e->key;
			return 1;
		}
		if (!slot || (slot->used && e->used < slot->used)) {
			slot = e; /* an empty way, else the least recently used */
		}
	}
	if (!take_key(c, ts, &k)) {
		return 0;
	}
	if (slot->used) {
		uint64_t *f = c->victim;
		uint32_t cap = c->victim_cap;

		if (free_key(c, slot->key, ts) < 0) {
			return -ENOMEM;
		}
		victim->key = slot->key;
		victim->frames = slot->frames;
		victim->n = slot->n;
		c->victim = slot->frames; /* the entry takes the old victim's array */
		c->victim_cap = slot->cap;
		slot->frames = f;
		slot->cap = cap;
	}
	if (slot->cap < n) {
		uint64_t *f = realloc(slot->frames, n * sizeof(*f));

		if (!f) {
			return -ENOMEM;
		}
		slot->frames = f;
		slot->cap = (uint32_t)n;
	}
	memcpy(slot->frames, frames, n * sizeof(*frames));
	slot->n = (uint32_t)n;
	slot->hash = h;
	slot->key = k;
	slot->used = ++c->uses;
	*key = k;
	return 1;
}

int stack_cache_next(const struct stack_cache *c, size_t *pos, uint64_t *key,
		     const uint64_t **frames, size_t *n)
{
	while (*pos < (size_t)c->nsets * STACK_CACHE_WAYS) {
		const struct sc_entry *e = &c->e[(*pos)++];

		if (e->used) {
			*key = e->key;
			*frames = e->frames;
			*n = e->n;
			return 1;
		}
	}
	return 0;
}
