// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_compact.c - (a) of `etwforge bench`: the compact batching
 * engine alone (ccswap_log() into in-memory blocks) on the seeded stream of
 * bench_ccswap.c, and a memset of the same output bytes in the same run.
 *
 *   check pass (untimed): the mix (record forms, flush reasons) and the
 *                         XXH3-64 of every batch emitted
 *   runs x: timed pass    ns/switch, its bytes held to the check pass's,
 *           memset        the same bytes, batch by batch: ns/switch
 *                         and the ratio engine / memset of this run
 */
#include <errno.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_ccswap.h"

static const char *const form_names[4] = {"idle_short", "idle", "lite", "full"};

static void describe(struct bench *b, const struct ccswap_bench_opts *o,
		     const struct ccswap_bench_mix *mix)
{
	struct bench_work *w = bench_work_add(
		b, "ccswap",
		"ccswap_log_n() alone, a lap of 4096 switches per call (and the engine as it "
		"was before, a call per switch), seeded stream: %u CPUs, ~20 %% idle, every "
		"form and flush reason, quirks on, cycle clock.",
		CCSWAP_BENCH_CPUS);

	bench_kv_u64(w, "seed", o->seed ? o->seed : 1, 0);
	bench_kv_u64(w, "switches", mix->switches, 0);
	bench_kv_u64(w, "batches", mix->batches, 0);
	bench_kv_u64(w, "bytes", mix->out_bytes, 0);
	for (unsigned i = 0; i < 4; i++) {
		bench_kv_u64(w, form_names[i], mix->forms[i], mix->switches);
	}
	for (unsigned i = 0; i < PRODUCER_FLUSH_REASONS; i++) {
		bench_kv_u64(w, producer_flush_reason_name((enum producer_flush_reason)i),
			     mix->reasons[i], mix->batches);
	}
	bench_kv_hex(w, "xxh3", mix->xxh3);
}

/* A timed pass of @bb into *@t; a failure is said for @what. */
static int timed(struct ccswap_bench *bb, struct ccswap_bench_time *t, const char *what, unsigned r,
		 struct etwforge_error *err)
{
	int rc = ccswap_bench_time(bb, t);

	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "ccswap: %s, timed pass %u: %s%s", what, r + 1,
				  strerror(-rc),
				  rc == -EIO ? " (other bytes than the check pass)" : "");
	}
	return 0;
}

int bench_compact(struct bench *b, const struct bench_size *sz, struct etwforge_error *err)
{
	struct ccswap_bench_opts o = {.switches = sz->ccswap_switches, .seed = 1};
	double ns[BENCH_MAX_RUNS], rate[BENCH_MAX_RUNS], bytes[BENCH_MAX_RUNS];
	double ms[BENCH_MAX_RUNS], ratio[BENCH_MAX_RUNS], fl[BENCH_MAX_RUNS];
	double one[BENCH_MAX_RUNS], gain[BENCH_MAX_RUNS];
	struct ccswap_bench_mix mix, mix1;
	struct ccswap_bench *bb;
	int rc;

	bench_progress(b, "ccswap: the compact engine alone");
	bb = ccswap_bench_create(&o);
	if (!bb) {
		rc = -errno;
		return error_fail(err, rc, ERR_DATA, "ccswap: %s", strerror(-rc));
	}
	/* a call per switch (the engine's API before runs) must make the same bytes */
	ccswap_bench_single(bb, true);
	rc = ccswap_bench_check(bb, &mix1);
	ccswap_bench_single(bb, false);
	if (rc == 0) {
		rc = ccswap_bench_check(bb, &mix);
	}
	if (rc == 0 && mix.xxh3 != mix1.xxh3) {
		rc = -EIO;
	}
	if (rc < 0) {
		ccswap_bench_destroy(bb);
		return error_fail(err, rc, ERR_DATA, "ccswap: check pass: %s%s", strerror(-rc),
				  rc == -EIO ? " (the engine before and now made other bytes)"
					     : "");
	}
	for (unsigned r = 0; r < sz->runs; r++) {
		struct ccswap_bench_time t, t1;

		ccswap_bench_single(bb, true);
		rc = timed(bb, &t1, "the engine before, a call per switch", r, err);
		ccswap_bench_single(bb, false);
		if (rc == 0) {
			rc = timed(bb, &t, "runs of switches", r, err);
		}
		if (rc < 0) {
			ccswap_bench_destroy(bb);
			return rc;
		}
		ns[r] = t.ns_per_switch;
		rate[r] = 1e9 / t.ns_per_switch;
		bytes[r] = (double)t.out_bytes / (double)mix.switches;
		ms[r] = t.memset_ns;
		ratio[r] = t.ns_per_switch / t.memset_ns;
		fl[r] = t1.floor_ns;
		one[r] = t1.ns_per_switch;
		gain[r] = t1.ns_per_switch / t.ns_per_switch;
	}
	ccswap_bench_destroy(bb);
	bench_figure(b, "ccswap.ns_per_switch", "compact engine alone, a lap of switches per call",
		     "ns/switch", ns, sz->runs);
	bench_figure(b, "ccswap.switches_per_s", "compact engine alone", "switches/s", rate,
		     sz->runs);
	bench_figure(b, "ccswap.bytes_per_switch", "compact engine output", "bytes/switch", bytes,
		     sz->runs);
	bench_figure(b, "ccswap.memset_ns_per_switch", "memset of the same bytes", "ns/switch", ms,
		     sz->runs);
	bench_figure(b, "ccswap.memset_ratio", "engine / memset, same run", "x", ratio, sz->runs);
	bench_figure(b, "ccswap.call_floor_ns_per_switch",
		     "harness and an empty call per switch (the floor of a call per switch)",
		     "ns/switch", fl, sz->runs);
	bench_figure(b, "ccswap.before_ns_per_switch",
		     "the engine as it was before runs, a call per switch (its code kept in the "
		     "bench; same binary, same run)",
		     "ns/switch", one, sz->runs);
	bench_figure(b, "ccswap.before_ratio", "before / now, same run", "x", gain, sz->runs);
	describe(b, &o, &mix);
	return 0;
}
