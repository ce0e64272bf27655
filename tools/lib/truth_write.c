/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth_write.c - writing the truth / replay stream declared in
 * tools/lib/truth.h: one JSON object per line (DESIGN.md "Truth / replay
 * stream"), written with fprintf in a fixed key order, so a line is
 * byte-for-byte the same for the same record. truth_sink() tees the
 * engine's records into it for `gen --truth`; truth_read.c reads it back.
 *
 * Choices where DESIGN.md is silent (documented in tools/lib/truth.h):
 *  - "pmc" holds the values of the sessions that stamp the event (the rule
 *    is in truth_schema.c): a list when they all list the same counters,
 *    an object keyed by session name otherwise, absent when none stamps.
 *  - Strings are written with JSON escapes; bytes that are not UTF-8 are
 *    written as U+FFFD so that the line stays readable JSON.
 */
#include "tools/lib/truth.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "tools/lib/truth_schema.h"

static bool same_counters(const struct trace_session_cfg *a, const struct trace_session_cfg *b)
{
	return a->pmc_count == b->pmc_count &&
	       !memcmp(a->pmc_counters, b->pmc_counters, a->pmc_count);
}

/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80) {
		return 1;
	} else if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2;
		cp = s[0] & 0x1Fu;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		cp = s[0] & 0x0Fu;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0u) != 0x80u) {
			return 0;
		}
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	/* overlong forms, surrogates and values past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF)) {
		return 0;
	}
	return n;
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void put_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
		} else if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s == '\n') {
			fputs("\\n", f);
			s++;
		} else if (*s == '\t') {
			fputs("\\t", f);
			s++;
		} else if (*s < 0x20 || *s == 0x7F) {
			fprintf(f, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

/* ,"ts":{"qpc":..,"systime":..,"cycles":..} - the clocks in use, in that order. */
static void put_ts(FILE *f, const struct trace_config *cfg, const char *key,
		   const uint64_t ts[SIM_CLOCK_SLOTS])
{
	const char *sep = "";

	fprintf(f, ",\"%s\":{", key);
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		if (trace_config_clock_used(cfg, (enum sim_clock)c)) {
			fprintf(f, "%s\"%s\":%" PRIu64, sep, sim_clock_name((enum sim_clock)c),
				ts[c]);
			sep = ",";
		}
	}
	fputc('}', f);
}

static void put_values(FILE *f, const struct trace_session_cfg *s,
		       const uint64_t pmc[SIM_MAX_COUNTERS])
{
	fputc('[', f);
	for (unsigned j = 0; j < s->pmc_count && j < SIM_MAX_PMC; j++) {
		fprintf(f, "%s%" PRIu64, j ? "," : "", pmc[s->pmc_counters[j] % SIM_MAX_COUNTERS]);
	}
	fputc(']', f);
}

/* ,"pmc":[..] or ,"pmc":{"name":[..],..}, nothing when no session stamps. */
static void put_pmc(FILE *f, const struct trace_config *cfg, bool spin,
		    const uint64_t pmc[SIM_MAX_COUNTERS])
{
	unsigned idx[SIM_MAX_SESSIONS];
	unsigned n = truth_stamping_sessions(cfg, spin, idx);
	bool same = true;

	if (n == 0) {
		return;
	}
	for (unsigned i = 1; i < n; i++) {
		same = same && same_counters(&cfg->sessions[idx[0]], &cfg->sessions[idx[i]]);
	}
	fputs(",\"pmc\":", f);
	if (same) {
		put_values(f, &cfg->sessions[idx[0]], pmc);
		return;
	}
	fputc('{', f);
	for (unsigned i = 0; i < n; i++) {
		if (i) {
			fputc(',', f);
		}
		put_str(f, cfg->sessions[idx[i]].name);
		fputc(':', f);
		put_values(f, &cfg->sessions[idx[i]], pmc);
	}
	fputc('}', f);
}

