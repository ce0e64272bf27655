// SPDX-License-Identifier: MIT
/*
 * pebs_model/sim_rng.c - stream derivation and the distributions the models
 * draw from (see sim_rng.h). Everything is integer arithmetic on uint64_t,
 * whose results C11 fixes exactly, so the streams are the same everywhere.
 */
#include <xxhash.h>

#include "pebs_model/sim_rng.h"
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

uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	uint64_t lim, v;

	if (n == 0) {
		return 0;
	}
	/* reject the top partial block so every residue is equally likely */
	lim = UINT64_MAX - (UINT64_MAX % n + 1) % n;
	do {
		v = sim_rng_next(r);
	} while (v > lim);
	return v % n;
}

uint64_t sim_rng_range(struct sim_rng *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo) {
		return lo;
	}
	if (hi - lo == UINT64_MAX) {
		return sim_rng_next(r);
	}
	return lo + sim_rng_below(r, hi - lo + 1);
}

unsigned sim_clz64(uint64_t x)
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

unsigned sim_ctz64(uint64_t x)
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

/*
 * -ln(U) for U uniform in (0,1): write U = m * 2^-(z+1) with m in [1,2),
 * z = the leading zeros of a 64-bit draw. Then -log2(U) = z + 1 - log2(m),
 * and log2(m) ~ m - 1 (exact at both ends, off by < 0.09 between). Times
 * ln 2 (45426 / 65536) gives -ln(U) in 16.16 fixed point.
 */
uint64_t sim_rng_exp(struct sim_rng *r, uint64_t mean)
{
	uint64_t u = sim_rng_next(r);
	unsigned z = sim_clz64(u);
	uint64_t frac, l2, ln;

	if (z > 20) {
		z = 20; /* cut the tail: at most ~15x the mean */
	}
	frac = z < 47 ? (u << (z + 1u)) >> 48 : 0;
	l2 = ((uint64_t)(z + 1u) << 16) - frac;
	ln = (l2 * 45426u) >> 16;
	return (mean >> 16) * ln + (((mean & 0xFFFFu) * ln) >> 16);
}
