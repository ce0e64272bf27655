/* SPDX-License-Identifier: MIT */
/*
 * pebs_model/sim_rng.h - the simulated machine's only source of randomness:
 * xoshiro256** (Blackman & Vigna) with streams derived from one seed by
 * XXH64, so every CPU (or other consumer) draws from its own stream and the
 * same seed gives the same numbers with any compiler at any -O level.
 *
 * It lives in pebs_model/, the lowest model layer, so the scheduler (which
 * links pebs_model) and the PMC model share one implementation. Integer
 * arithmetic only: no floating point, no __int128, no builtins.
 */
#ifndef PEBS_MODEL_SIM_RNG_H
#define PEBS_MODEL_SIM_RNG_H

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
 * sim_rng_below - uniform in [0, @n) without modulo bias (rejection);
 * @n == 0 returns 0.
 */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);

/** sim_rng_range - uniform in [@lo, @hi] (inclusive; @hi >= @lo). */
uint64_t sim_rng_range(struct sim_rng *r, uint64_t lo, uint64_t hi);

/** sim_rng_chance - true with probability @pct percent (0..100). */
static inline int sim_rng_chance(struct sim_rng *r, unsigned pct)
{
	return sim_rng_below(r, 100) < pct;
}

/**
 * sim_rng_exp - roughly exponentially distributed with mean about @mean
 * (integer approximation of -ln(U) * mean; the tail is cut at ~15x mean).
 * Keep @mean below 2^44 so the product cannot overflow.
 */
uint64_t sim_rng_exp(struct sim_rng *r, uint64_t mean);

/** sim_clz64 - leading zero bits of @x (64 for 0); portable, no builtins. */
unsigned sim_clz64(uint64_t x);

/** sim_ctz64 - trailing zero bits of @x (64 for 0); portable, no builtins. */
unsigned sim_ctz64(uint64_t x);

#endif /* PEBS_MODEL_SIM_RNG_H */