/* End the line; every write error so far (sticky in the stream) is -EIO. */
static int end_line(FILE *f)
{
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

/* One "sessions" entry: DESIGN.md's keys, then the extensions. */
static void put_session(FILE *f, const struct trace_config *cfg, const struct trace_session_cfg *s)
{
	const char *sep = "";

	fputs("{\"name\":", f);
	put_str(f, s->name);
	fprintf(f, ",\"clock\":\"%s\",\"flags\":[", sim_clock_name(s->clock));
	for (unsigned k = 0; k < TRUTH_NFLAGS; k++) {
		if (s->flags & truth_flag_bits[k]) {
			fprintf(f, "%s\"%s\"", sep, truth_flag_names[k]);
			sep = ",";
		}
	}
	fprintf(f, "],\"pebs\":%s,\"pmc\":{\"counters\":[", json_bool(s->pebs));
	for (unsigned j = 0; j < s->pmc_count && j < SIM_MAX_PMC; j++) {
		if (j) {
			fputc(',', f);
		}
		put_str(f, cfg->counters[s->pmc_counters[j] % SIM_MAX_COUNTERS]);
	}
	fputs("],\"events\":[", f);
	for (unsigned j = 0; j < s->pmc_event_count && j < 4; j++) {
		fprintf(f, "%s\"0x%04x\"", j ? "," : "", (unsigned)s->pmc_events[j]);
	}
	fprintf(f, "]},\"buffer_size\":%" PRIu32 ",\"file\":", s->buffer_size);
	put_str(f, s->file);
	fprintf(f, ",\"pool_buffers\":%" PRIu32 ",\"flush_latency\":%" PRIu64, s->pool_buffers,
		s->flush_latency);
	if (s->compress) {
		fputs(",\"compressed\":true",
		      f); /* only when set: older streams stay as they were */
	}
	fputc('}', f);
}

static bool any_spinlock(const struct trace_config *cfg)
{
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		if (cfg->sessions[i].flags & PRODUCER_F_SPINLOCK) {
			return true;
		}
	}
	return false;
}

int truth_write_meta(FILE *f, const struct trace_config *cfg)
{
	assert(cfg->target);
	fputs("{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"target\":", f);
	put_str(f, cfg->target->name);
	fprintf(f,
		",\"arch\":\"%s\",\"cpus\":%u,\"cpu_mhz\":%" PRIu32 ",\"perf_freq\":%" PRIu64
		",\"timer_resolution\":%" PRIu32 ",\"max_wait_reason\":%u,\"start_time\":%" PRId64
		",\"quirks\":%s,\"seed\":%" PRIu64 ",\"sessions\":[",
		cfg->arch == ETL_ARCH_X86 ? "x86" : "x64", cfg->cpus, cfg->cpu_mhz, cfg->perf_freq,
		cfg->timer_resolution, (unsigned)cfg->max_wait_reason, cfg->start_time,
		json_bool(cfg->quirks), cfg->seed);
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		if (i) {
			fputc(',', f);
		}
		put_session(f, cfg, &cfg->sessions[i]);
	}
	fprintf(f, "],\"boot_time\":%" PRId64, cfg->boot_time);
	if (cfg->have_start_ts) {
		put_ts(f, cfg, "start_ts", cfg->start_ts);
	}
	fprintf(f, ",\"flush_at_end\":%s,\"pebs_and_pmc\":%s", json_bool(cfg->flush_at_end),
		json_bool(cfg->pebs_and_pmc));
	/* gen's extension: the sampling parameters, and which releases have a line */
	if (any_spinlock(cfg) && cfg->spin_rows != TRACE_SPIN_ROWS_UNKNOWN) {
		fprintf(f,
			",\"spinlock\":{\"spin_threshold\":%" PRIu32
			",\"acquire_sample_rate\":%" PRIu32 ",\"contention_sample_rate\":%" PRIu32
			",\"hold_threshold\":%" PRIu32,
			cfg->spin.spin_threshold, cfg->spin.acquire_sample_rate,
			cfg->spin.contention_sample_rate, cfg->spin.hold_threshold);
		fprintf(f, ",\"rows\":\"%s\"}",
			cfg->spin_rows == TRACE_SPIN_ROWS_ALL ? "all" : "logged");
	}
	fputc('}', f);
	return end_line(f);
}

static bool any_pebs(const struct trace_config *cfg)
{
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		if (cfg->sessions[i].pebs) {
			return true;
		}
	}
	return false;
}

int truth_write_cswitch(FILE *f, const struct trace_config *cfg, const struct sim_cswitch *cs)
{
	fprintf(f, "{\"kind\":\"cswitch\",\"cpu\":%" PRIu32 ",\"tick\":%" PRIu32, cs->cpu,
		cs->tick);
	put_ts(f, cfg, "ts", cs->ts);
	fprintf(f,
		",\"old_tid\":%" PRIu32 ",\"old_pri\":%d,\"old_base_pri\":%d,\"old_state\":%u"
		",\"old_wait_reason\":%u,\"old_wait_mode\":%u,\"old_ideal_cpu\":%" PRIu32
		",\"old_remaining_quantum\":%" PRId64 ",\"old_qos\":%u,\"prev_cstate\":%u"
		",\"old_rank\":%" PRIu32 ",\"new_tid\":%" PRIu32
		",\"new_pri\":%d,\"new_pri_decrement\":%d"
		",\"new_wait_ticks\":%" PRIu32 ",\"new_qos\":%u",
		cs->old_tid, cs->old_pri, cs->old_base_pri, (unsigned)cs->old_state,
		(unsigned)cs->old_wait_reason, (unsigned)cs->old_wait_mode, cs->old_ideal_cpu,
		cs->old_remaining_quantum, (unsigned)cs->old_qos, (unsigned)cs->prev_cstate,
		cs->old_rank, cs->new_tid, cs->new_pri, cs->new_pri_decrement, cs->new_wait_ticks,
		(unsigned)cs->new_qos);
	put_pmc(f, cfg, false, cs->pmc);
	if (any_pebs(cfg)) {
		/* PebsIndex is a linear address into the DS buffer: a hex string */
		fprintf(f, ",\"pebs_index\":\"0x%" PRIx64 "\"", cs->pebs_index);
	}
	fputc('}', f);
	return end_line(f);
}

