/* SPDX-License-Identifier: MIT */
/*
 * tests/test_truth.c - the truth / replay stream (tools/lib/truth.h): exact
 * text of meta and record lines (hand-typed from DESIGN.md's field names
 * and order), write -> read round trips of every record kind and field,
 * defaults of a hand-written stream, and a table of bad lines with the
 * line number and message each must produce.
 *
 * Stream texts in the tables use ' for " (put_file() swaps them) so that
 * they stay readable.
 */
#include <criterion/criterion.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/lib/truth/truth.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_truth.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/case.jsonl", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(truth, .init = setup, .fini = teardown, .timeout = 10.);

/* Write @text (with ' standing for ") to the case file; Return: its path. */
static const char *put_file(const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	for (const char *p = text; *p; p++) {
		fputc(*p == '\'' ? '"' : *p, f);
	}
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* Write @text as is. */
static const char *put_raw(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return path;
}

struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	cr_assert_not_null(m->f);
	return m->f;
}

/* Close the stream; Return: its text (free() it). */
static char *mem_close(struct mem *m)
{
	cr_assert_eq(fclose(m->f), 0);
	return m->buf;
}

static void add_counters(struct trace_config *cfg, struct trace_session_cfg *s,
			 const char *const *names, unsigned n)
{
	for (unsigned j = 0; j < n; j++) {
		int id = trace_config_counter_id(cfg, names[j]);

		cr_assert(id >= 0);
		s->pmc_counters[j] = (uint8_t)id;
	}
	s->pmc_count = n;
}

/* DESIGN.md's example machine, every value set here rather than from the defaults. */
static void design_cfg(struct trace_config *cfg)
{
	struct trace_session_cfg *s = &cfg->sessions[0];

	trace_config_defaults(cfg);
	cfg->target = etw_target_find("win10-1709");
	cr_assert_not_null(cfg->target);
	cfg->arch = ETL_ARCH_X64;
	cfg->cpus = 8;
	cfg->cpu_mhz = 3000;
	cfg->perf_freq = 10000000;
	cfg->timer_resolution = 156250;
	cfg->max_wait_reason = 40;
	cfg->start_time = 133000000000000000;
	cfg->boot_time = 132999964000000000;
	cfg->quirks = true;
	cfg->flush_at_end = true;
	cfg->pebs_and_pmc = false;
	cfg->seed = 1;
	cfg->have_start_ts = false;
	cfg->nsessions = 1;
	memset(s, 0, sizeof(*s));
	strcpy(s->name, "NT Kernel Logger");
	s->clock = SIM_CLOCK_QPC;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	s->buffer_size = 65536;
	strcpy(s->file, "out.etl");
}

/* ---- exact text ----------------------------------------------------------- */

Test(truth, meta_line_is_designs_text)
{
	struct trace_config cfg;
	struct mem m;
	char *got;

	design_cfg(&cfg);
	cr_assert_eq(truth_write_meta(mem_open(&m), &cfg), 0);
	got = mem_close(&m);
	/* DESIGN.md's meta example, then the extensions; boot_time = start - 1 h (3.6e10) */
	cr_assert_str_eq(
		got,
		"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,"
		"\"target\":\"win10-1709\",\"arch\":\"x64\",\"cpus\":8,\"cpu_mhz\":3000,"
		"\"perf_freq\":10000000,\"timer_resolution\":156250,\"max_wait_reason\":40,"
		"\"start_time\":133000000000000000,\"quirks\":true,\"seed\":1,"
		"\"sessions\":[{\"name\":\"NT Kernel Logger\",\"clock\":\"qpc\","
		"\"flags\":[\"cswitch\",\"compact_cswitch\"],\"pebs\":false,"
		"\"pmc\":{\"counters\":[],\"events\":[]},\"buffer_size\":65536,"
		"\"file\":\"out.etl\",\"pool_buffers\":0,\"flush_latency\":0}],"
		"\"boot_time\":132999964000000000,\"flush_at_end\":true,\"pebs_and_pmc\":false}\n");
	free(got);
}

Test(truth, meta_line_with_every_extension)
{
	static const char *const names[] = {"TotalIssues", "BranchMispredictions"};
	struct trace_config cfg;
	struct trace_session_cfg *s;
	struct mem m;
	char *got;

	design_cfg(&cfg);
	cfg.arch = ETL_ARCH_X86;
	cfg.quirks = false;
	cfg.flush_at_end = false;
	cfg.pebs_and_pmc = true;
	cfg.have_start_ts = true;
	cfg.start_ts[SIM_CLOCK_QPC] = 11;
	cfg.start_ts[SIM_CLOCK_SYSTIME] = 22; /* not in use: not written */
	cfg.start_ts[SIM_CLOCK_CYCLES] = 33;
	cfg.nsessions = 2;
	s = &cfg.sessions[1];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, "pmc \"x\"");
	s->clock = SIM_CLOCK_CYCLES;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_SPINLOCK;
	s->pebs = true;
	add_counters(&cfg, s, names, 2);
	s->pmc_events[0] = 0x0524;
	s->pmc_events[1] = 0x0529;
	s->pmc_event_count = 2;
	s->buffer_size = 8192;
	s->pool_buffers = 64;
	s->flush_latency = 12345;
	strcpy(s->file, "b.etl");
	cr_assert_eq(truth_write_meta(mem_open(&m), &cfg), 0);
	got = mem_close(&m);
	cr_assert_str_eq(
		got,
		"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,"
		"\"target\":\"win10-1709\",\"arch\":\"x86\",\"cpus\":8,\"cpu_mhz\":3000,"
		"\"perf_freq\":10000000,\"timer_resolution\":156250,\"max_wait_reason\":40,"
		"\"start_time\":133000000000000000,\"quirks\":false,\"seed\":1,"
		"\"sessions\":[{\"name\":\"NT Kernel Logger\",\"clock\":\"qpc\","
		"\"flags\":[\"cswitch\",\"compact_cswitch\"],\"pebs\":false,"
		"\"pmc\":{\"counters\":[],\"events\":[]},\"buffer_size\":65536,"
		"\"file\":\"out.etl\",\"pool_buffers\":0,\"flush_latency\":0},"
		"{\"name\":\"pmc \\\"x\\\"\",\"clock\":\"cycles\","
		"\"flags\":[\"cswitch\",\"spinlock\"],"
		"\"pebs\":true,\"pmc\":{\"counters\":[\"TotalIssues\",\"BranchMispredictions\"],"
		"\"events\":[\"0x0524\",\"0x0529\"]},\"buffer_size\":8192,\"file\":\"b.etl\","
		"\"pool_buffers\":64,\"flush_latency\":12345}],"
		"\"boot_time\":132999964000000000,\"start_ts\":{\"qpc\":11,\"cycles\":33},"
		"\"flush_at_end\":false,\"pebs_and_pmc\":true}\n");
	free(got);
}

/* DESIGN.md's example switch. */
static void design_cswitch(struct sim_cswitch *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->cpu = 0;
	cs->tick = 12;
	cs->ts[SIM_CLOCK_QPC] = 1234567;
	cs->ts[SIM_CLOCK_SYSTIME] = 777; /* not in use: not written */
	cs->ts[SIM_CLOCK_CYCLES] = 999;
	cs->old_tid = 1204;
	cs->old_pri = 9;
	cs->old_base_pri = 8;
	cs->old_state = 5;
	cs->old_wait_reason = 6;
	cs->old_wait_mode = 1;
	cs->old_ideal_cpu = 0;
	cs->old_remaining_quantum = -3;
	cs->new_tid = 5678;
	cs->new_pri = 10;
	cs->new_wait_ticks = 2;
}

Test(truth, cswitch_line_is_designs_text)
{
	static const char *const names[] = {"TotalIssues", "BranchMispredictions"};
	struct trace_config cfg;
	struct sim_cswitch cs;
	struct mem m;
	char *got;

	design_cfg(&cfg);
	cfg.sessions[0].flags = PRODUCER_F_CSWITCH;
	cfg.sessions[0].pebs = true;
	add_counters(&cfg, &cfg.sessions[0], names, 2);
	cfg.sessions[0].pmc_events[0] = 0x0524;
	cfg.sessions[0].pmc_event_count = 1;
	design_cswitch(&cs);
	cs.pmc[0] = 111;
	cs.pmc[1] = 222;
	cs.pmc[2] = 333; /* no session lists counter 2: not written */
	cs.pebs_index = 4096;
	cr_assert_eq(truth_write_cswitch(mem_open(&m), &cfg, &cs), 0);
	got = mem_close(&m);
	cr_assert_str_eq(
		got, "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":12,\"ts\":{\"qpc\":1234567},"
		     "\"old_tid\":1204,\"old_pri\":9,\"old_base_pri\":8,\"old_state\":5,"
		     "\"old_wait_reason\":6,\"old_wait_mode\":1,\"old_ideal_cpu\":0,"
		     "\"old_remaining_quantum\":-3,\"old_qos\":0,\"prev_cstate\":0,\"old_rank\":0,"
		     "\"new_tid\":5678,\"new_pri\":10,\"new_pri_decrement\":0,\"new_wait_ticks\":2,"
		     "\"new_qos\":0,\"pmc\":[111,222],\"pebs_index\":\"0x1000\"}\n");
	free(got);
}

