// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_decode.c - (e) of `etwforge bench`: reading a generated
 * file, the compact session's file of the source trace (bench_scratch.c),
 * four ways:
 *   stats     etwforge_file_open() + etwforge_file_stats(): what `dump
 *             --stats` runs, batches counted by form, and the analysis at
 *             ETWFORGE_DETAIL_COUNTS (who the switches went to, CPU time
 *             per thread and process: batches summed a batch at a time)
 *   analysis  etwforge_file_open() + the full analysis (ETWFORGE_DETAIL_FULL,
 *             every switch in time order, no item handed out): what the
 *             pictures and File.schedule() run
 *   iter      etwforge_file_open() + etwforge_iter_next() over every event
 *             (buffers, records, switches expanded from their batches) in
 *             file order: what a consumer of the public API pays
 *   jsonl     the same events in CPU order, each made a JSON line by
 *             etwforge_event_json(): what `dump --jsonl` runs
 * Each run reads the file `decode_repeats` times and is timed in CPU time;
 * each must count every switch of the source. Then stats and analysis again
 * on the compact session's file of server64.yaml (64 CPUs) for 5 x the
 * simulated time of gen's server64 (10 s in a full run), read once per run.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"
#include "tools/bench/bench_build.h"

static const char server64_yaml[] = BENCH_SERVER64_YAML;

/* One read with etwforge_file_stats(). Return: switches, or a negative errno. */
static int64_t read_stats(const char *path, struct etwforge_stats *st, uint64_t *buffers,
			  struct etwforge_error *err)
{
	struct etwforge_file *f = etwforge_file_open(path, 0, err);
	int64_t n;

	if (!f) {
		return err->code ? err->code : -EIO;
	}
	n = etwforge_file_stats(f, st, err);
	etwforge_file_close(f);
	if (n < 0) {
		return n;
	}
	{
		uint64_t v, sum = 0;

		etwforge_stats_count(st, ETWFORGE_STAT_BUFFERS, 0, buffers);
		for (unsigned k = 0; etwforge_stats_count(st, ETWFORGE_STAT_COMPACT, k, &v) == 0;
		     k++) {
			sum += v;
		}
		for (unsigned w = 0; w < 2; w++) {
			etwforge_stats_hook(st, 2, w, 0x0524, &v); /* PERFINFO CSwitch */
			sum += v;
		}
		return (int64_t)sum;
	}
}

/* One full analysis. Return: switches, or a negative errno. */
static int64_t read_analysis(const char *path, struct etwforge_error *err)
{
	struct etwforge_file *f = etwforge_file_open(path, 0, err);
	struct etwforge_analysis *a = f ? etwforge_analysis_new(f, NULL, err) : NULL;
	int64_t n = a ? etwforge_analysis_run(a, err) : -ENOMEM;

	if (!f) {
		return err->code ? err->code : -EIO;
	}
	if (n == 0) {
		n = (int64_t)etwforge_analysis_totals(a)->switches;
	}
	etwforge_analysis_free(a);
	etwforge_file_close(f);
	return n;
}

/* One read with the iterator. Return: switches, or a negative errno. */
static int64_t read_iter(const char *path, uint64_t *events, struct etwforge_error *err)
{
	struct etwforge_file *f = etwforge_file_open(path, 0, err);
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	int64_t n = 0;
	int rc;

	if (!f) {
		return err->code ? err->code : -EIO;
	}
	it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_ALL, err);
	if (!it) {
		etwforge_file_close(f);
		return -ENOMEM;
	}
	*events = 0;
	while ((rc = etwforge_iter_next(it, &ev, err)) > 0) {
		(*events)++;
		n += (ev->kind & ETWFORGE_EV_SWITCHES) != 0;
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	return rc < 0 ? rc : n;
}

/*
 * One read as `dump --jsonl` makes it: every record and expanded switch in
 * CPU order as a JSON line (into a buffer, as dump writes it), the lines'
 * bytes added to *@bytes. Return: switches, or a negative errno.
 */
