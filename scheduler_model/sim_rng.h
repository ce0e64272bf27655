/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sim_rng.h - the simulated machine's only source of randomness:
 * xoshiro256** (Blackman & Vigna) with streams derived from one seed by
 * XXH64, so every CPU (or other consumer) draws from its own stream and the
 * same seed gives the same numbers with any compiler at any -O level.
 *
 * It belongs to the simulation core (scheduler_model/), so every model that
 * attaches to the core (PMC/PEBS, spin locks) draws from it. Integer
 * arithmetic only: no floating point, no __int128. The draws are inline so
 * a constant bound folds into a multiplication; the bit scans use the
 * compiler's builtins under __GNUC__ and a portable loop elsewhere (both
 * give the same answers: tests/test_pebs.c compares them).
 */
#ifndef SCHEDULER_MODEL_SIM_RNG_H
#define SCHEDULER_MODEL_SIM_RNG_H

#include <stdint.h>

/** struct sim_rng - xoshiro256** state (never all zero once seeded). */
struct sim_rng {
	uint64_t s[4];
};

/* Stream domains: which model a stream belongs to (part of the derivation). */
enum sim_rng_domain {
	SIM_RNG_SCHED_GLOBAL = 1, /* thread creation, group set-up */
	SIM_RNG_SCHED_CPU = 2,	  /* per-CPU scheduler decisions */
	SIM_RNG_PEBS_CPU = 3,	  /* per-CPU counter noise */
	SIM_RNG_SPIN = 4,	  /* reserved for the spin-lock model */
	SIM_RNG_CORPUS = 5,	  /* etwforge corpus: what an edge case leaves free */
	SIM_RNG_MUTATOR = 6,	  /* the structure-aware mutator's choices */
	SIM_RNG_IDENT = 7,	  /* the identity model: addresses, sampled IPs */
};

/**
 * sim_rng_init - seed stream @index of @domain from @seed: XXH64 of the
 * little-endian bytes {domain u32, index u32} with @seed, expanded to the
 * 256-bit state with splitmix64 (the seeding xoshiro's authors recommend).
 */
void sim_rng_init(struct sim_rng *r, uint64_t seed, uint32_t domain, uint32_t index);

static inline uint64_t sim_rng_rotl(uint64_t x, unsigned k)
{
	return (x << k) | (x >> (64u - k));
}

/** sim_rng_next - the next 64 random bits (xoshiro256**). */
static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = sim_rng_rotl(s[1] * 5u, 7) * 9u;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rng_rotl(s[3], 45);
	return out;
}

/**
 * sim_clz64_portable - leading zero bits of @x (64 for 0), without builtins:
 * what sim_clz64() computes where __GNUC__ is not defined.
 */
unsigned sim_clz64_portable(uint64_t x);

/** sim_ctz64_portable - trailing zero bits of @x (64 for 0), without builtins. */
unsigned sim_ctz64_portable(uint64_t x);

/** sim_popcount64_portable - set bits of @x, without builtins. */
unsigned sim_popcount64_portable(uint64_t x);

/** sim_clz64 - leading zero bits of @x (64 for 0). */
static inline unsigned sim_clz64(uint64_t x)
{
#if defined(__GNUC__)
	return x ? (unsigned)__builtin_clzll(x) : 64u;
#else
	return sim_clz64_portable(x);
#endif
}

/** sim_ctz64 - trailing zero bits of @x (64 for 0). */
static inline unsigned sim_ctz64(uint64_t x)
{
#if defined(__GNUC__)
	return x ? (unsigned)__builtin_ctzll(x) : 64u;
#else
	return sim_ctz64_portable(x);
#endif
}

/** sim_popcount64 - set bits of @x. */
static inline unsigned sim_popcount64(uint64_t x)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_popcountll(x);
#else
	return sim_popcount64_portable(x);
#endif
}

/**
 * sim_rng_below - uniform in [0, @n) without modulo bias (rejection);
 * @n == 0 returns 0.
 *
 * A draw v is rejected when v > UINT64_MAX - 2^64 mod @n (the top partial
 * block), and v % @n returned otherwise. Since 2^64 mod @n < @n, a draw at
 * or below UINT64_MAX - (@n - 1) is always kept, so the exact limit (one
 * more division) is only needed for the few draws above that. A power of
 * two has no partial block: v % @n is a mask. Same draws, same results as
 * the plain loop.
 */
static inline uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	uint64_t v, lim;

	if (n == 0) {
		return 0;
	}
	v = sim_rng_next(r);
	if (!(n & (n - 1u))) {
		return v & (n - 1u);
	}
	if (v > UINT64_MAX - (n - 1u)) {
		lim = UINT64_MAX - (UINT64_MAX % n + 1u) % n;
		while (v > lim) {
			v = sim_rng_next(r);
		}
	}
	return v % n;
}