Test(truth, cswitch_line_without_pmc_or_pebs_has_clocks_in_order)
{
	struct trace_config cfg;
	struct sim_cswitch cs;
	struct mem m;
	char *got;

	design_cfg(&cfg);
	/* the cycles session comes first, "ts" is still qpc, then cycles */
	cfg.sessions[1] = cfg.sessions[0];
	cfg.sessions[0].clock = SIM_CLOCK_CYCLES;
	strcpy(cfg.sessions[0].name, "cycles logger");
	strcpy(cfg.sessions[0].file, "c.etl");
	/* a compact session listing 0x0524 does not stamp: it logs 0x0525 */
	cfg.sessions[0].pmc_counters[0] = (uint8_t)trace_config_counter_id(&cfg, "TotalIssues");
	cfg.sessions[0].pmc_count = 1;
	cfg.sessions[0].pmc_events[0] = 0x0524;
	cfg.sessions[0].pmc_event_count = 1;
	cfg.nsessions = 2;
	design_cswitch(&cs);
	cs.old_qos = 7;
	cs.new_qos = 3;
	cs.prev_cstate = 2;
	cs.old_rank = 255;
	cs.new_pri_decrement = -128;
	cs.pmc[0] = 5;
	cs.pebs_index = 9;
	cr_assert_eq(truth_write_cswitch(mem_open(&m), &cfg, &cs), 0);
	got = mem_close(&m);
	cr_assert_str_eq(
		got,
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":12,"
		"\"ts\":{\"qpc\":1234567,\"cycles\":999},"
		"\"old_tid\":1204,\"old_pri\":9,\"old_base_pri\":8,\"old_state\":5,"
		"\"old_wait_reason\":6,\"old_wait_mode\":1,\"old_ideal_cpu\":0,"
		"\"old_remaining_quantum\":-3,\"old_qos\":7,\"prev_cstate\":2,\"old_rank\":255,"
		"\"new_tid\":5678,\"new_pri\":10,\"new_pri_decrement\":-128,\"new_wait_ticks\":2,"
		"\"new_qos\":3}\n");
	free(got);
}

Test(truth, spinlock_stop_and_end_lines_are_designs_text)
{
	struct trace_config cfg;
	struct sim_spinlock sl;
	struct sim_ccswap_stop st;
	struct sim_end end;
	struct mem m;
	FILE *f;
	char *got;

	design_cfg(&cfg);
	memset(&sl, 0, sizeof(sl));
	sl.cpu = 1;
	sl.tick = 13;
	sl.ts[SIM_CLOCK_QPC] = 1234999;
	sl.lock = 0xfffff8031a2b3c40;
	sl.caller = 0xfffff8031a000123;
	sl.acquire_time = 100;
	sl.release_time = 250;
	sl.wait_cycles = 40;
	sl.spin_count = 3;
	sl.tid = 77;
	sl.interrupt_count = 1;
	sl.irql = 2;
	sl.depth = 1;
	sl.mode = 0;
	sl.dpc = false;
	sl.isr = true;
	sl.logged = true;
	sl.why = SIM_SPIN_CONTENDED;
	memset(&st, 0, sizeof(st));
	st.tick = 20;
	st.ts[SIM_CLOCK_QPC] = 5000;
	st.clock = SIM_CLOCK_QPC;
	memset(&end, 0, sizeof(end));
	end.tick = 640;
	end.ts[SIM_CLOCK_QPC] = 99999999;
	f = mem_open(&m);
	cr_assert_eq(truth_write_spinlock(f, &cfg, &sl), 0);
	sl.lock = 0;
	sl.caller = 0xa;
	sl.why = SIM_SPIN_ACQUIRE_SAMPLE;
	sl.logged = false;
	cr_assert_eq(truth_write_spinlock(f, &cfg, &sl), 0);
	cr_assert_eq(truth_write_ccswap_stop(f, &cfg, &st), 0);
	cr_assert_eq(truth_write_end(f, &cfg, &end), 0);
	got = mem_close(&m);
	cr_assert_str_eq(
		got,
		"{\"kind\":\"spinlock\",\"cpu\":1,\"tick\":13,\"ts\":{\"qpc\":1234999},"
		"\"lock\":\"0xfffff8031a2b3c40\",\"caller\":\"0xfffff8031a000123\","
		"\"acquire_time\":100,\"release_time\":250,\"wait_cycles\":40,\"spin_count\":3,"
		"\"tid\":77,\"interrupt_count\":1,\"irql\":2,\"depth\":1,\"mode\":0,\"dpc\":false,"
		"\"isr\":true,\"logged\":true,\"why\":\"contended\"}\n"
		"{\"kind\":\"spinlock\",\"cpu\":1,\"tick\":13,\"ts\":{\"qpc\":1234999},"
		"\"lock\":\"0x0\",\"caller\":\"0xa\","
		"\"acquire_time\":100,\"release_time\":250,\"wait_cycles\":40,\"spin_count\":3,"
		"\"tid\":77,\"interrupt_count\":1,\"irql\":2,\"depth\":1,\"mode\":0,\"dpc\":false,"
		"\"isr\":true,\"logged\":false,\"why\":\"acquire_sample\"}\n"
		"{\"kind\":\"ccswap_stop\",\"tick\":20,\"ts\":{\"qpc\":5000},\"clock\":\"qpc\"}\n"
		"{\"kind\":\"end\",\"tick\":640,\"ts\":{\"qpc\":99999999}}\n");
	free(got);
}

Test(truth, strings_are_escaped_and_read_back)
{
	struct trace_config cfg, back;
	struct truth_reader *r;
	struct mem m;
	struct etwforge_error e = {0};
	char *got;

	design_cfg(&cfg);
	/* quote, backslash, newline, tab, another control byte, UTF-8, a stray byte */
	strcpy(cfg.sessions[0].name, "a\"b\\c\nd\te\x01"
				     "f\xc3\xa9g\xff");
	cr_assert_eq(truth_write_meta(mem_open(&m), &cfg), 0);
	got = mem_close(&m);
	cr_assert_not_null(strstr(got, "\"name\":\"a\\\"b\\\\c\\nd\\te\\u0001f\xc3\xa9g\\ufffd\""),
			   "%s", got);
	put_raw(got, strlen(got));
	free(got);
	r = truth_open(path, &back, &e);
	cr_assert_not_null(r, "%s", e.msg);
	cr_assert_str_eq(back.sessions[0].name, "a\"b\\c\nd\te\x01"
						"f\xc3\xa9g\xef\xbf\xbd");
	truth_close(r);
}

/* ---- round trips ---------------------------------------------------------- */

static void expect_cfg_eq(const struct trace_config *a, const struct trace_config *b)
{
	cr_expect_eq(a->target, b->target);
	cr_expect_eq(a->arch, b->arch);
	cr_expect_eq(a->cpus, b->cpus);
	cr_expect_eq(a->cpu_mhz, b->cpu_mhz);
	cr_expect_eq(a->perf_freq, b->perf_freq);
	cr_expect_eq(a->timer_resolution, b->timer_resolution);
	cr_expect_eq(a->max_wait_reason, b->max_wait_reason);
	cr_expect_eq(a->start_time, b->start_time);
	cr_expect_eq(a->boot_time, b->boot_time);
	cr_expect_eq(a->quirks, b->quirks);
	cr_expect_eq(a->flush_at_end, b->flush_at_end);
	cr_expect_eq(a->pebs_and_pmc, b->pebs_and_pmc);
	cr_expect_eq(a->seed, b->seed);
	cr_expect_eq(a->have_start_ts, b->have_start_ts);
	for (unsigned c = 1; c < SIM_CLOCK_SLOTS; c++) {
		cr_expect_eq(a->start_ts[c], b->start_ts[c], "start_ts[%u]", c);
	}
	cr_expect_eq(a->ncounters, b->ncounters);
	for (unsigned i = 0; i < a->ncounters && i < b->ncounters; i++) {
		cr_expect_str_eq(a->counters[i], b->counters[i]);
	}
	cr_assert_eq(a->nsessions, b->nsessions);
	for (unsigned i = 0; i < a->nsessions; i++) {
		const struct trace_session_cfg *x = &a->sessions[i], *y = &b->sessions[i];

		cr_expect_str_eq(x->name, y->name, "session %u", i);
		cr_expect_eq(x->clock, y->clock, "session %u", i);
		cr_expect_eq(x->flags, y->flags, "session %u", i);
		cr_expect_eq(x->pebs, y->pebs, "session %u", i);
		cr_expect_eq(x->pmc_count, y->pmc_count, "session %u", i);
		for (unsigned j = 0; j < x->pmc_count && j < y->pmc_count; j++) {
			cr_expect_eq(x->pmc_counters[j], y->pmc_counters[j], "session %u", i);
		}
		cr_expect_eq(x->pmc_event_count, y->pmc_event_count, "session %u", i);
		for (unsigned j = 0; j < x->pmc_event_count && j < y->pmc_event_count; j++) {
			cr_expect_eq(x->pmc_events[j], y->pmc_events[j], "session %u", i);
		}
		cr_expect_eq(x->buffer_size, y->buffer_size, "session %u", i);
		cr_expect_eq(x->pool_buffers, y->pool_buffers, "session %u", i);
		cr_expect_eq(x->flush_latency, y->flush_latency, "session %u", i);
		cr_expect_str_eq(x->file, y->file, "session %u", i);
	}
}

#define EXPECT_FIELD(a, b, f, line) cr_expect_eq((a)->f, (b)->f, "line %lu: " #f, line)

static void expect_ts_pmc_eq(const uint64_t *ta, const uint64_t *tb, const uint64_t *pa,
			     const uint64_t *pb, unsigned long line)
{
	for (unsigned c = 1; c < SIM_CLOCK_SLOTS; c++) {
		cr_expect_eq(ta[c], tb[c], "line %lu: ts[%u]", line, c);
	}
	for (unsigned k = 0; pa && k < SIM_MAX_COUNTERS; k++) {
		cr_expect_eq(pa[k], pb[k], "line %lu: pmc[%u]", line, k);
	}
}