static int64_t read_jsonl(const char *path, uint64_t *bytes, struct etwforge_error *err)
{
	static char line[16384];
	struct etwforge_file *f = etwforge_file_open(path, 0, err);
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	int64_t n = 0;
	int rc;

	if (!f) {
		return err->code ? err->code : -EIO;
	}
	it = etwforge_iter_new(f, ETWFORGE_ORDER_CPU,
			       ETWFORGE_EV_BUFFER | ETWFORGE_EV_RECORD | ETWFORGE_EV_COMPACT, err);
	if (!it) {
		etwforge_file_close(f);
		return -ENOMEM;
	}
	*bytes = etwforge_file_json(f, line, sizeof(line));
	while ((rc = etwforge_iter_next(it, &ev, err)) > 0) {
		if (ev->kind != ETWFORGE_EV_BUFFER) {
			*bytes += etwforge_event_json(ev, 0, line, sizeof(line)) + 1;
			n += ev->kind == ETWFORGE_EV_COMPACT;
		}
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	return rc < 0 ? rc : n;
}

/*
 * server64.yaml for @ns simulated into @path (its compact session; the plain
 * one beside it). Return: its switches, or a negative errno.
 */
static int64_t make_server64(const char *path, uint64_t ns, struct etwforge_error *err)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_summary *sum = etwforge_summary_new();
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = path);
	ETWFORGE_OPTS(etwforge_totals, t);
	char set[64];
	int64_t rc = -ENOMEM;

	snprintf(set, sizeof(set), "duration=%lluns", (unsigned long long)ns);
	if (sc && sum &&
	    (rc = etwforge_scenario_load_string(sc, "server64.yaml", server64_yaml, err)) == 0 &&
	    (rc = etwforge_scenario_set(sc, set, err)) == 0 &&
	    (rc = etwforge_generate(sc, &o, sum, err)) == 0 &&
	    (rc = etwforge_summary_totals(sum, &t, err)) == 0) {
		rc = (int64_t)t.switches;
	}
	etwforge_summary_free(sum);
	etwforge_scenario_free(sc);
	return rc;
}

/* stats and the full analysis of server64's compact file, once per run. */
static int decode_server64(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
			   struct etwforge_error *err)
{
	double ssw[BENCH_MAX_RUNS], asw[BENCH_MAX_RUNS];
	const char *path = bench_scratch_path(s, BENCH_F_GEN); /* (d) is done with it */
	struct etwforge_stats *st = etwforge_stats_new();
	uint64_t ns = 5 * sz->gen_server_ns, buffers = 0;
	int64_t switches, n = 0;
	struct bench_work *w;
	struct stat fs;

	if (!st) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s", strerror(ENOMEM));
	}
	bench_progress(b, "decode: server64.yaml (generating it first)");
	switches = make_server64(path, ns, err);
	if (switches >= 0 && stat(path, &fs) < 0) {
		switches = error_fail(err, -errno, ERR_DATA, "%s: %s", path, strerror(errno));
	}
	for (unsigned r = 0; r < sz->runs && switches >= 0 && n >= 0; r++) {
		double t0 = bench_cpu_s();

		n = read_stats(path, st, &buffers, err);
		ssw[r] = (double)switches / (bench_cpu_s() - t0);
		t0 = bench_cpu_s();
		if (n >= 0) {
			n = read_analysis(path, err);
		}
		asw[r] = (double)switches / (bench_cpu_s() - t0);
		if (n >= 0 && n != switches) {
			n = error_fail(err, -EIO, ERR_DATA,
				       "decode: %s: %lld switches, %lld generated", path,
				       (long long)n, (long long)switches);
		}
	}
	etwforge_stats_free(st);
	if (switches < 0 || n < 0) {
		return (int)(switches < 0 ? switches : n);
	}
	bench_figure(b, "decode.server64.stats.switches_per_s",
		     "dump --stats of server64 (counts and CPU time per process)", "switches/s",
		     ssw, sz->runs);
	bench_figure(b, "decode.server64.analysis.switches_per_s",
		     "the full analysis of server64, in time order", "switches/s", asw, sz->runs);
	w = bench_work_add(b, "decode.server64",
			   "the compact session's file of server64.yaml run for %.3f s simulated, "
			   "read once per run",
			   (double)ns * 1e-9);
	bench_kv_u64(w, "bytes", (uint64_t)fs.st_size, 0);
	bench_kv_u64(w, "buffers", buffers, 0);
	bench_kv_u64(w, "switches", (uint64_t)switches, 0);
	return 0;
}

int bench_decode(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
		 struct etwforge_error *err)
{
	double smb[BENCH_MAX_RUNS], ssw[BENCH_MAX_RUNS], imb[BENCH_MAX_RUNS], isw[BENCH_MAX_RUNS];
	double asw[BENCH_MAX_RUNS], jsw[BENCH_MAX_RUNS], jmb[BENCH_MAX_RUNS];
	const char *path = bench_scratch_path(s, BENCH_F_SRC);
	uint64_t switches, buffers = 0, events = 0, json_bytes = 0;
	struct bench_source src;
	struct etwforge_stats *st;
	struct bench_work *w;
	struct stat fs;
	double bytes;
	int rc;

