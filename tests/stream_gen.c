// SPDX-License-Identifier: MIT
/*
 * tests/stream_gen.c - the random stream generator (see stream_gen.h).
 */
#include <string.h>

#include "tests/stream_gen.h"

uint64_t stream_gen_u64(struct stream_gen *g)
{
	return sim_rng_next(&g->rng);
}

static unsigned below(struct stream_gen *g, unsigned n)
{
	return (unsigned)(stream_gen_u64(g) % n);
}

void stream_gen_init(struct stream_gen *g, uint64_t seed, unsigned cpus, unsigned nthreads,
		     uint8_t max_wait_reason)
{
	memset(g, 0, sizeof(*g));
	sim_rng_init(&g->rng, seed, 0x73747267u /* "strg" */, 0);
	g->cpus = cpus;
	g->nthreads = nthreads;
	g->max_wait_reason = max_wait_reason;
	for (unsigned i = 0; i < nthreads; i++) {
		g->base[i] = (int8_t)(1 + below(g, 15));
	}
	for (unsigned c = 0; c < cpus; c++) {
		g->tick[c] = 1000;
		g->ts[c][SIM_CLOCK_QPC] = 5000000;
		g->ts[c][SIM_CLOCK_SYSTIME] = 133000000000000000ull;
		g->ts[c][SIM_CLOCK_CYCLES] = 9000000000ull;
	}
}

/* A time step in clock units that lands on the batching boundaries often. */
static uint64_t step(struct stream_gen *g)
{
	switch (below(g, 20)) {
	case 0:
		return 0;
	case 1:
		return 0x3FFF + below(g, 3); /* IDLE_SHORT / IDLE edge */
	case 2:
		return 0x1FFFF + below(g, 3); /* LITE / FULL edge */
	case 3:
		return 0x40000000ull; /* wraps the 30-bit field */
	case 4:
		return 0x40000001ull + below(g, 1000); /* delta flush */
	case 5:
	case 6:
		return 0x20000 + below(g, 0x1000000);
	default:
		return 1 + below(g, 0x3000);
	}
}

static uint32_t wait_ticks(struct stream_gen *g)
{
	switch (below(g, 8)) {
	case 0:
		return 0x1FFFF + below(g, 3);
	case 1:
		return (uint32_t)stream_gen_u64(g);
	case 2:
	case 3:
		return 2 + below(g, 100);
	default:
		return below(g, 2);
	}
}

void stream_gen_next(struct stream_gen *g, struct sim_cswitch *cs)
{
	unsigned c = below(g, g->cpus);
	uint64_t d = step(g);
	uint32_t next;

	memset(cs, 0, sizeof(*cs));
	cs->cpu = c;
	/* ticks: mostly still, sometimes past the 500-tick limit */
	g->tick[c] += below(g, 10) == 0 ? 400 + below(g, 200) : below(g, 2);
	cs->tick = g->tick[c];
	/* each clock advances by its own step so that the three batch differently */
	g->ts[c][SIM_CLOCK_QPC] += d;
	g->ts[c][SIM_CLOCK_SYSTIME] += below(g, 4) ? d : step(g);
	g->ts[c][SIM_CLOCK_CYCLES] += d * 3 + below(g, 2);
	memcpy(cs->ts, g->ts[c], sizeof(cs->ts));

	next = below(g, 4) == 0 ? 0 : 1000 + below(g, g->nthreads);
	cs->old_tid = g->cur[c];
	cs->new_tid = next;
	g->cur[c] = next;
	if (cs->old_tid) {
		int8_t base = g->base[cs->old_tid - 1000];

		cs->old_base_pri = base;
		switch (below(g, 6)) {
		case 0:
			cs->old_pri = (int8_t)(base > 0 ? base - 1 : 0); /* below base */
			break;
		case 1:
			cs->old_pri = (int8_t)(base + 8 <= 31 ? base + 8 : 31);
			break;
		default:
			cs->old_pri =
				(int8_t)(base + (int8_t)below(g, 8) <= 31 ? base + (int)below(g, 8)
									  : 31);
			break;
		}
		cs->old_state = (uint8_t)(below(g, 2) ? 5 : below(g, 11));
		if (cs->old_state == 5) {
			cs->old_wait_reason = (uint8_t)below(g, g->max_wait_reason);
		}
		cs->old_wait_mode = (uint8_t)below(g, 2);
		cs->old_rank = (uint8_t)below(g, 3);
	} else {
		cs->prev_cstate = (uint8_t)below(g, 4);
		cs->old_state = 2;
	}
	cs->old_ideal_cpu = below(g, 300);
	cs->old_remaining_quantum = (int32_t)below(g, 2000) - 1000;
	cs->old_qos = (uint8_t)below(g, 8);
	cs->new_qos = (uint8_t)below(g, 8);
	cs->new_pri = (int8_t)below(g, 32);
	cs->new_pri_decrement = (int8_t)below(g, 4);
	cs->new_wait_ticks = wait_ticks(g);
	for (unsigned k = 0; k < SIM_MAX_COUNTERS; k++) {
		g->pmc[c][k] += below(g, 100000);
		cs->pmc[k] = g->pmc[c][k];
	}
	g->pebs[c] += below(g, 3) * 0x20;
	cs->pebs_index = g->pebs[c];
}

void stream_gen_end(const struct stream_gen *g, struct sim_end *end)
{
	memset(end, 0, sizeof(*end));
	for (unsigned c = 0; c < g->cpus; c++) {
		if (g->tick[c] > end->tick) {
			end->tick = g->tick[c];
		}
		for (unsigned k = 1; k < SIM_CLOCK_SLOTS; k++) {
			if (g->ts[c][k] + 7 > end->ts[k]) {
				end->ts[k] = g->ts[c][k] + 7;
			}
		}
	}
}