static void expect_cs_eq(const struct sim_cswitch *a, const struct sim_cswitch *b,
			 unsigned long line)
{
	EXPECT_FIELD(a, b, cpu, line);
	EXPECT_FIELD(a, b, tick, line);
	EXPECT_FIELD(a, b, old_tid, line);
	EXPECT_FIELD(a, b, old_pri, line);
	EXPECT_FIELD(a, b, old_base_pri, line);
	EXPECT_FIELD(a, b, old_state, line);
	EXPECT_FIELD(a, b, old_wait_reason, line);
	EXPECT_FIELD(a, b, old_wait_mode, line);
	EXPECT_FIELD(a, b, old_ideal_cpu, line);
	EXPECT_FIELD(a, b, old_remaining_quantum, line);
	EXPECT_FIELD(a, b, old_qos, line);
	EXPECT_FIELD(a, b, prev_cstate, line);
	EXPECT_FIELD(a, b, old_rank, line);
	EXPECT_FIELD(a, b, new_tid, line);
	EXPECT_FIELD(a, b, new_pri, line);
	EXPECT_FIELD(a, b, new_pri_decrement, line);
	EXPECT_FIELD(a, b, new_wait_ticks, line);
	EXPECT_FIELD(a, b, new_qos, line);
	EXPECT_FIELD(a, b, pebs_index, line);
	expect_ts_pmc_eq(a->ts, b->ts, a->pmc, b->pmc, line);
}

static void expect_sl_eq(const struct sim_spinlock *a, const struct sim_spinlock *b,
			 unsigned long line)
{
	EXPECT_FIELD(a, b, cpu, line);
	EXPECT_FIELD(a, b, tick, line);
	EXPECT_FIELD(a, b, lock, line);
	EXPECT_FIELD(a, b, caller, line);
	EXPECT_FIELD(a, b, acquire_time, line);
	EXPECT_FIELD(a, b, release_time, line);
	EXPECT_FIELD(a, b, wait_cycles, line);
	EXPECT_FIELD(a, b, spin_count, line);
	EXPECT_FIELD(a, b, tid, line);
	EXPECT_FIELD(a, b, interrupt_count, line);
	EXPECT_FIELD(a, b, irql, line);
	EXPECT_FIELD(a, b, depth, line);
	EXPECT_FIELD(a, b, mode, line);
	EXPECT_FIELD(a, b, dpc, line);
	EXPECT_FIELD(a, b, isr, line);
	EXPECT_FIELD(a, b, logged, line);
	EXPECT_FIELD(a, b, why, line);
	expect_ts_pmc_eq(a->ts, b->ts, a->pmc, b->pmc, line);
}

/* One record as written, for the round trips. */
struct rt_rec {
	enum truth_kind kind;
	union {
		struct sim_cswitch cs;
		struct sim_spinlock sl;
		struct sim_ccswap_stop stop;
		struct sim_end end;
	} u;
};

static void write_all(FILE *f, const struct trace_config *cfg, const struct rt_rec *recs,
		      unsigned n)
{
	cr_assert_eq(truth_write_meta(f, cfg), 0);
	for (unsigned i = 0; i < n; i++) {
		switch (recs[i].kind) {
		case TRUTH_CSWITCH:
			cr_assert_eq(truth_write_cswitch(f, cfg, &recs[i].u.cs), 0);
			break;
		case TRUTH_SPINLOCK:
			cr_assert_eq(truth_write_spinlock(f, cfg, &recs[i].u.sl), 0);
			break;
		case TRUTH_CCSWAP_STOP:
			cr_assert_eq(truth_write_ccswap_stop(f, cfg, &recs[i].u.stop), 0);
			break;
		default:
			cr_assert_eq(truth_write_end(f, cfg, &recs[i].u.end), 0);
			break;
		}
	}
}

/* Write @cfg + @recs, read them back, compare everything; Return: the text. */
static char *round_trip(const struct trace_config *cfg, const struct rt_rec *recs, unsigned n)
{
	static struct trace_config back;
	struct truth_reader *r;
	struct truth_record rec;
	struct mem m;
	struct etwforge_error e = {0};
	char *text;
	int kind;

	write_all(mem_open(&m), cfg, recs, n);
	text = mem_close(&m);
	put_raw(text, strlen(text));
	memset(&back, 0xA5, sizeof(back));
	r = truth_open(path, &back, &e);
	cr_assert_not_null(r, "%s\n%s", e.msg, text);
	expect_cfg_eq(cfg, &back);
	for (unsigned i = 0; i < n; i++) {
		unsigned long line = i + 2;

		kind = truth_next(r, &rec, &e);
		cr_assert_eq(kind, (int)recs[i].kind, "line %lu: %d (%s)", line, kind,
			     kind < 0 ? e.msg : "");
		cr_expect_eq(rec.line, line);
		switch (recs[i].kind) {
		case TRUTH_CSWITCH:
			expect_cs_eq(&recs[i].u.cs, &rec.u.cs, line);
			break;
		case TRUTH_SPINLOCK:
			expect_sl_eq(&recs[i].u.sl, &rec.u.sl, line);
			break;
		case TRUTH_CCSWAP_STOP:
			cr_expect_eq(rec.u.stop.tick, recs[i].u.stop.tick);
			cr_expect_eq(rec.u.stop.clock, recs[i].u.stop.clock);
			expect_ts_pmc_eq(recs[i].u.stop.ts, rec.u.stop.ts, NULL, NULL, line);
			break;
		default:
			cr_expect_eq(rec.u.end.tick, recs[i].u.end.tick);
			expect_ts_pmc_eq(recs[i].u.end.ts, rec.u.end.ts, NULL, NULL, line);
			break;
		}
	}
	cr_expect_eq(truth_next(r, &rec, &e), TRUTH_EOF);
	cr_expect_eq(truth_next(r, &rec, &e), TRUTH_EOF, "EOF stays EOF");
	truth_close(r);
	return text;
}

/*
 * Three sessions, three clocks: switches are stamped by the compact session
 * (0x0525) and the plain one (0x0524) with the same counters A, B: a list;
 * spin locks by "plain" (A, B) and "spin" (C): an object.
 */
static void three_sessions(struct trace_config *cfg)
{
	static const char *const ab[] = {"A", "B"}, *const c[] = {"C"};
	struct trace_session_cfg *s;

	design_cfg(cfg);
	cfg->target = etw_target_find("win11-22h2");
	cr_assert_not_null(cfg->target);
	cfg->cpus = 4;
	cfg->cpu_mhz = 2400;
	cfg->perf_freq = 24000000;
	cfg->timer_resolution = 100000;
	cfg->max_wait_reason = 43;
	cfg->start_time = 133100000000000000;
	cfg->boot_time = 133099000000000000;
	cfg->quirks = false;
	cfg->flush_at_end = false;
	cfg->pebs_and_pmc = true;
	cfg->seed = INT64_MAX;
	cfg->have_start_ts = true;
	cfg->start_ts[SIM_CLOCK_QPC] = 100;
	cfg->start_ts[SIM_CLOCK_SYSTIME] = 200;
	cfg->start_ts[SIM_CLOCK_CYCLES] = 300;
	cfg->nsessions = 3;
	s = &cfg->sessions[0];
	add_counters(cfg, s, ab, 2);
	s->pmc_events[0] = 0x0525;
	s->pmc_event_count = 1;
	s->pool_buffers = 16;
	s->flush_latency = 1000;
	s = &cfg->sessions[1];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, "plain");
	s->clock = SIM_CLOCK_CYCLES;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_SPINLOCK;
	s->pebs = true;
	add_counters(cfg, s, ab, 2);
	s->pmc_events[0] = 0x0524;
	s->pmc_events[1] = 0x0529;
	s->pmc_events[2] = 0x0f2f;
	s->pmc_event_count = 3;
	s->buffer_size = 4096;
	strcpy(s->file, "plain.etl");
	s = &cfg->sessions[2];
	memset(s, 0, sizeof(*s));
	strcpy(s->name, "spin");
	s->clock = SIM_CLOCK_SYSTIME;
	s->flags = PRODUCER_F_SPINLOCK;
	add_counters(cfg, s, c, 1);
	s->pmc_events[0] = 0x0529;
	s->pmc_event_count = 1;
	s->buffer_size = 1024 * 1024;
	strcpy(s->file, "spin.etl");
}

static void set_ts(uint64_t *ts, uint64_t qpc, uint64_t systime, uint64_t cycles)
{
	ts[SIM_CLOCK_QPC] = qpc;
	ts[SIM_CLOCK_SYSTIME] = systime;
	ts[SIM_CLOCK_CYCLES] = cycles;
}