int truth_write_spinlock(FILE *f, const struct trace_config *cfg, const struct sim_spinlock *sl)
{
	unsigned why = (unsigned)sl->why;

	fprintf(f, "{\"kind\":\"spinlock\",\"cpu\":%" PRIu32 ",\"tick\":%" PRIu32, sl->cpu,
		sl->tick);
	put_ts(f, cfg, "ts", sl->ts);
	fprintf(f,
		",\"lock\":\"0x%" PRIx64 "\",\"caller\":\"0x%" PRIx64 "\",\"acquire_time\":%" PRIu64
		",\"release_time\":%" PRIu64 ",\"wait_cycles\":%" PRIu64 ",\"spin_count\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"interrupt_count\":%" PRIu32 ",\"irql\":%u,\"depth\":%u"
		",\"mode\":%u,\"dpc\":%s,\"isr\":%s,\"logged\":%s,\"why\":\"%s\"",
		sl->lock, sl->caller, sl->acquire_time, sl->release_time, sl->wait_cycles,
		sl->spin_count, sl->tid, sl->interrupt_count, (unsigned)sl->irql,
		(unsigned)sl->depth, (unsigned)sl->mode, json_bool(sl->dpc), json_bool(sl->isr),
		json_bool(sl->logged), why < TRUTH_NWHY ? truth_why_names[why] : "none");
	/* extensions: the lock's name, the PRCB counters the predicate read, and why not logged */
	if (sl->name) {
		fputs(",\"name\":", f);
		put_str(f, sl->name);
	}
	if (cfg->spin_rows != TRACE_SPIN_ROWS_UNKNOWN) {
		fprintf(f, ",\"acquire_count\":%" PRIu32 ",\"contention_count\":%" PRIu32,
			sl->acquire_count, sl->contention_count);
	}
	if (sl->untracked) {
		fputs(",\"untracked\":true", f);
	}
	if (sl->guarded) {
		fputs(",\"guarded\":true", f);
	}
	put_pmc(f, cfg, true, sl->pmc);
	fputc('}', f);
	return end_line(f);
}

int truth_write_ccswap_stop(FILE *f, const struct trace_config *cfg,
			    const struct sim_ccswap_stop *st)
{
	fprintf(f, "{\"kind\":\"ccswap_stop\",\"tick\":%" PRIu32, st->tick);
	put_ts(f, cfg, "ts", st->ts);
	fprintf(f, ",\"clock\":\"%s\"}", sim_clock_name(st->clock));
	return end_line(f);
}

int truth_write_end(FILE *f, const struct trace_config *cfg, const struct sim_end *end)
{
	fprintf(f, "{\"kind\":\"end\",\"tick\":%" PRIu32, end->tick);
	put_ts(f, cfg, "ts", end->ts);
	fputc('}', f);
	return end_line(f);
}

static int sink_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct truth_writer *w = ctx;

	return truth_write_cswitch(w->f, w->cfg, cs);
}

static int sink_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct truth_writer *w = ctx;

	return truth_write_spinlock(w->f, w->cfg, sl);
}

static int sink_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct truth_writer *w = ctx;

	return truth_write_ccswap_stop(w->f, w->cfg, st);
}

static int sink_end(void *ctx, const struct sim_end *end)
{
	struct truth_writer *w = ctx;

	return truth_write_end(w->f, w->cfg, end);
}

static const struct trace_sink_ops truth_sink_ops = {
	.cswitch = sink_cswitch,
	.spinlock = sink_spinlock,
	.ccswap_stop = sink_stop,
	.end = sink_end,
};

struct trace_sink truth_sink(struct truth_writer *w)
{
	struct trace_sink s = {&truth_sink_ops, w};

	return s;
}
