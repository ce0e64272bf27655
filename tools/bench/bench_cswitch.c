// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_cswitch.c - (b) of `etwforge bench`: the plain CSwitch
 * path alone. A producer with one plain session (x64, 0x0524 version 4,
 * cycle clock) writes into the in-memory buffers of bench_backend.c; it is
 * fed the same seeded stream as (a), in laps of a window generated outside
 * the timed region. Three variants: no extended item, three PMC counters
 * (what server64.yaml's second session stamps) and PEBS.
 *
 *   per variant: check pass (untimed, hashes every buffer)
 *   runs x:      per variant: a timed pass, its bytes held to the check's
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "producer/producer.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_backend.h"
#include "tools/bench/bench_ccswap.h"

#define WINDOW	    4096u
#define BUFFER_SIZE 65536u

enum variant {
	PLAIN = 0,
	PMC,
	PEBS,
	NVARIANTS,
};

static void variant_cfg(struct producer_cfg *cfg, enum variant v, struct bench_backend *bk)
{
	struct producer_session *s = &cfg->sessions[0];

	bench_backend_producer_cfg(cfg, bk, CCSWAP_BENCH_CPUS, PRODUCER_F_CSWITCH);
	if (v == PMC) {
		s->pmc_count = 3;
		s->pmc_ids[0] = 0;
		s->pmc_ids[1] = 1;
		s->pmc_ids[2] = 2;
		s->pmc_events[0] = ETW_HOOK_CSWITCH;
		s->pmc_event_count = 1;
	}
	s->pebs = v == PEBS;
}

/* Counter values and a PebsIndex for the window (untimed; plausible, not modelled). */
static void stamp(struct sim_cswitch *w, unsigned n, uint64_t *seq)
{
	for (unsigned i = 0; i < n; i++, (*seq)++) {
		uint64_t ts = w[i].ts[SIM_CLOCK_CYCLES];

		w[i].pmc[0] = ts;
		w[i].pmc[1] = ts / 2 + *seq;
		w[i].pmc[2] = *seq * 3;
		w[i].pebs_index = 0xFFFFE00000100000ull + (*seq % 512) * 0xC0;
	}
}

static int run_pass(struct ccswap_bench *bb, struct bench_backend *bk, enum variant v,
		    uint64_t switches, float *lap_ns, bool check, struct bench_pass *out)
{
	struct producer_cfg cfg;
	struct producer *p;
	uint64_t left = switches, seq = 0, nlaps = 0;
	int bad = 0;

	variant_cfg(&cfg, v, bk);
	p = bench_backend_pass_begin(bk, &cfg, check);
	if (!p) {
		return -errno;
	}
	ccswap_bench_stream_reset(bb);
	while (left && !bad) {
		unsigned n = left < WINDOW ? (unsigned)left : WINDOW;
		struct sim_cswitch *w = ccswap_bench_stream_next(bb, n);
		double t0, t1;

		stamp(w, n, &seq);
		t0 = bench_wall_ns();
		for (unsigned i = 0; i < n; i++) {
			/* errors are negative: OR-ing them keeps "one failed" without a branch */
			bad |= producer_cswitch(p, &w[i]);
		}
		t1 = bench_wall_ns();
		lap_ns[nlaps++] = (float)((t1 - t0) / n);
		left -= n;
	}
	return bench_backend_pass_end(bk, p, bad, lap_ns, nlaps, switches, WINDOW, out);
}

static void describe(struct bench *b, uint64_t switches, const struct bench_pass *check)
{
	static const char *const bytes_key[NVARIANTS] = {"plain_bytes", "pmc_bytes", "pebs_bytes"};
	static const char *const xxh3_key[NVARIANTS] = {"plain_xxh3", "pmc_xxh3", "pebs_xxh3"};
	struct bench_work *w = bench_work_add(
		b, "cswitch",
		"producer_cswitch(), one plain session (x64, v4, cycle clock) into in-memory "
		"%u KiB buffers, on the ccswap stream; no item, 3 PMC counters, PEBS",
		BUFFER_SIZE / 1024);

	bench_kv_u64(w, "seed", 1, 0);
	bench_kv_u64(w, "switches", switches, 0);
	for (unsigned v = 0; v < NVARIANTS; v++) {
		bench_kv_u64(w, bytes_key[v], check[v].bytes, 0);
		bench_kv_hex(w, xxh3_key[v], check[v].xxh3);
	}
}

int bench_cswitch(struct bench *b, const struct bench_size *sz, struct etwforge_error *err)
{
	static const char *const fig_name[NVARIANTS] = {"cswitch.plain.ns_per_switch",
							"cswitch.pmc.ns_per_switch",
							"cswitch.pebs.ns_per_switch"};
	static const char *const fig_label[NVARIANTS] = {
		"plain CSwitch, no item", "plain CSwitch, 3 PMC counters", "plain CSwitch, PEBS"};
	struct ccswap_bench_opts o = {
		.switches = sz->cswitch_switches, .seed = 1, .window = WINDOW};
	double ns[NVARIANTS][BENCH_MAX_RUNS];
	struct bench_pass check[NVARIANTS];
	struct bench_backend bk;
	struct ccswap_bench *bb;
	float *lap_ns;
	int rc = 0;

	bench_progress(b, "cswitch: the plain CSwitch path");
	bb = ccswap_bench_create(&o);
	lap_ns = calloc((size_t)(sz->cswitch_switches / WINDOW + 1), sizeof(*lap_ns));
	if (!bb || !lap_ns || bench_backend_init(&bk, CCSWAP_BENCH_CPUS, BUFFER_SIZE) < 0) {
		ccswap_bench_destroy(bb);
		free(lap_ns);
		return error_fail(err, -ENOMEM, ERR_DATA, "cswitch: %s", strerror(ENOMEM));
	}
	for (unsigned v = 0; v < NVARIANTS && rc == 0; v++) {
		rc = run_pass(bb, &bk, (enum variant)v, o.switches, lap_ns, true, &check[v]);
		if (rc == 0 && check[v].events != o.switches) {
			rc = -EIO;
		}
	}
	for (unsigned r = 0; r < sz->runs && rc == 0; r++) {
		for (unsigned v = 0; v < NVARIANTS && rc == 0; v++) {
			struct bench_pass t = {0};

			rc = run_pass(bb, &bk, (enum variant)v, o.switches, lap_ns, false, &t);
			if (rc == 0 && (t.events != check[v].events || t.bytes != check[v].bytes)) {
				rc = -EIO;
			}
			ns[v][r] = t.ns / (double)o.switches;
		}
	}
	bench_backend_free(&bk);
	ccswap_bench_destroy(bb);
	free(lap_ns);
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "cswitch: %s%s", strerror(-rc),
				  rc == -EIO ? " (a pass wrote other events than the check pass)"
					     : "");
	}
	for (unsigned v = 0; v < NVARIANTS; v++) {
		bench_figure(b, fig_name[v], fig_label[v], "ns/switch", ns[v], sz->runs);
	}
	describe(b, o.switches, check);
	return 0;
}