Test(truth, round_trip_every_kind_and_field)
{
	static struct trace_config cfg;
	static struct rt_rec recs[8];
	struct sim_cswitch *cs;
	struct sim_spinlock *sl;
	char *text;

	three_sessions(&cfg);
	memset(recs, 0, sizeof(recs));

	recs[0].kind = TRUTH_CSWITCH; /* every field at its upper edge */
	cs = &recs[0].u.cs;
	cs->cpu = 3;
	cs->tick = UINT32_MAX;
	set_ts(cs->ts, INT64_MAX, INT64_MAX - 1, INT64_MAX - 2);
	cs->old_tid = UINT32_MAX;
	cs->old_pri = 31;
	cs->old_base_pri = 31;
	cs->old_state = 10;
	cs->old_wait_reason = 63; /* not Waiting: any 6-bit value */
	cs->old_wait_mode = 1;
	cs->old_ideal_cpu = UINT32_MAX;
	cs->old_remaining_quantum = INT32_MAX;
	cs->old_qos = 7;
	cs->prev_cstate = 255;
	cs->old_rank = 255;
	cs->new_tid = UINT32_MAX;
	cs->new_pri = 31;
	cs->new_pri_decrement = 127;
	cs->new_wait_ticks = UINT32_MAX;
	cs->new_qos = 7;
	cs->pmc[0] = INT64_MAX;
	cs->pmc[1] = 1;
	cs->pebs_index = UINT64_MAX - 5; /* an address: the full 64 bits, as hex */

	recs[1].kind = TRUTH_CSWITCH; /* lower edges, on CPU 0 */
	cs = &recs[1].u.cs;
	cs->old_state = 5;
	cs->old_wait_reason = 42; /* Waiting: below max_wait_reason 43 */
	cs->old_remaining_quantum = INT32_MIN;
	cs->new_pri_decrement = -128;
	cs->new_tid = 4;

	recs[2].kind = TRUTH_CSWITCH; /* CPU 0 again, same time: not backwards */
	cs = &recs[2].u.cs;
	cs->old_tid = 4;
	cs->new_tid = 0;
	cs->old_pri = 8;
	cs->old_base_pri = 7;
	cs->old_state = 2;
	cs->prev_cstate = 1;
	cs->pmc[0] = 1000;
	cs->pmc[1] = 2000;
	cs->pebs_index = 17;

	recs[3].kind = TRUTH_SPINLOCK;
	sl = &recs[3].u.sl;
	sl->cpu = 0;
	sl->tick = 5;
	set_ts(sl->ts, 10, 20, 30);
	sl->lock = UINT64_MAX;
	sl->caller = 0xfffff8031a000123;
	sl->acquire_time = 1;
	sl->release_time = INT64_MAX;
	sl->wait_cycles = UINT32_MAX;
	sl->spin_count = 7;
	sl->tid = UINT32_MAX;
	sl->interrupt_count = 3;
	sl->irql = 31;
	sl->depth = 255;
	sl->mode = 63;
	sl->dpc = true;
	sl->isr = true;
	sl->logged = true;
	sl->why = SIM_SPIN_HOLD;
	sl->pmc[0] = 11;
	sl->pmc[1] = 22;
	sl->pmc[2] = 33;

	recs[4].kind = TRUTH_SPINLOCK;
	sl = &recs[4].u.sl;
	sl->cpu = 1;
	set_ts(sl->ts, 1, 1, 1);
	sl->depth = 1;
	sl->why = SIM_SPIN_NONE;

	recs[5].kind = TRUTH_CCSWAP_STOP;
	recs[5].u.stop.tick = 6;
	set_ts(recs[5].u.stop.ts, 40, 50, 60);
	recs[5].u.stop.clock = SIM_CLOCK_CYCLES;

	recs[6].kind = TRUTH_SPINLOCK;
	sl = &recs[6].u.sl;
	sl->cpu = 2;
	sl->tick = 6;
	set_ts(sl->ts, 41, 51, 61);
	sl->lock = 0x1000;
	sl->caller = 0x2000;
	sl->depth = 2;
	sl->logged = true;
	sl->why = SIM_SPIN_ACQUIRE_SAMPLE;
	sl->pmc[2] = 5;

	recs[7].kind = TRUTH_END;
	recs[7].u.end.tick = UINT32_MAX;
	set_ts(recs[7].u.end.ts, INT64_MAX, INT64_MAX - 1, INT64_MAX - 2);

	text = round_trip(&cfg, recs, 8);
	/* switches: one list (both stamping sessions list A, B) */
	cr_expect_not_null(strstr(text, "\"pmc\":[9223372036854775807,1],\"pebs_index\":"
					"\"0xfffffffffffffffa\"}\n"),
			   "%s", text);
	/* spin locks: "plain" lists A, B and "spin" lists C: an object */
	cr_expect_not_null(strstr(text, "\"why\":\"hold\",\"pmc\":{\"plain\":[11,22],"
					"\"spin\":[33]}}\n"),
			   "%s", text);
	free(text);
}

Test(truth, round_trip_pmc_object_form_for_switches)
{
	static const char *const bc[] = {"B", "C"};
	static struct trace_config cfg;
	static struct rt_rec recs[2];
	char *text;

	three_sessions(&cfg);
	/* "plain" now lists B, C for 0x0524: switches get an object too */
	cfg.sessions[1].pmc_count = 0;
	add_counters(&cfg, &cfg.sessions[1], bc, 2);
	memset(recs, 0, sizeof(recs));
	recs[0].kind = TRUTH_CSWITCH;
	recs[0].u.cs.cpu = 1;
	recs[0].u.cs.old_tid = 5;
	recs[0].u.cs.new_tid = 6;
	recs[0].u.cs.pmc[0] = 1;
	recs[0].u.cs.pmc[1] = 2;
	recs[0].u.cs.pmc[2] = 3;
	recs[0].u.cs.pebs_index = 44;
	recs[1].kind = TRUTH_END;
	text = round_trip(&cfg, recs, 2);
	cr_expect_not_null(strstr(text, ",\"pmc\":{\"NT Kernel Logger\":[1,2],\"plain\":[2,3]},"
					"\"pebs_index\":\"0x2c\"}\n"),
			   "%s", text);
	free(text);
}

Test(truth, round_trip_x86_addresses)
{
	static struct trace_config cfg;
	static struct rt_rec recs[3];
	char *text;

	design_cfg(&cfg);
	cfg.arch = ETL_ARCH_X86;
	cfg.sessions[0].flags |= PRODUCER_F_SPINLOCK;
	memset(recs, 0, sizeof(recs));
	recs[0].kind = TRUTH_SPINLOCK;
	recs[0].u.sl.lock = 0xffffffff; /* the largest 32-bit address */
	recs[0].u.sl.caller = 0x80000000;
	recs[0].u.sl.depth = 1;
	recs[0].u.sl.logged = true;
	recs[1].kind = TRUTH_SPINLOCK;
	recs[1].u.sl.cpu = 7;
	recs[1].u.sl.lock = 0;
	recs[1].u.sl.caller = 1;
	recs[1].u.sl.depth = 8;
	recs[2].kind = TRUTH_END;
	text = round_trip(&cfg, recs, 3);
	cr_expect_not_null(strstr(text, "\"lock\":\"0xffffffff\",\"caller\":\"0x80000000\""));
	free(text);
}

Test(truth, sink_writes_what_the_functions_write)
{
	struct trace_config cfg;
	struct truth_writer w;
	struct trace_sink sink;
	struct sim_cswitch cs;
	struct sim_spinlock sl = {.cpu = 2, .lock = 0x10, .caller = 0x20, .depth = 1};
	struct sim_ccswap_stop st = {.tick = 3, .clock = SIM_CLOCK_QPC};
	struct sim_end end = {.tick = 4};
	struct mem a, b;
	char *ta, *tb;

	design_cfg(&cfg);
	design_cswitch(&cs);
	w.f = mem_open(&a);
	w.cfg = &cfg;
	sink = truth_sink(&w);
	cr_assert_eq(sink.ops->cswitch(sink.ctx, &cs), 0);
	cr_assert_eq(sink.ops->spinlock(sink.ctx, &sl), 0);
	cr_assert_eq(sink.ops->ccswap_stop(sink.ctx, &st), 0);
	cr_assert_eq(sink.ops->end(sink.ctx, &end), 0);
	ta = mem_close(&a);
	mem_open(&b);
	cr_assert_eq(truth_write_cswitch(b.f, &cfg, &cs), 0);
	cr_assert_eq(truth_write_spinlock(b.f, &cfg, &sl), 0);
	cr_assert_eq(truth_write_ccswap_stop(b.f, &cfg, &st), 0);
	cr_assert_eq(truth_write_end(b.f, &cfg, &end), 0);
	tb = mem_close(&b);
	cr_expect_str_eq(ta, tb);
	cr_expect_not_null(strstr(ta, "{\"kind\":\"end\",\"tick\":4,"));
	free(ta);
	free(tb);
}

Test(truth, write_error_is_eio)
{
	struct trace_config cfg;
	struct truth_writer w;
	struct trace_sink sink;
	struct sim_end end = {.tick = 1};
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	design_cfg(&cfg);
	cr_expect_eq(truth_write_meta(f, &cfg), -EIO);
	cr_expect_eq(truth_write_end(f, &cfg, &end), -EIO);
	w.f = f;
	w.cfg = &cfg;
	sink = truth_sink(&w);
	cr_expect_eq(sink.ops->end(sink.ctx, &end), -EIO);
	fclose(f);
}

/* ---- hand-written streams: defaults ---------------------------------------- */

#define META4                                                                                      \
	"{'kind':'meta','format':'etwforge-truth','version':1,'target':'win10-1709',"              \
	"'cpus':4,'sessions':[{'name':'NT Kernel Logger','clock':'qpc'}]}\n"

/* A switch / spin lock line without its closing brace, so a case can add keys. */
#define CSW(cpu, tick, qpc)                                                                        \
	"{'kind':'cswitch','cpu':" #cpu ",'tick':" #tick ",'ts':{'qpc':" #qpc "},'old_tid':1,"     \
	"'new_tid':2"
#define SLW(cpu, qpc)                                                                              \
	"{'kind':'spinlock','cpu':" #cpu ",'ts':{'qpc':" #qpc "},'lock':'0x1','caller':'0x2',"     \
	"'logged':true"
#define CS0 CSW(0, 1, 10)
#define SL0 SLW(0, 10)

/* Open @text (' for "), asserting the meta line is good. */
static struct truth_reader *open_text(const char *text, struct trace_config *cfg)
{
	struct etwforge_error e = {0};
	struct truth_reader *r = truth_open(put_file(text), cfg, &e);

	cr_assert_not_null(r, "%s", e.msg);
	return r;
}

static void next_ok(struct truth_reader *r, struct truth_record *rec, int want)
{
	struct etwforge_error e = {0};
	int kind = truth_next(r, rec, &e);

	cr_assert_eq(kind, want, "got %d: %s", kind, e.msg);
}

