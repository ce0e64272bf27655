// SPDX-License-Identifier: MIT
/*
 * scheduler_model/sim_rng.c - stream derivation and the portable bit scans (the
 * draws themselves are inline in sim_rng.h). Everything is integer arithmetic on uint64_t,
 * whose results C11 fixes exactly, so the streams are the same everywhere.
 */
#include <xxhash.h>

#include "scheduler_model/sim_rng.h"
#include "writer/etl_wire.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void sim_rng_init(struct sim_rng *r, uint64_t seed, uint32_t domain, uint32_t index)
{
	uint8_t key[8];
	uint64_t x;

	/* explicit little-endian bytes: the hash input is the same on any host */
	put_le32(key, domain);
	put_le32(key + 4, index);
	x = XXH64(key, sizeof(key), seed);
	for (unsigned i = 0; i < 4; i++) {
		r->s[i] = splitmix64(&x);
	}
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) {
		r->s[0] = 1; /* the one state xoshiro cannot leave */
	}
}

unsigned sim_clz64_portable(uint64_t x)
{
	unsigned n = 0;

	if (!x) {
		return 64;
	}
	for (unsigned step = 32; step; step >>= 1) {
		if (!(x >> (64u - step))) {
			n += step;
			x <<= step;
		}
	}
	return n;
}

unsigned sim_ctz64_portable(uint64_t x)
{
	unsigned n = 0;

	if (!x) {
		return 64;
	}
	for (unsigned step = 32; step; step >>= 1) {
		if (!(x & ((UINT64_C(1) << step) - 1u))) {
			n += step;
			x >>= step;
		}
	}
	return n;
}

unsigned sim_popcount64_portable(uint64_t x)
{
	unsigned n = 0;

	while (x) {
		x &= x - 1u;
		n++;
	}
	return n;
}
