// SPDX-License-Identifier: MIT
/*
 * tests/test_cswitch_words.c - the plain CSwitch path (0x0524), which stores
 * whole quadwords and has a fast path for one plain session, against the
 * stateless field-by-field encoders etl_encode_perfinfo_header() and
 * etw_encode_cswitch(): on random switches and random configurations (x86,
 * x64; versions 2 to 4; PEBS, 0 to 7 PMC counters; one to three sessions on
 * different clocks, with and without a compact session beside them; small
 * buffers, so that events land on both sides of buffer changes), every
 * event must be byte for byte what the reference encoders write. Also the
 * v4 flags' error, the v2 raw WaitMode byte and the stats.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "producer/etw_encode.h"
#include "producer/producer.h"
#include "tests/fake_backend.h"
#include "writer/etl_trace_header.h"
#include "writer/etl_wire.h"

#define NSESS_MAX 3
#define CPUS	  4
#define SWITCHES  300

static struct fake_backend fb[NSESS_MAX];

/* xorshift64: the same values on every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned below(uint64_t *s, unsigned n)
{
	return (unsigned)(next(s) % n);
}

static void random_switch(struct sim_cswitch *c, uint64_t *rng, uint64_t ts)
{
	memset(c, 0, sizeof(*c));
	c->cpu = below(rng, CPUS);
	c->tick = (uint32_t)(ts / 1000);
	for (unsigned k = 1; k < SIM_CLOCK_SLOTS; k++) {
		c->ts[k] = ts * k + k;
	}
	c->old_tid = below(rng, 5) == 0 ? 0 : (uint32_t)next(rng);
	c->old_pri = (int8_t)next(rng);
	c->old_base_pri = (int8_t)next(rng);
	c->old_state = (uint8_t)below(rng, 8);
	c->old_wait_reason = (uint8_t)next(rng);
	c->old_wait_mode = (uint8_t)below(rng, 2);
	c->old_ideal_cpu = (uint32_t)next(rng);
	c->old_remaining_quantum = (int64_t)next(rng);
	c->old_qos = (uint8_t)below(rng, 8);
	c->prev_cstate = (uint8_t)next(rng);
	c->old_rank = below(rng, 2) ? below(rng, 300) : (uint32_t)next(rng);
	c->new_tid = (uint32_t)next(rng);
	c->new_pri = (int8_t)next(rng);
	c->new_pri_decrement = (int8_t)next(rng);
	c->new_wait_ticks = (uint32_t)next(rng);
	c->new_qos = (uint8_t)below(rng, 8);
	for (unsigned k = 0; k < SIM_MAX_COUNTERS; k++) {
		c->pmc[k] = next(rng);
	}
	c->pebs_index = next(rng);
}

/* What 0x0524 of @c in session @s of @cfg is, by the reference encoders. */
static size_t reference_event(uint8_t *out, const struct producer_cfg *cfg,
			      const struct producer_session *s, const struct sim_cswitch *c)
{
	struct etl_perfinfo_header h = {0};
	struct etw_cswitch w = {0};
	bool pmc = producer_stamps(s->flags, s->pebs, s->pmc_events, s->pmc_event_count,
				   cfg->pebs_and_pmc, ETW_HOOK_CSWITCH);
	int n;

	h.arch = cfg->arch;
	h.version = cfg->cswitch_version;
	h.hook_id = ETW_HOOK_CSWITCH;
	h.ts = c->ts[s->clock];
	h.has_pebs = s->pebs;
	h.pebs_index = c->pebs_index;
	h.pmc_count = pmc ? s->pmc_count : 0;
	for (unsigned j = 0; j < h.pmc_count; j++) {
		h.pmc[j] = c->pmc[s->pmc_ids[j]];
	}
	h.size = (uint16_t)(etl_perfinfo_header_len(&h) + ETW_CS_LEN);
	n = etl_encode_perfinfo_header(out, 0x100, &h);
	cr_assert_gt(n, 0);
	w.new_tid = c->new_tid;
	w.old_tid = c->old_tid;
	w.new_pri = c->new_pri;
	w.old_pri = c->old_pri;
	w.prev_cstate = c->old_tid == 0 ? c->prev_cstate : etw_cswitch_rank_byte(c->old_rank);
	w.new_pri_decrement = c->new_pri_decrement;
	w.old_wait_reason = c->old_wait_reason;
	w.wait_mode_or_flags = c->old_wait_mode;
	if (cfg->cswitch_version >= 4) {
		cr_assert_eq(etw_cswitch_v4_flags(c->old_wait_mode, c->old_qos, c->new_qos,
						  &w.wait_mode_or_flags),
			     0);
	}
	w.old_state = c->old_state;
	w.old_ideal_cpu = (uint8_t)c->old_ideal_cpu;
	w.new_wait_time = c->new_wait_ticks;
	w.old_remaining_quantum = (int32_t)(uint32_t)(uint64_t)c->old_remaining_quantum;
	cr_assert_eq(etw_encode_cswitch(out + n, 0x100, &w), ETW_CS_LEN);
	return (size_t)n + ETW_CS_LEN;
}