Test(truth, minimal_meta_takes_the_defaults)
{
	struct trace_config def, cfg;
	struct truth_reader *r;

	trace_config_defaults(&def);
	r = open_text("{'kind':'meta','format':'etwforge-truth','version':1,"
		      "'target':'win11-22h2','cpus':2,'x_comment':'skipped',"
		      "'sessions':[{},{'clock':'cycles','flags':['spinlock'],'x_1':1}]}\n",
		      &cfg);
	cr_expect_str_eq(cfg.target->name, "win11-22h2");
	cr_expect_eq(cfg.max_wait_reason, 43, "the target's MaximumWaitReason");
	cr_expect_eq(cfg.cpus, 2);
	cr_expect_eq(cfg.arch, def.arch);
	cr_expect_eq(cfg.cpu_mhz, def.cpu_mhz);
	cr_expect_eq(cfg.perf_freq, def.perf_freq);
	cr_expect_eq(cfg.timer_resolution, def.timer_resolution);
	cr_expect_eq(cfg.start_time, def.start_time);
	cr_expect_eq(cfg.boot_time, def.boot_time);
	cr_expect_eq(cfg.quirks, def.quirks);
	cr_expect_eq(cfg.flush_at_end, def.flush_at_end);
	cr_expect_eq(cfg.pebs_and_pmc, def.pebs_and_pmc);
	cr_expect_eq(cfg.seed, def.seed);
	cr_expect_eq(cfg.have_start_ts, false);
	cr_expect_eq(cfg.ncounters, 0);
	cr_assert_eq(cfg.nsessions, 2);
	cr_expect_str_eq(cfg.sessions[0].name, "NT Kernel Logger");
	cr_expect_eq(cfg.sessions[0].clock, SIM_CLOCK_QPC);
	cr_expect_eq(cfg.sessions[0].flags, PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT);
	cr_expect_eq(cfg.sessions[0].pebs, false);
	cr_expect_eq(cfg.sessions[0].pmc_count, 0);
	cr_expect_eq(cfg.sessions[0].pmc_event_count, 0);
	cr_expect_eq(cfg.sessions[0].buffer_size, 65536);
	cr_expect_eq(cfg.sessions[0].pool_buffers, 0);
	cr_expect_eq(cfg.sessions[0].flush_latency, 0);
	cr_expect_str_eq(cfg.sessions[0].file, "");
	cr_expect_str_eq(cfg.sessions[1].name, "etwforge session 1");
	cr_expect_eq(cfg.sessions[1].clock, SIM_CLOCK_CYCLES);
	cr_expect_eq(cfg.sessions[1].flags, PRODUCER_F_SPINLOCK);
	cr_expect_eq(cfg.sessions[1].buffer_size, 65536);
	truth_close(r);
}

Test(truth, meta_overrides_and_derived_defaults)
{
	struct trace_config def, cfg;
	struct truth_reader *r;

	trace_config_defaults(&def);
	/* max_wait_reason given: it wins over the target's; start_time moves boot_time */
	r = open_text("{'max_wait_reason':39,'target':'win11-22h2','kind':'meta',"
		      "'format':'etwforge-truth','version':1,'start_time':133000000100000000,"
		      "'sessions':[{'name':'a','pmc':{'counters':['X','Y'],'events':['0x0525']}},"
		      "{'name':'b','clock':'systime','flags':['cswitch'],"
		      "'pmc':{'counters':['Y','Z'],'events':['0x0524','0X052a']}}],"
		      "'start_ts':{'qpc':5,'systime':6,'cycles':7}}\n",
		      &cfg);
	cr_expect_eq(cfg.max_wait_reason, 39);
	cr_expect_eq(cfg.start_time, 133000000100000000);
	cr_expect_eq(cfg.boot_time, 133000000100000000 - (def.start_time - def.boot_time));
	cr_expect_eq(cfg.have_start_ts, true);
	cr_expect_eq(cfg.start_ts[SIM_CLOCK_QPC], 5);
	cr_expect_eq(cfg.start_ts[SIM_CLOCK_SYSTIME], 6);
	cr_expect_eq(cfg.start_ts[SIM_CLOCK_CYCLES], 7, "stored though not in use");
	/* machine counters in order of first appearance */
	cr_assert_eq(cfg.ncounters, 3);
	cr_expect_str_eq(cfg.counters[0], "X");
	cr_expect_str_eq(cfg.counters[1], "Y");
	cr_expect_str_eq(cfg.counters[2], "Z");
	cr_expect_eq(cfg.sessions[1].pmc_counters[0], 1);
	cr_expect_eq(cfg.sessions[1].pmc_counters[1], 2);
	cr_expect_eq(cfg.sessions[1].pmc_event_count, 2);
	cr_expect_eq(cfg.sessions[1].pmc_events[0], 0x0524);
	cr_expect_eq(cfg.sessions[1].pmc_events[1], 0x052A);
	truth_close(r);
}

Test(truth, minimal_records_take_the_defaults)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	r = open_text(META4
		      "{'kind':'cswitch','cpu':1,'tick':9,'ts':{'qpc':70},'old_tid':3,"
		      "'new_tid':4,'x_note':'skipped','x_ts_extra':{}}\n"
		      "{'ts':{'qpc':71},'kind':'spinlock','cpu':1,'lock':'0xABCdef','caller':'0x1',"
		      "'logged':false}\n"
		      "{'kind':'spinlock','cpu':2,'ts':{'qpc':1},'lock':'0x0','caller':'0x0',"
		      "'logged':true}\n"
		      "{'kind':'ccswap_stop','clock':'qpc'}\n"
		      "{'kind':'end'}\n",
		      &cfg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.line, 2);
	cr_expect_eq(rec.u.cs.cpu, 1);
	cr_expect_eq(rec.u.cs.tick, 9);
	cr_expect_eq(rec.u.cs.ts[SIM_CLOCK_QPC], 70);
	cr_expect_eq(rec.u.cs.old_tid, 3);
	cr_expect_eq(rec.u.cs.new_tid, 4);
	cr_expect_eq(rec.u.cs.old_pri, 0);
	cr_expect_eq(rec.u.cs.old_state, 0);
	cr_expect_eq(rec.u.cs.old_remaining_quantum, 0);
	cr_expect_eq(rec.u.cs.pebs_index, 0);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	cr_expect_eq(rec.u.sl.tick, 9, "the CPU's last tick");
	cr_expect_eq(rec.u.sl.lock, 0xabcdef);
	cr_expect_eq(rec.u.sl.caller, 1);
	cr_expect_eq(rec.u.sl.depth, 1);
	cr_expect_eq(rec.u.sl.why, SIM_SPIN_NONE);
	cr_expect_eq(rec.u.sl.logged, false);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	cr_expect_eq(rec.u.sl.tick, 0, "CPU 2 has no history");
	cr_expect_eq(rec.u.sl.logged, true);
	next_ok(r, &rec, TRUTH_CCSWAP_STOP);
	cr_expect_eq(rec.u.stop.clock, SIM_CLOCK_QPC);
	cr_expect_eq(rec.u.stop.tick, 9, "largest tick so far");
	cr_expect_eq(rec.u.stop.ts[SIM_CLOCK_QPC], 71, "largest qpc so far");
	next_ok(r, &rec, TRUTH_END);
	cr_expect_eq(rec.line, 6);
	cr_expect_eq(rec.u.end.tick, 9);
	cr_expect_eq(rec.u.end.ts[SIM_CLOCK_QPC], 71);
	next_ok(r, &rec, TRUTH_EOF);
	truth_close(r);
}

Test(truth, stream_without_end_gets_one)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	r = open_text(
		META4 CSW(0, 3, 50) "}\n" CSW(
			1, 7,
			40) "}\n"
			    "{'kind':'spinlock','cpu':0,'tick':4,'ts':{'qpc':60},'lock':'0x1',"
			    "'caller':'0x2','logged':true}",
		&cfg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	next_ok(r, &rec, TRUTH_CSWITCH);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	next_ok(r, &rec, TRUTH_END);
	cr_expect_eq(rec.line, 5, "the line after the last");
	cr_expect_eq(rec.u.end.tick, 7, "largest tick (CPU 1)");
	cr_expect_eq(rec.u.end.ts[SIM_CLOCK_QPC], 60, "largest qpc (CPU 0's spin lock)");
	next_ok(r, &rec, TRUTH_EOF);
	next_ok(r, &rec, TRUTH_EOF);
	truth_close(r);
}

Test(truth, meta_only_stream_ends_at_zero)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r = open_text(META4, &cfg);

	next_ok(r, &rec, TRUTH_END);
	cr_expect_eq(rec.line, 2);
	cr_expect_eq(rec.u.end.tick, 0);
	cr_expect_eq(rec.u.end.ts[SIM_CLOCK_QPC], 0);
	next_ok(r, &rec, TRUTH_EOF);
	truth_close(r);
}

Test(truth, bom_crlf_and_trailing_blank_lines_are_accepted)
{
	static const char text[] =
		"\xEF\xBB\xBF{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,"
		"\"sessions\":[{}]}\r\n"
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":5},\"old_tid\":1,"
		"\"new_tid\":2}\r\n"
		"{\"kind\":\"end\",\"tick\":1,\"ts\":{\"qpc\":5}}\r\n"
		"\r\n"
		"   \t\n"
		"\n";
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;
	struct etwforge_error e = {0};

	r = truth_open(put_raw(text, sizeof(text) - 1), &cfg, &e);
	cr_assert_not_null(r, "%s", e.msg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	next_ok(r, &rec, TRUTH_END);
	cr_expect_eq(rec.line, 3);
	next_ok(r, &rec, TRUTH_EOF);
	truth_close(r);
}

Test(truth, waiting_below_the_bias_and_other_states_at_63)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	/* win10-1709: bias 40. Waiting with 39 and Running with 63 are both fine. */
	r = open_text(META4
		      "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':1},'old_tid':1,'new_tid':2,"
		      "'old_state':5,'old_wait_reason':39}\n"
		      "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':1},'old_tid':2,'new_tid':1,"
		      "'old_state':2,'old_wait_reason':63}\n",
		      &cfg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.old_wait_reason, 39);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.old_wait_reason, 63);
	truth_close(r);
}

Test(truth, missing_file_names_the_file)
{
	struct trace_config cfg;
	struct etwforge_error e = {0};
	char missing[160];

	snprintf(missing, sizeof(missing), "%s/nope.jsonl", dir);
	errno = 0;
	cr_assert_null(truth_open(missing, &cfg, &e));
	cr_expect_eq(errno, ENOENT);
	cr_expect(strncmp(e.msg, missing, strlen(missing)) == 0 && e.msg[strlen(missing)] == ':',
		  "%s", e.msg);
}

/* ---- bad streams ----------------------------------------------------------- */

