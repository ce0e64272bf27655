// SPDX-License-Identifier: MIT
/*
 * scheduler_model/sim_rng.c - stream derivation and the portable bit scans (the
 * draws themselves are inline in sim_rng.h). Everything is integer arithmetic on uint64_t,
 * whose results C11 fixes exactly, so the streams are the same everywhere.
 */
#include <xxhash.h>

#include "scheduler_model/sim_rng.h"

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
	for (unsigned i = 0; i < 4; i++) {
		key[i] = (uint8_t)(domain >> (8 * i));
		key[4 + i] = (uint8_t)(index >> (8 * i));
	}
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

/* round(log2(1 + i / 64) * 65536), i = 0..64 */
const uint32_t sim_log2_frac[65] = {
	0,     1466,  2909,  4331,  5732,  7112,  8473,	 9814,	11136, 12440, 13727, 14996, 16248,
	17484, 18704, 19909, 21098, 22272, 23433, 24579, 25711, 26830, 27936, 29029, 30109, 31178,
	32234, 33279, 34312, 35334, 36346, 37346, 38336, 39316, 40286, 41246, 42196, 43137, 44068,
	44990, 45904, 46809, 47705, 48593, 49472, 50344, 51207, 52063, 52911, 53751, 54584, 55410,
	56229, 57040, 57845, 58643, 59434, 60219, 60997, 61769, 62534, 63294, 64047, 64794, 65536,
};