/** sim_rng_range - uniform in [@lo, @hi] (inclusive; @hi >= @lo). */
static inline uint64_t sim_rng_range(struct sim_rng *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo) {
		return lo;
	}
	if (hi - lo == UINT64_MAX) {
		return sim_rng_next(r);
	}
	return lo + sim_rng_below(r, hi - lo + 1u);
}

/** sim_rng_chance - true with probability @pct percent (0..100). */
static inline int sim_rng_chance(struct sim_rng *r, unsigned pct)
{
	return sim_rng_below(r, 100) < pct;
}

/**
 * sim_rng_skip_below - draw and drop what sim_rng_below(@r, @n) would
 * return: the same draws are consumed (rejections included), for a model
 * that must keep its stream in step without using the value.
 */
static inline void sim_rng_skip_below(struct sim_rng *r, uint64_t n)
{
	uint64_t v, lim;

	if (n == 0) {
		return;
	}
	v = sim_rng_next(r);
	if (!(n & (n - 1u)) || v <= UINT64_MAX - (n - 1u)) {
		return;
	}
	lim = UINT64_MAX - (UINT64_MAX % n + 1u) % n;
	while (v > lim) {
		v = sim_rng_next(r);
	}
}

/**
 * sim_rng_skip_below_n - sim_rng_skip_below(@r, @n) @count times. The
 * draws are made in a tight loop that only notes whether any of them could
 * have been rejected; if one could, the state is rewound and the draws are
 * made again one by one, so the result is always exactly the same.
 */
static inline void sim_rng_skip_below_n(struct sim_rng *r, uint64_t n, unsigned count)
{
	struct sim_rng save = *r;
	uint64_t maybe = 0;

	if (n == 0) {
		return; /* sim_rng_below(r, 0) draws nothing */
	}
	for (unsigned i = 0; i < count; i++) {
		maybe |= sim_rng_next(r) > UINT64_MAX - (n - 1u);
	}
	if (maybe && (n & (n - 1u))) {
		*r = save;
		for (unsigned i = 0; i < count; i++) {
			sim_rng_skip_below(r, n);
		}
	}
}

/*
 * -ln(U) for U uniform in (0,1): write U = m * 2^-(z+1) with m in [1,2),
 * z = the leading zeros of a 64-bit draw. Then -log2(U) = z + 1 - log2(m),
 * and log2(m) ~ m - 1 (exact at both ends, off by < 0.09 between). Times
 * ln 2 (45426 / 65536) gives -ln(U) in 16.16 fixed point.
 */

/**
 * sim_rng_exp - roughly exponentially distributed with mean about @mean
 * (integer approximation of -ln(U) * mean; the tail is cut at ~15x mean).
 * Keep @mean below 2^44 so the product cannot overflow.
 */
static inline uint64_t sim_rng_exp(struct sim_rng *r, uint64_t mean)
{
	uint64_t u = sim_rng_next(r);
	unsigned z = sim_clz64(u);
	uint64_t frac, l2, ln;

	if (z > 20) {
		z = 20; /* cut the tail: at most ~15x the mean */
	}
	frac = (u << (z + 1u)) >> 48; /* z + 1 <= 21: the shift is defined */
	l2 = ((uint64_t)(z + 1u) << 16) - frac;
	ln = (l2 * 45426u) >> 16;
	return (mean >> 16) * ln + (((mean & 0xFFFFu) * ln) >> 16);
}

/* log2(1 + i/64) in 16.16, i = 0..64 (sim_rng.c) */
extern const uint32_t sim_log2_frac[65];

/**
 * sim_rng_exp_precise - exponentially distributed with mean @mean, to about
 * 1e-4: as sim_rng_exp(), but log2 of the mantissa comes from a 64-step
 * table with linear interpolation instead of m - 1 (whose bias makes
 * sim_rng_exp's mean ~4 % high). The tail is cut at ~28x the mean. For
 * models whose rates must come out as configured (spin-lock arrivals).
 * Keep @mean below 2^44.
 */
static inline uint64_t sim_rng_exp_precise(struct sim_rng *r, uint64_t mean)
{
	uint64_t u = sim_rng_next(r);
	unsigned z = sim_clz64(u), i;
	uint64_t frac, l2m, l2, ln;

	if (z > 40) {
		z = 40;
	}
	frac = (u << (z + 1u)) >> 48; /* the 16 bits after the leading one */
	i = (unsigned)(frac >> 10);
	l2m = sim_log2_frac[i] +
	      (((uint64_t)(sim_log2_frac[i + 1u] - sim_log2_frac[i]) * (frac & 1023u)) >> 10);
	l2 = ((uint64_t)(z + 1u) << 16) - l2m;
	ln = (l2 * 45426u) >> 16;
	return (mean >> 16) * ln + (((mean & 0xFFFFu) * ln) >> 16);
}

#endif /* SCHEDULER_MODEL_SIM_RNG_H */