#define META2CLK                                                                                   \
	"{'kind':'meta','format':'etwforge-truth','version':1,'cpus':2,"                           \
	"'sessions':[{'name':'q'},{'name':'c','clock':'cycles'}]}\n"
#define METAPMC                                                                                    \
	"{'kind':'meta','format':'etwforge-truth','version':1,'cpus':2,"                           \
	"'sessions':[{'name':'q','pmc':{'counters':['A','B'],'events':['0x0525']}},"               \
	"{'name':'p','flags':['cswitch','spinlock'],"                                              \
	"'pmc':{'counters':['B','C'],'events':['0x0524']}}]}\n"
#define METAX86                                                                                    \
	"{'kind':'meta','format':'etwforge-truth','version':1,'arch':'x86',"                       \
	"'sessions':[{'flags':['spinlock']}]}\n"

struct bad {
	const char *name;
	const char *text;
	unsigned long line;
	bool col; /* "path:LINE:COL: " */
	const char *want;
};

static const struct bad bad_streams[] = {
	/* line 1: the meta line */
	{"empty file", "", 1, false, "empty stream"},
	{"blank first line", "\n" META4, 1, false, "blank line"},
	{"first line not meta", CS0 "}\n", 1, false,
	 "kind: the first line must be the \"meta\" line, not \"cswitch\""},
	{"meta syntax", "{'kind':'meta',}\n", 1, true, ""},
	{"meta not an object", "[1]\n", 1, false, "not a JSON object"},
	{"bad format", "{'kind':'meta','format':'etwforge-trace','version':1,'sessions':[{}]}\n", 1,
	 false, "format: \"etwforge-trace\" is not \"etwforge-truth\""},
	{"no format", "{'kind':'meta','version':1,'sessions':[{}]}\n", 1, false, "format: missing"},
	{"bad version", "{'kind':'meta','format':'etwforge-truth','version':2,'sessions':[{}]}\n",
	 1, false, "version: only version 1"},
	{"version as string",
	 "{'kind':'meta','format':'etwforge-truth','version':'1','sessions':[{}]}\n", 1, false,
	 "version: only version 1"},
	{"unknown target",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'target':'win7','sessions':[{}]}\n",
	 1, false, "target: unknown \"win7\" (known: win10-1507, win10-1607, win10-1709"},
	{"cpus as string",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'cpus':'8','sessions':[{}]}\n", 1,
	 false, "cpus: must be an integer"},
	{"negative cpus",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'cpus':-1,'sessions':[{}]}\n", 1,
	 false, "cpus: -1 is out of range 1..1024"},
	{"cpus as real",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'cpus':2.0,'sessions':[{}]}\n", 1,
	 false, "cpus: must be an integer"},
	{"bad arch",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'arch':'arm64','sessions':[{}]}\n",
	 1, false, "arch: \"arm64\" is neither"},
	{"quirks as number",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'quirks':1,'sessions':[{}]}\n", 1,
	 false, "quirks: must be true or false"},
	{"an empty session list",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sessions':[]}\n", 1, false,
	 "there must be 1..8 sessions"},
	{"nine sessions",
	 "{'kind':'meta','format':'etwforge-truth','version':1,"
	 "'sessions':[{},{},{},{},{},{},{},{},{}]}\n",
	 1, false, "sessions: 9 sessions, at most 8"},
	{"session clock",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sessions':[{'clock':'tsc'}]}\n", 1,
	 false, "sessions[0].clock: unknown clock \"tsc\""},
	{"session flag",
	 "{'kind':'meta','format':'etwforge-truth','version':1,"
	 "'sessions':[{},{'flags':['cswitch','dpcs']}]}\n",
	 1, false, "sessions[1].flags[1]: must be"},
	{"compact without cswitch (trace_config_check)",
	 "{'kind':'meta','format':'etwforge-truth','version':1,"
	 "'sessions':[{'flags':['compact_cswitch']}]}\n",
	 1, false, "compact_cswitch"},
	{"pmc event as number",
	 "{'kind':'meta','format':'etwforge-truth','version':1,"
	 "'sessions':[{'pmc':{'counters':['A'],'events':[1316]}}]}\n",
	 1, false, "sessions[0].pmc.events[0]: must be a hook id string"},
	{"pmc event too wide",
	 "{'kind':'meta','format':'etwforge-truth','version':1,"
	 "'sessions':[{'pmc':{'counters':['A'],'events':['0x10524']}}]}\n",
	 1, false, "sessions[0].pmc.events[0]: must be a hook id string"},
	{"five pmc events",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sessions':[{'pmc':{'counters':"
	 "['A'],'events':['0x0524','0x0525','0x0529','0x0f2f','0x0f30']}}]}\n",
	 1, false, "sessions[0].pmc.events: 5 events, at most 4"},
	{"eight counters",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sessions':[{'pmc':{'counters':"
	 "['A','B','C','D','E','F','G','H']}}]}\n",
	 1, false, "sessions[0].pmc.counters: 8 counters, at most 7"},
	{"counter name not a string",
	 "{'kind':'meta','format':'etwforge-truth','version':1,"
	 "'sessions':[{'pmc':{'counters':[3]}}]}\n",
	 1, false, "sessions[0].pmc.counters[0]: must be a string"},
	{"start_ts missing a clock in use",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'start_ts':{'cycles':1},"
	 "'sessions':[{}]}\n",
	 1, false, "start_ts: missing \"qpc\""},
	{"duplicate key", "{'kind':'meta','kind':'meta'}\n", 1, true, "duplicate"},
	/* records */
	{"malformed JSON", META4 CS0 ",}\n", 2, true, ""},
	{"truncated JSON", META4 CS0 "\n", 2, true, ""},
	{"record not an object", META4 "42\n", 2, false, "not a JSON object"},
	{"no kind", META4 "{'cpu':0}\n", 2, false, "kind: missing"},
	{"unknown kind", META4 "{'kind':'cswap'}\n", 2, false,
	 "kind: unknown \"cswap\" (cswitch, spinlock, ccswap_stop, end, process, thread, "
	 "thread_name, ready, sample, interval, config, masks, rundown, image, stack or dpc)"},
	{"second meta", META4 META4, 2, false, "kind: unknown \"meta\""},
	{"misspelt kind", META4 "{'kind':'cswich'}\n", 2, false,
	 "kind: unknown \"cswich\" (did you mean 'cswitch'?)"},
	/* a typo is an error, not a default; a writer's own fields start with x_ */
	{"misspelt meta field",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sesions':[]}\n", 1, false,
	 "sesions: unknown field of the meta line (did you mean 'sessions'?)"},
	{"misspelt session field",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sessions':[{'clok':'qpc'}]}\n", 1,
	 false, "sessions[0].clok: unknown field of a session (did you mean 'clock'?)"},
	{"misspelt session pmc field",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'sessions':[{'pmc':{'event':[]}}]}"
	 "\n",
	 1, false,
	 "sessions[0].pmc.event: unknown field of a session's pmc (did you mean 'events'?)"},
	{"misspelt spinlock sampling field",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'spinlock':{'row':'all'}}\n", 1,
	 false, "spinlock.row: unknown field of the spin-lock sampling (did you mean 'rows'?)"},
	{"misspelt group field",
	 "{'kind':'meta','format':'etwforge-truth','version':1,'groups':[{'name':'a','tid':[]}]}\n",
	 1, false, "groups[0].tid: unknown field of a group (did you mean 'tids'?)"},
	{"misspelt cswitch field", META4 CS0 ",'old_wiat_reason':3}\n", 2, false,
	 "old_wiat_reason: unknown field of a cswitch line (did you mean 'old_wait_reason'?)"},
	{"a spinlock field on a cswitch line", META4 CS0 ",'lock':'0x1'}\n", 2, false,
	 "lock: unknown field of a cswitch line (a writer's own fields start with x_)"},
	{"misspelt spinlock field", META4 SL0 ",'wait_cycle':5}\n", 2, false,
	 "wait_cycle: unknown field of a spinlock line (did you mean 'wait_cycles'?)"},
	{"misspelt thread field", META4 "{'kind':'thread','tid':4,'group':'a','evnt':'start'}\n", 2,
	 false, "evnt: unknown field of a thread line (did you mean 'event'?)"},
	{"misspelt stop field", META4 "{'kind':'ccswap_stop','clock':'qpc','tik':1}\n", 2, false,
	 "tik: unknown field of a ccswap_stop line (did you mean 'tick'?)"},
	{"misspelt end field", META4 "{'kind':'end','tss':{}}\n", 2, false,
	 "tss: unknown field of an end line (did you mean 'ts'?)"},
	{"missing cpu",
	 META4 "{'kind':'cswitch','tick':1,'ts':{'qpc':1},'old_tid':1,'new_tid':2}\n", 2, false,
	 "cpu: missing"},
	{"missing tick",
	 META4 "{'kind':'cswitch','cpu':0,'ts':{'qpc':1},'old_tid':1,'new_tid':2}\n", 2, false,
	 "tick: missing"},
	{"missing ts", META4 "{'kind':'cswitch','cpu':0,'tick':1,'old_tid':1,'new_tid':2}\n", 2,
	 false, "ts: missing"},
	{"missing old_tid",
	 META4 "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':1},'new_tid':2}\n", 2, false,
	 "old_tid: missing"},
	{"missing new_tid",
	 META4 "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':1},'old_tid':2}\n", 2, false,
	 "new_tid: missing"},
	{"cpu out of range", META4 CS0 "}\n" CSW(4, 1, 10) "}\n", 3, false,
	 "cpu: 4 is out of range 0..3"},
	{"duplicate key in record", META4 CS0 ",'cpu':1}\n", 2, true, "duplicate"},
	{"tick as string",
	 META4 "{'kind':'cswitch','cpu':0,'tick':'12','ts':{'qpc':1},'old_tid':1,"
	       "'new_tid':2}\n",
	 2, false, "tick: must be an integer"},
	{"tick as real", META4 CSW(0, 1.5, 1) "}\n", 2, false, "tick: must be an integer"},
	{"old_pri 32", META4 CS0 ",'old_pri':32}\n", 2, false, "old_pri: 32 is out of range 0..31"},
	{"new_pri 32", META4 CS0 ",'new_pri':32}\n", 2, false, "new_pri: 32 is out of range 0..31"},
	{"negative base priority", META4 CS0 ",'old_base_pri':-1}\n", 2, false,
	 "old_base_pri: -1 is out of range 0..31"},
	{"old_state 11", META4 CS0 ",'old_state':11}\n", 2, false,
	 "old_state: 11 is out of range 0..10"},
	{"wait reason 64", META4 CS0 ",'old_wait_reason':64}\n", 2, false,
	 "old_wait_reason: 64 is out of range 0..63"},
	{"wait reason at the bias when waiting", META4 CS0 ",'old_state':5,'old_wait_reason':40}\n",
	 2, false,
	 "old_wait_reason: 40 is not below max_wait_reason 40; the thread is Waiting, so it "
	 "would decode as a thread state"},
	{"wait mode 2", META4 CS0 ",'old_wait_mode':2}\n", 2, false,
	 "old_wait_mode: 2 is out of range 0..1"},
	{"old qos 8", META4 CS0 ",'old_qos':8}\n", 2, false, "old_qos: 8 is out of range 0..7"},
	{"new qos 8", META4 CS0 ",'new_qos':8}\n", 2, false, "new_qos: 8 is out of range 0..7"},
	{"pri decrement 128", META4 CS0 ",'new_pri_decrement':128}\n", 2, false,
	 "new_pri_decrement: 128 is out of range -128..127"},
	{"rank past 32 bits", META4 CS0 ",'old_rank':4294967296}\n", 2, false,
	 "old_rank: 4294967296 is out of range 0..4294967295"},
	{"tid past 32 bits",
	 META4 "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':1},"
	       "'old_tid':4294967296,'new_tid':2}\n",
	 2, false, "old_tid: 4294967296 is out of range 0..4294967295"},
	{"prev_cstate 256", META4 CS0 ",'prev_cstate':256}\n", 2, false,
	 "prev_cstate: 256 is out of range 0..255"},
	{"negative pebs_index", META4 CS0 ",'pebs_index':-1}\n", 2, false,
	 "pebs_index: -1 is out of range 0..9223372036854775807"},
	{"pebs_index past 2^64", META4 CS0 ",'pebs_index':18446744073709551616}\n", 2, true,
	 "too big"},
	{"negative ts",
	 META4 "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':-1},'old_tid':1,"
	       "'new_tid':2}\n",
	 2, false, "ts.qpc: -1 is out of range 0..9223372036854775807"},
	{"ts not an object",
	 META4 "{'kind':'cswitch','cpu':0,'tick':1,'ts':5,'old_tid':1,"
	       "'new_tid':2}\n",
	 2, false, "ts: must be an object"},
	{"ts with an unknown clock",
	 META4 "{'kind':'cswitch','cpu':0,'tick':1,'ts':{'qpc':1,"
	       "'qcp':2},'old_tid':1,'new_tid':2}\n",
	 2, false, "ts: unknown clock \"qcp\""},
	{"ts missing a clock in use", META2CLK CS0 "}\n", 2, false,
	 "ts: missing \"cycles\" (a session uses that clock)"},
	{"qpc backwards on one cpu",
	 META4 CSW(0, 1, 200) "}\n" CSW(1, 1, 100) "}\n" CSW(0, 1, 150) "}\n", 4, false,
	 "cpu 0: qpc timestamp 150 is before the previous 200 (line 2)"},
	{"cycles backwards on one cpu",
	 META2CLK "{'kind':'cswitch','cpu':1,'tick':1,'ts':{'qpc':1,'cycles':9},'old_tid':1,"
		  "'new_tid':2}\n"
		  "{'kind':'cswitch','cpu':1,'tick':1,'ts':{'qpc':2,'cycles':8},'old_tid':1,"
		  "'new_tid':2}\n",
	 3, false, "cpu 1: cycles timestamp 8 is before the previous 9 (line 2)"},
	{"tick backwards on one cpu",
	 META4 CSW(0, 5, 10) "}\n" CSW(3, 1, 10) "}\n" CSW(0, 4, 10) "}\n", 4, false,
	 "cpu 0: tick 4 is before the previous 5 (line 2)"},
	{"spin lock before the cpu's last switch", META4 CSW(0, 1, 200) "}\n" SLW(0, 199) "}\n", 3,
	 false, "cpu 0: qpc timestamp 199 is before the previous 200 (line 2)"},
	{"spin lock tick defaults to the cpu's: a switch may not go back either",
	 META4 CSW(0, 5, 10) "}\n" SL0 "}\n" CSW(0, 4, 10) "}\n", 4, false,
	 "cpu 0: tick 4 is before the previous 5 (line 3)"},
	{"end before a cpu's last",
	 META4 CS0 "}\n" CSW(2, 1, 500) "}\n"
					"{'kind':'end','tick':1,'ts':{'qpc':400}}\n",
	 4, false, "end: qpc timestamp 400 is before cpu 2's last 500 (line 3)"},
	{"end tick before a cpu's last",
	 META4 CSW(1, 9, 10) "}\n"
			     "{'kind':'end','tick':8}\n",
	 3, false, "end: tick 8 is before cpu 1's last 9 (line 2)"},
	{"record after end", META4 CS0 "}\n{'kind':'end','tick':1,'ts':{'qpc':10}}\n" CS0 "}\n", 4,
	 false, "a record after the end line (line 3)"},
	{"blank line inside", META4 CS0 "}\n\n  \n" CS0 "}\n", 3, false,
	 "blank line (only allowed at the end of the stream)"},
	{"stop without clock", META4 "{'kind':'ccswap_stop','tick':1}\n", 2, false,
	 "clock: missing"},
	{"stop with unknown clock", META4 "{'kind':'ccswap_stop','clock':'tsc'}\n", 2, false,
	 "clock: unknown clock \"tsc\""},
	{"stop tick as string", META4 "{'kind':'ccswap_stop','clock':'qpc','tick':'1'}\n", 2, false,
	 "tick: must be an integer"},
	/* spin locks */
	{"spin lock without logged",
	 META4 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},"
	       "'lock':'0x1','caller':'0x2'}\n",
	 2, false, "logged: missing"},
	{"spin lock without lock",
	 META4 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},"
	       "'caller':'0x2','logged':true}\n",
	 2, false, "lock: missing"},
	{"lock as number",
	 META4 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},'lock':1,"
	       "'caller':'0x2','logged':true}\n",
	 2, false, "lock: must be a string"},
	{"lock not hex",
	 META4 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},'lock':'fffff',"
	       "'caller':'0x2','logged':true}\n",
	 2, false, "lock: \"fffff\" is not an address"},
	{"lock with bad digit",
	 META4 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},'lock':'0x12g',"
	       "'caller':'0x2','logged':true}\n",
	 2, false, "lock: \"0x12g\" is not an address"},
	{"lock past 64 bits",
	 META4 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},"
	       "'lock':'0x10000000000000000','caller':'0x2','logged':true}\n",
	 2, false, "lock: 0x10000000000000000 does not fit 64 bits"},
	{"x86 lock past 32 bits",
	 METAX86 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},"
		 "'lock':'0x100000000','caller':'0x2','logged':true}\n",
	 2, false, "lock: 0x100000000 does not fit 32 bits (arch x86)"},
	{"x86 caller past 32 bits",
	 METAX86 "{'kind':'spinlock','cpu':0,'ts':{'qpc':10},"
		 "'lock':'0xffffffff','caller':'0xfffff8031a000123',"
		 "'logged':true}\n",
	 2, false, "caller: 0xfffff8031a000123 does not fit 32 bits (arch x86)"},
	{"depth 0", META4 SL0 ",'depth':0}\n", 2, false, "depth: 0 is out of range 1..255"},
	{"mode 64", META4 SL0 ",'mode':64}\n", 2, false, "mode: 64 is out of range 0..63"},
	{"irql 32", META4 SL0 ",'irql':32}\n", 2, false, "irql: 32 is out of range 0..31"},
	{"dpc as number", META4 SL0 ",'dpc':0}\n", 2, false, "dpc: must be true or false"},
	{"bad why", META4 SL0 ",'why':'long'}\n", 2, false,
	 "why: \"long\" is not hold, contended, acquire_sample or none"},
	/* pmc */
	{"pmc list too short", METAPMC CS0 ",'pmc':[1]}\n", 2, false,
	 "pmc: 1 value, but session \"q\" has 2 counters"},
	{"pmc object list too long", METAPMC CS0 ",'pmc':{'q':[1,2],'p':[2,2,3]}}\n", 2, false,
	 "pmc.p: 3 values, but session \"p\" has 2 counters"},
	{"pmc object without a stamping session", METAPMC CS0 ",'pmc':{'x_q':[1,2],'p':[1,2]}}\n",
	 2, false, "pmc.q: missing: session \"q\" puts PMC counters on 0x0524/0x0525 events"},
	{"pmc object naming no session", METAPMC CS0 ",'pmc':{'q':[1,2],'pp':[1,2]}}\n", 2, false,
	 "pmc.pp: no session has that name (did you mean 'p'?)"},
	{"pmc object with a wrong-length entry", METAPMC CS0 ",'pmc':{'q':[1,2],'p':[2]}}\n", 2,
	 false, "pmc.p: 1 value, but session \"p\" has 2 counters"},
	{"pmc object disagrees on a shared counter", METAPMC CS0 ",'pmc':{'q':[1,2],'p':[3,4]}}\n",
	 2, false, "pmc.p[0]: counter \"B\" is 3 here but 2 for session \"q\""},
	{"pmc value negative", METAPMC CS0 ",'pmc':[1,-2]}\n", 2, false,
	 "pmc[1]: must be an integer 0..9223372036854775807"},
	{"pmc neither list nor object", METAPMC CS0 ",'pmc':7}\n", 2, false,
	 "pmc: must be a list of counter values or an object"},
};