static void random_cfg(struct producer_cfg *cfg, uint64_t *rng)
{
	static const enum sim_clock clocks[3] = {SIM_CLOCK_QPC, SIM_CLOCK_SYSTIME,
						 SIM_CLOCK_CYCLES};

	memset(cfg, 0, sizeof(*cfg));
	cfg->arch = below(rng, 2) ? ETL_ARCH_X64 : ETL_ARCH_X86;
	cfg->cpus = CPUS;
	cfg->cswitch_version = (uint8_t)(2 + below(rng, 3));
	cfg->max_wait_reason = 40;
	cfg->quirks = true;
	cfg->pebs_and_pmc = below(rng, 2);
	cfg->flush_at_end = true;
	cfg->nsessions = 1 + below(rng, NSESS_MAX);
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		struct producer_session *s = &cfg->sessions[i];

		fake_reset(&fb[i]);
		s->name = "s";
		s->clock = clocks[below(rng, 3)];
		/* the first session is always plain; the others compact one time in three */
		s->flags = PRODUCER_F_CSWITCH;
		if (i > 0 && below(rng, 3) == 0) {
			s->flags |= PRODUCER_F_COMPACT;
		} else {
			/* room for 4 to 7 of the largest events: buffer changes, < 256 buffers */
			fb[i].buffer_size = 0x48 + 0x68 * (4 + below(rng, 4));
		}
		s->pebs = below(rng, 3) == 0;
		s->pmc_count = below(rng, SIM_MAX_PMC + 1);
		for (unsigned j = 0; j < s->pmc_count; j++) {
			s->pmc_ids[j] = (uint8_t)below(rng, SIM_MAX_COUNTERS);
		}
		s->pmc_events[0] = below(rng, 4) ? ETW_HOOK_CSWITCH : ETW_HOOK_SPINLOCK;
		s->pmc_event_count = 1;
		s->backend = &fake_backend_ops;
		s->backend_ctx = &fb[i];
	}
}

Test(cswitch_words, every_event_is_what_the_field_encoders_write, .timeout = 60.)
{
	static struct sim_cswitch sw[SWITCHES];
	static uint8_t want[0x100];
	static bool found[SWITCHES];
	uint64_t rng = 0x9E3779B97F4A7C15ull;

	for (unsigned round = 0; round < 60; round++) {
		struct producer_cfg cfg;
		struct producer_stats st;
		struct producer *p;
		struct sim_end end;
		unsigned plain = 0;

		random_cfg(&cfg, &rng);
		p = producer_create(&cfg);
		cr_assert_not_null(p);
		for (unsigned i = 0; i < SWITCHES; i++) {
			random_switch(&sw[i], &rng, 1000 + 10 * (uint64_t)i);
			cr_assert_eq(producer_cswitch(p, &sw[i]), 0);
		}
		memset(&end, 0, sizeof(end));
		for (unsigned k = 1; k < SIM_CLOCK_SLOTS; k++) {
			end.ts[k] = 1u << 30;
		}
		cr_assert_eq(producer_end(p, &end), 0);
		for (unsigned k = 0; k < cfg.nsessions; k++) {
			const struct producer_session *s = &cfg.sessions[k];
			struct fake_event *ev = fake_ev(&fb[k]);
			unsigned n = fake_n(&fb[k]), seen = 0;

			if (s->flags & PRODUCER_F_COMPACT) {
				continue;
			}
			plain++;
			/* an event's TS names its switch: ts[clock] = (1000 + 10 i) clock + clock */
			memset(found, 0, sizeof(found));
			for (unsigned e = 0; e < n; e++) {
				uint64_t t = get_le64(ev[e].bytes + ETL_TH_TS);
				unsigned i = (unsigned)(((t - s->clock) / s->clock - 1000) / 10);
				size_t len;

				cr_assert_lt(i, SWITCHES);
				cr_assert_eq(sw[i].cpu, ev[e].cpu);
				cr_assert_not(found[i], "switch %u logged twice", i);
				found[i] = true;
				len = reference_event(want, &cfg, s, &sw[i]);
				cr_assert_eq(ev[e].size, len, "round %u session %u event %u", round,
					     k, e);
				cr_assert_eq(memcmp(ev[e].bytes, want, len), 0,
					     "round %u session %u event %u: bytes differ", round, k,
					     e);
				seen++;
			}
			cr_assert_eq(seen, SWITCHES, "round %u session %u", round, k);
		}
		producer_get_stats(p, &st);
		cr_assert_eq(st.switches, SWITCHES);
		cr_assert_eq(st.cswitch_events, (uint64_t)SWITCHES * plain);
		cr_assert_eq(st.events_lost, 0);
		producer_destroy(p);
	}
}