	bench_progress(b, "decode: the source trace (generating it first)");
	rc = bench_scratch_source(s, sz->source_ns, &src, err);
	if (rc < 0) {
		return rc;
	}
	switches = src.switches;
	if (stat(path, &fs) < 0) {
		return error_fail(err, -errno, ERR_DATA, "%s: %s", path, strerror(errno));
	}
	bytes = (double)fs.st_size * sz->decode_repeats;
	st = etwforge_stats_new();
	if (!st) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s", strerror(ENOMEM));
	}
	bench_progress(b, "decode: reading it");
	for (unsigned r = 0; r < sz->runs && rc == 0; r++) {
		double t0 = bench_cpu_s(), t;
		int64_t n = 0;

		for (unsigned k = 0; k < sz->decode_repeats && n >= 0; k++) {
			n = read_stats(path, st, &buffers, err);
		}
		t = bench_cpu_s() - t0;
		if (n >= 0 && (uint64_t)n != switches) {
			n = error_fail(err, -EIO, ERR_DATA,
				       "decode: %s: %lld switches counted, %llu generated", path,
				       (long long)n, (unsigned long long)switches);
		}
		smb[r] = bytes / t * 1e-6;
		ssw[r] = (double)switches * sz->decode_repeats / t;
		t0 = bench_cpu_s();
		for (unsigned k = 0; k < sz->decode_repeats && n >= 0; k++) {
			n = read_iter(path, &events, err);
		}
		t = bench_cpu_s() - t0;
		if (n >= 0 && (uint64_t)n != switches) {
			n = error_fail(err, -EIO, ERR_DATA,
				       "decode: %s: %lld switches iterated, %llu generated", path,
				       (long long)n, (unsigned long long)switches);
		}
		imb[r] = bytes / t * 1e-6;
		isw[r] = (double)switches * sz->decode_repeats / t;
		t0 = bench_cpu_s();
		for (unsigned k = 0; k < sz->decode_repeats && n >= 0; k++) {
			n = read_analysis(path, err);
		}
		t = bench_cpu_s() - t0;
		if (n >= 0 && (uint64_t)n != switches) {
			n = error_fail(err, -EIO, ERR_DATA,
				       "decode: %s: %lld switches analysed, %llu generated", path,
				       (long long)n, (unsigned long long)switches);
		}
		asw[r] = (double)switches * sz->decode_repeats / t;
		t0 = bench_cpu_s();
		for (unsigned k = 0; k < sz->decode_repeats && n >= 0; k++) {
			n = read_jsonl(path, &json_bytes, err);
		}
		t = bench_cpu_s() - t0;
		if (n >= 0 && (uint64_t)n != switches) {
			n = error_fail(err, -EIO, ERR_DATA,
				       "decode: %s: %lld switches as JSON lines, %llu generated",
				       path, (long long)n, (unsigned long long)switches);
		}
		jsw[r] = (double)switches * sz->decode_repeats / t;
		jmb[r] = (double)json_bytes * sz->decode_repeats / t * 1e-6;
		rc = n < 0 ? (int)n : 0;
	}
	etwforge_stats_free(st);
	if (rc < 0) {
		return rc;
	}
	bench_figure(b, "decode.stats.mb_per_s", "dump --stats (etwforge_file_stats)", "MB/s", smb,
		     sz->runs);
	bench_figure(b, "decode.stats.switches_per_s", "dump --stats (etwforge_file_stats)",
		     "switches/s", ssw, sz->runs);
	bench_figure(b, "decode.analysis.switches_per_s",
		     "the full analysis in time order (etwforge_analysis_run)", "switches/s", asw,
		     sz->runs);
	bench_figure(b, "decode.iter.mb_per_s", "every event by etwforge_iter_next", "MB/s", imb,
		     sz->runs);
	bench_figure(b, "decode.iter.switches_per_s", "every event by etwforge_iter_next",
		     "switches/s", isw, sz->runs);
	bench_figure(b, "decode.jsonl.switches_per_s",
		     "every event as a JSON line (dump --jsonl, etwforge_event_json)", "switches/s",
		     jsw, sz->runs);
	bench_figure(b, "decode.jsonl.mb_per_s",
		     "every event as a JSON line (dump --jsonl): JSON bytes made", "MB/s", jmb,
		     sz->runs);
	w = bench_work_add(b, "decode",
			   "the compact session's file of the default scenario run for %.3f s "
			   "simulated, read %u time%s per run",
			   (double)sz->source_ns * 1e-9, sz->decode_repeats,
			   sz->decode_repeats == 1 ? "" : "s");
	bench_kv_u64(w, "bytes", (uint64_t)fs.st_size, 0);
	bench_kv_u64(w, "buffers", buffers, 0);
	bench_kv_u64(w, "events", events, 0);
	bench_kv_u64(w, "switches", switches, 0);
	bench_kv_hex(w, "xxh3", src.xxh3);
	return decode_server64(b, sz, s, err);
}