static void run_bad(const struct bad *b)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;
	struct etwforge_error e = {0};
	char prefix[200];
	const char *rest;
	int rc = 0;

	put_file(b->text);
	r = truth_open(path, &cfg, &e);
	if (b->line == 1) {
		cr_expect_null(r, "%s: the meta line was accepted", b->name);
	} else {
		cr_expect_not_null(r, "%s: the meta line was rejected: %s", b->name, e.msg);
		if (!r) {
			return;
		}
		while ((rc = truth_next(r, &rec, &e)) > 0) {
		}
		truth_close(r);
		cr_expect_eq(rc, -EINVAL, "%s: no error", b->name);
		if (rc != -EINVAL) {
			return;
		}
	}
	snprintf(prefix, sizeof(prefix), "%s:%lu:", path, b->line);
	cr_expect(strncmp(e.msg, prefix, strlen(prefix)) == 0, "%s: \"%s\" does not start with %s",
		  b->name, e.msg, prefix);
	rest = e.msg + strlen(prefix);
	if (b->col) {
		cr_expect(isdigit((unsigned char)rest[0]), "%s: no column in \"%s\"", b->name,
			  e.msg);
		while (isdigit((unsigned char)*rest)) {
			rest++;
		}
		cr_expect_eq(*rest, ':', "%s: \"%s\"", b->name, e.msg);
		rest++;
	}
	cr_expect_eq(*rest, ' ', "%s: \"%s\"", b->name, e.msg);
	cr_expect_not_null(strstr(rest, b->want), "%s: \"%s\" does not say \"%s\"", b->name, e.msg,
			   b->want);
	cr_expect_null(strchr(e.msg, '\n'), "%s: one line", b->name);
}