/* One plain v@version session on CPU 0..1 (the fast path), two sessions when @two. */
static struct producer *one_rig(uint8_t version, bool two)
{
	struct producer_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.arch = ETL_ARCH_X64;
	cfg.cpus = 2;
	cfg.cswitch_version = version;
	cfg.max_wait_reason = 40;
	cfg.nsessions = two ? 2 : 1;
	for (unsigned i = 0; i < cfg.nsessions; i++) {
		fake_reset(&fb[i]);
		cfg.sessions[i].name = "s";
		cfg.sessions[i].clock = SIM_CLOCK_QPC;
		cfg.sessions[i].flags = PRODUCER_F_CSWITCH;
		cfg.sessions[i].backend = &fake_backend_ops;
		cfg.sessions[i].backend_ctx = &fb[i];
	}
	return producer_create(&cfg);
}

Test(cswitch_words, v4_flags_out_of_range_fail_the_switch_on_both_paths)
{
	static const uint8_t bad[3][3] = {{2, 0, 0}, {0, 8, 0}, {0, 0, 8}};

	for (unsigned two = 0; two < 2; two++) {
		for (unsigned k = 0; k < 3; k++) {
			struct producer *p = one_rig(4, two);
			struct producer_stats st;
			struct sim_cswitch c;
			uint64_t rng = 7;

			cr_assert_not_null(p);
			random_switch(&c, &rng, 100);
			c.cpu = 1;
			/* the first takes the general path (no buffer held yet), the second the fast one */
			cr_assert_eq(producer_cswitch(p, &c), 0);
			c.old_wait_mode = bad[k][0];
			c.old_qos = bad[k][1];
			c.new_qos = bad[k][2];
			cr_assert_eq(producer_cswitch(p, &c), -EINVAL);
			producer_get_stats(p, &st);
			cr_assert_eq(st.switches, 2);
			cr_assert_eq(st.cswitch_events, two ? 3 : 2, "counted, then refused");
			cr_assert_eq(fake_n(&fb[0]), 1, "nothing committed");
			producer_destroy(p);
		}
	}
}

Test(cswitch_words, v2_and_v3_keep_the_raw_wait_mode_byte)
{
	for (uint8_t version = 2; version <= 3; version++) {
		struct producer *p = one_rig(version, false);
		struct sim_cswitch c;
		uint64_t rng = 11;

		cr_assert_not_null(p);
		random_switch(&c, &rng, 100);
		c.cpu = 1;
		c.old_wait_mode = 0xFE;
		c.old_qos = 0xFF;
		cr_assert_eq(producer_cswitch(p, &c), 0);
		cr_assert_eq(producer_cswitch(p, &c), 0);
		cr_assert_eq(fake_n(&fb[0]), 2);
		cr_assert_eq(fake_ev(&fb[0])[1].bytes[ETL_TH_LEN + 0x0D], 0xFE);
		producer_destroy(p);
	}
}

Test(cswitch_words, a_switch_on_a_cpu_out_of_range_is_refused)
{
	struct producer *p = one_rig(4, false);
	struct sim_cswitch c;
	uint64_t rng = 3;

	cr_assert_not_null(p);
	random_switch(&c, &rng, 100);
	c.cpu = 0;
	cr_assert_eq(producer_cswitch(p, &c), 0);
	c.cpu = 2;
	cr_assert_eq(producer_cswitch(p, &c), -EINVAL);
	producer_destroy(p);
}