Test(truth, bad_streams_are_rejected_with_line_and_reason)
{
	for (size_t i = 0; i < sizeof(bad_streams) / sizeof(bad_streams[0]); i++) {
		run_bad(&bad_streams[i]);
	}
}

Test(truth, pmc_forms_fill_counters_by_machine_id)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	/* q lists A, B (ids 0, 1); p lists B, C (ids 1, 2) */
	r = open_text(METAPMC CS0 ",'pmc':[5,6]}\n" CS0
				  ",'pmc':{'p':[6,8],'q':[3,6],'x_mine':[9]}}\n" CS0
				  ",'pmc':{'p':[2,4],'q':[1,2]}}\n",
		      &cfg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.pmc[0], 5, "a list goes to the first stamping session (q)");
	cr_expect_eq(rec.u.cs.pmc[1], 6);
	cr_expect_eq(rec.u.cs.pmc[2], 0);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.pmc[0], 3, "a writer's own entry (x_) is skipped");
	cr_expect_eq(rec.u.cs.pmc[1], 6);
	cr_expect_eq(rec.u.cs.pmc[2], 8);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.pmc[0], 1, "sessions agreeing on B");
	cr_expect_eq(rec.u.cs.pmc[1], 2);
	cr_expect_eq(rec.u.cs.pmc[2], 4);
	truth_close(r);
}

Test(truth, the_smallest_meta_line_takes_every_default)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	r = open_text("{'kind':'meta','format':'etwforge-truth','version':1}\n" CS0 "}\n", &cfg);
	cr_assert_eq(cfg.nsessions, 1);
	cr_expect_str_eq(cfg.sessions[0].name, "NT Kernel Logger");
	cr_expect_eq(cfg.sessions[0].clock, SIM_CLOCK_QPC);
	cr_expect_eq(cfg.sessions[0].flags, PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT);
	cr_expect_eq(cfg.sessions[0].buffer_size, 65536);
	cr_expect_eq(cfg.cpus, 8);
	cr_expect_eq(cfg.arch, ETL_ARCH_X64);
	cr_expect_str_eq(cfg.target->name, "win10-1709");
	next_ok(r, &rec, TRUTH_CSWITCH);
	truth_close(r);
}

Test(truth, pmc_for_sessions_that_do_not_stamp_is_ignored)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	/* META4's session stamps nothing; METAPMC's sessions do not stamp 0x0529 */
	r = open_text(META4 CS0 ",'pmc':[1]}\n" CS0 ",'pmc':{'k':[1,2,3],'other':[4]}}\n", &cfg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.pmc[0], 0);
	next_ok(r, &rec, TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.pmc[0], 0);
	truth_close(r);
	r = open_text(METAPMC SL0 ",'pmc':[1,2]}\n" SL0 ",'pmc':{'q':[7]}}\n", &cfg);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	cr_expect_eq(rec.u.sl.pmc[0], 0);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	cr_expect_eq(rec.u.sl.pmc[0], 0);
	truth_close(r);
}

Test(truth, backwards_across_cpus_is_fine)
{
	struct trace_config cfg;
	struct truth_record rec;
	struct truth_reader *r;

	/* CPU 1 is behind CPU 0 in every way: only per-CPU order matters */
	r = open_text(META4 CSW(0, 9, 900) "}\n" CSW(1, 1, 100) "}\n" SLW(1, 100) "}\n" CSW(
			      0, 9, 900) "}\n",
		      &cfg);
	next_ok(r, &rec, TRUTH_CSWITCH);
	next_ok(r, &rec, TRUTH_CSWITCH);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	cr_expect_eq(rec.u.sl.tick, 1, "CPU 1's tick");
	next_ok(r, &rec, TRUTH_CSWITCH);
	next_ok(r, &rec, TRUTH_END);
	cr_expect_eq(rec.u.end.tick, 9);
	cr_expect_eq(rec.u.end.ts[SIM_CLOCK_QPC], 900);
	truth_close(r);
}

/* ---- gen's spin-lock extensions ------------------------------------------- */

Test(truth, spinlock_extensions_are_written_as_typed_and_read_back)
{
	struct trace_config cfg, back;
	struct sim_spinlock sl;
	struct truth_reader *r;
	struct truth_record rec;
	struct mem m;
	FILE *f;
	char *got;

	design_cfg(&cfg);
	cfg.sessions[0].flags |= PRODUCER_F_SPINLOCK;
	cfg.spin = (struct spin_sampling){4, 2000, 3, 0};
	cfg.spin_rows = TRACE_SPIN_ROWS_ALL;
	memset(&sl, 0, sizeof(sl));
	sl.cpu = 2;
	sl.tick = 7;
	sl.ts[SIM_CLOCK_QPC] = 900;
	sl.lock = 0xfffff80300400040;
	sl.caller = 0xfffff80300001234;
	sl.depth = 9;
	sl.name = "nt!PfnLock";
	sl.acquire_count = 4000000000u;
	sl.contention_count = 12;
	sl.untracked = true;
	f = mem_open(&m);
	cr_assert_eq(truth_write_meta(f, &cfg), 0);
	cr_assert_eq(truth_write_spinlock(f, &cfg, &sl), 0);
	got = mem_close(&m);
	cr_assert(strstr(got,
			 ",\"spinlock\":{\"spin_threshold\":4,\"acquire_sample_rate\":2000,"
			 "\"contention_sample_rate\":3,\"hold_threshold\":0,\"rows\":\"all\"}}\n"),
		  "%s", got);
	cr_assert(strstr(got, "\"logged\":false,\"why\":\"none\",\"name\":\"nt!PfnLock\","
			      "\"acquire_count\":4000000000,\"contention_count\":12,"
			      "\"untracked\":true}\n"),
		  "%s", got);
	cr_assert_null(strstr(got, "guarded"), "false flags are not written");
	r = open_text(got, &back);
	cr_assert_eq(back.spin.spin_threshold, 4);
	cr_assert_eq(back.spin.acquire_sample_rate, 2000);
	cr_assert_eq(back.spin.contention_sample_rate, 3);
	cr_assert_eq(back.spin.hold_threshold, 0);
	cr_assert_eq(back.spin_rows, TRACE_SPIN_ROWS_ALL);
	next_ok(r, &rec, TRUTH_SPINLOCK);
	cr_assert_str_eq(rec.u.sl.name, "nt!PfnLock");
	cr_assert_eq(rec.u.sl.acquire_count, 4000000000u);
	cr_assert_eq(rec.u.sl.contention_count, 12);
	cr_assert(rec.u.sl.untracked);
	cr_assert_not(rec.u.sl.guarded);
	truth_close(r);
	free(got);
}

Test(truth, without_rows_the_spinlock_extensions_are_not_written)
{
	struct trace_config cfg;
	struct sim_spinlock sl;
	struct mem m;
	FILE *f;
	char *got;

	design_cfg(&cfg);
	cfg.sessions[0].flags |= PRODUCER_F_SPINLOCK;
	memset(&sl, 0, sizeof(sl));
	sl.depth = 1;
	f = mem_open(&m);
	cr_assert_eq(truth_write_meta(f, &cfg), 0);
	cr_assert_eq(truth_write_spinlock(f, &cfg, &sl), 0);
	got = mem_close(&m);
	cr_assert_null(strstr(got, "\"spinlock\":{"), "%s", got);
	cr_assert_null(strstr(got, "acquire_count"), "%s", got);
	free(got);
}

Test(truth, bad_spinlock_meta_is_refused)
{
	static const struct {
		const char *text;
		const char *want;
	} bad[] = {
		{"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,"
		 "\"spinlock\":{\"rows\":\"some\"}}\n",
		 ":1: spinlock.rows: \"some\" is neither \"all\" nor \"logged\""},
		{"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,"
		 "\"spinlock\":{\"acquire_sample_rate\":999}}\n",
		 ":1: acquire_sample_rate must be at least 1000"},
		{"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"spinlock\":[]}"
		 "\n",
		 ":1: spinlock: must be an object"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trace_config cfg;
		struct etwforge_error e = {0};

		cr_assert_null(truth_open(put_file(bad[i].text), &cfg, &e));
		cr_assert(strstr(e.msg, bad[i].want), "got %s, want %s", e.msg, bad[i].want);
	}
}
